//! RFC 6298, computing TCP's retransmission timer: §2 rules (2.1)-(2.5),
//! §3 Karn's algorithm and the sampling rate, §4 clock granularity and §5
//! timer management (5.1)-(5.7), scripted sans-I/O
//! (`tests/common/script.rs`), each asserting the segments sent, SRTT,
//! RTTVAR, RTO and the timer's deadline. The sender here uses RFC 6298's
//! own parameters (`RtoConfig::default()`: initial RTO 1 s, minimum 1 s,
//! maximum 60 s, G = 1 ms) unless a test says otherwise; it starts at
//! t = 1 ms. Without timestamps one segment at a time is timed (the first
//! new segment sent while none is timed).

mod common;
use airtcp_core::net::packet::{flags, Packet, PacketKind};
use airtcp_core::sim::TimeNs;
use airtcp_core::tcp::rtt::RtoConfig;
use airtcp_core::tcp::sender::SenderConfig;
use common::script::*;

const MS: TimeNs = 1_000_000;
const S: TimeNs = 1_000_000_000;
/// When `Script::start` sends the first flight.
const T0: TimeNs = STEP_NS;

/// A NewReno sender with initial window `iw` and RFC 6298's defaults.
fn rfc6298(iw: u32) -> SenderConfig {
    SenderConfig {
        rto: RtoConfig::default(),
        ..config(iw)
    }
}

fn deadline(sc: &Script) -> Option<TimeNs> {
    sc.s.core.rto_deadline
}

/// (SRTT, RTTVAR, RTO) in ms.
fn estimator_ms(sc: &Script) -> (Option<f64>, f64, f64) {
    let r = &sc.s.core.rtt;
    (
        r.srtt_ns().map(|s| s as f64 / MS as f64),
        r.rttvar_ns() as f64 / MS as f64,
        r.rto_ns() as f64 / MS as f64,
    )
}

/// (2.1): before any RTT measurement RTO is 1 s; the backoff of (5.5)
/// still applies to it.
#[test]
fn s2_1_initial_rto_is_one_second_and_is_backed_off() {
    let mut sc = Script::new(rfc6298(1), Recovery::NewReno);
    assert_eq!(sc.start(10), "0");
    assert_eq!(deadline(&sc), Some(T0 + S));
    assert_eq!(estimator_ms(&sc), (None, 0.0, 1000.0));
    assert_eq!(sc.timeout(), "r0");
    assert_eq!(deadline(&sc), Some(T0 + S + 2 * S));
}

/// (2.2): the first measurement R = 400 ms: SRTT = R, RTTVAR = R/2,
/// RTO = SRTT + max(G, K*RTTVAR) = 400 + 4 * 200 = 1200 ms; (5.3) the
/// timer restarts with it.
#[test]
fn s2_2_first_measurement() {
    let mut sc = Script::new(rfc6298(1), Recovery::NewReno);
    sc.start(10);
    assert_eq!(sc.ack_at(401 * MS, 1), "1 2");
    assert_eq!(estimator_ms(&sc), (Some(400.0), 200.0, 1200.0));
    assert_eq!(deadline(&sc), Some(401 * MS + 1200 * MS));
}

/// (2.3): a subsequent measurement R' = 800 ms, alpha = 1/8, beta = 1/4,
/// RTTVAR updated first, with the old SRTT: RTTVAR = 3/4 * 200 + 1/4 *
/// |400 - 800| = 250 (updating SRTT first would give 237.5), SRTT = 7/8 *
/// 400 + 1/8 * 800 = 450, RTO = 450 + 4 * 250 = 1450 ms.
#[test]
fn s2_3_subsequent_measurement_updates_rttvar_before_srtt() {
    let mut sc = Script::new(rfc6298(1), Recovery::NewReno);
    sc.start(10);
    // Segment 0 is timed from 1 ms, segment 1 from 401 ms.
    assert_eq!(sc.ack_at(401 * MS, 1), "1 2");
    assert_eq!(sc.ack_at(1201 * MS, 2), "3 4");
    assert_eq!(estimator_ms(&sc), (Some(450.0), 250.0, 1450.0));
    assert_eq!(deadline(&sc), Some(1201 * MS + 1450 * MS));
}

/// (2.2)/(2.3) and §4: the variance term is at least the clock
/// granularity G: with G = 2 s, RTO = 400 + max(2000, 800) ms.
#[test]
fn s4_variance_term_is_at_least_the_clock_granularity() {
    let mut cfg = rfc6298(1);
    cfg.rto.clock_granularity_ns = 2 * S;
    let mut sc = Script::new(cfg, Recovery::NewReno);
    sc.start(10);
    sc.ack_at(401 * MS, 1);
    assert_eq!(estimator_ms(&sc), (Some(400.0), 200.0, 2400.0));
    assert_eq!(deadline(&sc), Some(401 * MS + 2400 * MS));
}

/// (2.4): an RTO below 1 s is rounded up to 1 s: R = 100 ms gives
/// 100 + 4 * 50 = 300 ms, so RTO = 1 s.
#[test]
fn s2_4_rto_below_one_second_is_rounded_up() {
    let mut sc = Script::new(rfc6298(1), Recovery::NewReno);
    sc.start(10);
    sc.ack_at(101 * MS, 1);
    assert_eq!(estimator_ms(&sc), (Some(100.0), 50.0, 1000.0));
    assert_eq!(deadline(&sc), Some(101 * MS + S));
}

/// (2.4) as an option: the minimum is configurable (`min_rto`, as
/// ns-2-era studies used 200 ms); 300 ms stands above a 200 ms minimum and
/// is rounded up to a 500 ms one.
#[test]
fn s2_4_configurable_minimum() {
    for (min_ms, rto_ms) in [(200, 300.0), (500, 500.0)] {
        let mut cfg = rfc6298(1);
        cfg.rto.min_rto_ns = min_ms * MS;
        let mut sc = Script::new(cfg, Recovery::NewReno);
        sc.start(10);
        sc.ack_at(101 * MS, 1);
        assert_eq!(estimator_ms(&sc).2, rto_ms, "min {min_ms} ms");
        assert_eq!(deadline(&sc), Some(101 * MS + rto_ms as TimeNs * MS));
    }
}

/// (2.5): a maximum of at least 60 s may be placed on RTO: R = 30 s gives
/// 30 + 4 * 15 = 90 s, capped at 60 s (the default); a configured 120 s
/// maximum leaves it at 90 s. (The initial RTO is 60 s here so that the
/// timer does not fire before the 30-s ACK.)
#[test]
fn s2_5_maximum_rto() {
    for (max_s, rto_s) in [(60, 60), (120, 90)] {
        let mut cfg = rfc6298(1);
        cfg.rto.initial_rto_ns = 60 * S;
        cfg.rto.max_rto_ns = max_s * S;
        let mut sc = Script::new(cfg, Recovery::NewReno);
        sc.start(10);
        sc.ack_at(30 * S + T0, 1);
        assert_eq!(sc.s.core.rtt.srtt_ns(), Some(30 * S));
        assert_eq!(sc.s.core.rtt.rto_ns(), rto_s * S, "max {max_s} s");
        assert_eq!(deadline(&sc), Some(30 * S + T0 + rto_s * S));
    }
}

/// §3, Karn's algorithm: no RTT sample from a retransmitted segment. The
/// ACK of the timeout's retransmission of segment 0 gives none, so the
/// backed-off RTO (2 s) stays and (5.3) restarts the timer with it; the
/// next segment, sent once, gives the first sample, and §5's note applies:
/// the RTO "collapses" back from its backed-off value (to 3 * 400 ms).
#[test]
fn s3_karn_no_sample_from_a_retransmitted_segment() {
    let mut sc = Script::new(rfc6298(1), Recovery::NewReno);
    sc.start(10);
    assert_eq!(sc.timeout(), "r0");
    assert_eq!(sc.ack_at(1301 * MS, 1), "1 2");
    assert_eq!(sc.s.core.rtt.samples, 0);
    assert_eq!(estimator_ms(&sc), (None, 0.0, 2000.0));
    assert_eq!(deadline(&sc), Some(1301 * MS + 2 * S));
    // Segment 1 was timed from 1301 ms. (cwnd has reached ssthresh, 2
    // segments: congestion avoidance, one new segment.)
    assert_eq!(sc.ack_at(1701 * MS, 2), "3");
    assert_eq!(estimator_ms(&sc), (Some(400.0), 200.0, 1200.0));
    assert_eq!(sc.s.core.rtt.backoff_count(), 0);
    assert_eq!(deadline(&sc), Some(1701 * MS + 1200 * MS));
}

/// §3: with the timestamp option the ambiguity is gone and a retransmitted
/// segment may be timed: the ACK of the retransmission echoing its TSval
/// (1.001 s) at 1.301 s is a 300 ms sample.
#[test]
fn s3_timestamps_allow_samples_from_retransmitted_segments() {
    let mut cfg = rfc6298(1);
    cfg.timestamps = true;
    let mut sc = Script::new(cfg, Recovery::NewReno);
    sc.start(10);
    assert_eq!(sc.timeout(), "r0");
    let retransmitted_at = sc.now;
    sc.deliver_at(1301 * MS, &ack_ts(1, &[], retransmitted_at));
    assert_eq!(sc.s.core.rtt.samples, 1);
    assert_eq!(estimator_ms(&sc), (Some(300.0), 150.0, 1000.0));
}

/// §3: "at least one RTT measurement per RTT": without timestamps, once the
/// timed segment is acknowledged the next new segment is timed, so each
/// round trip gives one sample (segment 0, then segment 4, sent at 101 ms
/// when segment 0's ACK opened the window).
#[test]
fn s3_one_measurement_per_round_trip_without_timestamps() {
    let mut sc = Script::new(rfc6298(4), Recovery::NewReno);
    assert_eq!(sc.start(100), "0 1 2 3");
    assert_eq!(sc.ack_at(101 * MS, 1), "4 5");
    assert_eq!(sc.s.core.rtt.samples, 1);
    for (t, n) in [(102, 2), (103, 3), (104, 4)] {
        sc.ack_at(t * MS, n);
        assert_eq!(
            sc.s.core.rtt.samples,
            1,
            "ACK {n}: segment {} was not timed",
            n - 1
        );
    }
    sc.ack_at(201 * MS, 5);
    assert_eq!(sc.s.core.rtt.samples, 2);
    assert_eq!(sc.s.core.rtt.latest_rtt_ns(), Some(100 * MS));
}

/// (5.1): sending data starts the timer only if it is not running: a
/// second segment sent at 50 ms leaves the deadline set at 1 ms.
#[test]
fn s5_1_sending_starts_the_timer_only_if_it_is_not_running() {
    let mut sc = Script::new(rfc6298(2), Recovery::NewReno);
    assert_eq!(sc.start(1), "0");
    assert_eq!(deadline(&sc), Some(T0 + S));
    assert_eq!(sc.write_at(50 * MS, 1), "1");
    assert_eq!(deadline(&sc), Some(T0 + S));
}

/// (5.2): when all outstanding data is acknowledged the timer is turned
/// off; (5.1): the next segment sent starts it again (at RTO = 1 s after
/// the 100 ms sample).
#[test]
fn s5_2_timer_stops_when_everything_is_acknowledged() {
    let mut sc = Script::new(rfc6298(2), Recovery::NewReno);
    assert_eq!(sc.start(2), "0 1");
    sc.ack_at(101 * MS, 1);
    assert_eq!(deadline(&sc), Some(101 * MS + S));
    sc.ack_at(150 * MS, 2);
    assert_eq!(deadline(&sc), None);
    assert_eq!(sc.s.next_deadline(), None);
    assert_eq!(sc.write_at(300 * MS, 1), "2");
    assert_eq!(deadline(&sc), Some(300 * MS + S));
}

/// (5.3): an ACK of new data restarts the timer with the current RTO; a
/// duplicate ACK (nothing new acknowledged) does not.
#[test]
fn s5_3_only_an_ack_of_new_data_restarts_the_timer() {
    let mut sc = Script::new(rfc6298(4), Recovery::NewReno);
    assert_eq!(sc.start(4), "0 1 2 3");
    assert_eq!(deadline(&sc), Some(T0 + S));
    sc.ack_at(101 * MS, 1);
    assert_eq!(deadline(&sc), Some(101 * MS + S));
    sc.ack_at(500 * MS, 1);
    assert_eq!(deadline(&sc), Some(101 * MS + S));
    sc.ack_at(600 * MS, 2);
    assert_eq!(deadline(&sc), Some(600 * MS + S));
}

/// (5.4)-(5.6): at each expiry the earliest unacknowledged segment (1,
/// not 0) is retransmitted, RTO doubles (5.5) up to the 60 s maximum of
/// (2.5), and the timer restarts with the doubled value (5.6). §5's
/// opening MUST holds: segment 1 is never retransmitted less than one RTO
/// after its previous transmission.
#[test]
fn s5_4_to_5_6_expiry_retransmits_the_earliest_segment_and_backs_off() {
    let mut sc = Script::new(rfc6298(4), Recovery::NewReno);
    sc.start(100);
    assert_eq!(sc.ack_at(101 * MS, 1), "4 5");
    let mut previous = 101 * MS;
    let mut expected_rto_s = [2, 4, 8, 16, 32, 60, 60, 60].into_iter();
    let mut rto = S;
    for _ in 0..8 {
        assert_eq!(deadline(&sc), Some(previous + rto));
        assert_eq!(sc.timeout(), "r1");
        assert_eq!(sc.now - previous, rto, "not earlier than one RTO");
        previous = sc.now;
        rto = expected_rto_s.next().unwrap() * S;
        assert_eq!(sc.s.core.rtt.rto_ns(), rto);
    }
}

/// (5.5) as an option: ns-2 stops doubling at a multiplier of 64
/// (`max_backoff`); with a cap of 4 the RTO goes 1, 2, 4, 4 s.
#[test]
fn s5_5_optional_backoff_multiplier_cap() {
    let mut cfg = rfc6298(1);
    cfg.rto.max_backoff = Some(4);
    let mut sc = Script::new(cfg, Recovery::NewReno);
    sc.start(10);
    let mut expiries = Vec::new();
    for _ in 0..4 {
        let before = sc.now;
        sc.timeout();
        expiries.push((sc.now - before) / MS);
    }
    assert_eq!(expiries, [1000, 2000, 4000, 4000]);
}

/// A SYN-ACK for a SYN sent at 1 ms.
fn syn_ack() -> Packet {
    Packet {
        kind: PacketKind::TcpAck,
        flags: flags::SYN | flags::ACK,
        ack: 1,
        wnd: WND,
        ..Default::default()
    }
}

/// (5.7): the SYN's timer expired (RTO < 3 s): when data transmission
/// begins the RTO is re-initialised to 3 s, and the retransmitted SYN gave
/// no sample (§3).
#[test]
fn s5_7_syn_timeout_sets_three_seconds_when_data_begins() {
    let mut cfg = rfc6298(1);
    cfg.handshake = true;
    let mut sc = Script::new(cfg, Recovery::NewReno);
    sc.start(10);
    assert_eq!(deadline(&sc), Some(T0 + S));
    sc.timeout();
    assert_eq!(deadline(&sc), Some(T0 + S + 2 * S), "(5.5) for the SYN");
    assert_eq!(sc.deliver_at(1101 * MS, &syn_ack()), "0");
    assert_eq!(estimator_ms(&sc), (None, 0.0, 3000.0));
    assert_eq!(deadline(&sc), Some(1101 * MS + 3 * S));
}

/// (2.2) with the handshake: the SYN, answered without a timeout, is the
/// first measurement (400 ms: RTO 1.2 s for the first data segment).
#[test]
fn s2_2_the_syn_gives_the_first_measurement() {
    let mut cfg = rfc6298(1);
    cfg.handshake = true;
    let mut sc = Script::new(cfg, Recovery::NewReno);
    sc.start(10);
    assert_eq!(sc.deliver_at(401 * MS, &syn_ack()), "0");
    assert_eq!(estimator_ms(&sc), (Some(400.0), 200.0, 1200.0));
    assert_eq!(deadline(&sc), Some(401 * MS + 1200 * MS));
}

/// (5.7) applies to an implementation "using an RTO less than 3 seconds".
/// One configured with a 5 s initial RTO (allowed by (2.1)) is not lowered
/// to 3 s: airtcp re-initialises it to its own initial RTO (the SYN's
/// backoff, 10 s, ends as it does for a 1-s initial RTO).
#[test]
fn s5_7_never_lowers_an_initial_rto_of_three_seconds_or_more() {
    let mut cfg = rfc6298(1);
    cfg.handshake = true;
    cfg.rto.initial_rto_ns = 5 * S;
    let mut sc = Script::new(cfg, Recovery::NewReno);
    sc.start(10);
    sc.timeout();
    assert_eq!(deadline(&sc), Some(T0 + 5 * S + 10 * S));
    assert_eq!(sc.deliver_at(5 * S + 101 * MS, &syn_ack()), "0");
    assert_eq!(estimator_ms(&sc), (None, 0.0, 5000.0));
    assert_eq!(deadline(&sc), Some(5 * S + 101 * MS + 5 * S));
}

/// RFC 6298 says nothing about restarting the timer at a fast retransmit;
/// ns-2's Reno and Linux restart it, the option
/// `restart_rto_on_fast_retransmit` (default on). Segments 0-9 leave at
/// 1 ms, the third duplicate ACK arrives at 300 ms: on, the retransmission
/// of segment 0 runs a fresh RTO (1 s) from 300 ms; off, the deadline set
/// when segment 0 first left (1 ms + 1 s) stands, since duplicate ACKs
/// acknowledge nothing new ((5.3)).
#[test]
fn fast_retransmit_restarts_the_timer_by_the_option() {
    assert!(SenderConfig::default().restart_rto_on_fast_retransmit);
    for (restart, expected) in [(true, 300 * MS + S), (false, T0 + S)] {
        let mut cfg = rfc6298(10);
        cfg.restart_rto_on_fast_retransmit = restart;
        let mut sc = Script::new(cfg, Recovery::Reno);
        assert_eq!(sc.start(100), range(0, 9));
        assert_eq!(deadline(&sc), Some(T0 + S));
        assert_eq!(sc.ack_at(100 * MS, 0), "");
        assert_eq!(sc.ack_at(200 * MS, 0), "");
        assert_eq!(sc.ack_at(300 * MS, 0), "r0");
        assert_eq!(deadline(&sc), Some(expected), "restart {restart}");
    }
}
