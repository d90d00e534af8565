//! TCP Tahoe (Jacobson 1988): three duplicate ACKs trigger a fast
//! retransmit followed by slow start from one segment, retransmitting
//! go-back-N from snd_una. No fast recovery.

use super::{LossRecovery, NewAckOutcome};
use crate::net::packet::Packet;
use crate::sim::TimeNs;
use crate::tcp::classify::LossCause;
use crate::tcp::core::SenderCore;

#[derive(Clone, Debug, Default)]
pub struct TahoeRecovery;

impl LossRecovery for TahoeRecovery {
    fn name(&self) -> &'static str {
        "tahoe"
    }

    fn on_duplicate_ack(&mut self, core: &mut SenderCore, now_ns: TimeNs, out: &mut Vec<Packet>) {
        // Like RFC 6582's `recover`, ignore duplicate ACKs for data sent
        // before the previous loss response.
        let after_last_loss = core.recover.is_none_or(|r| core.snd_una >= r);
        if core.dupacks == core.cfg.dupthresh && after_last_loss {
            let cause = core.begin_fast_retransmit(now_ns, out);
            core.in_recovery = false;
            if cause == LossCause::Congestion {
                core.w.cwnd = core.mss;
            }
            // Go back N: everything after the retransmitted segment is sent
            // again as the window opens.
            core.snd_nxt = core.sb.get(0).map_or(core.snd_una, |s| s.end);
            core.trace_window(now_ns);
        }
    }

    fn on_new_ack(
        &mut self,
        _c: &mut SenderCore,
        _a: u64,
        _n: TimeNs,
        _o: &mut Vec<Packet>,
    ) -> NewAckOutcome {
        NewAckOutcome::default()
    }
}
