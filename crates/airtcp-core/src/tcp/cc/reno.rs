//! Standard TCP congestion control, RFC 5681 §3.1: slow start and
//! congestion avoidance, and ssthresh = max(FlightSize / 2, 2 * SMSS).

use super::{CongestionControl, Window};
use crate::sim::TimeNs;
use crate::tcp::rtt::RttEstimator;

#[derive(Clone, Debug, Default)]
pub struct RenoCc;

impl CongestionControl for RenoCc {
    fn name(&self) -> &'static str {
        "reno"
    }

    fn on_ack(&mut self, w: &mut Window, acked: u64, _now_ns: TimeNs, _rtt: &RttEstimator) {
        if w.cwnd < w.ssthresh {
            // RFC 5681 (2): cwnd += min(N, SMSS) per ACK in slow start.
            w.cwnd += acked.min(w.mss);
        } else {
            // RFC 5681 (3): cwnd += SMSS * SMSS / cwnd per ACK, at least 1 byte.
            w.cwnd += (w.mss * w.mss / w.cwnd).max(1);
        }
    }

    fn ssthresh_after_congestion(&mut self, w: &Window, flight: u64) -> u64 {
        // RFC 5681 (4): max(FlightSize / 2, 2 SMSS).
        self.reduction_before_floor(w, flight).max(2 * w.mss)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_start_then_avoidance() {
        let mut cc = RenoCc;
        let rtt = RttEstimator::new(Default::default());
        let mut w = Window {
            cwnd: 1000,
            ssthresh: 3000,
            mss: 1000,
        };
        cc.on_ack(&mut w, 1000, 0, &rtt);
        cc.on_ack(&mut w, 2000, 0, &rtt); // min(N, SMSS)
        assert_eq!(w.cwnd, 3000);
        cc.on_ack(&mut w, 1000, 0, &rtt);
        assert_eq!(w.cwnd, 3333);
        assert_eq!(cc.ssthresh_after_congestion(&w, 10_000), 5000);
        assert_eq!(cc.ssthresh_after_congestion(&w, 1000), 2000);
    }
}
