//! Simulation kernel: integer-nanosecond time, the event queue and the
//! per-component random streams.

pub mod events;
pub mod prefetch;
pub mod rng;

/// Simulated time in nanoseconds since the start of the run.
pub type TimeNs = u64;

pub const NS_PER_US: u64 = 1_000;
pub const NS_PER_MS: u64 = 1_000_000;
pub const NS_PER_S: u64 = 1_000_000_000;

/// Seconds as f64, for reports only (never for simulation arithmetic).
pub fn ns_to_s(t_ns: TimeNs) -> f64 {
    t_ns as f64 / NS_PER_S as f64
}

/// Seconds to nanoseconds, rounded to the nearest nanosecond.
pub fn s_to_ns(t_s: f64) -> TimeNs {
    (t_s * NS_PER_S as f64).round().max(0.0) as TimeNs
}

/// Whether a transmission that starts at `start_ns` happens within a run
/// that ends at `end_ns`. A link computes each packet's start when it
/// admits it, possibly after the end: such a packet only waits within the
/// run. One that starts by the end (on the air then, or starting exactly
/// at it) is transmitted within the run, and its loss on the channel
/// happens in it. The trace (its `dequeue` and channel `drop` rows), the
/// channel-loss counters and the captures' drop comments all follow this
/// rule; `LinkDir::finish` cuts the busy time at the end to match.
#[inline]
pub fn starts_within_run(start_ns: TimeNs, end_ns: TimeNs) -> bool {
    start_ns <= end_ns
}

/// Time to serialise `bytes` on a link of `rate_bps`, rounded up to a whole ns
/// so that a link is never faster than its nominal rate.
pub fn tx_time_ns(bytes: u32, rate_bps: u64) -> TimeNs {
    let bits = bytes as u128 * 8 * NS_PER_S as u128;
    bits.div_ceil(rate_bps as u128) as TimeNs
}
