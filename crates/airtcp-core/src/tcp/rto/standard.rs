//! The standard response to a retransmission timeout: RFC 6298 (5.4)–(5.6)
//! and RFC 5681 §3.1: ssthresh = max(FlightSize / 2, 2 SMSS) (held constant
//! when a segment the timer has already resent times out again, not when
//! one first sent after the last timeout's go-back-N expires while the
//! timer is still backed off; during fast recovery the
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
//! still applies; cwnd and ssthresh are kept (a fast recovery in progress
//! ends, deflated to the window it was heading for) and duplicate ACKs for
//! the data sent before the timeout start no fast retransmit (RFC 6582 §4's
//! guard, `recover`). The document says nothing of the window's other
//! holes; they get the standard repair of what the sender knows:
//!
//! * **With SACK**, RFC 6675 §5.1's recovery after an RTO, with the window
//!   kept: every unSACKed segment below RecoveryPoint (HighData) is deemed
//!   lost, as after any timeout, and NextSeg resends the holes, SACKed
//!   data skipped, as far as cwnd - pipe allows (the first at once), then
//!   new data; no new recovery until HighACK reaches RecoveryPoint.
//! * **Without SACK**, nothing tells the holes apart but the cumulative
//!   ACK: the segment at snd_una is retransmitted alone and sending resumes
//!   from snd_max (nothing goes back N), then each ACK below the highest
//!   segment sent before the timeout names the next hole, which is resent
//!   alone (`SenderCore::repair_next_hole`, RFC 6582 §3.2 step 3's
//!   partial ACK). The timer follows the same step's Impatient rule: only
//!   the first such partial ACK resets it, so a window with many holes ends
//!   in a timeout after one backed-off RTO instead of being repaired one
//!   hole per round trip for as many round trips as it has holes. That
//!   timeout comes before any fresh RTT sample (the backoff is in force),
//!   so it is not classified again: the standard response, go-back-N in
//!   slow start; and since its segment was resent by the repair, not by
//!   the timer, ssthresh is set by RFC 5681 (4) (§3.1: "the given segment
//!   has not yet been resent by way of the retransmission timer").
//!
//! A later expiry of the same segment is not classified and takes the
//! standard response.

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
    if cause == LossCause::NonCongestion && !core.sack_enabled {
        core.retransmit_first(now_ns, out);
    }
    core.send_pending(now_ns, out);
}

#[derive(Clone, Debug, Default)]
pub struct StandardTimeout;

/// The RFC 5681 / RFC 6298 timeout actions, shared by responses that start
/// from the standard one. Returns the verdict on a first expiry
/// (congestion on later ones): after `NonCongestion` without SACK the
/// caller retransmits the first segment itself; otherwise snd_nxt is back
/// at snd_una (go-back-N; with SACK, NextSeg over the scoreboard).
pub fn standard_timeout_actions(
    core: &mut SenderCore,
    recovery: &mut dyn LossRecovery,
    now_ns: TimeNs,
    out: &mut Vec<Packet>,
) -> LossCause {
    // RFC 5681 §3.1 holds ssthresh only when "the given segment" has
    // already been "resent by way of the retransmission timer": below what
    // the last timeout had the timer resend. Above it (a segment first sent
    // after that timeout's go-back-N, or one resent by the partial-ACK
    // repair after a timeout judged not congestion) it has not, though the
    // timer stays backed off until a fresh RTT sample (RFC 6298 (5.5)).
    let sent_after_timer_resends = core
        .timer_resent_until
        .is_some_and(|until| core.snd_una >= until);
    core.record_timeout(now_ns);
    let first_expiry = core.rtt.backoff_count() == 0;
    let cause = if first_expiry {
        core.timeout_congestion_signal(now_ns)
    } else {
        if sent_after_timer_resends {
            // RFC 5681 §3.1: ssthresh MUST be set by (4); the expiry is
            // later only in the timer's backoff, not for this segment.
            let flight = core.flight_size();
            core.w.ssthresh = core.cc.ssthresh_after_congestion(&core.w, flight);
        }
        LossCause::Congestion
    };
    core.rtt.back_off();
    core.forget_timed_segment();
    core.dupacks = 0;
    core.recover = Some(core.snd_max);
    core.recover_from_timeout = true;
    // What the timer resends: without SACK, after a timeout judged not
    // congestion, the first segment alone (partial ACKs repair the holes
    // above it); otherwise everything sent so far (go-back-N).
    let repair_holes = cause == LossCause::NonCongestion && !core.sack_enabled;
    core.timer_resent_until = Some(if repair_holes {
        core.snd_una + core.mss.min(core.flight_size())
    } else {
        core.snd_max
    });
    core.hole_repair_until = None;
    if cause == LossCause::NonCongestion {
        // Retransmit, do not reduce (module doc).
        if core.in_recovery {
            core.w.cwnd = core.recovery_cwnd;
        }
    } else {
        core.w.cwnd = core.mss;
        // The loss window: CUBIC's next stage starts with K = 0 (RFC 9438 §4.8).
        core.cc.on_retransmission_timeout();
    }
    core.in_recovery = false;
    if core.sack_enabled {
        core.sb.mark_all_lost();
        core.sb.set_high_rxt(core.snd_una);
        core.sack_after_timeout = true;
    } else if repair_holes {
        core.start_hole_repair();
    }
    recovery.on_timeout(core, now_ns, out);
    if cause == LossCause::Congestion || core.sack_enabled {
        core.snd_nxt = core.snd_una;
    }
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
