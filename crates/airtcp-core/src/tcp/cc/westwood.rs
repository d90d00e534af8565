//! TCP Westwood (Casetti, Gerla, Mascolo, Sanadidi, Wang, "TCP Westwood:
//! end-to-end congestion control for wired/wireless networks", Wireless
//! Networks 8(5), 2002) and Westwood+ (Grieco, Mascolo, "Performance
//! evaluation and comparison of Westwood+, New Reno, and Vegas TCP
//! congestion control", CCR 34(2), 2004).
//!
//! The sender estimates the bandwidth BWE from the rate of returning ACKs
//! and, after a congestion episode, sets
//!
//! * three duplicate ACKs: ssthresh = BWE x RTTmin (at least 2 SMSS), and
//!   cwnd = ssthresh if cwnd > ssthresh (here through fast recovery, which
//!   deflates cwnd to ssthresh when it ends);
//! * a timeout: ssthresh = BWE x RTTmin (at least 2 SMSS), cwnd = 1 SMSS
//!   (the sender's standard timeout response).
//!
//! Window growth is Reno's. RTTmin is the smallest RTT sample.
//!
//! **Bandwidth samples.** Each ACK at t_k acknowledging d_k bytes gives
//! b_k = d_k / (t_k - t_{k-1}). A duplicate ACK counts one segment
//! delivered; a later cumulative ACK is reduced by the segments its
//! duplicate ACKs already counted (the paper's "accounted for" rule, §2.3),
//! so no byte is counted twice. ACKs at the same instant are merged.
//!
//! * **Westwood** filters every sample with the discretised (Tustin)
//!   low-pass filter of §2.2: b^_k = a_k b^_{k-1} + (1 - a_k)(b_k + b_{k-1})/2,
//!   a_k = (2 tau - D_k) / (2 tau + D_k), D_k = t_k - t_{k-1}, 1/tau the
//!   cut-off frequency. When more than tau/2 passes without an ACK, virtual
//!   null samples are inserted every tau/2 (§2.2's Nyquist argument with
//!   m = 2). tau is configurable; our default 0.5 s is our choice.
//! * **Westwood+** takes one sample per RTT: b_k = (bytes acknowledged in
//!   the last RTT) / (its length), the RTT being the sender's SRTT, and
//!   filters it with b^_k = 0.9 b^_{k-1} + 0.1 b_k (Grieco & Mascolo §2),
//!   which is robust to ACK compression.
//!
//! Before the first estimate (no ACK yet) ssthresh falls back to Reno's
//! FlightSize / 2.

use super::{CongestionControl, RenoCc, Window};
use crate::sim::{TimeNs, NS_PER_MS};
use crate::tcp::rtt::RttEstimator;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WestwoodFilter {
    /// Casetti et al. 2002: every ACK, Tustin low-pass filter.
    PerAck { tau_ns: TimeNs },
    /// Grieco & Mascolo 2004: one sample per RTT, EWMA 0.9.
    PerRtt,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WestwoodConfig {
    pub filter: WestwoodFilter,
}

impl WestwoodConfig {
    pub fn westwood() -> Self {
        Self {
            filter: WestwoodFilter::PerAck {
                tau_ns: 500 * NS_PER_MS,
            },
        }
    }

    pub fn westwood_plus() -> Self {
        Self {
            filter: WestwoodFilter::PerRtt,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Westwood {
    pub cfg: WestwoodConfig,
    reno: RenoCc,
    mss: u64,
    /// Filtered estimate, bytes per second.
    bwe: f64,
    /// Previous raw sample (Tustin filter), bytes per second.
    last_sample: f64,
    /// Time of the last ACK that closed a sample.
    last_ack_ns: Option<TimeNs>,
    /// Bytes acknowledged but not yet turned into a sample.
    pending_bytes: u64,
    /// Segments counted by duplicate ACKs and not yet by a cumulative ACK.
    accounted_segments: u64,
    has_estimate: bool,
    rtt_min_ns: Option<TimeNs>,
    srtt_ns: Option<TimeNs>,
}

impl Westwood {
    pub fn new(cfg: WestwoodConfig, mss: u64) -> Self {
        Self {
            cfg,
            reno: RenoCc,
            mss: mss.max(1),
            bwe: 0.0,
            last_sample: 0.0,
            last_ack_ns: None,
            pending_bytes: 0,
            accounted_segments: 0,
            has_estimate: false,
            rtt_min_ns: None,
            srtt_ns: None,
        }
    }

    /// Bytes this ACK delivers, with the duplicate-ACK accounting of §2.3.
    fn delivered(&mut self, acked: u64, dupack: bool) -> u64 {
        if dupack {
            self.accounted_segments += 1;
            return self.mss;
        }
        if acked == 0 {
            return 0;
        }
        let segs = acked.div_ceil(self.mss);
        if self.accounted_segments == 0 {
            acked
        } else if self.accounted_segments >= segs {
            // Everything it covers was counted by duplicate ACKs already;
            // it still signals one segment leaving the network.
            self.accounted_segments -= segs;
            self.mss.min(acked)
        } else {
            let already = self.accounted_segments * self.mss;
            self.accounted_segments = 0;
            acked.saturating_sub(already)
        }
    }

    fn tustin(&mut self, sample: f64, dt_ns: TimeNs, tau_ns: TimeNs) {
        let (dt, tau) = (dt_ns as f64, tau_ns as f64);
        let a = (2.0 * tau - dt) / (2.0 * tau + dt);
        self.bwe = a * self.bwe + (1.0 - a) * (sample + self.last_sample) / 2.0;
        self.last_sample = sample;
    }
}

impl CongestionControl for Westwood {
    fn name(&self) -> &'static str {
        match self.cfg.filter {
            WestwoodFilter::PerAck { .. } => "westwood",
            WestwoodFilter::PerRtt => "westwood+",
        }
    }

    fn on_ack(&mut self, w: &mut Window, acked: u64, now_ns: TimeNs, rtt: &RttEstimator) {
        self.reno.on_ack(w, acked, now_ns, rtt);
    }

    fn on_ack_arrival(&mut self, now_ns: TimeNs, acked: u64, dupack: bool, rtt: &RttEstimator) {
        self.rtt_min_ns = rtt.min_rtt_ns();
        self.srtt_ns = rtt.srtt_ns();
        let d = self.delivered(acked, dupack);
        let Some(last) = self.last_ack_ns else {
            // The first ACK starts the clock.
            self.last_ack_ns = Some(now_ns);
            return;
        };
        self.pending_bytes += d;
        match self.cfg.filter {
            WestwoodFilter::PerAck { tau_ns } => {
                if now_ns <= last {
                    return; // merged with the next ACK
                }
                let mut gap = now_ns - last;
                let half = (tau_ns / 2).max(1);
                while gap > half {
                    // No ACK for tau/2: a virtual null sample.
                    self.tustin(0.0, half, tau_ns);
                    gap -= half;
                }
                let sample = self.pending_bytes as f64 * 1e9 / (now_ns - last) as f64;
                self.tustin(sample, gap.max(1), tau_ns);
                self.pending_bytes = 0;
                self.last_ack_ns = Some(now_ns);
                self.has_estimate = true;
            }
            WestwoodFilter::PerRtt => {
                let Some(srtt) = self.srtt_ns else { return };
                let dt = now_ns.saturating_sub(last);
                if dt < srtt.max(1) {
                    return;
                }
                let sample = self.pending_bytes as f64 * 1e9 / dt as f64;
                self.bwe = if self.has_estimate {
                    0.9 * self.bwe + 0.1 * sample
                } else {
                    sample
                };
                self.pending_bytes = 0;
                self.last_ack_ns = Some(now_ns);
                self.has_estimate = true;
            }
        }
    }

    /// The bandwidth estimate in bits per second (None before the first).
    fn bwe_bps(&self) -> Option<f64> {
        self.has_estimate.then_some(self.bwe * 8.0)
    }

    fn ssthresh_after_congestion(&mut self, w: &Window, flight: u64) -> u64 {
        self.reduction_before_floor(w, flight).max(2 * w.mss)
    }

    /// BWE x RTTmin once there is an estimate, else Reno's FlightSize / 2.
    fn reduction_before_floor(&self, w: &Window, flight: u64) -> u64 {
        match (self.has_estimate, self.rtt_min_ns) {
            (true, Some(rtt_min)) => (self.bwe * rtt_min as f64 / 1e9) as u64,
            _ => self.reno.reduction_before_floor(w, flight),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::rtt::RtoConfig;

    fn est(rtt_ms: u64) -> RttEstimator {
        let mut e = RttEstimator::new(RtoConfig::default());
        e.on_sample(rtt_ms * NS_PER_MS);
        e
    }

    /// ACKs of one 1000-byte segment every `gap_ms`: the estimate tends to
    /// 1000 B / gap.
    fn steady(cfg: WestwoodConfig, gap_ms: u64, n: u64) -> Westwood {
        let mut w = Westwood::new(cfg, 1000);
        let e = est(100);
        for k in 0..n {
            w.on_ack_arrival(k * gap_ms * NS_PER_MS, 1000, false, &e);
        }
        w
    }

    #[test]
    fn both_filters_converge_on_a_steady_ack_rate() {
        // One 1000 B segment per 8 ms = 1 Mb/s.
        for cfg in [WestwoodConfig::westwood(), WestwoodConfig::westwood_plus()] {
            let w = steady(cfg, 8, 2000);
            let bwe = w.bwe_bps().unwrap();
            assert!((bwe - 1e6).abs() < 0.02e6, "{:?}: {bwe}", cfg.filter);
        }
    }

    #[test]
    fn ssthresh_is_bwe_times_rtt_min() {
        let mut w = steady(WestwoodConfig::westwood(), 8, 2000);
        let win = Window {
            cwnd: 50_000,
            ssthresh: u64::MAX,
            mss: 1000,
        };
        // 125,000 B/s x 100 ms = 12,500 B.
        let s = w.ssthresh_after_congestion(&win, 50_000);
        assert!((s as i64 - 12_500).abs() < 300, "{s}");
        // No estimate: Reno.
        let mut fresh = Westwood::new(WestwoodConfig::westwood(), 1000);
        assert_eq!(fresh.ssthresh_after_congestion(&win, 50_000), 25_000);
    }

    #[test]
    fn duplicate_acks_are_not_counted_twice() {
        let mut w = Westwood::new(WestwoodConfig::westwood(), 1000);
        assert_eq!(w.delivered(0, true), 1000);
        assert_eq!(w.delivered(0, true), 1000);
        assert_eq!(w.delivered(0, true), 1000);
        // The cumulative ACK covering the hole and the three segments.
        assert_eq!(w.delivered(4000, false), 1000);
        assert_eq!(w.delivered(2000, false), 2000);
        assert_eq!(w.delivered(0, true), 1000);
        assert_eq!(w.delivered(5000, false), 4000);
    }

    #[test]
    fn silence_decays_the_estimate() {
        let mut w = steady(WestwoodConfig::westwood(), 8, 2000);
        let before = w.bwe_bps().unwrap();
        let e = est(100);
        w.on_ack_arrival(
            2000 * 8 * NS_PER_MS + 5 * 1_000 * NS_PER_MS,
            1000,
            false,
            &e,
        );
        assert!(w.bwe_bps().unwrap() < before * 0.1);
    }
}
