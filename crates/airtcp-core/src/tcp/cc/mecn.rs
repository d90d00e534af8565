//! The MECN source response (WMECN paper §2.3) and WMECN's graded loss
//! response (§3.2): Sridharan, Durresi, Liu, Jain, "Wireless TCP
//! Enhancements Using Multi-level ECN", after Durresi et al., SCI 2001.
//!
//! Window growth is Reno's (RFC 5681 §3.1; "when there is no congestion,
//! the cwnd is allowed to grow additively as usual"), on ACKs that echo no
//! congestion only: an ACK echoing `10` or `11` never grows cwnd, also when
//! the once-per-RTT rule skips its cut (the sender,
//! `SenderCore::ack_reports_congestion`; ns-2's ECN alike). Reductions:
//!
//! * echoed `10` (incipient): cwnd decreased by beta1;
//! * echoed `11` (moderate): cwnd decreased by beta2;
//! * a drop (congestion loss): cwnd decreased by beta3 = 50%; in WMECN mode
//!   the loss classifier's grade replaces beta3 (cwnd x 0.8, 0.6 or 0.5,
//!   `crate::tcp::classify::wmecn`);
//! * at most once per RTT ([`CongestionControl::once_per_rtt`]: the sender
//!   skips a mark- or duplicate-ACK-triggered reduction within one SRTT of
//!   the previous one). A timeout is not suppressed: it means the ACK
//!   clock stopped, and it takes the standard timeout response (cwnd = 1
//!   SMSS) with the graded ssthresh.
//!
//! A reduction sets ssthresh = max(keep * cwnd, 2 SMSS) and, for marks,
//! cwnd = min(ssthresh, cwnd) (as RFC 3168 §6.1.2 does for ECE: a mark
//! "decreases" cwnd, so the floor never raises it); after a loss, fast
//! recovery deflates to ssthresh. The fraction is applied to cwnd, the window
//! the document speaks of, not to FlightSize.
//!
//! **beta1 and beta2 (our choice).** The document gives no values, only
//! beta1 < beta2 < 50% ("less than 50% but more than 1"). We take
//! beta1 = 20% and beta2 = 40% by default: §3.1 says WMECN's sources "go
//! down only by 80% or 60%, instead of 50%", i.e. keep 0.8 on mild and 0.6
//! on moderate congestion, and using the same grades for MECN's marks makes
//! the two schemes differ only in what the document changes (marking and
//! loss filtering). Both are configurable (`beta1`, `beta2`, `beta3`).
//! WMECN sources react to marks like MECN sources (§3.1's remark on going
//! down once per RTT by 80% or 60% is about marks).

use super::{CongestionControl, RenoCc, Window};
use crate::sim::TimeNs;
use crate::tcp::mecn::MecnLevel;
use crate::tcp::rtt::RttEstimator;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MecnCcConfig {
    /// Decrease on `10`, a fraction of cwnd.
    pub beta1: f64,
    /// Decrease on `11`.
    pub beta2: f64,
    /// Decrease on a congestion loss (the document: 50%).
    pub beta3: f64,
    /// WMECN: apply the classifier's graded reduction to congestion losses.
    pub graded_losses: bool,
}

impl MecnCcConfig {
    pub fn mecn() -> Self {
        Self {
            beta1: 0.2,
            beta2: 0.4,
            beta3: 0.5,
            graded_losses: false,
        }
    }

    pub fn wmecn() -> Self {
        Self {
            graded_losses: true,
            ..Self::mecn()
        }
    }
}

#[derive(Clone, Debug)]
pub struct MecnCc {
    pub cfg: MecnCcConfig,
    reno: RenoCc,
}

impl MecnCc {
    pub fn new(cfg: MecnCcConfig) -> Self {
        Self { cfg, reno: RenoCc }
    }

    fn keep(w: &Window, keep: f64) -> u64 {
        ((w.cwnd as f64 * keep) as u64).max(2 * w.mss)
    }
}

impl CongestionControl for MecnCc {
    fn name(&self) -> &'static str {
        if self.cfg.graded_losses {
            "wmecn"
        } else {
            "mecn"
        }
    }

    fn on_ack(&mut self, w: &mut Window, acked: u64, now_ns: TimeNs, rtt: &RttEstimator) {
        self.reno.on_ack(w, acked, now_ns, rtt);
    }

    fn ssthresh_after_congestion(&mut self, w: &Window, _flight: u64) -> u64 {
        Self::keep(w, 1.0 - self.cfg.beta3)
    }

    fn mark_response(&self, level: MecnLevel) -> Option<f64> {
        match level {
            MecnLevel::Incipient => Some(1.0 - self.cfg.beta1),
            MecnLevel::Moderate => Some(1.0 - self.cfg.beta2),
            _ => None,
        }
    }

    fn ssthresh_after_graded_congestion(&mut self, w: &Window, flight: u64, keep: f64) -> u64 {
        if self.cfg.graded_losses {
            Self::keep(w, keep)
        } else {
            self.ssthresh_after_congestion(w, flight)
        }
    }

    fn once_per_rtt(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(cwnd_segments: u64) -> Window {
        Window {
            cwnd: cwnd_segments * 1000,
            ssthresh: u64::MAX,
            mss: 1000,
        }
    }

    #[test]
    fn mark_and_loss_reductions() {
        let mut m = MecnCc::new(MecnCcConfig::mecn());
        assert_eq!(m.mark_response(MecnLevel::NoCongestion), None);
        assert_eq!(m.mark_response(MecnLevel::Incipient), Some(0.8));
        assert_eq!(m.mark_response(MecnLevel::Moderate), Some(0.6));
        assert_eq!(m.ssthresh_after_congestion(&w(20), 5000), 10_000);
        // MECN ignores a classifier's grade: a drop is beta3.
        assert_eq!(m.ssthresh_after_graded_congestion(&w(20), 0, 0.8), 10_000);
        let mut wm = MecnCc::new(MecnCcConfig::wmecn());
        assert_eq!(wm.ssthresh_after_graded_congestion(&w(20), 0, 0.8), 16_000);
        assert_eq!(wm.ssthresh_after_graded_congestion(&w(20), 0, 0.6), 12_000);
        assert_eq!(wm.ssthresh_after_graded_congestion(&w(20), 0, 0.5), 10_000);
        // Never below 2 SMSS.
        assert_eq!(wm.ssthresh_after_graded_congestion(&w(2), 0, 0.5), 2000);
        assert!(wm.once_per_rtt());
    }
}
