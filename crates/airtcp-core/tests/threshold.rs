//! Threshold TCP (Teng, Chang, "A Robust Wireless Transmission Control
//! Protocol to Cope with Channel Errors in a Long Round-Trip Delay
//! Environment", `/work/shared/seeds/003_*.txt`): the sender's rules,
//! scripted sans-I/O, one test per rule, written from the document's text
//! (§1.B, §1.C, §2, §3.A). Where the document is silent the test names the
//! choice (docs/tcp-conformance.md, "Document rules: Threshold TCP").
//!
//! The senders are the document's ("we shall in the sequel use [TCP
//! Reno]", §2), measuring RTT as its simulator did: "(the sampled) rtt is
//! expressed in terms of the number of TCP ticks and the value of a TCP
//! tick is set at 0.01sec" (§2, Fig. 1), i.e. ns-2's tick count
//! int((tao + (sendtime mod tick)) / tick) with the tick clock's phase at
//! 0. Every segment below is sent at a time 1 ms past a tick, so an ACK at
//! time T (ms) of a segment sent at S reads floor((T - S + 1) / 10) ticks.
//! Segment numbering: `tests/common/script.rs`.

mod common;
use airtcp_core::sim::{TimeNs, NS_PER_MS};
use airtcp_core::tcp::classify::{
    BeforeSamplePolicy, LossCause, LossClassifier, RttThreshold, RttThresholdConfig, Threshold,
    TimeoutPolicy,
};
use airtcp_core::tcp::sender::SenderConfig;
use common::script::*;

const MS: TimeNs = NS_PER_MS;
const TICK: TimeNs = 10 * MS;

/// The scripted sender of `tests/common/script.rs` with `iw` segments of
/// initial window, measuring RTTs in whole 10 ms ticks as ns-2 did.
fn ns2_ticks(iw: u32) -> SenderConfig {
    let mut cfg = config(iw);
    cfg.rto.rtt_tick_ns = Some(TICK);
    cfg.rto.rtt_tick_phase_ns = 0;
    cfg
}

fn classifier(threshold: Threshold, on_timeout: TimeoutPolicy) -> Box<dyn LossClassifier> {
    classifier_before_sample(threshold, on_timeout, BeforeSamplePolicy::Corruption)
}

fn classifier_before_sample(
    threshold: Threshold,
    on_timeout: TimeoutPolicy,
    before_rtt_sample: BeforeSamplePolicy,
) -> Box<dyn LossClassifier> {
    Box::new(RttThreshold::new(RttThresholdConfig {
        threshold,
        on_timeout,
        before_rtt_sample,
    }))
}

/// §3.A: "the threshold is set at 550 ms or 55 TCP ticks" (Fig. 2).
fn fig2_threshold() -> Threshold {
    Threshold::Absolute { rtt_ns: 550 * MS }
}

/// A Reno sender with the threshold classifier.
fn reno(iw: u32, threshold: Threshold, on_timeout: TimeoutPolicy) -> Script {
    reno_variant(Recovery::Reno, iw, threshold, on_timeout)
}

/// The same with Reno or ns-2's Reno (one fast retransmit per window).
fn reno_variant(
    recovery: Recovery,
    iw: u32,
    threshold: Threshold,
    on_timeout: TimeoutPolicy,
) -> Script {
    Script::with_classifier(ns2_ticks(iw), recovery, classifier(threshold, on_timeout))
}

fn last_verdict(sc: &Script) -> LossCause {
    sc.s.core
        .loss_decisions
        .last()
        .expect("a loss was judged")
        .cause
}

/// Eight segments out at 1 ms; segment 0's ACK at `ack_ms` gives the one
/// RTT sample (segment 0 is the timed one), slow start sends 8 and 9;
/// segment 1 is lost and 2, 3, 4 bring three duplicate ACKs.
fn eight_then_lose_segment_1(ack_ms: u64) -> (Script, String) {
    eight_then_lose_segment_1_with(Recovery::Reno, ack_ms)
}

fn eight_then_lose_segment_1_with(recovery: Recovery, ack_ms: u64) -> (Script, String) {
    let mut sc = reno_variant(recovery, 8, fig2_threshold(), TimeoutPolicy::Congestion);
    assert_eq!(sc.start(100), range(0, 7));
    assert_eq!(sc.ack_at(ack_ms * MS, 1), "8 9");
    assert_eq!(sc.window(), (9.0, 64.0));
    assert_eq!(sc.dupacks(1, 2), "");
    let third = sc.ack(1, &[]);
    (sc, third)
}

/// §2: "If *rtt* appears to be smaller than this threshold then losses are
/// interpreted as corruption"; "the congestion control mechanism of TCP
/// does not have to be invoked in the wake that corruption losses are
/// detected. In other words cells lost due to channel errors are
/// retransmitted [...] without adjusting the congestion window"; §1.C
/// "Whenever a corruption loss is detected, the TCP layer is prevented from
/// taking any congestion avoidance action."
///
/// The sample reads 54 ticks (540 ms), below Fig. 2's 55. The third
/// duplicate ACK retransmits segment 1; ssthresh stays at 64 and Reno's
/// recovery runs on the unreduced window (RFC 5681 §3.2 step 3 with the
/// pre-loss 9 segments in place of ssthresh: 9 + 3 = 12, so three new
/// segments go out); the ACK that ends recovery leaves cwnd at 9, where it
/// was before the loss.
#[test]
fn s2_a_loss_below_the_threshold_is_retransmitted_without_adjusting_the_window() {
    let (mut sc, third) = eight_then_lose_segment_1(545);
    assert_eq!(sc.s.core.rtt.latest_rtt_ns(), Some(540 * MS));
    assert_eq!(third, "r1 10 11 12");
    assert_eq!(last_verdict(&sc), LossCause::NonCongestion);
    assert_eq!(sc.window(), (12.0, 64.0));
    // The timer is restarted with the retransmission, as at any fast
    // retransmit of ns-2's Reno (RTO 540 + 4 x 270 ms).
    assert_eq!(sc.s.next_deadline(), Some(sc.now + 1620 * MS));
    // The retransmission's ACK covers everything sent before the loss.
    assert_eq!(sc.ack(10, &[]), range(13, 18));
    assert_eq!(sc.window(), (9.0, 64.0));
    assert_eq!(sc.s.core.stats.non_congestion_losses, 1);
}

/// §2 with Tahoe, which has no fast recovery: "cells lost due to channel
/// errors are retransmitted [...] without adjusting the congestion
/// window". The lost segment is retransmitted and nothing else: Tahoe's
/// go-back-N belongs to its slow start from one segment, and with the
/// window kept it would resend at once the eight segments the receiver
/// holds (2-9). cwnd 9 and ssthresh 64 stay; FlightSize is 9 segments, so
/// nothing new leaves. The retransmission's ACK covers everything sent
/// before the loss; slow start (cwnd 9 < ssthresh 64) grows cwnd to 10
/// and segments 10-19 leave.
#[test]
fn s2_with_tahoe_a_corruption_loss_resends_only_the_lost_segment() {
    let (mut sc, third) = eight_then_lose_segment_1_with(Recovery::Tahoe, 545);
    assert_eq!(third, "r1");
    assert_eq!(last_verdict(&sc), LossCause::NonCongestion);
    assert_eq!(sc.window(), (9.0, 64.0));
    assert_eq!(sc.dupacks(1, 3), "");
    assert_eq!(sc.ack(10, &[]), range(10, 19));
    assert_eq!(sc.window(), (10.0, 64.0));
    assert_eq!(sc.s.core.stats.retransmitted_segments, 1);
}

/// §2 with Tahoe, two corruption losses in one window (segments 1 and
/// 3): the fast retransmit resends segment 1 alone; its ACK stops at 3, a
/// partial ACK (RFC 6582 §3.2 step 3's inference: segment 3 was sent
/// before the retransmission this ACK acknowledges, so it was lost), and
/// segment 3 is resent alone, the window kept, as after a timeout judged
/// not congestion. Tahoe's slow start grows cwnd on that ACK to 10
/// (ssthresh 64): with 7 segments out, 10-12 leave with it. The next ACK
/// covers everything (cwnd 11: segments 13-23). Nothing waits for the
/// timer and nothing the receiver holds is resent.
#[test]
fn s2_with_tahoe_the_window_s_other_corruption_losses_are_resent_on_partial_acks() {
    let (mut sc, third) = eight_then_lose_segment_1_with(Recovery::Tahoe, 545);
    assert_eq!(third, "r1");
    assert_eq!(sc.ack(3, &[]), "r3 10 11 12");
    assert_eq!(sc.window(), (10.0, 64.0));
    assert_eq!(sc.ack(13, &[]), range(13, 23));
    assert_eq!(sc.s.core.stats.retransmitted_segments, 2);
    assert_eq!(sc.s.core.stats.timeouts, 0);
}

/// §2: "If *rtt* appears to be smaller than this threshold then losses are
/// interpreted as corruption and otherwise" [as congestion]; §2 "we shall
/// in the sequel use [TCP Reno]"; §1.B losses "are treated by TCP as
/// indications of congestion and acted upon by shrinking *cwnd*". §2,
/// Fig. 1: "(the sampled) *rtt* is expressed in terms of the number of TCP
/// ticks and the value of a TCP tick is set at 0.01sec".
///
/// Segment 0 was sent at 1 ms and acknowledged at 550 ms: 549 ms, which
/// ns-2's tick clock reads as 55 ticks = 550 ms, not smaller than Fig. 2's
/// 550 ms: congestion, and Reno's response (RFC 5681 §3.2 steps 2-3 and
/// 6): ssthresh = FlightSize / 2 = 4.5 segments, cwnd 4.5 + 3 (no new
/// segment fits), deflated to 4.5 by the ACK that ends recovery.
#[test]
fn s2_a_loss_at_the_threshold_is_congestion_and_reno_halves() {
    let (mut sc, third) = eight_then_lose_segment_1(550);
    assert_eq!(sc.s.core.rtt.latest_rtt_ns(), Some(550 * MS));
    assert_eq!(third, "r1");
    assert_eq!(last_verdict(&sc), LossCause::Congestion);
    assert_eq!(sc.window(), (7.5, 4.5));
    assert_eq!(sc.ack(10, &[]), range(10, 13));
    assert_eq!(sc.window(), (4.5, 4.5));
    assert_eq!(sc.s.core.stats.non_congestion_losses, 0);
}

/// §2: "In the operation of TCP, the sampled *rtt* is used [...]"; "If
/// *rtt* appears to be smaller than this threshold" — the *sampled* RTT
/// (ns-2's `t_rtt_`, the latest measurement), not the smoothed one or the
/// base.
///
/// Samples of 410 ms and then 600 ms: SRTT is 433.75 ms and the base
/// 410 ms, both below Fig. 2's 550 ms, but the latest sample is above it,
/// so the next loss is congestion: ssthresh = FlightSize / 2.
#[test]
fn s2_the_rtt_compared_is_the_latest_sample_not_the_smoothed_rtt() {
    let mut sc = reno(2, fig2_threshold(), TimeoutPolicy::Congestion);
    assert_eq!(sc.start(100), "0 1");
    // Segment 0 (timed, sent at 1 ms): 41 ticks.
    assert_eq!(sc.ack_at(411 * MS, 1), "2 3");
    assert_eq!(sc.ack_at(412 * MS, 2), "4 5");
    // Segment 2 (timed, sent at 411 ms): 60 ticks.
    assert_eq!(sc.ack_at(1011 * MS, 3), "6 7");
    let rtt = &sc.s.core.rtt;
    assert_eq!(
        (rtt.latest_rtt_ns(), rtt.min_rtt_ns(), rtt.srtt_ns()),
        (Some(600 * MS), Some(410 * MS), Some(433_750_000))
    );
    // Segment 3 is lost; 4, 5 and 6 bring three duplicate ACKs.
    assert_eq!(sc.dupacks(3, 3), "r3");
    assert_eq!(last_verdict(&sc), LossCause::Congestion);
    // FlightSize 5 segments (3..=7): ssthresh 2.5, cwnd 2.5 + 3.
    assert_eq!(sc.window(), (5.5, 2.5));
}

/// §2: "Each TCP connection has a minimal *rtt* value known as the base
/// *rtt*. The threshold must be chosen to be larger than this base *rtt*";
/// "It requires only two extra memory spaces at the sending end to store
/// the base *rtt* and the threshold". §3.A, Fig. 3: thresholds counted in
/// ticks from a base of 51 ticks. The base is the smallest sample so far.
///
/// Threshold base + 4 ticks (Fig. 2's 55 on Fig. 3's 51). Samples 600,
/// 510 and 560 ms: the base is 51 ticks (the second sample, not the first
/// nor the latest), the threshold 55 ticks, and the latest sample's 56
/// ticks are not below it: the loss that follows is congestion.
#[test]
fn s2_the_base_rtt_is_the_smallest_sample_and_the_threshold_sits_above_it() {
    let threshold = Threshold::AboveBase {
        ticks: 4,
        tick_ns: TICK,
    };
    let mut sc = reno(1, threshold, TimeoutPolicy::Congestion);
    assert_eq!(sc.start(100), "0");
    // Segment 0 (sent at 1 ms): 60 ticks.
    assert_eq!(sc.ack_at(601 * MS, 1), "1 2");
    // Segment 1 (sent at 601 ms): 51 ticks.
    assert_eq!(sc.ack_at(1111 * MS, 2), "3 4");
    assert_eq!(sc.ack_at(1112 * MS, 3), "5 6");
    // Segment 3 (sent at 1111 ms): 56 ticks.
    assert_eq!(sc.ack_at(1671 * MS, 4), "7 8");
    let rtt = &sc.s.core.rtt;
    assert_eq!(
        (rtt.latest_rtt_ns(), rtt.min_rtt_ns()),
        (Some(560 * MS), Some(510 * MS))
    );
    // Segment 4 is lost; 5, 6 and 7 bring three duplicate ACKs.
    assert_eq!(sc.dupacks(4, 3), "r4");
    assert_eq!(last_verdict(&sc), LossCause::Congestion);
    // FlightSize 5 segments (4..=8): ssthresh 2.5, cwnd 2.5 + 3.
    assert_eq!(sc.window(), (5.5, 2.5));
}

/// Four segments out at 1 ms; segment 0's ACK at 521 ms (52 ticks, below
/// Fig. 2's 55) sends 4 and 5; then nothing arrives until the timer
/// expires (RTO 520 + 4 x 260 = 1560 ms from 521 ms).
fn sample_then_silence(on_timeout: TimeoutPolicy) -> (Script, String) {
    let mut sc = reno(4, fig2_threshold(), on_timeout);
    assert_eq!(sc.start(100), "0 1 2 3");
    assert_eq!(sc.ack_at(521 * MS, 1), "4 5");
    assert_eq!(sc.s.core.rtt.latest_rtt_ns(), Some(520 * MS));
    assert_eq!(sc.s.next_deadline(), Some(2081 * MS));
    let out = sc.timeout();
    (sc, out)
}

/// (Document silent: it speaks of "losses" and "corruption losses [...]
/// detected" without saying by what.) A retransmission timeout is a
/// congestion loss by default (`on_timeout = "congestion"`), whatever the
/// latest sample says: the standard response (RFC 5681 §3.1, RFC 6298
/// (5.4)-(5.6)): ssthresh = FlightSize / 2 = 2.5 segments, cwnd 1 segment,
/// segment 1 resent, timer backed off.
#[test]
fn silent_a_timeout_is_congestion_by_default_even_below_the_threshold() {
    let (sc, out) = sample_then_silence(TimeoutPolicy::Congestion);
    assert_eq!(out, "r1");
    assert_eq!(last_verdict(&sc), LossCause::Congestion);
    assert_eq!(sc.window(), (1.0, 2.5));
    assert_eq!(sc.s.core.snd_nxt, 2 * MSS, "go-back-N from segment 2");
    assert_eq!(sc.s.core.rtt.backoff_count(), 1);
}

/// The same with `on_timeout = "classify"`: the timeout is judged like a
/// duplicate-ACK loss (§2's rule applied to every loss); the sample is
/// below the threshold, so it is corruption: segment 1 is resent alone,
/// cwnd (5) and ssthresh (64) are kept, and the timer still backs off (RFC
/// 6298 (5.5)).
#[test]
fn silent_on_timeout_classify_a_timeout_below_the_threshold_resends_only() {
    let (sc, out) = sample_then_silence(TimeoutPolicy::Classify);
    assert_eq!(out, "r1");
    assert_eq!(last_verdict(&sc), LossCause::NonCongestion);
    assert_eq!(sc.window(), (5.0, 64.0));
    assert_eq!(sc.s.core.snd_nxt, sc.s.core.snd_max, "no go-back-N");
    assert_eq!(sc.s.core.rtt.backoff_count(), 1);
}

/// Four segments out at 1 ms, Reno with Fig. 2's threshold and
/// `before_rtt_sample` as given: segment 0 (the timed one) is lost before
/// any ACK of new data, so 1, 2 and 3 bring three duplicate ACKs and no
/// RTT sample exists when the loss is detected.
fn lose_the_first_segment(before: BeforeSamplePolicy) -> (Script, String) {
    let mut sc = Script::with_classifier(
        ns2_ticks(4),
        Recovery::Reno,
        classifier_before_sample(fig2_threshold(), TimeoutPolicy::Congestion, before),
    );
    assert_eq!(sc.start(100), "0 1 2 3");
    let out = sc.dupacks(0, 3);
    assert_eq!(sc.s.core.rtt.latest_rtt_ns(), None);
    (sc, out)
}

/// (Document silent: §2 compares "the sampled *rtt*" with the threshold and
/// says nothing of the time before the first sample; its "simple
/// comparison" ran in ns-2, whose sampled RTT `t_rtt_` is 0 ticks until
/// the first sample, `TcpAgent::rtt_init`.) Default
/// `before_rtt_sample = "corruption"`: 0 "appears to be smaller than this
/// threshold", so the loss is "retransmitted [...] without adjusting the
/// congestion window" (§2): segment 0 is resent, ssthresh stays 64 and
/// Reno's recovery runs on the unreduced window, 4 + 3 = 7: three new
/// segments.
#[test]
fn silent_a_loss_before_any_rtt_sample_is_corruption_by_default() {
    let (sc, out) = lose_the_first_segment(BeforeSamplePolicy::Corruption);
    assert_eq!(out, "r0 4 5 6");
    assert_eq!(last_verdict(&sc), LossCause::NonCongestion);
    assert_eq!(sc.window(), (7.0, 64.0));
    assert_eq!(sc.s.core.stats.non_congestion_losses, 1);
}

/// The other reading, `before_rtt_sample = "congestion"`: §2's rule, "If
/// *rtt* appears to be smaller than this threshold then losses are
/// interpreted as corruption and otherwise", read literally: no RTT
/// appears smaller, so the loss is congestion. Reno's response (RFC 5681
/// §3.2): ssthresh = max(4 / 2, 2) = 2 segments, cwnd 2 + 3: one new
/// segment.
#[test]
fn silent_before_rtt_sample_congestion_a_loss_before_any_sample_halves() {
    let (sc, out) = lose_the_first_segment(BeforeSamplePolicy::Congestion);
    assert_eq!(out, "r0 4");
    assert_eq!(last_verdict(&sc), LossCause::Congestion);
    assert_eq!(sc.window(), (5.0, 2.0));
    assert_eq!(sc.s.core.stats.non_congestion_losses, 0);
}

/// (Document silent on several losses in one window; §2 "we shall in the
/// sequel use [TCP Reno]".) Each loss the sender detects is judged by
/// itself, with the latest sample then; whether a second loss in the
/// window is detected by duplicate ACKs at all is the Reno variant's rule.
///
/// Segments 1 and 3 are lost; the sample (54 ticks) is below the
/// threshold. Segment 1's fast retransmit is corruption (cwnd 9 + 3, four
/// more duplicate ACKs inflate it and send 13-16); its ACK stops at 3 and
/// ends recovery at cwnd 9. The duplicate ACKs for 3 (from 10, 11, 12):
///
/// * RFC 5681 Reno: a second fast retransmit, judged again with the same
///   sample (no ACK has reached the timed segment, 8, since):
///   corruption, cwnd 9 + 3, ssthresh 64.
/// * ns-2's Reno (`bug_fix_`, on in the reproduction): no second fast
///   retransmit below `recover` (10); the timer expires and the timeout is
///   congestion by default: cwnd 1, ssthresh = FlightSize / 2 = 7.
#[test]
fn silent_several_losses_in_one_window_are_judged_one_by_one() {
    for recovery in [Recovery::Reno, Recovery::RenoOncePerWindow] {
        let (mut sc, third) = eight_then_lose_segment_1_with(recovery, 545);
        assert_eq!(third, "r1 10 11 12");
        assert_eq!(sc.dupacks(1, 4), "13 14 15 16");
        assert_eq!(sc.window(), (16.0, 64.0));
        assert_eq!(sc.ack(3, &[]), "");
        assert_eq!(sc.window(), (9.0, 64.0));
        let second = sc.dupacks(3, 3);
        if recovery == Recovery::Reno {
            assert_eq!(second, "r3");
            assert_eq!(sc.s.core.loss_decisions.len(), 2);
            assert_eq!(last_verdict(&sc), LossCause::NonCongestion);
            assert_eq!(sc.window(), (12.0, 64.0));
        } else {
            assert_eq!(second, "");
            assert_eq!(sc.timeout(), "r3");
            assert_eq!(sc.s.core.loss_decisions.len(), 2);
            assert_eq!(last_verdict(&sc), LossCause::Congestion);
            assert_eq!(sc.window(), (1.0, 7.0));
        }
    }
}
