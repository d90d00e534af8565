//! The standard response to a retransmission timeout: RFC 6298 (5.4)–(5.6)
//! and RFC 5681 §3.1: ssthresh = max(FlightSize / 2, 2 SMSS) (held constant
//! when the same segment times out again; during fast recovery the
//! `timeout_in_recovery_ssthresh` rule decides), cwnd = 1 SMSS (the loss window),
//! back off the timer, retransmit the first unacknowledged segment and
//! resend the rest go-back-N in slow start. NewReno records `recover`
//! (RFC 6582 §4); a SACK sender keeps its scoreboard and deems every
//! unSACKed segment lost (RFC 6675 §5.1).

use super::TimeoutResponse;
use crate::net::packet::Packet;
use crate::sim::TimeNs;
use crate::tcp::classify::LossCause;
use crate::tcp::core::SenderCore;
use crate::tcp::recovery::LossRecovery;

/// The whole standard response: the actions above, then RFC 6298 (5.6)
/// restart the timer with the backed-off RTO and (5.4) retransmit.
pub fn standard_timeout(
    core: &mut SenderCore,
    recovery: &mut dyn LossRecovery,
    now_ns: TimeNs,
    out: &mut Vec<Packet>,
) {
    standard_timeout_actions(core, recovery, now_ns);
    core.restart_rto_timer(now_ns);
    core.send_pending(now_ns, out);
}

#[derive(Clone, Debug, Default)]
pub struct StandardTimeout;

/// The RFC 5681 / RFC 6298 timeout actions, shared by responses that start
/// from the standard one.
pub fn standard_timeout_actions(
    core: &mut SenderCore,
    recovery: &mut dyn LossRecovery,
    now_ns: TimeNs,
) {
    core.record_timeout(now_ns);
    let first_expiry = core.rtt.backoff_count() == 0;
    if first_expiry {
        if core.timeout_congestion_signal(now_ns) == LossCause::Congestion {
            core.w.cwnd = core.mss;
        }
    } else {
        core.w.cwnd = core.mss;
    }
    core.rtt.back_off();
    core.forget_timed_segment();
    core.in_recovery = false;
    core.dupacks = 0;
    core.recover = Some(core.snd_max);
    core.recover_from_timeout = true;
    recovery.on_timeout();
    if core.sack_enabled {
        core.sb.mark_all_lost();
        core.high_rxt = core.snd_una;
        core.sack_after_timeout = true;
    }
    core.snd_nxt = core.snd_una;
    core.trace_window(now_ns);
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
