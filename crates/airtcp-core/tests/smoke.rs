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
    w.nodes[node].add_agent(Box::new(spy));
    let r = w.finish();
    assert_eq!(r.flows[0].delivered_bytes, 20_000);
    let acks = acks.lock().unwrap().clone();
    assert_eq!(acks.last(), Some(&20_000), "{acks:?}");
}
