//! Snoop (Balakrishnan, Seshan, Katz 1995) end to end: a fixed host FH
//! sends over a wired link to the base station BS, which runs Snoop, then
//! over a lossy wireless hop to the mobile host MH. Chosen wireless data
//! packets (numbered from 1 over BS -> MH) are dropped.

mod common;

use airtcp_core::metrics::RunResult;
use airtcp_core::tcp::sender::TraceEvent;
use airtcp_core::world::{FlowKind, World};
use common::*;

const SEGMENTS: u64 = 40;

fn downlink(snoop: bool, drops: &[u64]) -> String {
    let drops: Vec<String> = drops.iter().map(|d| d.to_string()).collect();
    let agents = if snoop {
        r#"agents = [{ kind = "snoop" }]"#
    } else {
        ""
    };
    format!(
        r#"
[simulation]
duration = "20s"
[[node]]
name = "BS"
{agents}
[[link]]
a = "FH"
b = "BS"
rate = "10Mbps"
delay = "20ms"
queue = {{ kind = "droptail", limit = "100pkt" }}
[[link]]
a = "BS"
b = "MH"
rate = "2Mbps"
delay = "5ms"
queue = {{ kind = "droptail", limit = "100pkt" }}
a_to_b = {{ error = {{ kind = "drop_list", packets = [{drops}], applies_to = "data" }} }}
[[flow]]
from = "FH"
to = "MH"
tcp = {{ variant = "reno", mss = "1000B", delayed_ack = false, initial_cwnd = 4, trace = true }}
app = {{ kind = "file", size = "{size}B" }}
"#,
        drops = drops.join(", "),
        size = SEGMENTS * 1000
    )
}

fn run(text: &str) -> (World, RunResult, Vec<u64>) {
    let (spy, acks) = Spy::new(ack_numbers);
    let mut w = scenario(text).build(None).unwrap();
    w.record_sender_events();
    let fh = w.nodes.iter().position(|n| n.name == "FH").unwrap();
    w.add_agent(fh, Box::new(spy));
    let r = w.finish();
    let acks = acks.lock().unwrap().clone();
    (w, r, acks)
}

fn counter(r: &RunResult, name: &str) -> u64 {
    r.agents
        .iter()
        .filter(|a| a.agent == "snoop" && a.counter == name)
        .map(|a| a.value)
        .sum()
}

fn dupacks(acks: &[u64]) -> usize {
    acks.windows(2).filter(|w| w[0] == w[1]).count()
}

/// cwnd never decreases in the trace.
fn cwnd_never_reduced(w: &World) -> bool {
    let s = w.tcp_sender(0).unwrap();
    let cw: Vec<u64> = s
        .core
        .trace
        .iter()
        .filter_map(|(_, e)| match e {
            TraceEvent::Window { cwnd, .. } => Some(*cwnd),
            _ => None,
        })
        .collect();
    cw.windows(2).all(|x| x[1] >= x[0])
}

#[test]
fn downlink_loss_is_repaired_locally_and_hidden_from_the_sender() {
    let (w, r, acks) = run(&downlink(true, &[20]));
    dump(w.tcp_sender(0).unwrap());
    assert_eq!(counter(&r, "local_retransmissions"), 1);
    assert_eq!(counter(&r, "timeout_retransmissions"), 0);
    assert_eq!(counter(&r, "cache_hits"), 1);
    assert!(counter(&r, "dupacks_suppressed") >= 3);
    assert_eq!(dupacks(&acks), 0, "the sender sees no duplicate ACK");
    let f = &r.flows[0];
    assert_eq!((f.fast_retransmits, f.timeouts), (0, 0));
    assert_eq!(f.retransmitted_segments, 0);
    assert!(cwnd_never_reduced(&w));
    assert_eq!(f.transfers_completed, 1);
    assert_eq!(f.delivered_bytes, SEGMENTS * 1000);
    // Without Snoop the same loss costs a fast retransmit and halves cwnd.
    let (w0, r0, acks0) = run(&downlink(false, &[20]));
    assert!(dupacks(&acks0) >= 3);
    assert_eq!(r0.flows[0].fast_retransmits, 1);
    assert!(!cwnd_never_reduced(&w0));
}

#[test]
fn lost_local_retransmission_is_resent_by_the_local_timer() {
    // Packet 10 and its local retransmission (the next packet over the
    // wireless hop after the ones already queued) are both lost; the
    // local timer resends it before the sender's RTO (1 s).
    let (w, r, acks) = run(&downlink(true, &[20]));
    let _ = (w, acks);
    let first = counter(&r, "dupacks_suppressed");
    // Find the position of the local retransmission on BS -> MH: every
    // packet forwarded before it, plus one.
    let text = downlink(true, &[20, 20 + first + 1]);
    let (w, r, acks) = run(&text);
    dump(w.tcp_sender(0).unwrap());
    assert_eq!(counter(&r, "local_retransmissions"), 1);
    assert_eq!(counter(&r, "timeout_retransmissions"), 1);
    let f = &r.flows[0];
    assert_eq!(f.timeouts, 0);
    assert_eq!(f.transfers_completed, 1);
    // Duplicate ACKs beyond the expected count went to the sender.
    assert!(dupacks(&acks) > 0);
}

#[test]
fn snoop_is_transparent_on_a_lossless_path() {
    let (a, ra, acks_a) = run(&downlink(true, &[]));
    let (b, rb, acks_b) = run(&downlink(false, &[]));
    let spec = |w: &World| match &w.flows[0].kind {
        FlowKind::Tcp(t) => t.spec.clone(),
        _ => unreachable!(),
    };
    assert_eq!(spec(&a), spec(&b));
    assert_eq!(
        a.tcp_sender(0).unwrap().core.trace,
        b.tcp_sender(0).unwrap().core.trace
    );
    assert_eq!(acks_a, acks_b);
    assert_eq!(ra.flows[0].delivered_bytes, rb.flows[0].delivered_bytes);
    assert_eq!(counter(&ra, "local_retransmissions"), 0);
    assert_eq!(counter(&ra, "timeout_retransmissions"), 0);
}
