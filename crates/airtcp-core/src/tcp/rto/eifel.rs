//! Eifel: detection of spurious timeouts with timestamps (RFC 3522) and the
//! Eifel response (RFC 4015). The response is shared with F-RTO, which
//! detects differently but responds the same way.

use super::standard::standard_timeout;
use super::TimeoutResponse;
use crate::net::packet::{flags, Packet};
use crate::sim::TimeNs;
use crate::tcp::core::{RttReseed, SenderCore};
use crate::tcp::recovery::LossRecovery;

/// State saved at a timeout so that it can be undone (RFC 4015 §3.1 steps
/// (1) and (2)), and the response (steps (3)–(5)).
#[derive(Clone, Debug, Default)]
pub struct EifelResponse {
    pipe_prev: u64,
    /// SRTT_prev, RTTVAR_prev and snd_max at the timeout, for step (5).
    saved_rtt: Option<RttReseed>,
    /// A spurious timeout was detected on the ACK being processed: restore
    /// the congestion state after it.
    restore_pending: bool,
}

impl EifelResponse {
    /// RFC 4015 §3.1 steps (1)–(2), before cwnd and ssthresh change:
    /// pipe_prev = max(FlightSize, ssthresh); SRTT_prev = SRTT + 2G;
    /// RTTVAR_prev = RTTVAR.
    /// A re-seed still pending from an earlier spurious timeout is dropped:
    /// this timeout starts a new episode.
    pub fn save(&mut self, core: &mut SenderCore) {
        self.pipe_prev = core.flight_size().max(core.w.ssthresh);
        let g = core.rtt.cfg.clock_granularity_ns as f64;
        self.saved_rtt = Some(RttReseed {
            sent_after: core.snd_max,
            srtt_prev_ns: core.rtt.srtt_f64().unwrap_or(0.0) + 2.0 * g,
            rttvar_prev_ns: core.rtt.rttvar_f64(),
        });
        core.rtt_reseed = None;
    }

    /// The timeout was spurious (SPUR_TO): resume with new data instead of
    /// going back N (step (3)); the caller processes the ACK next.
    pub fn undo_go_back_n(&mut self, core: &mut SenderCore) {
        core.undo_timeout_go_back_n();
        // RFC 5682 step 3b: `recover` (RFC 6582) / RecoveryPoint (RFC
        // 6675) = SND.UNA, so that a genuine loss later in this window can
        // be fast-retransmitted (called before the ACK is applied).
        core.recover = Some(core.snd_una);
        core.recover_from_timeout = false;
        core.stats.spurious_timeouts_detected += 1;
        // Step (5) is done by the sender's RTT sampling (`take_rtt_sample`),
        // so that the timer the same ACK restarts runs with the new RTO.
        core.rtt_reseed = self.saved_rtt.take();
        self.restore_pending = true;
    }

    /// Run after the standard processing of every ACK: step (4) on the
    /// ACK that found the timeout spurious.
    pub fn after_ack(&mut self, core: &mut SenderCore, ack: &Packet, acked: u64, now_ns: TimeNs) {
        if std::mem::take(&mut self.restore_pending) {
            self.restore_congestion_state(core, ack, acked, now_ns);
        }
    }

    /// Step (4), after the acceptable ACK was processed: cwnd = FlightSize +
    /// min(bytes_acked, IW); ssthresh = pipe_prev; unless the acceptable
    /// ACK has ECN-Echo set: then the response is DONE, the reduced window
    /// stands (it answers the congestion signal) and the RTO is not
    /// re-seeded either.
    fn restore_congestion_state(
        &mut self,
        core: &mut SenderCore,
        ack: &Packet,
        acked: u64,
        now_ns: TimeNs,
    ) {
        if core.cfg.ecn && ack.has_flag(flags::ECE) {
            core.rtt_reseed = None;
            return;
        }
        let iw = core.cfg.initial_cwnd_segments as u64 * core.mss;
        core.w.cwnd = core.flight_size() + acked.min(iw);
        core.w.ssthresh = self.pipe_prev;
        core.trace_window(now_ns);
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Detection {
    Idle,
    /// Waiting for the first acceptable ACK after the retransmission sent
    /// at `retransmit_ts` (RFC 3522 §3.2 (1)).
    Waiting {
        retransmit_ts: TimeNs,
    },
}

/// RFC 3522 detection + RFC 4015 response. Needs the timestamps option;
/// without it Eifel cannot detect anything and behaves like standard TCP.
#[derive(Clone, Debug)]
pub struct EifelTimeout {
    detection: Detection,
    response: EifelResponse,
}

impl Default for EifelTimeout {
    fn default() -> Self {
        Self {
            detection: Detection::Idle,
            response: EifelResponse::default(),
        }
    }
}

impl TimeoutResponse for EifelTimeout {
    fn name(&self) -> &'static str {
        "eifel"
    }

    fn on_timeout(
        &mut self,
        core: &mut SenderCore,
        recovery: &mut dyn LossRecovery,
        now_ns: TimeNs,
        out: &mut Vec<Packet>,
    ) {
        // RFC 4015: only the first timeout of a segment starts a detection;
        // a later one, before the first completed, is handled normally.
        // RFC 3522 (1): RetransmitTS is the TSval of the FIRST timeout-
        // based retransmission of the oldest segment; later expiries of the
        // same segment (backoff) keep waiting for the first acceptable ACK
        // against it. RFC 4015 saves the state only at that first timeout.
        if core.cfg.timestamps && self.detection == Detection::Idle && core.rtt.backoff_count() == 0
        {
            self.response.save(core);
            // The retransmission below carries TSval = now.
            self.detection = Detection::Waiting {
                retransmit_ts: now_ns,
            };
        }
        standard_timeout(core, recovery, now_ns, out);
    }

    fn on_ack(
        &mut self,
        core: &mut SenderCore,
        _r: &mut dyn LossRecovery,
        ack: &Packet,
        _now: TimeNs,
        _out: &mut Vec<Packet>,
    ) -> bool {
        if let Detection::Waiting { retransmit_ts } = self.detection {
            // RFC 3522 §3.2 (3)–(4): the first acceptable ACK decides.
            if ack.ack > core.snd_una && ack.ack <= core.snd_max {
                if ack.has_ts && ack.ts_ecr < retransmit_ts {
                    self.response.undo_go_back_n(core);
                }
                self.detection = Detection::Idle;
            }
        }
        false
    }

    fn after_ack(&mut self, core: &mut SenderCore, ack: &Packet, acked: u64, now_ns: TimeNs) {
        self.response.after_ack(core, ack, acked, now_ns);
    }
}
