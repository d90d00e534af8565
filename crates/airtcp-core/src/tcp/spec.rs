//! A validated TCP configuration for a flow, and the factory that builds its
//! endpoints (a new pair per connection).

use crate::sim::TimeNs;
use crate::tcp::cc::{
    CongestionControl, Cubic, CubicConfig, MecnCc, MecnCcConfig, RenoCc, Westwood, WestwoodConfig,
};
use crate::tcp::classify::{
    AlwaysCongestion, LossClassifier, RttThreshold, RttThresholdConfig, WmecnClassifier,
    WmecnClassifierConfig,
};
use crate::tcp::kick::{KickConfig, KickTimer};
use crate::tcp::receiver::{ReceiverConfig, TcpReceiver};
use crate::tcp::recovery::{
    LossRecovery, NewRenoRecovery, RackTlpConfig, RackTlpRecovery, RenoRecovery, SackRecovery,
    TahoeRecovery,
};
use crate::tcp::rto::{DclorTimeout, EifelTimeout, FrtoTimeout, StandardTimeout, TimeoutResponse};

/// RFC 5681 §3.1's "arbitrarily high" initial ssthresh (the default):
/// larger than any window a flow can reach. Results report an ssthresh at
/// or above it as missing, never as this number.
pub const UNBOUNDED_SSTHRESH_BYTES: u64 = u64::MAX / 4;

/// The timeout response of a flow (`tcp.timeout_response`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum TimeoutKind {
    /// RFC 6298 / RFC 5681 (`rto/standard.rs`).
    #[default]
    Standard,
    /// RFC 3522 detection and RFC 4015 response (`rto/eifel.rs`).
    Eifel,
    /// RFC 5682 (`rto/frto.rs`), basic or SACK-enhanced.
    Frto { sack_enhanced: bool },
    /// draft-swami-tsvwg-tcp-dclor-00 (`rto/dclor.rs`); §6's "only after
    /// a SACK block was seen" unless `require_sack_seen` is false.
    Dclor { require_sack_seen: bool },
}
use crate::tcp::core::{MarkWindowFloor, TimeoutInRecoverySsthresh};
use crate::tcp::rtt::RtoConfig;
use crate::tcp::sender::{SenderConfig, SenderHook, TcpSender};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    Tahoe,
    Reno,
    NewReno,
    /// NewReno congestion control with RFC 6675 SACK recovery.
    Sack,
}

impl Variant {
    pub fn name(self) -> &'static str {
        match self {
            Variant::Tahoe => "tahoe",
            Variant::Reno => "reno",
            Variant::NewReno => "newreno",
            Variant::Sack => "sack",
        }
    }
}

/// How much to send: the congestion controller (`cc/`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CcChoice {
    /// RFC 5681 (the default).
    Reno,
    /// MECN's graded response to marks (and, in WMECN mode, to graded
    /// losses).
    Mecn(MecnCcConfig),
    /// Westwood or Westwood+ bandwidth estimation.
    Westwood(WestwoodConfig),
    /// CUBIC, RFC 9438.
    Cubic(CubicConfig),
}

/// How a SACK sender detects losses (`tcp.loss_detection`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum LossDetector {
    /// DupThresh: RFC 5681 §3.2, RFC 6675 IsLost (`recovery/sack.rs`).
    #[default]
    DupAck,
    /// RACK-TLP, RFC 8985 (`recovery/rack.rs`); SACK only.
    RackTlp,
    /// RACK without the Tail Loss Probe (RFC 8985 §6 without §7); SACK
    /// only.
    Rack,
}

impl LossDetector {
    /// RACK's time-based detection (with or without TLP).
    pub fn uses_rack(self) -> bool {
        matches!(self, LossDetector::RackTlp | LossDetector::Rack)
    }

    /// The scenario's spelling (`tcp.loss_detection`), also used in labels
    /// and messages.
    pub fn name(self) -> &'static str {
        match self {
            LossDetector::DupAck => "dupack",
            LossDetector::RackTlp => "rack_tlp",
            LossDetector::Rack => "rack",
        }
    }
}

/// The initial slow start (`tcp.slow_start`), for any controller.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SlowStart {
    /// RFC 5681 §3.1: cwnd += min(N, SMSS) per ACK until ssthresh or a
    /// loss.
    #[default]
    Rfc5681,
    /// RFC 9406 HyStart++ (`cc/hystart.rs`); later slow starts are RFC
    /// 5681's.
    HyStartPlusPlus,
}

/// Why a loss happened: a classifier other than "always congestion".
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ClassifierChoice {
    RttThreshold(RttThresholdConfig),
    Wmecn(WmecnClassifierConfig),
}

#[derive(Clone, Debug, PartialEq)]
pub struct TcpSpec {
    pub variant: Variant,
    /// SACK permitted: the receiver sends SACK blocks and the sender uses
    /// RFC 6675 recovery (Reno and NewReno; implied by `Variant::Sack`).
    pub sack: bool,
    pub mss: u32,
    pub initial_cwnd_segments: u32,
    pub initial_ssthresh_bytes: u64,
    pub rwnd_bytes: u64,
    pub timestamps: bool,
    pub ecn: bool,
    pub handshake: bool,
    pub rto: RtoConfig,
    pub delack_timeout_ns: Option<TimeNs>,
    pub delack_segments: u32,
    pub dupthresh: u32,
    /// Restart the retransmission timer at a fast retransmit (ns-2, Linux).
    pub restart_rto_on_fast_retransmit: bool,
    /// Keep the sender's in-memory event log (`SenderCore::trace`); set
    /// by `World::record_sender_events`.
    pub trace: bool,
    /// Kick TCP's kick timer at this sender.
    pub kick: Option<KickConfig>,
    /// What to do after a retransmission timeout.
    pub timeout_response: TimeoutKind,
    /// Why a loss happened: None = every loss is congestion.
    pub classifier: Option<ClassifierChoice>,
    /// How much to send.
    pub cc: CcChoice,
    /// RFC 3042 Limited Transmit.
    pub limited_transmit: bool,
    /// Retransmissions ECN-capable (ns-2) instead of RFC 3168 §6.1.5's
    /// not-ECT.
    pub ecn_capable_retransmissions: bool,
    /// The smallest cwnd a congestion mark's reduction leaves.
    pub mark_window_floor: MarkWindowFloor,
    /// RFC 6675 NextSeg rule (4), the rescue retransmission.
    pub rescue_retransmission: bool,
    /// RFC 9937 Proportional Rate Reduction in SACK loss recovery.
    pub proportional_rate_reduction: bool,
    /// RFC 6675 §6's MAY: the timer re-armed at each retransmission in
    /// loss recovery.
    pub restart_rto_on_recovery_retransmission: bool,
    /// ssthresh when the RTO fires during fast recovery.
    pub timeout_in_recovery_ssthresh: TimeoutInRecoverySsthresh,
    /// Reno: no second fast retransmit before the window of the first is
    /// acknowledged (ns-2's `bug_fix_`).
    pub reno_one_fast_retransmit_per_window: bool,
    /// Each connection's RTT tick clock gets a random phase in [0, tick)
    /// (ns-2's `boot_time_`, `TcpAgent::reset`); otherwise phase 0.
    pub rtt_tick_random_phase: bool,
    /// How losses are detected (RACK-TLP with SACK only).
    pub loss_detection: LossDetector,
    /// The initial slow start.
    pub slow_start: SlowStart,
}

impl TcpSpec {
    pub fn uses_sack(&self) -> bool {
        self.sack || self.variant == Variant::Sack
    }

    /// Multi-level ECN at both ends: an MECN/WMECN controller or the
    /// WMECN classifier needs the marks.
    pub fn uses_mecn(&self) -> bool {
        matches!(self.cc, CcChoice::Mecn(_))
            || matches!(self.classifier, Some(ClassifierChoice::Wmecn(_)))
    }

    /// The name reported in results, e.g. "newreno+sack", "reno/westwood".
    pub fn label(&self) -> String {
        let mut l = if self.sack && self.variant != Variant::Sack {
            format!("{}+sack", self.variant.name())
        } else {
            self.variant.name().to_string()
        };
        if self.loss_detection != LossDetector::DupAck {
            l.push('+');
            l.push_str(self.loss_detection.name());
        }
        if self.slow_start == SlowStart::HyStartPlusPlus {
            l.push_str("+hystart++");
        }
        if self.proportional_rate_reduction {
            l.push_str("+prr");
        }
        if self.cc != CcChoice::Reno {
            l.push('/');
            l.push_str(self.congestion_control().name());
        }
        l
    }

    fn congestion_control(&self) -> Box<dyn CongestionControl> {
        match self.cc {
            CcChoice::Reno => Box::new(RenoCc),
            CcChoice::Mecn(c) => Box::new(MecnCc::new(c)),
            CcChoice::Westwood(c) => Box::new(Westwood::new(c, self.mss as u64)),
            CcChoice::Cubic(c) => Box::new(Cubic::new(c)),
        }
    }

    fn recovery(&self) -> Box<dyn LossRecovery> {
        match (self.variant, self.uses_sack()) {
            (Variant::Tahoe, _) => Box::new(TahoeRecovery),
            (_, true) if self.loss_detection.uses_rack() => {
                Box::new(RackTlpRecovery::new(RackTlpConfig {
                    // TLP.max_ack_delay: the receiver's delayed-ACK timer.
                    max_ack_delay_ns: self.delack_timeout_ns.unwrap_or(0),
                    tail_loss_probe: self.loss_detection == LossDetector::RackTlp,
                }))
            }
            (_, true) => Box::new(SackRecovery),
            (Variant::Reno, false) => Box::new(RenoRecovery {
                one_fast_retransmit_per_window: self.reno_one_fast_retransmit_per_window,
            }),
            (Variant::NewReno | Variant::Sack, false) => Box::new(NewRenoRecovery),
        }
    }

    /// The sender of a new connection; `rtt_tick_phase_ns` is its tick
    /// clock's phase (see [`TcpSpec::rtt_tick_random_phase`]).
    pub fn build_sender(
        &self,
        flow: u32,
        epoch: u32,
        src: u32,
        dst: u32,
        rtt_tick_phase_ns: TimeNs,
    ) -> TcpSender {
        let cfg = SenderConfig {
            flow,
            epoch,
            src,
            dst,
            mss: self.mss,
            initial_cwnd_segments: self.initial_cwnd_segments,
            initial_ssthresh_bytes: self.initial_ssthresh_bytes,
            rto: RtoConfig {
                rtt_tick_phase_ns,
                ..self.rto
            },
            timestamps: self.timestamps,
            ecn: self.ecn,
            handshake: self.handshake,
            dupthresh: self.dupthresh,
            restart_rto_on_fast_retransmit: self.restart_rto_on_fast_retransmit,
            trace: self.trace,
            mecn: self.uses_mecn(),
            limited_transmit: self.limited_transmit,
            ecn_capable_retransmissions: self.ecn_capable_retransmissions,
            mark_window_floor: self.mark_window_floor,
            rescue_retransmission: self.rescue_retransmission,
            proportional_rate_reduction: self.proportional_rate_reduction,
            restart_rto_on_recovery_retransmission: self.restart_rto_on_recovery_retransmission,
            timeout_in_recovery_ssthresh: self.timeout_in_recovery_ssthresh,
            hystart: self.slow_start == SlowStart::HyStartPlusPlus,
            // Without a handshake the sender starts with the receiver's
            // window (RFC 9293 §3.8.6: never more than min(cwnd, rwnd)).
            peer_rwnd_bytes: self.rwnd_bytes,
        };
        TcpSender::new(
            cfg,
            self.congestion_control(),
            self.recovery(),
            match self.timeout_response {
                TimeoutKind::Standard => Box::new(StandardTimeout) as Box<dyn TimeoutResponse>,
                TimeoutKind::Eifel => Box::new(EifelTimeout::default()),
                TimeoutKind::Frto { sack_enhanced } => Box::new(FrtoTimeout::new(sack_enhanced)),
                TimeoutKind::Dclor { require_sack_seen } => {
                    Box::new(DclorTimeout::new(require_sack_seen))
                }
            },
            match self.classifier {
                None => Box::new(AlwaysCongestion) as Box<dyn LossClassifier>,
                Some(ClassifierChoice::RttThreshold(cfg)) => Box::new(RttThreshold::new(cfg)),
                Some(ClassifierChoice::Wmecn(cfg)) => Box::new(WmecnClassifier::new(cfg)),
            },
            self.kick
                .map(|k| Box::new(KickTimer::new(k)) as Box<dyn SenderHook>),
        )
    }

    /// The receiver runs on `dst` and answers `src`.
    pub fn build_receiver(&self, flow: u32, epoch: u32, src: u32, dst: u32) -> TcpReceiver {
        TcpReceiver::new(ReceiverConfig {
            flow,
            epoch,
            src: dst,
            dst: src,
            rwnd_bytes: self.rwnd_bytes,
            sack: self.uses_sack(),
            // RFC 2883 D-SACK feeds RACK's reordering window (RFC 8985 §6.2
            // step 4) and TLP (§7.4.1); other senders do not read it, and
            // their receivers never sent it.
            dsack: self.loss_detection.uses_rack(),
            timestamps: self.timestamps,
            ecn: self.ecn,
            mecn: self.uses_mecn(),
            delack_timeout_ns: self.delack_timeout_ns,
            delack_segments: self.delack_segments,
            mss: self.mss,
        })
    }
}
