//! Kick TCP (draft-bahk-pilc-tcp-wireless-00 §2) end to end: a mobile host
//! MH uploads over a 64 kb/s wireless uplink to the intermediate node IN,
//! then a wired link to the fixed host FH. Chosen uplink data packets are
//! dropped to force retransmission timeouts.

mod common;
use airtcp_core::net::packet::{flags, Packet, PacketKind};
use airtcp_core::observe::trace::PacketEvent;
use airtcp_core::observe::wire::tcp_flags_field;
use airtcp_core::sim::TimeNs;
use airtcp_core::tcp::kick::{KickConfig, KickInterval, KickTimer, KICK};
use airtcp_core::tcp::rto::StandardTimeout;
use airtcp_core::tcp::sender::TraceEvent;
use common::script::{self, Recovery, Script, MSS, RTO_NS, STEP_NS};
use common::*;

/// `kick`: the kick table ("" for plain Reno); `aware`: agent on IN.
fn upload(kick: &str, aware: bool, drops: &[u64]) -> String {
    let drops: Vec<String> = drops.iter().map(|d| d.to_string()).collect();
    let agents = if aware {
        r#"agents = [{ kind = "kick" }]"#
    } else {
        ""
    };
    let kick = if kick.is_empty() {
        String::new()
    } else {
        format!(", kick = {kick}")
    };
    format!(
        r#"
[simulation]
duration = "60s"
[[node]]
name = "IN"
{agents}
[[link]]
a = "MH"
b = "IN"
rate = "64kbps"
delay = "10ms"
a_to_b = {{ error = {{ kind = "drop_list", packets = [{drops}], applies_to = "data" }} }}
[[link]]
a = "IN"
b = "FH"
rate = "10Mbps"
delay = "5ms"
[[flow]]
from = "MH"
to = "FH"
tcp = {{ variant = "reno", mss = "536B", initial_cwnd = 1, rwnd = "1072B", delayed_ack = false, trace = true{kick} }}
app = {{ kind = "file", size = "5360B" }}
"#,
        drops = drops.join(", ")
    )
}

const KICK_300MS: &str = r#"{ interval = "300ms" }"#;

fn counter(r: &airtcp_core::metrics::RunResult, name: &str) -> u64 {
    r.agents
        .iter()
        .filter(|a| a.counter == name)
        .map(|a| a.value)
        .sum()
}

#[test]
fn kicks_repeat_until_a_kickback_stops_them() {
    // Segment 0 and the first kick (at 300 ms) are lost on the uplink; the
    // second kick (600 ms) reaches IN, which has not forwarded segment 0:
    // forwarded with K cleared, and a kickback stops the kick timer.
    let (w, r) = run_world(&upload(KICK_300MS, true, &[1, 2]), None);
    let f = &r.flows[0];
    assert_eq!((f.kicks_sent, f.kickbacks_received), (2, 1));
    assert_eq!(counter(&r, "kicks_forwarded"), 1);
    assert_eq!(counter(&r, "kicks_answered"), 0);
    assert_eq!(f.timeouts, 0, "the kick beat the 1 s RTO");
    assert_eq!(f.transfers_completed, 1);
    assert!(r.transfers[0].response_s < 2.0);
    // The kick is not a TCP retransmission; the trace shows both kicks.
    assert_eq!(f.retransmitted_segments, 0);
    let s = w.tcp_sender(0).unwrap();
    let kicks: Vec<(TimeNs, u64)> = s
        .core
        .trace
        .iter()
        .filter_map(|(t, e)| match e {
            TraceEvent::Kick { seq } => Some((*t, *seq)),
            _ => None,
        })
        .collect();
    assert_eq!(kicks, vec![(300_000_000, 0), (600_000_000, 0)]);
}

#[test]
fn already_forwarded_segment_kick_is_answered_and_dropped() {
    // Segment 0 is lost after IN, on the wired link: IN has forwarded it,
    // so each kick is answered with a kickback and dropped.
    let text = upload(KICK_300MS, true, &[]).replacen(
        "rate = \"10Mbps\"\ndelay = \"5ms\"",
        "rate = \"10Mbps\"\ndelay = \"5ms\"\na_to_b = { error = { kind = \"drop_list\", packets = [1], applies_to = \"data\" } }",
        1,
    );
    let (_, r) = run_world(&text, None);
    let f = &r.flows[0];
    assert_eq!(counter(&r, "kicks_answered"), f.kicks_sent);
    assert!(f.kicks_sent >= 1);
    assert_eq!(counter(&r, "kicks_forwarded"), 0);
    // A kickback only stops the kicks; the wired loss is left to the RTO.
    assert_eq!(f.timeouts, 1);
    assert_eq!(f.transfers_completed, 1);
}

#[test]
fn kicking_changes_no_congestion_control_state() {
    // Same run with and without the kick timer, stopped just after the
    // first kick (300 ms) and before anything it causes can come back.
    let drops = [1, 2, 3, 4, 5];
    let build = |kick: &str| scenario(&upload(kick, true, &drops)).build(None).unwrap();
    let (mut with, mut without) = (build(KICK_300MS), build(""));
    let t = 300_000_001;
    with.run_until(t);
    without.run_until(t);
    let (a, b) = (
        &with.tcp_sender(0).unwrap().core,
        &without.tcp_sender(0).unwrap().core,
    );
    assert_eq!(
        with.tcp_sender(0)
            .unwrap()
            .hook
            .as_ref()
            .unwrap()
            .counters()[0],
        ("kicks_sent", 1)
    );
    assert_eq!((a.w.cwnd, a.w.ssthresh), (b.w.cwnd, b.w.ssthresh));
    assert_eq!(a.rtt.rto_ns(), b.rtt.rto_ns());
    assert_eq!(a.rtt.backoff_count(), b.rtt.backoff_count());
    assert_eq!(a.rtt.samples, b.rtt.samples);
    assert_eq!(a.rtt.srtt_ns(), b.rtt.srtt_ns());
    assert_eq!(a.rto_deadline, b.rto_deadline);
    assert_eq!(
        a.stats.retransmitted_segments,
        b.stats.retransmitted_segments
    );
    assert_eq!(
        (a.snd_una, a.snd_nxt, a.snd_max),
        (b.snd_una, b.snd_nxt, b.snd_max)
    );
}

#[test]
fn kick_unaware_node_lets_kicks_die_by_ttl() {
    // IN is a plain router: kicks (TTL 1) die there; the RTO recovers.
    let (_, r) = run_world(&upload(KICK_300MS, false, &[1]), None);
    let f = &r.flows[0];
    assert!(f.kicks_sent >= 1);
    assert_eq!(
        f.data_drops[3], f.kicks_sent,
        "every kick died by TTL: {:?}",
        f.data_drops
    );
    assert_eq!(f.kickbacks_received, 0);
    assert_eq!(f.timeouts, 1);
    assert_eq!(f.transfers_completed, 1);
    assert_eq!(f.delivered_bytes, 5360);
}

#[test]
fn no_kick_reaches_the_wireline_receiver_through_a_kick_aware_node() {
    // Records the sequence number of every kick (K bit) reaching FH.
    let (spy, kicks) = Spy::new(|p: &Packet, _| {
        (p.kind == PacketKind::TcpData && p.has_flag(KICK)).then_some(p.seq)
    });
    let mut w = scenario(&upload(r#"{ interval = "100ms" }"#, true, &[1, 2, 4, 7, 8]))
        .build(None)
        .unwrap();
    let fh = w.nodes.iter().position(|n| n.name == "FH").unwrap();
    w.add_agent(fh, Box::new(spy));
    let r = w.finish();
    assert!(r.flows[0].kicks_sent >= 3, "{}", r.flows[0].kicks_sent);
    assert_eq!(*kicks.lock().unwrap(), Vec::<u64>::new());
    assert_eq!(r.flows[0].transfers_completed, 1);
}

/// results.md, `trace.retransmission`: "Tell them apart by the copy's
/// `send` row: on the flow's source node for the TCP sender's, where those
/// with the K bit (`tcp_flags & 0x800`) are kicks (counted in
/// `kicks_sent`) and the others are counted in `retransmitted_segments`".
/// Kicks are copies of a sent segment, flagged like retransmissions: the
/// rule without the K bit would count them too.
#[test]
fn the_traces_retransmission_rule_separates_kicks_from_retransmissions() {
    let sc = scenario(&upload(
        r#"{ interval = "100ms" }"#,
        true,
        &[1, 2, 4, 7, 8, 12],
    ));
    let (w, r, recs) = run_traced(&sc);
    let f = &r.flows[0];
    let source = w.nodes.iter().position(|n| n.name == f.src).unwrap() as u32;
    let copies: Vec<u16> = recs
        .iter()
        .filter(|rec| {
            rec.event == PacketEvent::Send
                && rec.node == source
                && rec.pkt.payload_len > 0
                && rec.pkt.is_retransmission
        })
        .map(|rec| tcp_flags_field(rec.pkt.flags))
        .collect();
    let kicks = copies.iter().filter(|&&fl| fl & 0x800 != 0).count() as u64;
    assert!(f.kicks_sent > 0 && f.retransmitted_segments > 0, "{f:?}");
    assert_eq!(kicks, f.kicks_sent);
    assert_eq!(copies.len() as u64 - kicks, f.retransmitted_segments);
}

#[test]
fn kick_scenario_errors() {
    let bad = upload(r#"{ interval = "soon" }"#, true, &[]);
    let e = airtcp_core::scenario::Scenario::from_toml_str(&bad, "k.toml").unwrap_err();
    assert_eq!(e.field, "flow[0].tcp.kick.interval");
    assert!(
        e.to_string().contains("expected \"rtt\" or a duration"),
        "{e}"
    );
    let e = scenario_err(&hole("everything"));
    assert_eq!(e.field, "node[0].agents[0].knowledge", "{e}");
    assert!(e.to_string().contains("exact"), "{e}");
    let e = scenario_err(&hole("exact").replace("kind = \"kick\"", "kind = \"snoop\""));
    assert_eq!(e.field, "node[0].agents[0].knowledge", "{e}");
    assert!(e.to_string().contains("not used by kind \"snoop\""), "{e}");
}

// ---------------------------------------------------------------------------
// The kick timer driven segment by segment (sans-I/O): one Reno sender with
// a 1 s RTO, initial window 1 and a kick timer of 300 ms. `k3` is a kick of
// segment 3, `r3` a retransmission.

const KICK_NS: TimeNs = 300_000_000;

fn kick_script() -> Script {
    let cfg = airtcp_core::tcp::sender::SenderConfig {
        trace: true,
        ..script::config(1)
    };
    let kick = KickTimer::new(KickConfig {
        interval: KickInterval::Fixed(KICK_NS),
        ttl: 1,
    });
    Script::with_parts(
        cfg,
        Recovery::Reno,
        Box::new(StandardTimeout),
        Some(Box::new(kick)),
    )
}

/// A kickback from the node for the kicked segment ending at segment `n`
/// (§2: "an ACK for the segment with the K bit set").
fn kickback(n: u64) -> Packet {
    let mut p = script::ack(n, &[]);
    p.flags = flags::ACK | KICK;
    p
}

fn kick_counters(k: &Script) -> (u64, u64, u64) {
    let c = k.s.hook.as_ref().unwrap().counters();
    let get = |name: &str| c.iter().find(|(n, _)| *n == name).unwrap().1;
    (
        get("kicks_sent"),
        get("kickbacks_received"),
        get("stale_kickbacks"),
    )
}

/// §2: a kick "is simply manifest in the form of an early retransmission",
/// so Karn's rule (RFC 6298 §3, "RTT samples MUST NOT be made using
/// segments that were retransmitted") holds for it: the ACK that covers a
/// kicked segment may answer the kick, gives no RTT sample and, since only
/// a new sample "collapses" a backed-off RTO (RFC 6298 §5, the note after
/// (5.7)), leaves the backoff as it was.
#[test]
fn the_ack_of_a_kicked_segment_gives_no_rtt_sample() {
    let mut k = kick_script();
    let rtt = |k: &Script| (k.s.core.rtt.samples, k.s.core.rtt.backoff_count());
    // Segment 0 is timed from t = 1 ms; the kick timer fires at 301 ms.
    assert_eq!(k.start(4), "0");
    assert_eq!(k.timeout(), "k0");
    assert_eq!(k.now, STEP_NS + KICK_NS);
    // Its ACK (the original's or the kick's: no telling) gives no sample;
    // slow start sends two more.
    assert_eq!(k.ack(1, &[]), "1 2");
    assert_eq!(rtt(&k), (0, 0));
    assert_eq!(k.s.core.rtt.srtt_ns(), None);
    // Segment 1, sent once, was timed: 1 ms.
    assert_eq!(k.ack(2, &[]), "3");
    assert_eq!(rtt(&k), (1, 0));
    assert_eq!(k.s.core.rtt.latest_rtt_ns(), Some(STEP_NS));
}

/// The same after a timeout: the backoff of the expired timer is kept when
/// the ACK of a kicked segment arrives, and the timer restarts at the
/// backed-off RTO; a segment sent once then ends the backoff.
#[test]
fn the_ack_of_a_kicked_segment_leaves_the_backoff() {
    let mut k = kick_script();
    let rtt = |k: &Script| (k.s.core.rtt.samples, k.s.core.rtt.backoff_count());
    assert_eq!(k.start(4), "0");
    // Kicks at 301, 601, 901 ms; the next would come after the RTO.
    assert_eq!(k.timeout(), "k0");
    assert_eq!(k.timeout(), "k0");
    assert_eq!(k.timeout(), "k0");
    assert_eq!(k.timeout(), "r0");
    assert_eq!(k.now, STEP_NS + RTO_NS);
    assert_eq!(rtt(&k), (0, 1));
    // Retransmitted: no sample (Karn). Segments 1 and 2 go out (slow
    // start), 1 timed, under the backed-off RTO of 2 s.
    assert_eq!(k.ack(1, &[]), "1 2");
    assert_eq!(rtt(&k), (0, 1));
    assert_eq!(k.s.core.rto_deadline, Some(k.now + 2 * RTO_NS));
    assert_eq!(k.timeout(), "k1");
    // Segment 1's ACK may answer the kick: no sample, the backoff stays
    // and the timer restarts at 2 s. Segment 3 goes out, timed.
    assert_eq!(k.ack(2, &[]), "3");
    assert_eq!(
        rtt(&k),
        (0, 1),
        "the kicked segment's ACK ended the backoff"
    );
    assert_eq!(k.s.core.rto_deadline, Some(k.now + 2 * RTO_NS));
    assert_eq!(k.ack(3, &[]), "");
    assert_eq!(rtt(&k), (0, 1));
    // Segment 3 was sent once and is acknowledged: a sample, no backoff.
    assert_eq!(k.ack(4, &[]), "");
    assert_eq!(rtt(&k), (1, 0));
    assert_eq!(kick_counters(&k), (4, 0, 0));
}

/// §2: "Upon receiving a kickback, MH stops the kick timer". A kickback
/// answers a kick: one for a kick sent before the timer was last set (here
/// segment 0's, after segment 0 was acknowledged and the timer re-armed for
/// segment 1) says nothing about the segment now guarded and must not stop
/// the timer; it is discarded (§2: "should NOT be considered a normal ACK").
#[test]
fn a_stale_kickback_is_ignored() {
    let mut k = kick_script();
    assert_eq!(k.start(4), "0");
    assert_eq!(k.timeout(), "k0");
    // The original segment 0 was acknowledged; the timers restart.
    assert_eq!(k.ack(1, &[]), "1 2");
    let kick_due = k.now + KICK_NS;
    assert_eq!(k.s.next_deadline(), Some(kick_due));
    // The kickback for k0 arrives late: discarded, the kick timer runs on.
    assert_eq!(k.deliver(&kickback(1)), "");
    assert_eq!(k.s.next_deadline(), Some(kick_due));
    assert_eq!(k.s.core.snd_una, MSS);
    assert_eq!(kick_counters(&k), (1, 0, 1));
    assert_eq!(k.timeout(), "k1");
    // The kickback for k1 stops the kick timer: only the RTO is left.
    assert_eq!(k.deliver(&kickback(2)), "");
    assert_eq!(k.s.next_deadline(), k.s.core.rto_deadline);
    assert_eq!(kick_counters(&k), (2, 1, 1));
    assert_eq!(k.s.core.snd_una, MSS, "a kickback is not an ACK to TCP");
}

/// The same for a timer restarted by a timeout: segment 0's earlier kicks
/// are answered only after the RTO fired and the kick timer was set again,
/// before any new kick; their kickbacks do not stop it.
#[test]
fn a_kickback_from_before_a_timeout_is_stale() {
    let mut k = kick_script();
    assert_eq!(k.start(4), "0");
    assert_eq!(k.timeout(), "k0");
    assert_eq!(k.timeout(), "k0");
    assert_eq!(k.timeout(), "k0");
    assert_eq!(k.timeout(), "r0");
    let kick_due = k.now + KICK_NS;
    assert_eq!(k.deliver(&kickback(1)), "");
    assert_eq!(k.s.next_deadline(), Some(kick_due));
    assert_eq!(k.timeout(), "k0");
    assert_eq!(kick_counters(&k), (4, 0, 1));
    // A kickback that acknowledges anything else is stale too.
    assert_eq!(k.deliver(&kickback(2)), "");
    assert_eq!(kick_counters(&k), (4, 0, 2));
    assert_eq!(k.deliver(&kickback(1)), "");
    assert_eq!(kick_counters(&k), (4, 1, 2));
    assert_eq!(k.s.next_deadline(), k.s.core.rto_deadline);
}

/// The draft's simulated node (§3): the receiving host FH is kick-aware and
/// knows exactly which segments it holds. MH sends segments 0-2 at once;
/// segment 1 is lost on the uplink, leaving a hole that one duplicate ACK
/// cannot repair. The kick for segment 1 (one kick interval after the ACK of
/// segment 0 restarted the timers) reaches FH, which has not received it: it
/// is forwarded to FH's TCP and repairs the hole before the RTO.
fn hole(knowledge: &str) -> String {
    format!(
        r#"
[simulation]
duration = "60s"
[[node]]
name = "FH"
agents = [{{ kind = "kick", knowledge = "{knowledge}" }}]
[[link]]
a = "MH"
b = "FH"
rate = "64kbps"
delay = "10ms"
a_to_b = {{ error = {{ kind = "drop_list", packets = [2], applies_to = "data" }} }}
[[flow]]
from = "MH"
to = "FH"
tcp = {{ variant = "reno", mss = "536B", initial_cwnd = 3, delayed_ack = false, limited_transmit = false, trace = true, kick = {{ interval = "300ms" }} }}
app = {{ kind = "file", size = "1608B" }}
"#
    )
}

/// Data segment numbers reaching FH's TCP (after the kick-aware agent).
fn segments_at_fh(text: &str) -> (Vec<u64>, airtcp_core::metrics::RunResult) {
    let (spy, seen) = Spy::new(|p: &Packet, _| {
        (p.kind == PacketKind::TcpData && p.payload_len > 0).then_some(p.seq / 536)
    });
    let mut w = scenario(text).build(None).unwrap();
    let fh = w.nodes.iter().position(|n| n.name == "FH").unwrap();
    w.add_agent(fh, Box::new(spy));
    let r = w.finish();
    let seen = seen.lock().unwrap().clone();
    (seen, r)
}

#[test]
fn a_kick_for_a_hole_is_forwarded_and_repairs_it() {
    let (seen, r) = segments_at_fh(&hole("exact"));
    let f = &r.flows[0];
    assert_eq!(seen, vec![0, 2, 1], "the kick filled the hole");
    assert_eq!((f.kicks_sent, f.kickbacks_received), (1, 1));
    assert_eq!(counter(&r, "kicks_forwarded"), 1);
    assert_eq!(counter(&r, "kicks_answered"), 0);
    assert_eq!((f.timeouts, f.retransmitted_segments), (0, 0));
    assert_eq!(f.transfers_completed, 1);
    // Three 72 ms packets, the ACK of 0 (at ~97 ms), the kick 300 ms
    // later, and its way to FH and back: well before the 1 s RTO.
    assert!(
        r.transfers[0].response_s < 0.6,
        "{}",
        r.transfers[0].response_s
    );
}

/// §2's reading (the largest sequence number forwarded) takes the hole for
/// forwarded data: the kick is answered and dropped, its kickback stops the
/// kick timer, and the loss waits for the RTO.
#[test]
fn the_highest_forwarded_node_drops_a_kick_for_a_hole() {
    let (seen, r) = segments_at_fh(&hole("highest_forwarded"));
    let f = &r.flows[0];
    assert_eq!(seen, vec![0, 2, 1], "segment 1 came by the RTO");
    assert_eq!((f.kicks_sent, f.kickbacks_received), (1, 1));
    assert_eq!(counter(&r, "kicks_answered"), 1);
    assert_eq!(counter(&r, "kicks_forwarded"), 0);
    assert_eq!((f.timeouts, f.retransmitted_segments), (1, 1));
    assert_eq!(f.transfers_completed, 1);
    assert!(
        r.transfers[0].response_s > 1.0,
        "{}",
        r.transfers[0].response_s
    );
}
