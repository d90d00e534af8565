//! Whole-run properties: reliable in-order delivery under random loss for
//! every variant, determinism, and common random numbers.

mod common;
use airtcp_core::metrics::RunResult;
use common::*;
use proptest::prelude::*;

const VARIANTS: [&str; 7] = [
    r#"variant = "tahoe""#,
    r#"variant = "reno""#,
    r#"variant = "newreno""#,
    r#"variant = "newreno", sack = true"#,
    r#"variant = "reno", sack = true, timestamps = true, handshake = true"#,
    r#"variant = "reno", proportional_rate_reduction = true"#,
    r#"variant = "newreno", proportional_rate_reduction = true"#,
];

/// A file transfer over a lossy two-hop path; losses hit data and ACKs.
fn lossy(tcp: &str, size: u64, per_data: f64, per_ack: f64, queue: u32) -> String {
    format!(
        r#"
[simulation]
duration = "600s"
[[link]]
a = "S"
b = "R"
rate = "10Mbps"
delay = "5ms"
[[link]]
a = "R"
b = "D"
rate = "2Mbps"
delay = "20ms"
queue = {{ kind = "droptail", limit = "{queue}pkt" }}
a_to_b = {{ error = {{ kind = "bernoulli", per = {per_data} }} }}
b_to_a = {{ error = {{ kind = "bernoulli", per = {per_ack} }} }}
[[flow]]
from = "S"
to = "D"
tcp = {{ {tcp} }}
app = {{ kind = "file", size = "{size}B" }}
"#
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, .. ProptestConfig::default() })]

    /// Every byte is delivered to the application exactly once and in order:
    /// the receiver's in-order point reaches the file size, the transfer
    /// completes, and every payload byte that arrived is either delivered
    /// once or counted as a duplicate.
    #[test]
    fn stream_complete_in_order_exactly_once(
        seed in 1u64..10_000,
        v in 0usize..VARIANTS.len(),
        per_data in 0.0f64..0.15,
        per_ack in 0.0f64..0.1,
        size_segments in 1u64..400,
        queue in 5u32..60,
    ) {
        let size = size_segments * 1000 - (seed % 999); // not a multiple of the MSS
        let (w, r) = run_world(&lossy(VARIANTS[v], size, per_data, per_ack, queue), Some(seed));
        let f = &r.flows[0];
        prop_assert_eq!(f.transfers_completed, 1, "{} seed {} did not finish", VARIANTS[v], seed);
        prop_assert_eq!(f.delivered_bytes, size);
        let rx = w.tcp_receiver(0).unwrap();
        prop_assert_eq!(rx.rcv_nxt, size);
        prop_assert_eq!(rx.stats.received_bytes, rx.stats.delivered_bytes + rx.stats.duplicate_bytes);
        let s = w.tcp_sender(0).unwrap();
        prop_assert_eq!(s.core.snd_una, size);
    }
}

fn debug_string(r: &RunResult) -> String {
    format!("{r:?}")
}

#[test]
fn same_seed_same_results() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/dumbbell.toml"
    ))
    .unwrap();
    let (_, a) = run_world(&text, Some(7));
    let (_, b) = run_world(&text, Some(7));
    assert_eq!(debug_string(&a), debug_string(&b));
    let (_, c) = run_world(&text, Some(8));
    assert_ne!(
        debug_string(&a),
        debug_string(&c),
        "a different seed must change something"
    );
}

#[test]
fn same_results_on_parallel_threads() {
    let text = lossy(VARIANTS[3], 300_000, 0.02, 0.01, 20);
    let serial: Vec<String> = (1..=4)
        .map(|s| debug_string(&run_world(&text, Some(s)).1))
        .collect();
    let handles: Vec<_> = (1..=4u64)
        .map(|s| {
            let t = text.clone();
            std::thread::spawn(move || debug_string(&run_world(&t, Some(s)).1))
        })
        .collect();
    let parallel: Vec<String> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    assert_eq!(serial, parallel);
}

/// Two flows on separate paths that meet only at node X (no shared
/// queue); only flow B's variant changes.
fn two_paths(variant_b: &str, error: &str) -> String {
    format!(
        r#"
[simulation]
duration = "30s"
[[link]]
a = "A"
b = "X"
rate = "2Mbps"
delay = "10ms"
a_to_b = {{ error = {error} }}
[[link]]
a = "B"
b = "X"
rate = "2Mbps"
delay = "10ms"
a_to_b = {{ error = {error} }}
[[link]]
a = "X"
b = "DA"
rate = "100Mbps"
delay = "1ms"
[[link]]
a = "X"
b = "DB"
rate = "100Mbps"
delay = "1ms"
[[flow]]
from = "A"
to = "DA"
tcp = {{ variant = "reno" }}
app = {{ kind = "bulk" }}
[[flow]]
from = "B"
to = "DB"
tcp = {{ {variant_b} }}
app = {{ kind = "bulk" }}
"#
    )
}

#[test]
fn common_random_numbers_across_variants() {
    for error in [
        r#"{ kind = "bernoulli", per = 0.03 }"#,
        r#"{ kind = "gilbert_elliott", mean_good = "800ms", mean_bad = "200ms", loss_bad = 0.9 }"#,
    ] {
        let mut fates = Vec::new();
        let mut flow_a = Vec::new();
        for vb in [r#"variant = "reno""#, r#"variant = "newreno", sack = true"#] {
            let sc = scenario(&two_paths(vb, error));
            let mut w = sc.build(Some(11)).unwrap();
            for l in &mut w.links {
                l.channel.fates = Some(Vec::new());
            }
            let r = w.run(|_| true);
            // Link direction 2 is B -> X, flow B's wireless hop.
            fates.push(w.links[2].channel.fates.take().unwrap());
            flow_a.push(format!("{:?}", r.flows[0]));
            assert!(
                r.flows[1].data_drops[2] > 0,
                "{error}: flow B saw no channel loss"
            );
        }
        // Flow A shares no queue with B: its results are identical.
        assert_eq!(flow_a[0], flow_a[1], "{error}");
        let n = fates[0].len().min(fates[1].len());
        assert!(n > 1000);
        if error.contains("bernoulli") {
            // The k-th packet on B's link meets the same coin in both runs.
            assert_eq!(fates[0][..n], fates[1][..n]);
        } else {
            // Fading follows time, not packets: the runs send at different
            // times, so per-packet fates differ, but losses stay similar.
            let loss = |f: &Vec<bool>| f.iter().filter(|&&x| x).count() as f64 / f.len() as f64;
            assert!((loss(&fates[0]) - loss(&fates[1])).abs() < 0.1);
        }
    }
}

#[test]
fn gilbert_elliott_loss_rule_and_initial_state() {
    let text = |rule: &str| {
        format!(
            r#"
[simulation]
duration = "20s"
[[link]]
a = "M"
b = "F"
rate = "64kbps"
delay = "10ms"
a_to_b = {{ error = {{ kind = "gilbert_elliott", mean_good = "80ms", mean_bad = "20ms", initial_state = "good", loss_rule = "{rule}" }} }}
[[flow]]
from = "M"
to = "F"
app = {{ kind = "onoff", rate = "50kbps", packet_size = "576B", mean_on = "1000s", mean_off = "1ms" }}
"#
        )
    };
    let loss = |rule: &str| {
        let (_, r) = run_world(&text(rule), Some(4));
        let f = &r.flows[0];
        f.data_drops[2] as f64 / f.segments_sent as f64
    };
    // 72 ms packets on a channel bad 20% of the time in 20 ms spells: at
    // the start of a packet the channel is bad about 20% of the time, while
    // some bad spell overlaps most packets.
    let (at_start, during) = (loss("start"), loss("during"));
    assert!((at_start - 0.2).abs() < 0.05, "{at_start}");
    assert!(during > 0.5, "{during}");
    let e =
        airtcp_core::scenario::Scenario::from_toml_str(&text("sometimes"), "ge.toml").unwrap_err();
    assert_eq!(e.field, "link[0].a_to_b.error.loss_rule");
}
