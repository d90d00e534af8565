//! Congestion control: *how much* to send. A controller grows the window on
//! ACKs outside loss recovery and chooses ssthresh when the sender decides a
//! loss was congestion. Loss recovery, timeout response and loss
//! classification live in their own folders.

pub mod cubic;
pub mod hystart;
pub mod mecn;
pub mod reno;
pub mod westwood;

use crate::sim::TimeNs;
use crate::tcp::mecn::MecnLevel;
use crate::tcp::rtt::RttEstimator;

pub use cubic::{Cubic, CubicConfig};
pub use hystart::HyStart;
pub use mecn::{MecnCc, MecnCcConfig};
pub use reno::RenoCc;
pub use westwood::{Westwood, WestwoodConfig, WestwoodFilter};

/// The window state a controller acts on.
#[derive(Clone, Copy, Debug)]
pub struct Window {
    pub cwnd: u64,
    pub ssthresh: u64,
    pub mss: u64,
}

pub trait CongestionControl: Send {
    fn name(&self) -> &'static str;

    /// `acked` new bytes were cumulatively acknowledged outside loss
    /// recovery; grow the window. `rtt` already holds this ACK's sample.
    fn on_ack(&mut self, w: &mut Window, acked: u64, now_ns: TimeNs, rtt: &RttEstimator);

    /// The ssthresh to use after a congestion signal with `flight` bytes
    /// outstanding.
    fn ssthresh_after_congestion(&mut self, w: &Window, flight: u64) -> u64;

    /// Every ACK the sender accepts, before any processing: `acked` new
    /// bytes it acknowledges (0 for a duplicate ACK, `dupack`). For
    /// bandwidth estimation (Westwood).
    fn on_ack_arrival(&mut self, _now_ns: TimeNs, _acked: u64, _dupack: bool, _rtt: &RttEstimator) {
    }

    /// cwnd after an ECN-Echo reduction, called right after
    /// `ssthresh_after_congestion` set `w.ssthresh`: RFC 3168 §6.1.2's
    /// cwnd = ssthresh unless the controller floors it differently.
    fn cwnd_after_ece(&self, w: &Window) -> u64 {
        w.ssthresh
    }

    /// The reduced window before RFC 5681's 2-SMSS floor (ssthresh is
    /// max(this, 2 SMSS)), for an ECN-Echo reduction that may go below two
    /// segments (`MarkWindowFloor::OneSegment`); called right after
    /// `ssthresh_after_congestion`. RFC 5681 (4): FlightSize / 2.
    fn reduction_before_floor(&self, _w: &Window, flight: u64) -> u64 {
        flight / 2
    }

    /// The retransmission timer expired (after the timeout's congestion
    /// signal, if any, set ssthresh): CUBIC forgets W_max (RFC 9438 §4.8).
    fn on_retransmission_timeout(&mut self) {}

    /// Whether the window must not grow while the flow is application
    /// limited (RFC 9438 §5.8): the sender then skips the growth, HyStart++
    /// included. RFC 5681's controllers have no such rule.
    fn holds_window_while_application_limited(&self) -> bool {
        false
    }

    /// The flow became application limited (`limited`: it uses less than
    /// its congestion window, RFC 9438 §5.8) or stopped being so, at
    /// `now_ns`. CUBIC leaves the time out of its window function's t;
    /// RFC 5681's controllers have no such rule and ignore it.
    fn on_application_limited(&mut self, _now_ns: TimeNs, _limited: bool) {}

    /// MECN §2.3: the congestion level echoed on an ACK; return the
    /// fraction of cwnd to keep, or None for no reduction.
    fn mark_response(&self, _level: MecnLevel) -> Option<f64> {
        None
    }

    /// ssthresh after a congestion verdict the classifier graded: `keep`
    /// is the fraction of cwnd to keep (WMECN §3.2). By default the grade is
    /// ignored and the controller's own rule applies.
    fn ssthresh_after_graded_congestion(&mut self, w: &Window, flight: u64, _keep: f64) -> u64 {
        self.ssthresh_after_congestion(w, flight)
    }

    /// Reduce at most once per RTT (MECN §2.3, WMECN §3.2): within one
    /// SRTT of the last reduction, marks and duplicate-ACK losses do not
    /// reduce again (the loss is still retransmitted and its verdict
    /// scored).
    fn once_per_rtt(&self) -> bool {
        false
    }

    /// A bandwidth estimator's current estimate in bits per second
    /// (Westwood's BWE), for tests and diagnostics.
    fn bwe_bps(&self) -> Option<f64> {
        None
    }
}
