//! Congestion control: *how much* to send. A controller grows the window on
//! ACKs outside loss recovery and chooses ssthresh when the sender decides a
//! loss was congestion. Loss recovery, timeout response and loss
//! classification live in their own folders.

pub mod reno;

use crate::sim::TimeNs;

pub use reno::RenoCc;

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
    /// recovery; grow the window.
    fn on_ack(&mut self, w: &mut Window, acked: u64, now_ns: TimeNs, rtt_ns: Option<TimeNs>);

    /// The ssthresh to use after a congestion signal with `flight` bytes
    /// outstanding.
    fn ssthresh_after_congestion(&mut self, w: &Window, flight: u64) -> u64;
}
