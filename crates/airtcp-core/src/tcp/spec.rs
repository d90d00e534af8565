//! A validated TCP configuration for a flow, and the factory that builds its
//! endpoints (a new pair per connection).

use crate::sim::TimeNs;
use crate::tcp::cc::RenoCc;
use crate::tcp::classify::{AlwaysCongestion, LossClassifier, RttThreshold, RttThresholdConfig};
use crate::tcp::kick::{KickConfig, KickTimer};
use crate::tcp::receiver::{ReceiverConfig, TcpReceiver};
use crate::tcp::recovery::{
    LossRecovery, NewRenoRecovery, RenoRecovery, SackRecovery, TahoeRecovery,
};
use crate::tcp::rto::StandardTimeout;
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
    pub trace: bool,
    /// Kick TCP's kick timer at this sender.
    pub kick: Option<KickConfig>,
    /// Why a loss happened: None = every loss is congestion.
    pub classifier: Option<RttThresholdConfig>,
}

impl TcpSpec {
    pub fn uses_sack(&self) -> bool {
        self.sack || self.variant == Variant::Sack
    }

    /// The name reported in results, e.g. "newreno+sack".
    pub fn label(&self) -> String {
        if self.sack && self.variant != Variant::Sack {
            format!("{}+sack", self.variant.name())
        } else {
            self.variant.name().to_string()
        }
    }

    fn recovery(&self) -> Box<dyn LossRecovery> {
        match (self.variant, self.uses_sack()) {
            (Variant::Tahoe, _) => Box::new(TahoeRecovery),
            (_, true) => Box::new(SackRecovery),
            (Variant::Reno, false) => Box::new(RenoRecovery),
            (Variant::NewReno | Variant::Sack, false) => Box::new(NewRenoRecovery::default()),
        }
    }

    pub fn build_sender(&self, flow: u32, epoch: u32, src: u32, dst: u32) -> TcpSender {
        let cfg = SenderConfig {
            flow,
            epoch,
            src,
            dst,
            mss: self.mss,
            initial_cwnd_segments: self.initial_cwnd_segments,
            initial_ssthresh_bytes: self.initial_ssthresh_bytes,
            rto: self.rto,
            timestamps: self.timestamps,
            ecn: self.ecn,
            handshake: self.handshake,
            dupthresh: self.dupthresh,
            trace: self.trace,
        };
        TcpSender::new(
            cfg,
            Box::new(RenoCc),
            self.recovery(),
            Box::new(StandardTimeout),
            match self.classifier {
                None => Box::new(AlwaysCongestion) as Box<dyn LossClassifier>,
                Some(cfg) => Box::new(RttThreshold::new(cfg)),
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
            timestamps: self.timestamps,
            ecn: self.ecn,
            delack_timeout_ns: self.delack_timeout_ns,
            delack_segments: self.delack_segments,
            mss: self.mss,
        })
    }
}
