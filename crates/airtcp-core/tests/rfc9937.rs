//! RFC 9937, Proportional Rate Reduction for TCP (option
//! `proportional_rate_reduction`): §6.1's initialization, §6.2's per-ACK
//! steps (the proportional part, PRR-CRB, PRR-SSRB and SafeACK, the forced
//! fast retransmit), §6.3's prr_out, §6.4's completion, and §8's two
//! worked examples in SACK loss recovery; then the same steps in Reno's
//! and NewReno's fast recovery without SACK (§6.2's DeliveredData and
//! inflight estimated from duplicate ACKs, at most RecoverFS), scripted
//! sans-I/O (segments of 1000 bytes; SACK blocks are inclusive segment
//! ranges, `tests/common/script.rs`). Each exchange is also run without
//! the option where RFC 6675 §5 (or RFC 6582) gives a different answer.

mod common;
use airtcp_core::tcp::core::SenderConfig;
use airtcp_core::tcp::recovery::PrrEpisode;
use common::script::*;

/// §8's setting: Reno, cwnd = FlightSize = 20 segments, Limited Transmit
/// on; the option as given.
fn section8_config(prr: bool) -> SenderConfig {
    let mut cfg = config(20);
    cfg.limited_transmit = true;
    cfg.proportional_rate_reduction = prr;
    cfg
}

fn section8_sender(prr: bool, recovery: Recovery) -> Script {
    let mut sc = Script::new(section8_config(prr), recovery);
    assert_eq!(sc.start(100), range(0, 19));
    sc
}

/// inflight (RFC 6675's pipe) in segments.
fn inflight(sc: &Script) -> u64 {
    sc.s.core.sb.pipe() / MSS
}

/// One column of §8's figures: the ACK, then cwnd and inflight "after
/// processing each returning ACK but before further (re)transmission" and
/// what was sent. The script sends as it processes, so inflight before
/// sending is inflight after it less what went out.
fn column(sc: &mut Script, ack_no: u64, sacks: &[(u64, u64)]) -> (u64, u64, String) {
    let sent = sc.ack(ack_no, sacks);
    let segments_sent = sent.split_whitespace().count() as u64;
    (sc.s.core.w.cwnd / MSS, inflight(sc) - segments_sent, sent)
}

/// The ACKs of §8 Figure 1: segment 0 lost; ACK#1..#19 SACK segments
/// 1..19, ACK#20 and #21 the two Limited Transmit segments 20 and 21.
fn figure1_ack(k: u64) -> [(u64, u64); 1] {
    [(1, k)]
}

/// §8 Figure 1 (single loss), with PRR. The figure counts whole segments
/// (its "out" rounds up to a segment: cwnd 19 on ACK#3, new data on every
/// other ACK from ACK#5); §6.2 counts bytes ("prr_delivered ... Total
/// bytes delivered", and §13 warns against changing "from counting bytes
/// to segments"), and RFC 6675 sends a segment only when cwnd - pipe >= 1
/// SMSS. In bytes, with RecoverFS = 20 segments and ssthresh = 10, each
/// ACK adds DIV_ROUND_UP(prr_delivered * ssthresh, RecoverFS) = half a
/// segment: cwnd = inflight + (k - 2) * SMSS / 2 - prr_out on ACK#k (18.5
/// segments on ACK#3, 18 on ACK#4, ...), and a new segment leaves on the
/// even ACKs #6..#16, once a whole SMSS has accrued: one ACK after the
/// figure's. On the even ACKs cwnd is the figure's (18, 17, 16, ..., 12).
/// Inflight reaches ssthresh on ACK#18 (the figure: ACK#20); from there
/// PRR-CRB (MIN(ssthresh - inflight, ...)) holds it there: one new
/// segment per ACK on #19-#21. ACK#22 ends recovery with cwnd = ssthresh
/// (§6.4) and one more segment. As in the figure, PRR sends the same
/// total as RFC 6675 (the retransmission and ten new segments) and ends
/// with cwnd = ssthresh = 10.
#[test]
fn s8_figure1_single_loss_prr() {
    let mut sc = section8_sender(true, Recovery::Sack);
    // cwnd in bytes and inflight in segments after ACK#k, before sending.
    let cwnd_bytes = [
        20000, 20000, 18500, 18000, 17500, 17000, 16500, 16000, 15500, 15000, 14500, 14000, 13500,
        13000, 12500, 12000, 11500, 10000, 10000, 10000, 10000,
    ];
    let pipe = [
        19, 19, 18, 18, 17, 16, 16, 15, 15, 14, 14, 13, 13, 12, 12, 11, 11, 10, 9, 9, 9,
    ];
    let mut next_new = 20;
    for k in 1..=21u64 {
        let expected_sent = match k {
            1 | 2 | 6 | 8 | 10 | 12 | 14 | 16 | 19 | 20 | 21 => {
                next_new += 1;
                (next_new - 1).to_string()
            }
            3 => "r0".to_string(),
            _ => String::new(),
        };
        let (_, i, s) = column(&mut sc, 0, &figure1_ack(k));
        let at = k as usize - 1;
        assert_eq!(
            (sc.s.core.w.cwnd, i, s.as_str()),
            (cwnd_bytes[at], pipe[at], expected_sent.as_str()),
            "ACK#{k}"
        );
        if k >= 3 {
            assert_eq!(sc.ssthresh(), 10.0, "ACK#{k}");
        }
    }
    // ACK#22: the full cumulative ACK through the limited transmits.
    let (c, i, s) = column(&mut sc, 22, &[]);
    assert_eq!((c, i, s.as_str()), (10, 9, "31"), "ACK#22");
    assert!(!sc.s.core.in_recovery);
    assert_eq!(sc.s.core.stats.segments_sent, 20 + 2 + 1 + 10);
}

/// §8 Figure 1, the RFC 6675 rows the option leaves in place: "c 20 20 10
/// ...", "i 19 19 18 18 17 16 ... 10 9 9 ...", nothing sent from ACK#4 to
/// ACK#12 (the "half window of silence"), then new data on every ACK.
#[test]
fn s8_figure1_single_loss_rfc6675_without_the_option() {
    let mut sc = section8_sender(false, Recovery::Sack);
    let mut next_new = 20;
    for k in 1..=21u64 {
        let (c, i, s) = column(&mut sc, 0, &figure1_ack(k));
        let expected_cwnd = if k < 3 { 20 } else { 10 };
        let expected_pipe = match k {
            1 | 2 => 19,
            3 => 18,
            4..=13 => 22 - k,
            _ => 9,
        };
        let expected_sent = match k {
            3 => "r0".to_string(),
            4..=12 => String::new(),
            _ => {
                next_new += 1;
                (next_new - 1).to_string()
            }
        };
        assert_eq!(
            (c, i, s),
            (expected_cwnd, expected_pipe, expected_sent),
            "ACK#{k}"
        );
    }
}

/// §6.1: on entering recovery (ACK#3 of §8 Figure 1) prr_delivered =
/// prr_out = 0 and RecoverFS = SND.NXT - SND.UNA (22 segments with the two
/// limited transmits) - bytes SACKed in the scoreboard (3) + bytes newly
/// SACKed (1) + bytes newly cumulatively acknowledged (0) = 20 segments;
/// then §6.2 on the same ACK: prr_delivered = DeliveredData = 1 segment,
/// and §6.3: prr_out = the fast retransmission, 1 segment.
#[test]
fn s6_1_initialization_recoverfs_prr_delivered_prr_out() {
    let mut sc = section8_sender(true, Recovery::Sack);
    sc.ack(0, &[(1, 1)]);
    sc.ack(0, &[(1, 2)]);
    assert_eq!(
        sc.s.core.prr_episode(),
        PrrEpisode::default(),
        "no episode yet"
    );
    assert_eq!(sc.ack(0, &[(1, 3)]), "r0");
    assert_eq!(
        sc.s.core.prr_episode(),
        PrrEpisode {
            recover_fs_bytes: 20 * MSS,
            prr_delivered_bytes: MSS,
            prr_out_bytes: MSS,
            ..PrrEpisode::default()
        }
    );
    // §6.3 counts new data too: ACK#6 sends segment 22.
    for k in 4..=5 {
        assert_eq!(sc.ack(0, &[(1, k)]), "");
    }
    assert_eq!(sc.ack(0, &[(1, 6)]), "22");
    assert_eq!(sc.s.core.prr_episode().prr_out_bytes, 2 * MSS);
    assert_eq!(sc.s.core.prr_episode().prr_delivered_bytes, 4 * MSS);
}

/// §8 Figure 2 (segments 0-14 lost, five ACKs return), PRR rows: "c 20 20
/// 5 5 5", "i 19 19 4 4 4", "s N N R R R": inflight (4) is below
/// ssthresh (10) from the start, so PRR-CRB (§6.2: SndCnt =
/// MAX(prr_delivered - prr_out, DeliveredData), at most ssthresh -
/// inflight) sends one segment per segment delivered. RFC 6675 (without
/// the option): cwnd 10, "6R" at once on ACK#17, then one per ACK.
#[test]
fn s8_figure2_burst_loss_crb_and_rfc6675() {
    let prr = [
        (20, 19, "20"),
        (20, 19, "21"),
        (5, 4, "r0"),
        (5, 4, "r1"),
        (5, 4, "r2"),
    ];
    assert_figure2_columns(true, Recovery::Sack, prr);
    let rfc6675 = [
        (20, 19, "20"),
        (20, 19, "21"),
        (10, 4, "r0 r1 r2 r3 r4 r5"),
        (10, 9, "r6"),
        (10, 9, "r7"),
    ];
    assert_figure2_columns(false, Recovery::Sack, rfc6675);
}

/// §8 Figure 2's five returning ACKs (SACKs of segments 15..15+k, segments
/// 0-14 lost): each column (cwnd, inflight before sending, sent) as given.
/// Returns the sender, still in recovery.
fn assert_figure2_columns(prr: bool, recovery: Recovery, rows: [(u64, u64, &str); 5]) -> Script {
    let mut sc = section8_sender(prr, recovery);
    for (k, row) in (15..=19u64).zip(rows) {
        let (c, i, s) = column(&mut sc, 0, &[(15, k)]);
        assert_eq!((c, i, s.as_str()), row, "prr {prr}, ACK#{k}");
    }
    assert!(sc.s.core.in_recovery);
    sc
}

/// §8 Figure 2 continued ("once the fast retransmits sent starting at
/// ACK#17 are delivered and elicit ACKs that increment the SND.UNA, PRR
/// enters PRR-SSRB and increases the window by exactly 1 segment per
/// ACK"): §6.2's SafeACK (SND.UNA advances, no further loss indicated)
/// adds SMSS to PRR-CRB's SndCnt, so each such ACK sends two segments
/// where a SACK-only ACK (ACK#18, #19) sent one.
#[test]
fn s6_2_ssrb_on_a_safe_ack() {
    let mut sc = section8_sender(true, Recovery::Sack);
    for k in 15..=19u64 {
        sc.ack(0, &[(15, k)]);
    }
    // The retransmission of segment 0 arrives: SND.UNA advances by one
    // segment, no new segment is marked lost. inflight = r1 r2 20 21 = 4;
    // SndCnt = MIN(10 - 4, MAX(4 - 3, 1) + 1) = 2: cwnd = 6.
    assert_eq!(sc.ack(1, &[(15, 19)]), "r3 r4");
    assert_eq!(sc.cwnd(), 6.0);
    assert_eq!(sc.ack(2, &[(15, 19)]), "r5 r6");
    assert_eq!(sc.cwnd(), 7.0);
    assert_eq!(sc.s.core.prr_episode().prr_out_bytes, 7 * MSS);
    assert_eq!(sc.s.core.prr_episode().prr_delivered_bytes, 5 * MSS);
}

/// §6.2: "SafeACK is true only when the ACK has cumulatively acknowledged
/// new data and the ACK does not indicate further losses". As §8 Figure 2
/// with segment 16 lost too: recovery starts on the SACK of segment 18
/// (cwnd = inflight 4 + 1, "r0"); the ACK of that retransmission advances
/// SND.UNA but its SACK of segment 19 marks segment 16 lost, so PRR-CRB
/// alone applies: DeliveredData = 2 (segment 0 and 19), prr_delivered = 3,
/// prr_out = 1, inflight = 20 and 21 = 2: SndCnt = MIN(10 - 2, MAX(3 - 1,
/// 2)) = 2, not 3.
#[test]
fn s6_2_no_ssrb_when_the_ack_marks_a_new_loss() {
    let mut sc = section8_sender(true, Recovery::Sack);
    assert_eq!(sc.ack(0, &[(15, 15)]), "20");
    assert_eq!(sc.ack(0, &[(15, 15), (17, 17)]), "21");
    assert_eq!(sc.ack(0, &[(15, 15), (17, 18)]), "r0");
    assert_eq!((sc.cwnd(), inflight(&sc)), (5.0, 5));
    let marks_before = sc.s.core.sb.loss_marks();
    assert_eq!(sc.ack(1, &[(15, 15), (17, 19)]), "r1 r2");
    assert_eq!(sc.s.core.sb.loss_marks(), marks_before + 1, "segment 16");
    assert_eq!(sc.cwnd(), 4.0);
    assert_eq!(sc.s.core.prr_episode().prr_delivered_bytes, 3 * MSS);
}

/// §6.2, "if (prr_out is 0 AND SndCnt is 0) { SndCnt = SMSS }": with
/// segments 0-6 lost out of 20 (no Limited Transmit), the third duplicate
/// ACK finds inflight = 20 - 3 SACKed - 7 lost = 10 = ssthresh, so PRR-CRB
/// gives SndCnt = MIN(ssthresh - inflight, 1) = 0; the forced fast
/// retransmit makes it one SMSS: cwnd = inflight + 1 = 11.
#[test]
fn s6_2_forced_fast_retransmit_when_sndcnt_is_zero() {
    let mut cfg = config(20);
    cfg.proportional_rate_reduction = true;
    let mut sc = Script::new(cfg, Recovery::Sack);
    assert_eq!(sc.start(100), range(0, 19));
    sc.ack(0, &[(7, 7)]);
    sc.ack(0, &[(7, 8)]);
    assert_eq!(sc.ack(0, &[(7, 9)]), "r0");
    assert_eq!(sc.window(), (11.0, 10.0));
    assert_eq!(sc.s.core.prr_episode().prr_out_bytes, MSS);
}

/// §6.2, "if (DeliveredData is 0) Return": an ACK that delivers nothing
/// new (the same SACK blocks again) leaves cwnd and the PRR state as they
/// were and sends nothing (in §8 Figure 1 after ACK#5, cwnd 17.5).
#[test]
fn s6_2_nothing_delivered_changes_nothing() {
    let mut sc = section8_sender(true, Recovery::Sack);
    for k in 1..=5u64 {
        sc.ack(0, &figure1_ack(k));
    }
    let before = (sc.s.core.w.cwnd, sc.s.core.prr_episode());
    assert_eq!(before.0, 17500);
    assert_eq!(sc.ack(0, &figure1_ack(5)), "");
    assert_eq!((sc.s.core.w.cwnd, sc.s.core.prr_episode()), before);
}

/// §6.4: "On the completion of a PRR episode ... cwnd = ssthresh". In §8
/// Figure 2 PRR-CRB left cwnd at 5; the ACK that covers RecoveryPoint ends
/// recovery with cwnd = ssthresh = 10 (without the option cwnd already
/// was ssthresh throughout).
#[test]
fn s6_4_completion_sets_cwnd_to_ssthresh() {
    let mut sc = section8_sender(true, Recovery::Sack);
    for k in 15..=19u64 {
        sc.ack(0, &[(15, k)]);
    }
    assert_eq!(sc.cwnd(), 5.0);
    sc.ack(22, &[]);
    assert!(!sc.s.core.in_recovery);
    assert_eq!(sc.window(), (10.0, 10.0));
}

/// A retransmission timeout during recovery ends it (RFC 6675 §5.1, RFC
/// 5681 (4)-(6)): cwnd = 1 SMSS, and PRR (§6.2-6.3 apply "during fast
/// recovery") neither counts what the timer's recovery sends nor sets
/// cwnd on its ACKs: slow start, as without the option.
#[test]
fn timeout_during_recovery_ends_the_episode() {
    let run = |prr: bool| {
        let mut sc = section8_sender(prr, Recovery::Sack);
        for k in 15..=19u64 {
            sc.ack(0, &[(15, k)]);
        }
        let rto = sc.timeout();
        let prr_out_after_timeout = sc.s.core.prr_episode().prr_out_bytes;
        let mut log = vec![(rto, sc.window())];
        for n in 1..=4u64 {
            log.push((sc.ack(n, &[(15, 21)]), sc.window()));
        }
        assert!(!sc.s.core.in_recovery);
        (
            log,
            prr_out_after_timeout == sc.s.core.prr_episode().prr_out_bytes,
        )
    };
    let (with_prr, prr_out_frozen) = run(true);
    assert!(prr_out_frozen, "no prr_out counted outside the episode");
    assert_eq!(with_prr[0].1 .0, 1.0, "cwnd = 1 SMSS after the timeout");
    assert_eq!(with_prr, run(false).0);
}

/// §5: PRR "MAY be used in conjunction with" RACK-TLP (RECOMMENDED), whose
/// losses start the same SACK recovery. §8 Figure 2's losses (segments
/// 0-14 of 20) under RACK-TLP's detection: no RTT has been measured, so
/// RACK.reo_wnd is 0 (RFC 8985 §6.2 step 4 scales min_RTT) and the first
/// SACK (segment 15) marks segments 0-14 lost, sent before it and RACK.rtt
/// ago: recovery starts on ACK#15, with nothing for Limited Transmit.
/// RecoverFS = 20, inflight = 20 - 1 SACKed - 15 lost = 4 < ssthresh 10:
/// PRR-CRB sends one retransmission per segment delivered (cwnd 5, "R" on
/// each ACK, as Figure 2's PRR rows from ACK#17). Without the option,
/// cwnd = ssthresh = 10 at once: six retransmissions on ACK#15.
#[test]
fn s5_prr_with_rack_tlp_figure2_losses() {
    let prr = [
        (5, 4, "r0"),
        (5, 4, "r1"),
        (5, 4, "r2"),
        (5, 4, "r3"),
        (5, 4, "r4"),
    ];
    let rfc6675 = [
        (10, 4, "r0 r1 r2 r3 r4 r5"),
        (10, 9, "r6"),
        (10, 9, "r7"),
        (10, 9, "r8"),
        (10, 9, "r9"),
    ];
    for (on, rows) in [(true, prr), (false, rfc6675)] {
        let mut sc = assert_figure2_columns(on, Recovery::RackTlp, rows);
        // §6.4 on the ACK that covers RecoveryPoint (segment 20).
        sc.ack(20, &[]);
        assert_eq!(sc.window(), (10.0, 10.0), "prr {on}");
    }
}

/// §6.1 and §6.2 when RACK-TLP's reordering timer (RFC 8985 §6.3), not
/// an ACK, starts recovery. The setting of `rfc8985.rs`'s timer test (times
/// in ms; segments 0-9 sent at 1, 10 and 11 at 101 on ACK 1; the SACK of
/// segment 2 at 102 arms the timer for 127; ssthresh = FlightSize 11 / 2 =
/// 5.5 segments). §6.1 at 127: RecoverFS = SND.NXT - SND.UNA (11) - SACKed
/// (1) + newly SACKed (0, no ACK) + newly cumulatively acknowledged (0) =
/// 10 segments. §6.2 has no ACK to step on; the episode's first step takes
/// DeliveredData = 0: inflight 9 > ssthresh gives SndCnt = CEIL(0) - 0 =
/// 0, and "if (prr_out is 0 AND SndCnt is 0) ... Force a fast retransmit
/// upon entering recovery": cwnd = 9 + 1 = 10 segments, "r1". Then the
/// SACKs of segments 3-6 (one segment delivered each; RACK marks nothing:
/// segments 4-11 were sent with or after each SACKed one) take the
/// proportional part in bytes: out = CEIL(prr_delivered · 5500 / 10000) =
/// 550, 1100, 1650, 2200 against prr_out 1000, inflight 9, 8, 7, 6
/// segments: cwnd = 8550, 8100, 7650, 7200 bytes, and on the fourth
/// cwnd - pipe >= 1 SMSS: new segment 12. RFC 6675 (without the option):
/// cwnd = 5.5 segments from the timer on, nothing sent while pipe > 4.5.
#[test]
fn s6_1_rack_reordering_timer_starts_an_episode_with_the_forced_retransmit() {
    use airtcp_core::sim::NS_PER_MS;
    let ack_at = |sc: &mut Script, t_ms: u64, n: u64, sacks: &[(u64, u64)], echo_ms: u64| {
        sc.deliver_at(t_ms * NS_PER_MS, &ack_ts(n, sacks, echo_ms * NS_PER_MS))
    };
    for prr in [true, false] {
        let mut cfg = config(10);
        cfg.timestamps = true;
        cfg.proportional_rate_reduction = prr;
        let mut sc = Script::new(cfg, Recovery::RackTlp);
        assert_eq!(sc.start(30), range(0, 9));
        assert_eq!(ack_at(&mut sc, 101, 1, &[], 1), "10 11");
        assert_eq!(ack_at(&mut sc, 102, 1, &[(2, 2)], 1), "");
        assert_eq!(sc.s.next_deadline(), Some(127 * NS_PER_MS));
        assert_eq!(sc.timeout(), "r1", "prr {prr}");
        assert!(sc.s.core.in_recovery);
        assert_eq!(sc.ssthresh(), 5.5);
        if prr {
            let episode = sc.s.core.prr_episode();
            assert_eq!(
                (
                    episode.recover_fs_bytes,
                    episode.prr_delivered_bytes,
                    episode.prr_out_bytes
                ),
                (10 * MSS, 0, MSS)
            );
            assert_eq!(sc.s.core.w.cwnd, 10 * MSS);
        } else {
            assert_eq!(sc.cwnd(), 5.5);
        }
        let expected: [(u64, &str); 4] = if prr {
            [(8550, ""), (8100, ""), (7650, ""), (7200, "12")]
        } else {
            [(5500, ""), (5500, ""), (5500, ""), (5500, "")]
        };
        for (k, (cwnd_bytes, sent)) in (3..=6u64).zip(expected) {
            let s = ack_at(&mut sc, 125 + k, 1, &[(2, k)], 1);
            assert_eq!(
                (sc.s.core.w.cwnd, s.as_str()),
                (cwnd_bytes, sent),
                "prr {prr}, SACK 2-{k}"
            );
        }
        if prr {
            assert_eq!(sc.s.core.prr_episode().prr_out_bytes, 2 * MSS);
        }
    }
}

/// §6.2: "SafeACK is true only when the ACK has cumulatively acknowledged
/// new data and the ACK does not indicate further losses. For example, an
/// ACK triggering "rescue" retransmission (Section 4 of [RFC6675],
/// NextSeg() condition 4) may indicate further losses." Read as: an ACK
/// after which NextSeg()'s answer is rule (4) is not a SafeACK (option
/// `rescue_retransmission`). Twenty segments, all the application has;
/// 0-14 lost, the SACKs of 15-17 start recovery (RecoverFS 18, inflight 2,
/// ssthresh 10: PRR-CRB, one retransmission per segment delivered), 18 and
/// 19 arrive. Then the ACKs of the retransmissions: each advances SND.UNA
/// and marks no loss, so PRR-SSRB adds a segment, two retransmissions per
/// ACK, until r14 is out (prr_delivered 9, prr_out 15). On the next
/// (SND.UNA 7) rules (1)-(3) have nothing left and HighACK > RescueRxt:
/// NextSeg() is the rescue retransmission of segment 14. Not a SafeACK:
/// SndCnt = MIN(10 - 8, MAX(10 - 15, 1)) = 1, cwnd = inflight 8 + 1 = 9
/// (a SafeACK would give 10). Without the rescue option the same ACK is
/// a SafeACK (cwnd 10) and sends nothing.
#[test]
fn s6_2_an_ack_leading_to_a_rescue_retransmission_is_not_a_safe_ack() {
    for rescue in [true, false] {
        let mut cfg = config(20);
        cfg.proportional_rate_reduction = true;
        cfg.rescue_retransmission = rescue;
        let mut sc = Script::new(cfg, Recovery::Sack);
        assert_eq!(sc.start(20), range(0, 19));
        assert_eq!(sc.ack(0, &[(15, 15)]), "");
        assert_eq!(sc.ack(0, &[(15, 16)]), "");
        assert_eq!(sc.ack(0, &[(15, 17)]), "r0");
        assert_eq!((sc.cwnd(), inflight(&sc)), (3.0, 3));
        assert_eq!(sc.ack(0, &[(15, 18)]), "r1");
        assert_eq!(sc.ack(0, &[(15, 19)]), "r2");
        for (n, sent) in [(1, "r3 r4"), (2, "r5 r6"), (3, "r7 r8")] {
            assert_eq!(sc.ack(n, &[(15, 19)]), sent, "rescue {rescue}, ACK {n}");
        }
        for (n, sent) in [(4, "r9 r10"), (5, "r11 r12"), (6, "r13 r14")] {
            assert_eq!(sc.ack(n, &[(15, 19)]), sent, "rescue {rescue}, ACK {n}");
        }
        let episode = sc.s.core.prr_episode();
        assert_eq!(
            (episode.prr_delivered_bytes, episode.prr_out_bytes),
            (9 * MSS, 15 * MSS)
        );
        let (sent, cwnd) = if rescue { ("r14", 9.0) } else { ("", 10.0) };
        assert_eq!(sc.ack(7, &[(15, 19)]), sent, "rescue {rescue}");
        assert_eq!(sc.cwnd(), cwnd, "rescue {rescue}");
    }
}

// ---------------------------------------------------------------------
// Without SACK (Reno, NewReno). The setting of every test below: ten
// segments sent (initial window 10, no Limited Transmit, a hundred to
// send), the ACKs without SACK, RenoCc: at the third duplicate ACK
// ssthresh = FlightSize / 2 = 5 segments (RFC 5681 (4)). The duplicate ACKs
// since SND.UNA last advanced stand for the SACKed bytes (the reading of
// §6.2's text in `recovery/prr.rs`): §6.1's RecoverFS = SND.NXT - SND.UNA
// - the two duplicate ACKs before the third = 8 segments (RFC 6675's pipe
// before that ACK, as with SACK). §6.2: DeliveredData = 1 SMSS per
// duplicate ACK; an advance of SND.UNA takes out of the estimate the
// segments it covered but the first (never reported: lost) and delivers
// the rest; at most RecoverFS in all. inflight = SND.NXT - SND.UNA - the
// estimate (at most RecoverFS + the two before the episode = what was
// outstanding at its start) - the segment marked lost and not yet
// retransmitted (the segment at SND.UNA, on the ACK that starts recovery
// and on a partial ACK, whose §6.2 step runs before its retransmission).
// cwnd = inflight + SndCnt; the sender sends while inflight + SMSS <=
// cwnd, i.e. up to SND.UNA + cwnd + the estimate. Numbers in bytes (SMSS
// = 1000).

/// Ten segments out, PRR as given, the recovery as given.
fn no_sack_sender(prr: bool, recovery: Recovery) -> Script {
    let mut cfg = config(10);
    cfg.proportional_rate_reduction = prr;
    let mut sc = Script::new(cfg, recovery);
    assert_eq!(sc.start(100), range(0, 9));
    sc
}

/// An episode's state, in segments: RecoverFS, prr_delivered, prr_out,
/// the duplicate ACKs' estimate and its bound (10: what was outstanding at
/// the start).
fn episode(recover_fs: u64, delivered: u64, out: u64, dupacks: u64, cap: u64) -> PrrEpisode {
    PrrEpisode {
        recover_fs_bytes: recover_fs * MSS,
        prr_delivered_bytes: delivered * MSS,
        prr_out_bytes: out * MSS,
        dupack_bytes: dupacks * MSS,
        dupack_cap_bytes: cap * MSS,
    }
}

/// Duplicate ACKs of segment 0 (numbered from 1): what each sent and cwnd
/// in bytes after it.
fn dupacks_of_0(sc: &mut Script, rows: &[(&str, u64)], first: usize, label: &str) {
    for (k, &(sent, cwnd)) in rows.iter().enumerate() {
        let s = sc.ack(0, &[]);
        assert_eq!(
            (s.as_str(), sc.s.core.w.cwnd),
            (sent, cwnd),
            "{label}, duplicate ACK {}",
            first + k
        );
    }
}

/// What each of `newreno_nine_dupacks`' duplicate ACKs sends, and cwnd
/// after it.
const NEWRENO_NINE_DUPACKS: [(&str, u64); 9] = [
    ("", 10000),
    ("", 10000),
    ("r0", 6625),
    ("", 6250),
    ("", 5000),
    ("10", 5000),
    ("11", 5000),
    ("12", 5000),
    ("13", 5000),
];

/// §6.2 without SACK, NewReno's first nine duplicate ACKs (segment 0
/// lost, segments 1-9 arrive), shared by the tests below.
///
/// * DupACK 1, 2: not in recovery (RFC 6582 step 1), nothing sent.
/// * DupACK 3 (§6.1, then §6.2 on it): RecoverFS 8000, the estimate 2000
///   plus 1000; DeliveredData = 1000 = prr_delivered; inflight = 10000 -
///   3000 - 1000 (segment 0, marked lost, not yet retransmitted) = 6000 >
///   ssthresh 5000: SndCnt = DIV_ROUND_UP(1000 * 5000, 8000) - 0 = 625,
///   cwnd = 6625. The fast retransmit "r0" (RFC 6582 step 2, sent whatever
///   SndCnt) makes prr_out 1000; reach 0 + 6625 + 3000 < SND.NXT + SMSS.
/// * DupACK 4: prr_delivered 2000, inflight = 10000 - 4000 = 6000: SndCnt
///   = 1250 - 1000 = 250, cwnd 6250 (reach 10250: no whole segment).
/// * DupACK 5: 3000, inflight 5000, not above ssthresh: PRR-CRB, SndCnt =
///   MIN(5000 - 5000, MAX(3000 - 1000, 1000)) = 0, cwnd 5000.
/// * DupACKs 6-9: prr_delivered 4000 .. 7000, inflight SND.NXT - 6000 ..
///   9000 = 4000 each time: SndCnt = MIN(1000, MAX(prr_delivered -
///   prr_out, 1000)) = 1000, cwnd 5000, reach SND.NXT + 1000: one new
///   segment each, 10 .. 13 (prr_out 5000).
fn newreno_nine_dupacks(sc: &mut Script) {
    dupacks_of_0(sc, &NEWRENO_NINE_DUPACKS, 1, "PRR");
    assert_eq!(sc.ssthresh(), 5.0);
    assert_eq!(sc.s.core.prr_episode(), episode(8, 7, 5, 9, 10));
}

/// §5 ("PRR ... without SACK"), §6.1-§6.4 with NewReno (RFC 6582) and one
/// loss: segment 0 lost, the duplicate ACKs of segments 1-9 (derivation at
/// `newreno_nine_dupacks`: cwnd 6625, 6250, 5000 from the third, "r0",
/// new segments 10-13), then the ACK of the retransmission covers
/// `recover` (segment 10): §6.4 ends the episode with cwnd = ssthresh =
/// 5000; FlightSize 4000 (segments 10-13): segment 14 goes out.
/// Without the option (RFC 6582 steps 2-4): cwnd = ssthresh + 3 SMSS =
/// 8000 at the third duplicate ACK, + 1000 per further one (a new segment
/// from the sixth, when cwnd passes FlightSize: 10, 11, 12, 13), and the
/// full ACK sets cwnd = min(ssthresh, max(FlightSize 4000, SMSS) + SMSS) =
/// 5000: segment 14.
#[test]
fn s6_newreno_without_sack_single_loss() {
    let mut sc = no_sack_sender(true, Recovery::NewReno);
    newreno_nine_dupacks(&mut sc);
    assert!(sc.s.core.in_recovery);
    assert_eq!(sc.ack(10, &[]), "14");
    assert!(!sc.s.core.in_recovery);
    assert_eq!(sc.window(), (5.0, 5.0));

    let mut sc = no_sack_sender(false, Recovery::NewReno);
    let rows = [
        ("", 10000),
        ("", 10000),
        ("r0", 8000),
        ("", 9000),
        ("", 10000),
        ("10", 11000),
        ("11", 12000),
        ("12", 13000),
        ("13", 14000),
    ];
    dupacks_of_0(&mut sc, &rows, 1, "RFC 6582");
    assert_eq!(sc.s.core.prr_episode(), PrrEpisode::default());
    assert_eq!(sc.ack(10, &[]), "14");
    assert_eq!(sc.window(), (5.0, 5.0));
}

/// With one loss, neither ACK loss nor reordering, the duplicate ACKs
/// are exactly the SACKed bytes, and PRR without SACK (NewReno) sends
/// after each ACK what PRR with SACK (RFC 6675's recovery) sends, with the
/// same cwnd and the same episode: in the setting above (segment 0 lost,
/// nine duplicate ACKs, then the full ACK) and in §8 Figure 1's (twenty
/// segments, Limited Transmit, segment 0 lost, twenty-one duplicate ACKs;
/// its SACK columns are checked against the figure by
/// `s8_figure1_single_loss_prr`).
#[test]
fn s6_2_without_sack_one_loss_is_what_sack_gives() {
    let run = |cfg: SenderConfig, recovery: Recovery, dupacks: u64, full_ack: u64| {
        let sack = recovery == Recovery::Sack;
        let mut sc = Script::new(cfg, recovery);
        sc.start(100);
        let mut log = Vec::new();
        for k in 1..=dupacks {
            let sacks: &[(u64, u64)] = if sack { &[(1, k)] } else { &[] };
            log.push((sc.ack(0, sacks), sc.s.core.w.cwnd));
        }
        log.push((sc.ack(full_ack, &[]), sc.s.core.w.cwnd));
        (log, sc.s.core.prr_episode().prr_delivered_bytes)
    };
    let mut ten = config(10);
    ten.proportional_rate_reduction = true;
    let with_sack = run(ten.clone(), Recovery::Sack, 9, 10);
    assert_eq!(with_sack.0[2], ("r0".to_string(), 6625));
    assert_eq!(with_sack, run(ten, Recovery::NewReno, 9, 10));
    let with_sack = run(section8_config(true), Recovery::Sack, 21, 22);
    assert_eq!(with_sack.0[2], ("r0".to_string(), 18500));
    assert_eq!(
        with_sack,
        run(section8_config(true), Recovery::NewReno, 21, 22)
    );
}

/// §6.2 without SACK with NewReno and two losses in one window (segments
/// 0 and 8): the duplicate ACKs of segments 1-7 and 9 are the first eight
/// of `newreno_nine_dupacks` (the sender cannot tell which segments they
/// report): "r0", segments 10-12, cwnd 5000, prr_delivered 6000, prr_out
/// 4000, the estimate 8000.
///
/// * The retransmission of segment 0 arrives: ACK 8, a partial ACK (RFC
///   6582 step 3: below `recover` = 10). It covered segments 0-7, of which
///   1-7 were reported: the estimate falls to 1000 (segment 9, which it
///   is), DeliveredData = 8000 - 7000 = 1000 (segment 0), prr_delivered
///   7000. The ACK marks segment 8 lost: inflight = 13000 - 8000 - 1000 -
///   1000 = 3000, and it is no SafeACK ("no further loss is indicated"
///   fails). PRR-CRB: SndCnt = MIN(5000 - 3000, MAX(7000 - 4000, 1000)) =
///   2000, cwnd 5000. Sent: "r8" (RFC 6582's retransmission, prr_out
///   5000), then new data up to 8000 + 5000 + 1000: segment 13.
/// * Segment 10 arrives: a duplicate ACK of 8. DeliveredData 1000,
///   prr_delivered 8000, the estimate 2000; inflight = 14000 - 8000 - 2000
///   = 4000: SndCnt = MIN(1000, MAX(8000 - 6000, 1000)) = 1000, cwnd 5000,
///   reach 8000 + 5000 + 2000 = 15000: segment 14.
/// * The retransmission of segment 8 arrives: ACK 11 covers `recover`:
///   §6.4, cwnd = ssthresh 5000; FlightSize 4000: segment 15.
///
/// Without the option (RFC 6582), cwnd = 8000 + 5 * 1000 = 13000 after
/// the eighth duplicate ACK (segments 10-12 sent), and the partial ACK
/// deflates it by the 8000 acknowledged and adds back one SMSS: 6000,
/// reach 14000: "r8 13".
#[test]
fn s6_2_newreno_without_sack_partial_ack() {
    let mut sc = no_sack_sender(true, Recovery::NewReno);
    dupacks_of_0(&mut sc, &NEWRENO_NINE_DUPACKS[..8], 1, "PRR");
    assert_eq!(sc.s.core.prr_episode(), episode(8, 6, 4, 8, 10));
    assert_eq!(sc.ack(8, &[]), "r8 13");
    assert!(sc.s.core.in_recovery);
    assert_eq!(sc.window(), (5.0, 5.0));
    assert_eq!(sc.s.core.prr_episode(), episode(8, 7, 6, 1, 10));
    assert_eq!(sc.ack(8, &[]), "14");
    assert_eq!(sc.cwnd(), 5.0);
    assert_eq!(sc.s.core.prr_episode(), episode(8, 8, 7, 2, 10));
    assert_eq!(sc.ack(11, &[]), "15");
    assert!(!sc.s.core.in_recovery);
    assert_eq!(sc.window(), (5.0, 5.0));

    let mut sc = no_sack_sender(false, Recovery::NewReno);
    assert_eq!(sc.dupacks(0, 8), "r0 10 11 12");
    assert_eq!(sc.cwnd(), 13.0);
    assert_eq!(sc.ack(8, &[]), "r8 13");
    assert_eq!(sc.cwnd(), 6.0);
}

/// §6.2 without SACK, a partial ACK whose duplicate ACKs also reported
/// segments above it: "the change in SND.UNA, minus 1 SMSS for each
/// preceding duplicate ACK" would be less than nothing (5000 - 8000); the
/// ACK takes out of the estimate only the segments it covered but the
/// lost one (Linux's `tcp_remove_reno_sacks` reads it so), and the
/// estimate keeps the segments above it. Segments 0 and 5 lost: the
/// duplicate ACKs of 1-4 and 6-9 are the eight of
/// `s6_2_newreno_without_sack_partial_ack` ("r0 10 11 12", cwnd 5000,
/// prr_delivered 6000, prr_out 4000, the estimate 8000). The
/// retransmission of segment 0 arrives: ACK 5 covered 0-4, the estimate
/// falls by 4000 to 4000 (segments 6-9, which it is), DeliveredData 1000,
/// prr_delivered 7000; segment 5 marked lost: inflight = 13000 - 5000 -
/// 4000 - 1000 = 3000: SndCnt = MIN(2000, MAX(3000, 1000)) = 2000, cwnd
/// 5000; "r5" (prr_out 5000), reach 5000 + 5000 + 4000 = 14000: segment 13.
/// Segment 10 arrives (a duplicate ACK of 5): DeliveredData 1000,
/// prr_delivered 8000, the estimate 5000; inflight = 14000 - 5000 - 5000 =
/// 4000: SndCnt = MIN(1000, MAX(2000, 1000)) = 1000, cwnd 5000, reach
/// 15000: segment 14. (Taking out all 5000 the ACK advanced, the estimate
/// would count 3000 for four reported segments, and inflight would stay
/// above what is in the network for the rest of the recovery.)
#[test]
fn s6_2_without_sack_a_partial_ack_keeps_the_segments_reported_above_it() {
    let mut sc = no_sack_sender(true, Recovery::NewReno);
    assert_eq!(sc.dupacks(0, 8), "r0 10 11 12");
    assert_eq!(sc.ack(5, &[]), "r5 13");
    assert_eq!(sc.cwnd(), 5.0);
    assert_eq!(sc.s.core.prr_episode(), episode(8, 7, 6, 4, 10));
    assert_eq!(sc.ack(5, &[]), "14");
    assert_eq!(sc.cwnd(), 5.0);
    assert_eq!(sc.s.core.prr_episode(), episode(8, 8, 7, 5, 10));
}

/// §6.2 without SACK, the over-count rule: "PRR disallows incrementing
/// DeliveredData when the total bytes delivered in a PRR episode would
/// exceed ... RecoverFS", and inflight subtracts "min(RecoverFS, 1 SMSS
/// for each preceding duplicate ACK ...)" ("to protect against
/// misbehaving receivers"; with the two duplicate ACKs before the episode
/// counted, at most RecoverFS + 2000 = 10000). After
/// `newreno_nine_dupacks` (prr_delivered 7000, prr_out 5000, the estimate
/// 9000, segments 0-13 sent) the retransmission of segment 0 is delayed
/// and duplicate ACKs keep coming. The tenth delivers the last 1000 of
/// RecoverFS (prr_delivered 8000); the estimate 10000, inflight 14000 -
/// 10000 = 4000: SndCnt = MIN(1000, MAX(3000, 1000)) = 1000, cwnd 5000,
/// reach 15000: segment 14. The next five deliver 0 ("Return": cwnd 5000)
/// and the estimate, though it counts them, counts at most 10000: inflight
/// stays 15000 - 10000 = 5000 = cwnd, and nothing is sent. The ACK of
/// segment 0's retransmission (ACK 14) ends recovery, cwnd = ssthresh =
/// 5000, FlightSize 1000: segments 15-18.
#[test]
fn s6_2_without_sack_at_most_recoverfs_is_delivered() {
    let mut sc = no_sack_sender(true, Recovery::NewReno);
    newreno_nine_dupacks(&mut sc);
    for (k, (sent, state)) in [
        ("14", episode(8, 8, 6, 10, 10)),
        ("", episode(8, 8, 6, 11, 10)),
        ("", episode(8, 8, 6, 12, 10)),
        ("", episode(8, 8, 6, 13, 10)),
        ("", episode(8, 8, 6, 14, 10)),
        ("", episode(8, 8, 6, 15, 10)),
    ]
    .into_iter()
    .enumerate()
    {
        assert_eq!(sc.ack(0, &[]), sent, "duplicate ACK {}", 10 + k);
        assert_eq!(
            (sc.s.core.prr_episode(), sc.cwnd()),
            (state, 5.0),
            "duplicate ACK {}",
            10 + k
        );
    }
    assert_eq!(sc.ack(14, &[]), "15 16 17 18");
    assert_eq!(sc.window(), (5.0, 5.0));
}

/// §5 and §6.4 with Reno (RFC 5681 §3.2): its recovery ends at the first
/// ACK of new data, so one PRR episode covers the duplicate ACKs only.
/// Segments 0 and 8 lost: the first eight duplicate ACKs are NewReno's
/// ("r0 10 11 12", cwnd 5000; derivation at `newreno_nine_dupacks`).
/// Without the option Reno's inflation sends the same segments, with cwnd
/// 13000. ACK 8 (a partial ACK to NewReno) ends Reno's recovery: cwnd =
/// ssthresh = 5000 (RFC 5681 step 6 and §6.4 agree); FlightSize 13000 -
/// 8000 = 5000: nothing. The duplicate ACKs of segments 10-12 start a
/// second fast recovery (RFC 5681) and a second episode (§6.1): ssthresh =
/// FlightSize 5000 / 2 = 2500, RecoverFS = 5000 - 2000 = 3000, the
/// estimate 2000 + 1000 (at most 5000); DeliveredData 1000, inflight =
/// 5000 - 3000 - 1000 (segment 8) = 1000, not above 2500: PRR-CRB, SndCnt =
/// MIN(2500 - 1000, MAX(1000, 1000)) = 1000, cwnd 2000; "r8" (prr_out
/// 1000), reach 8000 + 2000 + 3000 = 13000 = SND.NXT. Without the option
/// the third duplicate ACK sets cwnd = 2500 + 3000 = 5500.
#[test]
fn s6_reno_without_sack_one_episode_per_fast_recovery() {
    for prr in [true, false] {
        let mut sc = no_sack_sender(prr, Recovery::Reno);
        assert_eq!(sc.dupacks(0, 8), "r0 10 11 12");
        assert_eq!(sc.cwnd(), if prr { 5.0 } else { 13.0 });
        assert_eq!(sc.ack(8, &[]), "");
        assert!(!sc.s.core.in_recovery);
        assert_eq!(sc.window(), (5.0, 5.0));
        assert_eq!(sc.dupacks(8, 2), "");
        assert_eq!(sc.ack(8, &[]), "r8");
        assert!(sc.s.core.in_recovery);
        if prr {
            assert_eq!(sc.window(), (2.0, 2.5));
            assert_eq!(sc.s.core.prr_episode(), episode(3, 1, 1, 3, 5));
        } else {
            assert_eq!(sc.window(), (5.5, 2.5));
            assert_eq!(sc.s.core.prr_episode(), PrrEpisode::default());
        }
    }
}

/// Tahoe has no fast recovery (a fast retransmit, then slow start from one
/// segment): RFC 9937 has nothing to pace, the option changes nothing and
/// no episode starts (§6.1 never runs: RecoverFS and prr_delivered stay 0;
/// a scenario refuses the option: `scenario_errors.rs::
/// rfc9937_prr_needs_fast_recovery`). Segment 0 lost, nine duplicate ACKs,
/// then the ACKs of the go-back-N retransmissions: the same segments and
/// windows with and without the option.
#[test]
fn prr_has_no_effect_with_tahoe() {
    let run = |prr: bool| {
        let mut sc = no_sack_sender(prr, Recovery::Tahoe);
        let mut log = Vec::new();
        for _ in 0..9 {
            log.push((sc.ack(0, &[]), sc.window()));
        }
        for n in [1, 3, 7, 12] {
            log.push((sc.ack(n, &[]), sc.window()));
        }
        let episode = sc.s.core.prr_episode();
        assert_eq!(
            (episode.recover_fs_bytes, episode.prr_delivered_bytes),
            (0, 0)
        );
        log
    };
    let with_prr = run(true);
    assert_eq!(with_prr[2], ("r0".to_string(), (1.0, 5.0)));
    assert_eq!(with_prr, run(false));
}

/// A classifier that judges every loss not congestion (as airtcp's
/// wireless-loss classifiers can): fast recovery keeps the window it had,
/// and PRR heads for that window (its "ssthresh", §6.1's CongCtrlAlg()).
struct NotCongestion;

impl airtcp_core::tcp::classify::LossClassifier for NotCongestion {
    fn name(&self) -> &'static str {
        "not_congestion"
    }
    fn classify(
        &mut self,
        _now_ns: airtcp_core::sim::TimeNs,
        _seq: u64,
        _how: airtcp_core::tcp::classify::LossDetection,
        _rtt: &airtcp_core::tcp::rtt::RttEstimator,
    ) -> airtcp_core::tcp::classify::LossCause {
        airtcp_core::tcp::classify::LossCause::NonCongestion
    }
}

/// §6.2's SafeACK without SACK: "SND.UNA advanced and no further loss is
/// indicated". NewReno's partial ACK advances SND.UNA but indicates the
/// loss of the segment at the new SND.UNA (RFC 6582 §3.2 step 3
/// retransmits it; §9: an ACK that causes "some other segment to be
/// marked for retransmission"), so it is no SafeACK and PRR-SSRB adds
/// nothing. Segments 0 and 8 lost, every loss judged not congestion: the
/// target is the window at the loss, 10000 (RecoverFS 8000).
///
/// * DupACK 3 (§6.1, §6.2): DeliveredData 1000; inflight = 10000 - 3000 -
///   1000 (segment 0) = 6000, not above 10000: PRR-CRB, SndCnt =
///   MIN(10000 - 6000, MAX(1000 - 0, 1000)) = 1000, cwnd 7000; "r0"
///   (prr_out 1000), reach 7000 + 3000 = SND.NXT: nothing else.
/// * DupACKs 4-8: prr_delivered 2000 .. 6000, prr_out 1000 .. 5000 before
///   sending, inflight = SND.NXT - the estimate = 6000 each time: SndCnt =
///   MIN(4000, MAX(1000, 1000)) = 1000, cwnd 7000, one new segment each:
///   10 .. 14 (prr_out 6000, SND.NXT 15000).
/// * ACK 8 (the retransmission of segment 0 arrives; segment 8 lost): it
///   covered 0-7, the estimate falls by 7000 to 1000, DeliveredData 1000,
///   prr_delivered 7000; inflight = 7000 - 1000 - 1000 (segment 8) = 5000;
///   no SafeACK: SndCnt = MIN(10000 - 5000, MAX(7000 - 6000, 1000)) =
///   1000, cwnd 6000; "r8" (prr_out 7000), reach 8000 + 6000 + 1000 =
///   15000 = SND.NXT: nothing more. A SafeACK would add 1000: cwnd 7000,
///   and segment 15.
#[test]
fn s6_2_without_sack_a_partial_ack_is_not_a_safe_ack() {
    let mut cfg = config(10);
    cfg.proportional_rate_reduction = true;
    let mut sc = Script::with_classifier(cfg, Recovery::NewReno, Box::new(NotCongestion));
    assert_eq!(sc.start(100), range(0, 9));
    let rows = [
        ("", 10000),
        ("", 10000),
        ("r0", 7000),
        ("10", 7000),
        ("11", 7000),
        ("12", 7000),
        ("13", 7000),
        ("14", 7000),
    ];
    dupacks_of_0(&mut sc, &rows, 1, "not congestion");
    assert_eq!(sc.s.core.recovery_cwnd, 10 * MSS);
    assert_eq!(sc.s.core.prr_episode(), episode(8, 6, 6, 8, 10));
    assert_eq!(sc.ack(8, &[]), "r8");
    assert_eq!(sc.s.core.w.cwnd, 6000);
    assert_eq!(sc.s.core.prr_episode(), episode(8, 7, 7, 1, 10));
}

// ECN-Echo reductions (RFC 9937 §4, §5, §6.1, §6.4, §11.2). §4: "PRR has
// also been adapted to perform multiplicative window reduction for
// non-loss-based congestion control algorithms, such as for Explicit
// Congestion Notification (ECN) as specified in [RFC3168]. This can be
// done by using some parts of the loss recovery state machine (in
// particular, the RecoveryPoint from [RFC6675]) to invoke the PRR ACK
// processing for exactly one round trip worth of ACKs." §5: PRR "MAY be
// used in conjunction with any congestion control algorithm that intends
// to make a multiplicative decrease in its sending rate over
// approximately the time scale of one round-trip time". §11.2: PRR
// "only operates during a congestion control response episode, such as
// fast recovery or when there is a step reduction in the cwnd from the
// TCP ECN reaction defined in [RFC3168]". So with the option an
// ECN-Echo (RFC 3168 §6.1.2) starts a PRR episode: §6.1's ssthresh =
// CongCtrlAlg() (the controller's, as without the option), prr_delivered
// = prr_out = 0, RecoverFS = SND.NXT - SND.UNA - SACKed + newly SACKed +
// newly cumulatively acknowledged, measured on the ECN-Echo ACK, which
// takes the first §6.2 step; the episode's RecoveryPoint is HighData at
// the ECN-Echo, and the ACK that reaches it ends the episode (§6.4: cwnd
// = ssthresh, no §6.2 step on it). A loss detected before then is of
// the same window of data: RFC 3168 §6.1.2 reduces "only once in
// response to a series of dropped and/or CE packets from a single window
// of data", so no new response episode and (§6.1) no new PRR state: fast
// recovery runs inside the same episode, which it then ends (§6.4: "upon
// ... completing fast recovery").

/// An ECN sender (`ecn = true`) with ten segments out, PRR as given, the
/// recovery as given.
fn ecn_sender(prr: bool, recovery: Recovery) -> Script {
    let mut cfg = config(10);
    cfg.ecn = true;
    cfg.proportional_rate_reduction = prr;
    let mut sc = Script::new(cfg, recovery);
    assert_eq!(sc.start(100), range(0, 9));
    sc
}

/// Deliver `pkt`; what was sent, cwnd in bytes after it, and whether the
/// first segment sent carries CWR.
fn step_cwr(sc: &mut Script, pkt: &airtcp_core::net::packet::Packet) -> (String, u64, bool) {
    sc.now += STEP_NS;
    let mut out = Vec::new();
    sc.s.on_packet(sc.now, pkt, &mut out);
    let cwr = out
        .first()
        .is_some_and(|p| p.has_flag(airtcp_core::net::packet::flags::CWR));
    (sent(&out), sc.s.core.w.cwnd, cwr)
}

/// §4, §6.1, §6.2, §6.4 for an ECN-Echo reduction, no loss, Reno
/// congestion control; the same with and without SACK (no SACK block is
/// sent: pipe = FlightSize, and no duplicate ACK). Segments 0-9 out
/// (cwnd 10000); the receiver echoes ECE on every ACK until CWR reaches
/// it, i.e. on the ACKs of segments 0-9 (ACKs 1-10).
///
/// * ACK 1 (ECE): RFC 3168 §6.1.2's ssthresh = max(FlightSize / 2, 2 SMSS)
///   = 5000 (CongCtrlAlg()); §6.1 RecoverFS = 10000 - 1000 + 1000 (newly
///   cumulatively acknowledged) = 10000, RecoveryPoint = SND.NXT = 10000.
///   §6.2: DeliveredData 1000 = prr_delivered, inflight 9000 > ssthresh:
///   SndCnt = DIV_ROUND_UP(1000 * 5000, 10000) - 0 = 500, cwnd = 9500:
///   not cut at once. Nothing sent (FlightSize 9000 + 1000 > 9500).
/// * ACK 2 (ECE, the same window: no second reduction): prr_delivered
///   2000, inflight 8000: SndCnt = 1000 - 0, cwnd 9000: segment 10, with
///   CWR (RFC 3168 §6.1.2: the first new data packet after the
///   reduction); prr_out 1000.
/// * ACKs 3-7, the proportional part: cwnd = inflight + DIV_ROUND_UP(k *
///   500) - prr_out = 8500, 8000 ("11"), 7500, 7000 ("12"), 6500: a
///   segment every second ACK (prr_out 3000).
/// * ACK 8: inflight 13000 - 8000 = 5000, not above ssthresh: PRR-CRB,
///   SndCnt = MIN(5000 - 5000, ...) = 0, cwnd 5000, nothing sent.
/// * ACK 9: inflight 4000: SndCnt = MIN(1000, MAX(9000 - 3000, 1000) +
///   1000 (SafeACK)) = 1000, cwnd 5000: segment 13 (prr_out 4000).
/// * ACK 10 reaches RecoveryPoint: §6.4, cwnd = ssthresh = 5000, no §6.2
///   step; FlightSize 4000: segment 14.
/// * ACK 11 (no ECE): congestion avoidance again, cwnd 5000 + 1000 * 1000
///   / 5000 = 5200: segment 15.
///
/// Without the option (RFC 3168 §6.1.2 at once): cwnd 5000 from ACK 1,
/// nothing sent until FlightSize falls below it (ACK 6), then one segment
/// per ACK: the same segments by ACK 10, the reduction not spread.
#[test]
fn s4_ecn_echo_reduction_spread_over_one_round_trip() {
    for recovery in [Recovery::NewReno, Recovery::Sack] {
        let mut sc = ecn_sender(true, recovery);
        let rows: [(&str, u64); 10] = [
            ("", 9500),
            ("10", 9000),
            ("", 8500),
            ("11", 8000),
            ("", 7500),
            ("12", 7000),
            ("", 6500),
            ("", 5000),
            ("13", 5000),
            ("14", 5000),
        ];
        for (k, &(s, cwnd)) in (1..=10u64).zip(rows.iter()) {
            let (got, c, cwr) = step_cwr(&mut sc, &ack_ece(k, &[]));
            assert_eq!((got.as_str(), c), (s, cwnd), "{recovery:?}, ACK {k}");
            assert_eq!(sc.ssthresh(), 5.0, "{recovery:?}, ACK {k}");
            assert_eq!(cwr, k == 2, "{recovery:?}, ACK {k}: CWR");
            if k == 1 {
                let e = sc.s.core.prr_episode();
                assert_eq!(
                    (e.recover_fs_bytes, e.prr_delivered_bytes, e.prr_out_bytes),
                    (10 * MSS, MSS, 0),
                    "{recovery:?}"
                );
            }
        }
        assert_eq!(sc.s.core.stats.ecn_reductions, 1, "{recovery:?}");
        let e = sc.s.core.prr_episode();
        assert_eq!(
            (e.recover_fs_bytes, e.prr_delivered_bytes, e.prr_out_bytes),
            (10 * MSS, 9 * MSS, 4 * MSS),
            "{recovery:?}: the episode ended on ACK 10, before its step"
        );
        assert_eq!(sc.ack(11, &[]), "15", "{recovery:?}");
        assert_eq!(sc.s.core.w.cwnd, 5200, "{recovery:?}");
        assert!(!sc.s.core.in_recovery);

        let mut sc = ecn_sender(false, recovery);
        for k in 1..=10u64 {
            let expected = if k < 6 {
                String::new()
            } else {
                (k + 4).to_string()
            };
            assert_eq!(
                sc.deliver(&ack_ece(k, &[])),
                expected,
                "{recovery:?}, ACK {k}"
            );
            assert_eq!(sc.window(), (5.0, 5.0), "{recovery:?}, ACK {k}");
        }
        assert_eq!(sc.s.core.prr_episode(), PrrEpisode::default());
    }
}

/// What each duplicate ACK after the ECN-Echo ACK sends and cwnd after
/// it, the same with and without SACK (derived in the two tests' doc
/// comments).
const LOSS_DURING_AN_ECN_ECHO_EPISODE: [(&str, u64); 8] = [
    ("10", 9000),
    ("", 8500),
    ("r1", 7000),
    ("", 6500),
    ("", 5000),
    ("11", 5000),
    ("12", 5000),
    ("13", 5000),
];

/// A loss detected during an ECN-Echo's episode, without SACK (NewReno):
/// segment 1 lost; ACK 1 carries ECE (as in
/// `s4_ecn_echo_reduction_spread_over_one_round_trip`: ssthresh 5000,
/// RecoverFS 10000, cwnd 9500; the estimate of the SACKed bytes 0, its
/// bound 9000, what was outstanding after ACK 1); then the duplicate ACKs
/// of segments 2-9 (§6.2 without SACK: 1 SMSS delivered each).
///
/// * DupACK 1: prr_delivered 2000, inflight = 9000 - 1000 = 8000: SndCnt
///   = 1000 - 0, cwnd 9000; reach SND.UNA + cwnd + the estimate = 11000:
///   segment 10 (prr_out 1000).
/// * DupACK 2: 3000, inflight 10000 - 2000 = 8000: SndCnt = 1500 - 1000,
///   cwnd 8500, reach 11500: nothing.
/// * DupACK 3: RFC 6582's fast retransmit, in the same window as the
///   ECN-Echo: ssthresh stays 5000 (no second reduction) and the episode
///   goes on (RecoverFS stays 10000). §6.2 before the retransmission:
///   prr_delivered 4000, inflight = 10000 - 3000 - 1000 (segment 1, lost,
///   not yet retransmitted) = 6000: SndCnt = 2000 - 1000, cwnd 7000; "r1"
///   (prr_out 2000); reach 11000: nothing else.
/// * DupACK 4: 5000, inflight 10000 - 4000 = 6000: SndCnt = 2500 - 2000,
///   cwnd 6500: nothing.
/// * DupACK 5: 6000, inflight 5000: PRR-CRB, SndCnt = MIN(0, ...) = 0,
///   cwnd 5000.
/// * DupACKs 6-8: 7000 .. 9000, inflight SND.NXT - SND.UNA - 6000 .. 8000
///   = 4000: SndCnt = MIN(1000, ...), cwnd 5000: segments 11, 12, 13
///   (prr_out 5000).
///
/// Segment 10 carries CWR (RFC 3168 §6.1.2, the first new data packet
/// after the ECN-Echo's reduction); segment 11 does not: the loss made no
/// new reduction ("CWR ... after reducing the congestion window").
///
/// The ACK of everything sent (segment 14) ends fast recovery and with
/// it the episode: cwnd = ssthresh = 5000, five segments out. Without the
/// option the ECN-Echo cut cwnd to 5000 at once, and the fast retransmit
/// keeps ssthresh (RFC 3168's once per window,
/// `rfc3168.rs::s6_1_2_a_loss_in_the_window_an_ece_reduced_does_not_reduce_again`):
/// cwnd = 5000 + 3 SMSS.
#[test]
fn s6_1_a_loss_during_an_ecn_echo_episode_continues_it_without_sack() {
    let mut sc = ecn_sender(true, Recovery::NewReno);
    assert_eq!(sc.deliver(&ack_ece(1, &[])), "");
    assert_eq!(sc.s.core.prr_episode(), episode(10, 1, 0, 0, 9));
    let rows = LOSS_DURING_AN_ECN_ECHO_EPISODE;
    for (k, &(s, cwnd)) in rows.iter().enumerate() {
        let (got, c, cwr) = step_cwr(&mut sc, &ack(1, &[]));
        assert_eq!((got.as_str(), c), (s, cwnd), "duplicate ACK {}", k + 1);
        assert_eq!(sc.ssthresh(), 5.0, "duplicate ACK {}", k + 1);
        assert_eq!(cwr, k == 0, "duplicate ACK {}: CWR", k + 1);
    }
    assert!(sc.s.core.in_recovery);
    assert_eq!(sc.s.core.prr_episode(), episode(10, 9, 5, 8, 9));
    assert_eq!(
        (
            sc.s.core.stats.ecn_reductions,
            sc.s.core.stats.fast_retransmits
        ),
        (1, 1)
    );
    assert_eq!(sc.ack(14, &[]), range(14, 18));
    assert!(!sc.s.core.in_recovery);
    assert_eq!(sc.window(), (5.0, 5.0));

    let mut sc = ecn_sender(false, Recovery::NewReno);
    assert_eq!(sc.deliver(&ack_ece(1, &[])), "");
    assert_eq!(sc.dupacks(1, 3), "r1");
    assert_eq!(sc.window(), (8.0, 5.0));
}

/// The same with SACK (RFC 6675): the duplicate ACKs SACK segments 2..k.
/// DeliveredData is the newly SACKed segment, inflight RFC 6675's pipe;
/// before loss recovery the sender sends in order, up to SND.UNA + cwnd +
/// (FlightSize - pipe), so that cwnd - pipe >= 1 SMSS lets a segment out
/// as in recovery. The same rows as without SACK: DupACK 1: pipe 8000,
/// cwnd 9000, segment 10; DupACK 2: pipe 8000, cwnd 8500; DupACK 3
/// (segment 1 IsLost: fast retransmit, no new ssthresh, the episode goes
/// on): pipe 6000, SndCnt = 2000 - 1000, cwnd 7000, "r1"; DupACK 4:
/// pipe 6000 (segment 1 retransmitted counts), cwnd 6500; DupACK 5: pipe
/// 5000, PRR-CRB 0, cwnd 5000; DupACKs 6-8: pipe 4000, cwnd 5000,
/// segments 11, 12, 13; CWR on segment 10 only. The cumulative ACK of
/// segment 13 ends recovery:
/// cwnd = ssthresh = 5000. Without the option: cwnd = ssthresh = 5000 at
/// the fast retransmit (RFC 6675 §5 (4.2), ssthresh kept), as without
/// SACK.
#[test]
fn s6_1_a_loss_during_an_ecn_echo_episode_continues_it_with_sack() {
    let mut sc = ecn_sender(true, Recovery::Sack);
    assert_eq!(sc.deliver(&ack_ece(1, &[])), "");
    let rows = LOSS_DURING_AN_ECN_ECHO_EPISODE;
    for (k, &(s, cwnd)) in (2..=9u64).zip(rows.iter()) {
        let (got, c, cwr) = step_cwr(&mut sc, &ack(1, &[(2, k)]));
        assert_eq!((got.as_str(), c), (s, cwnd), "SACK of 2..{k}");
        assert_eq!(sc.ssthresh(), 5.0, "SACK of 2..{k}");
        assert_eq!(cwr, k == 2, "SACK of 2..{k}: CWR");
    }
    assert!(sc.s.core.in_recovery);
    assert_eq!(
        sc.s.core.prr_episode(),
        PrrEpisode {
            recover_fs_bytes: 10 * MSS,
            prr_delivered_bytes: 9 * MSS,
            prr_out_bytes: 5 * MSS,
            ..PrrEpisode::default()
        }
    );
    assert_eq!(sc.ack(14, &[]), range(14, 18));
    assert!(!sc.s.core.in_recovery);
    assert_eq!(sc.window(), (5.0, 5.0));

    let mut sc = ecn_sender(false, Recovery::Sack);
    assert_eq!(sc.deliver(&ack_ece(1, &[])), "");
    sc.ack(1, &[(2, 2)]);
    sc.ack(1, &[(2, 3)]);
    assert_eq!(sc.ack(1, &[(2, 4)]), "r1");
    assert_eq!(sc.window(), (5.0, 5.0));
}

/// RFC 3168 §6.1.2's window of one, with the option: "the sending TCP
/// MUST reset the retransmit timer on receiving the ECN-Echo packet when
/// the congestion window is one", and send "only when the retransmit
/// timer expires". There is nothing to spread (cwnd cannot fall below one
/// segment): no PRR episode, the rule as without the option
/// (`rfc3168.rs::s6_1_2_ece_at_a_window_of_one_resets_the_timer_and_waits_for_it`):
/// cwnd 1, ssthresh 2, nothing sent until one RTO after the ECN-Echo,
/// then segment 1 with CWR, no backoff.
#[test]
fn s4_ecn_echo_at_a_window_of_one_still_waits_for_the_timer() {
    for recovery in [Recovery::NewReno, Recovery::Sack] {
        let mut cfg = config(1);
        cfg.ecn = true;
        cfg.proportional_rate_reduction = true;
        let mut sc = Script::new(cfg, recovery);
        assert_eq!(sc.start(100), "0");
        let ece_at = sc.now + STEP_NS;
        assert_eq!(sc.deliver(&ack_ece(1, &[])), "", "{recovery:?}");
        assert_eq!(sc.window(), (1.0, 2.0), "{recovery:?}");
        assert_eq!(sc.s.next_deadline(), Some(ece_at + RTO_NS), "{recovery:?}");
        assert_eq!(sc.s.core.prr_episode(), PrrEpisode::default());
        let d = sc.s.next_deadline().unwrap();
        sc.now = d;
        let mut out = Vec::new();
        sc.s.on_timer(d, &mut out);
        assert_eq!(sent(&out), "1", "{recovery:?}");
        assert!(out[0].has_flag(airtcp_core::net::packet::flags::CWR));
        assert_eq!(sc.s.core.stats.timeouts, 0, "{recovery:?}");
        assert_eq!(sc.s.next_deadline(), Some(ece_at + 2 * RTO_NS));
        assert_eq!(sc.window(), (1.0, 2.0), "{recovery:?}");
    }
}

/// A retransmission timeout during an ECN-Echo's episode ends it (§6.4's
/// cwnd = ssthresh first, so that the timeout starts from the window the
/// reduction heads for, as without the option), and RFC 5681 (5)-(6)
/// take over: cwnd 1 SMSS, go-back-N, ssthresh kept at the ECN-Echo's
/// 5000 (RFC 3168 §6.1.2, once per window: segment 1 was never resent,
/// `rfc3168.rs::s6_1_2_a_timeout_in_the_window_an_ece_reduced_reduces_only_for_a_dropped_retransmission`);
/// PRR neither counts what is sent after it nor sets cwnd on the ACKs
/// that follow (slow start). With and without the option the same
/// segments and windows, ACK 1 (ECE) aside.
#[test]
fn timeout_during_an_ecn_echo_episode_ends_it() {
    let run = |prr: bool| {
        let mut sc = ecn_sender(prr, Recovery::NewReno);
        sc.deliver(&ack_ece(1, &[]));
        let rto = sc.timeout();
        let episode = sc.s.core.prr_episode();
        let mut log = vec![(rto, sc.window())];
        for n in 2..=5u64 {
            log.push((sc.ack(n, &[]), sc.window()));
        }
        assert_eq!(sc.s.core.prr_episode(), episode, "prr {prr}");
        log
    };
    let with = run(true);
    assert_eq!(with[0], ("r1".to_string(), (1.0, 5.0)));
    assert_eq!(with, run(false));
}

/// §6.4 for an ECN-Echo's episode: "On the completion of a PRR episode
/// ... cwnd = ssthresh", on the ACK that reaches the RecoveryPoint,
/// whatever the §6.2 steps before it left. ACK 1 (ECE) leaves cwnd 9500
/// (`s4_ecn_echo_reduction_spread_over_one_round_trip`); the ACKs of
/// segments 1-8 are lost and the next one acknowledges all ten segments:
/// it ends the episode, cwnd = ssthresh = 5000, and five segments leave,
/// as after a cut at once. As at the end of a fast recovery, the ACK that
/// ends the episode does not grow the window; without the option the cut
/// was made on ACK 1 (cwnd 5000) and this ACK, without ECE, grows it
/// (congestion avoidance: 5200), the same five segments.
#[test]
fn s6_4_the_ack_reaching_the_ecn_echo_recovery_point_sets_cwnd_to_ssthresh() {
    for prr in [true, false] {
        for recovery in [Recovery::NewReno, Recovery::Sack] {
            let mut sc = ecn_sender(prr, recovery);
            assert_eq!(sc.deliver(&ack_ece(1, &[])), "");
            assert_eq!(sc.cwnd(), if prr { 9.5 } else { 5.0 });
            assert_eq!(sc.ack(10, &[]), range(10, 14), "prr {prr}, {recovery:?}");
            let cwnd = if prr { 5.0 } else { 5.2 };
            assert_eq!(sc.window(), (cwnd, 5.0), "prr {prr}, {recovery:?}");
            assert!(!sc.s.core.ecn_reduction_under_way());
        }
    }
}

/// A loss found on the ACK that reaches an ECN-Echo's RecoveryPoint is of
/// data sent after the ECN-Echo: new congestion (RFC 3168 §6.1.2's
/// "single window of data" ends there), so a new ssthresh and a new PRR
/// episode (§6.1), not the ECN-Echo's going on. ACK 1 echoes CE
/// (RecoveryPoint 10, target 5000); ACKs 2-9 let segments 10-13 out. ACK
/// 10 reaches the RecoveryPoint and SACKs 11-13, so segment 10 IsLost (RFC
/// 6675 §4, DupThresh SACKed segments above it): ssthresh =
/// max(FlightSize / 2, 2 SMSS) = max(4000 / 2, 2000) = 2000, RecoveryPoint
/// 14; RecoverFS = 4000 outstanding - 3000 SACKed + 3000 newly SACKed +
/// 1000 newly acknowledged = 5000; DeliveredData 4000; pipe 0 (10 lost,
/// 11-13 SACKed); not a SafeACK (the ACK marks a loss), so PRR-CRB:
/// SndCnt = MIN(ssthresh - pipe, prr_delivered - prr_out) = 2000: cwnd
/// 2000, the retransmission of 10 and segment 14 leave. (Found by the
/// fuzzer: `regression-loss-at-an-ecn-echo-episodes-recovery-point`.)
#[test]
fn s6_1_a_loss_at_an_ecn_echo_episodes_recovery_point_starts_a_new_episode() {
    let mut sc = ecn_sender(true, Recovery::Sack);
    assert_eq!(sc.deliver(&ack_ece(1, &[])), "");
    let sent: Vec<String> = (2..=9).map(|k| sc.ack(k, &[])).collect();
    assert_eq!(sent.concat(), "10111213");
    assert!(sc.s.core.ecn_reduction_under_way());
    assert_eq!(sc.ack(10, &[(11, 13)]), "r10 14");
    assert!(sc.s.core.in_recovery);
    assert_eq!(sc.recover(), Some(14));
    assert_eq!(sc.window(), (2.0, 2.0));
    assert_eq!(
        sc.s.core.prr_episode(),
        PrrEpisode {
            recover_fs_bytes: 5 * MSS,
            prr_delivered_bytes: 4 * MSS,
            prr_out_bytes: 2 * MSS,
            ..PrrEpisode::default()
        }
    );
    assert!(!sc.s.core.ecn_reduction_under_way());
}
