//! RFC 5681, TCP Congestion Control: scripted sans-I/O exchanges, one
//! test per rule, written from the text (§2 definitions, §3.1 slow start,
//! congestion avoidance and the timeout, §3.2 fast retransmit / fast
//! recovery steps 1-6, §4.2 the receiver's ACKs). Segment numbering:
//! `tests/common/script.rs`.

mod common;
use airtcp_core::net::packet::Ecn;
use common::run_world;
use common::script::*;

const MS: u64 = 1_000_000;

/// §3.1 (2): in slow start cwnd grows by min(N, SMSS) per ACK, N the
/// newly acknowledged bytes; the window then allows FlightSize <= cwnd.
#[test]
fn s3_1_slow_start_grows_by_min_n_smss_per_ack() {
    let mut sc = Script::new(config(4), Recovery::NewReno);
    assert_eq!(sc.start(100), "0 1 2 3");
    // One segment acknowledged: cwnd 5, FlightSize 3: two new segments.
    assert_eq!(sc.ack(1, &[]), "4 5");
    assert_eq!(sc.cwnd(), 5.0);
    // Two segments acknowledged by one ACK: cwnd += min(2000, SMSS).
    assert_eq!(sc.ack(3, &[]), "6 7 8");
    assert_eq!(sc.cwnd(), 6.0);
}

/// §3.1 (3): in congestion avoidance cwnd += SMSS * SMSS / cwnd per ACK.
#[test]
fn s3_1_congestion_avoidance_adds_smss_squared_over_cwnd() {
    let mut cfg = config(4);
    cfg.initial_ssthresh_bytes = 4 * MSS;
    let mut sc = Script::new(cfg, Recovery::NewReno);
    sc.start(100);
    sc.ack(1, &[]);
    assert_eq!(sc.cwnd(), 4.25);
}

/// §3.1 (4) and the timeout: ssthresh = max(FlightSize / 2, 2 SMSS); cwnd
/// = the loss window (1 SMSS); the first unacknowledged segment is resent.
/// A second expiry of the same segment holds ssthresh constant.
#[test]
fn s3_1_timeout_sets_loss_window_and_halves_flight_size() {
    let mut sc = Script::new(config(10), Recovery::NewReno);
    sc.start(100);
    assert_eq!(sc.timeout(), "r0");
    assert_eq!(sc.window(), (1.0, 5.0));
    // After the timeout one ACK opens the window to 2: go-back-N resends
    // the next two segments.
    assert_eq!(sc.ack(1, &[]), "r1 r2");
    assert_eq!(sc.timeout(), "r1");
    assert_eq!(
        sc.window(),
        (1.0, 5.0),
        "ssthresh held at the second expiry"
    );
}

/// §3.1 (4): "when a TCP sender detects segment loss using the
/// retransmission timer and the given segment has not yet been resent by
/// way of the retransmission timer, the value of ssthresh MUST be set to no
/// more than the value given in equation (4)". Segment 10 is new data sent
/// after a timeout's go-back-N has repaired segments 0-9; it expires while
/// the timer is still backed off (no fresh RTT sample yet, RFC 6298 (5.5)
/// and Karn), but the timer never resent it: ssthresh = FlightSize / 2 =
/// 2.5 SMSS (segments 10-14 in flight), not the 5 SMSS of the first
/// timeout held.
#[test]
fn s3_1_expiry_of_a_segment_first_sent_after_a_timeout_sets_ssthresh() {
    let mut sc = Script::new(config(10), Recovery::NewReno);
    sc.start(100);
    assert_eq!(sc.timeout(), "r0");
    assert_eq!(sc.window(), (1.0, 5.0));
    // Slow start back to ssthresh, go-back-N over segments 1-9.
    assert_eq!(sc.ack(1, &[]), "r1 r2");
    assert_eq!(sc.ack(3, &[]), "r3 r4 r5");
    assert_eq!(sc.ack(6, &[]), "r6 r7 r8 r9");
    // Everything the timer's recovery resent is acknowledged; cwnd 5
    // sends new segments 10-14.
    assert_eq!(sc.ack(10, &[]), "10 11 12 13 14");
    assert_eq!(sc.timeout(), "r10");
    assert_eq!(
        sc.window(),
        (1.0, 2.5),
        "a first expiry of new data sets ssthresh by (4)"
    );
}

/// §3.1 (4): FlightSize is never below 2 SMSS in the formula.
#[test]
fn s3_1_ssthresh_is_at_least_two_segments() {
    let mut sc = Script::new(config(1), Recovery::NewReno);
    assert_eq!(sc.start(100), "0");
    assert_eq!(sc.timeout(), "r0");
    assert_eq!(sc.window(), (1.0, 2.0));
}

/// §2 "duplicate acknowledgment" (e): an ACK that changes the advertised
/// window is not a duplicate ACK, so three window updates start no fast
/// retransmit.
#[test]
fn s2_window_update_is_not_a_duplicate_ack() {
    let mut sc = Script::new(config(10), Recovery::Reno);
    sc.start(100);
    for wnd in [20_000u64, 30_000, 40_000] {
        let mut a = ack(0, &[]);
        a.wnd = wnd;
        assert_eq!(sc.deliver(&a), "");
    }
    assert_eq!(sc.s.core.stats.fast_retransmits, 0);
    // With an unchanged window the next three are duplicates.
    let mut a = ack(0, &[]);
    a.wnd = 40_000;
    sc.deliver(&a);
    sc.deliver(&a);
    assert_eq!(sc.deliver(&a), "r0");
}

/// §2 "duplicate acknowledgment" (a), (b) and (d): an ACK is a duplicate
/// only when "(a) the receiver of the ACK has outstanding data, (b) the
/// incoming acknowledgment carries no data, ... (d) the acknowledgment
/// number is equal to the greatest acknowledgment received on the given
/// connection". Three ACKs failing any one of them count nothing and start
/// no fast retransmit; the three that then meet all of them do.
#[test]
fn s2_duplicate_ack_needs_outstanding_data_no_payload_and_the_greatest_ack() {
    // (a): everything sent is acknowledged; then the same ACK three times.
    let mut sc = Script::new(config(10), Recovery::Reno);
    assert_eq!(sc.start(10), range(0, 9));
    sc.ack(10, &[]);
    assert_eq!(sc.dupacks(10, 3), "");
    assert_eq!(sc.s.core.dupacks, 0, "(a) nothing outstanding");
    // (b): ACKs of segment 0 that carry data.
    let mut sc = Script::new(config(10), Recovery::Reno);
    sc.start(100);
    let mut with_data = ack(0, &[]);
    with_data.payload_len = 100;
    for _ in 0..3 {
        assert_eq!(sc.deliver(&with_data), "");
    }
    assert_eq!(sc.s.core.dupacks, 0, "(b) the ACKs carry data");
    assert_eq!(sc.dupacks(0, 3), "r0", "pure ACKs: duplicates");
    // (d): after ACK 5, three ACKs of 3 (below the greatest).
    let mut sc = Script::new(config(10), Recovery::Reno);
    sc.start(100);
    sc.ack(5, &[]);
    assert_eq!(sc.dupacks(3, 3), "");
    assert_eq!(sc.s.core.dupacks, 0, "(d) not the greatest ACK");
    assert_eq!(sc.dupacks(5, 3), "r5");
    assert_eq!(sc.s.core.stats.fast_retransmits, 1);
}

/// §3.2 steps 2-6 (Reno): on the third duplicate ACK ssthresh =
/// max(FlightSize / 2, 2 SMSS) and the segment at SND.UNA is resent with
/// cwnd = ssthresh + 3 SMSS; each further duplicate ACK inflates cwnd by
/// SMSS and new data goes out when the window allows; the next ACK of new
/// data deflates cwnd to ssthresh.
#[test]
fn s3_2_fast_retransmit_and_fast_recovery_steps_2_to_6() {
    let mut sc = Script::new(config(10), Recovery::Reno);
    assert_eq!(sc.start(100), range(0, 9));
    // Segment 0 lost, 1..9 arrive: nine duplicate ACKs.
    assert_eq!(sc.dupacks(0, 2), "");
    assert_eq!(sc.ack(0, &[]), "r0", "step 3");
    assert_eq!(sc.window(), (8.0, 5.0), "steps 2-3");
    // Step 4: cwnd 9, 10: FlightSize is 10, nothing may be sent yet.
    assert_eq!(sc.dupacks(0, 2), "");
    assert_eq!(sc.cwnd(), 10.0);
    // Step 5: cwnd 11..14 lets one new segment out per duplicate ACK.
    assert_eq!(sc.dupacks(0, 4), range(10, 13));
    assert_eq!(sc.cwnd(), 14.0);
    // Step 6: the retransmission's ACK deflates cwnd to ssthresh (5);
    // FlightSize 4 leaves room for one segment.
    assert_eq!(sc.ack(10, &[]), "14");
    assert_eq!(sc.window(), (5.0, 5.0));
}

/// §3.2 steps 3-4 inflate cwnd by the duplicate ACKs; ns-2 keeps that
/// inflation apart (tcp-reno.cc: `window() = cwnd_ + dupwnd_`), so its
/// traced `cwnd_` stays at ssthresh during fast recovery. The sender's
/// `cwnd_without_inflation` (the series `cwnd_without_inflation_bytes`) is
/// that quantity: ssthresh while cwnd is ssthresh + 3, + 4, ... SMSS, and
/// cwnd itself before and after.
#[test]
fn s3_2_window_without_the_fast_recovery_inflation_is_ns2_cwnd() {
    let mut sc = Script::new(config(10), Recovery::Reno);
    sc.start(100);
    let without = |sc: &Script| sc.s.core.cwnd_without_inflation() as f64 / MSS as f64;
    assert_eq!(without(&sc), 10.0);
    sc.dupacks(0, 2);
    assert_eq!(without(&sc), 10.0, "not in fast recovery yet");
    assert_eq!(sc.ack(0, &[]), "r0");
    assert_eq!(
        (sc.cwnd(), without(&sc)),
        (8.0, 5.0),
        "step 3: ssthresh + 3"
    );
    sc.dupacks(0, 3);
    assert_eq!((sc.cwnd(), without(&sc)), (11.0, 5.0), "step 4: inflated");
    sc.ack(10, &[]);
    assert_eq!((sc.cwnd(), without(&sc)), (5.0, 5.0), "step 6: deflated");
}

/// §3.2 (Reno): RFC 5681 lets a second fast retransmit follow in the same
/// window (the first new ACK ended fast recovery). ns-2's Reno (`bug_fix_`)
/// refuses it until the window of the first is acknowledged: an option.
#[test]
fn s3_2_reno_second_fast_retransmit_in_one_window_and_ns2_option() {
    for (recovery, expected) in [(Recovery::Reno, "r2"), (Recovery::RenoOncePerWindow, "")] {
        let mut sc = Script::new(config(10), recovery);
        sc.start(100);
        // Segments 0 and 2 lost.
        sc.dupacks(0, 3);
        assert_eq!(sc.s.core.stats.fast_retransmits, 1);
        sc.dupacks(0, 5);
        // The retransmission of 0 arrives: ACK 2 (partial), fast recovery
        // ends (step 6), then duplicates of ACK 2.
        sc.ack(2, &[]);
        sc.dupacks(2, 2);
        assert_eq!(sc.ack(2, &[]), expected, "{recovery:?}");
    }
}

/// §3.2 step 2 and RFC 3042: segments sent by Limited Transmit are not part
/// of the FlightSize that sets ssthresh.
#[test]
fn s3_2_step2_ssthresh_excludes_limited_transmit_segments() {
    let mut cfg = config(10);
    cfg.limited_transmit = true;
    let mut sc = Script::new(cfg, Recovery::NewReno);
    sc.start(100);
    assert_eq!(sc.dupacks(0, 2), "10 11");
    assert_eq!(sc.ack(0, &[]), "r0");
    // FlightSize 12 includes the two Limited Transmit segments: 10 / 2.
    assert_eq!(sc.ssthresh(), 5.0);
}

/// RFC 9293 §3.8.6 / RFC 5681 §2: the sender may have at most
/// min(cwnd, rwnd) outstanding from the first segment on. Without a
/// handshake the sender starts with the receiver's configured window.
#[test]
fn s2_first_flight_is_limited_by_the_receive_window_sans_io() {
    let mut cfg = config(50);
    cfg.peer_rwnd_bytes = 10 * MSS;
    let mut sc = Script::new(cfg, Recovery::NewReno);
    assert_eq!(sc.start(100), range(0, 9));
}

/// The same through a scenario (issue 13, case 4): rwnd 10 KB and an
/// initial window of 50 segments, no handshake: the first flight is ten
/// segments, not fifty.
#[test]
fn s2_first_flight_is_limited_by_the_receive_window_scenario() {
    let text = one_bulk_flow(
        "1s",
        r#"{ initial_cwnd = 50, rwnd = "10000B", mss = "1000B" }"#,
    );
    let (first_flight, _) = first_flight_and_cwnd(&text);
    assert_eq!(first_flight, 10);
}

/// One bulk flow S -> D over a 100 Mb/s, 50 ms link, with `tcp` as its TCP
/// table, run for `duration`.
fn one_bulk_flow(duration: &str, tcp: &str) -> String {
    format!(
        r#"
[simulation]
duration = "{duration}"
[[link]]
a = "S"
b = "D"
rate = "100Mbps"
delay = "50ms"
[[flow]]
from = "S"
to = "D"
tcp = {tcp}
app = {{ kind = "bulk" }}
"#
    )
}

/// Run the one-flow scenario `text` and count the segments its sender sent
/// at time 0 (the first flight, with no handshake); also its cwnd then.
fn first_flight_and_cwnd(text: &str) -> (usize, u64) {
    // run_world records the sender's event log (World::record_sender_events).
    let (w, _) = run_world(text, None);
    let s = w.tcp_sender(0).unwrap();
    let sent = s
        .core
        .trace
        .iter()
        .filter(|(t, e)| *t == 0 && matches!(e, airtcp_core::tcp::sender::TraceEvent::Send { .. }))
        .count();
    (sent, s.core.w.cwnd)
}

/// §3.1 equation (1): "If SMSS > 2190 bytes: IW = 2 * SMSS bytes and MUST
/// NOT be more than 2 segments; If (SMSS > 1095 bytes) and (SMSS <= 2190
/// bytes): IW = 3 * SMSS bytes and MUST NOT be more than 3 segments; if
/// SMSS <= 1095 bytes: IW = 4 * SMSS bytes and MUST NOT be more than 4
/// segments." A scenario that names no `initial_cwnd` gets that window:
/// the first flight of a bulk flow with SMSS on either side of each bound
/// (no handshake, nothing acknowledged before the flight leaves).
#[test]
fn s3_1_initial_window_by_smss_is_the_scenario_default() {
    for (mss, iw) in [
        (536, 4),
        (1095, 4),
        (1096, 3),
        (2190, 3),
        (2191, 2),
        (9000, 2),
    ] {
        // Ends before the first ACK (a 100 ms round trip) could return;
        // longer than the 50 ms way there, which a run must be.
        let text = one_bulk_flow("60ms", &format!(r#"{{ mss = "{mss}B" }}"#));
        let (sent, cwnd) = first_flight_and_cwnd(&text);
        assert_eq!(sent, iw, "SMSS {mss} B");
        assert_eq!(cwnd, iw as u64 * mss, "SMSS {mss} B: IW in bytes");
    }
}

/// §3.1: "The initial value of ssthresh SHOULD be set arbitrarily high":
/// the scenario default, before the first loss, is at least 1 GB, far
/// above any window the model sends, so only a loss ends slow start.
#[test]
fn s3_1_initial_ssthresh_is_arbitrarily_high_by_default() {
    let text = r#"
[simulation]
duration = "1s"
[[link]]
a = "S"
b = "D"
rate = "10Mbps"
delay = "10ms"
[[flow]]
from = "S"
to = "D"
app = { kind = "bulk" }
"#;
    let w = common::scenario(text).build(None).unwrap();
    let airtcp_core::world::FlowKind::Tcp(flow) = &w.flows[0].kind else {
        panic!("a TCP flow");
    };
    let ssthresh = flow.spec.initial_ssthresh_bytes;
    assert!(ssthresh >= 1 << 30, "ssthresh {ssthresh}");
}

/// §4.2: with delayed ACKs, an ACK SHOULD be generated for at least every
/// second full-sized segment: segment 0 is held, segment 1 is ACKed at once.
/// And "a TCP receiver MUST NOT generate more than one ACK for every
/// incoming segment" (its window never changes, so it sends no window
/// updates): the ACK of the two segments leaves no delayed-ACK timer that
/// would send a third ACK for them.
#[test]
fn s4_2_receiver_acks_every_second_full_sized_segment() {
    let mut rx = receiver(Some(200 * MS), false);
    let mut out = Vec::new();
    rx.on_packet(MS, &data(0, Ecn::NotEct), &mut out);
    assert_eq!(acked(&out), "");
    assert_eq!(rx.next_deadline(), Some(201 * MS));
    rx.on_packet(2 * MS, &data(1, Ecn::NotEct), &mut out);
    assert_eq!(acked(&out), "2");
    assert_eq!(rx.next_deadline(), None, "no second ACK for these segments");
    rx.on_timer(201 * MS, &mut out);
    assert_eq!(acked(&out), "2");
}

/// §4.2: an ACK MUST be generated within 500 ms of the arrival of the
/// first unacknowledged packet: the delayed-ACK timer (200 ms here; a
/// scenario's `delack_timeout` above 500 ms is rejected,
/// `scenario_errors.rs`) sends it.
#[test]
fn s4_2_receiver_delayed_ack_timer_fires_within_500_ms() {
    let mut rx = receiver(Some(200 * MS), false);
    let mut out = Vec::new();
    rx.on_packet(MS, &data(0, Ecn::NotEct), &mut out);
    assert_eq!(rx.next_deadline(), Some(201 * MS));
    rx.on_timer(201 * MS, &mut out);
    assert_eq!(acked(&out), "1");
}

/// §4.2 (and §3.2's receiver rule): an out-of-order segment is ACKed at
/// once (a duplicate ACK), even with delayed ACKs; so is the segment that
/// fills the gap.
#[test]
fn s4_2_out_of_order_and_gap_filling_segments_are_acked_at_once() {
    let mut rx = receiver(Some(200 * MS), false);
    let mut out = Vec::new();
    rx.on_packet(MS, &data(0, Ecn::NotEct), &mut out);
    rx.on_packet(2 * MS, &data(1, Ecn::NotEct), &mut out);
    assert_eq!(acked(&out), "2");
    out.clear();
    rx.on_packet(3 * MS, &data(3, Ecn::NotEct), &mut out);
    assert_eq!(acked(&out), "2", "immediate duplicate ACK");
    rx.on_packet(4 * MS, &data(4, Ecn::NotEct), &mut out);
    assert_eq!(acked(&out), "2 2");
    rx.on_packet(5 * MS, &data(2, Ecn::NotEct), &mut out);
    assert_eq!(acked(&out), "2 2 5", "the gap filled: ACK at once");
}
