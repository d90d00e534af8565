//! Timeout responses driven packet by packet (sans-I/O): DCLOR's three
//! worked examples (draft-swami-tsvwg-tcp-dclor-00 §7) as exact traces,
//! Eifel (RFC 3522 detection, RFC 4015 response) and F-RTO (RFC 5682).
//!
//! Packets are numbered as in the draft: P(i) is the segment starting at
//! (i - 1) * MSS; A(i) acknowledges P(1)..P(i).

use airtcp_core::net::packet::{flags, Packet, PacketKind, SackBlock};
use airtcp_core::tcp::cc::RenoCc;
use airtcp_core::tcp::classify::AlwaysCongestion;
use airtcp_core::tcp::recovery::{NewRenoRecovery, SackRecovery};
use airtcp_core::tcp::rto::{
    DclorTimeout, EifelTimeout, FrtoTimeout, StandardTimeout, TimeoutResponse,
};
use airtcp_core::tcp::rtt::RtoConfig;
use airtcp_core::tcp::sender::{SenderConfig, TcpSender};

const MSS: u64 = 1000;
const RTO: u64 = 1_000_000_000;

fn sender(timeout: Box<dyn TimeoutResponse>, sack: bool, timestamps: bool) -> TcpSender {
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
        timestamps,
        ecn: false,
        mecn: false,
        handshake: false,
        dupthresh: 3,
        restart_rto_on_fast_retransmit: true,
        trace: false,
        ..SenderConfig::default()
    };
    let recovery: Box<dyn airtcp_core::tcp::recovery::LossRecovery> = if sack {
        Box::new(SackRecovery)
    } else {
        Box::new(NewRenoRecovery::default())
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

/// A(i) with SACK blocks given as packet ranges [x, y] (inclusive), and
/// optionally a timestamp echo.
fn ack(i: u64, sacks: &[(u64, u64)], ts_ecr: Option<u64>) -> Packet {
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
    if let Some(e) = ts_ecr {
        p.has_ts = true;
        p.ts_val = 1;
        p.ts_ecr = e;
    }
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
    let mut s = sender(Box::new(DclorTimeout::default()), true, false);
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
    s.on_packet(RTO + 10, &ack(0, &[(21, 21)], None), &mut out);
    assert_eq!(pkts(&out), vec![1, 2]);
    assert!(out.iter().all(|p| p.is_retransmission));
    assert_eq!((s.core.w.cwnd, s.core.w.ssthresh), (2 * MSS, 10 * MSS));
    assert_eq!(
        s.core.sb.pipe(s.core.high_rxt),
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
        s.on_packet(RTO + i, &ack(i, &[], None), &mut out);
        assert!(out.is_empty(), "A({i}) sent {:?}", pkts(&out));
        assert_eq!(s.core.w.cwnd, 0);
    }
    assert_eq!(s.core.snd_una, 20 * MSS);
    assert_eq!(s.core.rtt.samples, 0);
    // A(21): pure ACK of SS_PTR: ssthresh unchanged, cwnd = 2: P(22), P(23).
    s.on_packet(RTO + 100, &ack(21, &[], None), &mut out);
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
        s.on_packet(RTO + i, &ack(i, &[], None), &mut out);
    }
    // P(10) lost; P(11).. arrive: A(9)[11, j], still no data sent.
    for j in 11..=20 {
        s.on_packet(RTO + j, &ack(9, &[(11, j)], None), &mut out);
    }
    assert!(out.is_empty(), "{:?}", pkts(&out));
    assert_eq!(s.core.w.cwnd, 0);
    // A(9)[11,21]: SS_PTR SACKed: P(10) lost; ssthresh = 20/2 = 10,
    // cwnd = 2: recover the lost packet first, then new data.
    s.on_packet(RTO + 50, &ack(9, &[(11, 21)], None), &mut out);
    assert_eq!(pkts(&out), vec![10, 22]);
    assert!(out[0].is_retransmission && !out[1].is_retransmission);
    assert_eq!((s.core.w.cwnd, s.core.w.ssthresh), (2 * MSS, 10 * MSS));
}

#[test]
fn dclor_not_invoked_without_a_sack_block_6() {
    let mut s = sender(Box::new(DclorTimeout::default()), true, false);
    assert!(!s.core.sack_seen);
    // Standard response: retransmit P(1), cwnd = 1, ssthresh = 20/2.
    assert_eq!(twenty_in_flight_then_timeout(&mut s), vec![1]);
    assert_eq!((s.core.w.cwnd, s.core.w.ssthresh), (MSS, 10 * MSS));
}

#[test]
fn standard_timeout_goes_back_n_in_slow_start() {
    let mut s = sender(Box::new(StandardTimeout), false, false);
    assert_eq!(twenty_in_flight_then_timeout(&mut s), vec![1]);
    let mut out = Vec::new();
    // A stale ACK of the stalled window: slow start retransmits P(2), P(3).
    s.on_packet(RTO + 10, &ack(1, &[], None), &mut out);
    assert_eq!(pkts(&out), vec![2, 3]);
    assert!(out.iter().all(|p| p.is_retransmission));
}

#[test]
fn eifel_detects_a_spurious_timeout_and_restores_the_window() {
    let mut s = sender(Box::new(EifelTimeout::default()), false, true);
    assert_eq!(twenty_in_flight_then_timeout(&mut s), vec![1]);
    // The first ACK after the retransmission echoes P(1)'s original
    // timestamp (sent at t = 0): RFC 3522 declares the timeout spurious.
    let mut out = Vec::new();
    s.on_packet(RTO + 10, &ack(1, &[], Some(1)), &mut out);
    assert_eq!(s.core.stats.spurious_timeouts_detected, 1);
    // RFC 4015: no go-back-N: new data (P(21)...) instead of P(2);
    // ssthresh = pipe_prev = max(FlightSize 20, ssthresh 64) = 64;
    // cwnd = FlightSize + min(bytes_acked, IW) = 19 + 1 = 20 segments.
    assert_eq!((s.core.w.cwnd, s.core.w.ssthresh), (20 * MSS, 64 * MSS));
    assert_eq!(pkts(&out), vec![21]);
    assert!(out.iter().all(|p| !p.is_retransmission));
}

#[test]
fn eifel_leaves_a_genuine_timeout_alone() {
    let mut s = sender(Box::new(EifelTimeout::default()), false, true);
    assert_eq!(twenty_in_flight_then_timeout(&mut s), vec![1]);
    // The ACK echoes the retransmission's timestamp (sent at RTO): genuine.
    let mut out = Vec::new();
    s.on_packet(RTO + 10, &ack(1, &[], Some(RTO)), &mut out);
    assert_eq!(s.core.stats.spurious_timeouts_detected, 0);
    assert_eq!(pkts(&out), vec![2, 3], "go-back-N slow start");
    assert_eq!(s.core.w.ssthresh, 10 * MSS);
}

fn frto(sack: bool) -> TcpSender {
    sender(Box::new(FrtoTimeout::new(sack)), sack, false)
}

#[test]
fn frto_basic_spurious_after_two_advancing_acks() {
    let mut s = frto(false);
    assert_eq!(twenty_in_flight_then_timeout(&mut s), vec![1]);
    let mut out = Vec::new();
    // Step 2b: the window advances below "recover": two NEW segments.
    s.on_packet(RTO + 10, &ack(1, &[], None), &mut out);
    assert_eq!(pkts(&out), vec![21, 22]);
    out.clear();
    // Step 3b: the next ACK advances the window too: spurious.
    s.on_packet(RTO + 20, &ack(2, &[], None), &mut out);
    assert_eq!(s.core.stats.spurious_timeouts_detected, 1);
    assert!(
        out.iter().all(|p| !p.is_retransmission),
        "no go-back-N: {:?}",
        pkts(&out)
    );
    assert_eq!(s.core.w.ssthresh, 64 * MSS);
}

#[test]
fn frto_basic_genuine_on_duplicate_ack_after_new_data() {
    let mut s = frto(false);
    twenty_in_flight_then_timeout(&mut s);
    let mut out = Vec::new();
    s.on_packet(RTO + 10, &ack(1, &[], None), &mut out);
    assert_eq!(pkts(&out), vec![21, 22]);
    out.clear();
    // Step 3a: a duplicate ACK: genuine; cwnd = 3 MSS, conventional
    // retransmissions from the first unacknowledged segment.
    s.on_packet(RTO + 20, &ack(1, &[], None), &mut out);
    assert_eq!(s.core.stats.spurious_timeouts_detected, 0);
    assert_eq!(s.core.w.cwnd, 3 * MSS);
    assert_eq!(pkts(&out), vec![2, 3, 4]);
}

#[test]
fn frto_basic_reverts_on_duplicate_first_ack() {
    let mut s = frto(false);
    twenty_in_flight_then_timeout(&mut s);
    let mut out = Vec::new();
    // Step 2a: the first ACK is a duplicate: conventional recovery, no
    // new data.
    s.on_packet(RTO + 10, &ack(0, &[], None), &mut out);
    assert!(out.iter().all(|p| p.seq < 20 * MSS));
    s.on_packet(RTO + 20, &ack(1, &[], None), &mut out);
    assert_eq!(pkts(&out), vec![2, 3]);
    assert_eq!(s.core.stats.spurious_timeouts_detected, 0);
}

#[test]
fn frto_sack_waits_through_duplicates_then_detects() {
    let mut s = frto(true);
    twenty_in_flight_then_timeout(&mut s);
    let mut out = Vec::new();
    // §3 step 2: a duplicate ACK with SACK info: note it, stay in step 2.
    s.on_packet(RTO + 5, &ack(0, &[(3, 3)], None), &mut out);
    assert!(out.is_empty());
    s.on_packet(RTO + 10, &ack(2, &[(3, 3)], None), &mut out);
    assert_eq!(pkts(&out), vec![21, 22]);
    out.clear();
    s.on_packet(RTO + 20, &ack(4, &[], None), &mut out);
    assert_eq!(s.core.stats.spurious_timeouts_detected, 1);
}

#[test]
fn frto_sack_genuine_when_new_data_is_sacked_above_a_hole() {
    let mut s = frto(true);
    twenty_in_flight_then_timeout(&mut s);
    let mut out = Vec::new();
    s.on_packet(RTO + 10, &ack(1, &[], None), &mut out);
    assert_eq!(pkts(&out), vec![21, 22]);
    out.clear();
    // The new segments arrive, P(2).. did not: SACK above "recover".
    s.on_packet(RTO + 20, &ack(1, &[(21, 21)], None), &mut out);
    assert_eq!(s.core.stats.spurious_timeouts_detected, 0);
    assert_eq!(s.core.w.cwnd, 3 * MSS);
    assert_eq!(
        pkts(&out)[0],
        2,
        "conventional retransmission from P(2): {:?}",
        pkts(&out)
    );
}

#[test]
fn eifel_keeps_the_first_retransmission_timestamp_across_backoffs() {
    // A long stall: the RTO expires twice (1 s, then 2 s later) before the
    // stalled window's ACKs return. RFC 3522 compares against the first
    // retransmission's timestamp, so the timeout is still found spurious.
    let mut s = sender(Box::new(EifelTimeout::default()), false, true);
    assert_eq!(twenty_in_flight_then_timeout(&mut s), vec![1]);
    let mut out = Vec::new();
    let second = s.next_deadline().unwrap();
    assert_eq!(second, RTO + 2 * RTO);
    s.on_timer(second, &mut out);
    assert_eq!(pkts(&out), vec![1]);
    out.clear();
    // The original P(1)'s ACK (TSecr = its send time, 0... echoed as 1).
    s.on_packet(second + 10, &ack(1, &[], Some(1)), &mut out);
    assert_eq!(s.core.stats.spurious_timeouts_detected, 1);
    assert!(
        out.iter().all(|p| !p.is_retransmission),
        "no go-back-N: {:?}",
        pkts(&out)
    );
}
