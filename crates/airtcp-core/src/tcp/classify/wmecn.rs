//! WMECN's source-centric congestion filtering: §3.2 and Table 1 of
//! Sridharan, Durresi, Liu, Jain, "Wireless TCP Enhancements Using
//! Multi-level ECN".
//!
//! The source keeps the **filtering context**: the last ten congestion
//! feedbacks echoed by the receiver (`crate::tcp::mecn`), as weights
//! `01` -> 0, `10` -> 1, `11` -> 2. When a loss is detected, by duplicate
//! ACKs or by a timeout, the **summed weighted feedback** SWF (0..=20) of the
//! context decides:
//!
//! | SWF | verdict | cwnd kept | entry added to the context |
//! |---|---|---|---|
//! | <= 10 | wireless loss | all (no reduction) | `01` (weight 0) |
//! | 11..=13 | mild congestion | 0.8 | `10` (weight 1) — our choice, see below |
//! | 14..=16 | moderate congestion | 0.6 | `10` (weight 1) |
//! | 17..=20 | severe congestion | 0.5 | `11` (weight 2) |
//!
//! The lost segment is always retransmitted (the sender does that); the
//! window is reduced at most once per RTT (the congestion response,
//! `crate::tcp::cc::mecn`, enforces it; the classifier still gives its
//! verdict, so every decision is scored).
//!
//! Split of the mechanism: this classifier gives the verdict
//! (`LossCause`) and, for a congestion verdict, the graded fraction of cwnd
//! to keep through [`LossClassifier::graded_keep`]; a congestion response
//! that grades (`MecnCc` in WMECN mode) applies it, any other (Reno,
//! Westwood) applies its own rule to a congestion verdict. So the classifier
//! pairs with any sender and is scored by the world's confusion matrix.
//!
//! Choices the document leaves open:
//! * **Mild congestion (11..=13) adds `10`.** The document names the entry
//!   for the wireless case (`01`) and for conditions 3 and 4 (`10`, `11`) but
//!   not for condition 2. A congestion verdict should not pull the context
//!   towards "wireless" (adding `01` would), and `10` is what its neighbour
//!   condition 3 adds.
//! * **The context starts empty and a shorter context sums what it has**
//!   (missing entries weigh 0): before ten feedbacks have arrived, losses
//!   are more likely to be called wireless.
//! * **Timeouts are classified** like duplicate-ACK losses (the document:
//!   "either by dupacks or timeout"); `on_timeout = "congestion"` makes
//!   every timeout congestion instead. A timeout called wireless gets the
//!   sender's "retransmit, do not reduce" (`tcp/rto/standard.rs`): the lost
//!   segment is resent (§3.2: "the packet, which was lost is
//!   retransmitted"; no go-back-N over data the receiver holds), then the
//!   window's other holes (by SACK, or one per partial ACK without it),
//!   cwnd and ssthresh are kept, and the timer is backed off (RFC 6298
//!   (5.5)) — the path delivered nothing for an RTO, so the backoff
//!   protects against a dead link.
//! * ACKs echoing `00` (nothing to report: they acknowledge retransmissions,
//!   which are not ECN-capable unless the sender's
//!   `ecn_capable_retransmissions` option says so) add nothing.

use super::{LossCause, LossClassifier, LossDetection, TimeoutPolicy};
use crate::net::packet::Packet;
use crate::sim::TimeNs;
use crate::tcp::mecn::{echoed_level, MecnLevel};
use crate::tcp::rtt::RttEstimator;

/// Feedbacks in the filtering context (§3.2: ten).
pub const CONTEXT_LEN: usize = 10;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WmecnClassifierConfig {
    pub on_timeout: TimeoutPolicy,
}

impl Default for WmecnClassifierConfig {
    fn default() -> Self {
        Self {
            on_timeout: TimeoutPolicy::Classify,
        }
    }
}

/// The graded decision for an SWF value (§3.2's four conditions).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SwfDecision {
    pub cause: LossCause,
    /// Fraction of cwnd to keep: 1.0, 0.8, 0.6 or 0.5.
    pub keep: f64,
    /// The feedback entered into the context for this decision.
    pub entry: MecnLevel,
}

/// §3.2's algorithm.
pub fn decide(swf: u32) -> SwfDecision {
    let (cause, keep, entry) = match swf {
        0..=10 => (LossCause::NonCongestion, 1.0, MecnLevel::NoCongestion),
        11..=13 => (LossCause::Congestion, 0.8, MecnLevel::Incipient),
        14..=16 => (LossCause::Congestion, 0.6, MecnLevel::Incipient),
        _ => (LossCause::Congestion, 0.5, MecnLevel::Moderate),
    };
    SwfDecision { cause, keep, entry }
}

#[derive(Clone, Debug)]
pub struct WmecnClassifier {
    pub cfg: WmecnClassifierConfig,
    /// Ring of weights; `len` valid entries ending before `next`.
    ring: [u8; CONTEXT_LEN],
    next: usize,
    len: usize,
    last: Option<SwfDecision>,
    /// Feedbacks received, by level `01`, `10`, `11`.
    pub feedbacks: [u64; 3],
    /// Decisions taken: wireless, mild, moderate, severe.
    pub decisions: [u64; 4],
}

impl WmecnClassifier {
    pub fn new(cfg: WmecnClassifierConfig) -> Self {
        Self {
            cfg,
            ring: [0; CONTEXT_LEN],
            next: 0,
            len: 0,
            last: None,
            feedbacks: [0; 3],
            decisions: [0; 4],
        }
    }

    /// Enter one feedback (Table 1 weight) into the context.
    pub fn push(&mut self, level: MecnLevel) {
        if let Some(w) = level.weight() {
            self.ring[self.next] = w;
            self.next = (self.next + 1) % CONTEXT_LEN;
            self.len = (self.len + 1).min(CONTEXT_LEN);
        }
    }

    /// The summed weighted feedback (0..=20).
    pub fn swf(&self) -> u32 {
        // Slots not yet written hold 0, so the whole ring sums the context.
        self.ring.iter().map(|&w| w as u32).sum()
    }

    /// The context's weights, oldest first.
    pub fn context(&self) -> Vec<u8> {
        (0..self.len)
            .map(|i| self.ring[(self.next + CONTEXT_LEN - self.len + i) % CONTEXT_LEN])
            .collect()
    }

    /// The last decision taken (tests, diagnostics).
    pub fn last_decision(&self) -> Option<SwfDecision> {
        self.last
    }
}

impl LossClassifier for WmecnClassifier {
    fn name(&self) -> &'static str {
        "wmecn"
    }

    fn on_ack(&mut self, _now_ns: TimeNs, ack: &Packet, _latest_rtt_ns: Option<TimeNs>) {
        if let Some(level) = echoed_level(ack) {
            self.feedbacks[level as usize - 1] += 1;
            self.push(level);
        }
    }

    fn classify(
        &mut self,
        _now_ns: TimeNs,
        _seq: u64,
        how: LossDetection,
        _rtt: &RttEstimator,
    ) -> LossCause {
        if how == LossDetection::Timeout && self.cfg.on_timeout == TimeoutPolicy::Congestion {
            // Not filtered: a plain congestion loss (halving), no entry.
            self.last = Some(SwfDecision {
                cause: LossCause::Congestion,
                keep: 0.5,
                entry: MecnLevel::NotCapable,
            });
            return LossCause::Congestion;
        }
        let swf = self.swf();
        let d = decide(swf);
        self.decisions[match swf {
            0..=10 => 0,
            11..=13 => 1,
            14..=16 => 2,
            _ => 3,
        }] += 1;
        self.push(d.entry);
        self.last = Some(d);
        d.cause
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("feedback_01", self.feedbacks[0]),
            ("feedback_10", self.feedbacks[1]),
            ("feedback_11", self.feedbacks[2]),
            ("swf", self.swf() as u64),
            ("wireless", self.decisions[0]),
            ("mild", self.decisions[1]),
            ("moderate", self.decisions[2]),
            ("severe", self.decisions[3]),
        ]
    }

    fn graded_keep(&self) -> Option<f64> {
        self.last
            .filter(|d| d.cause == LossCause::Congestion)
            .map(|d| d.keep)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::rtt::RtoConfig;

    fn with_weights(w: &[u8]) -> WmecnClassifier {
        let mut c = WmecnClassifier::new(WmecnClassifierConfig::default());
        for &x in w {
            c.push(match x {
                0 => MecnLevel::NoCongestion,
                1 => MecnLevel::Incipient,
                _ => MecnLevel::Moderate,
            });
        }
        c
    }

    /// A context of ten entries summing to `swf`.
    fn context_for(swf: u32) -> Vec<u8> {
        let twos = swf.saturating_sub(10).min(10) as usize;
        let ones = (swf as usize - 2 * twos).min(10 - twos);
        let mut v = vec![2; twos];
        v.extend(std::iter::repeat_n(1, ones));
        v.resize(10, 0);
        assert_eq!(v.iter().map(|&x| x as u32).sum::<u32>(), swf);
        v
    }

    #[test]
    fn swf_sums_the_last_ten_weights() {
        let mut c = with_weights(&[2, 2, 2]);
        assert_eq!(c.swf(), 6);
        // Twelve more `01` push every `11` out.
        for _ in 0..8 {
            c.push(MecnLevel::NoCongestion);
        }
        assert_eq!(c.swf(), 4);
        assert_eq!(c.context(), vec![2, 2, 0, 0, 0, 0, 0, 0, 0, 0]);
        c.push(MecnLevel::NoCongestion);
        c.push(MecnLevel::NoCongestion);
        assert_eq!(c.swf(), 0);
        assert_eq!(c.context().len(), 10);
        // `00` is not feedback.
        c.push(MecnLevel::NotCapable);
        assert_eq!(c.context().len(), 10);
        assert_eq!(with_weights(&[2; 10]).swf(), 20);
    }

    #[test]
    fn every_threshold_boundary() {
        let cases = [
            (0, LossCause::NonCongestion, 1.0),
            (10, LossCause::NonCongestion, 1.0),
            (11, LossCause::Congestion, 0.8),
            (13, LossCause::Congestion, 0.8),
            (14, LossCause::Congestion, 0.6),
            (16, LossCause::Congestion, 0.6),
            (17, LossCause::Congestion, 0.5),
            (20, LossCause::Congestion, 0.5),
        ];
        let rtt = RttEstimator::new(RtoConfig::default());
        for (swf, cause, keep) in cases {
            assert_eq!(decide(swf).cause, cause, "swf {swf}");
            assert_eq!(decide(swf).keep, keep, "swf {swf}");
            let mut c = with_weights(&context_for(swf));
            assert_eq!(c.swf(), swf);
            for how in [LossDetection::DuplicateAcks, LossDetection::Timeout] {
                let mut c2 = c.clone();
                assert_eq!(c2.classify(0, 0, how, &rtt), cause, "swf {swf} {how:?}");
            }
            c.classify(0, 0, LossDetection::DuplicateAcks, &rtt);
            let graded = c.graded_keep();
            if cause == LossCause::Congestion {
                assert_eq!(graded, Some(keep));
            } else {
                assert_eq!(graded, None);
            }
        }
    }

    #[test]
    fn each_decision_enters_the_context() {
        let rtt = RttEstimator::new(RtoConfig::default());
        let dup = LossDetection::DuplicateAcks;
        // Wireless: `01` (weight 0) pushes out the oldest entry.
        let mut c = with_weights(&[1, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
        assert_eq!(c.classify(0, 0, dup, &rtt), LossCause::NonCongestion);
        assert_eq!(c.context(), vec![1, 1, 1, 1, 1, 1, 1, 1, 1, 0]);
        assert_eq!(c.swf(), 9);
        // Mild (SWF 12): `10`.
        let mut c = with_weights(&[2, 2, 1, 1, 1, 1, 1, 1, 1, 1]);
        assert_eq!(c.classify(0, 0, dup, &rtt), LossCause::Congestion);
        assert_eq!(c.context(), vec![2, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
        // Moderate (SWF 15): `10`.
        let mut c = with_weights(&[2, 2, 2, 2, 2, 1, 1, 1, 1, 1]);
        assert_eq!(c.classify(0, 0, dup, &rtt), LossCause::Congestion);
        assert_eq!(c.context(), vec![2, 2, 2, 2, 1, 1, 1, 1, 1, 1]);
        assert_eq!(c.swf(), 14);
        // Severe (SWF 18): `11`.
        let mut c = with_weights(&[1, 1, 2, 2, 2, 2, 2, 2, 2, 2]);
        assert_eq!(c.classify(0, 0, dup, &rtt), LossCause::Congestion);
        assert_eq!(c.context(), vec![1, 2, 2, 2, 2, 2, 2, 2, 2, 2]);
        assert_eq!(c.swf(), 19);
        // A burst of wireless losses drains the context: 10 -> 9 -> ... .
        let mut c = with_weights(&[1; 10]);
        for expected in (0..10).rev() {
            c.classify(0, 0, dup, &rtt);
            assert_eq!(c.swf(), expected);
        }
    }

    #[test]
    fn timeout_policy_congestion_skips_the_filter() {
        let rtt = RttEstimator::new(RtoConfig::default());
        let mut c = WmecnClassifier::new(WmecnClassifierConfig {
            on_timeout: TimeoutPolicy::Congestion,
        });
        assert_eq!(
            c.classify(0, 0, LossDetection::Timeout, &rtt),
            LossCause::Congestion
        );
        assert!(c.context().is_empty());
        assert_eq!(
            c.classify(0, 0, LossDetection::DuplicateAcks, &rtt),
            LossCause::NonCongestion
        );
    }
}
