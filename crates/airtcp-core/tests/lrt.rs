//! Link-layer retransmission over the wireless hop (the WMECN paper's LRT,
//! DDA-like: Vaidya et al. 1999): `arq` on the base station, `dda` on the
//! mobile host. A wireless loss is repaired locally within the retry limit
//! and TCP never sees it; past the limit it is left to TCP.

mod common;
use std::collections::BTreeMap;

use airtcp_core::metrics::RunResult;
use airtcp_core::net::packet::{DeathCause, PacketKind};
use airtcp_core::observe::trace::PacketEvent;
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

/// One transmission of a data segment on the wireless link.
#[derive(Clone, Copy, Debug)]
struct Copy {
    /// 1-based among the data frames the link admitted (the drop list's
    /// numbering).
    frame_no: u64,
    enqueue_ns: u64,
    tx_start_ns: u64,
    lost: bool,
}

/// The path of [`path`] with a wireless link 10 times slower than the
/// wired one (1 Mb/s: a 1040-byte frame takes 8.32 ms) and an initial
/// window of 10 segments, so that frames queue at R for up to 83 ms,
/// longer than the ARQ timeout (20 ms). DDA holds duplicate ACKs for
/// 300 ms, longer than any repair here takes, so that TCP stays out of it.
fn queued_path(drops: &[u64], retries: u32) -> String {
    path(60, drops, retries, true)
        .replace(
            r#"kind = "arq", peer = "M","#,
            r#"kind = "arq", peer = "M", timeout = "20ms","#,
        )
        .replace(
            "rate = \"10Mbps\"\ndelay = \"5ms\"",
            "rate = \"1Mbps\"\ndelay = \"5ms\"",
        )
        .replace("initial_cwnd = 1", "initial_cwnd = 10")
        .replace(
            r#"{ kind = "dda", peer = "R" }"#,
            r#"{ kind = "dda", peer = "R", delay = "300ms" }"#,
        )
}

/// Run with every packet traced; the transmissions of each data segment
/// (by sequence number) on R -> M, in order.
fn copies_on_the_wireless_link(text: &str) -> (RunResult, BTreeMap<u64, Vec<Copy>>) {
    let (w, r, records) = run_traced(&scenario(text));
    let rm = w.links.iter().position(|l| l.name == "R->M").unwrap() as u32;
    let mut copies: BTreeMap<u64, Vec<Copy>> = BTreeMap::new();
    let mut frames = 0;
    for rec in &records {
        if rec.link != Some(rm) || rec.pkt.kind != PacketKind::TcpData {
            continue;
        }
        let list = copies.entry(rec.pkt.seq).or_default();
        match rec.event {
            PacketEvent::Enqueue => list.push(Copy {
                frame_no: {
                    frames += 1;
                    frames
                },
                enqueue_ns: rec.time_ns,
                tx_start_ns: u64::MAX,
                lost: false,
            }),
            PacketEvent::Dequeue => list.last_mut().unwrap().tx_start_ns = rec.time_ns,
            PacketEvent::Drop => {
                assert_eq!(rec.cause, Some(DeathCause::ChannelError));
                list.last_mut().unwrap().lost = true;
            }
            _ => {}
        }
    }
    (r, copies)
}

/// The LRT rule (WMECN §5.2: "a link layer retransmission (LRT) protocol
/// similar to DDA"; Vaidya et al. 1999): the base station retransmits a
/// frame when no link-level ACK has arrived within the timeout after the
/// frame was TRANSMITTED (here from the end of its transmission, when the
/// receiver can first ACK it), at most `retries` times. So on a link where
/// frames queue longer than the timeout: (1) no copy is made while an
/// earlier copy of the same frame waits in the queue or is being sent;
/// (2) each copy is made exactly `timeout` after the previous copy's
/// transmission ended, whatever its time in the queue; (3) a copy follows
/// only a lost frame (every link ACK of this lossless reverse link
/// arrives in time); (4) TCP never notices.
#[test]
fn retransmissions_wait_for_the_frame_to_be_sent_not_queued() {
    const TIMEOUT_NS: u64 = 20_000_000;
    const TX_NS: u64 = 8_320_000; // 1040 bytes at 1 Mb/s
                                  // Lost on R -> M: the 2nd and 5th frames (segments 1 and 4, queued
                                  // behind the initial burst) and the 12th.
    let (r, copies) = copies_on_the_wireless_link(&queued_path(&[2, 5, 12], 3));
    let f = &r.flows[0];
    assert_eq!((f.transfers_completed, f.delivered_bytes), (1, 60_000));
    assert_eq!(
        (f.timeouts, f.fast_retransmits, f.retransmitted_segments),
        (0, 0, 0)
    );
    // Segment 4 waited 4 frames (33 ms) in the queue: more than the timeout.
    let s4 = &copies[&4000][0];
    assert!(s4.tx_start_ns - s4.enqueue_ns > TIMEOUT_NS, "{s4:?}");
    let mut resent = 0;
    for (seq, list) in &copies {
        assert_eq!(
            list.last().map(|c| c.lost),
            Some(false),
            "segment {seq} arrived"
        );
        for pair in list.windows(2) {
            let (prev, copy) = (pair[0], pair[1]);
            assert!(
                prev.lost,
                "segment {seq}: a copy after an intact frame: {list:?}"
            );
            let prev_end_ns = prev.tx_start_ns + TX_NS;
            assert!(
                copy.enqueue_ns >= prev_end_ns,
                "segment {seq}: copied while queued"
            );
            assert_eq!(
                copy.enqueue_ns,
                prev_end_ns + TIMEOUT_NS,
                "segment {seq}: {list:?}"
            );
            resent += 1;
        }
    }
    assert_eq!(resent, 3);
    assert_eq!(agent(&r, "arq", "local_retransmissions"), 3);
    assert_eq!(agent(&r, "arq", "gave_up"), 0);
}

/// The retry limit on the queued link: the 2nd frame and both its copies
/// are lost (which frames on the link the copies are is read from the runs
/// with fewer drops); the ARQ makes 2 copies, gives up, and TCP repairs the
/// loss. Each copy still waits for the previous one's transmission.
#[test]
fn the_retry_limit_holds_on_a_queued_link() {
    let mut drops = vec![2];
    for _ in 0..2 {
        let (_, copies) = copies_on_the_wireless_link(&queued_path(&drops, 2));
        drops.push(copies[&1000][drops.len()].frame_no);
    }
    let (r, copies) = copies_on_the_wireless_link(&queued_path(&drops, 2));
    let s0 = &copies[&1000];
    assert!(s0[..3].iter().all(|c| c.lost), "{s0:?}");
    assert_eq!(
        s0.iter().map(|c| c.frame_no).take(3).collect::<Vec<_>>(),
        drops
    );
    for pair in s0[..3].windows(2) {
        assert_eq!(
            pair[1].enqueue_ns,
            pair[0].tx_start_ns + 8_320_000 + 20_000_000
        );
    }
    assert_eq!(agent(&r, "arq", "local_retransmissions"), 2);
    assert_eq!(agent(&r, "arq", "gave_up"), 1);
    // The fourth transmission is TCP's own retransmission.
    let f = &r.flows[0];
    assert_eq!(f.retransmitted_segments, 1);
    assert_eq!((f.transfers_completed, f.delivered_bytes), (1, 60_000));
    assert_eq!(s0.len(), 4);
    assert!(!s0[3].lost);
}

/// docs/results.md, trace column `retransmission`: "the segment re-sends
/// bytes its sender had sent before", and an agent's local retransmission
/// (Snoop, G-Snoop, link-layer ARQ) counts: its `send` row is on the
/// agent's node, so a link-layer copy is told from TCP's own by `node`.
/// Here every copy the base station's ARQ sends is flagged, and nothing
/// else is (TCP itself never retransmits: both losses are repaired
/// locally). Each copy's later rows (enqueue, dequeue, receive, deliver)
/// carry the flag too.
#[test]
fn the_trace_flags_link_layer_copies_as_retransmissions() {
    let (w, r, records) = run_traced(&scenario(&path(60, &[20, 40], 3, true)));
    let base_station = w.nodes.iter().position(|n| n.name == "R").unwrap() as u32;
    let sends: Vec<_> = records
        .iter()
        .filter(|rec| rec.event == PacketEvent::Send && rec.pkt.kind == PacketKind::TcpData)
        .collect();
    let copies: Vec<_> = sends
        .iter()
        .filter(|rec| rec.node == base_station)
        .collect();
    assert_eq!(
        copies.len() as u64,
        agent(&r, "arq", "local_retransmissions")
    );
    assert_eq!(copies.len(), 2);
    assert!(copies.iter().all(|rec| rec.pkt.is_retransmission));
    assert_eq!(r.flows[0].retransmitted_segments, 0);
    assert!(sends
        .iter()
        .filter(|rec| rec.node != base_station)
        .all(|rec| !rec.pkt.is_retransmission));
    for c in &copies {
        let delivered = records
            .iter()
            .find(|rec| rec.event == PacketEvent::Deliver && rec.pkt.uid == c.pkt.uid)
            .expect("the copy is delivered");
        assert!(delivered.pkt.is_retransmission);
    }
}
