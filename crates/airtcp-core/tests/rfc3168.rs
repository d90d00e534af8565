//! RFC 3168, ECN in TCP: the ECN-setup SYN and SYN-ACK (§6.1.1), the
//! sender's response (§6.1.2), the receiver's echo (§6.1.3), pure ACKs
//! (§6.1.4) and retransmissions (§6.1.5): scripted sans-I/O
//! (`tests/common/script.rs`).

mod common;
use airtcp_core::net::mecn::MecnLevel;
use airtcp_core::net::packet::{flags, Ecn, Packet};
use airtcp_core::tcp::core::{MarkWindowFloor, TimeoutInRecoverySsthresh};
use common::script::*;

fn ecn(recovery: Recovery) -> Script {
    let mut cfg = config(10);
    cfg.ecn = true;
    Script::new(cfg, recovery)
}

/// Deliver `pkt` and return the packets sent (to inspect their flags).
fn deliver(sc: &mut Script, pkt: &Packet) -> Vec<Packet> {
    sc.now += STEP_NS;
    let mut out = Vec::new();
    sc.s.on_packet(sc.now, pkt, &mut out);
    out
}

/// Let the sender's next timer expire at its deadline and return the
/// packets sent (to inspect their flags).
fn expire_timer(sc: &mut Script) -> Vec<Packet> {
    let d = sc.s.next_deadline().expect("a timer is running");
    sc.now = d;
    let mut out = Vec::new();
    sc.s.on_timer(d, &mut out);
    out
}

/// §6.1.2: an ECN-Echo ACK halves cwnd and sets ssthresh (as a loss would:
/// max(FlightSize / 2, 2 SMSS)), and the first NEW data packet after the
/// reduction carries CWR, later ones do not.
#[test]
fn s6_1_2_ece_halves_the_window_and_cwr_marks_the_next_new_packet() {
    let mut sc = ecn(Recovery::NewReno);
    sc.start(100);
    assert!(deliver(&mut sc, &ack_ece(1, &[])).is_empty());
    assert_eq!(sc.window(), (5.0, 5.0));
    assert_eq!(sc.s.core.stats.ecn_reductions, 1);
    // FlightSize 9 > cwnd 5: ACKs 5 and 6 open room for new data.
    assert!(deliver(&mut sc, &ack(5, &[])).is_empty());
    let out = deliver(&mut sc, &ack(6, &[]));
    assert_eq!(sent(&out), "10");
    assert!(out[0].has_flag(flags::CWR));
    let out = deliver(&mut sc, &ack(7, &[]));
    assert!(!out.is_empty() && out.iter().all(|p| !p.has_flag(flags::CWR)));
}

/// §6.1.2: "The sending TCP SHOULD NOT increase the congestion window in
/// response to the receipt of an ECN-Echo ACK packet": neither on the ACK
/// that reduces nor on later ECN-Echo ACKs of the same window.
#[test]
fn s6_1_2_no_window_growth_on_ece_acks() {
    let mut sc = ecn(Recovery::NewReno);
    sc.start(100);
    deliver(&mut sc, &ack_ece(1, &[]));
    assert_eq!(sc.cwnd(), 5.0);
    deliver(&mut sc, &ack_ece(2, &[]));
    assert_eq!(
        sc.window(),
        (5.0, 5.0),
        "one reduction per window, no growth"
    );
}

/// §6.1.2: at most one reduction per window of data, counting loss
/// reductions: after a fast retransmit, an ECN-Echo for data of the same
/// window (after Reno's fast recovery ended on the first new ACK, with
/// SND.UNA still below the window's end) does not reduce again.
#[test]
fn s6_1_2_once_per_window_counts_a_fast_retransmit() {
    let mut sc = ecn(Recovery::Reno);
    sc.start(100);
    // Segments 0 and 2 lost; fast retransmit of 0.
    sc.dupacks(0, 3);
    assert_eq!(sc.window(), (8.0, 5.0));
    sc.dupacks(0, 5);
    // The retransmission's ACK ends Reno's fast recovery (cwnd 5); the
    // next ACK, a duplicate with ECN-Echo, is still for that window.
    deliver(&mut sc, &ack(2, &[]));
    deliver(&mut sc, &ack_ece(2, &[]));
    assert_eq!(
        sc.window(),
        (5.0, 5.0),
        "deflated by Reno, not halved again"
    );
    assert_eq!(sc.s.core.stats.ecn_reductions, 0);
}

/// §6.1.2, the other direction: "the TCP sender's congestion window
/// should be reduced only once in response to a series of dropped and/or
/// CE packets from a single window of data". Segments 0-9 are out; ACK 1
/// echoes CE, so cwnd = ssthresh = max(FlightSize / 2, 2 SMSS) = 5. Segment
/// 1 was also dropped: the third duplicate ACK of 1 is a loss in the
/// window the ECN-Echo reduced (SND.UNA below the end of the data sent
/// before the ECN-Echo), so segment 1 is fast retransmitted and ssthresh
/// stays 5 (FlightSize / 2 at the loss would be 4.5). Recovery heads for
/// the ECN-Echo's window: RFC 5681 §3.2 step 3 and RFC 6582 §3.2 step 2,
/// cwnd = ssthresh + 3 SMSS = 8 (FlightSize 9: nothing new); RFC 6675 §5
/// (4.2), cwnd = ssthresh = 5 (pipe 6: segments 5-9 and the
/// retransmission). Tahoe has no fast recovery: its response to a loss
/// is slow start from one segment, going back N, and here it keeps
/// ssthresh at 5 and sets only cwnd to one segment (ns-2's Tahoe
/// `dupack_action` after an ECN action: `slowdown(CLOSE_CWND_ONE)`, not
/// `CLOSE_SSTHRESH_HALF`): segment 1 alone leaves. One reduction, one
/// fast retransmit.
#[test]
fn s6_1_2_a_loss_in_the_window_an_ece_reduced_does_not_reduce_again() {
    for (recovery, out_expected, cwnd) in [
        (Recovery::Reno, "r1", 8.0),
        (Recovery::NewReno, "r1", 8.0),
        (Recovery::Sack, "r1", 5.0),
        (Recovery::Tahoe, "r1", 1.0),
    ] {
        let mut sc = ecn(recovery);
        sc.start(100);
        assert_eq!(sc.deliver(&ack_ece(1, &[])), "");
        assert_eq!(sc.window(), (5.0, 5.0), "{recovery:?}");
        let out = if recovery == Recovery::Sack {
            let sacks = [(2, 2), (2, 3), (2, 4)].map(|b| sc.ack(1, &[b]));
            sacks
                .into_iter()
                .filter(|s| !s.is_empty())
                .collect::<Vec<_>>()
                .join(" ")
        } else {
            sc.dupacks(1, 3)
        };
        assert_eq!(out, out_expected, "{recovery:?}");
        assert_eq!(sc.window(), (cwnd, 5.0), "{recovery:?}");
        let stats = &sc.s.core.stats;
        assert_eq!(
            (stats.ecn_reductions, stats.fast_retransmits),
            (1, 1),
            "{recovery:?}"
        );
        // The classifier's verdict (congestion) is recorded as a loss
        // whose cut was not made: not a window cut for the type-2 counts.
        let d = *sc.s.core.loss_decisions.last().unwrap();
        assert!(
            d.window_already_reduced && !d.halved_window && !d.cut_blocked,
            "{recovery:?}"
        );
    }
}

/// §6.1.2's "single window of data" ends where the data sent before the
/// ECN-Echo ends: a loss after it is new congestion. ACK 1 echoes CE
/// (cwnd = ssthresh = 5); ACK 10 acknowledges everything sent before it
/// and, without ECN-Echo, grows cwnd in congestion avoidance to 5.2
/// (segments 10-14 leave). Segment 10 is lost: the third duplicate ACK of
/// 10 reduces again, ssthresh = FlightSize / 2 = 2.5 and cwnd = 2.5 + 3
/// (RFC 6582 §3.2 steps 1-2).
#[test]
fn s6_1_2_a_loss_in_the_next_window_reduces() {
    let mut sc = ecn(Recovery::NewReno);
    sc.start(100);
    assert_eq!(sc.deliver(&ack_ece(1, &[])), "");
    assert_eq!(sc.ack(10, &[]), range(10, 14));
    assert_eq!(sc.dupacks(10, 3), "r10");
    assert_eq!(sc.window(), (5.5, 2.5));
}

/// §6.1.2: "the sender MUST set the CWR bit in the TCP header of the first
/// new data packet sent after the window reduction". A loss in the window
/// an ECN-Echo reduced makes no reduction, so it sets no second CWR: ACK 1
/// echoes CE (cwnd 5); ACKs 5 and 6 let segment 10 out, with CWR. Segment
/// 6 was lost: the third duplicate ACK of 6 fast retransmits it with
/// ssthresh kept at 5, cwnd = 5 + 3 = 8, FlightSize 5: segments 11-13
/// leave with the retransmission, without CWR.
#[test]
fn s6_1_2_no_second_cwr_for_a_loss_in_the_window_an_ece_reduced() {
    let mut sc = ecn(Recovery::NewReno);
    sc.start(100);
    assert_eq!(sc.deliver(&ack_ece(1, &[])), "");
    assert_eq!(sc.ack(5, &[]), "");
    let out = deliver(&mut sc, &ack(6, &[]));
    assert_eq!(sent(&out), "10");
    assert!(out[0].has_flag(flags::CWR));
    sc.dupacks(6, 2);
    let out = deliver(&mut sc, &ack(6, &[]));
    assert_eq!(sent(&out), "r6 11 12 13");
    assert!(out.iter().all(|p| !p.has_flag(flags::CWR)));
    assert_eq!(sc.window(), (8.0, 5.0));
}

/// §6.1.2's once per window holds for a retransmission timeout too, with
/// its exception: "if any retransmitted packets are dropped, then this is
/// interpreted by the source TCP as a new instance of congestion". ACK 1
/// echoes CE (cwnd = ssthresh = 5). If the timer then expires for segment
/// 1, never resent, ssthresh stays 5 and only cwnd falls to the loss
/// window (RFC 5681 (5): one segment; ns-2's timeout after an ECN action:
/// `slowdown(CLOSE_CWND_ONE)`). If segment 1 was fast retransmitted and the
/// retransmission is what the timer finds lost, that is new congestion:
/// with `timeout_in_recovery_ssthresh = "flight_size"`, RFC 5681 (4) sets
/// ssthresh = FlightSize / 2 = 4.5 (the segment was not resent "by way of
/// the retransmission timer"); with the default `"keep"` (a timeout during
/// fast recovery keeps the ssthresh it started with, as Linux) it stays 5.
#[test]
fn s6_1_2_a_timeout_in_the_window_an_ece_reduced_reduces_only_for_a_dropped_retransmission() {
    for recovery in [Recovery::NewReno, Recovery::Sack] {
        let mut sc = ecn(recovery);
        sc.start(100);
        assert_eq!(sc.deliver(&ack_ece(1, &[])), "");
        assert_eq!(sc.timeout(), "r1", "{recovery:?}");
        assert_eq!(sc.window(), (1.0, 5.0), "{recovery:?}");
    }
    for (rule, ssthresh) in [
        (TimeoutInRecoverySsthresh::FlightSize, 4.5),
        (TimeoutInRecoverySsthresh::Keep, 5.0),
    ] {
        let mut cfg = config(10);
        cfg.ecn = true;
        cfg.timeout_in_recovery_ssthresh = rule;
        let mut sc = Script::new(cfg, Recovery::NewReno);
        sc.start(100);
        assert_eq!(sc.deliver(&ack_ece(1, &[])), "");
        assert_eq!(sc.dupacks(1, 3), "r1");
        assert_eq!(sc.timeout(), "r1");
        assert_eq!(sc.window(), (1.0, ssthresh), "{rule:?}");
    }
}

/// §6.1.2: CWR after ANY window reduction, here a fast retransmit: the
/// first new data packet sent after it carries CWR.
#[test]
fn s6_1_2_cwr_after_a_fast_retransmit() {
    let mut sc = ecn(Recovery::Reno);
    sc.start(100);
    let mut first_new = None;
    for _ in 0..9 {
        for p in deliver(&mut sc, &ack(0, &[])) {
            if !p.is_retransmission && first_new.is_none() {
                first_new = Some(p);
            }
        }
    }
    let p = first_new.expect("fast recovery sends new data");
    assert_eq!(p.seq / MSS, 10);
    assert!(p.has_flag(flags::CWR));
}

/// §6.1.5: retransmitted data packets are not ECN-capable; new data is.
#[test]
fn s6_1_5_retransmissions_are_not_ect() {
    let mut sc = ecn(Recovery::NewReno);
    let mut out = Vec::new();
    sc.s.start(sc.now, &mut out);
    sc.s.app_write(sc.now, 100 * MSS, &mut out);
    assert!(out.iter().all(|p| p.ecn == Ecn::Ect0));
    sc.now = sc.s.next_deadline().unwrap();
    out.clear();
    sc.s.on_timer(sc.now, &mut out);
    assert_eq!(sent(&out), "r0");
    assert_eq!(out[0].ecn, Ecn::NotEct);
}

/// §6.1.1: the ECN-setup SYN carries ECE and CWR; the ECN-setup SYN-ACK
/// carries ECE but not CWR; a receiver without ECN answers with neither.
/// "A host MUST NOT set ECT on SYN or SYN-ACK packets": both leave
/// not-ECT, while the data after them is ECT(0).
#[test]
fn s6_1_1_ecn_setup_syn_and_syn_ack() {
    let mut cfg = config(1);
    cfg.ecn = true;
    cfg.handshake = true;
    let mut sc = Script::new(cfg, Recovery::NewReno);
    let mut out = Vec::new();
    sc.s.start(sc.now, &mut out);
    let syn = out[0];
    assert!(syn.has_flag(flags::SYN) && syn.has_flag(flags::ECE) && syn.has_flag(flags::CWR));
    assert_eq!(syn.ecn, Ecn::NotEct, "SYN");
    for (ecn, ece) in [(true, true), (false, false)] {
        let mut rx = receiver(None, ecn);
        let mut answer = Vec::new();
        rx.on_packet(sc.now, &syn, &mut answer);
        let syn_ack = answer[0];
        assert!(syn_ack.has_flag(flags::SYN) && syn_ack.has_flag(flags::ACK));
        assert_eq!(syn_ack.has_flag(flags::ECE), ece, "receiver ecn {ecn}");
        assert!(!syn_ack.has_flag(flags::CWR));
        assert_eq!(syn_ack.ecn, Ecn::NotEct, "SYN-ACK");
    }
    // The SYN-ACK establishes the connection: the first data is ECT(0).
    let mut rx = receiver(None, true);
    let mut answer = Vec::new();
    rx.on_packet(sc.now, &syn, &mut answer);
    out.clear();
    sc.s.on_packet(sc.now + STEP_NS, &answer[0], &mut out);
    sc.s.app_write(sc.now + STEP_NS, 10 * MSS, &mut out);
    assert!(!out.is_empty() && out.iter().all(|p| p.ecn == Ecn::Ect0));
}

/// §6.1.3: after a CE packet the receiver sets ECE on every ACK until a
/// packet with CWR arrives; §6.1.4: its pure ACKs are not ECN-capable.
#[test]
fn s6_1_3_receiver_echoes_ece_until_cwr_and_s6_1_4_acks_are_not_ect() {
    let mut rx = receiver(None, true);
    let mut out = Vec::new();
    rx.on_packet(STEP_NS, &data(0, Ecn::Ect0), &mut out);
    rx.on_packet(2 * STEP_NS, &data(1, Ecn::Ce), &mut out);
    rx.on_packet(3 * STEP_NS, &data(2, Ecn::Ect0), &mut out);
    let mut cwr = data(3, Ecn::Ect0);
    cwr.flags |= flags::CWR;
    rx.on_packet(4 * STEP_NS, &cwr, &mut out);
    rx.on_packet(5 * STEP_NS, &data(4, Ecn::Ect0), &mut out);
    let ece: Vec<bool> = out.iter().map(|p| p.has_flag(flags::ECE)).collect();
    assert_eq!(ece, [false, true, true, false, false]);
    assert!(out.iter().all(|p| p.ecn == Ecn::NotEct));
}

/// §6.1.3 with delayed ACKs: "If there is any ACK withholding implemented,
/// as in current "delayed-ACK" TCP implementations ..., then the ECN-Echo
/// flag in the ACK packet will be set to '1' if the CE codepoint is set in
/// any of the data packets being acknowledged", and the receiver keeps
/// setting it "in all the ACK packets it sends" until a CWR packet. The RFC
/// lets the receiver go on delaying ACKs meanwhile; it neither requires
/// nor forbids ACKing at once. Our choice (docs/tcp-conformance.md): while
/// it echoes, the receiver ACKs every in-order segment at once (RFC 5681
/// §4.2 bounds the ACK rate from below only), and from the CWR packet on
/// it delays again.
#[test]
fn s6_1_3_delayed_acks_echo_ece_for_any_ce_segment_acked_and_ack_at_once_until_cwr() {
    let delack_ns = 200 * STEP_NS;
    let mut rx = receiver(Some(delack_ns), true);
    let mut out = Vec::new();
    // Segment 0 (ECT) is held for the delayed ACK; segment 1 (CE) is ACKed
    // with segment 0, and the ACK carries ECE.
    rx.on_packet(STEP_NS, &data(0, Ecn::Ect0), &mut out);
    assert!(out.is_empty(), "segment 0 is held");
    rx.on_packet(2 * STEP_NS, &data(1, Ecn::Ce), &mut out);
    assert_eq!(acked(&out), "2");
    assert!(out[0].has_flag(flags::ECE));
    // Echoing: every in-order segment is ACKed at once, with ECE.
    out.clear();
    rx.on_packet(3 * STEP_NS, &data(2, Ecn::Ect0), &mut out);
    rx.on_packet(4 * STEP_NS, &data(3, Ecn::Ect0), &mut out);
    assert_eq!(acked(&out), "3 4");
    assert!(out.iter().all(|p| p.has_flag(flags::ECE)));
    // The CWR packet ends the echo: it is held again, and the ACK that
    // covers it and the next segment has no ECE.
    out.clear();
    let mut cwr = data(4, Ecn::Ect0);
    cwr.flags |= flags::CWR;
    rx.on_packet(5 * STEP_NS, &cwr, &mut out);
    assert!(
        out.is_empty(),
        "the CWR segment is held for the delayed ACK"
    );
    rx.on_packet(6 * STEP_NS, &data(5, Ecn::Ect0), &mut out);
    assert_eq!(acked(&out), "6");
    assert!(!out[0].has_flag(flags::ECE));
    // A CE segment that would have been held is ACKed at once, with ECE.
    out.clear();
    rx.on_packet(7 * STEP_NS, &data(6, Ecn::Ce), &mut out);
    assert_eq!(acked(&out), "7");
    assert!(out[0].has_flag(flags::ECE));
    assert_eq!(rx.next_deadline(), None, "nothing left to ACK");
}

/// §6.1.5 relaxed by the option `ecn_capable_retransmissions`, as ns-2's
/// `TcpAgent::output` did (it sets ECT on every data packet when `ecn_`):
/// the timeout's retransmission leaves ECT(0) like new data; with
/// multi-level ECN it carries `01` (no congestion), so an MECN/WMECN router
/// marks it where it would drop a not-ECT packet.
#[test]
fn s6_1_5_option_sends_retransmissions_ecn_capable() {
    for mecn in [false, true] {
        let mut cfg = config(10);
        cfg.ecn = !mecn;
        cfg.mecn = mecn;
        cfg.ecn_capable_retransmissions = true;
        let mut sc = Script::new(cfg, Recovery::NewReno);
        let mut out = Vec::new();
        sc.s.start(sc.now, &mut out);
        sc.s.app_write(sc.now, 100 * MSS, &mut out);
        let ect = if mecn {
            MecnLevel::NoCongestion.to_ip()
        } else {
            Ecn::Ect0
        };
        assert!(out.iter().all(|p| p.ecn == ect));
        sc.now = sc.s.next_deadline().unwrap();
        out.clear();
        sc.s.on_timer(sc.now, &mut out);
        assert_eq!(sent(&out), "r0");
        assert_eq!(out[0].ecn, ect, "mecn {mecn}");
    }
}

/// §6.1.2: "It is necessary to still reduce the sending rate of the TCP
/// sender even further, on receipt of an ECN-Echo packet when the
/// congestion window is one. ... the sending TCP MUST reset the retransmit
/// timer on receiving the ECN-Echo packet when the congestion window is
/// one. The sending TCP will then be able to send a new packet only when
/// the retransmit timer expires"; and it "SHOULD NOT increase the
/// congestion window in response to the receipt of an ECN-Echo ACK". With
/// an initial window of one segment, the ECN-Echo ACK of segment 0 sets
/// ssthresh to 2 SMSS (RFC 5681 (4)'s floor) but leaves cwnd at one and
/// sends nothing; the timer, reset on that ACK, expires one RTO (1 s)
/// later, and only then does segment 1 leave, new data with CWR. Nothing
/// was outstanding, so the expiry is no timeout: nothing is retransmitted
/// and the RTO is not backed off (the next expiry is again 1 s on).
#[test]
fn s6_1_2_ece_at_a_window_of_one_resets_the_timer_and_waits_for_it() {
    for recovery in [Recovery::NewReno, Recovery::Sack] {
        let mut cfg = config(1);
        cfg.ecn = true;
        let mut sc = Script::new(cfg, recovery);
        assert_eq!(sc.start(100), "0");
        let ece_at = sc.now + STEP_NS;
        assert!(
            deliver(&mut sc, &ack_ece(1, &[])).is_empty(),
            "{recovery:?}"
        );
        assert_eq!(
            sc.window(),
            (1.0, 2.0),
            "{recovery:?}: cwnd does not rise to ssthresh"
        );
        assert_eq!(sc.s.next_deadline(), Some(ece_at + RTO_NS), "{recovery:?}");
        let out = expire_timer(&mut sc);
        assert_eq!(sent(&out), "1", "{recovery:?}");
        assert!(out[0].has_flag(flags::CWR) && !out[0].is_retransmission);
        assert_eq!(sc.s.core.stats.timeouts, 0, "{recovery:?}");
        assert_eq!(
            sc.s.next_deadline(),
            Some(ece_at + 2 * RTO_NS),
            "{recovery:?}: not backed off"
        );
        assert_eq!(sc.window(), (1.0, 2.0));
    }
}

/// §6.1.2 with a window larger than one: the usual reduction, no hold (the
/// rule above is for a window of one only): the ECN-Echo ACK of segment 0
/// of an initial window of 2 makes ssthresh = cwnd = 2 SMSS and segment 2
/// leaves on the same ACK.
#[test]
fn s6_1_2_ece_above_a_window_of_one_does_not_wait_for_the_timer() {
    let mut cfg = config(2);
    cfg.ecn = true;
    let mut sc = Script::new(cfg, Recovery::NewReno);
    assert_eq!(sc.start(100), "0 1");
    let out = deliver(&mut sc, &ack_ece(1, &[]));
    assert_eq!(sent(&out), "2");
    assert_eq!(sc.window(), (2.0, 2.0));
}

/// An ECN sender with an initial window of 2 whose cwnd a mark may take to
/// one segment (`mark_min_cwnd = 1`), segments 0 and 1 sent.
fn ecn_halving_to_one() -> Script {
    let mut cfg = config(2);
    cfg.ecn = true;
    cfg.mark_window_floor = MarkWindowFloor::OneSegment;
    let mut sc = Script::new(cfg, Recovery::NewReno);
    assert_eq!(sc.start(100), "0 1");
    sc
}

/// §6.1.2: "the TCP source halves the congestion window "cwnd" and reduces
/// the slow start threshold "ssthresh"". With `mark_min_cwnd = 1` the halving
/// is not held at two segments (ns-2's `slowdown`, and the reading the
/// section's own rule for "when the congestion window is one" needs):
/// the ECN-Echo ACK of segment 0 of a window of 2 leaves cwnd at one
/// segment and ssthresh at RFC 5681's 2 SMSS, so nothing leaves while
/// segment 1 is outstanding (the default keeps two: segment 2 leaves at
/// once, `s6_1_2_ece_above_a_window_of_one_does_not_wait_for_the_timer`).
/// The next ACK, unmarked, is slow start (cwnd 1 < ssthresh 2): cwnd 2,
/// and segments 2 and 3 leave, the first with CWR.
#[test]
fn s6_1_2_option_ece_halves_a_window_of_two_to_one() {
    let mut sc = ecn_halving_to_one();
    assert!(deliver(&mut sc, &ack_ece(1, &[])).is_empty());
    assert_eq!(sc.window(), (1.0, 2.0));
    assert_eq!(sc.s.core.stats.ecn_reductions, 1);
    let out = deliver(&mut sc, &ack(2, &[]));
    assert_eq!(sent(&out), "2 3");
    assert!(out[0].has_flag(flags::CWR) && !out[1].has_flag(flags::CWR));
    assert_eq!(sc.window(), (2.0, 2.0));
}

/// §6.1.2 with `mark_min_cwnd = 1`, the window after the halving above:
/// congestion persists, and the sender keeps backing off ("MUST reset the
/// retransmit timer on receiving the ECN-Echo packet when the congestion
/// window is one. The sending TCP will then be able to send a new packet
/// only when the retransmit timer expires"). An ECN-Echo for segment 2
/// (the next window) halves 2 to 1; the one for segment 3, sent before
/// that reduction, is the same window and changes nothing, and segment 4
/// leaves with CWR; the one for segment 4 finds cwnd at one: nothing
/// leaves, though nothing is outstanding, until the timer reset on that
/// ACK expires one RTO later and segment 5 leaves (new data, no backoff).
#[test]
fn s6_1_2_option_a_halving_reaches_one_and_the_next_mark_waits_for_the_timer() {
    let mut sc = ecn_halving_to_one();
    deliver(&mut sc, &ack_ece(1, &[]));
    assert_eq!(sent(&deliver(&mut sc, &ack(2, &[]))), "2 3");
    assert!(deliver(&mut sc, &ack_ece(3, &[])).is_empty());
    assert_eq!(sc.window(), (1.0, 2.0));
    let out = deliver(&mut sc, &ack_ece(4, &[]));
    assert_eq!(sent(&out), "4");
    assert!(out[0].has_flag(flags::CWR));
    assert_eq!(
        (sc.window(), sc.s.core.stats.ecn_reductions),
        ((1.0, 2.0), 2)
    );
    let held_at = sc.now + STEP_NS;
    assert!(deliver(&mut sc, &ack_ece(5, &[])).is_empty());
    assert_eq!(sc.s.core.stats.ecn_reductions, 3);
    assert_eq!(sc.window(), (1.0, 2.0));
    assert_eq!(sc.s.next_deadline(), Some(held_at + RTO_NS));
    let out = expire_timer(&mut sc);
    assert_eq!(sent(&out), "5");
    assert!(out[0].has_flag(flags::CWR) && !out[0].is_retransmission);
    assert_eq!(sc.s.core.stats.timeouts, 0);
}

/// §6.1.5: "the TCP data receiver SHOULD ignore the ECN field on arriving
/// data packets that are outside of the receiver's current window". After
/// segments 0 and 1, a CE-marked copy of segment 0 (wholly below RCV.NXT)
/// is answered by a duplicate ACK without ECN-Echo, and the next segment's
/// ACK has none either; a CE mark on a segment inside the window is echoed.
#[test]
fn s6_1_5_receiver_ignores_ce_on_a_segment_outside_its_window() {
    let mut rx = receiver(None, true);
    let mut out = Vec::new();
    rx.on_packet(STEP_NS, &data(0, Ecn::Ect0), &mut out);
    rx.on_packet(2 * STEP_NS, &data(1, Ecn::Ect0), &mut out);
    rx.on_packet(3 * STEP_NS, &data(0, Ecn::Ce), &mut out);
    rx.on_packet(4 * STEP_NS, &data(2, Ecn::Ect0), &mut out);
    assert_eq!(acked(&out), "1 2 2 3");
    assert!(out.iter().all(|p| !p.has_flag(flags::ECE)));
    out.clear();
    rx.on_packet(5 * STEP_NS, &data(3, Ecn::Ce), &mut out);
    assert_eq!(acked(&out), "4");
    assert!(out[0].has_flag(flags::ECE));
}
