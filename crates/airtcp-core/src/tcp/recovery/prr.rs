//! Proportional Rate Reduction, RFC 9937 (obsoletes RFC 6937): during SACK
//! loss recovery cwnd is recomputed on each ACK from the data the ACK
//! delivered, so that the window falls to ssthresh over about one round
//! trip (§6.2's proportional part while inflight > ssthresh) instead of at
//! once (RFC 6675 §5 step (4)), and grows back towards ssthresh by at most
//! what was delivered (PRR-CRB), plus one SMSS on a SafeACK (PRR-SSRB).
//!
//! Pure arithmetic on the episode's state: no sender state is read here.
//! `SenderCore` feeds it (DeliveredData, inflight, SafeACK, transmissions)
//! and applies the cwnd it returns; the SACK and RACK-TLP recoveries start
//! an episode when they enter recovery.

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
        }
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
}
