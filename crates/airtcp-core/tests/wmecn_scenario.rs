//! Scenario support for issue 5: `mecn` / `wmecn` queues, `cc` tables
//! (mecn, wmecn, westwood, westwood_plus), the `wmecn` classifier and the
//! `arq` / `dda` agents; every mistake is one line naming file, line and
//! field.

mod common;
use airtcp_core::scenario::{Scenario, ScenarioError};
use common::{check_scenario_err as check, scenario_err_with};

const GOOD: &str = r#"[simulation]
duration = "5s"

[[node]]
name = "R2"
agents = [{ kind = "arq", peer = "D", retries = 3, timeout = "20ms" }]

[[node]]
name = "D"
agents = [{ kind = "dda", peer = "R2", delay = "30ms" }]

[[link]]
a = "S"
b = "R1"
rate = "10Mbps"
delay = "2ms"

[[link]]
a = "R1"
b = "R2"
rate = "1Mbps"
delay = "30ms"
a_to_b = { queue = { kind = "wmecn", limit = "50pkt", min_th = 5.0, mid_th = 10.0, max_th = 15.0, max_p = 0.1 } }

[[link]]
a = "R2"
b = "D"
rate = "10Mbps"
delay = "4ms"
a_to_b = { error = { kind = "bernoulli", per = 0.01, applies_to = "data" } }

[[flow]]
from = "S"
to = "D"
tcp = { variant = "reno", classifier = { kind = "wmecn" }, cc = { kind = "wmecn", beta1 = 0.2 } }
app = { kind = "bulk" }
"#;

fn err_with(from: &str, to: &str) -> ScenarioError {
    scenario_err_with(GOOD, from, to)
}

#[test]
fn good_scenario_runs_with_every_new_kind() {
    let sc = Scenario::from_toml_str(GOOD, "good.toml").unwrap();
    let r = sc.build(None).unwrap().finish();
    assert_eq!(r.flows[0].variant.as_deref(), Some("reno/wmecn"));
    assert!(r.flows[0].goodput_bps > 100_000.0);
    let mecn = GOOD
        .replace(
            "kind = \"wmecn\", limit = \"50pkt\", min_th = 5.0, mid_th = 10.0, max_th = 15.0, max_p = 0.1",
            "kind = \"mecn\", limit = \"50pkt\", min_th = 5.0, mid_th = 10.0, max_th = 15.0, max_p1 = 0.1, max_p2 = 0.2",
        )
        .replace("cc = { kind = \"wmecn\", beta1 = 0.2 }", "cc = { kind = \"mecn\" }");
    Scenario::from_toml_str(&mecn, "good.toml").unwrap();
    for cc in [
        "{ kind = \"westwood\", tau = \"1s\" }",
        "{ kind = \"westwood_plus\" }",
        "{ kind = \"reno\" }",
    ] {
        let t = GOOD.replace("{ kind = \"wmecn\", beta1 = 0.2 }", cc);
        Scenario::from_toml_str(&t, "good.toml").unwrap();
    }
}

#[test]
fn queue_errors() {
    check(
        &err_with("mid_th = 10.0", "mid_th = 4.0"),
        23,
        "link[1].a_to_b.queue.mid_th",
        "greater than min_th",
    );
    check(
        &err_with("max_th = 15.0", "max_th = 10.0"),
        23,
        "link[1].a_to_b.queue.max_th",
        "greater than mid_th",
    );
    check(
        &err_with("mid_th = 10.0, ", ""),
        23,
        "link[1].a_to_b.queue",
        "kind \"wmecn\" needs `mid_th`",
    );
    check(
        &err_with("max_p = 0.1", "max_p1 = 0.1"),
        23,
        "link[1].a_to_b.queue.max_p1",
        "not used by kind \"wmecn\"",
    );
    check(
        &err_with("kind = \"wmecn\"", "kind = \"mecn\""),
        23,
        "link[1].a_to_b.queue.max_p",
        "not used by kind \"mecn\"",
    );
    check(
        &err_with("max_p = 0.1", "max_p = 1.5"),
        23,
        "link[1].a_to_b.queue.max_p",
        "",
    );
    check(
        &err_with(
            "kind = \"wmecn\", limit = \"50pkt\"",
            "kind = \"red\", limit = \"50pkt\"",
        ),
        23,
        "link[1].a_to_b.queue.mid_th",
        "not used by kind \"red\"",
    );
    check(
        &err_with(
            "kind = \"wmecn\", limit = \"50pkt\", min_th = 5.0, mid_th = 10.0, max_th = 15.0, max_p = 0.1",
            "kind = \"mecn\", limit = \"50pkt\", min_th = 5.0, mid_th = 10.0, max_th = 15.0, max_p1 = 0.6, max_p2 = 0.6",
        ),
        23,
        "link[1].a_to_b.queue.max_p2",
        "must not exceed 1",
    );
    // `not_ect` is a `wmecn` field, `wait` a `red` one.
    Scenario::from_toml_str(
        &GOOD.replace("max_p = 0.1 }", "max_p = 0.1, not_ect = \"every_mark\" }"),
        "good.toml",
    )
    .unwrap();
    check(
        &err_with("max_p = 0.1 }", "max_p = 0.1, not_ect = \"always\" }"),
        23,
        "link[1].a_to_b.queue.not_ect",
        "",
    );
    check(
        &err_with("max_p = 0.1 }", "max_p = 0.1, wait = true }"),
        23,
        "link[1].a_to_b.queue.wait",
        "not used by kind \"wmecn\"",
    );
    check(
        &err_with(
            "kind = \"wmecn\", limit = \"50pkt\", min_th = 5.0, mid_th = 10.0, max_th = 15.0, max_p = 0.1",
            "kind = \"red\", limit = \"50pkt\", min_th = 5.0, max_th = 15.0, not_ect = \"every_mark\"",
        ),
        23,
        "link[1].a_to_b.queue.not_ect",
        "not used by kind \"red\"",
    );
}

#[test]
fn tcp_errors() {
    check(
        &err_with("beta1 = 0.2", "beta1 = 1.0"),
        35,
        "flow[0].tcp.cc.beta1",
        "below 1",
    );
    check(
        &err_with("beta1 = 0.2", "tau = \"1s\""),
        35,
        "flow[0].tcp.cc.tau",
        "not used by kind \"wmecn\"",
    );
    check(
        &err_with("kind = \"wmecn\", beta1", "kind = \"westwood\", beta1"),
        35,
        "flow[0].tcp.cc.beta1",
        "not used by kind \"westwood\"",
    );
    check(
        &err_with(
            "{ kind = \"wmecn\", beta1 = 0.2 }",
            "{ kind = \"westwood\", tau = \"0s\" }",
        ),
        35,
        "flow[0].tcp.cc.tau",
        "must be positive",
    );
    check(
        &err_with(
            "{ kind = \"wmecn\" }",
            "{ kind = \"wmecn\", threshold = \"1s\" }",
        ),
        35,
        "flow[0].tcp.classifier.threshold",
        "not used by kind \"wmecn\"",
    );
    check(
        &err_with("variant = \"reno\",", "variant = \"reno\", ecn = true,"),
        35,
        "flow[0].tcp.ecn",
        "replaces RFC 3168 ECN",
    );
    // Without ECN or MECN there is no ECN-capable transport to extend.
    check(
        &err_with(
            "tcp = { variant = \"reno\", classifier = { kind = \"wmecn\" }, cc = { kind = \"wmecn\", beta1 = 0.2 } }",
            "tcp = { variant = \"reno\", ecn_capable_retransmissions = true }",
        ),
        35,
        "flow[0].tcp.ecn_capable_retransmissions",
        "has no effect without ECN",
    );
    for ok in [
        "variant = \"reno\", ecn = true, ecn_capable_retransmissions = true",
        "variant = \"reno\", cc = { kind = \"mecn\" }, ecn_capable_retransmissions = true",
        "variant = \"reno\", ecn_capable_retransmissions = false",
    ] {
        let t = GOOD.replace(
            "variant = \"reno\", classifier = { kind = \"wmecn\" }, cc = { kind = \"wmecn\", beta1 = 0.2 }",
            ok,
        );
        Scenario::from_toml_str(&t, "good.toml").unwrap();
    }
    check(
        &err_with("kind = \"wmecn\", beta1", "kind = \"vegas\", beta1"),
        35,
        "flow[0].tcp.cc.kind",
        "unknown variant",
    );
}

#[test]
fn agent_errors() {
    check(
        &err_with("peer = \"D\", retries", "peer = \"S\", retries"),
        6,
        "node[0].agents[0].peer",
        "no link joins",
    );
    check(
        &err_with("retries = 3", "retries = 300"),
        6,
        "node[0].agents[0].retries",
        "from 0 to 255",
    );
    check(
        &err_with("timeout = \"20ms\"", "timeout = \"0s\""),
        6,
        "node[0].agents[0].timeout",
        "must be positive",
    );
    check(
        &err_with("delay = \"30ms\"", "retries = 2"),
        10,
        "node[1].agents[0].retries",
        "not used by kind \"dda\"",
    );
    check(
        &err_with(
            "{ kind = \"dda\", peer = \"R2\", delay = \"30ms\" }",
            "{ kind = \"dda\" }",
        ),
        10,
        "node[1].agents[0]",
        "kind \"dda\" needs `peer`",
    );
}
