//! Loss recovery: *what* to send after duplicate ACKs signal a loss.
//! One strategy per file: Tahoe (go-back-N), Reno (RFC 5681 §3.2), NewReno
//! (RFC 6582) and SACK-based recovery (RFC 6675), with the DupThresh loss
//! detection each RFC has; `rack.rs` is SACK recovery with RACK-TLP's
//! time-based loss detection and tail loss probe (RFC 8985) instead.

pub mod newreno;
pub mod prr;
pub mod rack;
pub mod reno;
pub mod sack;
pub mod tahoe;

use crate::net::packet::Packet;
use crate::sim::TimeNs;
use crate::tcp::core::SenderCore;

pub use newreno::NewRenoRecovery;
pub use prr::{PrrAck, PrrEpisode};
pub use rack::{RackState, RackTlpConfig, RackTlpRecovery};
pub use reno::RenoRecovery;
pub use sack::SackRecovery;
pub use tahoe::TahoeRecovery;

/// What the sender should still do after a recovery strategy saw a new ACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NewAckOutcome {
    /// Restart the retransmission timer (RFC 6298 (5.3)).
    pub restart_timer: bool,
}

impl Default for NewAckOutcome {
    fn default() -> Self {
        Self {
            restart_timer: true,
        }
    }
}

pub trait LossRecovery: Send {
    fn name(&self) -> &'static str;

    /// Whether sending in recovery follows the RFC 6675 scoreboard (pipe and
    /// NextSeg) rather than cwnd over snd_nxt.
    fn uses_sack_scoreboard(&self) -> bool {
        false
    }

    /// A duplicate ACK arrived; `core.dupacks` already counts it and the
    /// scoreboard holds its SACK blocks.
    fn on_duplicate_ack(&mut self, core: &mut SenderCore, now_ns: TimeNs, out: &mut Vec<Packet>);

    /// A cumulative ACK advanced snd_una by `acked` bytes (already removed
    /// from the scoreboard). While `core.in_recovery` stays true, the
    /// congestion controller does not grow the window.
    fn on_new_ack(
        &mut self,
        core: &mut SenderCore,
        acked: u64,
        now_ns: TimeNs,
        out: &mut Vec<Packet>,
    ) -> NewAckOutcome;

    /// The retransmission timer expired: drop any recovery state. Called
    /// after the timeout response marked what it deems lost.
    fn on_timeout(&mut self, _core: &mut SenderCore, _now_ns: TimeNs, _out: &mut Vec<Packet>) {}

    /// Called once when the sender is built.
    fn attach(&mut self, _core: &mut SenderCore) {}

    /// Called after `on_new_ack` / `on_duplicate_ack` for every acceptable
    /// ACK of the standard path (`acked` new bytes), before sending.
    fn after_ack(
        &mut self,
        _core: &mut SenderCore,
        _ack: &Packet,
        _acked: u64,
        _now_ns: TimeNs,
        _out: &mut Vec<Packet>,
    ) {
    }

    /// Called at the end of every sender entry point (start, write, ACK,
    /// timer), after sending.
    fn after_event(&mut self, _core: &mut SenderCore, _now_ns: TimeNs) {}

    /// A timer of the strategy's own (RACK's reordering timer, TLP's PTO).
    fn deadline(&self) -> Option<TimeNs> {
        None
    }

    /// RACK's state, for tests and diagnostics (None: no RACK).
    fn rack_state(&self, _core: &SenderCore) -> Option<RackState> {
        None
    }

    /// Its timer expired (`deadline() <= now_ns`).
    fn on_timer(&mut self, _core: &mut SenderCore, _now_ns: TimeNs, _out: &mut Vec<Packet>) {}
}
