//! What the outputs say about the end of the run. A link computes each
//! packet's transmission start when it admits it, so at the end of a run
//! packets may still wait, or be on the air: the outputs count only what
//! happened within the run (docs/results.md, `links.utilization`: "Time
//! spent transmitting / duration of the run"; `trace.event`, `dequeue`:
//! "its transmission starts").

mod common;

use airtcp_core::metrics::RunResult;
use airtcp_core::net::packet::{DeathCause, PacketKind};
use airtcp_core::observe::trace::{PacketEvent, TraceRecord};
use airtcp_core::scenario::observe::ObserveRequest;
use airtcp_core::scenario::Scenario;
use common::{run_traced, scenario};

/// A 1 Mb/s link A -> B (1 ms) with `queue`, and `flows` UDP sources from
/// A to B, each sending 1000 B datagrams at 10 Mb/s from 0.9 s of a 1 s
/// run (an on period of mean 1000 s: it lasts the 0.1 s with probability
/// 1 - 1e-4, and seed 1 draws one that does).
fn udp_at_the_end(queue: &str, flows: usize) -> String {
    udp_at_the_end_on(queue, flows, "1Mbps", "")
}

/// The same on a link of `rate`, with `a_to_b` the link's direction A -> B
/// table (an error table: `a_to_b = { error = ... }`), if not empty.
fn udp_at_the_end_on(queue: &str, flows: usize, rate: &str, a_to_b: &str) -> String {
    let mut text = format!(
        r#"
[simulation]
duration = "1s"
seed = 1

[[link]]
a = "A"
b = "B"
rate = "{rate}"
delay = "1ms"
queue = {queue}
{a_to_b}
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
    let u = utilization(&bloated("", ""), "R->D");
    assert!((0.38..=0.4).contains(&u), "{u}");
}

/// The bloated path: S -> R (100 Mb/s, 1 ms) -> D (1 Mb/s, 10 ms, a
/// 1000-packet DropTail buffer) in a 10 s run, a bulk NewReno flow from
/// 6 s; `r_d` adds to the R-D link's table, `flows` adds flows.
fn bloated(r_d: &str, flows: &str) -> String {
    format!(
        r#"
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
queue = {{ kind = "droptail", limit = "1000pkt" }}
{r_d}

[[flow]]
from = "S"
to = "D"
start = "6s"
tcp = {{ variant = "newreno" }}
app = {{ kind = "bulk" }}
{flows}
"#
    )
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

const CHANNEL: usize = DeathCause::ChannelError as usize;

/// Channel `drop` rows of the trace.
fn channel_drop_rows(recs: &[TraceRecord]) -> impl Iterator<Item = &TraceRecord> {
    recs.iter()
        .filter(|rec| rec.event == PacketEvent::Drop && rec.cause == Some(DeathCause::ChannelError))
}

/// The links' `drops_channel` and the flows' `drops_channel` of `r`.
fn channel_drops(r: &RunResult) -> (Vec<u64>, Vec<u64>) {
    (
        r.links.iter().map(|l| l.drops[CHANNEL]).collect(),
        r.flows.iter().map(|f| f.data_drops[CHANNEL]).collect(),
    )
}

/// The UDP case on a channel that loses every packet (bernoulli with
/// `per` = 1) from A to B.
fn losing_everything(queue: &str, flows: usize) -> Scenario {
    scenario(&udp_at_the_end_on(
        queue,
        flows,
        "1Mbps",
        r#"a_to_b = { error = { kind = "bernoulli", per = 1.0 } }"#,
    ))
}

/// results.md, `drops_channel`: "Only a transmission that starts within
/// the run counts". A channel that loses every packet (bernoulli with
/// `per` = 1) under the UDP case above: datagram k starts at 0.9 s + 8k ms
/// (`the_trace_holds_no_transmission_after_the_end_of_the_run`), so the
/// 13 with k <= 12 start within the 1 s run (k = 12 at 0.996 s, on the air
/// at the end, counts, as its trace `drop` row does) and are lost; the
/// other 113 admitted (datagrams reach the link every 0.8 ms from 0.9 s to
/// 1 s: 126 in all) still wait at the end and count nowhere. The old code
/// decided and counted each loss at admission: 126.
#[test]
fn channel_losses_count_only_transmissions_started_within_the_run() {
    let sc = losing_everything(r#"{ kind = "droptail", limit = "500pkt" }"#, 1);
    let (_, r, recs) = run_traced(&sc);
    assert_eq!(r.links[0].packets_sent, 126);
    assert_eq!(channel_drops(&r), (vec![13, 0], vec![13]));
    assert_eq!(channel_drop_rows(&recs).count(), 13);
    // Nothing else took the place of the uncounted losses.
    assert_eq!(r.links[0].drops.iter().sum::<u64>(), 13);
    assert_eq!(r.flows[0].data_drops.iter().sum::<u64>(), 13);
}

/// The same with a `per_flow` queue (scenario.md: each connection "served
/// in its own queue at the link rate"): each of the two connections' queues
/// starts its k-th datagram at 0.9 s + 8k ms, so 13 of each start within
/// the run and are lost: 26 on the link, 13 per flow (252 admitted).
#[test]
fn channel_losses_of_a_per_flow_queue_count_only_transmissions_started_within_the_run() {
    let sc = losing_everything(r#"{ kind = "per_flow", limit = "500pkt" }"#, 2);
    let (_, r, recs) = run_traced(&sc);
    assert_eq!(r.links[0].packets_sent, 252);
    assert_eq!(channel_drops(&r), (vec![26, 0], vec![13, 13]));
    assert_eq!(channel_drop_rows(&recs).count(), 26);
}

/// The boundary, with a drop list (scenario.md: "exactly the listed
/// packets", 1-based). At 800 kb/s a 1000 B datagram takes 10 ms: datagram
/// k starts at 0.9 s + 10k ms, the 11th (k = 10) exactly at the end of the
/// run, 1 s, the 12th at 1.01 s, after it. A transmission that starts at
/// the end is within the run (its trace `dequeue` and `drop` rows are at
/// 1 s): losing the 11th and 12th counts 1. At 1 Mb/s (8 ms) the 13th
/// starts at 0.996 s and is on the air at the end, the 14th would start at
/// 1.004 s: losing both counts 1 too. The old code counted 2 each time.
/// The draws of the packets after the end are still taken: with the 14th
/// listed, the 15th is not lost (nothing changes for packets before the
/// end either way).
#[test]
fn a_channel_loss_counts_if_its_transmission_starts_by_the_end() {
    for (rate, list, lost_at) in [
        ("800kbps", "[11, 12]", 1_000_000_000),
        ("1Mbps", "[13, 14]", 996_000_000),
    ] {
        let sc = scenario(&udp_at_the_end_on(
            r#"{ kind = "droptail", limit = "500pkt" }"#,
            1,
            rate,
            &format!(r#"a_to_b = {{ error = {{ kind = "drop_list", packets = {list} }} }}"#),
        ));
        let (_, r, recs) = run_traced(&sc);
        assert_eq!(channel_drops(&r), (vec![1, 0], vec![1]), "{rate}");
        let rows: Vec<u64> = channel_drop_rows(&recs).map(|rec| rec.time_ns).collect();
        assert_eq!(rows, vec![lost_at], "{rate}");
    }
}

/// capture.md: packets the channel lost carry the comment `airtcp drop:
/// channel: ...` in a link capture. The link tap writes every packet
/// offered (126 in the all-losing case above), but only the 13 whose
/// transmission starts within the run are losses there; the 113 still
/// waiting at the end are written without the comment, as a packet the
/// channel would deliver after the end is. The old code commented all 126.
#[test]
fn a_link_capture_comments_only_channel_losses_within_the_run() {
    let sc = losing_everything(r#"{ kind = "droptail", limit = "500pkt" }"#, 1);
    let mut w = sc.build(None).unwrap();
    let req = ObserveRequest {
        pcap: vec![("A->B".into(), Some("ab.pcapng".into()))],
        ..Default::default()
    };
    let plan = sc.observe_plan(&w, &req).unwrap();
    let dir = tempfile::tempdir().unwrap();
    w.set_observers(plan.open(dir.path(), "", None).unwrap());
    w.run(|_| true);
    let written = w.finish_observers().unwrap();
    assert_eq!(written.captures[0].1, 126);
    let bytes = std::fs::read(dir.path().join("ab.pcapng")).unwrap();
    let comment = b"airtcp drop: channel: ";
    let comments = bytes
        .windows(comment.len())
        .filter(|w| w == comment)
        .count();
    assert_eq!(comments, 13);
}

/// The trace and the tables tell the same losses (capture.md: the trace
/// holds nothing after the end of the run; results.md, `drops_channel`:
/// only transmissions that start within the run). Two bulk TCP flows from
/// 6 s and 6.5 s of a 10 s run share a 1 Mb/s bottleneck with a
/// 1000-packet buffer whose channel loses 10% of the packets each way, and
/// a UDP source sends 1000 B datagrams at 10 Mb/s over the last 0.2 s:
/// about 250 datagrams reach the link, which sends 25 of them by the end,
/// so more than 100 packets wait at the end, and the channel draws a loss
/// for about 10% of them. Per link direction the trace's channel `drop`
/// rows are its `drops_channel`; per flow those of its data segments
/// (datagrams) its `drops_channel`, and the `drop` rows of its ACKs, of
/// any cause, its `ack_drops`.
#[test]
fn the_trace_and_the_tables_count_the_same_channel_losses() {
    let text = bloated(
        r#"a_to_b = { error = { kind = "bernoulli", per = 0.1 } }
b_to_a = { error = { kind = "bernoulli", per = 0.1 } }"#,
        r#"
[[flow]]
from = "S"
to = "D"
start = "6.5s"
tcp = { variant = "newreno", sack = true }
app = { kind = "bulk" }

[[flow]]
from = "S"
to = "D"
start = "9.8s"
app = { kind = "onoff", rate = "10Mbps", mean_on = "1000s", mean_off = "1ms", packet_size = "1000B" }"#,
    );
    let (_, r, recs) = run_traced(&scenario(&text));
    // Segments waiting at the end: an enqueue row without a dequeue row.
    let rd = r.links.iter().position(|l| l.name == "R->D").unwrap() as u32;
    let on_rd = |event| {
        recs.iter()
            .filter(|rec| rec.event == event && rec.link == Some(rd))
            .count()
    };
    let waiting = on_rd(PacketEvent::Enqueue) - on_rd(PacketEvent::Dequeue);
    assert!(waiting > 100, "{waiting}");
    for (l, link) in r.links.iter().enumerate() {
        let rows = channel_drop_rows(&recs)
            .filter(|rec| rec.link == Some(l as u32))
            .count() as u64;
        assert_eq!(rows, link.drops[CHANNEL], "{}", link.name);
    }
    let (_, flows) = channel_drops(&r);
    assert!(flows[0] > 0 && flows[1] > 0, "{flows:?}");
    for (f, flow) in r.flows.iter().enumerate() {
        let of_flow = |rec: &&TraceRecord| rec.pkt.flow as usize == f;
        let data = channel_drop_rows(&recs)
            .filter(of_flow)
            .filter(|rec| rec.pkt.kind == PacketKind::TcpData)
            .count() as u64;
        assert_eq!(data, flow.data_drops[CHANNEL], "{}", flow.name);
        let acks = recs
            .iter()
            .filter(of_flow)
            .filter(|rec| rec.event == PacketEvent::Drop && rec.pkt.kind == PacketKind::TcpAck)
            .count() as u64;
        assert_eq!(acks, flow.ack_drops, "{}", flow.name);
    }
}
