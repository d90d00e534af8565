//! The TCP data sender, sans-I/O: it takes (now, packet) or (now, timer) and
//! appends the segments to send to an output vector; the caller owns the
//! clock and the network. [`TcpSender`] composes the shared state
//! ([`SenderCore`], `core.rs`) with the pluggable decisions behind four
//! traits:
//!
//! * how much to send — [`CongestionControl`] (`cc/`),
//! * what to send in loss recovery — [`LossRecovery`] (`recovery/`),
//! * what to do on a retransmission timeout — [`TimeoutResponse`] (`rto/`),
//! * why a loss happened — [`LossClassifier`] (`classify/`),
//!
//! plus an optional [`SenderHook`] with a timer of its own (Kick TCP).

use crate::net::packet::{flags, Packet};
use crate::sim::TimeNs;
use crate::tcp::cc::CongestionControl;
use crate::tcp::classify::LossClassifier;
use crate::tcp::recovery::LossRecovery;
use crate::tcp::rto::TimeoutResponse;

pub use crate::tcp::core::{
    ConnState, LossDecision, SenderConfig, SenderCore, SenderHook, SenderStats, TraceEvent,
};

/// A TCP sender: the core plus its pluggable parts. In declaration order
/// (`repr(C)`): the parts, which every event calls, then the core, hot
/// part first ([`TcpSender::HOT_BYTES`]).
#[repr(C)]
pub struct TcpSender {
    pub recovery: Box<dyn LossRecovery>,
    pub timeout: Box<dyn TimeoutResponse>,
    pub hook: Option<Box<dyn SenderHook>>,
    pub core: SenderCore,
}

impl TcpSender {
    /// The bytes at the start of a sender that its events touch (the rest
    /// is read when the connection starts, or on rare losses): what the
    /// event loop hints into cache before a sender's event.
    pub const HOT_BYTES: usize = std::mem::offset_of!(TcpSender, core) + SenderCore::HOT_BYTES;

    pub fn new(
        cfg: SenderConfig,
        cc: Box<dyn CongestionControl>,
        recovery: Box<dyn LossRecovery>,
        timeout: Box<dyn TimeoutResponse>,
        classifier: Box<dyn LossClassifier>,
        hook: Option<Box<dyn SenderHook>>,
    ) -> Self {
        let sack_enabled = recovery.uses_sack_scoreboard();
        let mut core = SenderCore::new(cfg, cc, classifier, sack_enabled);
        let mut recovery = recovery;
        recovery.attach(&mut core);
        Self {
            core,
            recovery,
            timeout,
            hook,
        }
    }

    /// Open the connection (SYN) or, without a handshake, start established.
    pub fn start(&mut self, now_ns: TimeNs, out: &mut Vec<Packet>) {
        self.with_hook_notification(now_ns, |s| {
            if s.core.cfg.handshake {
                s.core.state = ConnState::SynSent;
                s.core.send_syn(now_ns, out);
            } else {
                s.core.state = ConnState::Established;
                s.core.send_pending(now_ns, out);
            }
        });
    }

    /// The application makes `bytes` more available to send.
    pub fn app_write(&mut self, now_ns: TimeNs, bytes: u64, out: &mut Vec<Packet>) {
        self.with_hook_notification(now_ns, |s| {
            s.core.app_limit = s.core.app_limit.saturating_add(bytes);
            s.core.send_pending(now_ns, out);
        });
    }

    /// Earliest time the sender needs [`Self::on_timer`].
    pub fn next_deadline(&self) -> Option<TimeNs> {
        [
            self.core.rto_deadline,
            self.core.ece_hold_until,
            self.hook.as_ref().and_then(|h| h.deadline()),
            self.recovery.deadline(),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// Fire whatever timers are due. Returns the sequence number the RTO
    /// retransmits if the retransmission timer expired.
    pub fn on_timer(&mut self, now_ns: TimeNs, out: &mut Vec<Packet>) -> Option<u64> {
        let mut expired = None;
        self.with_hook_notification(now_ns, |s| {
            // RFC 3168 §6.1.2's wait after an ECN-Echo at a window of one.
            let hold_over = s.core.ece_hold_until.is_some_and(|d| d <= now_ns);
            if hold_over {
                s.core.ece_hold_until = None;
            }
            // The recovery strategy's timer first: a tail loss probe due
            // with the RTO goes out instead of it (RFC 8985 §7.2 caps the
            // PTO at the RTO's expiry; the probe restarts the RTO).
            if s.recovery.deadline().is_some_and(|d| d <= now_ns) {
                s.recovery.on_timer(&mut s.core, now_ns, out);
            }
            if s.core.rto_deadline.is_some_and(|d| d <= now_ns) {
                s.core.rto_deadline = None;
                if s.core.state == ConnState::SynSent {
                    // RFC 6298 (5.5)-(5.7) for the SYN.
                    s.core.on_syn_timeout(now_ns, out);
                } else if s.core.snd_una < s.core.snd_max {
                    expired = Some(s.core.snd_una);
                    s.timeout
                        .on_timeout(&mut s.core, s.recovery.as_mut(), now_ns, out);
                }
            }
            if let Some(h) = s.hook.as_mut() {
                if h.deadline().is_some_and(|d| d <= now_ns) {
                    h.on_timer(now_ns, &mut s.core, out);
                }
            }
            if hold_over {
                s.core.send_pending(now_ns, out);
            }
        });
        expired
    }

    /// Process an arriving packet for this sender (ACK or SYN-ACK).
    pub fn on_packet(&mut self, now_ns: TimeNs, pkt: &Packet, out: &mut Vec<Packet>) {
        if let Some(h) = self.hook.as_mut() {
            if h.on_packet(now_ns, pkt) {
                return;
            }
        }
        self.with_hook_notification(now_ns, |s| s.process_ack(now_ns, pkt, out));
    }

    /// Run `f` and tell the hook if the retransmission timer changed.
    fn with_hook_notification(&mut self, now_ns: TimeNs, f: impl FnOnce(&mut Self)) {
        self.core.account_cwnd(now_ns);
        let before = self.core.rto_generation;
        f(self);
        self.recovery.after_event(&mut self.core, now_ns);
        self.core.note_window_use(now_ns);
        if self.core.rto_generation != before {
            let deadline = self.core.rto_deadline;
            if let Some(h) = self.hook.as_mut() {
                h.on_rto_timer_changed(now_ns, deadline, &self.core);
            }
        }
    }

    fn process_ack(&mut self, now_ns: TimeNs, ack: &Packet, out: &mut Vec<Packet>) {
        let c = &mut self.core;
        if ack.has_flag(flags::SYN) {
            c.on_syn_ack(now_ns, ack, out);
            return;
        }
        if c.state != ConnState::Established || !ack.has_flag(flags::ACK) {
            return;
        }
        c.classifier.on_ack(now_ns, ack, c.rtt.latest_rtt_ns());
        if ack.ack >= c.snd_una && ack.ack <= c.snd_max {
            // Bandwidth estimators see every acceptable ACK (Westwood).
            let acked = ack.ack - c.snd_una;
            let dupack = acked == 0 && ack.payload_len == 0 && c.snd_max > c.snd_una;
            c.cc.on_ack_arrival(now_ns, acked, dupack, &c.rtt);
        }
        if self
            .timeout
            .on_ack(&mut self.core, self.recovery.as_mut(), ack, now_ns, out)
        {
            return;
        }
        self.process_ack_standard(now_ns, ack, out);
    }

    /// The standard ACK path (RFC 5681, RFC 6298, RFC 6675, RFC 3168),
    /// then the timeout response's `after_ack`, then sending.
    pub fn process_ack_standard(&mut self, now_ns: TimeNs, ack: &Packet, out: &mut Vec<Packet>) {
        let c = &mut self.core;
        if ack.ack > c.snd_max || ack.ack < c.snd_una {
            return; // acknowledges something never sent, or stale
        }
        c.congestion_echo(now_ns, ack);
        let rwnd_before = c.rwnd;
        let acked = c.apply_ack(now_ns, ack, true);
        let c = &mut self.core;
        // Duplicate ACK: RFC 6675 §2 with SACK (new SACK information, even
        // on an ACK that also advances the cumulative point); otherwise
        // RFC 5681 §2 (nothing new acknowledged, no data, data
        // outstanding, the same advertised window).
        let duplicate = if c.sack_enabled {
            c.newly_sacked_bytes > 0
        } else {
            acked == 0 && ack.payload_len == 0 && c.snd_max > c.snd_una && ack.wnd == rwnd_before
        };
        // RFC 3168 §6.1.2, MECN §2.3: no window growth on an ACK that
        // reports congestion, nor while an ECN-Echo's reduction is being
        // spread by PRR (RFC 9937 §4; to the ACK that ends it).
        let ece = c.ack_reports_congestion(ack) || c.ecn_reduction_under_way();
        if acked > 0 {
            let c = &mut self.core;
            let was_in_recovery = c.in_recovery;
            let outcome = self.recovery.on_new_ack(&mut self.core, acked, now_ns, out);
            let c = &mut self.core;
            if !was_in_recovery && !c.in_recovery && !ece {
                c.grow_window(now_ns, acked);
            }
            let may_restart = c.repair_next_hole(now_ns, out);
            // RFC 6298 (5.2) and (5.3).
            if c.snd_una >= c.snd_max {
                c.stop_rto_timer();
            } else if outcome.restart_timer && may_restart {
                c.restart_rto_timer(now_ns);
            }
        }
        if duplicate {
            self.core.dupacks += 1;
            self.core.note_duplicate_ack_for_prr();
            self.recovery.on_duplicate_ack(&mut self.core, now_ns, out);
        }
        self.recovery
            .after_ack(&mut self.core, ack, acked, now_ns, out);
        // RFC 9937 §6.2 (with the option, in fast recovery or an
        // ECN-Echo's episode).
        self.core.prr_after_ack(now_ns);
        // RFC 6675 §5: Limited Transmit (step (3)) only on an ACK that
        // revealed no loss (steps (1)-(2), or RACK's detection in
        // `after_ack`, go to step (4) instead): a retransmission is never
        // preceded by new data sent on the same ACK.
        if duplicate {
            self.core.limited_transmit(now_ns, out);
        }
        self.timeout.after_ack(&mut self.core, ack, acked, now_ns);
        self.core.send_pending(now_ns, out);
    }

    pub fn stats(&self) -> &SenderStats {
        &self.core.stats
    }
}
