//! Reno fast retransmit and fast recovery, RFC 5681 §3.2: on the third
//! duplicate ACK retransmit and set cwnd = ssthresh + 3 SMSS; inflate by one
//! SMSS per further duplicate ACK; deflate to ssthresh on the first ACK of
//! new data, even a partial one. Duplicate ACKs for data sent before a
//! timeout do not start a fast retransmit (RFC 6582 §4's guard, which
//! ns-2's Reno also applies with bugFix_); after a fast recovery they do,
//! as RFC 5681 specifies.

use super::{LossRecovery, NewAckOutcome};
use crate::net::packet::Packet;
use crate::sim::TimeNs;
use crate::tcp::core::SenderCore;

#[derive(Clone, Debug, Default)]
pub struct RenoRecovery;

/// RFC 5681 §3.2 steps 2–4, shared with NewReno (RFC 6582 §3.2 steps 2–4).
pub(crate) fn enter_fast_recovery(core: &mut SenderCore, now_ns: TimeNs, out: &mut Vec<Packet>) {
    core.begin_fast_retransmit(now_ns, out);
    // Step 3: cwnd = ssthresh + 3 * SMSS ("inflates" by the segments that
    // have left the network).
    core.w.cwnd = core.recovery_cwnd + core.cfg.dupthresh as u64 * core.mss;
    core.trace_window(now_ns);
}

/// RFC 5681 §3.2 step 4: each further duplicate ACK inflates cwnd by SMSS.
pub(crate) fn inflate(core: &mut SenderCore) {
    core.w.cwnd += core.mss;
}

impl LossRecovery for RenoRecovery {
    fn name(&self) -> &'static str {
        "reno"
    }

    fn on_duplicate_ack(&mut self, core: &mut SenderCore, now_ns: TimeNs, out: &mut Vec<Packet>) {
        if core.in_recovery {
            inflate(core);
        } else if core.dupacks == core.cfg.dupthresh && !core.dupacks_predate_timeout() {
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
            core.in_recovery = false;
            core.trace_recovery_exit(now_ns);
        }
        NewAckOutcome::default()
    }
}
