//! Round-trip time estimation and the retransmission timeout, RFC 6298.

use crate::sim::{TimeNs, NS_PER_MS, NS_PER_S};

/// RTO parameters. Defaults are RFC 6298's; ns-2-era studies used other
/// values (e.g. min RTO 200 ms, 100 ms or 500 ms ticks), hence all are
/// configurable.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RtoConfig {
    /// RFC 6298 (2.1): RTO before any sample, 1 s.
    pub initial_rto_ns: TimeNs,
    /// RFC 6298 (2.4): RTO is rounded up to at least 1 s.
    pub min_rto_ns: TimeNs,
    /// RFC 6298 (2.5): a maximum of at least 60 s may be placed on RTO.
    pub max_rto_ns: TimeNs,
    /// RFC 6298 (2.2)/(2.3): clock granularity G in RTO = SRTT + max(G, K*RTTVAR).
    pub clock_granularity_ns: TimeNs,
    /// Largest backoff multiplier (ns-2's TcpAgent::rtt_backoff stops at 64); None: only
    /// max RTO limits the backoff (RFC 6298).
    pub max_backoff: Option<u32>,
    /// Measure RTT in whole ticks of a coarse clock, as ns-2 did without
    /// timestamps (`TcpAgent::rtt_update`); None: exact samples.
    pub rtt_tick_ns: Option<TimeNs>,
    /// Where the tick clock's ticks fall: ns-2's `boot_time_`, added to the
    /// send time before its offset within the tick is taken (ns-2 draws it
    /// uniformly in [0, tick) per connection; 0: ticks at multiples of the
    /// tick from time 0).
    pub rtt_tick_phase_ns: TimeNs,
}

impl Default for RtoConfig {
    fn default() -> Self {
        Self {
            initial_rto_ns: NS_PER_S,
            min_rto_ns: NS_PER_S,
            max_rto_ns: 60 * NS_PER_S,
            clock_granularity_ns: NS_PER_MS,
            max_backoff: None,
            rtt_tick_ns: None,
            rtt_tick_phase_ns: 0,
        }
    }
}

/// RFC 6298 §2: alpha = 1/8, beta = 1/4, K = 4.
const ALPHA: f64 = 1.0 / 8.0;
const BETA: f64 = 1.0 / 4.0;
const K: f64 = 4.0;

/// SRTT, RTTVAR and RTO with exponential backoff.
#[derive(Clone, Debug)]
pub struct RttEstimator {
    pub cfg: RtoConfig,
    srtt_ns: Option<f64>,
    rttvar_ns: f64,
    /// RTO before backoff.
    base_rto_ns: TimeNs,
    /// Number of consecutive backoffs (RFC 6298 (5.5)).
    backoff_count: u32,
    /// Smallest sample seen (used by RTT-threshold classifiers and Westwood).
    min_rtt_ns: Option<TimeNs>,
    latest_rtt_ns: Option<TimeNs>,
    pub samples: u64,
    pub sample_sum_ns: u128,
}

impl RttEstimator {
    pub fn new(cfg: RtoConfig) -> Self {
        Self {
            cfg,
            srtt_ns: None,
            rttvar_ns: 0.0,
            base_rto_ns: cfg.initial_rto_ns,
            backoff_count: 0,
            min_rtt_ns: None,
            latest_rtt_ns: None,
            samples: 0,
            sample_sum_ns: 0,
        }
    }

    /// Take one RTT measurement R (RFC 6298 (2.2) for the first, (2.3)
    /// after), recompute RTO, clamp it to [min, max] (2.4, 2.5), and clear
    /// the backoff, since a fresh sample ends it (§5: RTO "collapses" back).
    pub fn on_sample(&mut self, r_ns: TimeNs) {
        let r = r_ns as f64;
        let (srtt, rttvar) = match self.srtt_ns {
            None => (r, r / 2.0),
            // RTTVAR is updated with the old SRTT, as (2.3) requires.
            Some(srtt) => (
                (1.0 - ALPHA) * srtt + ALPHA * r,
                (1.0 - BETA) * self.rttvar_ns + BETA * (srtt - r).abs(),
            ),
        };
        self.set_estimate(srtt, rttvar, r_ns);
    }

    /// RFC 4015 §3.1 step (5): the first measurement `m_ns` for data sent
    /// after a spurious timeout restarts the estimator from the values
    /// saved at the timeout: SRTT = max(SRTT_prev, m), RTTVAR =
    /// max(RTTVAR_prev, m/2), RTO = SRTT + max(G, K*RTTVAR) (then RFC 6298
    /// (2.4)/(2.5)).
    pub fn reseed_after_spurious_timeout(
        &mut self,
        srtt_prev_ns: f64,
        rttvar_prev_ns: f64,
        m_ns: TimeNs,
    ) {
        let m = m_ns as f64;
        self.set_estimate(srtt_prev_ns.max(m), rttvar_prev_ns.max(m / 2.0), m_ns);
    }

    /// Install SRTT and RTTVAR after measurement `r_ns` and recompute RTO.
    fn set_estimate(&mut self, srtt_ns: f64, rttvar_ns: f64, r_ns: TimeNs) {
        self.srtt_ns = Some(srtt_ns);
        self.rttvar_ns = rttvar_ns;
        let g = self.cfg.clock_granularity_ns as f64;
        let rto = (srtt_ns + g.max(K * rttvar_ns)).round() as TimeNs;
        self.base_rto_ns = rto.clamp(self.cfg.min_rto_ns, self.cfg.max_rto_ns);
        self.backoff_count = 0;
        self.min_rtt_ns = Some(self.min_rtt_ns.map_or(r_ns, |m| m.min(r_ns)));
        self.latest_rtt_ns = Some(r_ns);
        self.samples += 1;
        self.sample_sum_ns += r_ns as u128;
    }

    /// SRTT and RTTVAR as floats (for saving and restoring them).
    pub fn srtt_f64(&self) -> Option<f64> {
        self.srtt_ns
    }
    pub fn rttvar_f64(&self) -> f64 {
        self.rttvar_ns
    }

    /// The RTO to arm the timer with now: base RTO doubled per backoff,
    /// capped at max RTO (RFC 6298 (5.5)).
    pub fn rto_ns(&self) -> TimeNs {
        let mut rto = self.base_rto_ns;
        let mut multiplier = 1u64;
        for _ in 0..self.backoff_count {
            multiplier = multiplier.saturating_mul(2);
            if self.cfg.max_backoff.is_some_and(|m| multiplier > m as u64) {
                break;
            }
            rto = rto.saturating_mul(2);
            if rto >= self.cfg.max_rto_ns {
                return self.cfg.max_rto_ns;
            }
        }
        rto.min(self.cfg.max_rto_ns)
    }

    /// RFC 6298 (5.5): back off the timer after an expiry (the count
    /// keeps rising at the caps: it also says "first expiry or not").
    pub fn back_off(&mut self) {
        self.backoff_count = self.backoff_count.saturating_add(1).min(64);
    }

    /// A sample of `tao_ns` for a segment sent `tao_ns` before `now_ns`,
    /// measured as the configured clock would: with `rtt_tick_ns`, ns-2's
    /// int((tao + (sendtime + boot_time) mod tick) / tick) ticks, at least
    /// one (`TcpAgent::rtt_update`; boot_time is `rtt_tick_phase_ns`).
    pub fn measure(&self, now_ns: TimeNs, tao_ns: TimeNs) -> TimeNs {
        match self.cfg.rtt_tick_ns {
            Some(tick) if tick > 0 => {
                let sent = now_ns.saturating_sub(tao_ns) + self.cfg.rtt_tick_phase_ns;
                let ticks = ((tao_ns + sent % tick) / tick).max(1);
                ticks * tick
            }
            _ => tao_ns,
        }
    }

    /// RFC 6298 (5.7): after the SYN (or its answer) timed out, an
    /// implementation "using an RTO less than 3 seconds" re-initialises RTO
    /// to 3 s when data transmission begins (unless a sample arrived). One
    /// configured with an initial RTO of 3 s or more (allowed by (2.1))
    /// re-initialises to that initial RTO: the rule never lowers it, and
    /// the SYN's backoff ends as for a 1-s one.
    pub fn reset_after_syn_timeout(&mut self) {
        if self.srtt_ns.is_none() {
            self.base_rto_ns = (3 * NS_PER_S)
                .max(self.cfg.initial_rto_ns)
                .clamp(self.cfg.min_rto_ns, self.cfg.max_rto_ns);
        }
        self.backoff_count = 0;
    }

    pub fn srtt_ns(&self) -> Option<TimeNs> {
        self.srtt_ns.map(|s| s.round() as TimeNs)
    }
    pub fn rttvar_ns(&self) -> TimeNs {
        self.rttvar_ns.round() as TimeNs
    }
    pub fn base_rto_ns(&self) -> TimeNs {
        self.base_rto_ns
    }
    pub fn backoff_count(&self) -> u32 {
        self.backoff_count
    }
    pub fn min_rtt_ns(&self) -> Option<TimeNs> {
        self.min_rtt_ns
    }
    pub fn latest_rtt_ns(&self) -> Option<TimeNs> {
        self.latest_rtt_ns
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn est(min_rto_ms: u64) -> RttEstimator {
        RttEstimator::new(RtoConfig {
            initial_rto_ns: NS_PER_S,
            min_rto_ns: min_rto_ms * NS_PER_MS,
            max_rto_ns: 60 * NS_PER_S,
            clock_granularity_ns: 10 * NS_PER_MS,
            ..RtoConfig::default()
        })
    }

    #[test]
    fn first_sample_rfc6298_2_2() {
        let mut e = est(0);
        assert_eq!(e.rto_ns(), NS_PER_S);
        e.on_sample(100 * NS_PER_MS);
        // SRTT = 100, RTTVAR = 50, RTO = 100 + max(10, 200) = 300 ms.
        assert_eq!(e.srtt_ns(), Some(100 * NS_PER_MS));
        assert_eq!(e.rttvar_ns(), 50 * NS_PER_MS);
        assert_eq!(e.rto_ns(), 300 * NS_PER_MS);
    }

    #[test]
    fn subsequent_samples_rfc6298_2_3() {
        let mut e = est(0);
        e.on_sample(100 * NS_PER_MS);
        e.on_sample(200 * NS_PER_MS);
        // RTTVAR = 3/4*50 + 1/4*|100-200| = 62.5; SRTT = 7/8*100 + 1/8*200 = 112.5
        // RTO = 112.5 + 4*62.5 = 362.5 ms
        assert_eq!(e.rttvar_ns(), 62_500_000);
        assert_eq!(e.srtt_ns(), Some(112_500_000));
        assert_eq!(e.rto_ns(), 362_500_000);
        e.on_sample(112_500_000);
        // RTTVAR = 3/4*62.5 + 0 = 46.875; SRTT = 112.5; RTO = 112.5+187.5 = 300
        assert_eq!(e.rttvar_ns(), 46_875_000);
        assert_eq!(e.rto_ns(), 300 * NS_PER_MS);
    }

    #[test]
    fn granularity_floor_applies_when_variance_small() {
        let mut e = est(0);
        for _ in 0..200 {
            e.on_sample(50 * NS_PER_MS);
        }
        // RTTVAR -> ~0, so RTO = SRTT + G = 60 ms.
        let rto = e.rto_ns();
        assert!((rto as i64 - 60_000_000).abs() <= 1, "rto {rto}");
    }

    #[test]
    fn min_rto_rfc6298_2_4() {
        let mut e = est(1000);
        e.on_sample(10 * NS_PER_MS);
        assert_eq!(e.rto_ns(), NS_PER_S);
    }

    #[test]
    fn backoff_doubles_and_caps_rfc6298_5_5() {
        let mut e = est(1000);
        e.on_sample(100 * NS_PER_MS); // RTO 1 s after the min clamp
        let mut seen = vec![e.rto_ns() / NS_PER_S];
        for _ in 0..8 {
            e.back_off();
            seen.push(e.rto_ns() / NS_PER_S);
        }
        assert_eq!(seen, vec![1, 2, 4, 8, 16, 32, 60, 60, 60]);
        // A new sample clears the backoff.
        e.on_sample(100 * NS_PER_MS);
        assert_eq!(e.rto_ns(), NS_PER_S);
    }

    #[test]
    fn backoff_multiplier_cap_like_ns2() {
        let mut e = RttEstimator::new(RtoConfig {
            max_backoff: Some(4),
            max_rto_ns: 1000 * NS_PER_S,
            ..RtoConfig::default()
        });
        let seen: Vec<u64> = (0..5)
            .map(|_| {
                let r = e.rto_ns() / NS_PER_S;
                e.back_off();
                r
            })
            .collect();
        assert_eq!(seen, vec![1, 2, 4, 4, 4]);
    }

    #[test]
    fn tick_measurement_like_ns2() {
        let e = RttEstimator::new(RtoConfig {
            rtt_tick_ns: Some(10 * NS_PER_MS),
            ..RtoConfig::default()
        });
        // 511 ms sent at t = 0: 51 ticks; sent at 5 ms: (511 + 5) / 10 = 51;
        // sent at 9 ms: (511 + 9) / 10 = 52 ticks.
        assert_eq!(e.measure(511 * NS_PER_MS, 511 * NS_PER_MS), 510 * NS_PER_MS);
        assert_eq!(e.measure(516 * NS_PER_MS, 511 * NS_PER_MS), 510 * NS_PER_MS);
        assert_eq!(e.measure(520 * NS_PER_MS, 511 * NS_PER_MS), 520 * NS_PER_MS);
        // Never below one tick.
        assert_eq!(e.measure(NS_PER_MS, NS_PER_MS), 10 * NS_PER_MS);
    }

    /// ns-2 tcp.cc, TcpAgent::rtt_update without timestamps: `sendtime =
    /// now - tao; sendtime += boot_time_; tickoff = fmod(sendtime,
    /// tcp_tick_); t_rtt_ = int((tao + tickoff) / tcp_tick_)`.
    #[test]
    fn tick_phase_is_ns2_boot_time() {
        let with_phase = |phase_ms: u64| {
            RttEstimator::new(RtoConfig {
                rtt_tick_ns: Some(10 * NS_PER_MS),
                rtt_tick_phase_ns: phase_ms * NS_PER_MS,
                ..RtoConfig::default()
            })
        };
        // 511 ms sent at t = 100 ms: boot_time 0 -> tickoff 0, 51 ticks;
        // boot_time 8 ms -> tickoff 8, (511 + 8) / 10 = 51; 9 ms -> 52.
        let (now, tao) = (611 * NS_PER_MS, 511 * NS_PER_MS);
        assert_eq!(with_phase(0).measure(now, tao), 510 * NS_PER_MS);
        assert_eq!(with_phase(8).measure(now, tao), 510 * NS_PER_MS);
        assert_eq!(with_phase(9).measure(now, tao), 520 * NS_PER_MS);
        // The phase shifts the grid: sent at 105 ms with boot_time 4 ms is
        // tickoff 9, as sent at 109 ms with none.
        assert_eq!(
            with_phase(4).measure(616 * NS_PER_MS, tao),
            with_phase(0).measure(620 * NS_PER_MS, tao)
        );
    }

    #[test]
    fn syn_timeout_sets_three_seconds_rfc6298_5_7() {
        let mut e = est(1000);
        e.back_off();
        e.reset_after_syn_timeout();
        assert_eq!(e.rto_ns(), 3 * NS_PER_S);
    }
}
