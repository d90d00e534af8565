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
//! Kicking changes no congestion-control state: cwnd, ssthresh, RTO,
//! backoff and RTT estimation are untouched, and kicks are not
//! retransmissions for the RTO logic (§2: "kicking is done independently of
//! the retransmission based on RTO values").

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
    pub kicks_sent: u64,
    pub kickbacks_received: u64,
}

impl KickTimer {
    pub fn new(cfg: KickConfig) -> Self {
        Self {
            cfg,
            deadline: None,
            rto_deadline: None,
            kicks_sent: 0,
            kickbacks_received: 0,
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
        match rto_deadline {
            Some(_) => self.arm(now_ns, core),
            None => self.deadline = None,
        }
    }

    fn on_packet(&mut self, _now_ns: TimeNs, pkt: &Packet) -> bool {
        if pkt.kind == PacketKind::TcpAck && pkt.has_flag(KICK) {
            // Draft §2: a kickback stops the kick timer and is discarded;
            // it is not an ACK to TCP.
            self.kickbacks_received += 1;
            self.deadline = None;
            return true;
        }
        false
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
        ]
    }
}
