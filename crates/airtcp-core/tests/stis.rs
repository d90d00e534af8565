//! The STIS path model (DCLOR draft, Appendix 1) in whole runs: per-
//! connection service at the link rate with a shared buffer, prolonged
//! stalls, route-change reordering; and the timeout responses on it.

mod common;
use common::*;

/// Server S -> STIS bottleneck -> clients; `n` repeated 10 KB downloads.
fn stis(timeout: &str, n: usize, stall: bool) -> String {
    stis_with_buffer(timeout, n, stall, "74KB")
}

fn stis_with_buffer(timeout: &str, n: usize, stall: bool, buffer: &str) -> String {
    let stall = if stall {
        r#"stall = { p1 = 0.05, d1 = "5s", p2 = 0.005, d2 = "8s" }"#
    } else {
        ""
    };
    let mut s = format!(
        r#"
[simulation]
duration = "600s"
[[link]]
a = "S"
b = "B"
rate = "10Mbps"
delay = "1ms"
[[link]]
a = "B"
b = "C"
rate = "50kbps"
delay = "200ms"
queue = {{ kind = "per_flow", limit = "{buffer}" }}
a_to_b = {{ error = {{ kind = "route_change", switch_probability = 0.12, extra_delay = "20ms" }} }}
{stall}
"#
    );
    // Each download is a new connection that rarely sees a SACK block
    // before its first timeout; let DCLOR act anyway (see §6).
    let extra = if timeout == "dclor" {
        ", dclor_requires_sack_block = false"
    } else {
        ""
    };
    for i in 0..n {
        s += &format!(
            r#"
[[flow]]
from = "S"
to = "C"
start = "{i}00ms"
tcp = {{ variant = "sack", timestamps = true, min_rto = "200ms", delayed_ack = false, timeout_response = "{timeout}"{extra} }}
app = {{ kind = "repeated", size = "10KB", think = "2s" }}
"#
        );
    }
    s
}

#[test]
fn each_connection_is_served_at_the_link_rate() {
    // Three connections without stalls: each gets ~50 kb/s, not a third.
    let (_, r) = run_world(&stis("standard", 3, false), Some(1));
    for f in &r.flows {
        assert!(
            f.transfers_completed > 50,
            "{} transfers",
            f.transfers_completed
        );
    }
    // A 10 KB transfer (8 segments of 1000 B + headers) needs ~1.7 s of
    // serialisation at 50 kb/s plus ~0.4 s RTTs.
    let mean = r.transfers.iter().map(|t| t.response_s).sum::<f64>() / r.transfers.len() as f64;
    assert!(mean > 2.0 && mean < 4.0, "mean response {mean}");
    // Reordering from route changes shows up as duplicate ACKs only, not
    // as losses: every data drop is zero.
    assert!(r
        .flows
        .iter()
        .all(|f| f.data_drops.iter().sum::<u64>() == 0));
}

#[test]
fn stalls_cause_spurious_timeouts_that_responses_detect() {
    let mut detected = Vec::new();
    for timeout in ["standard", "eifel", "frto_sack", "dclor"] {
        let (_, r) = run_world(&stis_with_buffer(timeout, 6, true, "10KB"), Some(3));
        let spurious: u64 = r.flows.iter().map(|f| f.spurious_timeouts).sum();
        let found: u64 = r.flows.iter().map(|f| f.spurious_timeouts_detected).sum();
        let redundant: u64 = r.flows.iter().map(|f| f.duplicate_bytes_received).sum();
        let done: u64 = r.flows.iter().map(|f| f.transfers_completed).sum();
        eprintln!("{timeout}: spurious {spurious} detected {found} redundant {redundant} B, {done} transfers");
        assert!(
            spurious > 5,
            "{timeout}: stalls must cause spurious timeouts"
        );
        assert!(done > 100, "{timeout}: {done} transfers");
        detected.push((timeout, found, redundant));
    }
    assert_eq!(detected[0].1, 0, "standard TCP detects nothing");
    assert!(
        detected.iter().skip(1).all(|d| d.1 > 0),
        "Eifel, F-RTO and DCLOR detect: {detected:?}"
    );
    // Avoiding go-back-N retransmits less than standard TCP.
    for d in &detected[1..] {
        assert!(d.2 < detected[0].2, "{detected:?}");
    }
}

#[test]
fn stis_scenario_errors() {
    let bad = stis("dclor", 1, true).replace("variant = \"sack\"", "variant = \"newreno\"");
    let e = airtcp_core::scenario::Scenario::from_toml_str(&bad, "s.toml").unwrap_err();
    assert_eq!(e.field, "flow[0].tcp.timeout_response");
    assert!(e.message.contains("SACK"), "{e}");
    let bad = stis("eifel", 1, true).replace("timestamps = true", "timestamps = false");
    let e = airtcp_core::scenario::Scenario::from_toml_str(&bad, "s.toml").unwrap_err();
    assert!(e.message.contains("timestamps"), "{e}");
}
