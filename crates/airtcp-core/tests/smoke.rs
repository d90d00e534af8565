//! The shipped examples validate, run, and show what they are meant to.

mod common;

use airtcp_core::net::packet::PacketKind;
use airtcp_core::scenario::Scenario;

fn run(name: &str) -> airtcp_core::metrics::RunResult {
    let path = format!("{}/../../examples/{name}.toml", env!("CARGO_MANIFEST_DIR"));
    let sc = Scenario::from_path(&path).unwrap_or_else(|e| panic!("{e}"));
    sc.run(None).unwrap()
}

#[test]
fn dumbbell_example_shares_a_busy_red_bottleneck() {
    let r = run("dumbbell");
    assert!(
        r.flows.iter().all(|f| f.goodput_bps > 1e6),
        "{:?}",
        r.flows.iter().map(|f| f.goodput_bps).collect::<Vec<_>>()
    );
    let bottleneck = r.links.iter().find(|l| l.name == "R1->R2").unwrap();
    assert!(bottleneck.utilization > 0.6, "{}", bottleneck.utilization);
    // RED with ECN marks the ECN-capable flow instead of dropping it.
    assert!(bottleneck.ecn_marks > 0);
    assert!(r.flows[0].ecn_reductions > 0);
}

#[test]
fn wireless_example_loses_data_on_the_last_hop_only() {
    let r = run("wireless");
    let f = &r.flows[0];
    assert!(f.goodput_bps > 0.5e6, "{}", f.goodput_bps);
    assert!(f.data_drops[2] > 0, "channel losses");
    assert_eq!(f.data_drops[0] + f.data_drops[1], 0, "no congestion drops");
    assert_eq!(f.ack_drops, 0, "errors hit data only");
}

/// An agent sees the packets at its node whatever the node's number: the
/// loop keeps which nodes have agents in a bitmap (`World::prime`), one
/// word per 64 nodes, and an agent on node 64 or beyond must be found in a
/// later word than the first.
#[test]
fn an_agent_on_a_node_numbered_past_64_sees_its_packets() {
    let text = r#"
[simulation]
duration = "2s"

[[link]]
count = 70
a = "h{i}"
b = "H"
rate = "10Mbps"
delay = "5ms"

[[flow]]
from = "h69"
to = "H"
tcp = { variant = "newreno", mss = "1000B" }
app = { kind = "file", size = "20000B" }
"#;
    let sc = Scenario::from_toml_str(text, "agents.toml").unwrap_or_else(|e| panic!("{e}"));
    let mut w = sc.build(None).unwrap();
    let (spy, acks) = common::Spy::new(|p, _| (p.kind == PacketKind::TcpAck).then_some(p.ack));
    let node = w.nodes.iter().position(|n| n.name == "h69").unwrap();
    assert!(node >= 64, "h69 is node {node}");
    w.add_agent(node, Box::new(spy));
    let r = w.finish();
    assert_eq!(r.flows[0].delivered_bytes, 20_000);
    let acks = acks.lock().unwrap().clone();
    assert_eq!(acks.last(), Some(&20_000), "{acks:?}");
}

/// Hears of every transmission on one link direction (`NodeAgent::watched_link`).
struct LinkSpy {
    link: u32,
    sent_seqs: std::sync::Arc<std::sync::Mutex<Vec<u64>>>,
}

impl airtcp_core::agents::NodeAgent for LinkSpy {
    fn name(&self) -> &'static str {
        "link spy"
    }
    fn on_packet(
        &mut self,
        _now: airtcp_core::sim::TimeNs,
        _pkt: &mut airtcp_core::net::packet::Packet,
        _ingress: airtcp_core::agents::Ingress,
        _egress: Option<u32>,
        _out: &mut airtcp_core::agents::AgentOutput,
    ) -> airtcp_core::agents::AgentVerdict {
        airtcp_core::agents::AgentVerdict::Pass
    }
    fn watched_link(&self) -> Option<u32> {
        Some(self.link)
    }
    fn on_link_tx(
        &mut self,
        _now: airtcp_core::sim::TimeNs,
        pkt: &airtcp_core::net::packet::Packet,
        tx: airtcp_core::agents::LinkTx,
    ) {
        if matches!(tx, airtcp_core::agents::LinkTx::Sent { .. }) {
            self.sent_seqs.lock().unwrap().push(pkt.seq);
        }
    }
}

/// The Rust API lets a caller step a run (`World::run_until`) and add an
/// agent between steps (`World::add_agent`). Such an agent, on a node
/// that had none when the run started, sees the packets its node forwards
/// from then on, and one watching a link hears of that link's
/// transmissions: the same data segments, once each. (Before, the loop
/// noted agents only at the run's start and ignored later ones.)
#[test]
fn an_agent_added_during_a_run_sees_the_rest_of_it() {
    let text = r#"
[simulation]
duration = "2s"

[[link]]
a = "A"
b = "B"
rate = "10Mbps"
delay = "5ms"

[[link]]
a = "B"
b = "C"
rate = "10Mbps"
delay = "5ms"

[[flow]]
from = "A"
to = "C"
tcp = { variant = "newreno", mss = "1000B" }
app = { kind = "file", size = "200000B" }
"#;
    let sc = Scenario::from_toml_str(text, "mid-run.toml").unwrap_or_else(|e| panic!("{e}"));
    let mut w = sc.build(None).unwrap();
    let id = |name: &str| w.nodes.iter().position(|n| n.name == name).unwrap();
    let (b, c) = (id("B"), id("C"));
    let b_to_c = w
        .links
        .iter()
        .position(|l| l.from as usize == b && l.to as usize == c)
        .unwrap() as u32;
    // 200 kB at 10 Mb/s takes 160 ms: at 50 ms the transfer is under way.
    w.run_until(50_000_000);
    let (spy, forwarded) = common::Spy::new(|p, _| {
        (p.kind == PacketKind::TcpData && p.payload_len > 0).then_some(p.seq)
    });
    let sent_seqs = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    w.add_agent(b, Box::new(spy));
    w.add_agent(
        b,
        Box::new(LinkSpy {
            link: b_to_c,
            sent_seqs: sent_seqs.clone(),
        }),
    );
    let r = w.finish();
    assert_eq!(r.flows[0].delivered_bytes, 200_000);
    let forwarded = forwarded.lock().unwrap().clone();
    let sent = sent_seqs.lock().unwrap().clone();
    assert!(
        forwarded.len() >= 10 && forwarded.first() > Some(&0),
        "after 50 ms, not from the start: {forwarded:?}"
    );
    assert_eq!(forwarded.last(), Some(&199_000), "{forwarded:?}");
    assert_eq!(sent, forwarded);
}
