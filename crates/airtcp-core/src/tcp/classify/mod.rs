//! Loss classification: *why* was a segment lost. A classifier sees every
//! ACK and is asked, at each loss the sender detects (three duplicate ACKs or
//! a timeout), whether to treat it as congestion (reduce the window) or as a
//! non-congestion (e.g. wireless) loss (retransmit only).

pub mod always_congestion;
pub mod rtt_threshold;
pub mod wmecn;

use crate::net::packet::Packet;
use crate::sim::TimeNs;
use crate::tcp::rtt::RttEstimator;

pub use always_congestion::AlwaysCongestion;
pub use rtt_threshold::{
    BeforeSamplePolicy, RttThreshold, RttThresholdConfig, Threshold, TimeoutPolicy,
};
pub use wmecn::{WmecnClassifier, WmecnClassifierConfig};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossCause {
    Congestion,
    /// Corruption or another loss that says nothing about congestion.
    NonCongestion,
}

/// How the sender detected the loss.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossDetection {
    DuplicateAcks,
    Timeout,
}

pub trait LossClassifier: Send {
    fn name(&self) -> &'static str;
    /// Observe an arriving ACK (marks, RTT) before it is processed.
    fn on_ack(&mut self, _now_ns: TimeNs, _ack: &Packet, _latest_rtt_ns: Option<TimeNs>) {}
    /// Classify a loss of the segment starting at `seq`; `rtt` is the
    /// sender's estimator (latest and minimum samples, SRTT).
    fn classify(
        &mut self,
        now_ns: TimeNs,
        seq: u64,
        how: LossDetection,
        rtt: &RttEstimator,
    ) -> LossCause;

    /// For a congestion verdict just returned by [`Self::classify`]: the
    /// fraction of cwnd to keep when the classifier grades congestion
    /// (WMECN §3.2: 0.8, 0.6 or 0.5). None: the congestion controller's own
    /// rule applies. Controllers that do not grade ignore it.
    fn graded_keep(&self) -> Option<f64> {
        None
    }

    /// Named counters (diagnostics and tests), e.g. WMECN's feedback counts.
    fn counters(&self) -> Vec<(&'static str, u64)> {
        Vec::new()
    }
}
