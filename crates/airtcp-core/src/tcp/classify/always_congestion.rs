//! Standard TCP's assumption: every loss signals congestion (RFC 5681 §3).

use super::{LossCause, LossClassifier, LossDetection};
use crate::sim::TimeNs;
use crate::tcp::rtt::RttEstimator;

#[derive(Clone, Debug, Default)]
pub struct AlwaysCongestion;

impl LossClassifier for AlwaysCongestion {
    fn name(&self) -> &'static str {
        "always_congestion"
    }
    fn classify(
        &mut self,
        _now_ns: TimeNs,
        _seq: u64,
        _how: LossDetection,
        _rtt: &RttEstimator,
    ) -> LossCause {
        LossCause::Congestion
    }
}
