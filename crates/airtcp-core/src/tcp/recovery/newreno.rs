//! NewReno, RFC 6582: stay in fast recovery until everything outstanding at
//! its start (`recover`) is acknowledged, retransmitting one segment per
//! partial ACK. With PRR (RFC 9937, option `proportional_rate_reduction`)
//! cwnd follows `prr.rs` on each ACK of the recovery instead of the
//! inflation and deflation of steps 2-4, and is ssthresh at its end.

use super::reno::{enter_fast_recovery, inflate};
use super::{LossRecovery, NewAckOutcome};
use crate::net::packet::Packet;
use crate::sim::TimeNs;
use crate::tcp::core::SenderCore;

/// Stateless: its one counter, the partial ACKs of the current recovery,
/// is `SenderCore::recovery_partial_acks`, so that a connection's start
/// allocates nothing for it (a zero-sized box).
#[derive(Clone, Debug, Default)]
pub struct NewRenoRecovery;

impl LossRecovery for NewRenoRecovery {
    fn name(&self) -> &'static str {
        "newreno"
    }

    fn on_duplicate_ack(&mut self, core: &mut SenderCore, now_ns: TimeNs, out: &mut Vec<Packet>) {
        if core.in_recovery {
            // RFC 6582 §3.2 step 4.
            inflate(core);
        } else if core.dupacks == core.cfg.dupthresh {
            // Step 2: only if the cumulative ACK covers more than `recover`
            // (step 1 "A" otherwise: no fast retransmit).
            if core.recover.is_none_or(|r| core.snd_una > r) {
                core.recovery_partial_acks = 0;
                enter_fast_recovery(core, now_ns, out);
            }
        }
    }

    fn on_new_ack(
        &mut self,
        core: &mut SenderCore,
        acked: u64,
        now_ns: TimeNs,
        out: &mut Vec<Packet>,
    ) -> NewAckOutcome {
        if !core.in_recovery {
            return NewAckOutcome::default();
        }
        let recover = core.recover.expect("set when recovery began");
        if core.snd_una >= recover {
            // Step 3, full acknowledgment: option (1),
            // cwnd = min(ssthresh, max(FlightSize, SMSS) + SMSS).
            core.w.cwnd = core
                .recovery_cwnd
                .min(core.flight_size().max(core.mss) + core.mss);
            core.end_recovery(now_ns);
            NewAckOutcome::default()
        } else {
            // Step 3, partial acknowledgment: retransmit the first
            // unacknowledged segment, deflate by the amount acknowledged and
            // add back one SMSS if at least one SMSS was acknowledged. With
            // PRR, RFC 9937 §6.2 sets cwnd instead, before the
            // retransmission.
            if core.prr_enabled() {
                core.prr_before_retransmitting_first(now_ns);
                core.retransmit_first(now_ns, out);
            } else {
                core.retransmit_first(now_ns, out);
                core.w.cwnd = core.w.cwnd.saturating_sub(acked);
                if acked >= core.mss {
                    core.w.cwnd += core.mss;
                }
            }
            core.recovery_partial_acks += 1;
            // Reset the retransmission timer on the first partial ACK only.
            NewAckOutcome {
                restart_timer: core.recovery_partial_acks == 1,
            }
        }
    }

    fn on_timeout(&mut self, core: &mut SenderCore, _now_ns: TimeNs, _out: &mut Vec<Packet>) {
        core.recovery_partial_acks = 0;
    }
}
