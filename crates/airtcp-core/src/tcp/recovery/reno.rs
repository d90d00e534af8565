//! Reno fast retransmit and fast recovery, RFC 5681 §3.2: on the third
//! duplicate ACK retransmit and set cwnd = ssthresh + 3 SMSS; inflate by one
//! SMSS per further duplicate ACK; deflate to ssthresh on the first ACK of
//! new data, even a partial one. With PRR (RFC 9937, option
//! `proportional_rate_reduction`) cwnd follows `prr.rs` on each duplicate
//! ACK instead of steps 3-4; the first ACK of new data still ends recovery
//! with cwnd = ssthresh. Duplicate ACKs for data sent before a
//! timeout do not start a fast retransmit (RFC 6582 §4's guard); after a
//! fast recovery they do, as RFC 5681 specifies. ns-2's Reno with
//! `bug_fix_` (its default) is stricter: `dupack_action` sets `recover_` at
//! EVERY fast retransmit and timeout and refuses another fast retransmit
//! until the ACK passes it; `one_fast_retransmit_per_window` models that.

use super::{LossRecovery, NewAckOutcome};
use crate::net::packet::Packet;
use crate::sim::TimeNs;
use crate::tcp::core::SenderCore;

#[derive(Clone, Debug, Default)]
pub struct RenoRecovery {
    /// ns-2's Reno with `bug_fix_` (tcp-reno.cc, `dupack_action`): every
    /// fast retransmit sets `recover_` to the highest segment sent, and
    /// duplicate ACKs that do not cover it start no second fast retransmit
    /// in the same window. RFC 5681 has no such rule (off by default).
    pub one_fast_retransmit_per_window: bool,
}

/// RFC 5681 §3.2 steps 2–4, shared with NewReno (RFC 6582 §3.2 steps 2–4).
/// With PRR (option `proportional_rate_reduction`), RFC 9937 §6.1 and
/// §6.2 set cwnd on this duplicate ACK instead of step 3, before the fast
/// retransmit (which goes out whatever SndCnt, as with SACK).
pub(crate) fn enter_fast_recovery(core: &mut SenderCore, now_ns: TimeNs, out: &mut Vec<Packet>) {
    core.enter_loss_recovery(now_ns);
    if core.prr_enabled() {
        core.set_recovery_window(true);
    } else {
        // Step 3: cwnd = ssthresh + 3 * SMSS ("inflates" by the segments
        // that have left the network).
        core.w.cwnd = core.recovery_cwnd + core.cfg.dupthresh as u64 * core.mss;
    }
    core.retransmit_first(now_ns, out);
    core.trace_window(now_ns);
}

/// RFC 5681 §3.2 step 4: each further duplicate ACK inflates cwnd by SMSS;
/// with PRR, RFC 9937 §6.2 counts it instead (`SenderCore::prr_after_ack`).
pub(crate) fn inflate(core: &mut SenderCore) {
    if !core.prr_enabled() {
        core.w.cwnd += core.mss;
    }
}

impl LossRecovery for RenoRecovery {
    fn name(&self) -> &'static str {
        "reno"
    }

    fn on_duplicate_ack(&mut self, core: &mut SenderCore, now_ns: TimeNs, out: &mut Vec<Packet>) {
        if core.in_recovery {
            inflate(core);
        } else if core.dupacks == core.cfg.dupthresh
            && !core.dupacks_predate_timeout()
            && !(self.one_fast_retransmit_per_window
                && core.recover.is_some_and(|r| core.snd_una <= r))
        {
            enter_fast_recovery(core, now_ns, out);
        }
    }

    fn on_new_ack(
        &mut self,
        core: &mut SenderCore,
        _acked: u64,
        now_ns: TimeNs,
        _out: &mut Vec<Packet>,
    ) -> NewAckOutcome {
        if core.in_recovery {
            // Step 6: deflate and leave fast recovery.
            core.w.cwnd = core.recovery_cwnd;
            core.end_recovery(now_ns);
        }
        NewAckOutcome::default()
    }
}
