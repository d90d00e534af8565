//! The standard response to a retransmission timeout: RFC 6298 (5.4)–(5.6)
//! and RFC 5681 §3.1: ssthresh = max(FlightSize / 2, 2 SMSS) (held constant
//! when the same segment times out again; during fast recovery the
//! `timeout_in_recovery_ssthresh` rule decides), cwnd = 1 SMSS (the loss window),
//! back off the timer, retransmit the first unacknowledged segment and
//! resend the rest go-back-N in slow start. NewReno records `recover`
//! (RFC 6582 §4); a SACK sender keeps its scoreboard and deems every
//! unSACKed segment lost (RFC 6675 §5.1).
//!
//! **A first expiry the loss classifier judges not congestion** (WMECN
//! §3.2, the RTT-threshold classifier with `on_timeout = "classify"`) gets
//! the classifiers' contract instead, "retransmit, do not reduce": WMECN §1
//! "if a loss is found out to be a 'wireless loss', the packet is
//! retransmitted and the congestion window is not reduced", §3.2 "the
//! packet, which was lost is retransmitted". The timer still backs off
//! (RFC 6298 (5.5): the path delivered nothing for an RTO) and Karn's rule
//! still applies; the segment at snd_una is retransmitted alone, cwnd and
//! ssthresh are kept (a fast recovery in progress ends, deflated to the
//! window it was heading for), and sending resumes from snd_max: nothing
//! goes back N. The other holes of the window in flight are repaired one by
//! one as the ACKs reveal them (`SenderCore::repair_hole_after_timeout`:
//! an ACK below the highest segment sent before the timeout names the next
//! lost segment, which is resent alone), and duplicate ACKs for that data
//! start no fast retransmit (RFC 6582 §4's guard, `recover`). Without this
//! repair a window whose ACK clock stopped (every segment after the hole
//! delivered, no new data allowed) would wait for a second, backed-off
//! timeout per hole. A later expiry of the same segment is not classified
//! and takes the standard response.

use super::TimeoutResponse;
use crate::net::packet::Packet;
use crate::sim::TimeNs;
use crate::tcp::classify::LossCause;
use crate::tcp::core::SenderCore;
use crate::tcp::recovery::LossRecovery;

/// The whole standard response: the actions above, then RFC 6298 (5.6)
/// restart the timer with the backed-off RTO and (5.4) retransmit (the
/// first segment alone after a non-congestion verdict).
pub fn standard_timeout(
    core: &mut SenderCore,
    recovery: &mut dyn LossRecovery,
    now_ns: TimeNs,
    out: &mut Vec<Packet>,
) {
    let cause = standard_timeout_actions(core, recovery, now_ns, out);
    core.restart_rto_timer(now_ns);
    if cause == LossCause::NonCongestion {
        core.retransmit_first(now_ns, out);
    }
    core.send_pending(now_ns, out);
}

#[derive(Clone, Debug, Default)]
pub struct StandardTimeout;

/// The RFC 5681 / RFC 6298 timeout actions, shared by responses that start
/// from the standard one. Returns the verdict on a first expiry
/// (congestion on later ones): after `NonCongestion` the caller
/// retransmits the first segment itself; after `Congestion` snd_nxt is
/// back at snd_una (go-back-N).
pub fn standard_timeout_actions(
    core: &mut SenderCore,
    recovery: &mut dyn LossRecovery,
    now_ns: TimeNs,
    out: &mut Vec<Packet>,
) -> LossCause {
    core.record_timeout(now_ns);
    let first_expiry = core.rtt.backoff_count() == 0;
    let cause = if first_expiry {
        core.timeout_congestion_signal(now_ns)
    } else {
        LossCause::Congestion
    };
    core.rtt.back_off();
    core.forget_timed_segment();
    core.dupacks = 0;
    core.recover = Some(core.snd_max);
    core.recover_from_timeout = true;
    if cause == LossCause::NonCongestion {
        // Retransmit, do not reduce (module doc).
        if core.in_recovery {
            core.w.cwnd = core.recovery_cwnd;
            core.in_recovery = false;
        }
        core.hole_repair_until = Some(core.snd_max);
        recovery.on_timeout(core, now_ns, out);
        core.trace_window(now_ns);
        return cause;
    }
    core.hole_repair_until = None;
    core.w.cwnd = core.mss;
    // The loss window: CUBIC's next stage starts with K = 0 (RFC 9438 §4.8).
    core.cc.on_retransmission_timeout();
    core.in_recovery = false;
    if core.sack_enabled {
        core.sb.mark_all_lost();
        core.high_rxt = core.snd_una;
        core.sack_after_timeout = true;
    }
    recovery.on_timeout(core, now_ns, out);
    core.snd_nxt = core.snd_una;
    core.trace_window(now_ns);
    cause
}

impl TimeoutResponse for StandardTimeout {
    fn name(&self) -> &'static str {
        "standard"
    }

    fn on_timeout(
        &mut self,
        core: &mut SenderCore,
        recovery: &mut dyn LossRecovery,
        now_ns: TimeNs,
        out: &mut Vec<Packet>,
    ) {
        standard_timeout(core, recovery, now_ns, out);
    }
}
