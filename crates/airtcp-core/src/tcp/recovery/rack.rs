//! RACK-TLP, RFC 8985: time-based loss detection (RACK, §6) and the tail
//! loss probe (TLP, §7), with the SACK recovery of RFC 6675 (entered when
//! RACK marks a loss, sending by pipe and NextSeg). It replaces the
//! DupThresh rule of `sack.rs`; the scoreboard (`scoreboard.rs`) keeps each
//! segment's latest transmission time (Segment.xmit_ts) and RACK's loss
//! marks, and lists the segments each ACK delivered.
//!
//! * §6.2 step 1: RACK.min_RTT is the RTT estimator's minimum over the
//!   connection, not the windowed filter the RFC recommends (SHOULD): that
//!   filter serves a connection moved to a longer path, and no airtcp path
//!   moves (DCLOR's route changes alternate between two routes every few
//!   packets, so a window of Linux's five minutes holds the same minimum).
//! * Steps 2-3: RACK.xmit_ts / end_seq / rtt from the most recently sent
//!   segment this ACK delivered, a retransmission only if the ACK echoes
//!   its timestamp (when timestamps are on) and it left at least min_RTT
//!   ago; RACK.reordering_seen when a never-retransmitted segment below
//!   RACK.fack (as it was before this ACK) is delivered.
//! * Step 4: reo_wnd = min(reo_wnd_mult x min_RTT / 4, SRTT), 0 without
//!   reordering in recovery or once DupThresh segments are SACKed;
//!   reo_wnd_mult grows by one per round trip with a DSACK and falls back
//!   to 1 after 16 recoveries without one.
//! * Step 5 and §6.3: a segment sent before RACK.xmit_ts is lost once
//!   RACK.rtt plus reo_wnd have passed since it was sent; the reordering
//!   timer fires at the latest such deadline still ahead. After an RTO the
//!   first segment, and those sent RACK.rtt plus reo_wnd ago, are lost.
//! * §7: a PTO of 2 SRTT (+ TLP.max_ack_delay with one segment in flight;
//!   1 s without an SRTT), capped at the RTO's expiry, armed when new data
//!   leaves or an ACK advances SND.UNA outside recovery and with nothing
//!   SACKed; the probe is new data if any (ignoring cwnd) or the highest
//!   segment sent, at most one per episode (TLP.end_seq) and only after an
//!   RTT sample since the last; then the RTO is re-armed from the probe
//!   (when no probe leaves, the RTO keeps its expiry, as Linux does; the
//!   RFC re-arms it from now: docs/tcp-conformance.md). §7.4: a probe's
//!   retransmission that alone repaired a loss (ACK beyond TLP.end_seq
//!   without a DSACK for it) reduces the window as a fast recovery would.
//!   Without the probe (`RackTlpConfig::tail_loss_probe`, `loss_detection
//!   = "rack"`) no PTO is ever armed: RACK alone.
//!
//! The receivers of these flows send RFC 2883 D-SACK blocks (step 4 and
//! §7.4.1 read them). PRR (RFC 9937, RECOMMENDED with RACK-TLP) is the
//! option `proportional_rate_reduction` (`prr.rs`); without it cwnd drops
//! to ssthresh when recovery starts, as in RFC 6675.

use super::{LossRecovery, NewAckOutcome};
use crate::net::packet::Packet;
use crate::sim::{TimeNs, NS_PER_S};
use crate::tcp::core::SenderCore;
use crate::tcp::scoreboard::{sent_after, RackStep5};

/// RFC 8985 §6.2 step 4: recoveries without a DSACK before reo_wnd_mult
/// returns to 1.
const REO_WND_PERSIST: u32 = 16;

/// §7.2: the PTO before any RTT measurement.
const PTO_WITHOUT_SRTT_NS: TimeNs = NS_PER_S;

/// RACK's variables (RFC 8985 §5.2), for tests and diagnostics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RackState {
    /// RACK.rtt.
    pub rtt_ns: TimeNs,
    /// RACK.reo_wnd as step 4 computes it now.
    pub reo_wnd_ns: TimeNs,
    pub reordering_seen: bool,
    pub reo_wnd_mult: u32,
    pub reo_wnd_persist: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RackTlpConfig {
    /// TLP.max_ack_delay (§7.2), added to the PTO when one segment is in
    /// flight: the receiver's delayed-ACK timer (0 without delayed ACKs).
    pub max_ack_delay_ns: TimeNs,
    /// §7's Tail Loss Probe; false is RACK alone (`loss_detection =
    /// "rack"`): §4 "TLP requires RACK", not the converse, and §3 gives
    /// the two their own design principles.
    pub tail_loss_probe: bool,
}

impl Default for RackTlpConfig {
    fn default() -> Self {
        Self {
            max_ack_delay_ns: 0,
            tail_loss_probe: true,
        }
    }
}

/// In fast recovery (RFC 6675 §5) or RTO recovery (§5.1).
fn recovering(core: &SenderCore) -> bool {
    core.in_recovery || core.sack_after_timeout
}

/// RFC 2883 §4: the first SACK block reports a duplicate when it lies
/// below the cumulative ACK or inside the second block.
fn has_dsack(ack: &Packet) -> bool {
    match ack.sack_blocks() {
        [first, rest @ ..] => {
            first.end <= ack.ack
                || rest
                    .first()
                    .is_some_and(|b| b.start <= first.start && first.end <= b.end)
        }
        [] => false,
    }
}

#[derive(Clone, Debug, Default)]
pub struct RackTlpRecovery {
    cfg: RackTlpConfig,
    /// (RACK.xmit_ts, RACK.end_seq); None before anything was delivered.
    latest: Option<(TimeNs, u64)>,
    /// RACK.rtt.
    rtt_ns: TimeNs,
    /// RACK.fack.
    fack: u64,
    reordering_seen: bool,
    reo_wnd_mult: u32,
    reo_wnd_persist: u32,
    dsack_round: Option<u64>,
    /// The RACK reordering timer.
    reo_deadline: Option<TimeNs>,
    /// TLP.end_seq and TLP.is_retrans.
    tlp_end_seq: Option<u64>,
    tlp_is_retrans: bool,
    pto_deadline: Option<TimeNs>,
    /// RTT samples taken when the last probe left (§7.3 condition 2; 0
    /// before any probe: a sample since the start of the connection).
    samples_at_probe: u64,
    /// State after the previous event: to see new data leave, SND.UNA
    /// advance and a recovery end.
    seen_snd_max: u64,
    seen_snd_una: u64,
    was_recovering: bool,
}

impl RackTlpRecovery {
    pub fn new(cfg: RackTlpConfig) -> Self {
        Self {
            cfg,
            reo_wnd_mult: 1,
            ..Self::default()
        }
    }

    /// RACK.reo_wnd (§6.2 step 4, RACK_update_reo_wnd's return value).
    pub fn reo_wnd_ns(&self, core: &SenderCore) -> TimeNs {
        if !self.reordering_seen
            && (recovering(core) || core.sb.sacked_segments() >= core.cfg.dupthresh)
        {
            return 0;
        }
        let Some(min_rtt) = core.rtt.min_rtt_ns() else {
            return 0;
        };
        let srtt = core.rtt.srtt_ns().unwrap_or(0);
        (self.reo_wnd_mult as TimeNs * min_rtt / 4).min(srtt)
    }

    /// §6.2 steps 2 and 3 for the segments this ACK delivered.
    fn update_from_deliveries(&mut self, core: &SenderCore, ack: &Packet, now_ns: TimeNs) {
        let min_rtt = core.rtt.min_rtt_ns();
        let fack_before = self.fack;
        let mut newest: Option<(TimeNs, u64, TimeNs)> = None;
        for d in core.sb.delivered() {
            // Step 3.
            if !d.retransmitted && d.end < fack_before {
                self.reordering_seen = true;
            }
            self.fack = self.fack.max(d.end);
            // Step 2: a retransmitted segment counts only if this ACK is
            // for its latest transmission.
            let rtt = now_ns.saturating_sub(d.last_sent_ns);
            if d.retransmitted
                && ((core.cfg.timestamps && ack.has_ts && ack.ts_ecr < d.last_sent_ns)
                    || min_rtt.is_some_and(|m| rtt < m))
            {
                continue;
            }
            if newest.is_none_or(|(t, e, _)| sent_after(d.last_sent_ns, d.end, t, e)) {
                newest = Some((d.last_sent_ns, d.end, rtt));
            }
        }
        if let Some((t, e, rtt)) = newest {
            self.rtt_ns = rtt;
            if self.latest.is_none_or(|(lt, le)| sent_after(t, e, lt, le)) {
                self.latest = Some((t, e));
            }
        }
    }

    /// §6.2 step 4's DSACK-driven adaptation of reo_wnd_mult.
    fn adapt_reo_wnd(&mut self, core: &SenderCore, dsack: bool, exiting_recovery: bool) {
        if self.dsack_round.is_some_and(|r| core.snd_una >= r) {
            self.dsack_round = None;
        }
        if self.dsack_round.is_none() && dsack {
            self.dsack_round = Some(core.snd_max);
            self.reo_wnd_mult += 1;
            self.reo_wnd_persist = REO_WND_PERSIST;
        } else if exiting_recovery {
            self.reo_wnd_persist = self.reo_wnd_persist.saturating_sub(1);
            if self.reo_wnd_persist == 0 {
                self.reo_wnd_mult = 1;
            }
        }
    }

    /// §6.2 step 5, RACK_detect_loss_and_arm_timer(): mark the segments
    /// lost and arm the reordering timer for the rest. True if any segment
    /// was marked.
    fn detect_loss(&mut self, core: &mut SenderCore, now_ns: TimeNs) -> bool {
        self.reo_deadline = None;
        let Some((xmit_ts, end_seq)) = self.latest else {
            return false;
        };
        // Every unSACKed segment not yet deemed lost whose latest
        // transmission was sent before RACK.xmit_ts and is older than
        // RACK.rtt + RACK.reo_wnd is lost; the latest deadline of the
        // others arms the reordering timer.
        let (marked, deadline) = core.sb.mark_rack_expired(RackStep5 {
            xmit_ts_ns: xmit_ts,
            end_seq,
            wait_ns: self.rtt_ns + self.reo_wnd_ns(core),
            now_ns,
        });
        self.reo_deadline = deadline;
        marked
    }

    /// RACK found losses: outside any recovery, start RFC 6675's (§5 step
    /// (4): RecoveryPoint = HighData, ssthresh and cwnd from the
    /// controller, (4.3) the first lost segment retransmitted at once);
    /// the other lost segments then leave by NextSeg.
    /// `from_ack`: an ACK's loss detection found them (else the
    /// reordering timer's), for PRR's first step (RFC 9937 §6.2).
    fn enter_recovery(
        &mut self,
        core: &mut SenderCore,
        now_ns: TimeNs,
        from_ack: bool,
        out: &mut Vec<Packet>,
    ) {
        let beyond_recovery_point = core.recover.is_none_or(|r| core.snd_una >= r);
        if recovering(core) || !beyond_recovery_point {
            return;
        }
        self.reset_tlp();
        core.sb.set_high_rxt(core.snd_una);
        core.enter_loss_recovery(now_ns);
        core.set_recovery_window(from_ack);
        core.trace_window(now_ns);
        if let Some(i) = core.sb.next_lost_segment() {
            core.retransmit_index(i, now_ns, out);
        }
        core.rescue_rxt = Some(core.sb.high_rxt());
    }

    /// §7.1: no probe episode after entering fast or RTO recovery.
    fn reset_tlp(&mut self) {
        self.tlp_end_seq = None;
        self.pto_deadline = None;
    }

    /// §7.4.2 TLP_process_ack.
    fn tlp_process_ack(
        &mut self,
        core: &mut SenderCore,
        ack: &Packet,
        acked: u64,
        dsack: bool,
        now_ns: TimeNs,
    ) {
        let Some(end) = self.tlp_end_seq else {
            return;
        };
        if ack.ack < end {
            return;
        }
        if !self.tlp_is_retrans {
            // The probe was new data, and it was delivered.
            self.tlp_end_seq = None;
        } else if dsack && ack.sack_blocks()[0].end == end {
            // Case 1: the probe's retransmission was a duplicate.
            self.tlp_end_seq = None;
        } else if ack.ack > end {
            // The probe repaired the only loss: FlightSize before this ACK.
            self.tlp_end_seq = None;
            let flight = core.snd_max - self.seen_snd_una.min(core.snd_max);
            // The probe resent the segment that ends at TLP.end_seq.
            core.reduce_window_for_repaired_loss(now_ns, flight, end - 1);
        } else if acked == 0 && ack.sack_count == 0 {
            // Case 2: a duplicate ACK without SACK: both copies arrived.
            self.tlp_end_seq = None;
        }
    }

    /// §7.2 TLP_calc_PTO, from now.
    fn arm_pto(&mut self, core: &SenderCore, now_ns: TimeNs) {
        let Some(rto_expiry) = core.rto_deadline.filter(|_| self.cfg.tail_loss_probe) else {
            self.pto_deadline = None;
            return;
        };
        let pto = match core.rtt.srtt_ns() {
            Some(srtt) if core.sb.len() == 1 => 2 * srtt + self.cfg.max_ack_delay_ns,
            Some(srtt) => 2 * srtt,
            None => PTO_WITHOUT_SRTT_NS,
        };
        self.pto_deadline = Some((now_ns + pto).min(rto_expiry));
    }

    /// §7.3 TLP_send_probe, when the PTO fires.
    fn send_probe(&mut self, core: &mut SenderCore, now_ns: TimeNs, out: &mut Vec<Packet>) {
        // (1) no probe in flight; (2) an RTT sample since the last probe.
        let fresh_rtt = core.rtt.samples > self.samples_at_probe;
        if self.tlp_end_seq.is_none() && fresh_rtt && core.snd_una < core.snd_max {
            if core.send_new_segments(now_ns, 1, out) == 1 {
                self.tlp_is_retrans = false;
            } else {
                let last = core.sb.len() - 1;
                core.retransmit_out_of_order(last, now_ns, out);
                self.tlp_is_retrans = true;
            }
            self.tlp_end_seq = Some(core.snd_max);
            self.samples_at_probe = core.rtt.samples;
            // A probe does not re-arm the PTO (§7.2); the RTO restarts
            // from it. Without a probe the RTO keeps its expiry, a
            // deviation: RFC 8985 §7.3 re-arms it from now "regardless of
            // whether a loss probe was sent"; Linux's tcp_rearm_rto after
            // a loss-probe timer re-arms it from the head's transmission,
            // i.e. keeps it. A PTO capped at that expiry then lets it fire.
            self.seen_snd_max = core.snd_max;
            core.restart_rto_timer(now_ns);
        }
    }
}

impl LossRecovery for RackTlpRecovery {
    fn name(&self) -> &'static str {
        if self.cfg.tail_loss_probe {
            "rack_tlp"
        } else {
            "rack"
        }
    }

    fn uses_sack_scoreboard(&self) -> bool {
        true
    }

    fn attach(&mut self, core: &mut SenderCore) {
        core.sb.track_for_rack();
    }

    /// RACK replaces the DupThresh rule: duplicate ACKs only feed the
    /// scoreboard (done by the core) and Limited Transmit.
    fn on_duplicate_ack(&mut self, _c: &mut SenderCore, _n: TimeNs, _o: &mut Vec<Packet>) {}

    fn on_new_ack(
        &mut self,
        core: &mut SenderCore,
        _acked: u64,
        now_ns: TimeNs,
        _out: &mut Vec<Packet>,
    ) -> NewAckOutcome {
        if core.recovery_point_reached() {
            // RFC 6675 §5 (A).
            core.end_recovery(now_ns);
        }
        NewAckOutcome::default()
    }

    fn after_ack(
        &mut self,
        core: &mut SenderCore,
        ack: &Packet,
        acked: u64,
        now_ns: TimeNs,
        out: &mut Vec<Packet>,
    ) {
        let dsack = has_dsack(ack);
        let exiting_recovery = self.was_recovering && !recovering(core);
        self.tlp_process_ack(core, ack, acked, dsack, now_ns);
        self.update_from_deliveries(core, ack, now_ns);
        self.adapt_reo_wnd(core, dsack, exiting_recovery);
        if self.detect_loss(core, now_ns) {
            self.enter_recovery(core, now_ns, true, out);
        }
    }

    fn after_event(&mut self, core: &mut SenderCore, now_ns: TimeNs) {
        let sent_new = core.snd_max > self.seen_snd_max;
        let acked_new = core.snd_una > self.seen_snd_una;
        self.seen_snd_max = core.snd_max;
        self.seen_snd_una = core.snd_una;
        self.was_recovering = recovering(core);
        if core.snd_una >= core.snd_max || recovering(core) || core.sb.sacked_segments() > 0 {
            self.pto_deadline = None;
        } else if sent_new || acked_new {
            self.arm_pto(core, now_ns);
        }
    }

    fn on_timeout(&mut self, core: &mut SenderCore, now_ns: TimeNs, out: &mut Vec<Packet>) {
        self.reset_tlp();
        self.reo_deadline = None;
        if !core.sack_after_timeout {
            return;
        }
        // §6.3: the first segment was sent an RTO ago; the others are lost
        // only if sent RACK.rtt + reo_wnd ago (instead of RFC 6675 §5.1's
        // "every unSACKed segment").
        core.sb.clear_loss_marks();
        let reo_wnd = self.reo_wnd_ns(core);
        for i in 0..core.sb.len() {
            let s = *core.sb.get(i).expect("index below len");
            if !s.sacked && (i == 0 || s.last_sent_ns + self.rtt_ns + reo_wnd <= now_ns) {
                core.sb.mark_rack_lost(i);
            }
        }
        // RFC 6298 (5.4): the first segment goes now, even when segments
        // RACK still believes in flight fill the loss window's pipe.
        if core.w.cwnd < core.sb.pipe() + core.mss {
            core.retransmit_first(now_ns, out);
        }
    }

    fn rack_state(&self, core: &SenderCore) -> Option<RackState> {
        Some(RackState {
            rtt_ns: self.rtt_ns,
            reo_wnd_ns: self.reo_wnd_ns(core),
            reordering_seen: self.reordering_seen,
            reo_wnd_mult: self.reo_wnd_mult,
            reo_wnd_persist: self.reo_wnd_persist,
        })
    }

    fn deadline(&self) -> Option<TimeNs> {
        match (self.reo_deadline, self.pto_deadline) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn on_timer(&mut self, core: &mut SenderCore, now_ns: TimeNs, out: &mut Vec<Packet>) {
        if self.reo_deadline.is_some_and(|d| d <= now_ns) {
            // §6.3: the reordering timer runs RACK_detect_loss_and_arm_timer.
            if self.detect_loss(core, now_ns) {
                self.enter_recovery(core, now_ns, false, out);
            }
            core.send_pending(now_ns, out);
        }
        if self.pto_deadline.is_some_and(|d| d <= now_ns) {
            self.pto_deadline = None;
            self.send_probe(core, now_ns, out);
        }
    }
}
