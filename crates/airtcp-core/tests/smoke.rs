//! The shipped examples validate, run, and show what they are meant to.

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
