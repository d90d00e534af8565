//! RFC 3522 (Eifel detection, §3.2) and RFC 4015 (Eifel response, §3.1),
//! scripted sans-I/O with timestamps (`tests/common/script.rs`). The first
//! flight leaves at t = 1 ms (TSval 1 ms); the RTO fires at 1.001 s.

mod common;
use airtcp_core::tcp::rto::EifelTimeout;
use common::script::*;

const FIRST_TS: u64 = STEP_NS;

fn eifel(ecn: bool) -> Script {
    let mut cfg = config(10);
    cfg.timestamps = true;
    cfg.ecn = ecn;
    Script::with_timeout(cfg, Recovery::NewReno, Box::new(EifelTimeout::default()))
}

/// RFC 3522 §3.2 steps (1)-(4): the first acceptable ACK after the
/// timeout's retransmission echoes a timestamp older than the
/// retransmission's (RetransmitTS): the timeout was spurious. RFC 4015:
/// resume with new data (SND.NXT = SND.MAX, no go-back-N); cwnd =
/// FlightSize + min(bytes_acked, IW) = 9 + 1; ssthresh = pipe_prev =
/// max(FlightSize 10, ssthresh 64).
#[test]
fn rfc3522_spurious_timeout_and_rfc4015_response() {
    let mut sc = eifel(false);
    sc.start(100);
    assert_eq!(sc.timeout(), "r0");
    assert_eq!(sc.deliver(&ack_ts(1, &[], FIRST_TS)), "10");
    assert_eq!(sc.s.core.stats.spurious_timeouts_detected, 1);
    assert_eq!(sc.window(), (10.0, 64.0));
}

/// RFC 3522 §3.2 step (3): an echo of the retransmission's own timestamp:
/// not spurious, the standard response stands (go-back-N in slow start).
#[test]
fn rfc3522_genuine_timeout_is_left_alone() {
    let mut sc = eifel(false);
    sc.start(100);
    sc.timeout();
    let retransmit_ts = sc.now;
    assert_eq!(sc.deliver(&ack_ts(1, &[], retransmit_ts)), "r1 r2");
    assert_eq!(sc.s.core.stats.spurious_timeouts_detected, 0);
    assert_eq!(sc.ssthresh(), 5.0);
}

/// RFC 3522 detects with the Timestamps option (§3.2 step (1) records the
/// retransmission's TSval): without it nothing is detected and the
/// standard response stands (go-back-N in slow start).
#[test]
fn rfc3522_without_timestamps_detects_nothing() {
    let cfg = config(10);
    let mut sc = Script::with_timeout(cfg, Recovery::NewReno, Box::new(EifelTimeout::default()));
    sc.start(100);
    assert_eq!(sc.timeout(), "r0");
    assert_eq!(sc.ack(1, &[]), "r1 r2");
    assert_eq!(sc.s.core.stats.spurious_timeouts_detected, 0);
    assert_eq!(sc.window().1, 5.0);
}

/// RFC 3522 §3.2 step (1): RetransmitTS is the timestamp of the FIRST
/// retransmission; after a backed-off second expiry the original's echo
/// still marks the timeout spurious. RFC 4015 §3.1 saves pipe_prev at that
/// first expiry too: max(FlightSize 10, ssthresh 64) = 64, not the
/// max(10, 5) the second expiry would give (the first set ssthresh to 5);
/// the response restores ssthresh 64 and cwnd = FlightSize 9 + min(1, IW).
#[test]
fn rfc3522_retransmit_ts_is_the_first_retransmission() {
    let mut sc = eifel(false);
    sc.start(100);
    sc.timeout();
    assert_eq!(sc.window(), (1.0, 5.0));
    assert_eq!(sc.timeout(), "r0");
    let out = sc.deliver(&ack_ts(1, &[], FIRST_TS));
    assert_eq!(sc.s.core.stats.spurious_timeouts_detected, 1);
    assert!(!out.contains('r'), "no go-back-N: {out}");
    assert_eq!(sc.window(), (10.0, 64.0), "pipe_prev of the first expiry");
}

/// RFC 4015 §3.1, reversing the congestion control state: "If the
/// acceptable ACK has the ECN-Echo flag set", the state is NOT restored:
/// cwnd and ssthresh stay as the timeout set them (the congestion signal
/// is honoured); new data still resumes where it left off (no go-back-N).
#[test]
fn rfc4015_ece_on_the_acceptable_ack_keeps_the_reduced_window() {
    let mut sc = eifel(true);
    sc.start(100);
    sc.timeout();
    let mut a = ack_ts(1, &[], FIRST_TS);
    a.flags |= airtcp_core::net::packet::flags::ECE;
    assert_eq!(sc.deliver(&a), "");
    assert_eq!(sc.s.core.stats.spurious_timeouts_detected, 1);
    assert_eq!(sc.window(), (1.0, 5.0));
}

/// Issue 10, defect 1: after a timeout found spurious, `recover` must not
/// stay at the highest segment sent before it (RFC 5682 step 3b sets it to
/// SND.UNA for the same reason): a genuine loss later in that window is
/// then fast-retransmitted on the third of seven duplicate ACKs.
#[test]
fn fast_retransmit_works_after_a_spurious_timeout() {
    let mut sc = eifel(false);
    sc.start(100);
    sc.timeout();
    sc.deliver(&ack_ts(1, &[], FIRST_TS));
    // Segments 1..4 arrive, 5 is lost, 6.. arrive.
    sc.deliver(&ack_ts(5, &[], FIRST_TS));
    let mut out = String::new();
    for _ in 0..7 {
        out.push(' ');
        out.push_str(&sc.deliver(&ack_ts(5, &[], FIRST_TS)));
    }
    assert_eq!(sc.s.core.stats.fast_retransmits, 1, "{out}");
    assert!(out.contains("r5"), "{out}");
    assert_eq!(sc.s.core.stats.timeouts, 1);
}

const MS: u64 = 1_000_000;

/// An Eifel sender whose RTO floor (10 ms, configurable like ns-2's) lets
/// RFC 4015's RTO arithmetic show; G = 1 ms.
fn eifel_fine_rto() -> Script {
    let mut cfg = config(10);
    cfg.timestamps = true;
    cfg.rto.min_rto_ns = 10 * MS;
    Script::with_timeout(cfg, Recovery::NewReno, Box::new(EifelTimeout::default()))
}

/// SRTT 300 ms, RTTVAR 150 ms, RTO 900 ms, ten segments in flight (2..11),
/// then the timeout at 1.201 s (RFC 4015 §3.1 steps (1)-(2) save
/// SRTT_prev = SRTT + 2G = 302 ms, RTTVAR_prev = 150 ms) and the spurious
/// decision on the ACK of segment 1's original (TSval 1 ms); segment 12,
/// the first sent after the timeout, leaves at 1.251 s. Then the ACK of
/// segments 2..11 (originals sent at 1 ms and 301 ms): ordinary (2.3)
/// samples, since they time data sent before the timeout.
fn spurious_timeout_with_known_estimator() -> Script {
    let mut sc = eifel_fine_rto();
    sc.start(100);
    assert_eq!(sc.deliver_at(301 * MS, &ack_ts(1, &[], FIRST_TS)), "10 11");
    let r = &sc.s.core.rtt;
    assert_eq!(
        (r.srtt_ns(), r.rttvar_ns(), r.rto_ns()),
        (Some(300 * MS), 150 * MS, 900 * MS)
    );
    assert_eq!(sc.timeout(), "r1");
    assert_eq!(sc.now, 1201 * MS);
    assert_eq!(sc.deliver_at(1251 * MS, &ack_ts(2, &[], FIRST_TS)), "12");
    assert_eq!(sc.s.core.stats.spurious_timeouts_detected, 1);
    sc.deliver_at(1261 * MS, &ack_ts(12, &[], 301 * MS));
    sc
}

/// RFC 4015 §3.1 step (5): the first RTT measurement m for data sent after
/// the timeout re-seeds the estimator: m = 200 ms (segment 12, TSval
/// 1.251 s, acknowledged at 1.451 s) gives SRTT = max(SRTT_prev 302, m) =
/// 302 ms, RTTVAR = max(RTTVAR_prev 150, m/2) = 150 ms, RTO = 302 +
/// max(G, 4 * 150) = 902 ms, and (RFC 6298 (5.3)) the timer restarted by
/// this ACK runs with it. An ordinary (2.3) update would have kept the
/// larger estimate the ACKs of the stalled segments left (over 2 s).
#[test]
fn rfc4015_first_sample_after_a_spurious_timeout_reseeds_from_the_saved_estimate() {
    let mut sc = spurious_timeout_with_known_estimator();
    assert!(
        sc.s.core.rtt.rto_ns() > 2000 * MS,
        "{}",
        sc.s.core.rtt.rto_ns()
    );
    sc.deliver_at(1451 * MS, &ack_ts(13, &[], 1251 * MS));
    let r = &sc.s.core.rtt;
    assert_eq!(
        (r.srtt_ns(), r.rttvar_ns(), r.rto_ns()),
        (Some(302 * MS), 150 * MS, 902 * MS)
    );
    assert_eq!(sc.s.core.rto_deadline, Some(1451 * MS + 902 * MS));
    // Only the first such sample: the next one is an ordinary (2.3) update.
    sc.deliver_at(1461 * MS, &ack_ts(14, &[], 1261 * MS));
    let r = &sc.s.core.rtt;
    // RTTVAR = 3/4 * 150 + 1/4 * |302 - 200| = 138; SRTT = 7/8 * 302 + 1/8 * 200.
    assert_eq!(r.rttvar_ns(), 138 * MS);
    assert_eq!(r.srtt_ns(), Some(289_250_000));
}

/// RFC 4015 §3.1 step (5) when the new measurement is the larger: m = 1 s
/// gives SRTT = 1 s, RTTVAR = m/2 = 500 ms, RTO = 1 + 4 * 0.5 = 3 s.
#[test]
fn rfc4015_reseed_takes_the_new_measurement_when_it_is_larger() {
    let mut sc = spurious_timeout_with_known_estimator();
    sc.deliver_at(2251 * MS, &ack_ts(13, &[], 1251 * MS));
    let r = &sc.s.core.rtt;
    assert_eq!(
        (r.srtt_ns(), r.rttvar_ns(), r.rto_ns()),
        (Some(1000 * MS), 500 * MS, 3000 * MS)
    );
    assert_eq!(sc.s.core.rto_deadline, Some(2251 * MS + 3000 * MS));
}

/// RFC 5681 §3.1 (4) after RFC 4015's response to a spurious timeout: the
/// timeout's go-back-N is undone (step (3)), so of the data sent before it
/// only the acknowledged segment 0 was "resent by way of the retransmission
/// timer". Segment 1 then expiring has not been: ssthresh = max(FlightSize
/// / 2, 2 SMSS) = 5 SMSS (segments 1-10 in flight), not pipe_prev held.
/// (With timestamps the ACK that finds the timeout spurious is also an RTT
/// sample, which ends the backoff, so this expiry is a first expiry; the
/// case where the backoff stands is F-RTO's without timestamps,
/// `rfc5682.rs::step3b_then_an_expiry_of_a_segment_never_resent_sets_ssthresh`.)
#[test]
fn rfc5681_expiry_after_a_spurious_timeout_sets_ssthresh_by_flight_size() {
    let mut sc = eifel(false);
    sc.start(100);
    assert_eq!(sc.timeout(), "r0");
    assert_eq!(sc.deliver(&ack_ts(1, &[], FIRST_TS)), "10");
    assert_eq!(sc.window(), (10.0, 64.0));
    assert_eq!(sc.timeout(), "r1");
    assert_eq!(sc.window(), (1.0, 5.0));
}
