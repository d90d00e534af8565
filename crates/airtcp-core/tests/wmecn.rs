//! Multi-level ECN and WMECN end to end (Sridharan, Durresi, Liu, Jain,
//! "Wireless TCP Enhancements Using Multi-level ECN"): the echo path from a
//! router's mark to the source's filtering context, the once-per-RTT rule,
//! graded reductions, and the classifier scored against the ground truth.
//! SWF arithmetic, every threshold boundary, the context update and the
//! marking probabilities are unit-tested in `tcp/classify/wmecn.rs` and
//! `net/queue/{mecn,wmecn}.rs`.

mod common;
use airtcp_core::net::packet::{Packet, PacketKind, SackBlock};
use airtcp_core::sim::{TimeNs, NS_PER_MS};
use airtcp_core::tcp::cc::{CongestionControl, MecnCc, MecnCcConfig, Window};
use airtcp_core::tcp::classify::{
    AlwaysCongestion, LossCause, LossClassifier, LossDetection, WmecnClassifier,
};
use airtcp_core::tcp::core::MarkWindowFloor;
use airtcp_core::tcp::mecn::{self, MecnLevel};
use airtcp_core::tcp::recovery::{LossRecovery, RenoRecovery, SackRecovery};
use airtcp_core::tcp::rto::StandardTimeout;
use airtcp_core::tcp::rtt::{RtoConfig, RttEstimator};
use airtcp_core::tcp::sender::{SenderConfig, TcpSender, TraceEvent};
use common::*;

/// S -> D over one 10 Mb/s, 10 ms link whose S -> D queue is WMECN with
/// the instantaneous queue as its "average" (weight 1) and thresholds that
/// make every packet arriving to a non-empty queue `11`.
fn marking_path(tcp: &str, drops: &[u64]) -> String {
    let drops: Vec<String> = drops.iter().map(|d| d.to_string()).collect();
    format!(
        r#"
[simulation]
duration = "20s"
[[link]]
a = "S"
b = "D"
rate = "10Mbps"
delay = "10ms"
a_to_b = {{ queue = {{ kind = "wmecn", limit = "1000pkt", min_th = 0.0, mid_th = 0.5, max_th = 0.9, weight = 1.0 }}, error = {{ kind = "drop_list", packets = [{drops}], applies_to = "data" }} }}
[[flow]]
from = "S"
to = "D"
tcp = {{ {tcp}, mss = "1000B", delayed_ack = false, initial_cwnd = 1, initial_ssthresh = "16000B", trace = true }}
app = {{ kind = "file", size = "200000B" }}
"#,
        drops = drops.join(", ")
    )
}

fn counter(c: &[(&'static str, u64)], name: &str) -> u64 {
    c.iter().find(|(n, _)| *n == name).map_or(0, |(_, v)| *v)
}

#[test]
fn a_router_mark_reaches_the_sources_filtering_context() {
    // Reno window, WMECN classifier: the marks change nothing but the
    // context, so every mark set at the router must come back as a `11`
    // feedback, one per ACK (no delayed ACKs, no loss).
    let tcp = r#"variant = "reno", classifier = { kind = "wmecn" }"#;
    let (w, r) = run_world(&marking_path(tcp, &[]), None);
    let f = &r.flows[0];
    assert_eq!(f.transfers_completed, 1);
    let marks = f.ecn_marks;
    assert!(
        marks >= 10,
        "slow-start bursts queue and get marked: {marks}"
    );
    let rx = w.tcp_receiver(0).unwrap();
    assert_eq!(
        rx.stats.ce_marked_segments, marks,
        "`11` is CE's bit pattern"
    );
    let c = w.tcp_sender(0).unwrap().core.classifier.counters();
    assert_eq!(counter(&c, "feedback_11"), marks);
    assert_eq!(counter(&c, "feedback_10"), 0);
    assert_eq!(
        counter(&c, "feedback_01") + marks,
        200,
        "every segment fed back once"
    );
    assert_eq!(f.ecn_reductions, 0, "Reno does not react to MECN marks");
}

#[test]
fn mecn_marks_reduce_at_most_once_per_rtt() {
    let tcp = r#"variant = "reno", cc = { kind = "mecn" }"#;
    let (w, r) = run_world(&marking_path(tcp, &[]), None);
    let f = &r.flows[0];
    assert_eq!(f.transfers_completed, 1);
    let s = w.tcp_sender(0).unwrap();
    let times: Vec<u64> = s
        .core
        .trace
        .iter()
        .filter(|(_, e)| matches!(e, TraceEvent::EcnReduction))
        .map(|(t, _)| *t)
        .collect();
    assert!(times.len() >= 2, "{times:?}");
    assert_eq!(times.len() as u64, f.ecn_reductions);
    // The path's RTT is at least 20.8 ms; SRTT never falls below it.
    for pair in times.windows(2) {
        assert!(pair[1] - pair[0] >= 20 * NS_PER_MS, "{times:?}");
    }
    // `11` keeps 60% of cwnd (beta2 = 40%): the first reduction.
    let win = windows(s);
    let first = s
        .core
        .trace
        .iter()
        .position(|(_, e)| matches!(e, TraceEvent::EcnReduction))
        .unwrap();
    let after = s.core.trace[first + 1..]
        .iter()
        .find_map(|(_, e)| match e {
            TraceEvent::Window { cwnd, ssthresh } => Some((*cwnd, *ssthresh)),
            _ => None,
        })
        .unwrap();
    assert_eq!(after.0, after.1);
    assert!(!win.is_empty());
    // Data segments after a reduction carry MECN's CWR (both bits).
    assert_eq!(r.flows[0].timeouts, 0);
}

#[test]
fn a_wireless_loss_on_a_clean_path_is_retransmitted_without_reduction() {
    // A DropTail router never marks: every feedback is `01`, SWF = 0, so
    // the loss is wireless.
    let text = marking_path(
        r#"variant = "reno", classifier = { kind = "wmecn" }, cc = { kind = "wmecn" }"#,
        &[30],
    )
    .replace(
        r#"kind = "wmecn", limit = "1000pkt", min_th = 0.0, mid_th = 0.5, max_th = 0.9, weight = 1.0"#,
        r#"kind = "droptail", limit = "1000pkt""#,
    );
    let (w, r) = run_world(&text, None);
    let s = w.tcp_sender(0).unwrap();
    dump(s);
    let f = &r.flows[0];
    assert_eq!(f.transfers_completed, 1);
    assert_eq!(retransmissions(s), vec![29]);
    assert_eq!(
        (f.loss_wireless_as_wireless, f.loss_wireless_as_congestion),
        (1, 0)
    );
    assert_eq!(f.non_congestion_losses, 1);
    // ssthresh untouched.
    assert!(windows(s).iter().all(|w| w.1 == 16.0));
    let c = s.core.classifier.counters();
    assert_eq!(counter(&c, "wireless"), 1);
    assert_eq!(counter(&c, "feedback_11") + counter(&c, "feedback_10"), 0);
}

#[test]
fn a_congestion_loss_in_a_marked_context_is_graded_and_scored() {
    // Every arrival to a non-empty queue is marked `11`; a drop of a packet
    // sent in a burst finds a context of `11`s: severe congestion, cwnd x 0.5
    // in WMECN mode. The drop is scripted (a channel loss), so the ground
    // truth calls it wireless: a type-2 error, scored as such.
    let tcp = r#"variant = "reno", classifier = { kind = "wmecn" }, cc = { kind = "wmecn" }"#;
    let (w, r) = run_world(&marking_path(tcp, &[40]), None);
    let s = w.tcp_sender(0).unwrap();
    let f = &r.flows[0];
    assert_eq!(f.transfers_completed, 1);
    assert_eq!(f.fast_retransmits, 1);
    let c = s.core.classifier.counters();
    let congestion = counter(&c, "mild") + counter(&c, "moderate") + counter(&c, "severe");
    assert_eq!(congestion + counter(&c, "wireless"), 1);
    assert_eq!(
        f.loss_wireless_as_congestion, congestion,
        "a congestion verdict for a channel loss is a type-2 error"
    );
}

/// A classifier that always says "congestion, keep 80%".
struct Graded;
impl LossClassifier for Graded {
    fn name(&self) -> &'static str {
        "graded"
    }
    fn classify(&mut self, _: u64, _: u64, _: LossDetection, _: &RttEstimator) -> LossCause {
        LossCause::Congestion
    }
    fn graded_keep(&self) -> Option<f64> {
        Some(0.8)
    }
}

fn sans_io_sender(
    cc: Box<dyn CongestionControl>,
    classifier: Box<dyn LossClassifier>,
) -> TcpSender {
    sans_io_sender_writing(cc, classifier, 1_000_000)
}

/// [`sans_io_sender`] whose application writes `app_bytes` (20 segments
/// or fewer go out at once).
fn sans_io_sender_writing(
    cc: Box<dyn CongestionControl>,
    classifier: Box<dyn LossClassifier>,
    app_bytes: u64,
) -> TcpSender {
    let cfg = SenderConfig {
        flow: 0,
        epoch: 1,
        src: 0,
        dst: 1,
        mss: 1000,
        initial_cwnd_segments: 20,
        initial_ssthresh_bytes: u64::MAX / 4,
        rto: RtoConfig::default(),
        timestamps: false,
        ecn: false,
        handshake: false,
        dupthresh: 3,
        restart_rto_on_fast_retransmit: true,
        trace: true,
        mecn: true,
        ..SenderConfig::default()
    };
    let mut s = TcpSender::new(
        cfg,
        cc,
        Box::new(RenoRecovery::default()),
        Box::new(StandardTimeout),
        classifier,
        None,
    );
    let mut out = Vec::new();
    s.start(0, &mut out);
    s.app_write(0, app_bytes, &mut out);
    assert_eq!(out.len() as u64, (app_bytes / 1000).min(20));
    assert!(out.iter().all(|p| p.ecn == MecnLevel::NoCongestion.to_ip()));
    s.core.rtt.on_sample(100 * NS_PER_MS);
    s
}

#[test]
fn losses_reduce_once_per_rtt_but_every_verdict_is_recorded() {
    let mut s = sans_io_sender(
        Box::new(MecnCc::new(MecnCcConfig::wmecn())),
        Box::new(Graded),
    );
    let dup = LossDetection::DuplicateAcks;
    let t0 = 1_000 * NS_PER_MS;
    assert_eq!(s.core.congestion_signal(t0, dup), LossCause::Congestion);
    assert_eq!(s.core.w.ssthresh, 16_000, "graded: 0.8 x 20 segments");
    // Half an SRTT later: verdict recorded as congestion, no reduction.
    s.core.w.cwnd = 20_000;
    let t1 = t0 + 50 * NS_PER_MS;
    assert_eq!(s.core.congestion_signal(t1, dup), LossCause::NonCongestion);
    assert_eq!(s.core.w.ssthresh, 16_000);
    assert_eq!(s.core.loss_decisions.len(), 2);
    assert!(s
        .core
        .loss_decisions
        .iter()
        .all(|d| d.cause == LossCause::Congestion));
    // The skipped cut is recorded as such; x 0.8 would not have halved.
    let d = s.core.loss_decisions[1];
    assert!(d.cut_blocked && !d.blocked_cut_would_halve && !d.halved_window);
    assert!(!s.core.loss_decisions[0].cut_blocked);
    // A timeout is never suppressed (the ACK clock stopped).
    assert_eq!(
        s.core.congestion_signal(t1, LossDetection::Timeout),
        LossCause::Congestion
    );
    // One SRTT after the last reduction: reduces again.
    s.core.w.cwnd = 10_000;
    let t2 = t1 + 100 * NS_PER_MS;
    assert_eq!(s.core.congestion_signal(t2, dup), LossCause::Congestion);
    assert_eq!(s.core.w.ssthresh, 8_000);
}

/// A classifier that always says "severe congestion, keep 50%".
struct Severe;
impl LossClassifier for Severe {
    fn name(&self) -> &'static str {
        "severe"
    }
    fn classify(&mut self, _: u64, _: u64, _: LossDetection, _: &RttEstimator) -> LossCause {
        LossCause::Congestion
    }
    fn graded_keep(&self) -> Option<f64> {
        Some(0.5)
    }
}

/// §3.2: "'cwnd' is decreased only if it had not been decreased once
/// before in the same RTT, else, the packets are just retransmitted and the
/// window is not reduced". A severe-grade loss inside that RTT is recorded
/// as a skipped cut that would have halved cwnd (the result columns
/// `loss_cuts_blocked_once_per_rtt` and
/// `wireless_halvings_blocked_once_per_rtt` count these), not as a halving.
#[test]
fn a_severe_cut_skipped_by_the_once_per_rtt_rule_is_recorded_as_a_blocked_halving() {
    let mut s = sans_io_sender(
        Box::new(MecnCc::new(MecnCcConfig::wmecn())),
        Box::new(Severe),
    );
    let dup = LossDetection::DuplicateAcks;
    let t0 = 1_000 * NS_PER_MS;
    s.core.congestion_signal(t0, dup);
    assert_eq!(s.core.w.ssthresh, 10_000, "0.5 x 20 segments");
    let first = s.core.loss_decisions[0];
    assert!(first.halved_window && !first.cut_blocked);
    s.core.w.cwnd = 20_000;
    assert_eq!(
        s.core.congestion_signal(t0 + 50 * NS_PER_MS, dup),
        LossCause::NonCongestion
    );
    assert_eq!(s.core.w.ssthresh, 10_000, "not cut again");
    let second = s.core.loss_decisions[1];
    assert_eq!(second.cause, LossCause::Congestion, "the verdict stands");
    assert!(second.cut_blocked && second.blocked_cut_would_halve && !second.halved_window);
}

#[test]
fn graded_keep_is_ignored_by_controllers_that_do_not_grade() {
    // The WMECN grade with Reno: RFC 5681 (4), FlightSize / 2.
    let mut s = sans_io_sender(Box::new(airtcp_core::tcp::cc::RenoCc), Box::new(Graded));
    s.core
        .congestion_signal(NS_PER_MS, LossDetection::DuplicateAcks);
    assert_eq!(s.core.w.ssthresh, 10_000);
    let w = Window {
        cwnd: 20_000,
        ssthresh: 0,
        mss: 1000,
    };
    let mut m = MecnCc::new(MecnCcConfig::mecn());
    assert_eq!(m.ssthresh_after_graded_congestion(&w, 0, 0.8), 10_000);
}

fn echo_ack(ack: u64, level: MecnLevel) -> Packet {
    let mut p = Packet {
        kind: PacketKind::TcpAck,
        flow: 0,
        epoch: 1,
        src: 1,
        dst: 0,
        ack,
        wnd: 1 << 30,
        flags: airtcp_core::net::packet::flags::ACK,
        ..Default::default()
    };
    mecn::set_echo(&mut p, level);
    p
}

/// An MECN source (cwnd 20 segments, slow start, segments 0..=19 in
/// flight, SRTT 100 ms) whose first ACK, at `t`, echoes `10`: 20 segments
/// x 0.8 = 16 (beta1 = 20%), and being marked the ACK does not grow it
/// (§2.3); with 19 segments in flight nothing goes out.
fn mecn_sender_cut_by_a_10_mark(t: TimeNs) -> (TcpSender, Vec<Packet>) {
    let mut s = sans_io_sender(
        Box::new(MecnCc::new(MecnCcConfig::mecn())),
        Box::new(WmecnClassifier::new(Default::default())),
    );
    let mut out = Vec::new();
    s.on_packet(t, &echo_ack(1000, MecnLevel::Incipient), &mut out);
    assert_eq!((s.core.w.cwnd, s.core.w.ssthresh), (16_000, 16_000));
    assert!(out.is_empty(), "flight 19 segments exceeds the new window");
    (s, out)
}

#[test]
fn mark_response_sets_cwr_and_reduces_once_per_rtt() {
    let t = 200 * NS_PER_MS;
    let (mut s, mut out) = mecn_sender_cut_by_a_10_mark(t);
    // A `11` within the same RTT: no second reduction. This ACK opens the
    // window; the first new segment carries MECN's CWR (both bits).
    s.on_packet(
        t + 10 * NS_PER_MS,
        &echo_ack(8000, MecnLevel::Moderate),
        &mut out,
    );
    assert_eq!(s.core.w.ssthresh, 16_000);
    assert!(out.len() >= 2);
    let cwr: Vec<bool> = out.iter().map(mecn::has_cwr).collect();
    assert!(cwr[0] && cwr[1..].iter().all(|c| !c), "{cwr:?}");
    // After an SRTT: `11` keeps 60%.
    let cwnd = s.core.w.cwnd;
    s.on_packet(
        t + 150 * NS_PER_MS,
        &echo_ack(9000, MecnLevel::Moderate),
        &mut out,
    );
    assert_eq!(s.core.w.ssthresh, (cwnd as f64 * 0.6) as u64);
    assert_eq!(s.stats().ecn_reductions, 2);
    let c = s.core.classifier.counters();
    assert_eq!(
        (counter(&c, "feedback_10"), counter(&c, "feedback_11")),
        (1, 2)
    );
}

/// A WMECN sender driven segment by segment: initial window 10, slow start,
/// no Limited Transmit, Reno recovery, the standard timeout response, the
/// WMECN classifier and graded response; RTO 1 s.
fn scripted_wmecn_sender() -> TcpSender {
    scripted_wmecn_sender_with(Box::new(RenoRecovery::default()))
}

/// [`scripted_wmecn_sender`] with another loss recovery.
fn scripted_wmecn_sender_with(recovery: Box<dyn LossRecovery>) -> TcpSender {
    let cfg = SenderConfig {
        initial_cwnd_segments: 10,
        initial_ssthresh_bytes: u64::MAX / 4,
        rto: RtoConfig {
            initial_rto_ns: 1_000 * NS_PER_MS,
            min_rto_ns: 1_000 * NS_PER_MS,
            ..RtoConfig::default()
        },
        limited_transmit: false,
        trace: true,
        mecn: true,
        peer_rwnd_bytes: 1 << 30,
        ..SenderConfig::default()
    };
    TcpSender::new(
        cfg,
        Box::new(MecnCc::new(MecnCcConfig::wmecn())),
        recovery,
        Box::new(StandardTimeout),
        Box::new(WmecnClassifier::new(Default::default())),
        None,
    )
}

/// Segment numbers sent, `r` before a retransmission (1000-byte segments).
fn segs(out: &[Packet]) -> String {
    out.iter()
        .map(|p| {
            let n = p.seq / 1000;
            if p.is_retransmission {
                format!("r{n}")
            } else {
                n.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Start the scripted sender at t = 0 and acknowledge segments 0..=5, each
/// ACK echoing `01` (no congestion): slow start opens cwnd to 16 and
/// segments 10..=21 follow. Returns the sender and the time of the last ACK.
fn sixteen_in_flight() -> (TcpSender, u64) {
    let mut s = scripted_wmecn_sender();
    let mut out = Vec::new();
    s.start(0, &mut out);
    s.app_write(0, 1_000_000, &mut out);
    assert_eq!(segs(&out), "0 1 2 3 4 5 6 7 8 9");
    out.clear();
    let mut t = 100 * NS_PER_MS;
    for n in 1..=6 {
        t += NS_PER_MS;
        s.on_packet(t, &echo_ack(n * 1000, MecnLevel::NoCongestion), &mut out);
    }
    assert_eq!(segs(&out), "10 11 12 13 14 15 16 17 18 19 20 21");
    assert_eq!(s.core.w.cwnd, 16_000);
    (s, t)
}

/// WMECN §1: "If a loss is found out to be a 'wireless loss', the packet is
/// retransmitted and the congestion window is not reduced"; §3.2: losses
/// "detected either by dupacks or timeout" are filtered, and "in all the
/// above four conditions the packet, which was lost is retransmitted". A
/// timeout judged wireless (SWF 0 <= 10) therefore retransmits the lost
/// segment alone — no go-back-N over a full window of segments the
/// receiver holds — keeps cwnd and ssthresh, and backs off the timer (RFC
/// 6298 (5.5)). The next lost segment of that window is resent alone as
/// soon as an ACK names it (the ACK of the retransmission stops at it), and
/// new data follows as the window slides. Past the data sent before the
/// timeout, duplicate ACKs start a fast retransmit as usual.
#[test]
fn s3_2_a_timeout_judged_wireless_retransmits_only_the_lost_segments() {
    let (mut s, _) = sixteen_in_flight();
    let rto = s.core.rtt.rto_ns();
    // Segments 6..=21 are in flight; 6 and 9 are lost, the others arrive,
    // but their duplicate ACKs are lost too: the timer expires.
    let t = s.next_deadline().unwrap();
    let mut out = Vec::new();
    assert_eq!(s.on_timer(t, &mut out), Some(6_000));
    assert_eq!(segs(&out), "r6", "the lost segment only");
    assert_eq!(s.core.w.cwnd, 16_000, "cwnd not reduced");
    assert_eq!(s.core.w.ssthresh, u64::MAX / 4, "ssthresh untouched");
    assert_eq!(s.core.snd_nxt, s.core.snd_max, "no go-back-N");
    assert_eq!(s.core.rtt.rto_ns(), 2 * rto, "RFC 6298 (5.5) backoff");
    assert_eq!(
        s.core.loss_decisions.last().unwrap().cause,
        LossCause::NonCongestion
    );
    assert_eq!(s.core.stats.non_congestion_losses, 1);
    // The retransmission's ACK (echo `00`: it was not ECN-capable) stops at
    // 9: segment 9 is resent at once; the window slid by three segments and
    // slow start adds one (RFC 5681 (2)): four new segments.
    out.clear();
    let mut t = t + 100 * NS_PER_MS;
    s.on_packet(t, &echo_ack(9_000, MecnLevel::NotCapable), &mut out);
    assert_eq!(segs(&out), "r9 22 23 24 25");
    assert_eq!(s.core.w.cwnd, 17_000);
    // Duplicate ACKs for 9 (from 22.. arriving before r9) start no second
    // retransmission of it.
    out.clear();
    for _ in 0..3 {
        t += NS_PER_MS;
        s.on_packet(t, &echo_ack(9_000, MecnLevel::NoCongestion), &mut out);
    }
    assert_eq!(segs(&out), "");
    // r9's ACK covers everything sent before the timeout: the repair ends.
    t += 90 * NS_PER_MS;
    s.on_packet(t, &echo_ack(22_000, MecnLevel::NotCapable), &mut out);
    assert_eq!(s.core.hole_repair_until, None);
    assert_eq!(
        s.core.stats.retransmitted_segments, 2,
        "r6 and r9, nothing else"
    );
    // Segment 24 was lost: three duplicate ACKs retransmit it (judged
    // wireless again: the context holds only weight-0 entries).
    t += NS_PER_MS;
    s.on_packet(t, &echo_ack(24_000, MecnLevel::NoCongestion), &mut out);
    out.clear();
    for _ in 0..3 {
        t += NS_PER_MS;
        s.on_packet(t, &echo_ack(24_000, MecnLevel::NoCongestion), &mut out);
    }
    assert!(segs(&out).starts_with("r24"), "{}", segs(&out));
    assert_eq!(s.core.stats.fast_retransmits, 1);
    assert_eq!(s.core.stats.non_congestion_losses, 2);
}

/// The same rule when the timer expires during a fast recovery that
/// followed a wireless verdict: recovery ends at the window it was heading
/// for (the pre-loss cwnd, §3.2 "not reduced"), not at the inflated one,
/// and only the first unacknowledged segment is resent.
#[test]
fn s3_2_a_wireless_timeout_during_fast_recovery_keeps_the_pre_loss_window() {
    let (mut s, mut t) = sixteen_in_flight();
    let mut out = Vec::new();
    for _ in 0..4 {
        t += NS_PER_MS;
        s.on_packet(t, &echo_ack(6_000, MecnLevel::NoCongestion), &mut out);
    }
    assert!(s.core.in_recovery);
    assert_eq!(s.core.recovery_cwnd, 16_000);
    assert_eq!(s.core.w.cwnd, 20_000, "16 + 3 + 1 inflation");
    out.clear();
    let t = s.next_deadline().unwrap();
    s.on_timer(t, &mut out);
    assert_eq!(segs(&out), "r6");
    assert!(!s.core.in_recovery);
    assert_eq!(s.core.w.cwnd, 16_000);
}

/// The ACK of [`echo_ack`] with SACK blocks (inclusive segment ranges).
fn echo_sack(ack: u64, level: MecnLevel, blocks: &[(u64, u64)]) -> Packet {
    let mut p = echo_ack(ack * 1000, level);
    for (k, &(a, b)) in blocks.iter().enumerate() {
        p.sack[k] = SackBlock {
            start: a * 1000,
            end: (b + 1) * 1000,
        };
    }
    p.sack_count = blocks.len() as u8;
    p
}

/// WMECN §1/§3.2 ("the packet, which was lost is retransmitted and the
/// congestion window is not reduced") for a window with several holes and
/// no SACK: the document is silent on the other holes, so they get
/// NewReno's repair (RFC 6582 §3.2 step 3): each partial ACK names the next
/// hole, resent alone, and new data follows as the window slides. The
/// timer follows the same step's Impatient rule, "for the first partial
/// ACK ... also reset the retransmit timer": later partial ACKs leave it
/// running, so a window with many holes ends in a timeout after one
/// backed-off RTO, not one round trip per hole. That timeout comes before
/// any fresh RTT sample (RFC 6298 (5.5): the backoff is in force), a
/// repeated expiry, which is not classified: the standard response, cwnd
/// one segment and go-back-N from snd_una; its segment was resent by the
/// repair, never by the timer, so ssthresh is set by RFC 5681 (4) (§3.1:
/// "the given segment has not yet been resent by way of the retransmission
/// timer"), here MECN's beta3 = 50% of the 19-segment window.
#[test]
fn s3_2_without_sack_the_holes_after_a_wireless_timeout_are_repaired_until_the_impatient_timer() {
    let (mut s, _) = sixteen_in_flight();
    let rto = s.core.rtt.rto_ns();
    // Segments 6..=21 are in flight; 6, 9, 12, 15 and 18 are lost and the
    // others' duplicate ACKs too: the timer expires.
    let t0 = s.next_deadline().unwrap();
    let mut out = Vec::new();
    s.on_timer(t0, &mut out);
    assert_eq!(segs(&out), "r6");
    assert_eq!((s.core.w.cwnd, s.core.w.ssthresh), (16_000, u64::MAX / 4));
    assert_eq!(s.core.hole_repair_until, Some(22_000));
    // The first partial ACK: the next hole, four new segments (the window
    // slid by three, slow start adds one), and the timer reset with the
    // backed-off RTO.
    let t1 = t0 + 100 * NS_PER_MS;
    out.clear();
    s.on_packet(t1, &echo_ack(9_000, MecnLevel::NotCapable), &mut out);
    assert_eq!(segs(&out), "r9 22 23 24 25");
    assert_eq!(s.next_deadline(), Some(t1 + 2 * rto));
    // Later partial ACKs: the next hole each, the timer left running.
    let t2 = t1 + 100 * NS_PER_MS;
    out.clear();
    s.on_packet(t2, &echo_ack(12_000, MecnLevel::NotCapable), &mut out);
    assert_eq!(segs(&out), "r12 26 27 28 29");
    let t3 = t2 + 100 * NS_PER_MS;
    out.clear();
    s.on_packet(t3, &echo_ack(15_000, MecnLevel::NotCapable), &mut out);
    assert_eq!(segs(&out), "r15 30 31 32 33");
    assert_eq!(s.core.w.cwnd, 19_000, "never reduced; slow start goes on");
    assert_eq!(s.next_deadline(), Some(t1 + 2 * rto), "Impatient");
    assert_eq!(s.core.stats.timeouts, 1);
    // r15 and what followed are lost: the timer expires, one backed-off
    // RTO after the first partial ACK. Not classified (the backoff is in
    // force): cwnd one segment, go-back-N from 15.
    out.clear();
    s.on_timer(t1 + 2 * rto, &mut out);
    assert_eq!(segs(&out), "r15");
    assert_eq!(s.core.w.cwnd, 1_000);
    assert_eq!(s.core.w.ssthresh, 9_500);
    assert_eq!(s.core.snd_nxt, 16_000);
    assert_eq!(s.core.hole_repair_until, None);
    assert_eq!(s.core.stats.timeouts, 2);
    assert_eq!(s.core.stats.non_congestion_losses, 1, "not classified");
    assert_eq!(s.core.rtt.rto_ns(), 4 * rto);
}

/// The same rule with SACK information: RFC 6675 §5.1's recovery after an
/// RTO, with the window the document keeps. A wireless fast retransmit
/// (cwnd kept at 16) resent the holes 6, 9 and 12 and sent new data 22..34;
/// all of it is lost and the timer expires. Judged wireless again: cwnd 16
/// and ssthresh kept, every unSACKed segment below HighData deemed lost and
/// resent by NextSeg within cwnd - pipe at once, the SACKed ones (7, 8, 10,
/// 11, 13..21) not; RecoveryPoint = HighData, and duplicate ACKs below it
/// start no new recovery. A timeout judged congestion would have resent 6
/// alone with cwnd one segment.
#[test]
fn s3_2_with_sack_a_wireless_timeout_resends_every_hole_within_the_kept_window() {
    let mut s = scripted_wmecn_sender_with(Box::new(SackRecovery));
    let mut out = Vec::new();
    s.start(0, &mut out);
    s.app_write(0, 1_000_000, &mut out);
    let mut t = 100 * NS_PER_MS;
    for n in 1..=6 {
        t += NS_PER_MS;
        s.on_packet(t, &echo_ack(n * 1000, MecnLevel::NoCongestion), &mut out);
    }
    out.clear();
    // One duplicate ACK whose SACK blocks show the holes 6, 9 and 12: RFC
    // 6675 §5 (2), IsLost(6): recovery, judged wireless (SWF 0).
    t += NS_PER_MS;
    let blocks = [(7, 8), (10, 11), (13, 21)];
    s.on_packet(t, &echo_sack(6, MecnLevel::NoCongestion, &blocks), &mut out);
    assert_eq!(segs(&out), format!("r6 r9 r12 {}", script::range(22, 34)));
    assert_eq!(s.core.w.cwnd, 16_000, "not reduced");
    out.clear();
    let t0 = s.next_deadline().unwrap();
    s.on_timer(t0, &mut out);
    assert_eq!(
        segs(&out),
        format!(
            "r6 r9 r12 {}",
            (22..=34)
                .map(|n| format!("r{n}"))
                .collect::<Vec<_>>()
                .join(" ")
        )
    );
    assert_eq!((s.core.w.cwnd, s.core.w.ssthresh), (16_000, u64::MAX / 4));
    assert_eq!(s.core.recover, Some(35_000));
    assert_eq!(s.core.stats.non_congestion_losses, 2);
    assert_eq!(
        s.core.hole_repair_until, None,
        "SACK: no partial-ACK repair"
    );
    // The ACK of r6, SACKing what arrived: nothing is resent twice, the
    // window slides, and no new recovery starts below RecoveryPoint.
    out.clear();
    s.on_packet(
        t0 + 100 * NS_PER_MS,
        &echo_sack(9, MecnLevel::NotCapable, &[(10, 11), (13, 21), (23, 25)]),
        &mut out,
    );
    assert!(!s.core.in_recovery);
    assert!(out.iter().all(|p| !p.is_retransmission), "{}", segs(&out));
}

/// RFC 5681 §3.1's other side: when the segment the judged-wireless timeout
/// resent expires again (no ACK came back), it HAS been resent by the
/// timer, so the repeated expiry holds ssthresh (here the document's kept
/// one) and collapses cwnd.
#[test]
fn s3_2_a_second_expiry_of_the_same_segment_holds_ssthresh() {
    let (mut s, _) = sixteen_in_flight();
    let mut out = Vec::new();
    let t0 = s.next_deadline().unwrap();
    s.on_timer(t0, &mut out);
    assert_eq!(segs(&out), "r6");
    out.clear();
    let t1 = s.next_deadline().unwrap();
    s.on_timer(t1, &mut out);
    assert_eq!(segs(&out), "r6");
    assert_eq!((s.core.w.cwnd, s.core.w.ssthresh), (1_000, u64::MAX / 4));
    assert_eq!(s.core.stats.non_congestion_losses, 1, "not classified");
}

/// §2.3, the MECN source's response to marks (a WMECN source reacts to
/// marks the same way, `tcp/cc/mecn.rs`): "When there is no congestion,
/// the cwnd is allowed to grow additively as usual. When the marking is 10
/// (incipient congestion), cwnd is decreased by beta1 %. When the marking
/// is 11 (moderate congestion) the cwnd is decreased multiplicatively ...
/// by a factor beta2 % less than 50%"; §3.1: "the sources go down only
/// once every RTT". With beta1 = 20% and beta2 = 40% (our defaults): an
/// ACK echoing `10` sets cwnd = ssthresh = 0.8 cwnd, one echoing `11` 0.6
/// cwnd, at most once per RTT; growth only on an ACK that reports no
/// congestion, so a marked ACK neither grows cwnd nor (inside the RTT
/// after a cut) cuts it again.
#[test]
fn s2_3_marks_cut_cwnd_by_beta1_or_beta2_and_only_unmarked_acks_grow_it() {
    let t = 200 * NS_PER_MS;
    let (mut s, mut out) = mecn_sender_cut_by_a_10_mark(t);
    // This ACK's RTT sample (200 ms) makes SRTT 112.5 ms. Within it, an
    // ACK echoing `11`: no second cut, and no growth.
    s.on_packet(
        t + 10 * NS_PER_MS,
        &echo_ack(2000, MecnLevel::Moderate),
        &mut out,
    );
    assert_eq!((s.core.w.cwnd, s.core.w.ssthresh), (16_000, 16_000));
    s.on_packet(
        t + 15 * NS_PER_MS,
        &echo_ack(3000, MecnLevel::Incipient),
        &mut out,
    );
    assert_eq!(s.core.w.cwnd, 16_000);
    // No congestion: congestion avoidance, + 1000 x 1000 / 16000 bytes.
    s.on_packet(
        t + 20 * NS_PER_MS,
        &echo_ack(4000, MecnLevel::NoCongestion),
        &mut out,
    );
    assert_eq!((s.core.w.cwnd, s.core.w.ssthresh), (16_062, 16_000));
    // More than an SRTT after the cut: `11` keeps 60% (0.6 x 16062).
    s.on_packet(
        t + 150 * NS_PER_MS,
        &echo_ack(5000, MecnLevel::Moderate),
        &mut out,
    );
    assert_eq!((s.core.w.cwnd, s.core.w.ssthresh), (9_637, 9_637));
    assert_eq!(s.stats().ecn_reductions, 2);
}

/// §2.3: on a mark "cwnd is decreased"; it is never raised. After a
/// timeout (cwnd one segment) an ACK echoing `10` sets ssthresh to
/// max(0.8 cwnd, 2 SMSS) = 2 SMSS but leaves cwnd at one segment (the
/// 2-SMSS floor of ssthresh must not lift it), and, being marked, does not
/// grow it: one segment goes out.
#[test]
fn s2_3_a_mark_never_raises_cwnd() {
    let mut s = sans_io_sender(
        Box::new(MecnCc::new(MecnCcConfig::mecn())),
        Box::new(AlwaysCongestion),
    );
    // Retransmissions ECN-capable (ns-2's, the WMECN reproduction's), so
    // the ACK of one can carry a mark.
    s.core.cfg.ecn_capable_retransmissions = true;
    let mut out = Vec::new();
    let t = s.next_deadline().unwrap();
    assert_eq!(s.on_timer(t, &mut out), Some(0));
    assert_eq!(segs(&out), "r0");
    assert_eq!(out[0].ecn, MecnLevel::NoCongestion.to_ip());
    assert_eq!((s.core.w.cwnd, s.core.w.ssthresh), (1000, 10_000));
    out.clear();
    s.on_packet(
        t + 150 * NS_PER_MS,
        &echo_ack(1000, MecnLevel::Incipient),
        &mut out,
    );
    assert_eq!((s.core.w.cwnd, s.core.w.ssthresh), (1000, 2000));
    assert_eq!(segs(&out), "r1");
}

/// §2.3: "When the marking is 10 (incipient congestion), cwnd is decreased
/// by beta1 %" (20%), with nothing said of a floor. A window of two
/// segments (after a timeout, one unmarked ACK of slow start) and a `10`:
/// by default the cut keeps RFC 5681's two segments (ssthresh's floor,
/// which a mark leaves in place); with `mark_min_cwnd = 1` cwnd is 2 x 0.8
/// = 1.6 segments (ns-2's `slowdown` lets cwnd fall below 2). ssthresh
/// keeps its 2-SMSS floor either way.
#[test]
fn s2_3_option_a_10_mark_at_two_segments_takes_cwnd_below_two() {
    for (floor, cwnd_after) in [
        (MarkWindowFloor::TwoSegments, 2000),
        (MarkWindowFloor::OneSegment, 1600),
    ] {
        let mut s = sans_io_sender(
            Box::new(MecnCc::new(MecnCcConfig::mecn())),
            Box::new(AlwaysCongestion),
        );
        s.core.cfg.mark_window_floor = floor;
        let mut out = Vec::new();
        let t = s.next_deadline().unwrap();
        assert_eq!(s.on_timer(t, &mut out), Some(0));
        assert_eq!(segs(&out), "r0");
        out.clear();
        s.on_packet(
            t + 150 * NS_PER_MS,
            &echo_ack(1000, MecnLevel::NoCongestion),
            &mut out,
        );
        assert_eq!(s.core.w.cwnd, 2000, "{floor:?}: slow start");
        out.clear();
        s.on_packet(
            t + 300 * NS_PER_MS,
            &echo_ack(2000, MecnLevel::Incipient),
            &mut out,
        );
        assert_eq!(s.stats().ecn_reductions, 1, "{floor:?}");
        assert_eq!(
            (s.core.w.cwnd, s.core.w.ssthresh),
            (cwnd_after, 2000),
            "{floor:?}"
        );
    }
}

/// §2.3: "When there is a packet-drop the cwnd is reduced by beta3 = 50%"
/// (MECN; WMECN grades it instead): ssthresh = cwnd / 2, from cwnd, not
/// from FlightSize (RFC 5681 (4)'s base).
#[test]
fn s2_3_a_drop_cuts_cwnd_by_beta3_half() {
    // 15 segments written: cwnd (21 after one ACK) exceeds FlightSize (14).
    let mut s = sans_io_sender_writing(
        Box::new(MecnCc::new(MecnCcConfig::mecn())),
        Box::new(AlwaysCongestion),
        15_000,
    );
    let mut out = Vec::new();
    let mut t = 200 * NS_PER_MS;
    s.on_packet(t, &echo_ack(1000, MecnLevel::NoCongestion), &mut out);
    assert_eq!((s.core.w.cwnd, s.core.flight_size()), (21_000, 14_000));
    for _ in 0..3 {
        t += NS_PER_MS;
        s.on_packet(t, &echo_ack(1000, MecnLevel::NoCongestion), &mut out);
    }
    assert_eq!(segs(&out), "r1");
    assert_eq!(s.core.w.ssthresh, 10_500, "0.5 x cwnd, not FlightSize / 2");
}

/// §3.2: "'cwnd' is decreased only if it had not been decreased once
/// before in the same RTT, else, the packets are just retransmitted and the
/// window is not reduced" — any decrease, so a cut on a mark blocks a
/// loss's cut within the same RTT (the loss is retransmitted, its verdict
/// recorded). The document is silent on marks during loss recovery; as
/// ns-2's ECN (`TcpAgent::ecn`, nothing below `recover_`), they cut nothing.
#[test]
fn s3_2_a_mark_cut_blocks_a_loss_cut_in_the_same_rtt_and_marks_in_recovery_cut_nothing() {
    let mut s = sans_io_sender(
        Box::new(MecnCc::new(MecnCcConfig::wmecn())),
        Box::new(Graded),
    );
    let mut out = Vec::new();
    let t = 200 * NS_PER_MS;
    s.on_packet(t, &echo_ack(1000, MecnLevel::Moderate), &mut out);
    assert_eq!((s.core.w.cwnd, s.core.w.ssthresh), (12_000, 12_000));
    for i in 1..=3 {
        s.on_packet(
            t + i * NS_PER_MS,
            &echo_ack(1000, MecnLevel::NoCongestion),
            &mut out,
        );
    }
    assert_eq!(segs(&out), "r1");
    let d = *s.core.loss_decisions.last().unwrap();
    assert_eq!(d.cause, LossCause::Congestion);
    assert!(d.cut_blocked, "x 0.8 skipped: cut by the mark 3 ms before");
    assert_eq!(s.core.w.ssthresh, 12_000);
    // Two SRTTs later, still in recovery: a `11` cuts nothing.
    s.on_packet(
        t + 250 * NS_PER_MS,
        &echo_ack(1000, MecnLevel::Moderate),
        &mut out,
    );
    assert!(s.core.in_recovery);
    assert_eq!(s.core.w.ssthresh, 12_000);
    assert_eq!(s.stats().ecn_reductions, 1);
}
