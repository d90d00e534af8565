//! TCP Tahoe (Jacobson 1988): three duplicate ACKs trigger a fast
//! retransmit followed by slow start from one segment, retransmitting
//! go-back-N from snd_una. No fast recovery. A loss a classifier judges
//! not congestion is retransmitted alone, with the window kept, and the
//! window's other holes one by one as partial ACKs name them.

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
            let ecn_reduced = core.in_window_an_ecn_echo_reduced(core.snd_una);
            let cause = core.begin_fast_retransmit(now_ns, out);
            core.in_recovery = false;
            // Slow start from one segment after a congestion loss, going
            // back N: everything after the retransmitted segment is sent
            // again as the window opens. In the window an ECN-Echo
            // reduced, ssthresh stays (RFC 3168 §6.1.2) but Tahoe's loss
            // response still sets cwnd to one segment (ns-2's Tahoe
            // `dupack_action` after an ECN action:
            // `slowdown(CLOSE_CWND_ONE)`). A loss judged not congestion is
            // retransmitted "without adjusting the congestion window"
            // (Threshold TCP §2): going back N with the window kept would
            // resend at once what the receiver holds, so the lost segment
            // goes alone and each partial ACK names the window's next
            // hole, resent alone, as after a timeout judged not
            // congestion (`SenderCore::repair_next_hole`).
            if cause == LossCause::Congestion || ecn_reduced {
                core.w.cwnd = core.mss;
                core.snd_nxt = core.sb.get(0).map_or(core.snd_una, |s| s.end);
            } else {
                core.start_hole_repair();
            }
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
