//! SACK-based loss recovery, RFC 6675 §5 (blocks per RFC 2018). Entry on the
//! DupThresh-th duplicate ACK or when IsLost(HighACK + 1); during recovery
//! cwnd stays at ssthresh and transmissions follow pipe and NextSeg (sent
//! by `SenderCore::send_pending`).

use super::{LossRecovery, NewAckOutcome};
use crate::net::packet::Packet;
use crate::sim::TimeNs;
use crate::tcp::core::SenderCore;

#[derive(Clone, Debug, Default)]
pub struct SackRecovery;

impl LossRecovery for SackRecovery {
    fn name(&self) -> &'static str {
        "sack"
    }

    fn uses_sack_scoreboard(&self) -> bool {
        true
    }

    fn on_duplicate_ack(&mut self, core: &mut SenderCore, now_ns: TimeNs, out: &mut Vec<Packet>) {
        core.sb.update_loss_marks(core.cfg.dupthresh, core.mss);
        if core.in_recovery {
            return;
        }
        // RFC 6675 §5 steps (1)/(2); §5.1: after a timeout no new recovery
        // until HighACK >= RecoveryPoint (in this byte-offset model: the
        // cumulative ACK reaches `recover`, one past HighData).
        let beyond_recovery_point = core.recover.is_none_or(|r| core.snd_una >= r);
        if (core.dupacks >= core.cfg.dupthresh || core.sb.first_is_lost()) && beyond_recovery_point
        {
            // Step (4): RecoveryPoint = HighData; ssthresh = cwnd =
            // FlightSize / 2 (RFC 5681 (4)); retransmit HighACK + 1.
            // With PRR (RFC 9937 §6.1), its episode starts here instead.
            core.sb.set_high_rxt(core.snd_una);
            core.enter_loss_recovery(now_ns);
            core.set_recovery_window(true);
            core.retransmit_first(now_ns, out);
            // (4.3): RescueRxt = HighRxt = the retransmitted segment.
            core.rescue_rxt = Some(core.sb.high_rxt());
            core.trace_window(now_ns);
        }
    }

    fn on_new_ack(
        &mut self,
        core: &mut SenderCore,
        _acked: u64,
        now_ns: TimeNs,
        _out: &mut Vec<Packet>,
    ) -> NewAckOutcome {
        if core.recovery_point_reached() {
            // §5 (A): an ACK beyond RecoveryPoint ends recovery.
            core.end_recovery(now_ns);
        } else if core.in_recovery {
            core.sb.update_loss_marks(core.cfg.dupthresh, core.mss);
        }
        NewAckOutcome::default()
    }
}
