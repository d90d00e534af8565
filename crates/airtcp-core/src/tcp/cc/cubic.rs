//! CUBIC congestion control, RFC 9438. Windows inside the controller are in
//! segments of SMSS (f64) and times in seconds, as the RFC writes them; the
//! sender's window stays in bytes, with the fraction of a byte each ACK
//! adds carried over to the next.
//!
//! * §4.10 slow start: RFC 5681's while cwnd < ssthresh (HyStart++ is not
//!   modelled: RFC 9438 permits but does not require it).
//! * §4.2 the window function W_cubic(t) = C (t - K)^3 + W_max with
//!   K = cbrt((W_max - cwnd_epoch) / C), t from the start of the current
//!   congestion avoidance stage; per ACK cwnd += (target - cwnd) / cwnd
//!   with target = W_cubic(t + SRTT) bounded to [cwnd, 1.5 cwnd].
//! * §4.3 the Reno-friendly region: W_est starts at cwnd_epoch and grows
//!   by alpha_cubic * segments_acked / cwnd per ACK, alpha_cubic =
//!   3 (1 - beta) / (1 + beta), and 1 once W_est >= cwnd_prior; when
//!   W_cubic(t) < W_est, cwnd follows W_est (never lowered by an ACK).
//! * §4.6 multiplicative decrease: ssthresh = max(flight_size * beta, 2)
//!   with flight_size = min(FlightSize, cwnd) (`reduced_flight`),
//!   cwnd_prior = cwnd, cwnd = ssthresh on a loss and max(flight_size *
//!   beta, 1) on ECN-Echo; §4.7 fast convergence first (W_max =
//!   cwnd (1 + beta) / 2 when cwnd < W_max, else cwnd).
//! * §5.8 (and §4.2): while the flow is application limited (it uses less
//!   than cwnd: no data to send, or the receiver's window holds it back)
//!   the sender lets no ACK grow the window (cwnd and W_est stay), and t
//!   leaves the time out: the stage's start moves later by it when the
//!   window is in use again.
//! * §4.8 after a timeout (and §4.10 after a slow start without loss) the
//!   next stage starts with W_max = cwnd_epoch, so K = 0 (as also when
//!   cwnd_epoch >= W_max, Linux's rule).

use super::{CongestionControl, Window};
use crate::sim::{TimeNs, NS_PER_S};
use crate::tcp::rtt::RttEstimator;

/// The RFC's constants (§4.1.1, §4.6, §4.7).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CubicConfig {
    /// C, segments per second cubed (RFC 9438: 0.4).
    pub c: f64,
    /// beta_cubic, the fraction of the window kept at a congestion event
    /// (RFC 9438: 0.7).
    pub beta: f64,
    /// §4.7 fast convergence (RFC 9438: RECOMMENDED, on).
    pub fast_convergence: bool,
}

impl Default for CubicConfig {
    fn default() -> Self {
        Self {
            c: 0.4,
            beta: 0.7,
            fast_convergence: true,
        }
    }
}

/// The state of one congestion avoidance stage (RFC 9438 §4.1.2).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Epoch {
    /// t_epoch.
    start_ns: TimeNs,
    /// K, seconds.
    k_s: f64,
    /// W_max of this stage, segments.
    w_max: f64,
    /// W_est, segments.
    w_est: f64,
}

#[derive(Clone, Debug)]
pub struct Cubic {
    cfg: CubicConfig,
    /// W_max, segments; None while undefined (before the first congestion
    /// event and after a timeout): the next stage sets it to cwnd_epoch.
    w_max: Option<f64>,
    /// cwnd_prior, segments: cwnd when ssthresh was last set.
    cwnd_prior: Option<f64>,
    epoch: Option<Epoch>,
    /// Bytes of window growth below one byte, not yet added to cwnd.
    carry_bytes: f64,
    /// flight_size x beta_cubic at the last congestion event, bytes, before
    /// the 2-segment floor (§4.6: an ECE reduction floors cwnd at 1 SMSS).
    reduced_bytes: u64,
    /// §5.8: since when the flow has been application limited, if it is.
    limited_since_ns: Option<TimeNs>,
}

impl Cubic {
    pub fn new(cfg: CubicConfig) -> Self {
        Self {
            cfg,
            w_max: None,
            cwnd_prior: None,
            epoch: None,
            carry_bytes: 0.0,
            reduced_bytes: 0,
            limited_since_ns: None,
        }
    }

    /// alpha_cubic of §4.3 before its switch to 1.
    pub fn reno_friendly_alpha(&self) -> f64 {
        3.0 * (1.0 - self.cfg.beta) / (1.0 + self.cfg.beta)
    }

    /// W_cubic(t) of the current stage, segments (§4.2 Figure 1).
    fn w_cubic(&self, e: &Epoch, t_s: f64) -> f64 {
        self.cfg.c * (t_s - e.k_s).powi(3) + e.w_max
    }

    /// A congestion avoidance stage begins with cwnd = `cwnd` segments.
    fn start_epoch(&mut self, now_ns: TimeNs, cwnd: f64) -> Epoch {
        // §4.10: leaving slow start without a congestion event leaves
        // W_max undefined; cwnd_prior = cwnd.
        if self.cwnd_prior.is_none() {
            self.cwnd_prior = Some(cwnd);
        }
        let w_max = match self.w_max {
            Some(m) if m > cwnd => m,
            _ => cwnd,
        };
        self.w_max = Some(w_max);
        Epoch {
            start_ns: now_ns,
            // §4.2 Figure 2.
            k_s: ((w_max - cwnd) / self.cfg.c).cbrt(),
            w_max,
            // §4.3: W_est = cwnd_epoch at the start of the stage.
            w_est: cwnd,
        }
    }

    /// (W_max, K in seconds, W_est) of the current stage, for tests.
    pub fn stage(&self) -> Option<(f64, f64, f64)> {
        self.epoch.map(|e| (e.w_max, e.k_s, e.w_est))
    }

    /// W_max, segments, if defined.
    pub fn w_max(&self) -> Option<f64> {
        self.w_max
    }

    /// cwnd_prior, segments, if set.
    pub fn cwnd_prior(&self) -> Option<f64> {
        self.cwnd_prior
    }
}

/// The flight_size of §4.6 Figure 5 (`ssthresh = flight_size *
/// beta_cubic`): RFC 5681's FlightSize, but never more than cwnd.
///
/// §4.6 says what the reduction is for: "CUBIC updates W_max and reduces
/// cwnd and ssthresh immediately" and "In case of packet loss, the sender
/// MUST reduce cwnd and ssthresh immediately upon entering loss recovery,
/// similar to [RFC5681] (and [RFC6675])", whose §3.2 step 2 sets ssthresh
/// "to no more than the value given in equation (4)". Its flight_size is
/// "the amount of outstanding (unacknowledged) data in the network, as
/// defined in [RFC5681]", which counts SACKed data: after an RFC 6675
/// recovery, segments SACKed above a new hole can leave FlightSize far
/// above cwnd (the data pipe let out while they left the pipe), and
/// FlightSize x 0.7 then raises cwnd at a congestion event, into the queue
/// that just dropped. Reno's 0.5 needs FlightSize above twice cwnd for
/// that; CUBIC's 0.7 only above 1.43 cwnd. Below cwnd (an application- or
/// receiver-limited flow) the text's flight_size stands: §4.6 discusses
/// that case ("significantly less than cwnd") and points to RFC 7661, not
/// to cwnd. The section's note that "Some implementations of CUBIC
/// currently use cwnd instead of flight_size" only when they also
/// "prevent cwnd from growing when the volume of bytes in flight is smaller
/// than cwnd" bounds the other side; min(FlightSize, cwnd) is both. §4.8's
/// timeout sets ssthresh "same as in Section 4.6", so it reads the same.
fn reduced_flight(w: &Window, flight: u64) -> u64 {
    flight.min(w.cwnd)
}

impl CongestionControl for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }

    fn on_ack(&mut self, w: &mut Window, acked: u64, now_ns: TimeNs, rtt: &RttEstimator) {
        if w.cwnd < w.ssthresh {
            // §4.10 / RFC 5681 (2).
            w.cwnd += acked.min(w.mss);
            return;
        }
        let mss = w.mss as f64;
        let cwnd = (w.cwnd as f64 + self.carry_bytes) / mss;
        let mut e = match self.epoch {
            Some(e) => e,
            None => self.start_epoch(now_ns, cwnd),
        };
        let t_s = now_ns.saturating_sub(e.start_ns) as f64 / NS_PER_S as f64;
        // §4.3 Figure 4, alpha_cubic = 1 once W_est >= cwnd_prior.
        let alpha = if self.cwnd_prior.is_some_and(|p| e.w_est >= p) {
            1.0
        } else {
            self.reno_friendly_alpha()
        };
        e.w_est += alpha * (acked as f64 / mss) / cwnd;
        self.epoch = Some(e);
        let next = if self.w_cubic(&e, t_s) < e.w_est {
            // §4.3: in the Reno-friendly region cwnd = W_est (an ACK never
            // lowers cwnd: W_est can lag a cwnd the target grew earlier).
            e.w_est.max(cwnd)
        } else {
            // Concave and convex regions (§4.4, §4.5).
            let srtt_s = rtt.srtt_ns().unwrap_or(0) as f64 / NS_PER_S as f64;
            let target = self.w_cubic(&e, t_s + srtt_s).clamp(cwnd, 1.5 * cwnd);
            cwnd + (target - cwnd) / cwnd
        };
        let bytes = next * mss;
        w.cwnd = bytes.floor() as u64;
        self.carry_bytes = bytes - bytes.floor();
    }

    fn ssthresh_after_congestion(&mut self, w: &Window, flight: u64) -> u64 {
        let cwnd = w.cwnd as f64 / w.mss as f64;
        // §4.7, before the reduction.
        self.w_max = Some(match self.w_max {
            Some(m) if self.cfg.fast_convergence && cwnd < m => cwnd * (1.0 + self.cfg.beta) / 2.0,
            _ => cwnd,
        });
        // §4.6 Figure 5.
        self.cwnd_prior = Some(cwnd);
        self.epoch = None;
        self.carry_bytes = 0.0;
        // §4.6: flight_size, read as at most cwnd (`reduced_flight`).
        self.reduced_bytes = (reduced_flight(w, flight) as f64 * self.cfg.beta) as u64;
        self.reduced_bytes.max(2 * w.mss)
    }

    /// §4.6 Figure 5: on ECE, cwnd = max(flight_size x beta_cubic, 1).
    fn cwnd_after_ece(&self, w: &Window) -> u64 {
        self.reduced_bytes.max(w.mss)
    }

    /// The same reduction: RFC 9438 reads no floor choice.
    fn reduction_before_floor(&self, _w: &Window, _flight: u64) -> u64 {
        self.reduced_bytes
    }

    /// §5.8: "CUBIC does not increase its congestion window if a flow is
    /// application limited" (the sender does not call `on_ack` then, nor
    /// HyStart++ in its place).
    fn holds_window_while_application_limited(&self) -> bool {
        true
    }

    fn on_application_limited(&mut self, now_ns: TimeNs, limited: bool) {
        if limited {
            self.limited_since_ns = Some(now_ns);
        } else if let Some(since_ns) = self.limited_since_ns.take() {
            // §4.2: t "MUST NOT include" the limited period. A stage only
            // starts on an ACK that may grow the window, so one running now
            // started before the period.
            if let Some(e) = self.epoch.as_mut() {
                e.start_ns += now_ns - since_ns;
            }
        }
    }

    fn on_retransmission_timeout(&mut self) {
        // §4.8: the first stage after a timeout uses K = 0 and W_max =
        // cwnd at its start.
        self.w_max = None;
        self.epoch = None;
        self.carry_bytes = 0.0;
    }
}
