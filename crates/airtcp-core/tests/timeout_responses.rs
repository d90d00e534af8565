//! Timeout responses driven packet by packet (sans-I/O): DCLOR's three
//! worked examples (draft-swami-tsvwg-tcp-dclor-00 §7) as exact traces, and
//! the standard response they start from. Eifel (RFC 3522 / RFC 4015) and
//! F-RTO (RFC 5682) have their own conformance modules, `rfc3522_4015.rs`
//! and `rfc5682.rs`.
//!
//! Packets are numbered as in the draft: P(i) is the segment starting at
//! (i - 1) * MSS; A(i) acknowledges P(1)..P(i).

use airtcp_core::net::packet::{flags, Packet, PacketKind, SackBlock};
use airtcp_core::tcp::cc::RenoCc;
use airtcp_core::tcp::classify::AlwaysCongestion;
use airtcp_core::tcp::recovery::{NewRenoRecovery, SackRecovery};
use airtcp_core::tcp::rto::{DclorTimeout, StandardTimeout, TimeoutResponse};
use airtcp_core::tcp::rtt::RtoConfig;
use airtcp_core::tcp::sender::{SenderConfig, TcpSender};

const MSS: u64 = 1000;
const RTO: u64 = 1_000_000_000;

fn sender(timeout: Box<dyn TimeoutResponse>, sack: bool) -> TcpSender {
    sender_with_handshake(timeout, sack, false)
}

fn sender_with_handshake(
    timeout: Box<dyn TimeoutResponse>,
    sack: bool,
    handshake: bool,
) -> TcpSender {
    let cfg = SenderConfig {
        flow: 0,
        epoch: 1,
        src: 0,
        dst: 1,
        mss: MSS as u32,
        initial_cwnd_segments: 20,
        initial_ssthresh_bytes: 64 * MSS,
        rto: RtoConfig {
            initial_rto_ns: RTO,
            min_rto_ns: RTO,
            ..RtoConfig::default()
        },
        timestamps: false,
        ecn: false,
        mecn: false,
        handshake,
        dupthresh: 3,
        restart_rto_on_fast_retransmit: true,
        trace: false,
        ..SenderConfig::default()
    };
    let recovery: Box<dyn airtcp_core::tcp::recovery::LossRecovery> = if sack {
        Box::new(SackRecovery)
    } else {
        Box::new(NewRenoRecovery)
    };
    TcpSender::new(
        cfg,
        Box::new(RenoCc),
        recovery,
        timeout,
        Box::new(AlwaysCongestion),
        None,
    )
}

/// P(i) numbers of the data segments in `out`.
fn pkts(out: &[Packet]) -> Vec<u64> {
    out.iter().map(|p| p.seq / MSS + 1).collect()
}

/// A(i) with SACK blocks given as packet ranges [x, y] (inclusive).
fn ack(i: u64, sacks: &[(u64, u64)]) -> Packet {
    let mut p = Packet {
        kind: PacketKind::TcpAck,
        flags: flags::ACK,
        ack: i * MSS,
        wnd: 1 << 30,
        ..Default::default()
    };
    for (k, &(x, y)) in sacks.iter().enumerate() {
        p.sack[k] = SackBlock {
            start: (x - 1) * MSS,
            end: y * MSS,
        };
    }
    p.sack_count = sacks.len() as u8;
    p
}

/// Start with 20 packets in flight (sent at t = 0) and a large backlog,
/// then let the RTO expire. Returns what the timeout sent.
fn twenty_in_flight_then_timeout(s: &mut TcpSender) -> Vec<u64> {
    let mut out = Vec::new();
    s.start(0, &mut out);
    s.app_write(0, 1_000 * MSS, &mut out);
    assert_eq!(pkts(&out), (1..=20).collect::<Vec<_>>());
    out.clear();
    assert_eq!(s.next_deadline(), Some(RTO));
    s.on_timer(RTO, &mut out);
    pkts(&out)
}

fn dclor() -> TcpSender {
    let mut s = sender(Box::new(DclorTimeout::default()), true);
    // §6: the connection has seen a SACK block before the timeout.
    s.core.sack_seen = true;
    s
}

#[test]
fn dclor_7_1_timeout_due_to_congestion() {
    let mut s = dclor();
    // All of P(1)..P(20) lost: at the timeout send ONE new packet P(21),
    // cwnd = 0, ssthresh unchanged.
    assert_eq!(twenty_in_flight_then_timeout(&mut s), vec![21]);
    assert_eq!((s.core.w.cwnd, s.core.w.ssthresh), (0, 64 * MSS));
    // A(0)[21,21]: SACK contains SS_PTR: P(1)..P(20) lost, pipe 0,
    // ssthresh = 20 / 2 = 10, cwnd = 2: send P(1), P(2).
    let mut out = Vec::new();
    s.on_packet(RTO + 10, &ack(0, &[(21, 21)]), &mut out);
    assert_eq!(pkts(&out), vec![1, 2]);
    assert!(out.iter().all(|p| p.is_retransmission));
    assert_eq!((s.core.w.cwnd, s.core.w.ssthresh), (2 * MSS, 10 * MSS));
    assert_eq!(
        s.core.sb.pipe(),
        2 * MSS,
        "only the two retransmissions in flight"
    );
}

#[test]
fn dclor_7_2_timeout_due_to_pure_stalling() {
    let mut s = dclor();
    assert_eq!(twenty_in_flight_then_timeout(&mut s), vec![21]);
    let mut out = Vec::new();
    // Stale ACKs A(1)..A(20): remove data, send nothing, cwnd stays 0,
    // no RTT sample.
    for i in 1..=20 {
        s.on_packet(RTO + i, &ack(i, &[]), &mut out);
        assert!(out.is_empty(), "A({i}) sent {:?}", pkts(&out));
        assert_eq!(s.core.w.cwnd, 0);
    }
    assert_eq!(s.core.snd_una, 20 * MSS);
    assert_eq!(s.core.rtt.samples, 0);
    // A(21): pure ACK of SS_PTR: ssthresh unchanged, cwnd = 2: P(22), P(23).
    s.on_packet(RTO + 100, &ack(21, &[]), &mut out);
    assert_eq!(pkts(&out), vec![22, 23]);
    assert!(out.iter().all(|p| !p.is_retransmission));
    assert_eq!((s.core.w.cwnd, s.core.w.ssthresh), (2 * MSS, 64 * MSS));
}

#[test]
fn dclor_7_3_timeout_due_to_stalling_and_loss() {
    let mut s = dclor();
    assert_eq!(twenty_in_flight_then_timeout(&mut s), vec![21]);
    let mut out = Vec::new();
    for i in 1..=9 {
        s.on_packet(RTO + i, &ack(i, &[]), &mut out);
    }
    // P(10) lost; P(11).. arrive: A(9)[11, j], still no data sent.
    for j in 11..=20 {
        s.on_packet(RTO + j, &ack(9, &[(11, j)]), &mut out);
    }
    assert!(out.is_empty(), "{:?}", pkts(&out));
    assert_eq!(s.core.w.cwnd, 0);
    // A(9)[11,21]: SS_PTR SACKed: P(10) lost; ssthresh = 20/2 = 10,
    // cwnd = 2: recover the lost packet first, then new data.
    s.on_packet(RTO + 50, &ack(9, &[(11, 21)]), &mut out);
    assert_eq!(pkts(&out), vec![10, 22]);
    assert!(out[0].is_retransmission && !out[1].is_retransmission);
    assert_eq!((s.core.w.cwnd, s.core.w.ssthresh), (2 * MSS, 10 * MSS));
}

#[test]
fn dclor_not_invoked_without_a_sack_block_6() {
    let mut s = sender(Box::new(DclorTimeout::default()), true);
    assert!(!s.core.sack_seen);
    // Standard response: retransmit P(1), cwnd = 1, ssthresh = 20/2.
    assert_eq!(twenty_in_flight_then_timeout(&mut s), vec![1]);
    assert_eq!((s.core.w.cwnd, s.core.w.ssthresh), (MSS, 10 * MSS));
}

#[test]
fn standard_timeout_goes_back_n_in_slow_start() {
    let mut s = sender(Box::new(StandardTimeout), false);
    assert_eq!(twenty_in_flight_then_timeout(&mut s), vec![1]);
    let mut out = Vec::new();
    // A stale ACK of the stalled window: slow start retransmits P(2), P(3).
    s.on_packet(RTO + 10, &ack(1, &[]), &mut out);
    assert_eq!(pkts(&out), vec![2, 3]);
    assert!(out.iter().all(|p| p.is_retransmission));
}

/// §4.1 step 4 with no new data, the case behind DCLOR's extra redundant
/// bytes on short downloads when §6's rule is on: "If the sender does not
/// have any new data outside its retransmission queue ... the TCP sender
/// should send the highest sequence numbered MSS sized data chunk from its
/// retransmission queue (i.e., it should send the last packet from its
/// retransmission queue)", after step 3 has reset "all the SACK tag bits".
/// A 4-packet file: P(2) lost, P(3) and P(4) SACKed (two duplicate ACKs, no
/// fast retransmit). At the RTO DCLOR probes with P(4), which the receiver
/// already has; step 5 repeats it at the next expiry; the SACK for SS_PTR
/// (step 7 -> 8) finally marks P(2) lost and step 10 resends it. Standard
/// TCP with SACK (RFC 6675 §5.1) resends P(2) at the RTO.
#[test]
fn dclor_probe_without_new_data_is_the_last_packet_4_1_step_4() {
    let four_packets_p2_lost = |s: &mut TcpSender| {
        let mut out = Vec::new();
        s.start(0, &mut out);
        s.app_write(0, 4 * MSS, &mut out);
        assert_eq!(pkts(&out), vec![1, 2, 3, 4]);
        out.clear();
        s.on_packet(10, &ack(1, &[]), &mut out);
        s.on_packet(11, &ack(1, &[(3, 3)]), &mut out);
        s.on_packet(12, &ack(1, &[(3, 4)]), &mut out);
        assert!(out.is_empty(), "no fast retransmit on two duplicates");
        assert!(s.core.sack_seen);
    };
    let mut s = sender(Box::new(DclorTimeout::default()), true);
    four_packets_p2_lost(&mut s);
    let mut out = Vec::new();
    let first = s.next_deadline().unwrap();
    s.on_timer(first, &mut out);
    assert_eq!(pkts(&out), vec![4], "step 4: the last packet, not P(2)");
    assert!(out[0].is_retransmission);
    assert_eq!((s.core.w.cwnd, s.core.w.ssthresh), (0, 64 * MSS), "step 2");
    // Step 5: the probe's ACK is late (a stall); the next expiry repeats
    // steps 2-4.
    out.clear();
    let second = s.next_deadline().unwrap();
    assert!(second > first);
    s.on_timer(second, &mut out);
    assert_eq!(pkts(&out), vec![4]);
    // Steps 7 -> 8 -> 10: A(1)[3,4] contains SS_PTR: P(2) is lost; N (the
    // pipe at the first timeout) was P(2) alone, so ssthresh = 2 SMSS (RFC
    // 5681's floor); cwnd = 2 and the lowest lost packet goes first.
    out.clear();
    s.on_packet(second + 10, &ack(1, &[(3, 4)]), &mut out);
    assert_eq!(pkts(&out), vec![2]);
    assert_eq!((s.core.w.cwnd, s.core.w.ssthresh), (2 * MSS, 2 * MSS));

    let mut std = sender(Box::new(StandardTimeout), true);
    four_packets_p2_lost(&mut std);
    out.clear();
    let t = std.next_deadline().unwrap();
    std.on_timer(t, &mut out);
    assert_eq!(
        pkts(&out),
        vec![2],
        "standard TCP with SACK resends the hole"
    );
}

/// §4.1 step 1: "If the timeout occurs before the 3 way handshake is
/// complete, the TCP sender's behavior is unchanged": a lost SYN is
/// retransmitted (RFC 6298 (5.7)), no probe, cwnd untouched.
#[test]
fn dclor_leaves_a_syn_timeout_alone_4_1_step_1() {
    let mut s = sender_with_handshake(Box::new(DclorTimeout::new(false)), true, true);
    let mut out = Vec::new();
    s.start(0, &mut out);
    s.app_write(0, 10 * MSS, &mut out);
    assert_eq!(out.len(), 1);
    assert!(out[0].has_flag(flags::SYN) && out[0].payload_len == 0);
    out.clear();
    let t = s.next_deadline().unwrap();
    s.on_timer(t, &mut out);
    assert_eq!(out.len(), 1, "one SYN again");
    assert!(out[0].has_flag(flags::SYN) && out[0].payload_len == 0);
    assert_eq!(s.core.w.cwnd, 20 * MSS, "the initial window, not DCLOR's 0");
}
