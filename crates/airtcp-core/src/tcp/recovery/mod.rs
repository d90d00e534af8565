//! Loss recovery: *what* to send after duplicate ACKs signal a loss.
//! One strategy per file: Tahoe (go-back-N), Reno (RFC 5681 §3.2), NewReno
//! (RFC 6582) and SACK-based recovery (RFC 6675).

pub mod newreno;
pub mod reno;
pub mod sack;
pub mod tahoe;

use crate::net::packet::Packet;
use crate::sim::TimeNs;
use crate::tcp::core::SenderCore;

pub use newreno::NewRenoRecovery;
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

    /// The retransmission timer expired: drop any recovery state.
    fn on_timeout(&mut self) {}
}
