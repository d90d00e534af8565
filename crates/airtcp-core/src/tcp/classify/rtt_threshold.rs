//! The RTT-threshold loss classifier of Teng and Chang, "A Robust Wireless
//! Transmission Control Protocol to Cope with Channel Errors in a Long
//! Round-Trip Delay Environment" (§2): the sender keeps the base RTT (the
//! minimum RTT sample) and a threshold above it; when a loss is detected and
//! the most recent RTT sample is below the threshold, the queues along the
//! path are short, so the loss is taken as corruption: the segment is
//! retransmitted and the window is not reduced. Otherwise the normal Reno
//! congestion response applies.
//!
//! The paper measures RTT in TCP ticks of 10 ms (ns-2's `tcpTick_`), with a
//! threshold such as "base + 2 ticks" or "55 ticks". With a tick-relative
//! threshold, samples and the base are compared in whole ticks (the floor
//! of each; with the estimator's `rtt_tick` the samples already are ns-2's
//! tick counts); an absolute threshold compares nanoseconds.
//!
//! The paper does not say what a loss before the first RTT sample is (no
//! sampled *rtt* exists yet). That is a parameter ([`BeforeSamplePolicy`]);
//! the default, corruption, is what the document's ns-2 comparison gives:
//! ns-2 keeps the sampled RTT in `t_rtt_`, 0 ticks until the first sample
//! (`TcpAgent::rtt_init`), and 0 is below any threshold. The other reading,
//! congestion, takes §2's "and otherwise" literally (no *rtt* "appears to
//! be smaller"); docs/tcp-conformance.md lists the rules and choices.
//!
//! The paper speaks of losses in general. What to do on a retransmission
//! timeout is a parameter ([`TimeoutPolicy`]); the default treats every
//! timeout as congestion, because a timeout means the ACK clock stopped and
//! the latest RTT sample predates it (it says nothing about the path now).

use super::{LossCause, LossClassifier, LossDetection};
use crate::sim::TimeNs;
use crate::tcp::rtt::RttEstimator;

/// Where the threshold lies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Threshold {
    /// A fixed RTT, e.g. 550 ms (the paper's Fig. 2).
    Absolute { rtt_ns: TimeNs },
    /// The base RTT plus `ticks` ticks (Fig. 3's x axis: base 51, threshold 53).
    AboveBase { ticks: u32, tick_ns: TimeNs },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeoutPolicy {
    /// Every timeout is a congestion loss (default).
    Congestion,
    /// Classify timeouts like duplicate-ACK losses.
    Classify,
}

/// What a loss the classifier judges before the sender's first RTT sample
/// is (the paper is silent).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BeforeSamplePolicy {
    /// Corruption (default): ns-2's `t_rtt_` is 0 until the first sample,
    /// below any threshold.
    Corruption,
    /// Congestion: no RTT "appears to be smaller than this threshold" (§2).
    Congestion,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RttThresholdConfig {
    pub threshold: Threshold,
    pub on_timeout: TimeoutPolicy,
    pub before_rtt_sample: BeforeSamplePolicy,
}

#[derive(Clone, Debug)]
pub struct RttThreshold {
    pub cfg: RttThresholdConfig,
}

impl RttThreshold {
    pub fn new(cfg: RttThresholdConfig) -> Self {
        Self { cfg }
    }

    /// Is a sample of `latest_ns` below the threshold, given the base RTT?
    pub fn below_threshold(&self, latest_ns: TimeNs, base_ns: TimeNs) -> bool {
        match self.cfg.threshold {
            Threshold::Absolute { rtt_ns } => latest_ns < rtt_ns,
            Threshold::AboveBase { ticks, tick_ns } => {
                let tick = tick_ns.max(1);
                latest_ns / tick < base_ns / tick + ticks as u64
            }
        }
    }
}

impl LossClassifier for RttThreshold {
    fn name(&self) -> &'static str {
        "rtt_threshold"
    }

    fn classify(
        &mut self,
        _now_ns: TimeNs,
        _seq: u64,
        how: LossDetection,
        rtt: &RttEstimator,
    ) -> LossCause {
        if how == LossDetection::Timeout && self.cfg.on_timeout == TimeoutPolicy::Congestion {
            return LossCause::Congestion;
        }
        match (rtt.latest_rtt_ns(), rtt.min_rtt_ns()) {
            (Some(latest), Some(base)) if self.below_threshold(latest, base) => {
                LossCause::NonCongestion
            }
            (Some(_), Some(_)) => LossCause::Congestion,
            _ => match self.cfg.before_rtt_sample {
                BeforeSamplePolicy::Corruption => LossCause::NonCongestion,
                BeforeSamplePolicy::Congestion => LossCause::Congestion,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::NS_PER_MS;
    use crate::tcp::rtt::RtoConfig;

    fn est(samples_ms: &[u64]) -> RttEstimator {
        let mut e = RttEstimator::new(RtoConfig::default());
        for s in samples_ms {
            e.on_sample(s * NS_PER_MS);
        }
        e
    }

    fn above_base(ticks: u32, on_timeout: TimeoutPolicy) -> RttThreshold {
        RttThreshold::new(RttThresholdConfig {
            threshold: Threshold::AboveBase {
                ticks,
                tick_ns: 10 * NS_PER_MS,
            },
            on_timeout,
            before_rtt_sample: BeforeSamplePolicy::Congestion,
        })
    }

    #[test]
    fn boundary_in_ticks() {
        // Base 510 ms = 51 ticks; threshold 53 ticks.
        let mut c = above_base(2, TimeoutPolicy::Congestion);
        let dup = LossDetection::DuplicateAcks;
        // 529 ms = 52 ticks: below 53 -> corruption.
        assert_eq!(
            c.classify(0, 0, dup, &est(&[510, 529])),
            LossCause::NonCongestion
        );
        // 530 ms = 53 ticks: at the threshold -> congestion.
        assert_eq!(
            c.classify(0, 0, dup, &est(&[510, 530])),
            LossCause::Congestion
        );
    }

    #[test]
    fn boundary_absolute() {
        let mut c = RttThreshold::new(RttThresholdConfig {
            threshold: Threshold::Absolute {
                rtt_ns: 550 * NS_PER_MS,
            },
            on_timeout: TimeoutPolicy::Classify,
            before_rtt_sample: BeforeSamplePolicy::Congestion,
        });
        let dup = LossDetection::DuplicateAcks;
        assert_eq!(
            c.classify(0, 0, dup, &est(&[510, 549])),
            LossCause::NonCongestion
        );
        assert_eq!(
            c.classify(0, 0, dup, &est(&[510, 550])),
            LossCause::Congestion
        );
        assert_eq!(
            c.classify(0, 0, LossDetection::Timeout, &est(&[510, 549])),
            LossCause::NonCongestion
        );
    }

    #[test]
    fn base_tracks_the_minimum() {
        let mut c = above_base(1, TimeoutPolicy::Congestion);
        let dup = LossDetection::DuplicateAcks;
        // Base falls from 600 to 500 ms: 595 ms is no longer within a tick.
        assert_eq!(
            c.classify(0, 0, dup, &est(&[600, 605])),
            LossCause::NonCongestion
        );
        assert_eq!(
            c.classify(0, 0, dup, &est(&[600, 500, 595])),
            LossCause::Congestion
        );
    }

    #[test]
    fn timeout_policy() {
        let e = est(&[510, 511]);
        let mut c = above_base(2, TimeoutPolicy::Congestion);
        assert_eq!(
            c.classify(0, 0, LossDetection::Timeout, &e),
            LossCause::Congestion
        );
        let mut c = above_base(2, TimeoutPolicy::Classify);
        assert_eq!(
            c.classify(0, 0, LossDetection::Timeout, &e),
            LossCause::NonCongestion
        );
    }

    #[test]
    fn threshold_below_base_is_always_congestion() {
        let mut c = RttThreshold::new(RttThresholdConfig {
            threshold: Threshold::Absolute {
                rtt_ns: 100 * NS_PER_MS,
            },
            on_timeout: TimeoutPolicy::Classify,
            before_rtt_sample: BeforeSamplePolicy::Congestion,
        });
        assert_eq!(
            c.classify(0, 0, LossDetection::DuplicateAcks, &est(&[510])),
            LossCause::Congestion
        );
    }
}
