//! Scripted sans-I/O exchanges with one sender, for the conformance suite
//! (`rfc*.rs`). Segments are numbered from 0: segment `k` is
//! [k * MSS, (k + 1) * MSS). `ack(n, ..)` is an ACK whose cumulative
//! acknowledgment field is the start of segment `n` (segments 0..n arrived);
//! SACK blocks are inclusive segment ranges. Each step returns what the
//! sender transmitted as a string: segment numbers in order, an `r` before
//! a retransmission, e.g. `"r3 10 11"`.

use airtcp_core::net::packet::{flags, Ecn, Packet, PacketKind, SackBlock};
use airtcp_core::sim::TimeNs;
use airtcp_core::tcp::cc::{CongestionControl, RenoCc};
use airtcp_core::tcp::classify::{AlwaysCongestion, LossClassifier};
use airtcp_core::tcp::kick::KICK;
use airtcp_core::tcp::receiver::{ReceiverConfig, TcpReceiver};
use airtcp_core::tcp::recovery::{
    LossRecovery, NewRenoRecovery, RackTlpConfig, RackTlpRecovery, RenoRecovery, SackRecovery,
    TahoeRecovery,
};
use airtcp_core::tcp::rto::{StandardTimeout, TimeoutResponse};
use airtcp_core::tcp::rtt::RtoConfig;
use airtcp_core::tcp::sender::{SenderConfig, SenderHook, TcpSender};

pub const MSS: u64 = 1000;
/// The window every scripted ACK advertises (and the sender starts with).
pub const WND: u64 = 1 << 30;
/// Initial, minimum and therefore first RTO of every scripted sender.
pub const RTO_NS: TimeNs = 1_000_000_000;
/// Time between two scripted events (well below the RTO).
pub const STEP_NS: TimeNs = 1_000_000;

/// Which loss recovery a scripted sender uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recovery {
    Tahoe,
    Reno,
    /// Reno with ns-2's one fast retransmit per window.
    RenoOncePerWindow,
    NewReno,
    Sack,
    /// SACK recovery with RACK-TLP loss detection, TLP.max_ack_delay 200 ms.
    RackTlp,
    /// The same without the tail loss probe (`loss_detection = "rack"`).
    Rack,
}

impl Recovery {
    pub fn build(self) -> Box<dyn LossRecovery> {
        match self {
            Recovery::Tahoe => Box::new(TahoeRecovery),
            Recovery::Reno => Box::new(RenoRecovery::default()),
            Recovery::RenoOncePerWindow => Box::new(RenoRecovery {
                one_fast_retransmit_per_window: true,
            }),
            Recovery::NewReno => Box::new(NewRenoRecovery),
            Recovery::Sack => Box::new(SackRecovery),
            Recovery::RackTlp => Box::new(RackTlpRecovery::new(RackTlpConfig {
                max_ack_delay_ns: 200_000_000,
                tail_loss_probe: true,
            })),
            Recovery::Rack => Box::new(RackTlpRecovery::new(RackTlpConfig {
                max_ack_delay_ns: 200_000_000,
                tail_loss_probe: false,
            })),
        }
    }
}

/// A sender with `iw` segments of initial window, ssthresh 64 segments, the
/// peer's window [`WND`], a 1 s RTO (initial and minimum), no Limited Transmit (the tests of RFC
/// 3042 turn it on) and everything else at [`SenderConfig::default`].
pub fn config(iw: u32) -> SenderConfig {
    SenderConfig {
        initial_cwnd_segments: iw,
        initial_ssthresh_bytes: 64 * MSS,
        rto: RtoConfig {
            initial_rto_ns: RTO_NS,
            min_rto_ns: RTO_NS,
            ..RtoConfig::default()
        },
        limited_transmit: false,
        peer_rwnd_bytes: WND,
        ..SenderConfig::default()
    }
}

/// One sender driven by hand, and the clock.
pub struct Script {
    pub s: TcpSender,
    pub now: TimeNs,
}

impl Script {
    pub fn new(cfg: SenderConfig, recovery: Recovery) -> Self {
        Self::with_timeout(cfg, recovery, Box::new(StandardTimeout))
    }

    pub fn with_timeout(
        cfg: SenderConfig,
        recovery: Recovery,
        timeout: Box<dyn TimeoutResponse>,
    ) -> Self {
        Self::with_parts(cfg, recovery, timeout, None)
    }

    /// A sender with a hook (Kick TCP's kick timer) beside it.
    pub fn with_parts(
        cfg: SenderConfig,
        recovery: Recovery,
        timeout: Box<dyn TimeoutResponse>,
        hook: Option<Box<dyn SenderHook>>,
    ) -> Self {
        Self::assemble(cfg, Box::new(RenoCc), recovery, timeout, hook, None)
    }

    /// A Reno sender with the standard timeout whose loss classifier is
    /// `classifier` (the others use [`AlwaysCongestion`]).
    pub fn with_classifier(
        cfg: SenderConfig,
        recovery: Recovery,
        classifier: Box<dyn LossClassifier>,
    ) -> Self {
        let timeout = Box::new(StandardTimeout);
        Self::assemble(
            cfg,
            Box::new(RenoCc),
            recovery,
            timeout,
            None,
            Some(classifier),
        )
    }

    /// A sender with congestion controller `cc` and the standard timeout.
    pub fn with_cc(cfg: SenderConfig, cc: Box<dyn CongestionControl>, recovery: Recovery) -> Self {
        Self::assemble(cfg, cc, recovery, Box::new(StandardTimeout), None, None)
    }

    fn assemble(
        cfg: SenderConfig,
        cc: Box<dyn CongestionControl>,
        recovery: Recovery,
        timeout: Box<dyn TimeoutResponse>,
        hook: Option<Box<dyn SenderHook>>,
        classifier: Option<Box<dyn LossClassifier>>,
    ) -> Self {
        let s = TcpSender::new(
            cfg,
            cc,
            recovery.build(),
            timeout,
            classifier.unwrap_or_else(|| Box::new(AlwaysCongestion)),
            hook,
        );
        Self { s, now: STEP_NS }
    }

    /// Start established at t = 0 with `segments` segments to send.
    pub fn start(&mut self, segments: u64) -> String {
        let mut out = Vec::new();
        self.s.start(self.now, &mut out);
        self.s.app_write(self.now, segments * MSS, &mut out);
        sent(&out)
    }

    /// Deliver `pkt` one step later.
    pub fn deliver(&mut self, pkt: &Packet) -> String {
        self.now += STEP_NS;
        let mut out = Vec::new();
        self.s.on_packet(self.now, pkt, &mut out);
        sent(&out)
    }

    /// Deliver `pkt` at `now_ns` (not before the current time).
    pub fn deliver_at(&mut self, now_ns: TimeNs, pkt: &Packet) -> String {
        assert!(now_ns >= self.now, "{now_ns} is before {}", self.now);
        self.now = now_ns - STEP_NS;
        self.deliver(pkt)
    }

    /// Deliver ACK `n` (no SACK) at `now_ns`.
    pub fn ack_at(&mut self, now_ns: TimeNs, n: u64) -> String {
        self.deliver_at(now_ns, &ack(n, &[]))
    }

    /// The application hands `segments` more segments to TCP at `now_ns`.
    pub fn write_at(&mut self, now_ns: TimeNs, segments: u64) -> String {
        assert!(now_ns >= self.now, "{now_ns} is before {}", self.now);
        self.now = now_ns;
        let mut out = Vec::new();
        self.s.app_write(now_ns, segments * MSS, &mut out);
        sent(&out)
    }

    /// Deliver ACK `n` with SACK blocks (inclusive segment ranges).
    pub fn ack(&mut self, n: u64, sacks: &[(u64, u64)]) -> String {
        self.deliver(&ack(n, sacks))
    }

    /// Deliver ACK `n` `k` times (no SACK); returns everything sent.
    pub fn dupacks(&mut self, n: u64, k: usize) -> String {
        let all: Vec<String> = (0..k)
            .map(|_| self.ack(n, &[]))
            .filter(|s| !s.is_empty())
            .collect();
        all.join(" ")
    }

    /// Let the next timer expire at its deadline: the retransmission timer,
    /// or the hook's if that is due first.
    pub fn timeout(&mut self) -> String {
        let d = self.s.next_deadline().expect("a timer is running");
        assert!(d >= self.now, "deadline {d} in the past ({})", self.now);
        self.now = d;
        let mut out = Vec::new();
        self.s.on_timer(self.now, &mut out);
        sent(&out)
    }

    /// (cwnd, ssthresh) in segments (fractions kept).
    pub fn window(&self) -> (f64, f64) {
        let w = &self.s.core.w;
        (w.cwnd as f64 / MSS as f64, w.ssthresh as f64 / MSS as f64)
    }

    pub fn cwnd(&self) -> f64 {
        self.window().0
    }

    pub fn ssthresh(&self) -> f64 {
        self.window().1
    }

    /// RFC 6582 `recover` / RFC 6675 RecoveryPoint as a segment number.
    pub fn recover(&self) -> Option<u64> {
        self.s.core.recover.map(|r| r / MSS)
    }
}

/// An ACK whose cumulative acknowledgment covers segments 0..n, with SACK
/// blocks given as inclusive segment ranges, a 1 GB window.
pub fn ack(n: u64, sacks: &[(u64, u64)]) -> Packet {
    let mut p = Packet {
        kind: PacketKind::TcpAck,
        flags: flags::ACK,
        ack: n * MSS,
        wnd: WND,
        ..Default::default()
    };
    for (k, &(a, b)) in sacks.iter().enumerate() {
        p.sack[k] = SackBlock {
            start: a * MSS,
            end: (b + 1) * MSS,
        };
    }
    p.sack_count = sacks.len() as u8;
    p
}

/// The same ACK echoing timestamp `ts_ecr`.
pub fn ack_ts(n: u64, sacks: &[(u64, u64)], ts_ecr: TimeNs) -> Packet {
    let mut p = ack(n, sacks);
    p.has_ts = true;
    p.ts_val = 1;
    p.ts_ecr = ts_ecr;
    p
}

/// The same ACK with ECN-Echo.
pub fn ack_ece(n: u64, sacks: &[(u64, u64)]) -> Packet {
    let mut p = ack(n, sacks);
    p.flags |= flags::ECE;
    p
}

/// Segment numbers of `out`, `r` before retransmissions, `k` before kicks
/// (Kick TCP's copies with the K bit).
pub fn sent(out: &[Packet]) -> String {
    out.iter()
        .map(|p| {
            let n = p.seq / MSS;
            if p.has_flag(KICK) {
                format!("k{n}")
            } else if p.is_retransmission {
                format!("r{n}")
            } else {
                n.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// "a b c ..." for the segments a..=b (new transmissions).
pub fn range(a: u64, b: u64) -> String {
    (a..=b).map(|n| n.to_string()).collect::<Vec<_>>().join(" ")
}

/// A receiver of 1000-byte segments with a [`WND`] window, SACK and
/// timestamps off, delayed ACKs every second full-sized segment or after
/// `delack_ns` (None: every segment ACKed), ECN as given.
pub fn receiver(delack_ns: Option<TimeNs>, ecn: bool) -> TcpReceiver {
    TcpReceiver::new(ReceiverConfig {
        flow: 0,
        epoch: 1,
        src: 1,
        dst: 0,
        rwnd_bytes: WND,
        sack: false,
        dsack: false,
        timestamps: false,
        ecn,
        mecn: false,
        delack_timeout_ns: delack_ns,
        delack_segments: 2,
        mss: MSS as u32,
    })
}

/// Data segment `n` (new, ECN-capable when `ecn` is `Ect0` or `Ce`).
pub fn data(n: u64, ecn: Ecn) -> Packet {
    Packet {
        kind: PacketKind::TcpData,
        flags: flags::ACK,
        seq: n * MSS,
        payload_len: MSS as u32,
        ecn,
        ..Default::default()
    }
}

/// The segment numbers the ACKs in `out` acknowledge up to, e.g. "2 2".
pub fn acked(out: &[Packet]) -> String {
    out.iter()
        .map(|p| (p.ack / MSS).to_string())
        .collect::<Vec<_>>()
        .join(" ")
}
