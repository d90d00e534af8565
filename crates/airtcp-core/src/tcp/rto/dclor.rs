//! DCLOR, De-correlated Loss Recovery (Swami & Le,
//! draft-swami-tsvwg-tcp-dclor-00, §4): after a timeout, probe with ONE new
//! segment and wait for its ACK or SACK before recovering, so that stale
//! ACKs of stalled packets neither clock out data nor grow the window, and
//! only the packets actually lost are retransmitted.
//!
//! Steps as numbered in §4:
//! 1. before the handshake completes, a timeout is handled as usual (the
//!    sender handles SYN timeouts itself);
//! 2. cwnd = 0, remember the pipe N at the timeout, ssthresh unchanged;
//! 3. renege all SACK tags;
//! 4. send ONE new segment (or, with no new data or a closed receive
//!    window, the highest one in the retransmission queue); SS_PTR = it;
//! 5. a timeout in the probe phase repeats steps 2–4 (N is kept from the
//!    first timeout: it measures the stalled window);
//! 6. ACKs below SS_PTR remove acknowledged data and set SACK tags, send
//!    nothing;
//! 7. no RTT sample from such stale ACKs; the timer is restarted with each
//!    (the draft's MAY); leave the probe phase on a SACK block containing
//!    SS_PTR (step 8) or an ACK covering it (step 10);
//! 8. mark every untagged segment below SS_PTR lost and recompute pipe;
//! 9. ssthresh = N / 2 (at least 2 SMSS, RFC 5681 (4));
//! 10. cwnd = 2 SMSS; retransmit lost segments first (lowest first), then
//!     new data. A pure ACK covering SS_PTR leaves ssthresh unchanged.
//!
//! §6: DCLOR is not invoked unless a SACK block was seen before the timeout
//! (the standard response is used instead).

use super::standard::standard_timeout;
use super::TimeoutResponse;
use crate::net::packet::Packet;
use crate::sim::TimeNs;
use crate::tcp::core::SenderCore;
use crate::tcp::recovery::LossRecovery;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Idle,
    /// Steps 5–7: probing. `ss_ptr`..`ss_end` is the probe segment; `pipe`
    /// the pipe at the (first) timeout.
    Probe {
        ss_ptr: u64,
        ss_end: u64,
        pipe: u64,
    },
}

#[derive(Clone, Debug)]
pub struct DclorTimeout {
    phase: Phase,
    /// §6: invoke DCLOR only if a SACK block was seen before the timeout
    /// (default). Turning it off assumes a receiver that sends SACK blocks
    /// once SACK is permitted, as §6 argues every receiver should.
    pub require_sack_seen: bool,
}

impl Default for DclorTimeout {
    fn default() -> Self {
        Self {
            phase: Phase::Idle,
            require_sack_seen: true,
        }
    }
}

impl DclorTimeout {
    pub fn new(require_sack_seen: bool) -> Self {
        Self {
            require_sack_seen,
            ..Self::default()
        }
    }

    /// Step 4: one new MSS-sized segment regardless of cwnd, else the
    /// highest segment of the retransmission queue. Returns (start, end).
    fn send_probe(
        core: &mut SenderCore,
        now_ns: TimeNs,
        out: &mut Vec<Packet>,
    ) -> Option<(u64, u64)> {
        let start = core.snd_max;
        if core.send_new_segments(now_ns, 1, out) == 1 {
            return Some((start, core.snd_max));
        }
        let last = core.sb.len().checked_sub(1)?;
        let rec = *core.sb.get(last).expect("non-empty");
        core.retransmit_index(last, now_ns, out);
        Some((rec.start, rec.end))
    }

    /// Steps 8–10.
    fn leave_probe(
        core: &mut SenderCore,
        pipe_at_timeout: u64,
        lost: bool,
        now_ns: TimeNs,
        out: &mut Vec<Packet>,
    ) {
        if lost {
            // Step 8: the SACK block with SS_PTR shows what was lost: every
            // untagged segment (one block suffices: no reordering is
            // expected over an RTO).
            core.sb.mark_all_lost();
            core.sb.set_high_rxt(core.snd_una);
            core.sack_after_timeout = true;
            core.recover = Some(core.snd_max);
            // Step 9.
            core.w.ssthresh = (pipe_at_timeout / 2).max(2 * core.mss);
        }
        // Step 10.
        core.w.cwnd = 2 * core.mss;
        core.trace_window(now_ns);
        if core.snd_una >= core.snd_max {
            core.stop_rto_timer();
        } else {
            core.restart_rto_timer(now_ns);
        }
        core.send_pending(now_ns, out);
    }
}

impl TimeoutResponse for DclorTimeout {
    fn name(&self) -> &'static str {
        "dclor"
    }

    fn on_timeout(
        &mut self,
        core: &mut SenderCore,
        recovery: &mut dyn LossRecovery,
        now_ns: TimeNs,
        out: &mut Vec<Packet>,
    ) {
        if self.require_sack_seen && !core.sack_seen {
            // §6: never saw a SACK block: standard TCP.
            standard_timeout(core, recovery, now_ns, out);
            return;
        }
        core.record_timeout(now_ns);
        core.cc.on_retransmission_timeout();
        // RFC 6298 (5.5): the timer still backs off.
        core.rtt.back_off();
        core.forget_timed_segment();
        let pipe = match self.phase {
            Phase::Probe { pipe, .. } => pipe, // step 5: keep N
            Phase::Idle => core.sb.pipe(),
        };
        // Steps 2–3.
        core.w.cwnd = 0;
        core.in_recovery = false;
        core.sack_after_timeout = false;
        core.dupacks = 0;
        core.recover = Some(core.snd_max);
        core.recover_from_timeout = true;
        core.sb.clear_sacks();
        core.sb.clear_loss_marks();
        recovery.on_timeout(core, now_ns, out);
        core.snd_nxt = core.snd_max;
        core.trace_window(now_ns);
        core.restart_rto_timer(now_ns);
        // Step 4.
        match Self::send_probe(core, now_ns, out) {
            Some((ss_ptr, ss_end)) => {
                self.phase = Phase::Probe {
                    ss_ptr,
                    ss_end,
                    pipe,
                }
            }
            None => self.phase = Phase::Idle,
        }
    }

    fn on_ack(
        &mut self,
        core: &mut SenderCore,
        _r: &mut dyn LossRecovery,
        ack: &Packet,
        now_ns: TimeNs,
        out: &mut Vec<Packet>,
    ) -> bool {
        let Phase::Probe {
            ss_ptr,
            ss_end,
            pipe,
        } = self.phase
        else {
            return false;
        };
        if ack.ack > core.snd_max || ack.ack < core.snd_una {
            return true;
        }
        let probe_sacked = ack
            .sack_blocks()
            .iter()
            .any(|b| b.start <= ss_ptr && ss_ptr < b.end);
        if ack.ack >= ss_end {
            // Step 7 → 10: a pure ACK covering SS_PTR: nothing was lost,
            // the timeout was spurious.
            core.apply_ack(now_ns, ack, true);
            core.stats.spurious_timeouts_detected += 1;
            self.phase = Phase::Idle;
            Self::leave_probe(core, pipe, false, now_ns, out);
        } else if probe_sacked {
            // Step 7 → 8: the probe arrived but something below it did not.
            core.apply_ack(now_ns, ack, false);
            self.phase = Phase::Idle;
            Self::leave_probe(core, pipe, true, now_ns, out);
        } else {
            // Steps 6–7: a stale ACK: bookkeeping only, no RTT sample, no
            // data; restart the timer (the draft's MAY).
            if core.apply_ack(now_ns, ack, false) > 0 {
                core.restart_rto_timer(now_ns);
            }
        }
        true
    }
}
