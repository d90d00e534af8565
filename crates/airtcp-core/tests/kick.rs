//! Kick TCP (draft-bahk-pilc-tcp-wireless-00 §2) end to end: a mobile host
//! MH uploads over a 64 kb/s wireless uplink to the intermediate node IN,
//! then a wired link to the fixed host FH. Chosen uplink data packets are
//! dropped to force retransmission timeouts.

mod common;
use airtcp_core::net::packet::{Packet, PacketKind};
use airtcp_core::sim::TimeNs;
use airtcp_core::tcp::kick::KICK;
use airtcp_core::tcp::sender::TraceEvent;
use common::*;

/// `kick`: the kick table ("" for plain Reno); `aware`: agent on IN.
fn upload(kick: &str, aware: bool, drops: &[u64]) -> String {
    let drops: Vec<String> = drops.iter().map(|d| d.to_string()).collect();
    let agents = if aware {
        r#"agents = [{ kind = "kick" }]"#
    } else {
        ""
    };
    let kick = if kick.is_empty() {
        String::new()
    } else {
        format!(", kick = {kick}")
    };
    format!(
        r#"
[simulation]
duration = "60s"
[[node]]
name = "IN"
{agents}
[[link]]
a = "MH"
b = "IN"
rate = "64kbps"
delay = "10ms"
a_to_b = {{ error = {{ kind = "drop_list", packets = [{drops}], applies_to = "data" }} }}
[[link]]
a = "IN"
b = "FH"
rate = "10Mbps"
delay = "5ms"
[[flow]]
from = "MH"
to = "FH"
tcp = {{ variant = "reno", mss = "536B", initial_cwnd = 1, rwnd = "1072B", delayed_ack = false, trace = true{kick} }}
app = {{ kind = "file", size = "5360B" }}
"#,
        drops = drops.join(", ")
    )
}

const KICK_300MS: &str = r#"{ interval = "300ms" }"#;

fn counter(r: &airtcp_core::metrics::RunResult, name: &str) -> u64 {
    r.agents
        .iter()
        .filter(|a| a.counter == name)
        .map(|a| a.value)
        .sum()
}

#[test]
fn kicks_repeat_until_a_kickback_stops_them() {
    // Segment 0 and the first kick (at 300 ms) are lost on the uplink; the
    // second kick (600 ms) reaches IN, which has not forwarded segment 0:
    // forwarded with K cleared, and a kickback stops the kick timer.
    let (w, r) = run_world(&upload(KICK_300MS, true, &[1, 2]), None);
    let f = &r.flows[0];
    assert_eq!((f.kicks_sent, f.kickbacks_received), (2, 1));
    assert_eq!(counter(&r, "kicks_forwarded"), 1);
    assert_eq!(counter(&r, "kicks_answered"), 0);
    assert_eq!(f.timeouts, 0, "the kick beat the 1 s RTO");
    assert_eq!(f.transfers_completed, 1);
    assert!(r.transfers[0].response_s < 2.0);
    // The kick is not a TCP retransmission; the trace shows both kicks.
    assert_eq!(f.retransmitted_segments, 0);
    let s = w.tcp_sender(0).unwrap();
    let kicks: Vec<(TimeNs, u64)> = s
        .core
        .trace
        .iter()
        .filter_map(|(t, e)| match e {
            TraceEvent::Kick { seq } => Some((*t, *seq)),
            _ => None,
        })
        .collect();
    assert_eq!(kicks, vec![(300_000_000, 0), (600_000_000, 0)]);
}

#[test]
fn already_forwarded_segment_kick_is_answered_and_dropped() {
    // Segment 0 is lost after IN, on the wired link: IN has forwarded it,
    // so each kick is answered with a kickback and dropped.
    let text = upload(KICK_300MS, true, &[]).replacen(
        "rate = \"10Mbps\"\ndelay = \"5ms\"",
        "rate = \"10Mbps\"\ndelay = \"5ms\"\na_to_b = { error = { kind = \"drop_list\", packets = [1], applies_to = \"data\" } }",
        1,
    );
    let (_, r) = run_world(&text, None);
    let f = &r.flows[0];
    assert_eq!(counter(&r, "kicks_answered"), f.kicks_sent);
    assert!(f.kicks_sent >= 1);
    assert_eq!(counter(&r, "kicks_forwarded"), 0);
    // A kickback only stops the kicks; the wired loss is left to the RTO.
    assert_eq!(f.timeouts, 1);
    assert_eq!(f.transfers_completed, 1);
}

#[test]
fn kicking_changes_no_congestion_control_state() {
    // Same run with and without the kick timer, stopped just after the
    // first kick (300 ms) and before anything it causes can come back.
    let drops = [1, 2, 3, 4, 5];
    let build = |kick: &str| scenario(&upload(kick, true, &drops)).build(None).unwrap();
    let (mut with, mut without) = (build(KICK_300MS), build(""));
    let t = 300_000_001;
    with.run_until(t);
    without.run_until(t);
    let (a, b) = (
        &with.tcp_sender(0).unwrap().core,
        &without.tcp_sender(0).unwrap().core,
    );
    assert_eq!(
        with.tcp_sender(0)
            .unwrap()
            .hook
            .as_ref()
            .unwrap()
            .counters()[0],
        ("kicks_sent", 1)
    );
    assert_eq!((a.w.cwnd, a.w.ssthresh), (b.w.cwnd, b.w.ssthresh));
    assert_eq!(a.rtt.rto_ns(), b.rtt.rto_ns());
    assert_eq!(a.rtt.backoff_count(), b.rtt.backoff_count());
    assert_eq!(a.rtt.samples, b.rtt.samples);
    assert_eq!(a.rtt.srtt_ns(), b.rtt.srtt_ns());
    assert_eq!(a.rto_deadline, b.rto_deadline);
    assert_eq!(
        a.stats.retransmitted_segments,
        b.stats.retransmitted_segments
    );
    assert_eq!(
        (a.snd_una, a.snd_nxt, a.snd_max),
        (b.snd_una, b.snd_nxt, b.snd_max)
    );
}

#[test]
fn kick_unaware_node_lets_kicks_die_by_ttl() {
    // IN is a plain router: kicks (TTL 1) die there; the RTO recovers.
    let (_, r) = run_world(&upload(KICK_300MS, false, &[1]), None);
    let f = &r.flows[0];
    assert!(f.kicks_sent >= 1);
    assert_eq!(
        f.data_drops[3], f.kicks_sent,
        "every kick died by TTL: {:?}",
        f.data_drops
    );
    assert_eq!(f.kickbacks_received, 0);
    assert_eq!(f.timeouts, 1);
    assert_eq!(f.transfers_completed, 1);
    assert_eq!(f.delivered_bytes, 5360);
}

#[test]
fn no_kick_reaches_the_wireline_receiver_through_a_kick_aware_node() {
    // Records the sequence number of every kick (K bit) reaching FH.
    let (spy, kicks) = Spy::new(|p: &Packet, _| {
        (p.kind == PacketKind::TcpData && p.has_flag(KICK)).then_some(p.seq)
    });
    let mut w = scenario(&upload(r#"{ interval = "100ms" }"#, true, &[1, 2, 4, 7, 8]))
        .build(None)
        .unwrap();
    let fh = w.nodes.iter().position(|n| n.name == "FH").unwrap();
    w.nodes[fh].add_agent(Box::new(spy));
    let r = w.finish();
    assert!(r.flows[0].kicks_sent >= 3, "{}", r.flows[0].kicks_sent);
    assert_eq!(*kicks.lock().unwrap(), Vec::<u64>::new());
    assert_eq!(r.flows[0].transfers_completed, 1);
}

#[test]
fn kick_scenario_errors() {
    let bad = upload(r#"{ interval = "soon" }"#, true, &[]);
    let e = airtcp_core::scenario::Scenario::from_toml_str(&bad, "k.toml").unwrap_err();
    assert_eq!(e.field, "flow[0].tcp.kick.interval");
    assert!(
        e.to_string().contains("expected \"rtt\" or a duration"),
        "{e}"
    );
}
