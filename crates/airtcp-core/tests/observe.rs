//! Captures and the per-packet trace: they never change a run, the trace
//! records what happened to each packet, and wrong `[[capture]]` / `[trace]`
//! tables are one-line errors.

mod common;

use airtcp_core::net::packet::DeathCause;
use airtcp_core::observe::trace::PacketEvent;
use airtcp_core::scenario::observe::{ObserveRequest, TraceRequest};
use airtcp_core::scenario::Scenario;
use common::{scenario, scripted, Shared};

fn example(name: &str) -> Scenario {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/");
    Scenario::from_path(format!("{path}{name}")).unwrap()
}

/// A fresh directory for a test's capture files, removed when dropped (a
/// run of every capture point writes ~130 MB).
fn temp_dir(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("airtcp-observe-{name}-"))
        .tempdir()
        .unwrap()
}

/// Every link direction and node captured, every packet traced.
fn observe_everything(sc: &Scenario, name: &str) -> (airtcp_core::metrics::RunResult, Shared) {
    let mut w = sc.build(None).unwrap();
    let mut req = ObserveRequest {
        trace: Some(TraceRequest::default()),
        ..Default::default()
    };
    for l in &w.links {
        req.pcap.push((l.name.clone(), None));
    }
    for n in &w.nodes {
        req.pcap.push((n.name.clone(), None));
    }
    let plan = sc.observe_plan(&w, &req).unwrap();
    let sink = Shared::default();
    let dir = temp_dir(name);
    let obs = plan
        .open(dir.path(), "", Some(Box::new(sink.clone())))
        .unwrap();
    w.set_observers(obs);
    let r = w.run(|_| true);
    let observed = w.finish_observers().unwrap();
    assert_eq!(observed.captures.len(), w.links.len() + w.nodes.len());
    assert!(observed.captures.iter().all(|(_, n)| *n > 0));
    (r, sink)
}

/// Observers watch: with every link and node captured and every packet
/// traced, results are identical, bit for bit, to a run without them.
#[test]
fn observing_changes_nothing() {
    for name in ["wireless.toml", "dumbbell.toml"] {
        let sc = example(name);
        let plain = sc.run(None).unwrap();
        let (observed, sink) = observe_everything(&sc, name);
        assert_eq!(format!("{plain:?}"), format!("{observed:?}"), "{name}");
        assert!(!sink.0.lock().unwrap().is_empty());
    }
}

/// The trace follows each packet: every data segment sent is enqueued on
/// the first link; the dropped ones (drop list: the 5th and 9th data
/// packets) die on the channel with that cause; every other one is
/// delivered; retransmissions are marked.
#[test]
fn trace_follows_every_packet() {
    let text = scripted(r#"variant = "newreno""#, 30, &[5, 9]);
    let sc = scenario(&text);
    let mut w = sc.build(None).unwrap();
    let req = ObserveRequest {
        trace: Some(TraceRequest {
            flows: vec!["flow0".into()],
            ..Default::default()
        }),
        ..Default::default()
    };
    let sink = Shared::default();
    let plan = sc.observe_plan(&w, &req).unwrap();
    let dir = temp_dir("trace");
    w.set_observers(
        plan.open(dir.path(), "", Some(Box::new(sink.clone())))
            .unwrap(),
    );
    let r = w.run(|_| true);
    assert_eq!(
        w.finish_observers().unwrap().trace_records,
        Some(sink.0.lock().unwrap().len() as u64)
    );
    let recs = sink.0.lock().unwrap();
    let data_sent: Vec<_> = recs
        .iter()
        .filter(|r| r.event == PacketEvent::Send && r.pkt.payload_len > 0)
        .collect();
    assert_eq!(data_sent.len() as u64, r.flows[0].segments_sent);
    let drops: Vec<_> = recs
        .iter()
        .filter(|r| r.event == PacketEvent::Drop)
        .collect();
    assert_eq!(drops.len(), 2);
    for d in &drops {
        assert_eq!(d.cause, Some(DeathCause::ChannelError));
        assert_eq!(d.link, Some(0), "S->D");
        assert!(!d.pkt.is_retransmission);
    }
    assert_eq!(drops[0].pkt.seq, 4000, "the 5th data packet");
    assert_eq!(drops[1].pkt.seq, 8000, "the 9th data packet");
    let delivered = recs
        .iter()
        .filter(|r| r.event == PacketEvent::Deliver && r.pkt.payload_len > 0)
        .count() as u64;
    assert_eq!(delivered, r.flows[0].segments_sent - 2);
    let retransmitted = data_sent.iter().filter(|r| r.pkt.is_retransmission).count() as u64;
    assert_eq!(retransmitted, r.flows[0].retransmitted_segments);
    // A packet's dequeue never precedes its enqueue; its receive follows both.
    for e in recs.iter().filter(|r| r.event == PacketEvent::Enqueue) {
        let uid = e.pkt.uid;
        let deq = recs
            .iter()
            .find(|r| r.event == PacketEvent::Dequeue && r.pkt.uid == uid)
            .unwrap();
        assert!(deq.time_ns >= e.time_ns);
        if let Some(rx) = recs
            .iter()
            .find(|r| r.event == PacketEvent::Receive && r.pkt.uid == uid)
        {
            assert!(rx.time_ns > deq.time_ns);
        }
    }
}

/// `tcp.trace = true` selects the flow: the plan traces it and only it.
#[test]
fn tcp_trace_selects_the_flow() {
    let sc = example("dumbbell.toml");
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/dumbbell.toml"
    ))
    .unwrap()
    .replace(
        r#"tcp = { variant = "reno" }"#,
        r#"tcp = { variant = "reno", trace = true }"#,
    );
    let traced = scenario(&text);
    let w = traced.build(None).unwrap();
    let plan = traced.observe_plan(&w, &ObserveRequest::default()).unwrap();
    let t = plan.trace.expect("tcp.trace asks for a trace");
    assert_eq!(t.file, "trace.parquet");
    assert_eq!(t.filter.flows, vec![false, true]);
    let plain = sc.observe_plan(&sc.build(None).unwrap(), &ObserveRequest::default());
    assert!(plain.unwrap().is_empty());
}

fn error_of(extra: &str) -> String {
    let text = format!(
        r#"
[simulation]
duration = "1s"
[[link]]
a = "A"
b = "B"
rate = "1Mbps"
delay = "1ms"
[[flow]]
from = "A"
to = "B"
app = {{ kind = "bulk" }}
{extra}
"#
    );
    Scenario::from_toml_str(&text, "t.toml")
        .unwrap_err()
        .to_string()
}

#[test]
fn wrong_capture_and_trace_tables_are_one_line_errors() {
    let cases = [
        (
            "[[capture]]\nlink = \"A->C\"",
            "t.toml:14: capture[0].link: unknown link \"A->C\" (link directions: A->B, B->A;",
        ),
        (
            "[[capture]]\nnode = \"C\"",
            "t.toml:14: capture[0].node: unknown node \"C\" (nodes: A, B)",
        ),
        (
            "[[capture]]\nfile = \"x.pcapng\"",
            "t.toml: capture[0]: a capture needs a `link`",
        ),
        (
            "[[capture]]\nlink = \"A<->B\"\nsnaplen = \"0B\"",
            "t.toml:15: capture[0].snaplen: must be between 1B and 65535B",
        ),
        (
            "[[capture]]\nnode = \"A\"\nfile = \"/tmp/x.pcapng\"",
            "t.toml:15: capture[0].file: must be relative",
        ),
        // docs/scenario.md: "relative to the output directory"; `..` left it.
        (
            "[[capture]]\nnode = \"A\"\nfile = \"../../escape.pcapng\"",
            "t.toml:15: capture[0].file: \"../../escape.pcapng\" must stay inside the output directory (no `..`)",
        ),
        (
            "[trace]\nfile = \"runs/../../t.parquet\"",
            "t.toml:14: trace.file: \"runs/../../t.parquet\" must stay inside the output directory (no `..`)",
        ),
        (
            "[[capture]]\nnode = \"A\"\n[[capture]]\nnode = \"A\"\nfile = \"./capture-A.pcapng\"",
            "t.toml: capture: two outputs would write the same file \"./capture-A.pcapng\"",
        ),
        (
            "[[capture]]\nnode = \"A\"\n[[capture]]\nnode = \"A\"",
            "t.toml: capture: two outputs would write the same file \"capture-A.pcapng\"",
        ),
        (
            "[trace]\nflows = [\"nope\"]",
            "t.toml:14: trace.flows[0]: unknown flow \"nope\" (flows: flow0)",
        ),
        (
            "[trace]\nlinks = [\"B<->C\"]",
            "t.toml:14: trace.links[0]: unknown link \"B<->C\"",
        ),
        (
            "[[capture]]\nlink = \"A->B\"\nsize = 3",
            "t.toml:15: capture[0].size: unknown field `size`",
        ),
        (
            "[[flow]]\nname = \"flow0\"\nfrom = \"B\"\nto = \"A\"\napp = { kind = \"bulk\" }",
            "t.toml:14: flow[1].name: \"flow0\" is already the name of flow[0]",
        ),
    ];
    for (extra, want) in cases {
        let got = error_of(extra);
        assert!(got.starts_with(want), "{extra}\n got: {got}\nwant: {want}");
        assert!(!got.contains('\n'), "{got}");
    }
}

#[test]
fn requested_points_are_checked_against_the_names() {
    let sc = example("wireless.toml");
    let w = sc.build(None).unwrap();
    let req = ObserveRequest {
        pcap: vec![("R->D".into(), None)],
        ..Default::default()
    };
    let e = sc.observe_plan(&w, &req).unwrap_err().to_string();
    assert!(
        e.contains("pcap: unknown link or node \"R->D\"") && e.contains("base_station->mobile"),
        "{e}"
    );
    let req = ObserveRequest {
        pcap: vec![("base_station<->mobile".into(), Some("bs.pcapng".into()))],
        ..Default::default()
    };
    let plan = sc.observe_plan(&w, &req).unwrap();
    assert_eq!(plan.captures[0].file, "bs.pcapng");
    assert_eq!(plan.captures[0].points.len(), 2);
}

/// A capture file that cannot be created is an error of `open` (before the
/// run), naming the file asked for, with the system's error kept whole: a
/// directory by that name, and a name below a regular file (which the
/// creation of the directories lets through, so that the file's own
/// creation says "Not a directory").
#[test]
fn a_capture_that_cannot_be_created_is_named() {
    use airtcp_core::observe::OutputError;

    let sc = example("wireless.toml");
    let w = sc.build(None).unwrap();
    let dir = temp_dir("unwritable");
    std::fs::create_dir(dir.path().join("adir")).unwrap();
    std::fs::write(dir.path().join("afile"), "a file\n").unwrap();
    for (file, problem) in [
        ("adir", "Is a directory"),
        ("afile/x.pcapng", "Not a directory"),
    ] {
        let req = ObserveRequest {
            pcap: vec![("base_station<->mobile".into(), Some(file.into()))],
            ..Default::default()
        };
        let plan = sc.observe_plan(&w, &req).unwrap();
        let Err(e) = plan.open(dir.path(), "", None) else {
            panic!("{file}: created");
        };
        let named = OutputError::of(&e).unwrap_or_else(|| panic!("{file}: {e} names no file"));
        assert_eq!(named.path, dir.path().join(file));
        assert!(named.error.to_string().starts_with(problem), "{file}: {e}");
        assert_eq!(e.kind(), named.error.kind());
        assert_eq!(
            e.to_string(),
            format!("{}: {}", named.path.display(), named.error)
        );
    }
    assert_eq!(
        std::fs::read_to_string(dir.path().join("afile")).unwrap(),
        "a file\n"
    );
}

/// A capture that cannot be created fails `open` before the run: the
/// captures it had already created (headers only) are removed, not left
/// to pass for the run's.
#[test]
fn captures_created_before_a_failing_one_are_removed() {
    let sc = example("wireless.toml");
    let w = sc.build(None).unwrap();
    let dir = temp_dir("removed");
    std::fs::create_dir(dir.path().join("adir")).unwrap();
    let req = ObserveRequest {
        pcap: vec![
            ("base_station<->mobile".into(), Some("first.pcapng".into())),
            ("base_station".into(), Some("adir".into())),
        ],
        ..Default::default()
    };
    let plan = sc.observe_plan(&w, &req).unwrap();
    assert!(plan.open(dir.path(), "", None).is_err());
    assert!(!dir.path().join("first.pcapng").exists());
    assert!(dir.path().join("adir").is_dir());
}

/// A run that does not reach its end has its outputs removed
/// (`remove_partial`, docs/capture.md): a regular file goes; a directory
/// or a FIFO given as an output (a live Wireshark) stays.
#[test]
fn only_regular_files_are_removed_as_partial_outputs() {
    use airtcp_core::observe::remove_partial;
    let dir = temp_dir("partial");
    let file = dir.path().join("capture.pcapng");
    std::fs::write(&file, b"partial").unwrap();
    std::fs::create_dir(dir.path().join("adir")).unwrap();
    assert!(remove_partial(&file) && !file.exists());
    assert!(!remove_partial(&file)); // gone already
    assert!(!remove_partial(&dir.path().join("adir")) && dir.path().join("adir").is_dir());
    #[cfg(unix)]
    {
        let fifo = dir.path().join("live.pcapng");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        assert!(!remove_partial(&fifo) && fifo.exists());
    }
}

/// Every file a plan writes, with the suffix of a run of several seeds:
/// the captures, then the trace.
#[test]
fn a_plan_lists_every_file_it_writes() {
    let sc = example("wireless.toml");
    let w = sc.build(None).unwrap();
    let req = ObserveRequest {
        pcap: vec![("base_station<->mobile".into(), None)],
        trace: Some(TraceRequest::default()),
    };
    let plan = sc.observe_plan(&w, &req).unwrap();
    let out = std::path::Path::new("out");
    assert_eq!(
        plan.paths(out, "-seed3"),
        vec![
            out.join("capture-base_station--mobile-seed3.pcapng"),
            out.join("trace-seed3.parquet")
        ]
    );
}
