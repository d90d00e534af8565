//! RFC 5682, F-RTO: the basic algorithm (§2, steps 1-3) and the
//! SACK-enhanced one (§3, steps 1-3), one test per branch, scripted
//! sans-I/O (`tests/common/script.rs`). Ten segments in flight when the
//! RTO fires; `recover` / RecoveryPoint is then segment 10.

mod common;
use airtcp_core::tcp::rto::FrtoTimeout;
use common::script::*;

fn frto(sack: bool) -> Script {
    let recovery = if sack {
        Recovery::Sack
    } else {
        Recovery::NewReno
    };
    Script::with_timeout(config(10), recovery, Box::new(FrtoTimeout::new(sack)))
}

/// Ten in flight, the RTO fires: step 1 retransmits the first segment only.
fn timed_out(sack: bool, segments: u64) -> Script {
    let mut sc = frto(sack);
    sc.start(segments);
    assert_eq!(sc.timeout(), "r0", "step 1");
    assert_eq!(sc.recover(), Some(10));
    sc
}

fn spurious(sc: &Script) -> u64 {
    sc.s.core.stats.spurious_timeouts_detected
}

// ---- §2, basic F-RTO ----

/// §2 step 2b then 3b: the first ACK advances the window below `recover`:
/// two new segments; the second advances it too: spurious, SpuriousRecovery
/// = SPUR_TO, `recover` = SND.UNA; the Eifel response (RFC 4015) resumes
/// with new data and restores ssthresh.
#[test]
fn basic_step2b_then_step3b_spurious() {
    let mut sc = timed_out(false, 100);
    assert_eq!(sc.ack(1, &[]), "10 11", "step 2b");
    let out = sc.ack(2, &[]);
    assert_eq!(spurious(&sc), 1, "step 3b");
    assert!(!out.contains('r'), "no go-back-N: {out}");
    assert_eq!(sc.ssthresh(), 64.0);
    assert_eq!(sc.recover(), Some(1), "recover = SND.UNA");
}

/// §2 step 3b, issue 10 defect 1: with `recover` at SND.UNA, a later loss
/// in the same window is fast-retransmitted.
#[test]
fn basic_step3b_then_a_loss_is_fast_retransmitted() {
    let mut sc = timed_out(false, 100);
    sc.ack(1, &[]);
    sc.ack(2, &[]);
    sc.ack(5, &[]);
    let out = sc.dupacks(5, 7);
    assert_eq!(sc.s.core.stats.fast_retransmits, 1, "{out}");
    assert!(out.starts_with("r5"), "{out}");
}

/// §2 step 3a: the second ACK is a duplicate: genuine; cwnd = 3 MSS and
/// slow-start retransmissions of the unacknowledged segments.
#[test]
fn basic_step3a_duplicate_ack_is_genuine() {
    let mut sc = timed_out(false, 100);
    assert_eq!(sc.ack(1, &[]), "10 11");
    assert_eq!(sc.ack(1, &[]), "r1 r2 r3");
    assert_eq!(sc.cwnd(), 3.0);
    assert_eq!(spurious(&sc), 0);
}

/// §2 step 2a: the first ACK is a duplicate: conventional recovery.
#[test]
fn basic_step2a_duplicate_ack_reverts() {
    let mut sc = timed_out(false, 100);
    assert_eq!(sc.ack(0, &[]), "");
    assert_eq!(sc.ack(1, &[]), "r1 r2", "slow-start retransmissions");
    assert_eq!(spurious(&sc), 0);
}

/// §2 step 2a: the first ACK covers `recover`: conventional recovery (no
/// step 3: the next advancing ACK is no evidence).
#[test]
fn basic_step2a_ack_covering_recover_reverts() {
    let mut sc = timed_out(false, 100);
    assert_eq!(sc.ack(10, &[]), "10 11");
    sc.ack(11, &[]);
    assert_eq!(spurious(&sc), 0);
    assert_eq!(sc.ssthresh(), 5.0);
}

/// §2 step 2a: the first ACK does not acknowledge all of the retransmitted
/// segment: conventional recovery.
#[test]
fn basic_step2a_partial_ack_of_the_retransmission_reverts() {
    let mut sc = timed_out(false, 100);
    let mut a = ack(0, &[]);
    a.ack = MSS / 2;
    sc.deliver(&a);
    sc.ack(2, &[]);
    assert_eq!(spurious(&sc), 0);
}

/// §2 step 2b, no new data to send: conventional recovery.
#[test]
fn basic_step2b_without_new_data_reverts() {
    let mut sc = timed_out(false, 10);
    assert_eq!(sc.ack(1, &[]), "r1 r2");
    sc.ack(2, &[]);
    assert_eq!(spurious(&sc), 0);
}

/// §2 step 1: a timeout while already in RTO recovery (here F-RTO's own,
/// `recover` >= SND.UNA) is handled conventionally.
#[test]
fn basic_step1_timeout_in_rto_recovery_is_conventional() {
    let mut sc = timed_out(false, 100);
    assert_eq!(sc.timeout(), "r0");
    assert_eq!(sc.ack(1, &[]), "r1 r2", "go-back-N, not new data");
}

// ---- §3, SACK-enhanced F-RTO ----

/// §3 step 1: not while a SACK recovery is in progress (RecoveryPoint >=
/// SND.UNA): conventional RTO recovery with RecoveryPoint = HighData.
#[test]
fn sack_step1_not_during_sack_fast_recovery() {
    let mut sc = frto(true);
    sc.start(100);
    sc.ack(0, &[(1, 1)]);
    sc.ack(0, &[(1, 2)]);
    assert_eq!(sc.ack(0, &[(1, 3)]), "r0");
    assert_eq!(sc.timeout(), "r0");
    // The retransmission arrives: conventional recovery retransmits the
    // holes instead of sending two new segments.
    assert_eq!(sc.ack(4, &[]), "r4 r5");
    assert_eq!(sc.recover(), Some(10));
}

/// §3 step 1: "reset the SACK scoreboard".
#[test]
fn sack_step1_resets_the_scoreboard() {
    let mut sc = frto(true);
    sc.start(100);
    sc.ack(0, &[(2, 3)]);
    assert_eq!(sc.s.core.sb.sacked_bytes(), 2 * MSS);
    assert_eq!(sc.timeout(), "r0");
    assert_eq!(sc.s.core.sb.sacked_bytes(), 0);
}

/// §3 step 2: duplicate ACKs before the retransmission's ACK update the
/// scoreboard and keep waiting; then step 2b and a 3b detection.
#[test]
fn sack_step2_waits_through_duplicates() {
    let mut sc = timed_out(true, 100);
    assert_eq!(sc.ack(0, &[(2, 2)]), "");
    assert_eq!(sc.s.core.sb.sacked_bytes(), MSS);
    assert_eq!(sc.ack(1, &[(2, 2)]), "10 11");
    sc.ack(3, &[]);
    assert_eq!(spurious(&sc), 1);
}

/// §3 step 2a: the cumulative ACK covers RecoveryPoint: conventional, cwnd
/// no more than 2 MSS.
#[test]
fn sack_step2a_covering_recovery_point_reverts() {
    let mut sc = timed_out(true, 100);
    assert_eq!(sc.ack(10, &[]), "10 11");
    assert_eq!(sc.cwnd(), 2.0);
    sc.ack(11, &[]);
    assert_eq!(spurious(&sc), 0);
}

/// §3 step 3a: SACK information above RecoveryPoint (the new segments
/// arrived, data below it did not): genuine, cwnd 3 MSS, retransmissions.
#[test]
fn sack_step3a_sack_above_recovery_point_is_genuine() {
    let mut sc = timed_out(true, 100);
    assert_eq!(sc.ack(1, &[]), "10 11");
    assert_eq!(sc.ack(1, &[(10, 10)]), "r1 r2");
    assert_eq!(sc.cwnd(), 3.0);
    assert_eq!(spurious(&sc), 0);
}

/// §3 step 3a: a cumulative ACK covering more than RecoveryPoint: genuine.
#[test]
fn sack_step3a_cumulative_ack_beyond_recovery_point_is_genuine() {
    let mut sc = timed_out(true, 100);
    assert_eq!(sc.ack(1, &[]), "10 11");
    sc.ack(11, &[]);
    assert_eq!(spurious(&sc), 0);
    assert_eq!(sc.cwnd(), 3.0);
}

/// §3 step 3a: a duplicate ACK that acknowledges nothing new below
/// RecoveryPoint: genuine.
#[test]
fn sack_step3a_duplicate_without_new_information_is_genuine() {
    let mut sc = timed_out(true, 100);
    assert_eq!(sc.ack(1, &[]), "10 11");
    // cwnd 3, pipe 2 (the new segments; the rest is deemed lost): one
    // retransmission.
    assert_eq!(sc.ack(1, &[]), "r1");
    assert_eq!(spurious(&sc), 0);
    assert_eq!(sc.cwnd(), 3.0);
}

/// §3 step 3b: a duplicate ACK that newly SACKs data below RecoveryPoint
/// (sent before the timeout): spurious.
#[test]
fn sack_step3b_duplicate_newly_sacking_below_recovery_point_is_spurious() {
    let mut sc = timed_out(true, 100);
    assert_eq!(sc.ack(1, &[]), "10 11");
    let out = sc.ack(1, &[(3, 3)]);
    assert_eq!(spurious(&sc), 1, "{out}");
    assert!(!out.contains('r'), "no retransmission: {out}");
}

/// §3 step 3b: a cumulative ACK below RecoveryPoint: spurious.
#[test]
fn sack_step3b_advancing_ack_below_recovery_point_is_spurious() {
    let mut sc = timed_out(true, 100);
    assert_eq!(sc.ack(1, &[]), "10 11");
    sc.ack(2, &[]);
    assert_eq!(spurious(&sc), 1);
    assert_eq!(sc.recover(), Some(1), "RecoveryPoint = SND.UNA");
}

// ---- §4, the response: RFC 4015 ----

/// §4 with RFC 4015 §3.1 step (5), without timestamps: the RTO adaptation
/// uses the first measurement of data sent after the timeout, here the
/// timed segment 12, sent by step 2b. SRTT 300 ms and RTTVAR 150 ms before
/// the timeout (SRTT_prev = 302 ms with G = 1 ms); segment 12 leaves at
/// 1.251 s and is acknowledged at 1.451 s: m = 200 ms, SRTT = max(302,
/// 200), RTTVAR = max(150, 100), RTO = 302 + 4 * 150 = 902 ms, and the
/// timer this ACK restarts (RFC 6298 (5.3)) runs with it.
#[test]
fn s4_eifel_response_reseeds_the_rto_from_the_first_new_measurement() {
    const MS: u64 = 1_000_000;
    let mut cfg = config(10);
    cfg.rto.min_rto_ns = 10 * MS;
    let mut sc = Script::with_timeout(cfg, Recovery::NewReno, Box::new(FrtoTimeout::new(false)));
    sc.start(100);
    assert_eq!(sc.ack_at(301 * MS, 1), "10 11");
    assert_eq!(sc.s.core.rtt.rto_ns(), 900 * MS);
    assert_eq!(sc.timeout(), "r1");
    assert_eq!(sc.ack_at(1251 * MS, 2), "12 13", "step 2b");
    sc.ack_at(1261 * MS, 3);
    assert_eq!(spurious(&sc), 1, "step 3b");
    sc.ack_at(1271 * MS, 12);
    sc.ack_at(1451 * MS, 13);
    let r = &sc.s.core.rtt;
    assert_eq!(
        (r.srtt_ns(), r.rttvar_ns(), r.rto_ns()),
        (Some(302 * MS), 150 * MS, 902 * MS)
    );
    assert_eq!(sc.s.core.rto_deadline, Some(1451 * MS + 902 * MS));
}

/// RFC 5681 §3.1 (4) after step 3b: the Eifel response undoes the
/// timeout's go-back-N, so the timer resent segment 0 alone. Segment 2,
/// never resent, then expires before any fresh RTT sample (the backoff
/// stands): "the given segment has not yet been resent by way of the
/// retransmission timer", so ssthresh = FlightSize / 2 = 5.5 SMSS
/// (segments 2-12 in flight), not the restored 64 SMSS held.
#[test]
fn step3b_then_an_expiry_of_a_segment_never_resent_sets_ssthresh() {
    let mut sc = timed_out(false, 100);
    assert_eq!(sc.ack(1, &[]), "10 11", "step 2b");
    assert_eq!(sc.ack(2, &[]), "12", "step 3b");
    assert_eq!(sc.window(), (11.0, 64.0));
    assert_eq!(sc.timeout(), "r2");
    assert_eq!(sc.window(), (1.0, 5.5));
}
