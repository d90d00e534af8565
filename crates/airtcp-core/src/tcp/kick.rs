//! Kick TCP at the mobile host (Bahk, Kim, Kim, "Spurring TCP retransmission
//! upon wireless uplink losses", draft-bahk-pilc-tcp-wireless-00, 2001, §2).
//!
//! A kick timer runs beside the retransmission timer: it is set or reset
//! whenever the retransmission timer is set or reset, and stopped when it
//! is stopped. When it expires before the retransmission timer, the host
//! sends a *kick segment*: the segment the RTO would retransmit, with the K
//! bit set and a small IP TTL so that it cannot travel beyond the wireless
//! network. Kicks repeat at the kick interval until a *kickback* (an ACK
//! with the K bit from the kick-aware intermediate node) arrives; the
//! kickback stops the kick timer and is discarded, never seen by TCP.
//!
//! A kickback must answer a kick of the segment the timer now guards: its
//! ACK number is the end of the kicked segment (§2: the node "sends an ACK
//! for the segment with the K bit set"), and only a kickback for the latest
//! kick sent since the retransmission timer last set the kick timer stops
//! it. A kickback for a kick sent before that (the segment since
//! acknowledged, or the timer restarted by a timeout or a fast retransmit)
//! is stale: discarded and counted, the kick timer left running.
//!
//! Sending a kick changes no congestion-control state: cwnd, ssthresh, the
//! RTO and its backoff stay as they are, and kicks are not retransmissions
//! for the RTO logic (§2: "kicking is done independently of the
//! retransmission based on RTO values").
//!
//! RTT estimation is NOT untouched. A kick is "an early retransmission"
//! (§2), so Karn's rule (RFC 6298 §3: "RTT samples MUST NOT be made using
//! segments that were retransmitted") applies to it: once a copy of the
//! timed segment (or of an earlier one) has been kicked, the ACK covering
//! the timed segment may answer the kick, so it gives no RTT sample. Since
//! only a new sample "collapses" a backed-off RTO (RFC 6298 §5, after
//! (5.7)), that ACK leaves the backoff as it was. Without this rule the ACK
//! of a kicked segment would time the original send: samples of seconds on
//! a path of tens of milliseconds, inflating SRTT, hence the kick interval
//! (the smoothed RTT) and the RTO, an error that feeds on itself.

use crate::net::packet::{flags, Packet, PacketKind};
use crate::sim::TimeNs;
use crate::tcp::core::{SenderCore, SenderHook, TraceEvent};

/// The K bit: the first reserved bit of the TCP header (draft §2: "one bit
/// among the 6 reserved bits").
pub const KICK: u16 = flags::RESERVED_4;

/// How long the kick timer runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum KickInterval {
    /// The sender's smoothed RTT (RFC 6298 SRTT). Before the first RTT
    /// sample there is no estimate and `before_sample_ns` is used.
    SmoothedRtt { before_sample_ns: TimeNs },
    /// A fixed interval (the draft's simulation: the connection's RTT).
    Fixed(TimeNs),
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KickConfig {
    pub interval: KickInterval,
    /// IP TTL of kick segments: 1 reaches the next node and dies if that
    /// node forwards it without being kick-aware.
    pub ttl: u8,
}

#[derive(Clone, Debug)]
pub struct KickTimer {
    pub cfg: KickConfig,
    deadline: Option<TimeNs>,
    /// When the retransmission timer expires: kicks happen only before it.
    rto_deadline: Option<TimeNs>,
    /// End sequence number of the latest kick sent since the retransmission
    /// timer last set this timer: the ACK number its kickback carries.
    awaited_kickback: Option<u64>,
    pub kicks_sent: u64,
    /// Kickbacks that answered the latest kick and stopped the kick timer.
    pub kickbacks_received: u64,
    /// Kickbacks for an earlier kick (or for no kick of this sender's),
    /// discarded without stopping the kick timer.
    pub stale_kickbacks: u64,
}

impl KickTimer {
    pub fn new(cfg: KickConfig) -> Self {
        Self {
            cfg,
            deadline: None,
            rto_deadline: None,
            awaited_kickback: None,
            kicks_sent: 0,
            kickbacks_received: 0,
            stale_kickbacks: 0,
        }
    }

    fn interval_ns(&self, core: &SenderCore) -> TimeNs {
        let d = match self.cfg.interval {
            KickInterval::Fixed(d) => d,
            KickInterval::SmoothedRtt { before_sample_ns } => {
                core.rtt.srtt_ns().unwrap_or(before_sample_ns)
            }
        };
        d.max(1)
    }

    /// Arm the kick timer one interval from now if that is before the RTO.
    fn arm(&mut self, now_ns: TimeNs, core: &SenderCore) {
        let at = now_ns + self.interval_ns(core);
        self.deadline = self.rto_deadline.filter(|&rto| at < rto).map(|_| at);
    }
}

impl SenderHook for KickTimer {
    fn name(&self) -> &'static str {
        "kick"
    }

    fn on_rto_timer_changed(
        &mut self,
        now_ns: TimeNs,
        rto_deadline: Option<TimeNs>,
        core: &SenderCore,
    ) {
        self.rto_deadline = rto_deadline;
        // Kicks sent before this point answer for a timer that is gone.
        self.awaited_kickback = None;
        match rto_deadline {
            Some(_) => self.arm(now_ns, core),
            None => self.deadline = None,
        }
    }

    fn on_packet(&mut self, _now_ns: TimeNs, pkt: &Packet) -> bool {
        if pkt.kind != PacketKind::TcpAck || !pkt.has_flag(KICK) {
            return false;
        }
        // Draft §2: a kickback stops the kick timer and is discarded; it is
        // not an ACK to TCP. Only one that answers the latest kick counts.
        if self.awaited_kickback == Some(pkt.ack) {
            self.kickbacks_received += 1;
            self.awaited_kickback = None;
            self.deadline = None;
        } else {
            self.stale_kickbacks += 1;
        }
        true
    }

    fn deadline(&self) -> Option<TimeNs> {
        self.deadline
    }

    fn on_timer(&mut self, now_ns: TimeNs, core: &mut SenderCore, out: &mut Vec<Packet>) {
        self.deadline = None;
        if self.rto_deadline.is_none_or(|rto| now_ns >= rto) {
            return;
        }
        if let Some(mut kick) = core.copy_of_first_segment(now_ns) {
            kick.set_flag(KICK, true);
            kick.ttl = self.cfg.ttl;
            core.trace(now_ns, TraceEvent::Kick { seq: kick.seq });
            self.awaited_kickback = Some(kick.end_seq());
            out.push(kick);
            self.kicks_sent += 1;
            // Kicks repeat at the kick interval until a kickback arrives.
            self.arm(now_ns, core);
        }
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("kicks_sent", self.kicks_sent),
            ("kickbacks_received", self.kickbacks_received),
            ("stale_kickbacks", self.stale_kickbacks),
        ]
    }
}
