//! RFC 3042, Enhancing TCP's Loss Recovery Using Limited Transmit (§2),
//! as RFC 5681 §3.2 step 1 restates it: on each of the first two
//! consecutive duplicate ACKs send one new segment if the receiver's window
//! allows, FlightSize stays <= cwnd + 2 SMSS and new data is available;
//! cwnd unchanged; with SACK, only on ACKs carrying new SACK information.
//! Scripted sans-I/O (`tests/common/script.rs`).

mod common;
use common::script::*;

fn lt(recovery: Recovery) -> Script {
    let mut cfg = config(10);
    cfg.limited_transmit = true;
    Script::new(cfg, recovery)
}

/// §2: one new segment per duplicate ACK for the first two, cwnd unchanged;
/// the third starts fast retransmit as usual.
#[test]
fn s2_first_two_duplicate_acks_each_send_a_new_segment() {
    for recovery in [Recovery::Reno, Recovery::NewReno, Recovery::Tahoe] {
        let mut sc = lt(recovery);
        assert_eq!(sc.start(100), range(0, 9));
        assert_eq!(sc.ack(0, &[]), "10", "{recovery:?}");
        assert_eq!(sc.ack(0, &[]), "11", "{recovery:?}");
        assert_eq!(sc.cwnd(), 10.0, "cwnd unchanged");
        assert!(sc.ack(0, &[]).starts_with("r0"), "{recovery:?}");
    }
}

/// §2: never more than cwnd + 2 segments outstanding, even with a larger
/// duplicate-ACK threshold.
#[test]
fn s2_at_most_two_segments_beyond_cwnd() {
    let mut cfg = config(10);
    cfg.limited_transmit = true;
    cfg.dupthresh = 5;
    let mut sc = Script::new(cfg, Recovery::NewReno);
    sc.start(100);
    assert_eq!(sc.dupacks(0, 4), "10 11");
}

/// §2: the receiver's advertised window must allow the segment.
#[test]
fn s2_receiver_window_must_allow() {
    let mut sc = lt(Recovery::NewReno);
    sc.start(100);
    let mut a = ack(0, &[]);
    a.wnd = 10 * MSS;
    sc.deliver(&a); // a window update, not a duplicate
    assert_eq!(sc.deliver(&a), "");
    assert_eq!(sc.deliver(&a), "");
}

/// §2: only previously unsent data; with none, nothing is sent.
#[test]
fn s2_needs_new_data() {
    let mut sc = lt(Recovery::NewReno);
    sc.start(10);
    assert_eq!(sc.dupacks(0, 2), "");
}

/// §2 (note): with SACK, no new segment for a duplicate ACK without new
/// SACK information; RFC 6675 §5 step (3) sends by pipe otherwise.
#[test]
fn s2_sack_needs_new_sack_information() {
    let mut sc = lt(Recovery::Sack);
    sc.start(100);
    assert_eq!(sc.ack(0, &[(1, 1)]), "10");
    assert_eq!(sc.ack(0, &[(1, 1)]), "");
    assert_eq!(sc.ack(0, &[(1, 2)]), "11");
    assert_eq!(sc.cwnd(), 10.0);
}

/// Limited Transmit is an option (on by default, as in Linux and ns-3):
/// off, the first two duplicate ACKs send nothing.
#[test]
fn option_off_sends_nothing_and_default_is_on() {
    let mut sc = Script::new(config(10), Recovery::NewReno);
    assert!(!sc.s.core.cfg.limited_transmit);
    sc.start(100);
    assert_eq!(sc.dupacks(0, 2), "");
    assert!(airtcp_core::tcp::sender::SenderConfig::default().limited_transmit);
}
