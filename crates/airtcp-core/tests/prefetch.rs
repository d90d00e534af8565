//! The event loop's cache hints (`sim/prefetch.rs`, on by default from
//! 4,096 flows) must never change a result: a hint only moves memory into
//! cache.

use airtcp_core::scenario::Scenario;

/// A dumbbell of `n` NewReno flows (as `airtcp bench` builds), RED at the
/// bottleneck so that flows lose packets and time out, with SACK flows
/// among them so that scoreboards are read too.
fn dumbbell(n: usize) -> Scenario {
    let toml = format!(
        r#"[simulation]
duration = "2s"
seed = 7

[[link]]
count = {n}
a = "s{{i}}"
b = "R1"
rate = "100Mbps"
delay = "1ms"

[[link]]
a = "R1"
b = "R2"
rate = "20Mbps"
delay = "10ms"
queue = {{ kind = "red", limit = "100pkt", min_th = 10, max_th = 30, max_p = 0.1, gentle = true, ecn = false }}

[[link]]
count = {n}
a = "R2"
b = "d{{i}}"
rate = "100Mbps"
delay = "1ms"

[[flow]]
count = {half}
name = "n{{i}}"
from = "s{{i}}"
to = "d{{i}}"
stagger = "100us"
tcp = {{ variant = "newreno" }}
app = {{ kind = "bulk" }}

[[flow]]
count = {half}
name = "k{{i}}"
from = "s{{i}}"
to = "d{{i}}"
stagger = "100us"
tcp = {{ variant = "sack" }}
app = {{ kind = "bulk" }}
"#,
        half = n / 2
    );
    Scenario::from_toml_str(&toml, "prefetch test").expect("scenario")
}

#[test]
fn hints_never_change_a_result() {
    let sc = dumbbell(5_000);
    let run = |prefetching: bool| {
        let mut world = sc.build(None).expect("world");
        world.set_prefetching(prefetching);
        format!("{:?}", world.run(|_| true))
    };
    let (with, without) = (run(true), run(false));
    assert!(
        with.contains("retransmitted"),
        "the run has losses to repair"
    );
    assert_eq!(with, without);
}
