//! RFC 9406, HyStart++: Modified Slow Start for TCP, scripted sans-I/O:
//! rounds and the per-round minimum RTT (§4.2), the delay-increase exit
//! from slow start into Conservative Slow Start (CSS), growth at 1 /
//! CSS_GROWTH_DIVISOR in CSS, the return to slow start, congestion
//! avoidance after CSS_ROUNDS rounds, the limit L on the increase per ACK,
//! a loss or ECN-Echo during CSS, and HyStart++ in the initial slow start
//! only (§4.3), with the §4.3 constants (RttThresh = clamp(lastRoundMinRTT
//! / 8, 4 ms, 16 ms), N_RTT_SAMPLE = 8, CSS_GROWTH_DIVISOR = 4,
//! CSS_ROUNDS = 5, L = 8 for a sender that does not pace).
//!
//! Every ACK echoes a timestamp exactly `rtt` old, so each ACK of new data
//! carries one RTT sample of that value. One ACK per segment, an initial
//! window of 4 segments and an "arbitrarily high" initial ssthresh: the
//! first round (windowEnd = SND.NXT when the first ACK arrives = 4) is ACKs
//! 1-4; at ACK 4 SND.NXT is 10 (ACK k of slow start sends up to 2k + 4), so
//! round 2 is ACKs 5-10; at ACK 10 SND.NXT is 22, so round 3 is ACKs
//! 11-22, and its 8th sample is ACK 18.

mod common;
use airtcp_core::net::packet::flags;
use airtcp_core::sim::{TimeNs, NS_PER_MS, NS_PER_S};
use airtcp_core::tcp::cc::{CongestionControl, Cubic, CubicConfig, RenoCc};
use airtcp_core::tcp::spec::UNBOUNDED_SSTHRESH_BYTES;
use common::script::*;

const BASE_RTT_NS: TimeNs = 100 * NS_PER_MS;
/// RttThresh for a 100 ms lastRoundMinRTT: 100 / 8 = 12.5 ms, inside
/// [4 ms, 16 ms].
const THRESH_100_NS: TimeNs = 12_500_000;

/// A sender with HyStart++ (`hystart`), controller `cc`, SACK, timestamps,
/// an initial window of 4 and RFC 5681's "arbitrarily high" initial
/// ssthresh; the clock at 1 s.
fn sender(cc: Box<dyn CongestionControl>, hystart: bool, ecn: bool) -> Script {
    let mut cfg = config(4);
    cfg.timestamps = true;
    cfg.ecn = ecn;
    cfg.initial_ssthresh_bytes = UNBOUNDED_SSTHRESH_BYTES;
    cfg.hystart = hystart;
    let mut sc = Script::with_cc(cfg, cc, Recovery::Sack);
    assert_eq!(sc.start(1_000_000), "0 1 2 3");
    sc.now = NS_PER_S;
    sc
}

fn cubic(hystart: bool) -> Script {
    sender(Box::new(Cubic::new(CubicConfig::default())), hystart, false)
}

/// ACK `n` one step later, echoing a timestamp `rtt` old.
fn ack_rtt(sc: &mut Script, n: u64, rtt: TimeNs) -> String {
    let t = sc.now + STEP_NS;
    sc.deliver_at(t, &ack_ts(n, &[], t - rtt))
}

/// ACKs `from..=to`, one per segment, each with an RTT sample `rtt`.
fn acks(sc: &mut Script, from: u64, to: u64, rtt: TimeNs) {
    for n in from..=to {
        ack_rtt(sc, n, rtt);
    }
}

fn cwnd_bytes(sc: &Script) -> u64 {
    sc.s.core.w.cwnd
}

fn snd_nxt(sc: &Script) -> u64 {
    sc.s.core.snd_nxt / MSS
}

/// Rounds 1 and 2 (ACKs 1-10) at `base`, then round 3's first seven
/// samples (ACKs 11-17) at `round3`: slow start throughout, cwnd 4 + 17.
fn up_to_seventh_sample_of_round_3(sc: &mut Script, base: TimeNs, round3: TimeNs) {
    acks(sc, 1, 10, base);
    acks(sc, 11, 17, round3);
    assert_eq!(sc.cwnd(), 21.0);
    assert!(!sc.s.core.hystart.as_ref().unwrap().in_css());
}

/// Into CSS at ACK 18 (§4.2, as `delay_increase_enters_css_...` shows).
fn into_css(sc: &mut Script) {
    up_to_seventh_sample_of_round_3(sc, BASE_RTT_NS, BASE_RTT_NS + THRESH_100_NS);
    ack_rtt(sc, 18, BASE_RTT_NS + THRESH_100_NS);
    assert!(sc.s.core.hystart.as_ref().unwrap().in_css());
}

/// §4.2 "For each arriving ACK in slow start ... cwnd = cwnd + min(N, L *
/// SMSS)" with the delay check never true while the RTT stays flat: with
/// one ACK per segment (N = SMSS) the window and every segment sent are
/// RFC 5681's (the same run without HyStart++), through six rounds; no
/// CSS.
#[test]
fn s4_2_flat_rtt_slow_start_is_unchanged() {
    let mut hy = cubic(true);
    let mut std = cubic(false);
    for n in 1..=100 {
        let out = ack_rtt(&mut hy, n, BASE_RTT_NS);
        assert_eq!(out, ack_rtt(&mut std, n, BASE_RTT_NS), "ACK {n}");
        // Two new segments per ACK: cwnd 4 + n, snd_una n.
        assert_eq!(out, format!("{} {}", 2 * n + 2, 2 * n + 3), "ACK {n}");
        assert_eq!(cwnd_bytes(&hy), (4 + n) * MSS);
    }
    let h = hy.s.core.hystart.as_ref().unwrap();
    assert_eq!((h.css_entries, hy.ssthresh()), (0, std.ssthresh()));
}

/// §4.2 delay increase: "For rounds where at least N_RTT_SAMPLE RTT
/// samples have been obtained and currentRoundMinRTT and lastRoundMinRTT
/// are valid ... if (currentRoundMinRTT >= (lastRoundMinRTT + RttThresh))
/// cssBaselineMinRtt = currentRoundMinRTT, exit slow start and enter CSS";
/// then "For each arriving ACK in CSS ... cwnd = cwnd + (min(N, L * SMSS)
/// / CSS_GROWTH_DIVISOR)". Round 3's RTT is 100 + 12.5 ms: its first seven
/// samples (ACKs 11-17) leave slow start alone; the 8th (ACK 18) enters
/// CSS after that ACK's slow-start growth; from ACK 19 each ACK adds a
/// quarter segment and the sender sends 1.25 segments per ACK instead of 2.
#[test]
fn s4_2_delay_increase_enters_css_at_the_8th_sample_then_grows_a_quarter() {
    let mut sc = cubic(true);
    up_to_seventh_sample_of_round_3(&mut sc, BASE_RTT_NS, BASE_RTT_NS + THRESH_100_NS);
    let r = BASE_RTT_NS + THRESH_100_NS;
    assert_eq!(ack_rtt(&mut sc, 18, r), "38 39");
    assert_eq!(cwnd_bytes(&sc), 22 * MSS);
    assert!(sc.s.core.hystart.as_ref().unwrap().in_css());
    assert_eq!(ack_rtt(&mut sc, 19, r), "40");
    assert_eq!(cwnd_bytes(&sc), 22_250);
    assert_eq!(ack_rtt(&mut sc, 20, r), "41");
    assert_eq!(ack_rtt(&mut sc, 21, r), "42");
    assert_eq!(ack_rtt(&mut sc, 22, r), "43 44");
    assert_eq!(cwnd_bytes(&sc), 23 * MSS);
    // Still slow start as far as ssthresh goes.
    assert_eq!(sc.s.core.w.ssthresh, UNBOUNDED_SSTHRESH_BYTES);
}

/// §4.2 RttThresh = max(MIN_RTT_THRESH, min(lastRoundMinRTT /
/// MIN_RTT_DIVISOR, MAX_RTT_THRESH)) with §4.3's 4 ms, 16 ms and 8: for a
/// last round of 20 ms the threshold is 4 ms (20 / 8 = 2.5 clamped up), of
/// 100 ms 12.5 ms, of 200 ms 16 ms (25 clamped down). A round 3 exactly
/// that much slower enters CSS at its 8th sample; 1 ns less does not.
#[test]
fn s4_2_rtt_thresh_is_an_eighth_of_the_last_round_clamped_to_4_and_16_ms() {
    for (base, thresh) in [
        (20 * NS_PER_MS, 4 * NS_PER_MS),
        (BASE_RTT_NS, THRESH_100_NS),
        (200 * NS_PER_MS, 16 * NS_PER_MS),
    ] {
        for (round3, css) in [(base + thresh, true), (base + thresh - 1, false)] {
            let mut sc = cubic(true);
            up_to_seventh_sample_of_round_3(&mut sc, base, round3);
            ack_rtt(&mut sc, 18, round3);
            ack_rtt(&mut sc, 19, round3);
            let want = if css { 22_250 } else { 23_000 };
            assert_eq!(
                cwnd_bytes(&sc),
                want,
                "last round {base} ns, round 3 {round3} ns"
            );
        }
    }
}

/// §4.2 "lastRoundMinRTT = currentRoundMinRTT" at the start of each round,
/// currentRoundMinRTT the minimum of the round's samples: round 2 has one
/// sample of 100 ms among 110 ms ones, so lastRoundMinRTT is 100 ms and a
/// round 3 at 112.5 ms enters CSS (against 110 ms, RttThresh 13.75 ms, it
/// would not); samples before the round (round 1 at 90 ms) do not count.
#[test]
fn s4_2_last_round_min_rtt_is_the_previous_rounds_minimum() {
    let mut sc = cubic(true);
    acks(&mut sc, 1, 4, 90 * NS_PER_MS);
    acks(&mut sc, 5, 7, 110 * NS_PER_MS);
    ack_rtt(&mut sc, 8, BASE_RTT_NS);
    acks(&mut sc, 9, 10, 110 * NS_PER_MS);
    acks(&mut sc, 11, 18, BASE_RTT_NS + THRESH_100_NS);
    assert!(sc.s.core.hystart.as_ref().unwrap().in_css());
    assert_eq!(cwnd_bytes(&sc), 22 * MSS);
}

/// §4.2 "For CSS rounds where at least N_RTT_SAMPLE RTT samples have been
/// obtained ... if (currentRoundMinRTT < cssBaselineMinRtt)
/// cssBaselineMinRtt = infinity, resume slow start including HyStart++".
/// CSS from ACK 18 (baseline 112.5 ms); round 3 ends at ACK 22 and round 4
/// (windowEnd = SND.NXT then = 43) has samples of 105 ms: its first seven
/// (ACKs 23-29) and the 8th (ACK 30) still grow a quarter, and from ACK 31
/// slow start's full segment again; round 4's minimum, 105 ms, is not
/// RttThresh above round 3's 112.5 ms, so no new CSS.
#[test]
fn s4_2_a_css_round_below_the_baseline_resumes_slow_start() {
    let mut sc = cubic(true);
    into_css(&mut sc);
    acks(&mut sc, 19, 22, BASE_RTT_NS + THRESH_100_NS);
    assert_eq!(snd_nxt(&sc), 45);
    let low = 105 * NS_PER_MS;
    for n in 23..=30 {
        ack_rtt(&mut sc, n, low);
        assert_eq!(cwnd_bytes(&sc), 23_000 + (n - 22) * 250, "ACK {n}");
    }
    assert!(!sc.s.core.hystart.as_ref().unwrap().in_css());
    acks(&mut sc, 31, 40, low);
    assert_eq!(cwnd_bytes(&sc), 25_000 + 10 * MSS);
    assert_eq!(sc.s.core.hystart.as_ref().unwrap().css_entries, 1);
}

/// §4.2 "CSS lasts at most CSS_ROUNDS rounds. If the transition into CSS
/// happens in the middle of a round, that partial round counts towards the
/// limit." and "If CSS_ROUNDS rounds are complete, enter congestion
/// avoidance by setting the ssthresh to the current cwnd." The RTT stays at
/// the baseline: round 3 (entered at ACK 18) is CSS round 1; each later
/// round ends at the ACK reaching SND.NXT as it was when the previous one
/// ended; at the end of the 5th, ssthresh = cwnd, and the next ACK is
/// congestion avoidance (Reno's SMSS * SMSS / cwnd). By hand: after ACK k
/// of CSS, cwnd = 22 + (k - 18) / 4 segments and SND.NXT = k + 22 +
/// floor((k - 18) / 4), so the rounds end at ACKs 22, 43, 70 (SND.NXT after
/// ACK 42), 103 and 145, where cwnd = 22 + 127 / 4 = 53.75 segments.
#[test]
fn s4_2_congestion_avoidance_after_css_rounds_rounds_with_ssthresh_cwnd() {
    let mut sc = sender(Box::new(RenoCc), true, false);
    into_css(&mut sc);
    let r = BASE_RTT_NS + THRESH_100_NS;
    let mut window_end = 22;
    let mut rounds = 0;
    let mut n = 19;
    loop {
        let before = cwnd_bytes(&sc);
        let next_end = sc.s.core.snd_nxt / MSS;
        ack_rtt(&mut sc, n, r);
        assert_eq!(cwnd_bytes(&sc), before + 250, "ACK {n}: CSS growth");
        if n >= window_end {
            rounds += 1;
            window_end = next_end;
        }
        if rounds == 5 {
            break;
        }
        assert_eq!(sc.s.core.w.ssthresh, UNBOUNDED_SSTHRESH_BYTES, "ACK {n}");
        n += 1;
    }
    assert_eq!(n, 145);
    let cwnd = cwnd_bytes(&sc);
    assert_eq!(cwnd, 53_750);
    assert_eq!(sc.s.core.w.ssthresh, cwnd);
    ack_rtt(&mut sc, n + 1, r);
    assert_eq!(cwnd_bytes(&sc), cwnd + MSS * MSS / cwnd);
    assert_eq!(sc.s.core.w.ssthresh, cwnd);
}

/// §4.2 "the HyStart++ algorithm limits the number of those bytes applied
/// to increase the cwnd to L*SMSS bytes", L = 8 when not paced (§4.3):
/// in slow start an ACK of 3 segments adds 3 (RFC 5681 alone: 1), one of
/// 8 adds 8 and one of 16 adds 8; in CSS one of 12 adds 8 / 4 = 2.
#[test]
fn s4_2_increase_per_ack_is_limited_to_l_smss() {
    let mut sc = cubic(true);
    assert_eq!(ack_rtt(&mut sc, 3, BASE_RTT_NS), range(4, 9));
    assert_eq!(cwnd_bytes(&sc), 7 * MSS);
    ack_rtt(&mut sc, 4, BASE_RTT_NS);
    assert_eq!(cwnd_bytes(&sc), 8 * MSS);
    assert_eq!(ack_rtt(&mut sc, 12, BASE_RTT_NS), range(12, 27));
    assert_eq!(cwnd_bytes(&sc), 16 * MSS);
    assert_eq!(ack_rtt(&mut sc, 28, BASE_RTT_NS), range(28, 51));
    assert_eq!(cwnd_bytes(&sc), 24 * MSS);
    // Without HyStart++: min(N, SMSS).
    let mut std = cubic(false);
    ack_rtt(&mut std, 3, BASE_RTT_NS);
    assert_eq!(cwnd_bytes(&std), 5 * MSS);

    let mut css = cubic(true);
    into_css(&mut css);
    ack_rtt(&mut css, 30, BASE_RTT_NS + THRESH_100_NS);
    assert_eq!(cwnd_bytes(&css), 22 * MSS + 8 * MSS / 4);
}

/// §4.2: a loss during CSS is answered by the controller's congestion
/// response (here Reno's ssthresh = max(FlightSize / 2, 2 SMSS) at the
/// timeout, cwnd = 1 SMSS), not by HyStart++; and §4.3 "An implementation
/// SHOULD use HyStart++ only for the initial slow start (when the ssthresh
/// is at its initial value of arbitrarily high per [RFC5681]) and fall back
/// to using standard slow start for the remainder of the connection
/// lifetime": the slow start after the timeout adds min(N, SMSS), not
/// min(N, L * SMSS).
#[test]
fn s4_2_s4_3_a_loss_in_css_ends_hystart_and_later_slow_start_is_rfc5681() {
    let mut sc = sender(Box::new(RenoCc), true, false);
    into_css(&mut sc);
    let flight = sc.s.core.snd_max - sc.s.core.snd_una;
    assert_eq!(flight, 22 * MSS);
    assert_eq!(sc.timeout(), "r18");
    assert_eq!(sc.window(), (1.0, 11.0));
    ack_rtt(&mut sc, 20, BASE_RTT_NS);
    assert_eq!(sc.window(), (2.0, 11.0));
}

/// §4.2 (ECN-Echo in CSS, as a loss): RFC 3168's response, ssthresh =
/// max(FlightSize / 2, 2 SMSS) and cwnd = ssthresh (Reno), ends CSS; the
/// next ACK grows the window as congestion avoidance, not by a quarter.
#[test]
fn s4_2_ecn_echo_in_css_ends_hystart() {
    let mut sc = sender(Box::new(RenoCc), true, true);
    into_css(&mut sc);
    let t = sc.now + STEP_NS;
    let mut p = ack_ts(19, &[], t - BASE_RTT_NS - THRESH_100_NS);
    p.flags |= flags::ECE;
    sc.deliver_at(t, &p);
    // FlightSize at the ECE: snd_max 40 - snd_una 18 (before the ACK).
    assert_eq!(sc.window(), (11.0, 11.0));
    ack_rtt(&mut sc, 20, BASE_RTT_NS + THRESH_100_NS);
    assert_eq!(cwnd_bytes(&sc), 11 * MSS + MSS * MSS / (11 * MSS));
}
