//! Scripted exchanges: one sender, one 10 Mb/s link with a 20.8 ms RTT, no
//! delayed ACKs, slow start from one segment to ssthresh = 16 segments, and
//! chosen data packets dropped. Each test asserts the exact retransmissions
//! and the (cwnd, ssthresh) trajectory, in segments, that the RFC gives.
//!
//! With initial ssthresh 16 the window is 16 segments when segment 19 (the
//! 20th data packet) is sent, so FlightSize at the third duplicate ACK is 16
//! segments (19..34) and RFC 5681 (4) gives ssthresh = 8.

mod common;
use airtcp_core::tcp::sender::TraceEvent;
use common::*;

const RENO: &str = r#"variant = "reno""#;
const NEWRENO: &str = r#"variant = "newreno""#;
const SACK: &str = r#"variant = "newreno", sack = true"#;
const TAHOE: &str = r#"variant = "tahoe""#;

struct Outcome {
    rtx: Vec<u64>,
    windows: Vec<(f64, f64)>,
    fast_retransmits: u64,
    timeouts: u64,
    rtx_times_ms: Vec<f64>,
}

fn run(tcp: &str, drops: &[u64]) -> Outcome {
    let (w, r) = run_world(&scripted(tcp, 60, drops), None);
    let s = w.tcp_sender(0).unwrap();
    dump(s);
    let f = &r.flows[0];
    assert_eq!(f.transfers_completed, 1, "transfer must complete");
    assert_eq!(f.delivered_bytes, 60_000);
    let rtx_times_ms = s
        .core
        .trace
        .iter()
        .filter(|(_, e)| {
            matches!(
                e,
                TraceEvent::Send {
                    retransmission: true,
                    ..
                }
            )
        })
        .map(|(t, _)| *t as f64 / 1e6)
        .collect();
    Outcome {
        rtx: retransmissions(s),
        windows: windows(s),
        fast_retransmits: f.fast_retransmits,
        timeouts: f.timeouts,
        rtx_times_ms,
    }
}

// ---- one loss in a window: every variant retransmits it once ----

#[test]
fn reno_one_loss_rfc5681_3_2() {
    let o = run(RENO, &[20]);
    assert_eq!(o.rtx, vec![19]);
    assert_eq!((o.fast_retransmits, o.timeouts), (1, 0));
    // Step 3: cwnd = ssthresh + 3; step 6: deflate to ssthresh.
    assert_eq!(o.windows, vec![(11.0, 8.0), (8.0, 8.0)]);
}

#[test]
fn newreno_one_loss_rfc6582() {
    let o = run(NEWRENO, &[20]);
    assert_eq!(o.rtx, vec![19]);
    assert_eq!((o.fast_retransmits, o.timeouts), (1, 0));
    // Full ACK: cwnd = min(ssthresh, max(FlightSize, SMSS) + SMSS) = 8.
    assert_eq!(o.windows, vec![(11.0, 8.0), (8.0, 8.0)]);
}

#[test]
fn sack_one_loss_rfc6675() {
    let o = run(SACK, &[20]);
    assert_eq!(o.rtx, vec![19]);
    assert_eq!((o.fast_retransmits, o.timeouts), (1, 0));
    // RFC 6675 §5 (4.2): cwnd = ssthresh, no inflation; unchanged at exit.
    assert_eq!(o.windows, vec![(8.0, 8.0), (8.0, 8.0)]);
}

#[test]
fn tahoe_one_loss_slow_starts() {
    let o = run(TAHOE, &[20]);
    assert_eq!(o.rtx, vec![19]);
    assert_eq!((o.fast_retransmits, o.timeouts), (1, 0));
    assert_eq!(o.windows, vec![(1.0, 8.0)]);
}

// ---- three losses in one window (segments 19, 21, 23) ----

#[test]
fn sack_three_losses_recovers_all_in_one_rtt_without_timeout() {
    let o = run(SACK, &[20, 22, 24]);
    assert_eq!(o.rtx, vec![19, 21, 23]);
    assert_eq!((o.fast_retransmits, o.timeouts), (1, 0));
    assert_eq!(o.windows, vec![(8.0, 8.0), (8.0, 8.0)]);
    // IsLost() marks 21 and 23 as SACK blocks arrive: all three go out
    // within one RTT (20.8 ms) of the fast retransmit.
    let span = o.rtx_times_ms[2] - o.rtx_times_ms[0];
    assert!(span < 20.8, "retransmissions spread over {span} ms");
}

#[test]
fn newreno_three_losses_one_per_partial_ack_without_timeout() {
    let o = run(NEWRENO, &[20, 22, 24]);
    assert_eq!(o.rtx, vec![19, 21, 23]);
    assert_eq!((o.fast_retransmits, o.timeouts), (1, 0));
    // One retransmission per partial ACK: exactly one RTT apart.
    let rtt = 20.864;
    assert!(
        (o.rtx_times_ms[1] - o.rtx_times_ms[0] - rtt).abs() < 1e-6,
        "{:?}",
        o.rtx_times_ms
    );
    assert!(
        (o.rtx_times_ms[2] - o.rtx_times_ms[1] - rtt).abs() < 1e-6,
        "{:?}",
        o.rtx_times_ms
    );
    // ssthresh is set once; the full ACK leaves cwnd = ssthresh.
    assert_eq!(o.windows, vec![(11.0, 8.0), (8.0, 8.0)]);
}

#[test]
fn reno_three_losses_halves_twice_then_times_out() {
    // RFC 5681 Reno leaves fast recovery on the first (partial) new ACK.
    // The five segments sent while cwnd was inflated give three duplicate
    // ACKs for 21: a second fast retransmit with ssthresh = FlightSize/2 =
    // 19/2. Segment 23 then gets too few duplicate ACKs and waits for the
    // RTO (1 s minimum): the classic Reno outcome (Fall & Floyd 1996).
    let o = run(RENO, &[20, 22, 24]);
    assert_eq!(o.rtx, vec![19, 21, 23]);
    assert_eq!((o.fast_retransmits, o.timeouts), (2, 1));
    assert_eq!(
        o.windows,
        vec![(11.0, 8.0), (8.0, 8.0), (12.5, 9.5), (9.5, 9.5), (1.0, 8.5)]
    );
    assert!(o.rtx_times_ms[2] - o.rtx_times_ms[1] >= 1000.0);
}

#[test]
fn tahoe_three_losses_go_back_n() {
    let o = run(TAHOE, &[20, 22, 24]);
    // Slow start from one segment, resending from snd_una: 22 and 24 are
    // resent although they had arrived (Tahoe has no SACK information).
    assert_eq!(o.rtx, vec![19, 21, 22, 23, 24, 25]);
    assert_eq!((o.fast_retransmits, o.timeouts), (1, 0));
}

#[test]
fn lost_retransmission_needs_a_timeout_with_backoff() {
    // Segment 19 and its fast retransmission (the 36th data packet: 35
    // first transmissions of 0..34, then the retransmission) are both lost.
    let o = run(NEWRENO, &[20, 36]);
    assert_eq!(o.rtx[..2], [19, 19]);
    assert_eq!(o.timeouts, 1);
    // RFC 5681 (4) after the timeout: ssthresh = FlightSize / 2 with the
    // flight at expiry, and cwnd = 1 (the loss window).
    assert_eq!(o.windows[0], (11.0, 8.0));
    assert_eq!(o.windows[1].0, 1.0);
}
