//! RFC 8985, The RACK-TLP Loss Detection Algorithm for TCP: RACK's
//! per-segment transmit times, RACK.rtt and the reordering window (§6.2
//! steps 1-5), the reordering timer and the RTO (§6.3), the tail loss probe
//! (§7.2 PTO, §7.3 the probe, §7.4 its episode), with RFC 6675 recovery,
//! scripted sans-I/O.
//!
//! Times are in milliseconds: `start` sends at 1 ms; each ACK echoes the
//! TSval (the send time) of the segment that triggered it, so the first
//! cumulative ACK at 101 ms makes SRTT = min_RTT = 100 ms (RTO 1 s, the
//! minimum) and reo_wnd = min_RTT / 4 = 25 ms. The congestion controller is
//! Reno (ssthresh = cwnd = FlightSize / 2 at a loss); TLP.max_ack_delay is
//! 200 ms, the receiver's delayed-ACK timer.

mod common;
use airtcp_core::net::packet::{Ecn, Packet};
use airtcp_core::sim::{TimeNs, NS_PER_MS};
use airtcp_core::tcp::cc::{CongestionControl, Window};
use airtcp_core::tcp::receiver::{ReceiverConfig, TcpReceiver};
use airtcp_core::tcp::recovery::RackState;
use airtcp_core::tcp::rtt::RttEstimator;
use common::script::*;

fn ms(t: u64) -> TimeNs {
    t * NS_PER_MS
}

/// A RACK-TLP sender (SACK, timestamps) with `iw` segments of initial
/// window and `segments` to send; returns it and what `start` sent.
fn rack(iw: u32, segments: u64) -> (Script, String) {
    rack_with(Recovery::RackTlp, iw, segments)
}

/// The same with `recovery` (RACK-TLP, or RACK without the probe).
fn rack_with(recovery: Recovery, iw: u32, segments: u64) -> (Script, String) {
    let mut cfg = config(iw);
    cfg.timestamps = true;
    let mut sc = Script::new(cfg, recovery);
    let first = sc.start(segments);
    (sc, first)
}

/// ACK `n` with SACK blocks at `t` ms, echoing a TSval of `echo` ms.
fn ack_at(sc: &mut Script, t: u64, n: u64, sacks: &[(u64, u64)], echo: u64) -> String {
    sc.deliver_at(ms(t), &ack_ts(n, sacks, ms(echo)))
}

fn state(sc: &Script) -> RackState {
    sc.s.recovery
        .rack_state(&sc.s.core)
        .expect("a RACK-TLP sender")
}

fn reo_wnd_ms(sc: &Script) -> u64 {
    state(sc).reo_wnd_ns / NS_PER_MS
}

/// §6.2 step 5 and §6.3: segment 1 is lost once segment 2, sent after it,
/// has been SACKed AND RACK.rtt + RACK.reo_wnd have passed since segment 1
/// was sent. reo_wnd = min_RTT / 4 = 25 ms (step 4: no reordering seen,
/// not in recovery, fewer than DupThresh segments SACKed), RACK.rtt = 101
/// ms (segment 2: sent at 1, delivered at 102), so the reordering timer
/// is armed for 1 + 101 + 25 = 127 ms. When it fires, RACK marks segment
/// 1 lost and RFC 6675 recovery starts (§5 step (4): ssthresh = cwnd =
/// FlightSize / 2 = 11 / 2, the first lost segment retransmitted); pipe
/// (nine segments) leaves no room for more. RACK without the tail loss
/// probe (`loss_detection = "rack"`) detects this loss the same way: the
/// probe's timer (§7.2, 2 SRTT = 202 ms here) would fire after RACK's.
#[test]
fn s6_2_step5_a_loss_after_rack_rtt_plus_reo_wnd_by_the_reordering_timer() {
    for recovery in [Recovery::RackTlp, Recovery::Rack] {
        let (mut sc, first) = rack_with(recovery, 10, 30);
        assert_eq!(first, range(0, 9));
        assert_eq!(ack_at(&mut sc, 101, 1, &[], 1), "10 11");
        assert_eq!(ack_at(&mut sc, 102, 1, &[(2, 2)], 1), "");
        assert_eq!(reo_wnd_ms(&sc), 25);
        assert_eq!(state(&sc).rtt_ns, ms(101));
        assert_eq!(sc.s.next_deadline(), Some(ms(127)), "{recovery:?}");
        assert!(!sc.s.core.in_recovery);
        assert_eq!(sc.timeout(), "r1");
        assert_eq!(sc.now, ms(127));
        assert_eq!(sc.window(), (5.5, 5.5));
        assert!(sc.s.core.in_recovery);
        assert_eq!(sc.recover(), Some(12));
        assert_eq!(sc.s.core.stats.timeouts, 0);
    }
}

/// §6.2 step 4: with no reordering seen, reo_wnd is 0 once
/// RACK.segs_sacked reaches DupThresh (3): the third SACKed segment makes segment 1 (sent at
/// 1 ms, RACK.rtt 103 ms) lost at 104 ms, at once, as DupThresh would.
/// reo_wnd is 0 in recovery as well.
#[test]
fn s6_2_step4_no_reordering_window_once_dupthresh_segments_are_sacked() {
    let (mut sc, _) = rack(10, 30);
    assert_eq!(ack_at(&mut sc, 101, 1, &[], 1), "10 11");
    assert_eq!(ack_at(&mut sc, 102, 1, &[(2, 2)], 1), "");
    assert_eq!(ack_at(&mut sc, 103, 1, &[(2, 3)], 1), "");
    assert_eq!(reo_wnd_ms(&sc), 25);
    assert_eq!(ack_at(&mut sc, 104, 1, &[(2, 4)], 1), "r1");
    assert_eq!(sc.window(), (5.5, 5.5));
    assert_eq!(reo_wnd_ms(&sc), 0);
}

/// §6.2 step 3: segment 2, never retransmitted, is delivered after
/// segment 3 (below RACK.fack): RACK.reordering_seen. Step 4 then keeps
/// reo_wnd = min_RTT / 4 with three segments SACKed and in recovery, so
/// segment 1 waits for the timer: 1 + RACK.rtt 103 + 25 = 129 ms.
#[test]
fn s6_2_step3_reordering_keeps_the_window_with_dupthresh_sacked() {
    let (mut sc, _) = rack(10, 30);
    assert_eq!(ack_at(&mut sc, 101, 1, &[], 1), "10 11");
    assert_eq!(ack_at(&mut sc, 102, 1, &[(3, 3)], 1), "");
    assert!(!state(&sc).reordering_seen);
    assert_eq!(ack_at(&mut sc, 103, 1, &[(2, 3)], 1), "");
    assert!(state(&sc).reordering_seen);
    assert_eq!(ack_at(&mut sc, 104, 1, &[(2, 4)], 1), "");
    assert_eq!(reo_wnd_ms(&sc), 25);
    assert_eq!(sc.s.next_deadline(), Some(ms(129)));
    assert_eq!(sc.timeout(), "r1");
    assert!(sc.s.core.in_recovery);
    assert_eq!(reo_wnd_ms(&sc), 25);
}

/// §6.2 steps 2 and 5: a retransmission is timed like any segment
/// (Segment.xmit_ts is its latest transmission), so a lost retransmission
/// is detected when a segment sent after it is delivered: the
/// retransmission of 1 (at 128 ms) is lost once segment 6,
/// sent at 202 ms, is SACKed and 128 + RACK.rtt 100 + reo_wnd 0 (in
/// recovery) has passed. It is sent again by NextSeg (RFC 6675 alone would
/// wait for the RTO), and pipe no longer counts the lost copy.
#[test]
fn s6_2_a_lost_retransmission_is_detected_and_sent_again() {
    let (mut sc, first) = rack(4, 30);
    assert_eq!(first, "0 1 2 3");
    assert_eq!(ack_at(&mut sc, 101, 1, &[], 1), "4 5");
    assert_eq!(ack_at(&mut sc, 102, 1, &[(2, 2)], 1), "");
    assert_eq!(ack_at(&mut sc, 103, 1, &[(2, 3)], 1), "");
    // 1 + 102 + 25 = 128 ms; FlightSize 5: ssthresh = cwnd = 2.5.
    assert_eq!(sc.timeout(), "r1");
    assert_eq!(sc.now, ms(128));
    assert_eq!(sc.window(), (2.5, 2.5));
    // Segments 4 and 5 (sent at 101 ms) are SACKed; pipe then holds only
    // the retransmission: one new segment.
    assert_eq!(ack_at(&mut sc, 201, 1, &[(2, 4)], 101), "");
    assert_eq!(ack_at(&mut sc, 202, 1, &[(2, 5)], 101), "6");
    assert_eq!(ack_at(&mut sc, 302, 1, &[(2, 6)], 202), "r1 7");
    assert!(sc.s.core.in_recovery);
    assert_eq!(sc.s.core.stats.timeouts, 0);
}

/// RFC 6675 §5 with RACK as its loss detection (RFC 8985 §9): RACK takes
/// the place of steps (1)-(2), and an ACK on which it finds a loss goes to
/// step (4), fast retransmit; step (3), Limited Transmit, is for an ACK
/// that reveals no loss ("(3.4) Terminate processing of this ACK"). Here
/// segment 1 (sent at 1 ms) is lost and the SACK of segment 2 (sent at 101
/// ms: RACK.rtt 100 ms) at 201 ms makes it lost at once (1 + 100 +
/// reo_wnd 25 <= 201): the retransmission leaves, and no new segment
/// before it (ssthresh = cwnd = FlightSize 3 / 2, floored at 2 segments;
/// pipe, segment 3 and the retransmission, fills it). When segment 3,
/// sent at 101 ms, before the retransmission, is SACKed at 301 ms, step 5
/// finds nothing lost: NextSeg sends new data.
#[test]
fn rfc6675_s5_a_loss_rack_detects_is_retransmitted_before_limited_transmit() {
    let mut cfg = config(2);
    cfg.timestamps = true;
    cfg.limited_transmit = true;
    let mut sc = Script::new(cfg, Recovery::RackTlp);
    assert_eq!(sc.start(30), "0 1");
    assert_eq!(ack_at(&mut sc, 101, 1, &[], 1), "2 3");
    assert_eq!(ack_at(&mut sc, 201, 1, &[(2, 2)], 101), "r1");
    assert!(sc.s.core.in_recovery);
    assert_eq!(sc.window(), (2.0, 2.0));
    assert_eq!(ack_at(&mut sc, 301, 1, &[(2, 3)], 101), "4");
    assert_eq!(ack_at(&mut sc, 302, 5, &[], 201), "5 6");
    assert_eq!(sc.s.core.stats.retransmitted_segments, 1);
}

/// §6.2 step 2: the ACK of a retransmitted segment counts only if it is
/// for that retransmission: here the original of segment 1 arrives 2 ms
/// after the retransmission left (less than min_RTT): RACK.rtt and
/// RACK.xmit_ts stay those of segment 2.
#[test]
fn s6_2_step2_an_ack_sooner_than_min_rtt_after_a_retransmission_is_ignored() {
    let (mut sc, _) = rack(10, 30);
    assert_eq!(ack_at(&mut sc, 101, 1, &[], 1), "10 11");
    assert_eq!(ack_at(&mut sc, 102, 1, &[(2, 2)], 1), "");
    assert_eq!(sc.timeout(), "r1");
    let before = state(&sc);
    // The original segment 1 (TSval 1 ms) fills the hole at 129 ms.
    ack_at(&mut sc, 129, 3, &[], 1);
    assert_eq!(state(&sc).rtt_ns, before.rtt_ns);
    assert_eq!(before.rtt_ns, ms(101));
}

/// §6.2 step 4: a DSACK grows reo_wnd_mult by one (reo_wnd = 2 min_RTT /
/// 4 = 50 ms), once per round trip (a second DSACK before SND.UNA passes
/// RACK.dsack_round changes nothing), and sets reo_wnd_persist = 16.
#[test]
fn s6_2_step4_a_dsack_grows_the_window_once_per_round_trip() {
    let (mut sc, _) = rack(10, 30);
    assert_eq!(ack_at(&mut sc, 101, 1, &[], 1), "10 11");
    assert_eq!(reo_wnd_ms(&sc), 25);
    // RFC 2883: a first block below the cumulative ACK is a DSACK.
    assert_eq!(ack_at(&mut sc, 102, 1, &[(0, 0)], 1), "");
    assert_eq!(
        (state(&sc).reo_wnd_mult, state(&sc).reo_wnd_persist),
        (2, 16)
    );
    assert_eq!(reo_wnd_ms(&sc), 50);
    assert_eq!(ack_at(&mut sc, 103, 1, &[(0, 0)], 1), "");
    assert_eq!(state(&sc).reo_wnd_mult, 2);
    // Segment 2 SACKed at 104: segment 1 is lost at 1 + 103 + 50 ms.
    assert_eq!(ack_at(&mut sc, 104, 1, &[(2, 2)], 1), "");
    assert_eq!(sc.s.next_deadline(), Some(ms(154)));
}

/// A controller that never reduces the window, so that sixteen recoveries
/// fit in a short script (RACK's state does not depend on it).
struct KeepWindow;

impl CongestionControl for KeepWindow {
    fn name(&self) -> &'static str {
        "keep"
    }
    fn on_ack(&mut self, _w: &mut Window, _acked: u64, _now: TimeNs, _rtt: &RttEstimator) {}
    fn ssthresh_after_congestion(&mut self, w: &Window, _flight: u64) -> u64 {
        w.cwnd
    }
}

/// §6.2 step 4: "Reset the window after 16 DSACK-free recoveries":
/// reo_wnd_persist falls by one at each exit from recovery; when it
/// reaches 0, reo_wnd_mult returns to 1.
#[test]
fn s6_2_step4_reo_wnd_mult_persists_over_sixteen_recoveries() {
    let mut cfg = config(20);
    cfg.timestamps = true;
    let mut sc = Script::with_cc(cfg, Box::new(KeepWindow), Recovery::RackTlp);
    sc.start(10_000);
    assert_eq!(ack_at(&mut sc, 101, 1, &[], 1), "20");
    ack_at(&mut sc, 102, 1, &[(0, 0)], 1);
    assert_eq!(
        (state(&sc).reo_wnd_mult, state(&sc).reo_wnd_persist),
        (2, 16)
    );
    let mut t = 102;
    for k in 1..=16 {
        // A loss: three SACKed segments above it (reo_wnd 0): recovery;
        // then everything is acknowledged: recovery ends.
        let n = sc.s.core.snd_una / MSS;
        t += 1;
        ack_at(&mut sc, t, n, &[(n + 1, n + 1)], 1);
        t += 1;
        ack_at(&mut sc, t, n, &[(n + 1, n + 2)], 1);
        t += 1;
        let out = ack_at(&mut sc, t, n, &[(n + 1, n + 3)], 1);
        assert!(out.starts_with(&format!("r{n}")), "{k}: {out}");
        assert!(sc.s.core.in_recovery);
        t += 1;
        let top = sc.s.core.snd_max / MSS;
        ack_at(&mut sc, t, top, &[], 1);
        assert!(!sc.s.core.in_recovery);
        let s = state(&sc);
        let want = if k < 16 { (2, 16 - k) } else { (1, 0) };
        assert_eq!(
            (s.reo_wnd_mult, s.reo_wnd_persist),
            want,
            "after recovery {k}"
        );
    }
}

/// §7.2 and §7.3: with one segment in flight the PTO is 2 SRTT +
/// TLP.max_ack_delay = 400 ms after the ACK; with no new data the probe
/// retransmits the highest segment sent (TLP.is_retrans), and the RTO, not
/// the PTO, is re-armed (1 s after the probe). §7.4: the probe's ACK
/// reaching TLP.end_seq alone proves no loss: the window stays.
#[test]
fn s7_2_s7_3_the_probe_retransmits_the_last_segment_after_the_pto() {
    let (mut sc, _) = rack(10, 10);
    assert_eq!(ack_at(&mut sc, 101, 9, &[], 1), "");
    assert_eq!(sc.s.next_deadline(), Some(ms(501)));
    assert_eq!(sc.timeout(), "r9");
    assert_eq!(sc.s.next_deadline(), Some(ms(1501)));
    let ssthresh = sc.ssthresh();
    assert_eq!(ack_at(&mut sc, 601, 10, &[], 501), "");
    assert_eq!(sc.ssthresh(), ssthresh);
    assert!(!sc.s.core.in_recovery);
    assert_eq!(sc.s.core.stats.timeouts, 0);
}

/// §7.3: the probe is a previously unsent segment when there is one (sent
/// beyond cwnd: FlightSize 6 > cwnd 5). Its SACK lets RACK mark the tail
/// burst lost (segments 1..5 sent more than RACK.rtt 100 + reo_wnd 25 ms
/// before the probe, which left at 301 ms, was delivered): recovery
/// without an RTO, ssthresh = cwnd = FlightSize 6 / 2, the first lost
/// segment at once and NextSeg after it.
#[test]
fn s7_3_a_probe_of_new_data_lets_rack_recover_the_tail() {
    let (mut sc, first) = rack(4, 20);
    assert_eq!(first, "0 1 2 3");
    assert_eq!(ack_at(&mut sc, 101, 1, &[], 1), "4 5");
    // Five segments in flight: PTO = 2 SRTT.
    assert_eq!(sc.s.next_deadline(), Some(ms(301)));
    assert_eq!(sc.timeout(), "6");
    assert_eq!(sc.cwnd(), 5.0);
    assert_eq!(ack_at(&mut sc, 401, 1, &[(6, 6)], 301), "r1 r2 r3");
    assert_eq!(sc.window(), (3.0, 3.0));
    assert_eq!(sc.s.core.stats.timeouts, 0);
}

/// §4: "TLP requires RACK", not the converse; §3: "The second principle
/// is to gently probe the network to solicit additional ACK feedback, to
/// avoid RTO expiration ... the two principles are implemented in RACK and
/// TLP, respectively." RACK alone (`loss_detection = "rack"`) in the
/// previous test's tail burst: no probe timer; nothing comes back after
/// ACK 1, so the RTO set by it (101 + 1 s minimum) fires at 1101 ms. §6.3
/// at the RTO: the first segment is lost, and so is every other segment
/// sent RACK.rtt (100 ms) + reo_wnd (0 in RTO recovery) ago, here 1-5:
/// RFC 5681 (4)-(5), cwnd = 1 SMSS and ssthresh = FlightSize 5 / 2; "r1".
/// Its ACK (at 1201 ms) slow-starts cwnd to 2 and NextSeg (RFC 6675 §5.1)
/// resends the next two lost segments.
#[test]
fn s4_rack_without_the_probe_leaves_the_tail_to_the_rto() {
    let (mut sc, first) = rack_with(Recovery::Rack, 4, 20);
    assert_eq!(first, "0 1 2 3");
    assert_eq!(ack_at(&mut sc, 101, 1, &[], 1), "4 5");
    assert_eq!(sc.s.next_deadline(), Some(ms(1101)));
    assert_eq!(sc.timeout(), "r1");
    assert_eq!(sc.window(), (1.0, 2.5));
    assert_eq!(sc.s.core.stats.timeouts, 1);
    assert_eq!(ack_at(&mut sc, 1201, 2, &[], 1101), "r2 r3");
    assert_eq!(sc.cwnd(), 2.0);
}

/// §7.3 condition 2: no probe before an RTT measurement (since the start
/// of the connection): the first flight's PTO (1 s without SRTT, capped at
/// the RTO's expiry) sends nothing and leaves the RTO to fire.
#[test]
fn s7_3_no_probe_without_an_rtt_sample() {
    let (mut sc, _) = rack(2, 2);
    assert_eq!(sc.s.next_deadline(), Some(ms(1001)));
    assert_eq!(sc.timeout(), "r0");
    assert_eq!(sc.s.core.stats.timeouts, 1);
}

/// §7.4.2: after a probe that retransmitted segment 9 (TLP.end_seq = 10),
/// an ACK beyond TLP.end_seq without a DSACK for the probe means only the
/// retransmission arrived: it repaired a loss, and the sender reduces the
/// window as a fast recovery would: ssthresh = cwnd = FlightSize (5
/// segments before that ACK) / 2 = 2.5 segments.
#[test]
fn s7_4_2_an_ack_beyond_a_retransmitted_probe_reduces_the_window() {
    let (mut sc, _) = rack(10, 10);
    assert_eq!(ack_at(&mut sc, 101, 9, &[], 1), "");
    assert_eq!(sc.timeout(), "r9");
    assert_eq!(sc.write_at(ms(550), 5), "10 11 12 13 14");
    assert_eq!(ack_at(&mut sc, 601, 10, &[], 501), "");
    assert_eq!(sc.window(), (12.0, 64.0));
    assert_eq!(ack_at(&mut sc, 651, 15, &[], 550), "");
    assert_eq!(sc.window(), (2.5, 2.5));
}

/// §7.4.2's reduction for a loss the probe repaired is a fast recovery's,
/// and RFC 3168 §6.1.2 reduces "only once in response to a series of
/// dropped and/or CE packets from a single window of data". The script of
/// `s7_4_2_an_ack_beyond_a_retransmitted_probe_reduces_the_window` with
/// ECN: ACK 9 echoes CE (cwnd = ssthresh = 10 / 2 = 5), so segment 9,
/// which the probe repairs, is in the window the ECN-Echo reduced. The
/// five new segments: 10-13 fit (SND.UNA 9 + cwnd 5), ACK 10 grows cwnd
/// in congestion avoidance (5000 + 1000 * 1000 / 5000 = 5200: 14 leaves),
/// and ACK 15, beyond TLP.end_seq, makes no reduction (without the
/// ECN-Echo: ssthresh = cwnd = 2.5) and grows cwnd again (+192).
#[test]
fn s7_4_2_no_reduction_for_a_repaired_loss_in_the_window_an_ecn_echo_reduced() {
    let mut cfg = config(10);
    cfg.timestamps = true;
    cfg.ecn = true;
    let mut sc = Script::new(cfg, Recovery::RackTlp);
    assert_eq!(sc.start(10), range(0, 9));
    let mut ece = ack_ts(9, &[], ms(1));
    ece.flags |= airtcp_core::net::packet::flags::ECE;
    assert_eq!(sc.deliver_at(ms(101), &ece), "");
    assert_eq!(sc.window(), (5.0, 5.0));
    assert_eq!(sc.timeout(), "r9");
    assert_eq!(sc.write_at(ms(550), 5), "10 11 12 13");
    assert_eq!(ack_at(&mut sc, 601, 10, &[], 501), "14");
    assert_eq!(sc.window(), (5.2, 5.0));
    assert_eq!(ack_at(&mut sc, 651, 15, &[], 550), "");
    assert_eq!(sc.window(), (5.392, 5.0));
    assert_eq!(sc.s.core.stats.ecn_reductions, 1);
}

/// §7.4.1 case 1: a DSACK for the probe's segment (both the original and
/// the probe arrived): the episode ends without a reduction, and slow
/// start goes on.
#[test]
fn s7_4_1_a_dsack_of_the_probe_ends_the_episode_without_reduction() {
    let (mut sc, _) = rack(10, 10);
    assert_eq!(ack_at(&mut sc, 101, 9, &[], 1), "");
    assert_eq!(sc.timeout(), "r9");
    assert_eq!(sc.write_at(ms(550), 5), "10 11 12 13 14");
    assert_eq!(ack_at(&mut sc, 601, 10, &[], 501), "");
    assert_eq!(ack_at(&mut sc, 602, 10, &[(9, 9)], 501), "");
    assert_eq!(ack_at(&mut sc, 651, 15, &[], 550), "");
    assert_eq!(sc.window(), (13.0, 64.0));
}

/// §7.4.1 case 2: a duplicate ACK without SACK at TLP.end_seq (the
/// receiver got both copies and has no DSACK): the episode ends without a
/// reduction.
#[test]
fn s7_4_1_a_duplicate_ack_at_the_probe_end_ends_the_episode() {
    let (mut sc, _) = rack(10, 10);
    assert_eq!(ack_at(&mut sc, 101, 9, &[], 1), "");
    assert_eq!(sc.timeout(), "r9");
    assert_eq!(sc.write_at(ms(550), 5), "10 11 12 13 14");
    assert_eq!(ack_at(&mut sc, 601, 10, &[], 501), "");
    assert_eq!(ack_at(&mut sc, 602, 10, &[], 501), "");
    assert_eq!(ack_at(&mut sc, 651, 15, &[], 550), "");
    assert_eq!(sc.window(), (13.0, 64.0));
}

/// §6.3: at an RTO, RACK marks the first segment lost (sent an RTO ago)
/// and any other only if sent RACK.rtt + reo_wnd ago (reo_wnd 0 in RTO
/// recovery), instead of RFC 6675 §5.1's every unSACKed segment. Segments
/// 2 and 3, sent 51 ms before the RTO (RACK.rtt 100 ms), stay in flight:
/// only segment 1 is retransmitted (RFC 6298 (5.4)), and their SACKs
/// later bring no retransmission of them.
#[test]
fn s6_3_the_rto_marks_the_first_segment_and_those_older_than_rack_rtt() {
    let (mut sc, first) = rack(4, 2);
    assert_eq!(first, "0 1");
    assert_eq!(ack_at(&mut sc, 101, 1, &[], 1), "");
    assert_eq!(sc.timeout(), "r1"); // the probe, at 501 ms
    assert_eq!(sc.write_at(ms(1450), 2), "2 3");
    // The PTO due with the RTO (1501 ms) finds a probe in flight: no
    // second probe; the RTO fires.
    assert_eq!(sc.timeout(), "r1");
    assert_eq!(sc.now, ms(1501));
    assert_eq!(sc.s.core.stats.timeouts, 1);
    assert_eq!(sc.window(), (1.0, 2.0));
    assert_eq!(ack_at(&mut sc, 1550, 1, &[(2, 2)], 1450), "");
    assert_eq!(ack_at(&mut sc, 1551, 1, &[(2, 3)], 1450), "");
    assert_eq!(ack_at(&mut sc, 1601, 4, &[], 1501), "");
    assert_eq!(sc.s.core.stats.retransmitted_segments, 2);
}

/// §6.2 steps 2 and 5 in RTO recovery (§6.3): a lost retransmission is
/// detected like any segment, without a second, backed-off RTO. The whole
/// flight, segments 1-5 and the probe 6 (the PTO, 301 ms), is lost; the RTO
/// (1 s after the probe) marks them all lost (sent RACK.rtt 100 ms +
/// reo_wnd 0 ago) and resends segment 1 at cwnd 1 (ssthresh FlightSize 6 /
/// 2). Its ACK (1401 ms, slow start: cwnd 2) brings 2 and 3 again, at the
/// same time, 2 first; 2's copy is lost. The SACK of 3's copy (1501 ms,
/// echoing 1401: RACK.rtt 100 ms) makes 2's copy lost at 1401 + 100 + 0:
/// it is resent at once with segment 4 (NextSeg after the timeout; pipe 0
/// with cwnd 2), where RFC 6675 alone resends nothing until the RTO at
/// 2401 ms.
#[test]
fn s6_2_s6_3_a_lost_retransmission_in_rto_recovery_is_sent_again_before_the_rto() {
    let (mut sc, first) = rack(4, 30);
    assert_eq!(first, "0 1 2 3");
    assert_eq!(ack_at(&mut sc, 101, 1, &[], 1), "4 5");
    assert_eq!(sc.timeout(), "6");
    assert_eq!(sc.now, ms(301));
    assert_eq!(sc.timeout(), "r1");
    assert_eq!(sc.now, ms(1301));
    assert_eq!(sc.window(), (1.0, 3.0));
    assert_eq!(ack_at(&mut sc, 1401, 2, &[], 1301), "r2 r3");
    assert_eq!(sc.s.next_deadline(), Some(ms(2401)));
    assert_eq!(ack_at(&mut sc, 1501, 2, &[(3, 3)], 1401), "r2 r4");
    assert_eq!(sc.s.core.stats.timeouts, 1);
    assert_eq!(sc.s.next_deadline(), Some(ms(2401)));
}

/// The ACK number and SACK blocks of `ack` as inclusive segment ranges.
fn blocks(ack: &Packet) -> (u64, Vec<(u64, u64)>) {
    let b = ack
        .sack_blocks()
        .iter()
        .map(|b| (b.start / MSS, b.end / MSS - 1))
        .collect();
    (ack.ack / MSS, b)
}

/// RFC 2883 §4, the D-SACK that RACK's step 4 and TLP's §7.4.1 read: with
/// `loss_detection = "rack_tlp"` the receiver reports a wholly duplicate
/// segment in the first SACK block of the ACK it triggers (below the
/// cumulative ACK, or inside the block that follows it for out-of-order
/// data), once.
#[test]
fn rfc2883_the_receiver_reports_a_duplicate_in_the_first_block() {
    let mut r = TcpReceiver::new(ReceiverConfig {
        flow: 0,
        epoch: 1,
        src: 1,
        dst: 0,
        rwnd_bytes: WND,
        sack: true,
        dsack: true,
        timestamps: false,
        ecn: false,
        mecn: false,
        delack_timeout_ns: None,
        delack_segments: 2,
        mss: MSS as u32,
    });
    let mut out = Vec::new();
    for (t, n) in [(1, 0), (2, 0), (3, 2), (4, 2), (5, 3)] {
        r.on_packet(ms(t), &data(n, Ecn::NotEct), &mut out);
    }
    let got: Vec<_> = out.iter().map(blocks).collect();
    assert_eq!(
        got,
        vec![
            (1, vec![]),
            (1, vec![(0, 0)]),
            (1, vec![(2, 2)]),
            (1, vec![(2, 2), (2, 2)]),
            (1, vec![(2, 3)]),
        ]
    );
}
