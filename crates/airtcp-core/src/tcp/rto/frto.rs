//! F-RTO, Forward RTO-Recovery (RFC 5682): after a timeout, retransmit only
//! the first unacknowledged segment; if the next ACK advances the window,
//! send two new segments instead of going back N; if the ACK after that
//! advances the window too, the timeout was spurious. Basic F-RTO (§2) and
//! the SACK-enhanced version (§3), step by step (the comments name them).
//! A detected spurious timeout is answered with the Eifel response (RFC
//! 4015), as RFC 5682 §4 suggests; it sets `recover` / RecoveryPoint to
//! SND.UNA (step 3b).

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
    /// Step 2: waiting for the first new ACK after the RTO retransmission
    /// of [snd_una, `retransmitted_end`).
    First { retransmitted_end: u64 },
    /// Step 3: new segments sent; waiting for the next ACK.
    Second,
}

#[derive(Clone, Debug)]
pub struct FrtoTimeout {
    /// RFC 5682 §3 instead of §2.
    pub sack_enhanced: bool,
    step: Step,
    /// RFC 5682 "recover" / RecoveryPoint: one past the highest sequence
    /// sent when the RTO fired.
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

    /// Step 1's test: recover conventionally instead? Basic (§2): "already
    /// in RTO recovery AND recover >= SND.UNA"; SACK-enhanced (§3):
    /// "RecoveryPoint >= SND.UNA" (an RTO recovery or a SACK recovery in
    /// progress). `recover` is kept one past the octet, hence `>`.
    fn conventional_at_timeout(&self, core: &SenderCore) -> bool {
        let outstanding = core.recover.is_some_and(|r| r > core.snd_una);
        if self.sack_enhanced {
            outstanding
        } else {
            self.step != Step::Idle || (core.recover_from_timeout && outstanding)
        }
    }

    /// Conventional RTO recovery for the rest of this episode; the ACK
    /// goes through the standard path.
    fn revert(&mut self) -> bool {
        self.step = Step::Idle;
        false
    }

    /// Step 2b: the window advanced below "recover": up to two new
    /// segments; without any (no new data, receiver window), conventional
    /// recovery.
    fn step_2b(
        &mut self,
        core: &mut SenderCore,
        ack: &Packet,
        now_ns: TimeNs,
        out: &mut Vec<Packet>,
    ) -> bool {
        let acked = core.apply_ack(now_ns, ack, true);
        core.grow_window(now_ns, acked);
        core.restart_rto_timer(now_ns);
        if core.send_new_segments(now_ns, 2, out) == 0 {
            self.step = Step::Idle;
            core.send_pending(now_ns, out);
        } else {
            self.step = Step::Second;
        }
        true
    }

    /// Step 3a: genuine: cwnd = 3 MSS and slow-start retransmissions of
    /// the unacknowledged segments.
    fn step_3a(&mut self, core: &mut SenderCore, now_ns: TimeNs, out: &mut Vec<Packet>) -> bool {
        core.w.cwnd = 3 * core.mss;
        core.snd_nxt = core.snd_una;
        core.trace_window(now_ns);
        self.step = Step::Idle;
        core.send_pending(now_ns, out);
        true
    }

    /// Step 3b: spurious (SpuriousRecovery = SPUR_TO): the Eifel response
    /// (RFC 4015), `recover` = SND.UNA; the ACK then takes the standard path.
    fn step_3b(&mut self, core: &mut SenderCore) -> bool {
        self.response.undo_go_back_n(core);
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
        if self.sack_enhanced {
            // §3 step 1: "reset the SACK scoreboard".
            core.sb.clear_sacks();
        }
        // Step 1: conventional recovery (recover = highest sent, set by the
        // standard actions) or on to step 2.
        if self.conventional_at_timeout(core) {
            self.step = Step::Idle;
            standard_timeout(core, recovery, now_ns, out);
            return;
        }
        self.response.save(core);
        self.recover = core.snd_max;
        standard_timeout_actions(core, recovery, now_ns, out);
        core.restart_rto_timer(now_ns);
        // Retransmit the first unacknowledged segment only (unless the
        // recovery strategy's timeout step just did: RACK, RFC 8985 §6.3).
        if !core
            .sb
            .get(0)
            .is_some_and(|s| s.retransmitted && s.last_sent_ns == now_ns)
        {
            core.retransmit_first(now_ns, out);
        }
        let retransmitted_end = core.sb.get(0).map_or(core.snd_una, |s| s.end);
        core.snd_nxt = retransmitted_end;
        self.step = Step::First { retransmitted_end };
    }

    fn on_ack(
        &mut self,
        core: &mut SenderCore,
        _r: &mut dyn LossRecovery,
        ack: &Packet,
        now_ns: TimeNs,
        out: &mut Vec<Packet>,
    ) -> bool {
        if ack.ack < core.snd_una || ack.ack > core.snd_max {
            return self.step != Step::Idle; // ignored
        }
        let dup = ack.ack == core.snd_una && ack.payload_len == 0;
        let advances = ack.ack > core.snd_una;
        match self.step {
            Step::Idle => false,
            Step::First { retransmitted_end } => {
                if self.sack_enhanced {
                    if dup {
                        // §3 step 2: update the scoreboard, keep waiting.
                        core.apply_ack(now_ns, ack, false);
                        return true;
                    }
                    if ack.ack >= self.recover {
                        // §3 step 2a: conventional; the standard path's
                        // slow start makes cwnd 2 MSS.
                        return self.revert();
                    }
                    // §3 step 2b.
                    return self.step_2b(core, ack, now_ns, out);
                }
                // §2 step 2a: a duplicate ACK, an ACK covering "recover",
                // or one not acknowledging all of the retransmitted data.
                if dup || ack.ack >= self.recover || ack.ack < retransmitted_end {
                    return self.revert();
                }
                // §2 step 2b.
                self.step_2b(core, ack, now_ns, out)
            }
            Step::Second => {
                if !self.sack_enhanced {
                    // §2 step 3.
                    return if advances {
                        self.step_3b(core)
                    } else if dup {
                        self.step_3a(core, now_ns, out)
                    } else {
                        true
                    };
                }
                // §3 step 3: only a duplicate ACK or a new cumulative ACK
                // counts; others are ignored.
                if !(dup || advances) {
                    return true;
                }
                let covers_more = ack.ack > self.recover
                    || ack.sack_blocks().iter().any(|b| b.end > self.recover);
                // 3b: not beyond RecoveryPoint and acknowledging data not
                // acknowledged before (cumulatively or by SACK) below it.
                if !covers_more
                    && (advances
                        || core
                            .sb
                            .would_newly_sack_below(ack.sack_blocks(), self.recover))
                {
                    return self.step_3b(core);
                }
                // 3a: covers more than RecoveryPoint, or a duplicate ACK
                // acknowledging nothing new below it. The ACK is recorded
                // here (RFC 6298 (5.2)/(5.3) for the timer), cwnd set to 3.
                if core.apply_ack(now_ns, ack, false) > 0 {
                    if core.snd_una >= core.snd_max {
                        core.stop_rto_timer();
                    } else {
                        core.restart_rto_timer(now_ns);
                    }
                }
                self.step_3a(core, now_ns, out)
            }
        }
    }

    fn after_ack(&mut self, core: &mut SenderCore, ack: &Packet, acked: u64, now_ns: TimeNs) {
        self.response.after_ack(core, ack, acked, now_ns);
    }
}
