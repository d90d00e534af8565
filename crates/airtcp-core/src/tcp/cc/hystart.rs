//! HyStart++, RFC 9406: a modified slow start for any controller whose
//! slow start is RFC 5681's (all of `cc/`). The sender core
//! (`SenderCore::grow_window`) hands it each ACK that would grow the window
//! in slow start; it answers whether it took the ACK, and if not the
//! controller's own `on_ack` runs (congestion avoidance, or any slow start
//! after the first).
//!
//! * §4.2 rounds: windowEnd = SND.NXT; a round ends when the cumulative
//!   ACK reaches windowEnd (all data sent before the round began is
//!   acknowledged) and the next starts with windowEnd = SND.NXT. The first
//!   round starts at the first ACK that grows the window, so it is the
//!   initial window's flight. The ACK that ends a round is counted in it
//!   (its sample measures a segment of that round's flight).
//! * §4.2 per-round minimum RTT over the ACKs that carried an RTT sample
//!   (`RttEstimator::samples` moved): currentRoundMinRTT, rttSampleCount;
//!   at a round's start lastRoundMinRTT = currentRoundMinRTT,
//!   currentRoundMinRTT = infinity, rttSampleCount = 0.
//! * §4.2 slow start: cwnd += min(N, L * SMSS); once rttSampleCount >=
//!   N_RTT_SAMPLE with both minima known, RttThresh = max(MIN_RTT_THRESH,
//!   min(lastRoundMinRTT / MIN_RTT_DIVISOR, MAX_RTT_THRESH)), and
//!   currentRoundMinRTT >= lastRoundMinRTT + RttThresh enters Conservative
//!   Slow Start (CSS) with cssBaselineMinRtt = currentRoundMinRTT.
//! * §4.2 CSS: cwnd += min(N, L * SMSS) / CSS_GROWTH_DIVISOR (the bytes
//!   below one kept for the next ACK); once rttSampleCount >= N_RTT_SAMPLE,
//!   currentRoundMinRTT < cssBaselineMinRtt resumes slow start (baseline =
//!   infinity); CSS lasts at most CSS_ROUNDS rounds, the partial round it
//!   began in counting, and then ssthresh = cwnd (congestion avoidance).
//! * §4.3 constants: the RECOMMENDED values; L = 8 since airtcp does not
//!   pace.
//! * Only the initial slow start (§4.3's SHOULD): HyStart++ acts while
//!   ssthresh still holds its initial value. A loss or ECN-Echo gets the
//!   controller's ordinary response, which sets ssthresh, so every later
//!   slow start is RFC 5681's. The sender calls no controller during loss
//!   recovery or on an ECN-Echo ACK, so neither reaches HyStart++.

use super::Window;
use crate::sim::{TimeNs, NS_PER_MS};
use crate::tcp::rtt::RttEstimator;

/// §4.3 MIN_RTT_THRESH.
pub const MIN_RTT_THRESH_NS: TimeNs = 4 * NS_PER_MS;
/// §4.3 MAX_RTT_THRESH.
pub const MAX_RTT_THRESH_NS: TimeNs = 16 * NS_PER_MS;
/// §4.3 MIN_RTT_DIVISOR.
pub const MIN_RTT_DIVISOR: u64 = 8;
/// §4.3 N_RTT_SAMPLE.
pub const N_RTT_SAMPLE: u32 = 8;
/// §4.3 CSS_GROWTH_DIVISOR.
pub const CSS_GROWTH_DIVISOR: u64 = 4;
/// §4.3 CSS_ROUNDS.
pub const CSS_ROUNDS: u32 = 5;
/// §4.3 L for a sender that does not pace (airtcp never paces).
pub const L_NON_PACED: u64 = 8;

/// "infinity" of §4.2's RTT variables.
const INFINITY: TimeNs = TimeNs::MAX;

/// RttThresh of §4.2 for a last round's minimum RTT.
pub fn rtt_thresh_ns(last_round_min_rtt_ns: TimeNs) -> TimeNs {
    (last_round_min_rtt_ns / MIN_RTT_DIVISOR).clamp(MIN_RTT_THRESH_NS, MAX_RTT_THRESH_NS)
}

/// The state of HyStart++ for one connection.
#[derive(Clone, Debug)]
pub struct HyStart {
    /// ssthresh at the connection's start: HyStart++ runs while it holds.
    initial_ssthresh: u64,
    /// windowEnd; None before the first round.
    window_end: Option<u64>,
    last_round_min_rtt_ns: TimeNs,
    current_round_min_rtt_ns: TimeNs,
    rtt_sample_count: u32,
    /// cssBaselineMinRtt; infinity outside CSS.
    css_baseline_min_rtt_ns: TimeNs,
    /// Rounds of the current CSS that have ended.
    css_rounds: u32,
    /// min(N, L * SMSS) bytes of CSS growth not yet divided into cwnd.
    css_carry_bytes: u64,
    /// `RttEstimator::samples` when the last ACK was seen.
    samples_seen: u64,
    /// Times CSS was entered (diagnostics).
    pub css_entries: u32,
}

impl HyStart {
    pub fn new(initial_ssthresh: u64) -> Self {
        Self {
            initial_ssthresh,
            window_end: None,
            last_round_min_rtt_ns: INFINITY,
            current_round_min_rtt_ns: INFINITY,
            rtt_sample_count: 0,
            css_baseline_min_rtt_ns: INFINITY,
            css_rounds: 0,
            css_carry_bytes: 0,
            samples_seen: 0,
            css_entries: 0,
        }
    }

    /// In Conservative Slow Start.
    pub fn in_css(&self) -> bool {
        self.css_baseline_min_rtt_ns != INFINITY
    }

    /// An ACK newly acknowledging `acked` bytes up to `ack` arrived outside
    /// loss recovery, with SND.NXT `snd_nxt`; `rtt` holds its sample if it
    /// took one. Returns false if HyStart++ does not apply (not the initial
    /// slow start): the controller grows the window instead.
    pub fn on_ack(
        &mut self,
        w: &mut Window,
        acked: u64,
        ack: u64,
        snd_nxt: u64,
        rtt: &RttEstimator,
    ) -> bool {
        if w.cwnd >= w.ssthresh || w.ssthresh != self.initial_ssthresh {
            return false;
        }
        let window_end = *self.window_end.get_or_insert(snd_nxt);
        // The increase, limited to L * SMSS.
        let n = acked.min(L_NON_PACED * w.mss);
        if self.in_css() {
            let b = self.css_carry_bytes + n;
            w.cwnd += b / CSS_GROWTH_DIVISOR;
            self.css_carry_bytes = b % CSS_GROWTH_DIVISOR;
        } else {
            w.cwnd += n;
        }
        if rtt.samples != self.samples_seen {
            self.samples_seen = rtt.samples;
            if let Some(r) = rtt.latest_rtt_ns() {
                self.on_rtt_sample(r);
            }
        }
        if ack >= window_end {
            if self.in_css() {
                self.css_rounds += 1;
                if self.css_rounds >= CSS_ROUNDS {
                    // Congestion avoidance: the controller's from now on.
                    w.ssthresh = w.cwnd;
                    return true;
                }
            }
            self.last_round_min_rtt_ns = self.current_round_min_rtt_ns;
            self.current_round_min_rtt_ns = INFINITY;
            self.rtt_sample_count = 0;
            self.window_end = Some(snd_nxt);
        }
        true
    }

    fn on_rtt_sample(&mut self, r: TimeNs) {
        self.current_round_min_rtt_ns = self.current_round_min_rtt_ns.min(r);
        self.rtt_sample_count += 1;
        if self.rtt_sample_count < N_RTT_SAMPLE {
            return;
        }
        if self.in_css() {
            if self.current_round_min_rtt_ns < self.css_baseline_min_rtt_ns {
                // The exit was spurious: slow start, HyStart++ included.
                self.css_baseline_min_rtt_ns = INFINITY;
                self.css_rounds = 0;
                self.css_carry_bytes = 0;
            }
        } else if self.current_round_min_rtt_ns != INFINITY
            && self.last_round_min_rtt_ns != INFINITY
            && self.current_round_min_rtt_ns
                >= self.last_round_min_rtt_ns + rtt_thresh_ns(self.last_round_min_rtt_ns)
        {
            self.css_baseline_min_rtt_ns = self.current_round_min_rtt_ns;
            self.css_entries += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rtt_thresh_is_an_eighth_clamped_to_4_and_16_ms() {
        assert_eq!(rtt_thresh_ns(10 * NS_PER_MS), 4 * NS_PER_MS);
        assert_eq!(rtt_thresh_ns(80 * NS_PER_MS), 10 * NS_PER_MS);
        assert_eq!(rtt_thresh_ns(500 * NS_PER_MS), 16 * NS_PER_MS);
    }
}
