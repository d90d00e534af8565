//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod script;

use std::sync::{Arc, Mutex};

use airtcp_core::metrics::RunResult;
use airtcp_core::observe::trace::{TraceRecord, TraceSink};
use airtcp_core::scenario::observe::{ObserveRequest, TraceRequest};
use airtcp_core::scenario::{Scenario, ScenarioError};
use airtcp_core::tcp::sender::{TcpSender, TraceEvent};
use airtcp_core::world::World;

/// A trace sink that keeps the records where the test reads them after
/// the run.
#[derive(Clone, Default)]
pub struct Shared(pub Arc<Mutex<Vec<TraceRecord>>>);

impl TraceSink for Shared {
    fn write(&mut self, records: &[TraceRecord]) -> std::io::Result<()> {
        self.0.lock().unwrap().extend_from_slice(records);
        Ok(())
    }
    fn finish(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Parse a scenario held in a string (panics with the one-line error).
pub fn scenario(text: &str) -> Scenario {
    Scenario::from_toml_str(text, "test.toml").unwrap_or_else(|e| panic!("{e}"))
}

/// Run `sc` with every packet of every flow traced: the world (for the
/// nodes' names), the results and the trace's records.
pub fn run_traced(sc: &Scenario) -> (World, RunResult, Vec<TraceRecord>) {
    let mut w = sc.build(None).unwrap();
    let req = ObserveRequest {
        trace: Some(TraceRequest::default()),
        ..Default::default()
    };
    let plan = sc.observe_plan(&w, &req).unwrap();
    let sink = Shared::default();
    let dir = tempfile::tempdir().unwrap();
    w.set_observers(
        plan.open(dir.path(), "", Some(Box::new(sink.clone())))
            .unwrap(),
    );
    let r = w.run(|_| true);
    w.finish_observers().unwrap();
    let records = std::mem::take(&mut *sink.0.lock().unwrap());
    (w, r, records)
}

/// Run and return the world (for inspecting endpoints) and the results.
pub fn run_world(text: &str, seed: Option<u64>) -> (World, RunResult) {
    let sc = scenario(text);
    let mut w = sc.build(seed).unwrap();
    w.record_sender_events();
    let r = w.run(|_| true);
    (w, r)
}

/// One sender on a single 10 Mb/s, 10 ms link S -> D, no delayed ACKs,
/// initial window 1 and ssthresh 16 segments of 1000 B, no Limited
/// Transmit (the drop indices below count the packets of that exchange),
/// transferring `segments` segments; the listed 1-based data packets are
/// dropped.
pub fn scripted(tcp: &str, segments: u64, drop_data_packets: &[u64]) -> String {
    let drops: Vec<String> = drop_data_packets.iter().map(|d| d.to_string()).collect();
    format!(
        r#"
[simulation]
duration = "20s"
[[link]]
a = "S"
b = "D"
rate = "10Mbps"
delay = "10ms"
queue = {{ kind = "droptail", limit = "1000pkt" }}
a_to_b = {{ error = {{ kind = "drop_list", packets = [{drops}], applies_to = "data" }} }}
[[flow]]
from = "S"
to = "D"
tcp = {{ {tcp}, mss = "1000B", delayed_ack = false, initial_cwnd = 1, initial_ssthresh = "16000B", limited_transmit = false, trace = true }}
app = {{ kind = "file", size = "{size}B" }}
"#,
        drops = drops.join(", "),
        size = segments * 1000
    )
}

/// Segment numbers (seq / mss) of every retransmission, in order.
pub fn retransmissions(s: &TcpSender) -> Vec<u64> {
    let mss = s.core.mss;
    s.core
        .trace
        .iter()
        .filter_map(|(_, e)| match e {
            TraceEvent::Send {
                seq,
                retransmission: true,
                ..
            } => Some(seq / mss),
            _ => None,
        })
        .collect()
}

pub fn count(s: &TcpSender, pred: impl Fn(&TraceEvent) -> bool) -> usize {
    s.core.trace.iter().filter(|(_, e)| pred(e)).count()
}

/// (cwnd, ssthresh) in segments at every Window trace entry.
pub fn windows(s: &TcpSender) -> Vec<(f64, f64)> {
    let mss = s.core.mss as f64;
    s.core
        .trace
        .iter()
        .filter_map(|(_, e)| match e {
            TraceEvent::Window { cwnd, ssthresh } => {
                Some((*cwnd as f64 / mss, *ssthresh as f64 / mss))
            }
            _ => None,
        })
        .collect()
}

/// Print the trace (shown when a test fails).
pub fn dump(s: &TcpSender) {
    let mss = s.core.mss;
    for (t, e) in &s.core.trace {
        match e {
            TraceEvent::Send {
                seq,
                retransmission,
                ..
            } => {
                eprintln!(
                    "{:9.3} send {}{}",
                    *t as f64 / 1e6,
                    seq / mss,
                    if *retransmission { " RTX" } else { "" }
                )
            }
            TraceEvent::RttSample { .. } => {}
            other => eprintln!("{:9.3} {:?}", *t as f64 / 1e6, other),
        }
    }
}

/// The error a scenario named "bad.toml" must produce (panics if accepted).
pub fn scenario_err(text: &str) -> ScenarioError {
    match Scenario::from_toml_str(text, "bad.toml") {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e,
    }
}

/// Replace `from` (which must occur) by `to` in `good` and return the error.
pub fn scenario_err_with(good: &str, from: &str, to: &str) -> ScenarioError {
    assert!(good.contains(from), "{from}");
    scenario_err(&good.replacen(from, to, 1))
}

/// The error is one line "bad.toml:LINE: FIELD: ..." containing `words`.
pub fn check_scenario_err(e: &ScenarioError, line: usize, field: &str, words: &str) {
    let text = e.to_string();
    assert!(!text.contains('\n'), "not one line: {text}");
    assert_eq!(e.file, "bad.toml", "{text}");
    assert_eq!(e.line, Some(line), "{text}");
    assert_eq!(e.field, field, "{text}");
    assert!(text.contains(words), "{text:?} lacks {words:?}");
    assert!(
        text.starts_with(&format!("bad.toml:{line}: {field}: ")),
        "{text}"
    );
}

/// A node agent that passes every packet and records a number from each one
/// `pick` selects (ACK numbers reaching a sender, packets reaching a
/// receiver, kicks...). The records are shared with the test.
pub struct Spy<F> {
    pub seen: std::sync::Arc<std::sync::Mutex<Vec<u64>>>,
    pick: F,
}

impl<F> Spy<F>
where
    F: Fn(&airtcp_core::net::packet::Packet, airtcp_core::agents::Ingress) -> Option<u64> + Send,
{
    pub fn new(pick: F) -> (Self, std::sync::Arc<std::sync::Mutex<Vec<u64>>>) {
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        (
            Self {
                seen: seen.clone(),
                pick,
            },
            seen,
        )
    }
}

impl<F> airtcp_core::agents::NodeAgent for Spy<F>
where
    F: Fn(&airtcp_core::net::packet::Packet, airtcp_core::agents::Ingress) -> Option<u64> + Send,
{
    fn name(&self) -> &'static str {
        "spy"
    }
    fn on_packet(
        &mut self,
        _now: airtcp_core::sim::TimeNs,
        pkt: &mut airtcp_core::net::packet::Packet,
        ingress: airtcp_core::agents::Ingress,
        _egress: Option<u32>,
        _out: &mut airtcp_core::agents::AgentOutput,
    ) -> airtcp_core::agents::AgentVerdict {
        if let Some(v) = (self.pick)(pkt, ingress) {
            self.seen.lock().unwrap().push(v);
        }
        airtcp_core::agents::AgentVerdict::Pass
    }
}

/// Picks the ACK number of every ACK arriving over a link.
pub fn ack_numbers(
    pkt: &airtcp_core::net::packet::Packet,
    ingress: airtcp_core::agents::Ingress,
) -> Option<u64> {
    (pkt.kind == airtcp_core::net::packet::PacketKind::TcpAck
        && ingress != airtcp_core::agents::Ingress::Local)
        .then_some(pkt.ack)
}

/// One 10 Mb/s link A -> B, one bulk flow; `sim`, `link`, `tcp` and `tail`
/// are spliced into the [simulation] table, the link, the flow's tcp table
/// and the end of the file.
pub fn one_link(sim: &str, link: &str, tcp: &str, tail: &str) -> String {
    format!(
        "[simulation]\nduration = \"10s\"\n{sim}\n\
         [[link]]\na = \"A\"\nb = \"B\"\nrate = \"10Mbps\"\ndelay = \"10ms\"\n{link}\n\
         [[flow]]\nfrom = \"A\"\nto = \"B\"\ntcp = {{ {tcp} }}\napp = {{ kind = \"bulk\" }}\n{tail}"
    )
}
