//! TCP Westwood (Casetti et al., Wireless Networks 2002) and Westwood+
//! (Grieco & Mascolo 2004): the bandwidth estimate converges on a clean
//! bottleneck, and ssthresh = BWE x RTTmin after three duplicate ACKs and
//! after a timeout.

mod common;
use airtcp_core::net::packet::{flags, Packet, PacketKind};
use airtcp_core::sim::NS_PER_MS;
use airtcp_core::tcp::cc::{Westwood, WestwoodConfig};
use airtcp_core::tcp::classify::AlwaysCongestion;
use airtcp_core::tcp::recovery::RenoRecovery;
use airtcp_core::tcp::rto::StandardTimeout;
use airtcp_core::tcp::rtt::RtoConfig;
use airtcp_core::tcp::sender::{SenderConfig, TcpSender};
use common::*;

fn dumbbell(cc: &str) -> String {
    format!(
        r#"
[simulation]
duration = "40s"
[[link]]
a = "S"
b = "R"
rate = "10Mbps"
delay = "2ms"
queue = {{ kind = "droptail", limit = "200pkt" }}
[[link]]
a = "R"
b = "D"
rate = "1Mbps"
delay = "30ms"
queue = {{ kind = "droptail", limit = "30pkt" }}
[[flow]]
from = "S"
to = "D"
tcp = {{ variant = "reno", cc = {cc} }}
app = {{ kind = "bulk" }}
"#
    )
}

#[test]
fn the_estimate_converges_to_the_bottleneck_rate_within_ten_percent() {
    // 1 Mb/s of 1040-byte packets carrying 1000 bytes: 961.5 kb/s of
    // acknowledged payload.
    let bottleneck = 1e6 * 1000.0 / 1040.0;
    for cc in [r#"{ kind = "westwood" }"#, r#"{ kind = "westwood_plus" }"#] {
        let (w, r) = run_world(&dumbbell(cc), None);
        let s = w.tcp_sender(0).unwrap();
        let bwe = s.core.cc.bwe_bps().expect("an estimate");
        assert!(
            (bwe - bottleneck).abs() <= 0.1 * bottleneck,
            "{cc}: BWE {bwe:.0} b/s vs {bottleneck:.0}"
        );
        // And the flow keeps the bottleneck busy.
        assert!(r.flows[0].goodput_bps > 0.9 * bottleneck, "{cc}");
        let variant = r.flows[0].variant.as_deref().unwrap();
        assert!(variant.ends_with("westwood") || variant.ends_with("westwood+"));
    }
}

fn ack(n: u64) -> Packet {
    Packet {
        kind: PacketKind::TcpAck,
        flow: 0,
        epoch: 1,
        src: 1,
        dst: 0,
        ack: n,
        wnd: 1 << 30,
        flags: flags::ACK,
        ..Default::default()
    }
}

fn sender(cfg: WestwoodConfig) -> TcpSender {
    let c = SenderConfig {
        flow: 0,
        epoch: 1,
        src: 0,
        dst: 1,
        mss: 1000,
        initial_cwnd_segments: 10,
        initial_ssthresh_bytes: 40_000,
        rto: RtoConfig::default(),
        timestamps: false,
        ecn: false,
        handshake: false,
        dupthresh: 3,
        restart_rto_on_fast_retransmit: true,
        trace: true,
        mecn: false,
        ..SenderConfig::default()
    };
    TcpSender::new(
        c,
        Box::new(Westwood::new(cfg, 1000)),
        Box::new(RenoRecovery::default()),
        Box::new(StandardTimeout),
        Box::new(AlwaysCongestion),
        None,
    )
}

/// One segment acknowledged every 8 ms (1 Mb/s of payload) for `n` ACKs,
/// starting at 100 ms. Returns the time of the last ACK.
fn steady_acks(s: &mut TcpSender, n: u64) -> u64 {
    let mut out = Vec::new();
    s.start(0, &mut out);
    s.app_write(0, 100_000_000, &mut out);
    let mut t = 0;
    for k in 1..=n {
        t = 100 * NS_PER_MS + k * 8 * NS_PER_MS;
        s.on_packet(t, &ack(k * 1000), &mut out);
    }
    t
}

#[test]
fn three_duplicate_acks_set_ssthresh_to_bwe_times_rtt_min() {
    for cfg in [WestwoodConfig::westwood(), WestwoodConfig::westwood_plus()] {
        let mut s = sender(cfg);
        let t = steady_acks(&mut s, 400);
        let mut out = Vec::new();
        for d in 1..=3 {
            s.on_packet(t + d * 8 * NS_PER_MS, &ack(400_000), &mut out);
        }
        assert_eq!(s.stats().fast_retransmits, 1);
        let bwe = s.core.cc.bwe_bps().unwrap();
        assert!((bwe - 1e6).abs() < 0.1e6, "{bwe}");
        let rtt_min = s.core.rtt.min_rtt_ns().unwrap();
        let expected = ((bwe / 8.0 * rtt_min as f64 / 1e9) as u64).max(2000);
        assert_eq!(s.core.w.ssthresh, expected, "{:?}", cfg.filter);
        // Reno's rule would have given FlightSize / 2.
        assert_ne!(expected, (s.core.snd_max - s.core.snd_una) / 2);
        // Fast recovery ends with cwnd = ssthresh.
        s.on_packet(t + 40 * NS_PER_MS, &ack(405_000), &mut out);
        assert_eq!(s.core.w.cwnd, expected);
    }
}

#[test]
fn a_timeout_sets_ssthresh_to_bwe_times_rtt_min_and_cwnd_to_one_segment() {
    let mut s = sender(WestwoodConfig::westwood_plus());
    steady_acks(&mut s, 400);
    let bwe = s.core.cc.bwe_bps().unwrap();
    let rtt_min = s.core.rtt.min_rtt_ns().unwrap();
    let deadline = s.next_deadline().unwrap();
    let mut out = Vec::new();
    assert!(s.on_timer(deadline, &mut out).is_some());
    assert_eq!(s.stats().timeouts, 1);
    let expected = ((bwe / 8.0 * rtt_min as f64 / 1e9) as u64).max(2000);
    assert_eq!((s.core.w.cwnd, s.core.w.ssthresh), (1000, expected));
}
