//! Proportional Rate Reduction, RFC 9937 (obsoletes RFC 6937): during fast
//! recovery cwnd is recomputed on each ACK from the data the ACK
//! delivered, so that the window falls to ssthresh over about one round
//! trip (§6.2's proportional part while inflight > ssthresh) instead of at
//! once (RFC 6675 §5 step (4); without SACK, RFC 5681 §3.2's halving and
//! inflation by duplicate ACKs), and grows back towards ssthresh by at
//! most what was delivered (PRR-CRB), plus one SMSS on a SafeACK
//! (PRR-SSRB).
//!
//! Pure arithmetic on the episode's state: no sender state is read here.
//! `SenderCore` feeds it (DeliveredData, inflight, SafeACK, transmissions)
//! and applies the cwnd it returns; the SACK, RACK-TLP, Reno and NewReno
//! recoveries start an episode when they enter recovery, and `SenderCore`
//! starts one on an RFC 3168 ECN-Echo (RFC 9937 §4: "the PRR ACK
//! processing for exactly one round trip worth of ACKs", to the
//! RecoveryPoint, HighData at the ECN-Echo). With SACK the
//! core measures DeliveredData and inflight on its scoreboard; without,
//! §6.2 estimates both from duplicate ACKs
//! ([`PrrEpisode::delivered_without_sack`],
//! [`PrrEpisode::inflight_without_sack`]); the per-ACK step is the same.

/// One PRR episode's state (RFC 9937 §3 and §6.1), all in bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PrrEpisode {
    /// RecoverFS: the bytes that might be delivered during the episode,
    /// fixed at its start (§6.1).
    pub recover_fs_bytes: u64,
    /// prr_delivered: bytes delivered to the receiver since the start.
    pub prr_delivered_bytes: u64,
    /// prr_out: bytes sent (new data and retransmissions) since the start.
    pub prr_out_bytes: u64,
    /// Without SACK: the estimate of what the SACKed bytes would be, 1
    /// SMSS for each duplicate ACK since SND.UNA last advanced (those
    /// before recovery too), less what later advances of SND.UNA covered
    /// (§6.2; [`Self::delivered_without_sack`]); 0 with SACK.
    pub dupack_bytes: u64,
    /// Without SACK, the most `dupack_bytes` counts for inflight: what was
    /// outstanding at the start. §6.2's "min(RecoverFS, 1 SMSS for each
    /// preceding duplicate ACK in the fast recovery episode)" bounds the
    /// episode's duplicate ACKs by RecoverFS "to protect against
    /// misbehaving receivers"; the estimate here also counts the duplicate
    /// ACKs before the episode, which RecoverFS leaves out (as it leaves
    /// out the SACKed bytes), so its bound is RecoverFS plus those. 0 with
    /// SACK.
    pub dupack_cap_bytes: u64,
}

/// What one ACK tells PRR (RFC 9937 §6.2), in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PrrAck {
    /// DeliveredData: the change in SND.UNA plus the signed change in
    /// SACKed bytes on the scoreboard.
    pub delivered_bytes: u64,
    /// inflight after the ACK's loss detection (RFC 6675's pipe).
    pub inflight_bytes: u64,
    /// SafeACK: SND.UNA advanced and no further loss is indicated.
    pub safe_ack: bool,
    /// The episode's target: ssthresh.
    pub ssthresh_bytes: u64,
    pub smss_bytes: u64,
}

impl PrrEpisode {
    /// §6.1: prr_delivered = prr_out = 0 and
    /// RecoverFS = SND.NXT - SND.UNA - (bytes SACKed in scoreboard)
    /// + (bytes newly SACKed) + (bytes newly cumulatively acknowledged),
    ///
    /// where the scoreboard already holds the triggering ACK's SACKs.
    pub fn begin(
        outstanding_bytes: u64,
        sacked_in_scoreboard_bytes: u64,
        newly_sacked_bytes: u64,
        newly_cum_acked_bytes: u64,
    ) -> Self {
        Self {
            recover_fs_bytes: (outstanding_bytes + newly_sacked_bytes + newly_cum_acked_bytes)
                .saturating_sub(sacked_in_scoreboard_bytes),
            prr_delivered_bytes: 0,
            prr_out_bytes: 0,
            dupack_bytes: 0,
            dupack_cap_bytes: 0,
        }
    }

    /// §6.1 without SACK: a loss episode begins on the DupThresh-th
    /// duplicate ACK, with the `duplicate_acks` since SND.UNA last advanced
    /// (this one included) as the SACKed bytes' estimate: RecoverFS =
    /// SND.NXT - SND.UNA - (the duplicate ACKs before this one) SMSS, what
    /// RFC 6675's pipe was before this ACK, as with SACK; this ACK's SMSS
    /// is counted by its §6.2 step ([`Self::delivered_without_sack`]). An
    /// ECN-Echo's episode may begin on an ACK that advanced SND.UNA (no
    /// duplicate ACK then): "RecoverFS += (bytes newly cumulatively
    /// acknowledged)", `newly_cum_acked_bytes` (0 on a duplicate ACK).
    pub fn begin_without_sack(
        outstanding_bytes: u64,
        duplicate_acks: u64,
        newly_cum_acked_bytes: u64,
        smss_bytes: u64,
    ) -> Self {
        let before_bytes = duplicate_acks.saturating_sub(1) * smss_bytes;
        Self {
            dupack_bytes: before_bytes,
            dupack_cap_bytes: outstanding_bytes,
            ..Self::begin(outstanding_bytes, before_bytes, 0, newly_cum_acked_bytes)
        }
    }

    /// §6.2's DeliveredData without SACK: "In recovery without SACK,
    /// DeliveredData is estimated to be 1 SMSS on each received duplicate
    /// ACK (i.e., SND.UNA did not change). When SND.UNA advances (i.e., a
    /// full or partial ACK), DeliveredData is the change in SND.UNA, minus
    /// 1 SMSS for each preceding duplicate ACK", and "if not using SACK,
    /// then PRR disallows incrementing DeliveredData when the total bytes
    /// delivered in a PRR episode would exceed ... RecoverFS".
    ///
    /// Read as the SACK rule (the change in SND.UNA plus the signed change
    /// in SACKed bytes) with the duplicate ACKs as the SACKed bytes'
    /// estimate (`dupack_bytes`): a duplicate ACK adds 1 SMSS; an advance
    /// of SND.UNA takes out of the estimate the segments it covered that
    /// duplicate ACKs had reported, all of it but the one segment at the
    /// old SND.UNA, whose loss started the recovery or was revealed by the
    /// last partial ACK (Linux's `tcp_remove_reno_sacks` reads it so), and
    /// delivers the rest. After a full ACK this is the RFC's text; after a
    /// partial one, whose duplicate ACKs also reported segments above the
    /// new SND.UNA, the text would give less than nothing. With neither
    /// ACK loss nor reordering the estimate is the scoreboard's SACKed
    /// bytes, and PRR sends what it sends with SACK. The total is capped
    /// at RecoverFS by cutting this ACK's share to what is left. An ACK
    /// that neither advances SND.UNA nor is a duplicate delivers 0.
    pub fn delivered_without_sack(
        &mut self,
        cum_acked_bytes: u64,
        duplicate: bool,
        smss_bytes: u64,
    ) -> u64 {
        let delivered = if cum_acked_bytes > 0 {
            let reported = cum_acked_bytes
                .saturating_sub(smss_bytes)
                .min(self.dupack_bytes);
            self.dupack_bytes -= reported;
            cum_acked_bytes - reported
        } else if duplicate {
            self.dupack_bytes += smss_bytes;
            smss_bytes
        } else {
            0
        };
        delivered.min(
            self.recover_fs_bytes
                .saturating_sub(self.prr_delivered_bytes),
        )
    }

    /// §6.2's inflight without SACK: SND.NXT - SND.UNA, less "min(RecoverFS,
    /// 1 SMSS for each preceding duplicate ACK in the fast recovery
    /// episode)" (in place of the SACKed bytes: their estimate,
    /// `dupack_bytes`, as in [`Self::delivered_without_sack`]), less the bytes
    /// marked lost and not retransmitted since (`lost_bytes`: the segment
    /// the recovery is about to retransmit; those retransmitted are
    /// "added" back, so count once).
    pub fn inflight_without_sack(&self, flight_size_bytes: u64, lost_bytes: u64) -> u64 {
        flight_size_bytes.saturating_sub(self.dupack_credit_bytes() + lost_bytes)
    }

    /// The duplicate ACKs' estimate, at most `dupack_cap_bytes`: what
    /// inflight leaves out of SND.NXT - SND.UNA for them, without SACK.
    pub fn dupack_credit_bytes(&self) -> u64 {
        self.dupack_bytes.min(self.dupack_cap_bytes)
    }

    /// §6.2, the per-ACK steps after DeliveredData is known: returns the
    /// new cwnd = inflight + SndCnt (never below zero), or None when the
    /// ACK delivered nothing ("if (DeliveredData is 0) Return").
    /// `entering` is the ACK (or timer) that starts the episode: there
    /// the forced fast retransmit applies even with nothing delivered.
    pub fn on_ack(&mut self, ack: PrrAck, entering: bool) -> Option<u64> {
        if ack.delivered_bytes == 0 && !entering {
            return None;
        }
        self.prr_delivered_bytes += ack.delivered_bytes;
        let inflight = i128::from(ack.inflight_bytes);
        let ssthresh = i128::from(ack.ssthresh_bytes);
        let delivered = i128::from(self.prr_delivered_bytes);
        let prr_out = i128::from(self.prr_out_bytes);
        let smss = i128::from(ack.smss_bytes);
        let mut snd_cnt = if inflight > ssthresh {
            // Proportional Rate Reduction, rounding up.
            let recover_fs = i128::from(self.recover_fs_bytes.max(1));
            let out = (delivered * ssthresh + recover_fs - 1) / recover_fs;
            out - prr_out
        } else {
            // PRR-CRB, and PRR-SSRB on a SafeACK; catch up as permitted.
            let mut n = (delivered - prr_out).max(i128::from(ack.delivered_bytes));
            if ack.safe_ack {
                n += smss;
            }
            n.min(ssthresh - inflight)
        };
        if prr_out == 0 && snd_cnt == 0 {
            // Force a fast retransmit upon entering recovery.
            snd_cnt = smss;
        }
        Some((inflight + snd_cnt).max(0) as u64)
    }

    /// §6.3: prr_out += (data sent).
    pub fn on_transmit(&mut self, bytes: u64) {
        self.prr_out_bytes += bytes;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(delivered: u64, inflight: u64, safe_ack: bool) -> PrrAck {
        PrrAck {
            delivered_bytes: delivered,
            inflight_bytes: inflight,
            safe_ack,
            ssthresh_bytes: 10,
            smss_bytes: 1,
        }
    }

    /// §6.2: SndCnt = CEIL(prr_delivered * ssthresh / RecoverFS) - prr_out
    /// while inflight > ssthresh (units of one byte per segment here).
    #[test]
    fn proportional_part_rounds_up() {
        let mut p = PrrEpisode::begin(20, 0, 0, 0);
        assert_eq!(p.on_ack(ack(1, 18, false), true), Some(19)); // ceil(10/20) = 1
        p.on_transmit(1);
        assert_eq!(p.on_ack(ack(1, 17, false), false), Some(17)); // ceil(20/20) - 1 = 0
        assert_eq!(p.on_ack(ack(0, 17, false), false), None);
    }

    /// §6.2: MIN(ssthresh - inflight, MAX(prr_delivered - prr_out, DeliveredData) [+ SMSS]).
    #[test]
    fn reduction_bound_adds_a_segment_on_a_safe_ack_only() {
        let mut p = PrrEpisode::begin(20, 0, 0, 0);
        p.on_transmit(1);
        assert_eq!(p.on_ack(ack(2, 5, false), false), Some(7));
        assert_eq!(p.on_ack(ack(2, 5, true), false), Some(5 + 4)); // max(4 - 1, 2) + 1
    }

    /// §6.1 and §6.2 without SACK, the SACKed bytes' estimate: an episode
    /// begun on the third duplicate ACK counts the two before it
    /// (RecoverFS = outstanding - 2 SMSS, as RFC 6675's pipe before that
    /// ACK); each duplicate ACK adds 1 SMSS and delivers it; an advance of
    /// SND.UNA takes out what it covered but its first segment (lost, so
    /// never reported) and delivers the rest; at most RecoverFS delivered
    /// in all; inflight leaves out the estimate, at most what was
    /// outstanding at the start.
    #[test]
    fn delivered_and_inflight_without_sack() {
        let mut p = PrrEpisode::begin_without_sack(10, 3, 0, 1);
        assert_eq!(
            (p.recover_fs_bytes, p.dupack_bytes, p.dupack_cap_bytes),
            (8, 2, 10)
        );
        assert_eq!(p.delivered_without_sack(0, true, 1), 1);
        assert_eq!(p.dupack_bytes, 3);
        assert_eq!(p.inflight_without_sack(10, 1), 6);
        assert_eq!(p.delivered_without_sack(0, false, 1), 0);
        assert_eq!(p.delivered_without_sack(2, false, 1), 1, "the lost one");
        assert_eq!(p.dupack_bytes, 2);
        assert_eq!(p.delivered_without_sack(5, false, 1), 3);
        assert_eq!(p.dupack_bytes, 0);
        p.prr_delivered_bytes = 7;
        assert_eq!(p.delivered_without_sack(0, true, 1), 1);
        p.prr_delivered_bytes = 8;
        assert_eq!(p.delivered_without_sack(0, true, 1), 0, "at most RecoverFS");
        p.dupack_bytes = 25;
        assert_eq!(p.inflight_without_sack(30, 0), 20, "at most 10");
    }

    /// §6.1 on an ACK that advanced SND.UNA by 1 (an ECN-Echo's episode,
    /// no duplicate ACK): RecoverFS = outstanding 9 + 1 newly cumulatively
    /// acknowledged = 10, no SACKed bytes' estimate, its bound what is
    /// outstanding; §6.2 delivers the advance whole.
    #[test]
    fn begin_without_sack_counts_the_newly_acknowledged_bytes() {
        let mut p = PrrEpisode::begin_without_sack(9, 0, 1, 1);
        assert_eq!(
            (p.recover_fs_bytes, p.dupack_bytes, p.dupack_cap_bytes),
            (10, 0, 9)
        );
        assert_eq!(p.delivered_without_sack(1, false, 1), 1);
        assert_eq!(p.inflight_without_sack(9, 0), 9);
    }
}
