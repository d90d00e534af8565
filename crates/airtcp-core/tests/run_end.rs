//! What the outputs say about the end of the run. A link computes each
//! packet's transmission start when it admits it, so at the end of a run
//! packets may still wait, or be on the air: the outputs count only what
//! happened within the run (docs/results.md, `links.utilization`: "Time
//! spent transmitting / duration of the run"; `trace.event`, `dequeue`:
//! "its transmission starts").

mod common;

use airtcp_core::observe::trace::PacketEvent;
use common::{run_traced, scenario};

/// A 1 Mb/s link A -> B (1 ms) with `queue`, and `flows` UDP sources from
/// A to B, each sending 1000 B datagrams at 10 Mb/s from 0.9 s of a 1 s
/// run (an on period of mean 1000 s: it lasts the 0.1 s with probability
/// 1 - 1e-4, and seed 1 draws one that does).
fn udp_at_the_end(queue: &str, flows: usize) -> String {
    let mut text = format!(
        r#"
[simulation]
duration = "1s"
seed = 1

[[link]]
a = "A"
b = "B"
rate = "1Mbps"
delay = "1ms"
queue = {queue}
"#
    );
    for _ in 0..flows {
        text.push_str(
            r#"
[[flow]]
start = "0.9s"
from = "A"
to = "B"
app = { kind = "onoff", rate = "10Mbps", mean_on = "1000s", mean_off = "1ms", packet_size = "1000B" }
"#,
        );
    }
    text
}

fn utilization(text: &str, link: &str) -> f64 {
    let r = scenario(text).run(None).unwrap();
    r.links.iter().find(|l| l.name == link).unwrap().utilization
}

/// results.md, `utilization`: "Time spent transmitting / duration of the
/// run". Datagrams reach the link every 0.8 ms from 0.9 s and each takes
/// 8 ms to send: the link transmits without a gap from 0.9 s to the end
/// (1 s), 0.1 s of 1 s, however many datagrams still wait then (113; the
/// link once counted their 8 ms each and reported 1.0).
#[test]
fn utilization_counts_only_transmission_within_the_run() {
    let text = udp_at_the_end(r#"{ kind = "droptail", limit = "500pkt" }"#, 1);
    assert!((utilization(&text, "A->B") - 0.1).abs() < 1e-12);
}

/// The same with a `per_flow` queue (scenario.md: "each served in its own
/// queue at the link rate"): each connection's queue transmits without a
/// gap from 0.9 s to the end; two connections served side by side spend
/// 2 × 0.1 s transmitting in the 1 s run.
#[test]
fn utilization_of_a_per_flow_queue_counts_only_transmission_within_the_run() {
    let one = udp_at_the_end(r#"{ kind = "per_flow", limit = "500pkt" }"#, 1);
    assert!((utilization(&one, "A->B") - 0.1).abs() < 1e-12);
    let two = udp_at_the_end(r#"{ kind = "per_flow", limit = "500pkt" }"#, 2);
    assert!((utilization(&two, "A->B") - 0.2).abs() < 1e-12);
}

/// A bulk TCP flow starts at 6 s of a 10 s run on a 1 Mb/s bottleneck
/// with a 1000-packet buffer (bufferbloat: at the end hundreds of
/// segments wait). The bottleneck carries nothing before 6 s, so it
/// transmits at most 4 s of the 10: utilization <= 0.4 (it was reported
/// as 0.597). After the handshake, slow start fills the path (1 Mb/s ×
/// 22 ms of propagation is under 3 segments) within a few RTTs of about
/// 30 ms, after which the queue never empties: the idle time after 6 s is
/// well under 0.2 s, so utilization >= 0.38.
#[test]
fn utilization_of_a_bloated_queue_is_at_most_the_time_left() {
    let text = r#"
[simulation]
duration = "10s"
seed = 1

[[link]]
a = "S"
b = "R"
rate = "100Mbps"
delay = "1ms"

[[link]]
a = "R"
b = "D"
rate = "1Mbps"
delay = "10ms"
queue = { kind = "droptail", limit = "1000pkt" }

[[flow]]
from = "S"
to = "D"
start = "6s"
tcp = { variant = "newreno" }
app = { kind = "bulk" }
"#;
    let u = utilization(text, "R->D");
    assert!((0.38..=0.4).contains(&u), "{u}");
}

/// capture.md, the per-packet trace: `dequeue` is when "its transmission
/// starts". Datagram k (from 0) of the UDP case reaches the link at
/// 0.9 s + 0.8k ms and starts at 0.9 s + 8k ms: the 13 with k <= 12 start
/// within the 1 s run (the last at 0.996 s), none after; the 12 that also
/// finish within it (k <= 11, at 0.9 s + 8(k+1) ms + 1 ms) are received.
/// Datagram 12, on the air at the end, has its `dequeue` row but no
/// `receive` row.
#[test]
fn the_trace_holds_no_transmission_after_the_end_of_the_run() {
    let sc = scenario(&udp_at_the_end(
        r#"{ kind = "droptail", limit = "500pkt" }"#,
        1,
    ));
    let (_, r, recs) = run_traced(&sc);
    let end_ns = (r.duration_s * 1e9).round() as u64;
    assert!(recs.iter().all(|rec| rec.time_ns <= end_ns));
    let times = |event| {
        recs.iter()
            .filter(|rec| rec.event == event)
            .map(|rec| rec.time_ns)
            .collect::<Vec<_>>()
    };
    let dequeues = times(PacketEvent::Dequeue);
    let expected: Vec<u64> = (0..13).map(|k| 900_000_000 + k * 8_000_000).collect();
    assert_eq!(dequeues, expected);
    assert_eq!(times(PacketEvent::Receive).len(), 12);
    // Every admitted datagram has its enqueue row (the link counts it in
    // `packets_sent`).
    assert_eq!(
        times(PacketEvent::Enqueue).len() as u64,
        r.links[0].packets_sent
    );
}
