//! RFC 6675, A Conservative Loss Recovery Algorithm Based on SACK: §2's
//! duplicate acknowledgment, §4's NextSeg rules, §5's steps (1)-(4), (A)
//! and (C), and §5.1 (timeouts), scripted sans-I/O. SACK blocks are
//! inclusive segment ranges (`tests/common/script.rs`).

mod common;
use common::script::*;

fn sack_sender(iw: u32) -> Script {
    Script::new(config(iw), Recovery::Sack)
}

/// §2: an ACK carrying SACK information for previously un-SACKed octets is
/// a duplicate acknowledgment even when it also advances the cumulative
/// acknowledgment point. Here it brings three SACKed segments above the
/// hole at segment 1, so IsLost(HighACK + 1) holds and step (2) enters
/// recovery on that very ACK.
#[test]
fn s2_cumulative_ack_with_new_sack_is_a_duplicate_ack() {
    let mut sc = sack_sender(10);
    sc.start(100);
    // Segment 0 delayed, 1 lost, 2.. arrive.
    assert_eq!(sc.ack(0, &[(2, 2)]), "");
    assert_eq!(sc.ack(0, &[(2, 3)]), "");
    // Segment 0 and segment 4 arrived (an ACK between them was lost).
    assert_eq!(sc.ack(1, &[(2, 4)]), "r1");
    assert_eq!(sc.s.core.stats.fast_retransmits, 1);
}

/// §2: an ACK without new SACK information is not a duplicate ACK (a
/// duplicated segment's ACK repeats the same block), so it counts nothing.
#[test]
fn s2_duplicate_ack_needs_new_sack_information() {
    let mut sc = sack_sender(10);
    sc.start(100);
    for _ in 0..3 {
        assert_eq!(sc.ack(0, &[(1, 1)]), "");
    }
    assert_eq!(sc.s.core.dupacks, 1);
    assert_eq!(sc.s.core.stats.fast_retransmits, 0);
}

/// §5 steps (1) and (4): DupAcks reaches DupThresh: RecoveryPoint =
/// HighData, ssthresh = cwnd = FlightSize / 2, retransmit HighACK + 1.
#[test]
fn s5_step4_enters_recovery_with_half_the_flight() {
    let mut sc = sack_sender(10);
    sc.start(100);
    assert_eq!(sc.ack(0, &[(1, 1)]), "");
    assert_eq!(sc.ack(0, &[(1, 2)]), "");
    assert_eq!(sc.ack(0, &[(1, 3)]), "r0");
    assert_eq!(sc.window(), (5.0, 5.0));
    assert_eq!(sc.recover(), Some(10));
    assert!(sc.s.core.in_recovery);
}

/// §5 step (C) and NextSeg rule (1): during recovery, as SACK blocks shrink
/// pipe, lost segments go first (segment 5, with three SACKed segments
/// above it), then new data (rule (2)).
#[test]
fn s5_step_c_nextseg_rules_1_and_2() {
    let mut sc = sack_sender(10);
    sc.start(100);
    sc.ack(0, &[(1, 1)]);
    sc.ack(0, &[(1, 2)]);
    assert_eq!(sc.ack(0, &[(1, 3)]), "r0");
    // Segment 5 lost as well. pipe: 4, 6..9 and the retransmission.
    assert_eq!(sc.ack(0, &[(1, 4)]), "");
    assert_eq!(sc.ack(0, &[(1, 4), (6, 6)]), "");
    // pipe = r0 + 5, 8, 9 = 4: room for one segment; segment 5 is not
    // lost yet (two SACKed segments above it): rule (2), new data.
    assert_eq!(sc.ack(0, &[(1, 4), (6, 7)]), "10");
    // 6, 7, 8 SACKed above 5: IsLost(5); pipe = r0 + 9 + 10 = 3: rule
    // (1) first, then rule (2).
    assert_eq!(sc.ack(0, &[(1, 4), (6, 8)]), "r5 11");
}

/// §6: "a more careful variant that re-arms the RTO timer on each
/// retransmission that is sent during recovery MAY be used" (option
/// `restart_rto_on_recovery_retransmission`). Segment 5's retransmission,
/// sent during recovery, re-arms the timer. By default only RFC 6298
/// (5.3) restarts it, on an ACK of new data, and none came since the fast
/// retransmission of segment 0, so the deadline stays where that put it.
#[test]
fn s6_rto_rearmed_on_each_retransmission_in_recovery_option() {
    for rearm in [false, true] {
        let mut cfg = config(10);
        cfg.restart_rto_on_recovery_retransmission = rearm;
        let mut sc = Script::new(cfg, Recovery::Sack);
        sc.start(100);
        sc.ack(0, &[(1, 1)]);
        sc.ack(0, &[(1, 2)]);
        assert_eq!(sc.ack(0, &[(1, 3)]), "r0");
        let after_fast_retransmit = sc.s.core.rto_deadline;
        sc.ack(0, &[(1, 4)]);
        sc.ack(0, &[(1, 4), (6, 6)]);
        assert_eq!(sc.ack(0, &[(1, 4), (6, 7)]), "10");
        assert_eq!(sc.s.core.rto_deadline, after_fast_retransmit, "new data");
        assert_eq!(sc.ack(0, &[(1, 4), (6, 8)]), "r5 11");
        let expected = if rearm {
            Some(sc.now + sc.s.core.rtt.rto_ns())
        } else {
            after_fast_retransmit
        };
        assert_eq!(sc.s.core.rto_deadline, expected, "re-arm: {rearm}");
    }
}

/// §5 step (A): a cumulative ACK beyond RecoveryPoint ends recovery.
#[test]
fn s5_step_a_ack_beyond_recovery_point_ends_recovery() {
    let mut sc = sack_sender(10);
    sc.start(10);
    sc.ack(0, &[(1, 1)]);
    sc.ack(0, &[(1, 2)]);
    sc.ack(0, &[(1, 3)]);
    sc.ack(9, &[]);
    assert!(sc.s.core.in_recovery, "ACK 9 is below RecoveryPoint 10");
    sc.ack(10, &[]);
    assert!(!sc.s.core.in_recovery);
}

/// §4 NextSeg rule (4), an option (default off): segment 9, the last,
/// lost with no new data to send; once the cumulative ACK passes RescueRxt
/// (the first retransmission), one rescue retransmission of the highest
/// unSACKed segment, then no more in this recovery.
#[test]
fn s4_nextseg_rule4_rescue_retransmission_option() {
    for (rescue, expected) in [(false, ""), (true, "r9")] {
        let mut cfg = config(10);
        cfg.rescue_retransmission = rescue;
        let mut sc = Script::new(cfg, Recovery::Sack);
        sc.start(10);
        sc.ack(0, &[(1, 1)]);
        sc.ack(0, &[(1, 2)]);
        assert_eq!(sc.ack(0, &[(1, 3)]), "r0");
        for k in 4..=8 {
            assert_eq!(sc.ack(0, &[(1, k)]), "", "nothing to send by rules 1-3");
        }
        assert_eq!(sc.ack(9, &[]), expected, "rescue {rescue}");
        assert_eq!(sc.dupacks(9, 1), "");
    }
}

/// §5.1: after a timeout RecoveryPoint = HighData, and a new recovery may
/// start once HighACK >= RecoveryPoint (here equal: everything sent before
/// the timeout is acknowledged and segment 10, sent after it, is lost).
#[test]
fn s5_1_new_recovery_allowed_when_highack_reaches_recovery_point() {
    let mut cfg = config(10);
    cfg.limited_transmit = true;
    let mut sc = Script::new(cfg, Recovery::Sack);
    sc.start(100);
    assert_eq!(sc.timeout(), "r0");
    assert_eq!(sc.recover(), Some(10));
    // The originals were only delayed: ACK 10 covers RecoveryPoint.
    assert_eq!(sc.ack(10, &[]), "10 11");
    // Segment 10 lost; Limited Transmit (step (3)) keeps the ACK clock.
    assert_eq!(sc.ack(10, &[(11, 11)]), "12");
    assert_eq!(sc.ack(10, &[(11, 12)]), "13");
    // DupThresh: recovery; ssthresh = cwnd = FlightSize / 2 without the
    // Limited Transmit segments = 1, at least 2 SMSS; pipe 1 leaves room
    // for new data.
    assert_eq!(sc.ack(10, &[(11, 13)]), "r10 14");
    assert_eq!(sc.window(), (2.0, 2.0));
}

/// §5.1: before HighACK reaches RecoveryPoint no new recovery starts.
#[test]
fn s5_1_no_new_recovery_below_recovery_point() {
    let mut sc = sack_sender(10);
    sc.start(100);
    assert_eq!(sc.timeout(), "r0");
    // Segment 1 still missing: SACKs above it.
    sc.ack(1, &[(2, 2)]);
    sc.ack(1, &[(2, 3)]);
    sc.ack(1, &[(2, 4)]);
    assert_eq!(sc.s.core.stats.fast_retransmits, 0);
    assert!(!sc.s.core.in_recovery);
}

/// §5.1 on SACK information at an RTO: "[RFC2018] suggests that a TCP
/// sender SHOULD expunge the SACK information gathered from a receiver upon
/// a retransmission timeout (RTO) ... It has been suggested that, as long
/// as robust tests for reneging are present, an implementation can retain
/// and use SACK information across a timeout event". airtcp's receiver
/// never reneges, and the sender keeps what was SACKed before the timeout:
/// segments 2, 4, 6 and 8 are SACKed (DupThresh 10 keeps the sender out
/// of fast recovery), the RTO fires, and the retransmission's ACK carries
/// only the three most recent blocks (RFC 2018's limit with timestamps).
/// Segment 2, SACKed only before the timeout, is not resent: the window of
/// two segments goes to the holes 1 and 3.
#[test]
fn s5_1_sack_information_is_kept_across_an_rto() {
    let mut cfg = config(10);
    cfg.dupthresh = 10;
    let mut sc = Script::new(cfg, Recovery::Sack);
    sc.start(100);
    assert_eq!(sc.ack(0, &[(2, 2)]), "");
    assert_eq!(sc.ack(0, &[(4, 4), (2, 2)]), "");
    assert_eq!(sc.ack(0, &[(6, 6), (4, 4), (2, 2)]), "");
    assert_eq!(sc.ack(0, &[(8, 8), (6, 6), (4, 4)]), "");
    assert!(!sc.s.core.in_recovery);
    assert_eq!(sc.timeout(), "r0");
    assert_eq!(sc.s.core.sb.sacked_bytes(), 4 * MSS, "kept at the RTO");
    assert_eq!(sc.ack(1, &[(8, 8), (6, 6), (4, 4)]), "r1 r3");
}

/// §5: "If the incoming ACK is a cumulative acknowledgment, the TCP MUST
/// reset DupAcks to zero." Two duplicate ACKs (segments 1 and 2 SACKed),
/// then the delayed segment 0 arrives: ACK 3, no new SACK information.
/// The next ACK, SACKing segment 4, is the first duplicate of the new
/// point, not the third: no loss recovery (segment 3 is not lost by
/// IsLost either, with one SACKed segment above it).
#[test]
fn s5_dupacks_reset_by_a_cumulative_ack() {
    let mut sc = sack_sender(10);
    sc.start(100);
    assert_eq!(sc.ack(0, &[(1, 1)]), "");
    assert_eq!(sc.ack(0, &[(1, 2)]), "");
    assert_eq!(sc.s.core.dupacks, 2);
    sc.ack(3, &[]);
    assert_eq!(sc.s.core.dupacks, 0);
    sc.ack(3, &[(4, 4)]);
    assert_eq!(sc.s.core.dupacks, 1);
    assert!(!sc.s.core.in_recovery);
    assert_eq!(sc.s.core.stats.fast_retransmits, 0);
}
