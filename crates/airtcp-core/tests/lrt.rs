//! Link-layer retransmission over the wireless hop (the WMECN paper's LRT,
//! DDA-like: Vaidya et al. 1999): `arq` on the base station, `dda` on the
//! mobile host. A wireless loss is repaired locally within the retry limit
//! and TCP never sees it; past the limit it is left to TCP.

mod common;
use airtcp_core::metrics::RunResult;
use common::*;

/// S -> R (10 Mb/s, 10 ms) -> M (wireless, 10 Mb/s, 5 ms); the listed data
/// packets crossing R -> M are lost (1-based, local retransmissions count).
fn path(segments: u64, drops: &[u64], retries: u32, dda: bool) -> String {
    let drops: Vec<String> = drops.iter().map(|d| d.to_string()).collect();
    let dda = if dda {
        r#"{ kind = "dda", peer = "R" }"#
    } else {
        r#"{ kind = "dda", peer = "R", delay = "0s" }"#
    };
    format!(
        r#"
[simulation]
duration = "30s"
[[node]]
name = "R"
agents = [{{ kind = "arq", peer = "M", retries = {retries} }}]
[[node]]
name = "M"
agents = [{dda}]
[[link]]
a = "S"
b = "R"
rate = "10Mbps"
delay = "10ms"
queue = {{ kind = "droptail", limit = "1000pkt" }}
[[link]]
a = "R"
b = "M"
rate = "10Mbps"
delay = "5ms"
queue = {{ kind = "droptail", limit = "1000pkt" }}
a_to_b = {{ error = {{ kind = "drop_list", packets = [{drops}], applies_to = "data" }} }}
[[flow]]
from = "S"
to = "M"
tcp = {{ variant = "reno", mss = "1000B", delayed_ack = false, initial_cwnd = 1, initial_ssthresh = "16000B", trace = true }}
app = {{ kind = "file", size = "{size}B" }}
"#,
        drops = drops.join(", "),
        size = segments * 1000
    )
}

fn agent(r: &RunResult, agent: &str, counter: &str) -> u64 {
    r.agents
        .iter()
        .find(|a| a.agent == agent && a.counter == counter)
        .map_or_else(|| panic!("no {agent}.{counter}"), |a| a.value)
}

#[test]
fn a_wireless_loss_is_repaired_locally_within_the_retry_limit() {
    // Segment 19 is lost on the wireless hop mid-transfer; later segments
    // overtake its local retransmission, and DDA holds the third and later
    // duplicate ACKs until the repair arrives, so TCP never reacts.
    let (w, r) = run_world(&path(60, &[20], 3, true), None);
    let s = w.tcp_sender(0).unwrap();
    dump(s);
    let f = &r.flows[0];
    assert_eq!((f.transfers_completed, f.delivered_bytes), (1, 60_000));
    assert_eq!(retransmissions(s), Vec::<u64>::new());
    assert_eq!((f.fast_retransmits, f.timeouts), (0, 0));
    assert_eq!(agent(&r, "arq", "local_retransmissions"), 1);
    assert_eq!(agent(&r, "arq", "gave_up"), 0);
    assert!(agent(&r, "dda", "dupacks_delayed") >= 1);
    assert_eq!(
        agent(&r, "dda", "dupacks_discarded"),
        agent(&r, "dda", "dupacks_delayed"),
        "the repair arrived before the DDA timer: every held duplicate dropped"
    );
    assert_eq!(agent(&r, "dda", "dupacks_released"), 0);
}

#[test]
fn without_dda_the_reordering_triggers_a_fast_retransmit() {
    // The same loss with duplicate ACKs passed at once: the sender sees
    // three of them before the local repair arrives.
    let (w, r) = run_world(&path(60, &[20], 3, false), None);
    let f = &r.flows[0];
    assert_eq!(f.transfers_completed, 1);
    assert_eq!(agent(&r, "arq", "local_retransmissions"), 1);
    assert_eq!(f.fast_retransmits, 1);
    assert_eq!(retransmissions(w.tcp_sender(0).unwrap()), vec![19]);
}

#[test]
fn repeated_losses_of_the_last_segment_are_repaired_up_to_the_limit() {
    // The last segment (60th data packet) and its first local retransmission
    // (61st) are lost; the second retry (62nd) gets through.
    let (w, r) = run_world(&path(60, &[60, 61], 2, true), None);
    let f = &r.flows[0];
    assert_eq!(f.transfers_completed, 1);
    assert_eq!(retransmissions(w.tcp_sender(0).unwrap()), Vec::<u64>::new());
    assert_eq!(f.timeouts, 0);
    assert_eq!(agent(&r, "arq", "local_retransmissions"), 2);
    assert_eq!(agent(&r, "arq", "gave_up"), 0);
}

#[test]
fn after_the_retry_limit_the_loss_is_left_to_tcp() {
    // The last segment and both its local retransmissions are lost: the
    // ARQ gives up and TCP's retransmission timer repairs it.
    let (w, r) = run_world(&path(60, &[60, 61, 62], 2, true), None);
    let s = w.tcp_sender(0).unwrap();
    dump(s);
    let f = &r.flows[0];
    assert_eq!((f.transfers_completed, f.delivered_bytes), (1, 60_000));
    assert_eq!(agent(&r, "arq", "local_retransmissions"), 2);
    assert_eq!(agent(&r, "arq", "gave_up"), 1);
    assert_eq!(f.timeouts, 1);
    assert_eq!(retransmissions(s), vec![59]);
    // The ground truth follows the copies: a wireless loss (called
    // congestion by the default classifier).
    assert_eq!(f.loss_wireless_as_congestion, 1);
}
