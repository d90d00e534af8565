//! RFC 9937, Proportional Rate Reduction for TCP (option
//! `proportional_rate_reduction`, SACK loss recovery only): §6.1's
//! initialization, §6.2's per-ACK steps (the proportional part, PRR-CRB,
//! PRR-SSRB and SafeACK, the forced fast retransmit), §6.3's prr_out,
//! §6.4's completion, and §8's two worked examples, scripted sans-I/O
//! (segments of 1000 bytes; SACK blocks are inclusive segment ranges,
//! `tests/common/script.rs`). Each exchange is also run without the option
//! where RFC 6675 §5 gives a different answer.

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
    sc.s.core.sb.pipe(sc.s.core.high_rxt) / MSS
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
