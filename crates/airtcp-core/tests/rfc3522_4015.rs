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

/// RFC 3522 §3.2 step (1): RetransmitTS is the timestamp of the FIRST
/// retransmission; after a backed-off second expiry the original's echo
/// still marks the timeout spurious.
#[test]
fn rfc3522_retransmit_ts_is_the_first_retransmission() {
    let mut sc = eifel(false);
    sc.start(100);
    sc.timeout();
    assert_eq!(sc.timeout(), "r0");
    let out = sc.deliver(&ack_ts(1, &[], FIRST_TS));
    assert_eq!(sc.s.core.stats.spurious_timeouts_detected, 1);
    assert!(!out.contains('r'), "no go-back-N: {out}");
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
