//! F-RTO, Forward RTO-Recovery (RFC 5682): after a timeout, retransmit only
//! the first unacknowledged segment; if the next ACK advances the window,
//! send two new segments instead of going back N; if the ACK after that
//! advances the window too, the timeout was spurious. Basic F-RTO (§2) and
//! the SACK-enhanced version (§3). A detected spurious timeout is answered
//! with the Eifel response (RFC 4015), as RFC 5682 §4 suggests.

use super::eifel::EifelResponse;
use super::standard::{standard_timeout, standard_timeout_actions};
use super::TimeoutResponse;
use crate::net::packet::Packet;
use crate::sim::TimeNs;
use crate::tcp::core::SenderCore;
use crate::tcp::recovery::LossRecovery;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    /// Not in F-RTO (conventional recovery if a timeout happened).
    Idle,
    /// Step 2: waiting for the first new ACK after the RTO retransmission.
    First,
    /// Step 3: new segments sent; waiting for the next ACK.
    Second,
}

#[derive(Clone, Debug)]
pub struct FrtoTimeout {
    /// RFC 5682 §3 instead of §2.
    pub sack_enhanced: bool,
    step: Step,
    /// RFC 5682 "recover": the highest sequence sent when the RTO fired.
    recover: u64,
    response: EifelResponse,
}

impl FrtoTimeout {
    pub fn new(sack_enhanced: bool) -> Self {
        Self {
            sack_enhanced,
            step: Step::Idle,
            recover: 0,
            response: EifelResponse::default(),
        }
    }

    /// Fall back to conventional RTO recovery for the rest of this episode.
    fn revert(&mut self) -> bool {
        self.step = Step::Idle;
        false
    }
}

impl TimeoutResponse for FrtoTimeout {
    fn name(&self) -> &'static str {
        if self.sack_enhanced {
            "frto_sack"
        } else {
            "frto"
        }
    }

    fn on_timeout(
        &mut self,
        core: &mut SenderCore,
        recovery: &mut dyn LossRecovery,
        now_ns: TimeNs,
        out: &mut Vec<Packet>,
    ) {
        // Step 1: if already in RTO recovery (a timeout during F-RTO, or
        // "recover" >= SND.UNA from an earlier timeout), recover
        // conventionally; otherwise remember "recover" and go to step 2.
        let in_rto_recovery = self.step != Step::Idle
            || (core.recover_from_timeout && core.recover.is_some_and(|r| r >= core.snd_una));
        if in_rto_recovery {
            self.step = Step::Idle;
            standard_timeout(core, recovery, now_ns, out);
            return;
        }
        self.response.save(core);
        self.recover = core.snd_max;
        standard_timeout_actions(core, recovery, now_ns);
        core.restart_rto_timer(now_ns);
        // Retransmit the first unacknowledged segment only.
        core.retransmit_first(now_ns, out);
        core.snd_nxt = core.sb.get(0).map_or(core.snd_una, |s| s.end);
        self.step = Step::First;
    }

    fn on_ack(
        &mut self,
        core: &mut SenderCore,
        _r: &mut dyn LossRecovery,
        ack: &Packet,
        now_ns: TimeNs,
        out: &mut Vec<Packet>,
    ) -> bool {
        let dup = ack.ack == core.snd_una && ack.payload_len == 0;
        let advances = ack.ack > core.snd_una && ack.ack <= core.snd_max;
        match self.step {
            Step::Idle => false,
            Step::First => {
                if dup {
                    if !self.sack_enhanced {
                        // §2 step 2a: a duplicate ACK: conventional recovery.
                        return self.revert();
                    }
                    // §3 step 2: note the SACK information, stay in step 2.
                    core.apply_ack(now_ns, ack, false);
                    return true;
                }
                if !advances {
                    return true; // ignored
                }
                if ack.ack >= self.recover {
                    // Step 2a: the ACK covers "recover": conventional.
                    return self.revert();
                }
                // Step 2b: the window advanced below "recover": send up to
                // two new segments instead of retransmitting.
                let acked = core.apply_ack(now_ns, ack, true);
                core.grow_window(now_ns, acked);
                core.restart_rto_timer(now_ns);
                if core.send_new_segments(now_ns, 2, out) == 0 {
                    // No new data can be sent: conventional recovery.
                    self.step = Step::Idle;
                    core.send_pending(now_ns, out);
                } else {
                    self.step = Step::Second;
                }
                true
            }
            Step::Second => {
                if advances {
                    // Step 3b: the timeout was spurious.
                    self.response.undo_go_back_n(core);
                    self.step = Step::Idle;
                    return false;
                }
                if !dup {
                    return true;
                }
                let genuine = if self.sack_enhanced {
                    // §3 step 3: duplicate ACKs whose SACK blocks report
                    // the new segments (above "recover") show that data
                    // below "recover" was lost; other duplicates are noted.
                    core.apply_ack(now_ns, ack, false);
                    ack.sack_blocks().iter().any(|b| b.end > self.recover)
                } else {
                    true
                };
                if genuine {
                    // Step 3a: cwnd = 3 MSS, continue in slow start with
                    // conventional retransmissions.
                    core.w.cwnd = 3 * core.mss;
                    core.snd_nxt = core.snd_una;
                    core.trace_window(now_ns);
                    self.step = Step::Idle;
                    core.send_pending(now_ns, out);
                }
                true
            }
        }
    }

    fn after_ack(&mut self, core: &mut SenderCore, ack: &Packet, acked: u64, now_ns: TimeNs) {
        self.response.after_ack(core, ack, acked, now_ns);
    }
}
