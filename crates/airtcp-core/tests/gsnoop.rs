//! G-Snoop (Leung & Yeung) end to end: S -> GA ~wireless~ GB -> D.
//!
//! The upstream link (1 Mb/s, 8.32 ms per 1040-byte packet) is the
//! bottleneck, so GA's wireless queue stays empty as in the document's
//! topology. The wireless link is 10 Mb/s with 14 ms propagation, so a NACK
//! sent when packet k+3 reaches GB brings the repair back after k+6 and
//! before k+7 (round trip 28.9 ms, between 3 and 4 packet times). The
//! downstream link has the document's 30 ms, so the receiver's duplicate
//! ACKs reach GB after the repair. Packets are numbered from 1 as in the
//! document: packet k carries bytes [(k-1)*1000, k*1000).

mod common;

use airtcp_core::metrics::RunResult;
use airtcp_core::net::packet::{Packet, PacketKind};
use airtcp_core::scenario::Scenario;
use airtcp_core::world::{FlowKind, World};
use common::*;

const SEGMENTS: u64 = 30;

struct Drops<'a> {
    upstream: &'a [u64],
    wireless: &'a [u64],
    downstream: &'a [u64],
}

const NO_DROPS: Drops = Drops {
    upstream: &[],
    wireless: &[],
    downstream: &[],
};

fn list(d: &[u64]) -> String {
    let v: Vec<String> = d.iter().map(|x| x.to_string()).collect();
    format!(
        "{{ error = {{ kind = \"drop_list\", packets = [{}], applies_to = \"data\" }} }}",
        v.join(", ")
    )
}

/// `agents`: (GA's agents, GB's agents) as TOML lists, "" for none.
fn topology(ga: &str, gb: &str, drops: &Drops) -> String {
    let agents = |a: &str| {
        if a.is_empty() {
            String::new()
        } else {
            format!("agents = [{a}]")
        }
    };
    format!(
        r#"
[simulation]
duration = "10s"
[[node]]
name = "GA"
{ga}
[[node]]
name = "GB"
{gb}
[[link]]
a = "S"
b = "GA"
rate = "1Mbps"
delay = "2ms"
queue = {{ kind = "droptail", limit = "100pkt" }}
a_to_b = {up}
[[link]]
a = "GA"
b = "GB"
rate = "10Mbps"
delay = "14ms"
queue = {{ kind = "droptail", limit = "100pkt" }}
a_to_b = {wl}
[[link]]
a = "GB"
b = "D"
rate = "10Mbps"
delay = "30ms"
queue = {{ kind = "droptail", limit = "100pkt" }}
a_to_b = {down}
[[flow]]
from = "S"
to = "D"
tcp = {{ variant = "reno", mss = "1000B", delayed_ack = false, initial_cwnd = {SEGMENTS}, trace = true }}
app = {{ kind = "file", size = "{size}B" }}
"#,
        ga = agents(ga),
        gb = agents(gb),
        up = list(drops.upstream),
        wl = list(drops.wireless),
        down = list(drops.downstream),
        size = SEGMENTS * 1000,
    )
}

const GA: &str = r#"{ kind = "gsnoop_a", peer = "GB", cache = 25 }"#;
const GB: &str = r#"{ kind = "gsnoop_b", peer = "GA", guard = "10ms" }"#;

struct Run {
    world: World,
    r: RunResult,
    acks: Vec<u64>,
    /// Packet numbers in the order they reached the receiver.
    arrivals: Vec<u64>,
}

impl Run {
    fn counter(&self, agent: &str, name: &str) -> u64 {
        self.r
            .agents
            .iter()
            .filter(|a| a.agent == agent && a.counter == name)
            .map(|a| a.value)
            .sum()
    }

    /// Duplicate ACKs seen by the sender, as (ack number in packets, count).
    fn dupacks_at_sender(&self) -> Vec<(u64, usize)> {
        let mut out: Vec<(u64, usize)> = Vec::new();
        for w in self.acks.windows(2) {
            if w[0] == w[1] {
                match out.last_mut() {
                    Some((a, n)) if *a == w[1] / 1000 => *n += 1,
                    _ => out.push((w[1] / 1000, 1)),
                }
            }
        }
        out
    }
}

fn run(text: &str) -> Run {
    let (ack_spy, acks) = Spy::new(ack_numbers);
    // Data packet numbers (from 1) reaching the receiver's node.
    let (data_spy, arrivals) = Spy::new(|p: &Packet, _| {
        (p.kind == PacketKind::TcpData && p.payload_len > 0).then_some(p.seq / 1000 + 1)
    });
    let mut world = scenario(text).build(None).unwrap();
    world.record_sender_events();
    let node = |w: &World, name: &str| w.nodes.iter().position(|n| n.name == name).unwrap();
    let (s, d) = (node(&world, "S"), node(&world, "D"));
    world.add_agent(s, Box::new(ack_spy));
    world.add_agent(d, Box::new(data_spy));
    let r = world.finish();
    let acks = acks.lock().unwrap().clone();
    let arrivals = arrivals.lock().unwrap().clone();
    Run {
        world,
        r,
        acks,
        arrivals,
    }
}

fn assert_done(run: &Run) {
    let f = &run.r.flows[0];
    assert_eq!(f.transfers_completed, 1);
    assert_eq!(f.delivered_bytes, SEGMENTS * 1000);
    assert_eq!(f.timeouts, 0);
}

#[test]
fn packet_4_example_repaired_locally_six_dupacks_suppressed() {
    // Packet 4 is corrupted on the wireless link (§3.B's example).
    let drops = Drops {
        wireless: &[4],
        ..NO_DROPS
    };
    let run = run(&topology(GA, GB, &drops));
    let s = run.world.tcp_sender(0).unwrap();
    dump(s);
    assert_eq!(run.counter("gsnoop_b", "nacks_sent"), 1);
    assert_eq!(run.counter("gsnoop_a", "nacks_received"), 1);
    assert_eq!(run.counter("gsnoop_a", "cache_hits"), 1);
    assert_eq!(run.counter("gsnoop_a", "local_retransmissions"), 1);
    assert_eq!(run.counter("gsnoop_b", "repairs_received"), 1);
    // O3_counter = 6 (packets 5..10), six duplicate ACKs suppressed.
    assert_eq!(run.counter("gsnoop_b", "o3_total"), 6);
    assert_eq!(run.counter("gsnoop_b", "dupacks_suppressed"), 6);
    assert_eq!(run.counter("gsnoop_a", "icns"), 0);
    // The sender never learns of the loss.
    assert_eq!(run.dupacks_at_sender(), vec![]);
    let f = &run.r.flows[0];
    assert_eq!((f.fast_retransmits, f.retransmitted_segments), (0, 0));
    assert_done(&run);
    // The receiver got packet 4 after 10: ...3, 5, 6, 7, 8, 9, 10, 4.
    assert_eq!(run.arrivals[..11], [1, 2, 3, 5, 6, 7, 8, 9, 10, 4, 11]);
    assert_eq!(run.arrivals.len() as u64, SEGMENTS);
    assert_eq!(f.data_drops[2], 1, "one channel loss: {:?}", f.data_drops);
}

#[test]
fn repair_lost_downstream_dupacks_beyond_o3_reach_the_sender() {
    // Through GB -> D the order is 1, 2, 3, 5, ..., 10, 4: the 10th packet
    // is the local repair, lost downstream.
    let drops = Drops {
        wireless: &[4],
        downstream: &[10],
        ..NO_DROPS
    };
    let run = run(&topology(GA, GB, &drops));
    let s = run.world.tcp_sender(0).unwrap();
    dump(s);
    assert_eq!(run.counter("gsnoop_b", "o3_total"), 6);
    assert_eq!(run.counter("gsnoop_b", "dupacks_suppressed"), 6);
    // The repair died on GB -> D: the receiver sees 4 only from the sender.
    assert_eq!(run.arrivals[..10], [1, 2, 3, 5, 6, 7, 8, 9, 10, 11]);
    // Packets 5..30 make 26 duplicate ACKs for packet 4: six were
    // suppressed, the seventh and later (20) pass and the sender
    // fast-retransmits packet 4 (segment 3).
    assert_eq!(run.dupacks_at_sender(), vec![(3, 20)]);
    let f = &run.r.flows[0];
    assert_eq!(f.fast_retransmits, 1);
    assert_eq!(retransmissions(s), vec![3]);
    assert_done(&run);
}

#[test]
fn hole_hit_sends_exactly_three_icn_dupacks_and_no_local_retransmission() {
    // Packet 4 is lost upstream: GA sees the hole, GB NACKs it anyway.
    let drops = Drops {
        upstream: &[4],
        ..NO_DROPS
    };
    let run = run(&topology(GA, GB, &drops));
    let s = run.world.tcp_sender(0).unwrap();
    dump(s);
    assert_eq!(run.counter("gsnoop_b", "nacks_sent"), 1);
    assert_eq!(run.counter("gsnoop_a", "icns"), 1);
    assert_eq!(run.counter("gsnoop_a", "icn_dupacks_sent"), 3);
    assert_eq!(run.counter("gsnoop_a", "local_retransmissions"), 0);
    assert_eq!(run.counter("gsnoop_a", "cache_hits"), 0);
    assert_eq!(run.counter("gsnoop_a", "cache_misses"), 0);
    // No repair comes: O3_counter is reset and nothing is suppressed.
    assert_eq!(run.counter("gsnoop_b", "o3_resets"), 1);
    assert_eq!(run.counter("gsnoop_b", "repairs_received"), 0);
    assert_eq!(run.counter("gsnoop_b", "dupacks_suppressed"), 0);
    // The next ACK to pass GA acknowledges packet 1: the sender sees it and
    // three copies, so it fast-retransmits packet 2 (not the hole, §3.A);
    // the receiver's own duplicate ACKs for packet 4 then trigger a second
    // fast retransmit (the "duplicate effort" of §3.A).
    let dups = run.dupacks_at_sender();
    assert_eq!(dups[0], (1, 3), "{dups:?}");
    assert_eq!(dups[1].0, 3, "{dups:?}");
    assert_eq!(retransmissions(s), vec![1, 3]);
    assert_eq!(run.r.flows[0].fast_retransmits, 2);
    assert_done(&run);
}

/// `icn = false`, an ablation the document does not describe, of the
/// scenario above. §3.A: "If the requested packet by NACK corresponds to a
/// hole in the hole table ... An incipient congestion notification (ICN)
/// function is then activated." Switched off, the hole hit sends nothing:
/// the sender sees only the receiver's own duplicate ACKs for packet 4 and
/// recovers as §4.D describes for a loss the gateways do not handle ("the
/// sender carries out the standard Fast Retransmit and Fast Recovery
/// procedures"): one fast retransmit, of packet 4, where ICN on made two.
#[test]
fn hole_hit_with_icn_off_sends_no_icn_dupacks_and_the_sender_recovers_end_to_end() {
    let drops = Drops {
        upstream: &[4],
        ..NO_DROPS
    };
    let ga = r#"{ kind = "gsnoop_a", peer = "GB", cache = 25, icn = false }"#;
    let run = run(&topology(ga, GB, &drops));
    let s = run.world.tcp_sender(0).unwrap();
    dump(s);
    assert_eq!(run.counter("gsnoop_b", "nacks_sent"), 1);
    assert_eq!(run.counter("gsnoop_a", "nacks_received"), 1);
    assert_eq!(run.counter("gsnoop_a", "icns"), 0);
    assert_eq!(run.counter("gsnoop_a", "icn_dupacks_sent"), 0);
    assert_eq!(run.counter("gsnoop_a", "icns_withheld"), 1);
    assert_eq!(run.counter("gsnoop_a", "local_retransmissions"), 0);
    assert_eq!(run.counter("gsnoop_a", "cache_hits"), 0);
    assert_eq!(run.counter("gsnoop_a", "cache_misses"), 0);
    assert_eq!(run.counter("gsnoop_b", "o3_resets"), 1);
    assert_eq!(run.counter("gsnoop_b", "dupacks_suppressed"), 0);
    // Packets 5..30 make 26 duplicate ACKs for packet 4, all of them the
    // receiver's.
    assert_eq!(run.dupacks_at_sender(), vec![(3, 26)]);
    assert_eq!(retransmissions(s), vec![3]);
    assert_eq!(run.r.flows[0].fast_retransmits, 1);
    assert_done(&run);
}

/// `icn` has an effect where ICNs occur, and its default is the document's
/// ICN (`icn = true`) bit for bit: the run above with the field left out,
/// `true` and `false` (upstream losses of packets 4 and 12, so two ICNs).
#[test]
fn icn_defaults_to_on_and_off_changes_a_run_with_hole_hits() {
    let drops = Drops {
        upstream: &[4, 12],
        ..NO_DROPS
    };
    let with = |icn: &str| {
        let ga = format!(r#"{{ kind = "gsnoop_a", peer = "GB", cache = 25{icn} }}"#);
        run(&topology(&ga, GB, &drops))
    };
    let (default, on, off) = (with(""), with(", icn = true"), with(", icn = false"));
    assert_eq!(default.r, on.r);
    assert_eq!(default.acks, on.acks);
    assert_eq!(
        default.world.tcp_sender(0).unwrap().core.trace,
        on.world.tcp_sender(0).unwrap().core.trace
    );
    let icns = |r: &Run| {
        (
            r.counter("gsnoop_a", "icns"),
            r.counter("gsnoop_a", "icn_dupacks_sent"),
            r.counter("gsnoop_a", "icns_withheld"),
        )
    };
    let hole_hits = on.counter("gsnoop_a", "icns");
    assert!(hole_hits > 0);
    assert_eq!(icns(&on), (hole_hits, 3 * hole_hits, 0));
    assert_eq!(icns(&off), (0, 0, hole_hits));
    assert_ne!(on.acks, off.acks);
    assert_ne!(
        on.world.tcp_sender(0).unwrap().core.trace,
        off.world.tcp_sender(0).unwrap().core.trace
    );
    assert!(on.r.flows[0].fast_retransmits > off.r.flows[0].fast_retransmits);
}

#[test]
fn cache_miss_takes_no_action() {
    // A 2-packet cache has flushed packet 4 by the time the NACK arrives.
    let ga = r#"{ kind = "gsnoop_a", peer = "GB", cache = 2 }"#;
    let drops = Drops {
        wireless: &[4],
        ..NO_DROPS
    };
    let run = run(&topology(ga, GB, &drops));
    let s = run.world.tcp_sender(0).unwrap();
    dump(s);
    assert_eq!(run.counter("gsnoop_a", "nacks_received"), 1);
    assert_eq!(run.counter("gsnoop_a", "cache_misses"), 1);
    assert_eq!(run.counter("gsnoop_a", "cache_hits"), 0);
    assert_eq!(run.counter("gsnoop_a", "local_retransmissions"), 0);
    assert_eq!(run.counter("gsnoop_a", "icns"), 0);
    assert_eq!(run.counter("gsnoop_a", "icn_dupacks_sent"), 0);
    assert_eq!(run.counter("gsnoop_b", "dupacks_suppressed"), 0);
    assert_eq!(run.counter("gsnoop_b", "o3_resets"), 1);
    // Plain end-to-end recovery: 26 duplicate ACKs, one fast retransmit.
    assert_eq!(run.dupacks_at_sender(), vec![(3, 26)]);
    assert_eq!(retransmissions(s), vec![3]);
    assert_done(&run);
}

#[test]
fn gateways_are_transparent_to_the_endpoints() {
    // Same TcpSpec, and on a lossless path the same sender trace, with and
    // without the gateways (the endpoints are the same code either way).
    let with = run(&topology(GA, GB, &NO_DROPS));
    let without = run(&topology("", "", &NO_DROPS));
    let spec = |w: &World| match &w.flows[0].kind {
        FlowKind::Tcp(t) => t.spec.clone(),
        _ => unreachable!(),
    };
    assert_eq!(spec(&with.world), spec(&without.world));
    let (a, b) = (
        &with.world.tcp_sender(0).unwrap().core.trace,
        &without.world.tcp_sender(0).unwrap().core.trace,
    );
    assert!(!a.is_empty());
    assert_eq!(a, b);
    assert_eq!(with.acks, without.acks);
    assert_eq!(
        with.r.flows[0].delivered_bytes,
        without.r.flows[0].delivered_bytes
    );
    assert_eq!(with.counter("gsnoop_b", "nacks_sent"), 0);
    assert_done(&with);
}

fn err(text: &str) -> airtcp_core::scenario::ScenarioError {
    match Scenario::from_toml_str(text, "g.toml") {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e,
    }
}

fn line_of(text: &str, needle: &str) -> usize {
    text.lines().position(|l| l.contains(needle)).unwrap() + 1
}

#[test]
fn bad_agent_tables_name_the_field_and_line() {
    let cases = [
        (
            r#"{ kind = "gsnoop_a", peer = "GX", cache = 25 }"#,
            GB,
            "node[0].agents[0].peer",
            "unknown node \"GX\"",
        ),
        (
            r#"{ kind = "gsnoop_a", peer = "GB", cache = 0 }"#,
            GB,
            "node[0].agents[0].cache",
            "must be from 1 to 1048576 packets",
        ),
        (
            GA,
            r#"{ kind = "gsnoop_b", peer = "S" }"#,
            "node[1].agents[0].peer",
            "no link joins \"GB\" and \"S\"",
        ),
        (
            GA,
            r#"{ kind = "gsnoop_b", peer = "GA", cache = 3 }"#,
            "node[1].agents[0].cache",
            "not used by kind \"gsnoop_b\"",
        ),
        (
            r#"{ kind = "gsnoop_a" }"#,
            GB,
            "node[0].agents[0]",
            "kind \"gsnoop_a\" needs `peer`",
        ),
        (
            r#"{ kind = "snoop", peer = "GB" }"#,
            GB,
            "node[0].agents[0].peer",
            "not used by kind \"snoop\"",
        ),
        (
            r#"{ kind = "gsnoop_a", peer = "GA" }"#,
            GB,
            "node[0].agents[0].peer",
            "must be another node",
        ),
        (
            r#"{ kind = "gsnoop_a", peer = "GB", icn = 1 }"#,
            GB,
            "node[0].agents[0].icn",
            "expected true or false, found 1",
        ),
        (
            r#"{ kind = "gsnoop_a", peer = "GB", icn = "off" }"#,
            GB,
            "node[0].agents[0].icn",
            "expected true or false, found \"off\"",
        ),
        (
            GA,
            r#"{ kind = "gsnoop_b", peer = "GA", icn = false }"#,
            "node[1].agents[0].icn",
            "not used by kind \"gsnoop_b\"",
        ),
    ];
    for (ga, gb, field, words) in cases {
        let text = topology(ga, gb, &NO_DROPS);
        let e = err(&text);
        let msg = e.to_string();
        assert_eq!(e.field, field, "{msg}");
        assert!(msg.contains(words), "{msg:?} lacks {words:?}");
        assert!(!msg.contains('\n'), "{msg}");
        let bad = if field.starts_with("node[0]") { ga } else { gb };
        assert_eq!(e.line, Some(line_of(&text, bad)), "{msg}");
    }
    // An unknown field or kind is caught by serde, with its path.
    let e = err(&topology(
        r#"{ kind = "gsnoop_c", peer = "GB" }"#,
        GB,
        &NO_DROPS,
    ));
    assert_eq!(e.field, "node[0].agents[0].kind", "{e}");
    let e = err(&topology(
        r#"{ kind = "gsnoop_a", peer = "GB", size = 3 }"#,
        GB,
        &NO_DROPS,
    ));
    assert!(e.to_string().contains("size"), "{e}");
}
