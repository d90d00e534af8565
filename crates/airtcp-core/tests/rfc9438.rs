//! RFC 9438, CUBIC for Fast and Long-Distance Networks: the window
//! function (§4.2), the Reno-friendly region (§4.3), the concave and convex
//! regions (§4.4, §4.5), the multiplicative decrease (§4.6), fast
//! convergence (§4.7), timeouts (§4.8) and the first slow start (§4.10),
//! scripted sans-I/O.
//!
//! Every ACK echoes a timestamp 100 ms old, so each RTT sample is 100 ms
//! and SRTT is exactly 0.1 s. The expected windows are computed here from
//! the RFC's equations (`Rfc9438`), step by step over the same ACK times,
//! independently of `cc/cubic.rs`; hand-computed values anchor each test.

mod common;
use airtcp_core::metrics::SeriesMetric;
use airtcp_core::sim::{TimeNs, NS_PER_MS, NS_PER_S};
use airtcp_core::tcp::cc::{Cubic, CubicConfig};
use airtcp_core::tcp::core::{MarkWindowFloor, TraceEvent};
use common::script::*;

const RTT_NS: TimeNs = 100 * NS_PER_MS;
const SRTT_S: f64 = 0.1;

/// A CUBIC sender with `iw` segments of initial window, SACK recovery,
/// timestamps, and ssthresh `ssthresh` segments.
fn cubic_sender(cubic: CubicConfig, iw: u32, ssthresh: u64) -> Script {
    cubic_sender_with(cubic, iw, ssthresh, false, 1_000_000)
}

/// The same with HyStart++ (RFC 9406) or not, and `segments` to send.
fn cubic_sender_with(
    cubic: CubicConfig,
    iw: u32,
    ssthresh: u64,
    hystart: bool,
    segments: u64,
) -> Script {
    let mut cfg = config(iw);
    cfg.timestamps = true;
    cfg.initial_ssthresh_bytes = ssthresh * MSS;
    cfg.hystart = hystart;
    let mut sc = Script::with_cc(cfg, Box::new(Cubic::new(cubic)), Recovery::Sack);
    sc.start(segments);
    sc
}

/// Deliver ACK `n` with SACK blocks at `t`, echoing a timestamp one RTT old.
fn ack_at(sc: &mut Script, t: TimeNs, n: u64, sacks: &[(u64, u64)]) -> String {
    sc.deliver_at(t, &ack_ts(n, sacks, t - RTT_NS))
}

fn snd_una(sc: &Script) -> u64 {
    sc.s.core.snd_una / MSS
}

fn snd_max(sc: &Script) -> u64 {
    sc.s.core.snd_max / MSS
}

/// Lose segment snd_una: three SACKs of the segments above it enter
/// recovery (RFC 6675); then everything outstanding is acknowledged, which
/// ends it. Returns (cwnd before the loss, FlightSize at the loss), in
/// segments, and the time of the last ACK.
fn lose_one(sc: &mut Script, t: TimeNs) -> (f64, f64, TimeNs) {
    let n = snd_una(sc);
    let cwnd = sc.cwnd();
    let flight = (snd_max(sc) - n) as f64;
    ack_at(sc, t, n, &[(n + 1, n + 1)]);
    ack_at(sc, t + NS_PER_MS, n, &[(n + 1, n + 2)]);
    assert_eq!(
        ack_at(sc, t + 2 * NS_PER_MS, n, &[(n + 1, n + 3)]),
        format!("r{n}")
    );
    let end = snd_max(sc);
    ack_at(sc, t + RTT_NS, end, &[]);
    assert!(!sc.s.core.in_recovery);
    (cwnd, flight, t + RTT_NS)
}

/// One ACK per segment, in order, spaced SRTT / cwnd apart (the ACK clock
/// of a window per round trip), from `from` until `until`. Returns the
/// time, segments acknowledged and cwnd (bytes) after each ACK.
fn ack_clock(sc: &mut Script, from: TimeNs, until: TimeNs) -> Vec<(TimeNs, f64, u64)> {
    let mut t = from;
    let mut log = Vec::new();
    while t < until {
        let n = snd_una(sc) + 1;
        assert!(n <= snd_max(sc), "nothing outstanding at {t}");
        ack_at(sc, t, n, &[]);
        log.push((t, 1.0, sc.s.core.w.cwnd));
        t += (RTT_NS as f64 / sc.cwnd()) as TimeNs;
    }
    log
}

/// RFC 9438's congestion avoidance, written from its text: windows in
/// segments, times in seconds.
struct Rfc9438 {
    c: f64,
    beta: f64,
    w_max: f64,
    k: f64,
    t_epoch: f64,
    w_est: f64,
    cwnd: f64,
    cwnd_prior: f64,
}

impl Rfc9438 {
    /// A congestion avoidance stage starting at `t_epoch` with cwnd_epoch
    /// = `cwnd`: §4.2 Figure 2, K = cbrt((W_max - cwnd_epoch) / C);
    /// §4.3 W_est = cwnd_epoch.
    fn stage(c: f64, beta: f64, w_max: f64, cwnd: f64, cwnd_prior: f64, t_epoch: f64) -> Self {
        Self {
            c,
            beta,
            w_max,
            k: ((w_max - cwnd) / c).cbrt(),
            t_epoch,
            w_est: cwnd,
            cwnd,
            cwnd_prior,
        }
    }

    /// §4.2 Figure 1.
    fn w_cubic(&self, t: f64) -> f64 {
        self.c * (t - self.k).powi(3) + self.w_max
    }

    /// A new ACK of `segments_acked` at time `now` (seconds): §4.3 Figure
    /// 4 and the region choice; §4.2 target; §4.4/§4.5 per-ACK growth.
    fn ack(&mut self, now: f64, segments_acked: f64) {
        let alpha = if self.w_est >= self.cwnd_prior {
            1.0
        } else {
            3.0 * (1.0 - self.beta) / (1.0 + self.beta)
        };
        self.w_est += alpha * segments_acked / self.cwnd;
        let t = now - self.t_epoch;
        if self.w_cubic(t) < self.w_est {
            self.cwnd = self.cwnd.max(self.w_est);
        } else {
            let w = self.w_cubic(t + SRTT_S);
            let target = if w < self.cwnd {
                self.cwnd
            } else if w > 1.5 * self.cwnd {
                1.5 * self.cwnd
            } else {
                w
            };
            self.cwnd += (target - self.cwnd) / self.cwnd;
        }
    }
}

fn secs(t: TimeNs) -> f64 {
    t as f64 / NS_PER_S as f64
}

/// Run the model over the sender's ACK log (the first entry starts the
/// stage) and check every window to the byte. Returns the model's windows.
fn check_against_model(log: &[(TimeNs, f64, u64)], mut m: Rfc9438, what: &str) -> Vec<f64> {
    let mut out = Vec::new();
    for (i, &(t, acked, cwnd_bytes)) in log.iter().enumerate() {
        m.ack(secs(t), acked);
        let expected = m.cwnd * MSS as f64;
        assert!(
            (cwnd_bytes as f64 - expected).abs() <= 1.0,
            "{what}: ACK {i} at {:.4} s: cwnd {cwnd_bytes} B, RFC 9438 gives {expected:.1} B",
            secs(t)
        );
        out.push(m.cwnd);
    }
    out
}

/// §4.6: a congestion event sets ssthresh = flight_size x beta_cubic (0.7)
/// and cwnd = ssthresh; §4.7: the first event has no earlier W_max, so
/// W_max = cwnd. Then §4.2: K = cbrt((W_max - cwnd_epoch) / C) =
/// cbrt((100 - 70) / 0.4) = 4.217 s, and cwnd follows W_cubic(t + RTT):
/// concave up to the plateau at W_max near t = K, convex after it.
#[test]
fn s4_2_s4_6_window_follows_the_cubic_function_after_a_loss() {
    let mut sc = cubic_sender(CubicConfig::default(), 100, 10_000);
    let (cwnd, flight, t) = lose_one(&mut sc, RTT_NS);
    assert_eq!((cwnd, flight), (100.0, 100.0));
    assert_eq!(sc.window(), (70.0, 70.0), "ssthresh = cwnd = 0.7 x 100");
    let t0 = t + NS_PER_MS;
    let log = ack_clock(&mut sc, t0, t0 + 8 * NS_PER_S);
    let m = Rfc9438::stage(0.4, 0.7, 100.0, 70.0, 100.0, secs(t0));
    let k = m.k;
    assert!((k - 75f64.cbrt()).abs() < 1e-12 && (k - 4.2172).abs() < 1e-4);
    let w = check_against_model(&log, m, "after a loss");
    // The shape, from the raw log: growth in the first second, around K
    // and 3 s after K.
    let cwnd_at = |s: f64| {
        let i = log
            .iter()
            .position(|&(t, _, _)| secs(t - t0) >= s)
            .expect("logged");
        log[i].2 as f64 / MSS as f64
    };
    let early = cwnd_at(1.0) - cwnd_at(0.0);
    let plateau = cwnd_at(k + 0.5) - cwnd_at(k - 0.5);
    let late = cwnd_at(k + 3.5) - cwnd_at(k + 2.5);
    assert!(
        early > 10.0 && plateau < 1.0 && late > 5.0,
        "{early} {plateau} {late}"
    );
    let near_k = cwnd_at(k);
    assert!((99.0..=101.0).contains(&near_k), "cwnd {near_k} at t = K");
    assert!(w.iter().all(|&c| c >= 70.0));
}

/// §4.2: target is at most 1.5 cwnd. With C = 1000 segments/s^3 (K =
/// cbrt(6 / 1000) = 0.18 s), from t = 0.45 s on W_cubic(t + RTT) >=
/// 1000 x 0.37^3 + 20 = 70.7 segments runs ahead of 1.5 cwnd (cwnd is
/// below 47 there), so each ACK adds (1.5 cwnd - cwnd) / cwnd = 0.5
/// segment: 500 bytes.
#[test]
fn s4_2_target_is_bounded_by_one_and_a_half_cwnd() {
    let cubic = CubicConfig {
        c: 1000.0,
        ..CubicConfig::default()
    };
    let mut sc = cubic_sender(cubic, 20, 10_000);
    let (_, _, t) = lose_one(&mut sc, RTT_NS);
    assert_eq!(sc.cwnd(), 14.0);
    let t0 = t + NS_PER_MS;
    let log = ack_clock(&mut sc, t0, t0 + 600 * NS_PER_MS);
    let m = Rfc9438::stage(1000.0, 0.7, 20.0, 14.0, 20.0, secs(t0));
    check_against_model(&log, m, "C = 1000");
    let clamped: Vec<i64> = log
        .windows(2)
        .filter(|p| p[0].0 >= t0 + 450 * NS_PER_MS)
        .map(|p| p[1].2 as i64 - p[0].2 as i64)
        .collect();
    assert!(clamped.len() > 10, "{}", clamped.len());
    assert!(log
        .iter()
        .all(|l| l.0 >= t0 + 450 * NS_PER_MS || l.2 < 47_000));
    assert!(clamped.iter().all(|d| (d - 500).abs() <= 1), "{clamped:?}");
}

/// §4.3: with W_max = 10 after the loss (cwnd_epoch 7, K = cbrt(7.5) =
/// 1.957 s) the cubic curve starts slower than Reno: W_cubic(t) < W_est,
/// and cwnd follows W_est, which grows by alpha_cubic = 3 (1 - 0.7) /
/// (1 + 0.7) = 0.5294 segment per cwnd of ACKs; once W_est reaches
/// cwnd_prior (10 segments) alpha_cubic is 1.
#[test]
fn s4_3_reno_friendly_region_and_alpha_switch_at_cwnd_prior() {
    let mut sc = cubic_sender(CubicConfig::default(), 10, 10_000);
    let (_, _, t) = lose_one(&mut sc, RTT_NS);
    assert_eq!(sc.cwnd(), 7.0);
    let t0 = t + NS_PER_MS;
    let log = ack_clock(&mut sc, t0, t0 + 2 * NS_PER_S);
    // First ACK: W_est = 7 + 0.5294 / 7 = 7.0756; W_cubic(0) = 7.
    assert_eq!(log[0].2, 7075);
    let m = Rfc9438::stage(0.4, 0.7, 10.0, 7.0, 10.0, secs(t0));
    let w = check_against_model(&log, m, "Reno-friendly");
    // Per-ACK growth below and above cwnd_prior, in segments per ACK x
    // cwnd: alpha_cubic, then 1.
    let alpha_at = |i: usize| (w[i] - w[i - 1]) * w[i - 1];
    let cross = w
        .iter()
        .position(|&c| c >= 10.0)
        .expect("reaches cwnd_prior");
    assert!(
        (alpha_at(5) - 3.0 * 0.3 / 1.7).abs() < 1e-9,
        "{}",
        alpha_at(5)
    );
    assert!(
        (alpha_at(cross + 2) - 1.0).abs() < 1e-9,
        "{}",
        alpha_at(cross + 2)
    );
}

/// §4.7 fast convergence: a congestion event below the last W_max sets
/// W_max = cwnd (1 + beta) / 2 before the reduction; without it W_max =
/// cwnd. The following stage's window matches the RFC with the reduced
/// W_max and not with the other.
#[test]
fn s4_7_fast_convergence_reduces_w_max() {
    for fast_convergence in [true, false] {
        let cubic = CubicConfig {
            fast_convergence,
            ..CubicConfig::default()
        };
        let mut sc = cubic_sender(cubic, 100, 10_000);
        let (_, _, t) = lose_one(&mut sc, RTT_NS);
        let t1 = t + NS_PER_MS;
        let log = ack_clock(&mut sc, t1, t1 + 2 * NS_PER_S);
        let (cwnd, flight, t) = lose_one(&mut sc, log.last().unwrap().0 + NS_PER_MS);
        assert!(cwnd < 100.0, "second loss below W_max = 100 ({cwnd})");
        let ssthresh = (flight * 0.7 * MSS as f64).floor() / MSS as f64;
        assert_eq!(
            sc.window(),
            (ssthresh, ssthresh),
            "§4.6 on FlightSize {flight}"
        );
        let w_max = if fast_convergence {
            cwnd * (1.0 + 0.7) / 2.0
        } else {
            cwnd
        };
        let t2 = t + NS_PER_MS;
        let log = ack_clock(&mut sc, t2, t2 + 3 * NS_PER_S);
        let m = Rfc9438::stage(0.4, 0.7, w_max, ssthresh, cwnd, secs(t2));
        check_against_model(&log, m, &format!("fast convergence {fast_convergence}"));
        let other = if fast_convergence {
            cwnd
        } else {
            cwnd * 1.7 / 2.0
        };
        let mut wrong = Rfc9438::stage(0.4, 0.7, other, ssthresh, cwnd, secs(t2));
        let differs = log.iter().any(|&(t, a, c)| {
            wrong.ack(secs(t), a);
            (wrong.cwnd * MSS as f64 - c as f64).abs() > 100.0
        });
        assert!(differs, "the other W_max gives the same windows");
    }
}

/// §4.8: a timeout sets ssthresh = flight_size x 0.7 and cwnd = 1 SMSS;
/// after slow start, the first congestion avoidance stage has K = 0 and
/// W_max = cwnd at its start, so W_cubic(t) = C t^3 + cwnd_epoch.
#[test]
fn s4_8_timeout_sets_ssthresh_by_beta_and_restarts_with_k_zero() {
    let mut sc = cubic_sender(CubicConfig::default(), 100, 10_000);
    let (_, _, t) = lose_one(&mut sc, RTT_NS);
    let t1 = t + NS_PER_MS;
    let log = ack_clock(&mut sc, t1, t1 + NS_PER_S);
    let flight = (snd_max(&sc) - snd_una(&sc)) as f64;
    let cwnd_before = sc.cwnd();
    assert!(sc.timeout().starts_with('r'));
    let ssthresh = (flight * 0.7 * MSS as f64).floor() / MSS as f64;
    assert_eq!(sc.window(), (1.0, ssthresh));
    // Slow start (every segment was sent before the timeout: they are all
    // retransmitted, one more per ACK) up to ssthresh.
    let mut t = sc.now + RTT_NS;
    while sc.cwnd() < ssthresh {
        let n = snd_una(&sc) + 1;
        ack_at(&mut sc, t, n, &[]);
        t += NS_PER_MS;
    }
    let cwnd_epoch = sc.cwnd();
    let log2 = ack_clock(&mut sc, t, t + 3 * NS_PER_S);
    // cwnd_prior is the cwnd at the timeout.
    let m = Rfc9438::stage(0.4, 0.7, cwnd_epoch, cwnd_epoch, cwnd_before, secs(t));
    assert_eq!(m.k, 0.0);
    check_against_model(&log2, m, "after a timeout");
    assert!(log.len() > 100);
}

/// §4.10: congestion avoidance entered without a congestion event (cwnd =
/// ssthresh from the start) sets cwnd_prior = cwnd, K = 0 and W_max =
/// cwnd: W_est = cwnd_prior at once, so alpha_cubic = 1 and the first ACK
/// adds 1/10 segment (Reno-friendly region: W_cubic(t) = 10 + 0.4 t^3).
#[test]
fn s4_10_congestion_avoidance_without_a_loss_starts_with_k_zero() {
    let mut sc = cubic_sender(CubicConfig::default(), 10, 10);
    let t0 = RTT_NS + NS_PER_MS;
    let log = ack_clock(&mut sc, t0, t0 + 3 * NS_PER_S);
    assert_eq!(log[0].2, 10_100);
    let m = Rfc9438::stage(0.4, 0.7, 10.0, 10.0, 10.0, secs(t0));
    check_against_model(&log, m, "first stage");
}

/// §4.6 Figure 5 on ECN-Echo: ssthresh = flight_size x beta_cubic, then
/// "cwnd = max(ssthresh, 1)" (reduction on ECE, at least 1 MSS) and
/// "ssthresh = max(ssthresh, 2)": with FlightSize 2, 0.7 x 2 = 1.4
/// segments gives cwnd 1.4 and ssthresh 2 segments; with FlightSize 10,
/// both are 7. cwnd_prior is the cwnd before the reduction.
#[test]
fn s4_6_ecn_echo_floors_cwnd_at_one_segment_and_ssthresh_at_two() {
    for (iw, ece_ack, flight, cwnd, ssthresh) in [(2, 0, 2.0, 1.4, 2.0), (10, 1, 10.0, 7.0, 7.0)] {
        let mut cfg = config(iw);
        cfg.ecn = true;
        let mut sc = Script::with_cc(
            cfg,
            Box::new(Cubic::new(CubicConfig::default())),
            Recovery::Sack,
        );
        sc.start(100);
        assert_eq!((snd_max(&sc) - snd_una(&sc)) as f64, flight);
        sc.deliver(&ack_ece(ece_ack, &[]));
        assert_eq!(sc.window(), (cwnd, ssthresh), "FlightSize {flight}");
    }
}

/// §4.1.2's t_epoch and cwnd_epoch, "the time [and the cwnd] at the
/// beginning of the current congestion avoidance stage", when an
/// ECN-Echo's reduction is spread by RFC 9937 PRR (`proportional_rate_reduction`):
/// the stage begins after the episode, not on an ACK inside it. RFC 9937
/// §4 makes the ECN-Echo's reduction one episode, from the ECN-Echo ACK to
/// the ACK that reaches its RecoveryPoint, where §6.4 sets cwnd =
/// ssthresh; RFC 3168 §6.1.2 allows no window increase for it. ACKs
/// without ECE can fall inside the episode: here the receiver got segment
/// 10, which carries CWR, before segments 2-9 (its duplicate ACK for 10 was
/// lost), so it echoes no ECE on ACKs 3-9.
///
/// Segments 0-9 out, cwnd = ssthresh = 10 (congestion avoidance), no SACK.
/// * ACK 1 (ECE): §4.6 ssthresh = 0.7 x FlightSize 10 = 7 segments;
///   §4.7 W_max = 10 (the first event), cwnd_prior = 10. RFC 9937 §6.1
///   RecoverFS = 10000, RecoveryPoint 10000; §6.2: SndCnt = ceil(1000 x
///   7000 / 10000) - 0 = 700, cwnd = 9000 + 700 = 9700; nothing sent.
/// * ACK 2 (ECE): ceil(2000 x 0.7) - 0 = 1400, cwnd 9400: segment 10
///   (prr_out 1000).
/// * ACK 3 (no ECE): pipe 11000 - 3000 = 8000: 2100 - 1000, cwnd 9100:
///   segment 11 (prr_out 2000).
/// * ACK 4: pipe 8000: 2800 - 2000, cwnd 8800: nothing.
/// * ACK 5: pipe 7000, not above ssthresh: SndCnt = MIN(7000 - 7000, ...)
///   = 0, cwnd 7000.
/// * ACKs 6-9: pipe 6000: SndCnt = MIN(1000, MAX(prr_delivered - prr_out,
///   1000) + 1000 (SafeACK)) = 1000, cwnd 7000: segments 12-15.
/// * ACK 11 (segment 9 fills the hole below 10): past RecoveryPoint, §6.4
///   cwnd = ssthresh = 7000, no §6.2 step; FlightSize 5000: 16, 17.
///
/// Then the stage begins on the next ACK: t_epoch its time, cwnd_epoch 7,
/// K = cbrt((10 - 7) / 0.4) = 1.957 s, W_est = 7, and every window of the
/// following 3 s is RFC 9438's from there. A stage begun on ACK 3 (the
/// controller's growth run on an ACK without ECE) would start at cwnd 9.4
/// with W_est 9.4: after the episode cwnd would jump to W_est.
#[test]
fn s4_1_2_with_prr_an_ecn_echo_s_stage_begins_after_its_episode() {
    let mut cfg = config(10);
    cfg.timestamps = true;
    cfg.ecn = true;
    cfg.proportional_rate_reduction = true;
    cfg.initial_ssthresh_bytes = 10 * MSS;
    let mut sc = Script::with_cc(
        cfg,
        Box::new(Cubic::new(CubicConfig::default())),
        Recovery::NewReno,
    );
    assert_eq!(sc.start(1000), "0 1 2 3 4 5 6 7 8 9");
    let rows: [(u64, bool, &str, u64); 10] = [
        (1, true, "", 9700),
        (2, true, "10", 9400),
        (3, false, "11", 9100),
        (4, false, "", 8800),
        (5, false, "", 7000),
        (6, false, "12", 7000),
        (7, false, "13", 7000),
        (8, false, "14", 7000),
        (9, false, "15", 7000),
        (11, false, "16 17", 7000),
    ];
    let mut t = RTT_NS;
    for (n, ece, sent, cwnd) in rows {
        t += NS_PER_MS;
        let mut p = ack_ts(n, &[], t - RTT_NS);
        if ece {
            p.flags |= airtcp_core::net::packet::flags::ECE;
        }
        assert_eq!(sc.deliver_at(t, &p), sent, "ACK {n}");
        assert_eq!(sc.window(), (cwnd as f64 / MSS as f64, 7.0), "ACK {n}");
    }
    assert_eq!(sc.s.core.stats.ecn_reductions, 1);
    let t0 = t + NS_PER_MS;
    let log = ack_clock(&mut sc, t0, t0 + 3 * NS_PER_S);
    let m = Rfc9438::stage(0.4, 0.7, 10.0, 7.0, 10.0, secs(t0));
    assert!((m.k - 7.5f64.cbrt()).abs() < 1e-12);
    check_against_model(&log, m, "after the episode");
}

/// ACK `n` echoing a timestamp one RTT old, advertising a receive window of
/// `wnd` segments.
fn ack_with_window(n: u64, wnd: u64, t: TimeNs) -> airtcp_core::net::packet::Packet {
    let mut p = ack_ts(n, &[], t - RTT_NS);
    p.wnd = wnd * MSS;
    p
}

/// §5.8: "A flow is application limited if it is using less than the
/// allowed congestion window", whether the sender's application or the
/// receiver's (through its advertised window) holds it back, and "CUBIC does
/// not increase its congestion window if a flow is application limited".
/// Slow start with an initial window of 10 segments and a receiver that
/// advertises 10: the first ACK finds all 10 in flight, the whole window in
/// use, and grows cwnd to 11 (RFC 5681 (2)). From then on the receiver's
/// window keeps 10 in flight under a cwnd of 11, room for one more segment
/// that is never used, and cwnd stays 11 however many ACKs arrive; each
/// ACK moves the receiver's window by one segment and lets one out. The
/// same with HyStart++ as the slow start (§4.10's SHOULD, RFC 9406): it
/// changes how slow start grows the window, not whether it may.
#[test]
fn s5_8_a_receive_window_limited_flow_does_not_grow_cwnd_in_slow_start() {
    for hystart in [false, true] {
        let mut sc = cubic_sender_with(CubicConfig::default(), 10, 10_000, hystart, 1_000_000);
        let mut t = RTT_NS;
        for n in 1..=300 {
            let out = sc.deliver_at(t, &ack_with_window(n, 10, t));
            assert_eq!(out, format!("{}", n + 9), "HyStart++ {hystart}: ACK {n}");
            assert_eq!(sc.cwnd(), 11.0, "HyStart++ {hystart}: cwnd after ACK {n}");
            t += NS_PER_MS;
        }
    }
}

/// §5.8 in congestion avoidance (§4.10: cwnd = ssthresh = 10 segments from
/// the start, K = 0, W_max = 10, so W_cubic(t) = 10 + 0.4 t^3). The
/// receiver advertises 10 segments. While cwnd is below 11 segments, 10 in
/// flight leave no room for another full-sized segment: the window is in
/// use and grows by the RFC (the model checks each ACK). Once cwnd reaches
/// 11 segments the flow uses less than it: cwnd stays where that ACK left
/// it for the next 1,000 ACKs over 10 s, where the unlimited window
/// function would have passed 400 segments.
#[test]
fn s5_8_a_receive_window_limited_flow_does_not_grow_cwnd_in_congestion_avoidance() {
    let mut sc = cubic_sender(CubicConfig::default(), 10, 10);
    let t0 = RTT_NS + NS_PER_MS;
    let mut m = Rfc9438::stage(0.4, 0.7, 10.0, 10.0, 10.0, secs(t0));
    let mut t = t0;
    let mut n = 1;
    while sc.cwnd() < 11.0 {
        assert_eq!(
            sc.deliver_at(t, &ack_with_window(n, 10, t)),
            format!("{}", n + 9)
        );
        m.ack(secs(t), 1.0);
        assert!(
            (sc.s.core.w.cwnd as f64 - m.cwnd * MSS as f64).abs() <= 1.0,
            "ACK {n}"
        );
        n += 1;
        t += NS_PER_MS;
    }
    let reached = sc.s.core.w.cwnd;
    assert!(
        reached < 12 * MSS,
        "one ACK adds less than a segment: {reached}"
    );
    for _ in 0..1000 {
        t += 10 * NS_PER_MS;
        assert_eq!(
            sc.deliver_at(t, &ack_with_window(n, 10, t)),
            format!("{}", n + 9)
        );
        assert_eq!(sc.s.core.w.cwnd, reached, "ACK {n} at {:.2} s", secs(t));
        n += 1;
    }
    assert!(m.w_cubic(secs(t) - secs(t0)) > 400.0);
}

/// §5.8 with the sender's application, and §4.2: t "MUST NOT include"
/// periods when cwnd was not updated because the flow was application
/// limited, "such as idle periods". After a loss (W_max = 100, cwnd = 70,
/// K = 4.217 s) the application has no more data once the 70 segments sent
/// at the end of recovery are out. The stage's first ACK finds all 70 in
/// flight and grows cwnd (§4.2 at t = 0); the other 69 ACKs find fewer than
/// cwnd in flight and leave it alone; then the sender is idle. When the
/// application writes again 2 s after the first ACK, the sender fills its
/// window at once, and from then on cwnd follows the RFC with t counting
/// only the time the window was in use: the 2 s are left out (a model that
/// counts them gives other windows).
#[test]
fn s5_8_s4_2_t_leaves_out_an_application_limited_period() {
    let mut sc = cubic_sender_with(CubicConfig::default(), 100, 10_000, false, 170);
    let (_, _, t) = lose_one(&mut sc, RTT_NS);
    assert_eq!((snd_una(&sc), snd_max(&sc), sc.cwnd()), (100, 170, 70.0));
    let ta = t + NS_PER_MS;
    let mut m = Rfc9438::stage(0.4, 0.7, 100.0, 70.0, 100.0, secs(ta));
    assert_eq!(ack_at(&mut sc, ta, 101, &[]), "");
    m.ack(secs(ta), 1.0);
    let grown = sc.s.core.w.cwnd;
    assert!((grown as f64 - m.cwnd * MSS as f64).abs() <= 1.0 && grown > 70 * MSS);
    for n in 102..=170 {
        assert_eq!(ack_at(&mut sc, ta + (n - 101) * NS_PER_MS, n, &[]), "");
        assert_eq!(
            sc.s.core.w.cwnd, grown,
            "ACK {n}: no growth while application limited"
        );
    }
    let tw = ta + 2 * NS_PER_S;
    let window = grown / MSS;
    assert_eq!(sc.write_at(tw, 1_000_000), range(170, 170 + window - 1));
    let log = ack_clock(&mut sc, tw + RTT_NS, tw + 5 * NS_PER_S);
    let in_use: Vec<_> = log.iter().map(|&(t, a, c)| (t - (tw - ta), a, c)).collect();
    check_against_model(&in_use, m, "after the idle period");
    let mut counting_idle = Rfc9438::stage(0.4, 0.7, 100.0, 70.0, 100.0, secs(ta));
    counting_idle.ack(secs(ta), 1.0);
    let differs = log.iter().any(|&(t, a, c)| {
        counting_idle.ack(secs(t), a);
        (counting_idle.cwnd * MSS as f64 - c as f64).abs() > 100.0
    });
    assert!(differs, "counting the idle period gives the same windows");
}

/// The script of §4.6's tests below: a CUBIC+SACK sender in congestion
/// avoidance (cwnd = ssthresh = 20 segments, segments 0-19 out) loses 0 and
/// 16 of its window, then 20 (new data sent during the recovery) and the
/// retransmission of 20; the receiver gets everything else in the order it
/// was sent. By RFC 6675 §5 (DupThresh 3, one ACK per segment):
/// * SACKs of 1-3: (4) recovery, RecoveryPoint = 20, §4.6 ssthresh = cwnd =
///   0.7 x 20 = 14, r0; pipe = 4-19 and r0 = 17.
/// * SACKs of 4-6: pipe 14, nothing; of 7-15: one new segment each, 20-28.
/// * SACKs of 17, 18: 29, 30; of 19: IsLost(16), pipe 12: r16 and 31.
/// * ACK 16 (r0 arrived): 32. SACKs of 21, 22: 33, 34; of 23: IsLost(20),
///   r20 and 35; of 24-30: 36-42.
/// * ACK 20 (r16 arrived): beyond RecoveryPoint, recovery ends with cwnd
///   14; nothing sent (pipe = 31-42 and r20 = 13).
///
/// Returns the ACK that arrives next, for segment 31: ACK 20 with SACK
/// 21-31, a duplicate ACK (RFC 6675 §2) on which 20 is lost (IsLost:
/// 21-23 SACKed above it), a new congestion event. There FlightSize
/// (RFC 5681: SND.MAX - SND.UNA) = 43 - 20 = 23 segments, 11 of them
/// SACKed, while cwnd is 14.
fn recovery_leaving_sacked_data_outstanding(sc: &mut Script) -> airtcp_core::net::packet::Packet {
    for k in 1..=3 {
        let out = sc.ack(0, &[(1, k)]);
        assert_eq!(out, if k == 3 { "r0" } else { "" });
    }
    assert_eq!(sc.window(), (14.0, 14.0));
    for k in 4..=6 {
        assert_eq!(sc.ack(0, &[(1, k)]), "");
    }
    for k in 7..=15 {
        assert_eq!(sc.ack(0, &[(1, k)]), (k + 13).to_string());
    }
    assert_eq!(sc.ack(0, &[(1, 15), (17, 17)]), "29");
    assert_eq!(sc.ack(0, &[(1, 15), (17, 18)]), "30");
    assert_eq!(sc.ack(0, &[(1, 15), (17, 19)]), "r16 31");
    assert_eq!(sc.ack(16, &[(17, 19)]), "32");
    assert_eq!(sc.ack(16, &[(17, 19), (21, 21)]), "33");
    assert_eq!(sc.ack(16, &[(17, 19), (21, 22)]), "34");
    assert_eq!(sc.ack(16, &[(17, 19), (21, 23)]), "r20 35");
    for k in 24..=30 {
        assert_eq!(sc.ack(16, &[(17, 19), (21, k)]), (k + 12).to_string());
    }
    assert_eq!(sc.ack(20, &[(21, 30)]), "");
    assert!(!sc.s.core.in_recovery);
    assert_eq!(sc.window(), (14.0, 14.0));
    assert_eq!(snd_max(sc) - snd_una(sc), 23);
    ack(20, &[(21, 31)])
}

/// §4.6: "CUBIC updates W_max and reduces cwnd and ssthresh immediately";
/// "In case of packet loss, the sender MUST reduce cwnd and ssthresh
/// immediately upon entering loss recovery", with Figure 5's "ssthresh =
/// flight_size * beta_cubic" and flight_size "the amount of outstanding
/// (unacknowledged) data in the network, as defined in [RFC5681]" (RFC
/// 5681 §3.2 step 2: ssthresh "no more than" equation (4)). After an RFC
/// 6675 recovery, FlightSize counts SACKed data above a hole: here 23
/// segments under a cwnd of 14, and 0.7 x 23 = 16.1 would RAISE cwnd at a
/// congestion event. The reduction reads flight_size as at most cwnd:
/// ssthresh = cwnd = 0.7 x 14 = 9.8 segments (9,800 bytes). §4.7: W_max =
/// 14 (fast convergence: cwnd 14 < W_max 20, so 14 x 1.7 / 2 = 11.9);
/// cwnd_prior = 14. RFC 6675 (4): HighRxt reset, r20 (its first
/// retransmission was lost); pipe = 32-42 and r20 = 12 segments, above
/// cwnd 9.8: nothing else, nor on the next three SACKs (pipe 11, 10, 9:
/// (C) sends when cwnd - pipe >= 1 SMSS); the fourth (pipe 8) lets 43
/// out. With 0.7 x
/// FlightSize the sender would send r20 and four new segments into the
/// queue that just dropped two.
#[test]
fn s4_6_a_loss_with_sacked_data_outstanding_reduces_from_cwnd() {
    let mut sc = cubic_sender(CubicConfig::default(), 20, 20);
    let next = recovery_leaving_sacked_data_outstanding(&mut sc);
    assert_eq!(sc.deliver(&next), "r20");
    assert!(sc.s.core.in_recovery);
    assert_eq!((sc.s.core.w.cwnd, sc.s.core.w.ssthresh), (9800, 9800));
    assert_eq!(sc.ack(20, &[(21, 32)]), "");
    assert_eq!(sc.ack(20, &[(21, 33)]), "");
    assert_eq!(sc.ack(20, &[(21, 34)]), "");
    assert_eq!(sc.ack(20, &[(21, 35)]), "43");
}

/// §4.6 on ECN-Echo ("When a congestion event is detected by mechanisms
/// described in Section 3.1 [...] reduces cwnd and ssthresh
/// immediately"): the same script with ECN; segment 31 arrives marked CE,
/// so the duplicate ACK that reveals 20's loss echoes ECE. RFC 3168
/// §6.1.2: one reduction for the window (the ECN-Echo's, taken first; the
/// loss of 20 in the same window does not reduce again). ssthresh = 0.7 x
/// min(FlightSize 23, cwnd 14) = 9.8 segments; Figure 5's floors (cwnd at
/// least 1 or 2 segments, `mark_window_floor`) do not apply. r20 goes
/// out; pipe 12 > 9.8 keeps everything else. 0.7 x 23 = 16.1 would have
/// raised cwnd on a congestion echo.
#[test]
fn s4_6_an_ecn_echo_with_sacked_data_outstanding_reduces_from_cwnd() {
    for floor in [MarkWindowFloor::TwoSegments, MarkWindowFloor::OneSegment] {
        let mut cfg = config(20);
        cfg.timestamps = true;
        cfg.initial_ssthresh_bytes = 20 * MSS;
        cfg.ecn = true;
        cfg.mark_window_floor = floor;
        let mut sc = Script::with_cc(
            cfg,
            Box::new(Cubic::new(CubicConfig::default())),
            Recovery::Sack,
        );
        sc.start(1_000_000);
        let mut next = recovery_leaving_sacked_data_outstanding(&mut sc);
        next.flags |= airtcp_core::net::packet::flags::ECE;
        assert_eq!(sc.deliver(&next), "r20", "{floor:?}");
        assert_eq!(
            (sc.s.core.w.cwnd, sc.s.core.w.ssthresh),
            (9800, 9800),
            "{floor:?}"
        );
        assert_eq!(sc.ack(20, &[(21, 32)]), "", "{floor:?}");
    }
}

/// §4.6 when FlightSize is below cwnd (the application has written 10
/// segments, cwnd is 20): the formula's flight_size stands, ssthresh =
/// cwnd = 0.7 x 10 = 7 segments, not 0.7 x cwnd = 14 (the rate-limited
/// case the section sends to RFC 7661, which is not modelled). RFC 6675
/// (4): r0; pipe = 4-9 and r0 = 7: nothing else.
#[test]
fn s4_6_a_loss_below_cwnd_reduces_from_flight_size() {
    let mut sc = cubic_sender_with(CubicConfig::default(), 20, 20, false, 10);
    assert_eq!(snd_max(&sc), 10);
    assert_eq!(sc.ack(0, &[(1, 1)]), "");
    assert_eq!(sc.ack(0, &[(1, 2)]), "");
    assert_eq!(sc.ack(0, &[(1, 3)]), "r0");
    assert_eq!(sc.window(), (7.0, 7.0));
}

/// End to end, §4.6's "reduces cwnd and ssthresh immediately": on a path
/// where recoveries leave SACKed data outstanding (the ns-3 audit's `cub`,
/// 2026-11-29: one CUBIC+SACK bulk flow, 10 Mb/s 2 ms then 1.5 Mb/s 20 ms
/// with a 20-packet DropTail queue, MSS 1000, initial window 4, an ACK per
/// segment), no fast retransmit or ECN-Echo leaves cwnd above what it was
/// just before. With FlightSize x 0.7 the second recovery, at 0.934 s,
/// began at FlightSize 69 segments (30 SACKed) with cwnd 41,300 B and set
/// cwnd 48,300 B.
#[test]
fn s4_6_no_congestion_event_raises_cwnd_end_to_end() {
    let text = r#"
[simulation]
duration = "1.5s"
seed = 1

[[link]]
a = "S"
b = "R"
rate = "10Mbps"
delay = "2ms"
queue = { kind = "droptail", limit = "1000pkt" }

[[link]]
a = "R"
b = "D"
rate = "1.5Mbps"
delay = "20ms"
queue = { kind = "droptail", limit = "20pkt" }

[[flow]]
name = "f"
from = "S"
to = "D"
app = { kind = "bulk" }
tcp = { variant = "newreno", sack = true, cc = "cubic", mss = "1000B", initial_cwnd = 4, handshake = true, rwnd = "1000000B", min_rto = "1s", clock_granularity = "1ms", delayed_ack = true, delack_segments = 1, delack_timeout = "200ms" }
"#;
    // cwnd before each event: the sample of the 1 ms series just before it
    // (a later ACK could only have raised it); after: the event's window.
    let text = format!("{text}\n[output.timeseries]\ninterval = \"1ms\"\n");
    let (w, r) = common::run_world(&text, None);
    let series: Vec<(f64, f64)> = r
        .series
        .iter()
        .filter(|p| p.metric == SeriesMetric::CwndBytes)
        .map(|p| (p.time_s, p.value))
        .collect();
    let s = w.tcp_sender(0).unwrap();
    let mut before = None;
    let mut events = 0;
    for (t, e) in &s.core.trace {
        match e {
            TraceEvent::FastRetransmit { .. } | TraceEvent::EcnReduction => {
                let t_s = *t as f64 / NS_PER_S as f64;
                before = series.iter().rev().find(|p| p.0 < t_s).map(|p| p.1);
            }
            TraceEvent::Window { cwnd, .. } => {
                if let Some(b) = before.take() {
                    assert!(*cwnd as f64 <= b, "cwnd {b} -> {cwnd} B at {t} ns");
                    events += 1;
                }
            }
            _ => {}
        }
    }
    assert!(events >= 2, "{events} congestion events");
}
