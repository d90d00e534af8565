//! The sender state every pluggable part works on: sequence numbers, the
//! window, the RTT estimator, the scoreboard, statistics and the trace, and
//! the bookkeeping they share (sending, retransmitting, applying an ACK,
//! the congestion signal). The parts (`cc/`, `classify/`, `recovery/`,
//! `rto/`, `kick.rs`) depend on this module; `sender.rs` composes them, so
//! nothing here names a recovery strategy or a timeout response.

use crate::net::packet::{flags, Ecn, Packet, PacketKind, DEFAULT_TTL};
use crate::sim::TimeNs;
use crate::tcp::cc::{CongestionControl, HyStart, Window};
use crate::tcp::classify::{LossCause, LossClassifier, LossDetection};
use crate::tcp::mecn::{self, MecnLevel};
use crate::tcp::recovery::prr::{PrrAck, PrrEpisode};
use crate::tcp::rtt::{RtoConfig, RttEstimator};
use crate::tcp::scoreboard::Scoreboard;

/// Static configuration of a sender. In declaration order (`repr(C)`):
/// what every segment reads first, what only the connection's start reads
/// last (`SenderCore` keeps it at the end of its hot part).
#[derive(Clone, Debug, PartialEq)]
#[repr(C)]
pub struct SenderConfig {
    pub flow: u32,
    pub epoch: u32,
    pub src: u32,
    pub dst: u32,
    /// Sender maximum segment size: payload bytes per segment.
    pub mss: u32,
    /// Duplicate-ACK threshold (RFC 5681 §3.2: 3).
    pub dupthresh: u32,
    /// RFC 7323 timestamps option on every segment, with RTTM.
    pub timestamps: bool,
    /// RFC 3168 ECN-capable transport.
    pub ecn: bool,
    /// Open the connection with SYN / SYN-ACK; otherwise start established
    /// (like ns-2's one-way agents).
    pub handshake: bool,
    /// Restart the retransmission timer when fast retransmit sends.
    pub restart_rto_on_fast_retransmit: bool,
    /// Keep a per-event trace (tests and diagnostics).
    pub trace: bool,
    /// Multi-level ECN (`crate::tcp::mecn`): new data carries `01`, the
    /// reduced-window signal is MECN's, and the congestion controller's
    /// `mark_response` sees every echoed level.
    pub mecn: bool,
    /// RFC 3042 Limited Transmit (RFC 5681 §3.2 step 1, RFC 6675 §5 step
    /// (3)): a new segment on each of the first DupThresh - 1 duplicate ACKs.
    pub limited_transmit: bool,
    /// Send retransmissions ECN-capable (with `ecn` or `mecn`), as ns-2's
    /// `TcpAgent::output` did (it sets ECT on every data packet when
    /// `ecn_`). False: RFC 3168 §6.1.5, retransmissions are not
    /// ECN-capable, so an AQM router drops them where it would mark.
    pub ecn_capable_retransmissions: bool,
    /// RFC 6675 §4 NextSeg rule (4): one rescue retransmission of the
    /// highest unSACKed segment per entry into loss recovery.
    pub rescue_retransmission: bool,
    /// RFC 6675 §6: "a more careful variant that re-arms the RTO timer on
    /// each retransmission that is sent during recovery MAY be used": a
    /// long SACK recovery keeps the ACK clock going, and with the RFC 6298
    /// (5.3) timer alone the RTO can expire while a retransmission is in
    /// flight, resending what need not be resent.
    pub restart_rto_on_recovery_retransmission: bool,
    /// ssthresh when the retransmission timer expires during fast recovery.
    pub timeout_in_recovery_ssthresh: TimeoutInRecoverySsthresh,
    /// RFC 9406 HyStart++ in the initial slow start (`cc/hystart.rs`),
    /// for any controller; otherwise RFC 5681 slow start.
    pub hystart: bool,
    /// RFC 9937 Proportional Rate Reduction in fast recovery: with SACK
    /// (RFC 6675, RACK-TLP) cwnd follows `recovery::prr` on each ACK
    /// instead of dropping to ssthresh at the start of recovery; without
    /// (Reno, NewReno) instead of RFC 5681 §3.2's ssthresh + 3 SMSS and
    /// inflation by duplicate ACKs. Tahoe has no fast recovery: no effect
    /// there. With `ecn`, an ECN-Echo's reduction (RFC 3168 §6.1.2) is
    /// spread the same way over the round trip that follows it (RFC 9937
    /// §4) instead of cutting cwnd at once.
    pub proportional_rate_reduction: bool,
    // Read when the connection starts only: past `SenderCore::HOT_BYTES`.
    pub initial_cwnd_segments: u32,
    /// The smallest cwnd a congestion mark's reduction leaves (RFC 3168's
    /// ECN-Echo, multi-level ECN marks): read at a reduction only, so kept
    /// out of the hot part.
    pub mark_window_floor: MarkWindowFloor,
    pub initial_ssthresh_bytes: u64,
    /// The peer's receive window before its first ACK: without a handshake
    /// the sender starts with the window the receiver will advertise (as if
    /// learnt at connection setup, RFC 9293 §3.8.6); with one, the SYN-ACK
    /// sets it.
    pub peer_rwnd_bytes: u64,
    /// The RTT estimator's copy is the one in use (`SenderCore::rtt`).
    pub rto: RtoConfig,
}

/// The smallest cwnd a congestion mark's reduction leaves. RFC 3168 §6.1.2
/// reads two ways: the ECN-Echo "should be treated just as a congestion
/// loss" (RFC 5681 (4): max(FlightSize / 2, 2 SMSS)), and "the TCP source
/// halves the congestion window", with a rule for "when the congestion
/// window is one" (the retransmit timer) that a halving can then reach.
/// ssthresh keeps its 2-SMSS floor either way. CUBIC's reduction already
/// goes to one segment (RFC 9438 §4.6) and reads neither.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum MarkWindowFloor {
    /// cwnd = ssthresh, at least 2 SMSS: a mark at two or three segments
    /// leaves two (Linux: `tcp_reno_ssthresh` is max(cwnd / 2, 2)).
    #[default]
    TwoSegments,
    /// cwnd cut as the controller cuts it before RFC 5681's floor (Reno:
    /// FlightSize / 2; an mecn/wmecn cc: its β), at least one segment; an
    /// ECN-Echo at one then waits for the retransmit timer (ns-2's
    /// `slowdown`: cwnd_ = window / 2, at least 1).
    OneSegment,
}

/// ssthresh when the retransmission timer expires during fast recovery.
/// RFC 5681 §3.1 (4) computes max(FlightSize / 2, 2 SMSS) at every first
/// expiry; during fast recovery FlightSize includes what the inflated window
/// sent, so it can exceed the window at the loss several times over.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum TimeoutInRecoverySsthresh {
    /// Keep the ssthresh fast recovery set (Linux `tcp_enter_loss`: no new
    /// ssthresh while in the Recovery state).
    #[default]
    Keep,
    /// RFC 5681 (4) literally: max(FlightSize / 2, 2 SMSS).
    FlightSize,
}

impl Default for SenderConfig {
    /// A bulk sender with RFC 5681's defaults for a 1000-byte MSS (tests
    /// and tools override what they need).
    fn default() -> Self {
        Self {
            flow: 0,
            epoch: 1,
            src: 0,
            dst: 1,
            mss: 1000,
            initial_cwnd_segments: Self::rfc5681_initial_window(1000),
            initial_ssthresh_bytes: u64::MAX / 4,
            rto: RtoConfig::default(),
            timestamps: false,
            ecn: false,
            mark_window_floor: MarkWindowFloor::TwoSegments,
            handshake: false,
            dupthresh: 3,
            restart_rto_on_fast_retransmit: true,
            trace: false,
            mecn: false,
            limited_transmit: true,
            ecn_capable_retransmissions: false,
            rescue_retransmission: false,
            restart_rto_on_recovery_retransmission: false,
            timeout_in_recovery_ssthresh: TimeoutInRecoverySsthresh::Keep,
            hystart: false,
            proportional_rate_reduction: false,
            peer_rwnd_bytes: u64::MAX,
        }
    }
}

impl SenderConfig {
    /// RFC 5681 §3.1 initial window for a given SMSS.
    pub fn rfc5681_initial_window(mss: u32) -> u32 {
        if mss > 2190 {
            2
        } else if mss > 1095 {
            3
        } else {
            4
        }
    }
}

/// Counters reported per flow. In declaration order (`repr(C)`): those of
/// every segment and every timeout first (the sender's hot part), then
/// the rarer ones.
#[derive(Clone, Debug, Default)]
#[repr(C)]
pub struct SenderStats {
    /// Integral of cwnd over the connection's life (byte-ns) and that
    /// life (ns), for the time-averaged cwnd.
    pub cwnd_byte_ns: u128,
    pub cwnd_time_ns: u128,
    /// Sum of the base (un-backed-off) RTO at each first expiry.
    pub first_expiry_rto_sum_ns: u128,
    pub segments_sent: u64,
    pub bytes_sent: u64,
    pub retransmitted_segments: u64,
    pub retransmitted_bytes: u64,
    pub timeouts: u64,
    pub first_expiries: u64,
    pub fast_retransmits: u64,
    pub ecn_reductions: u64,
    /// Losses the classifier called non-congestion (no window reduction).
    pub non_congestion_losses: u64,
    /// Timeouts the timeout response (Eifel, F-RTO, DCLOR) judged spurious.
    pub spurious_timeouts_detected: u64,
}

impl SenderStats {
    /// Add a closed connection's counters to these totals (a flow's, over
    /// its connections). Every field is named, so a new counter cannot be
    /// left out of the totals.
    pub fn add(&mut self, other: &SenderStats) {
        let SenderStats {
            cwnd_byte_ns,
            cwnd_time_ns,
            first_expiry_rto_sum_ns,
            segments_sent,
            bytes_sent,
            retransmitted_segments,
            retransmitted_bytes,
            timeouts,
            first_expiries,
            fast_retransmits,
            ecn_reductions,
            non_congestion_losses,
            spurious_timeouts_detected,
        } = other;
        self.cwnd_byte_ns += cwnd_byte_ns;
        self.cwnd_time_ns += cwnd_time_ns;
        self.first_expiry_rto_sum_ns += first_expiry_rto_sum_ns;
        self.segments_sent += segments_sent;
        self.bytes_sent += bytes_sent;
        self.retransmitted_segments += retransmitted_segments;
        self.retransmitted_bytes += retransmitted_bytes;
        self.timeouts += timeouts;
        self.first_expiries += first_expiries;
        self.fast_retransmits += fast_retransmits;
        self.ecn_reductions += ecn_reductions;
        self.non_congestion_losses += non_congestion_losses;
        self.spurious_timeouts_detected += spurious_timeouts_detected;
    }
}

/// One entry of the optional per-sender trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceEvent {
    Send {
        seq: u64,
        len: u32,
        retransmission: bool,
    },
    FastRetransmit {
        seq: u64,
    },
    Timeout {
        seq: u64,
    },
    RecoveryExit {
        ack: u64,
    },
    /// RFC 3168 §6.1.2 window reduction on ECN-Echo.
    EcnReduction,
    /// Kick TCP: a kick segment (K bit set) for `seq` left the sender.
    Kick {
        seq: u64,
    },
    Window {
        cwnd: u64,
        ssthresh: u64,
    },
    RttSample {
        rtt_ns: TimeNs,
    },
}

/// RFC 6675 §4 NextSeg()'s answer, by the rule that gave it; the indexes
/// are the scoreboard's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum NextSeg {
    /// Rule (1): the first segment deemed lost and not yet retransmitted.
    Lost(usize),
    /// Rule (2): a new segment of this many bytes.
    NewData(u32),
    /// Rule (3): an unSACKed segment below the highest SACK, not deemed lost.
    Unsacked(usize),
    /// Rule (4), the rescue retransmission: the highest unSACKed segment.
    Rescue(usize),
}

/// What PRR's per-ACK step (RFC 9937 §6.2) needs of an ACK, noted when
/// the ACK is applied and read after its loss detection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct PrrAckInput {
    /// DeliveredData: the change in SND.UNA plus the signed change in
    /// SACKed bytes.
    delivered_bytes: u64,
    /// The change in SND.UNA.
    cum_acked_bytes: u64,
    /// `Scoreboard::loss_marks` before the ACK's loss detection.
    loss_marks_before: u64,
    /// A duplicate ACK (RFC 5681 §2): without SACK, 1 SMSS delivered.
    duplicate: bool,
}

/// What RFC 4015 §3.1 steps (1)-(2) saved at a timeout later found
/// spurious, for step (5).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RttReseed {
    /// snd_max when the timer fired: a measurement of data above it times
    /// a segment sent after the timeout.
    pub sent_after: u64,
    /// SRTT + 2G at the timeout.
    pub srtt_prev_ns: f64,
    /// RTTVAR at the timeout.
    pub rttvar_prev_ns: f64,
}

/// A loss the sender detected and how its classifier judged it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LossDecision {
    pub seq: u64,
    /// When the segment's latest transmission left (to match it with the
    /// packet that died, if one did).
    pub last_sent_ns: TimeNs,
    pub how: LossDetection,
    pub cause: LossCause,
    /// The response cut the window to half or less (a timeout, or a new
    /// ssthresh at most half the cwnd at the loss).
    pub halved_window: bool,
    /// A congestion verdict whose window cut the once-per-RTT rule skipped
    /// (MECN §2.3, WMECN §3.2): the loss was retransmitted, the window kept.
    pub cut_blocked: bool,
    /// Of a blocked cut: the new ssthresh it would have set is at most half
    /// the cwnd (it would have halved the window).
    pub blocked_cut_would_halve: bool,
    /// A loss in the window an ECN-Echo had already reduced: no cut (RFC
    /// 3168 §6.1.2, once per window), the window kept.
    pub window_already_reduced: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConnState {
    Closed,
    SynSent,
    Established,
}

/// The sender state shared by the pluggable parts. Field names follow the
/// RFCs: snd_una = HighACK, snd_max = HighData (RFC 6675 §2).
///
/// In declaration order (`repr(C)`): what an ACK or a timeout reads and
/// writes comes first, together ([`SenderCore::HOT_BYTES`]), and the
/// rarely touched rest last. With many flows each event finds its sender
/// out of cache, and the lines it needs are what it costs (the loop hints
/// just those into cache, `World::prefetch_flow`).
#[repr(C)]
pub struct SenderCore {
    pub snd_una: u64,
    /// Next sequence number to send (below snd_max during go-back-N).
    pub snd_nxt: u64,
    /// One past the highest sequence number sent (HighData).
    pub snd_max: u64,
    pub w: Window,
    /// Peer's advertised window.
    pub rwnd: u64,
    /// Bytes the application has handed to TCP so far.
    pub app_limit: u64,
    pub mss: u64,
    /// Retransmission timer deadline (None = stopped).
    pub rto_deadline: Option<TimeNs>,
    /// Incremented whenever the retransmission timer is set, reset or stopped.
    pub rto_generation: u64,
    cwnd_accounted_ns: Option<TimeNs>,
    /// RFC 9438 §5.8: the flow used less than its congestion window when
    /// its last entry point ended (see [`Self::note_window_use`]).
    window_unused: bool,
    /// Segment being timed without timestamps: (end seq, send time).
    timed: Option<(u64, TimeNs)>,
    /// RFC 6582 `recover` / RFC 6675 RecoveryPoint; None before any loss.
    pub recover: Option<u64>,
    /// The end of what the last timeout had the timer resend: HighData
    /// (go-back-N), the first segment's end (a timeout judged not
    /// congestion, without SACK), snd_una once a timeout is found spurious
    /// (nothing more is resent). A later expiry below it is of a segment
    /// the retransmission timer has already resent, and RFC 5681 §3.1
    /// holds ssthresh; at or above it the timer never resent the segment,
    /// and (4) sets ssthresh even though the timer is still backed off.
    /// None before any timeout.
    pub timer_resent_until: Option<u64>,
    /// After a first timeout judged not congestion, without SACK
    /// (`rto/standard.rs`), or Tahoe's fast retransmit of a loss judged
    /// not congestion (`recovery/tahoe.rs`), the end of the data in flight
    /// then:
    /// each ACK that advances snd_una but stays below it names the next lost
    /// segment, which is retransmitted alone. None otherwise.
    pub hole_repair_until: Option<u64>,
    /// RFC 3168 §6.1.2: no second ECN reduction until this is acked.
    ecn_recover: u64,
    /// TSval of the last ACK, echoed in TSecr (RFC 7323 §4.3).
    ts_recent: u64,
    /// Bytes the last ACK SACKed for the first time (RFC 6675 Update()).
    pub newly_sacked_bytes: u64,
    /// New data sent by Limited Transmit since the last cumulative ACK; RFC
    /// 5681 §3.2 step 2 leaves it out of FlightSize for ssthresh.
    limited_transmit_bytes: u64,
    pub dupacks: u32,
    pub state: ConnState,
    pub in_recovery: bool,
    /// The last loss response was a timeout (so `recover` marks data sent
    /// before it).
    pub recover_from_timeout: bool,
    /// RFC 6675 §5.1: after a timeout, SACK senders retransmit what is
    /// deemed lost from the scoreboard until the RecoveryPoint is acked.
    pub sack_after_timeout: bool,
    pub sack_enabled: bool,
    cwr_pending: bool,
    /// The last window reduction was an ECN-Echo's (`congestion_echo`);
    /// cleared by any other (`note_reduction`). With `ecn_recover`, it
    /// tells a loss in the window an ECN-Echo reduced (RFC 3168 §6.1.2;
    /// ns-2's `last_cwnd_action_ == CWND_ACTION_ECN`).
    last_reduction_by_ecn_echo: bool,
    /// The handshake's, read only then; here it fills what would be
    /// padding after the flags above (at the end of the rare part it took
    /// 8 bytes, and a flow's record one more cache line, `world/flows.rs`).
    syn_retransmitted: bool,
    /// RFC 3168 §6.1.2: after an ECN-Echo at a window of one segment,
    /// nothing is sent until this time, the retransmit timer reset on that
    /// ACK. It is the timer itself while data is outstanding ((5.3)
    /// restarts it on the same ACK, to the same time); with none, its
    /// expiry only lets the next packet out: no retransmission, no backoff.
    pub ece_hold_until: Option<TimeNs>,
    /// An ACK with a SACK block has arrived (DCLOR §6).
    pub sack_seen: bool,
    pub cc: Box<dyn CongestionControl>,
    pub classifier: Box<dyn LossClassifier>,
    /// Classifier decisions not yet collected by the simulator.
    pub loss_decisions: Vec<LossDecision>,
    pub sb: Scoreboard,
    pub rtt: RttEstimator,
    /// Counters of every segment and timeout first, then the rarer ones.
    pub stats: SenderStats,
    /// Read on every segment (its head) and at the connection's start
    /// only (its tail), so it ends the hot part.
    pub cfg: SenderConfig,
    // Rarely touched: losses, the handshake, options.
    /// The window fast recovery deflates to: ssthresh after a congestion
    /// loss, the pre-loss cwnd after a non-congestion one.
    pub recovery_cwnd: u64,
    /// When the window was last reduced (once-per-RTT rule).
    pub last_reduction_ns: Option<TimeNs>,
    /// RFC 6675 RescueRxt (one past the octet), None = undefined.
    pub rescue_rxt: Option<u64>,
    /// RFC 4015 §3.1 step (5), pending after a spurious timeout: the first
    /// RTT measurement for data sent after the timeout re-seeds the
    /// estimator instead of updating it.
    pub rtt_reseed: Option<RttReseed>,
    syn_sent_ns: TimeNs,
    /// Partial ACKs of that repair so far (only the first resets the
    /// timer, RFC 6582's Impatient rule).
    hole_repair_partial_acks: u32,
    /// Partial ACKs in the current NewReno recovery (RFC 6582 §3.2 step 3:
    /// only the first resets the timer); `recovery/newreno.rs`.
    pub recovery_partial_acks: u32,
    pub trace: Vec<(TimeNs, TraceEvent)>,
    /// HyStart++'s state when `cfg.hystart` (only that flag, in the hot
    /// part, is read on an ACK without it).
    pub hystart: Option<Box<HyStart>>,
    /// RFC 9937's state when `cfg.proportional_rate_reduction`, boxed
    /// like HyStart++'s so that a sender without the option carries one
    /// pointer, not its 56 bytes (a 100,000-flow scenario has 100,000
    /// senders).
    prr: Option<Box<PrrState>>,
}

/// PRR's episode and what the last ACK told it (`SenderCore::prr`).
#[derive(Clone, Copy, Debug, Default)]
struct PrrState {
    episode: PrrEpisode,
    /// The last ACK's DeliveredData, bytes newly cumulatively
    /// acknowledged and the scoreboard's loss marks before its loss
    /// detection, until PRR's per-ACK step reads them.
    pending_ack: Option<PrrAckInput>,
    /// An ECN-Echo's episode outside loss recovery (RFC 9937 §4), from
    /// the ECN-Echo ACK until SND.UNA reaches its RecoveryPoint, a
    /// timeout, or a loss recovery that takes it over.
    ecn: Option<EcnEpisode>,
    /// Set when a loss recovery starts during an ECN-Echo's begun
    /// episode: `set_recovery_window` goes on with that episode instead of
    /// initializing one (no new congestion control response, §6.1).
    continue_episode: bool,
}

impl PrrState {
    /// A PRR episode is running: fast recovery (`in_recovery`), or an
    /// ECN-Echo's episode once begun on its ACK.
    fn episode_running(&self, in_recovery: bool) -> bool {
        in_recovery || self.ecn.is_some_and(|e| e.begun)
    }
}

/// An ECN-Echo's PRR episode (RFC 9937 §4: "using ... the RecoveryPoint
/// from [RFC6675] to invoke the PRR ACK processing for exactly one round
/// trip worth of ACKs"). Its target (§6.1's ssthresh) is
/// `SenderCore::recovery_cwnd`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct EcnEpisode {
    /// RecoveryPoint: HighData at the ECN-Echo (here one past it, the
    /// byte the ACK that ends the episode reaches; RFC 3168's
    /// `ecn_recover`).
    recovery_point: u64,
    /// §6.1's initialization has run: on the ECN-Echo ACK, once its
    /// delivery is known (after it is applied).
    begun: bool,
}

impl SenderCore {
    /// The bytes at the start of a `SenderCore` that ACKs and timeouts read
    /// and write: up to the tail of its configuration that only the
    /// connection's start reads.
    pub const HOT_BYTES: usize = std::mem::offset_of!(SenderCore, cfg)
        + std::mem::offset_of!(SenderConfig, initial_cwnd_segments);

    /// A new SenderCore in the closed state with the initial window (RFC
    /// 5681 §3.1) and timer (RFC 6298 (2.1)) of `cfg`.
    pub fn new(
        cfg: SenderConfig,
        cc: Box<dyn CongestionControl>,
        classifier: Box<dyn LossClassifier>,
        sack_enabled: bool,
    ) -> Self {
        let mss = cfg.mss as u64;
        Self {
            mss,
            state: ConnState::Closed,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            w: Window {
                cwnd: cfg.initial_cwnd_segments as u64 * mss,
                ssthresh: cfg.initial_ssthresh_bytes,
                mss,
            },
            rwnd: cfg.peer_rwnd_bytes,
            app_limit: 0,
            dupacks: 0,
            in_recovery: false,
            recover: None,
            recover_from_timeout: false,
            timer_resent_until: None,
            hole_repair_until: None,
            hole_repair_partial_acks: 0,
            recovery_partial_acks: 0,
            recovery_cwnd: 0,
            loss_decisions: Vec::new(),
            sack_after_timeout: false,
            sack_enabled,
            sb: Scoreboard::new(),
            rtt: RttEstimator::new(cfg.rto),
            rto_deadline: None,
            rto_generation: 0,
            timed: None,
            ecn_recover: 0,
            last_reduction_by_ecn_echo: false,
            cwr_pending: false,
            ece_hold_until: None,
            ts_recent: 0,
            syn_retransmitted: false,
            syn_sent_ns: 0,
            last_reduction_ns: None,
            sack_seen: false,
            newly_sacked_bytes: 0,
            limited_transmit_bytes: 0,
            rescue_rxt: None,
            rtt_reseed: None,
            cwnd_accounted_ns: None,
            window_unused: false,
            cc,
            classifier,
            stats: SenderStats::default(),
            trace: Vec::new(),
            hystart: cfg
                .hystart
                .then(|| Box::new(HyStart::new(cfg.initial_ssthresh_bytes))),
            prr: cfg.proportional_rate_reduction.then(Box::default),
            cfg,
        }
    }

    /// Send (or resend) the SYN and start its timer.
    pub fn send_syn(&mut self, now_ns: TimeNs, out: &mut Vec<Packet>) {
        let c = self;
        c.syn_sent_ns = now_ns;
        out.push(Packet {
            kind: PacketKind::TcpData,
            flow: c.cfg.flow,
            epoch: c.cfg.epoch,
            src: c.cfg.src,
            dst: c.cfg.dst,
            ttl: DEFAULT_TTL,
            flags: flags::SYN
                | if c.cfg.ecn {
                    flags::ECE | flags::CWR
                } else {
                    0
                },
            has_ts: c.cfg.timestamps,
            ts_val: now_ns,
            sent_ns: now_ns,
            ..Default::default()
        });
        c.restart_rto_timer(now_ns);
    }

    /// The SYN's timer expired: RFC 6298 (5.5)-(5.7) for the SYN.
    pub fn on_syn_timeout(&mut self, now_ns: TimeNs, out: &mut Vec<Packet>) {
        self.rtt.back_off();
        self.syn_retransmitted = true;
        self.stats.timeouts += 1;
        self.send_syn(now_ns, out);
    }

    /// A SYN-ACK arrived: become established, take the RTT sample of the
    /// SYN unless it was retransmitted (RFC 6298 (5.7)) and start sending.
    pub fn on_syn_ack(&mut self, now_ns: TimeNs, ack: &Packet, out: &mut Vec<Packet>) {
        if self.state != ConnState::SynSent || !ack.has_flag(flags::ACK) {
            return;
        }
        self.state = ConnState::Established;
        self.rwnd = ack.wnd;
        self.ts_recent = ack.ts_val;
        if self.syn_retransmitted {
            self.rtt.reset_after_syn_timeout();
        } else {
            let sample = now_ns - self.syn_sent_ns;
            self.take_rtt_sample(now_ns, sample, 0);
        }
        self.stop_rto_timer();
        self.send_pending(now_ns, out);
    }

    /// The congestion echoes of an acceptable ACK: RFC 3168 §6.1.2's
    /// ECN-Echo reduction (at most one per window of data) and the
    /// multi-level ECN level.
    pub fn congestion_echo(&mut self, now_ns: TimeNs, ack: &Packet) {
        if self.cfg.ecn
            && ack.has_flag(flags::ECE)
            && !self.in_recovery
            && self.snd_una >= self.ecn_recover
        {
            let flight = self.flight_size();
            let cwnd_before = self.w.cwnd;
            self.w.ssthresh = self.cc.ssthresh_after_congestion(&self.w, flight);
            let cwnd_after = match self.cfg.mark_window_floor {
                MarkWindowFloor::TwoSegments => self.cc.cwnd_after_ece(&self.w),
                MarkWindowFloor::OneSegment => self
                    .cc
                    .reduction_before_floor(&self.w, flight)
                    .max(self.mss),
            };
            // With PRR (RFC 9937 §4, §11.2: PRR operates "when there is a
            // step reduction in the cwnd from the TCP ECN reaction defined
            // in [RFC3168]"), the cut is spread over the next round trip:
            // cwnd heads for what it would be cut to, and reaches it at the
            // RecoveryPoint (§6.4). Nothing to spread at a window of one or
            // when nothing is cut.
            let spread = cwnd_before > self.mss && cwnd_after < cwnd_before;
            // "SHOULD NOT increase the congestion window in response to
            // the receipt of an ECN-Echo ACK": ssthresh's 2-SMSS floor
            // could. A loss in this window of data recovers towards it
            // (`enter_loss_recovery`).
            self.recovery_cwnd = cwnd_after.min(cwnd_before);
            if let Some(prr) = self.prr.as_deref_mut().filter(|_| spread) {
                prr.ecn = Some(EcnEpisode {
                    recovery_point: self.snd_max,
                    begun: false,
                });
                prr.continue_episode = false;
            } else {
                self.w.cwnd = self.recovery_cwnd;
                if cwnd_before <= self.mss {
                    // "MUST reset the retransmit timer on receiving the
                    // ECN-Echo packet when the congestion window is one",
                    // and send a new packet "only when the retransmit timer
                    // expires" (see `ece_hold_until`).
                    self.ece_hold_until = Some(now_ns + self.rtt.rto_ns());
                }
            }
            self.cwr_pending = true;
            self.ecn_recover = self.snd_max;
            self.last_reduction_by_ecn_echo = true;
            self.stats.ecn_reductions += 1;
            self.trace(now_ns, TraceEvent::EcnReduction);
            self.trace_window(now_ns);
        }
        if self.cfg.mecn {
            if let Some(level) = mecn::echoed_level(ack) {
                self.mecn_feedback(now_ns, level);
            }
        }
    }

    /// Does this ACK report congestion the sender reacts to: RFC 3168's
    /// ECN-Echo, or a multi-level ECN level the congestion controller
    /// responds to (MECN §2.3: `10` or `11`)? Such an ACK does not grow the
    /// window: RFC 3168 §6.1.2, and MECN §2.3, "When there is no
    /// congestion, the cwnd is allowed to grow additively as usual" (ns-2's
    /// `TcpAgent::recv_newack_helper` opens cwnd only on an ACK without
    /// ECN-Echo).
    pub fn ack_reports_congestion(&self, ack: &Packet) -> bool {
        (self.cfg.ecn && ack.has_flag(flags::ECE))
            || (self.cfg.mecn
                && mecn::echoed_level(ack).is_some_and(|l| self.cc.mark_response(l).is_some()))
    }

    /// cwnd without fast recovery's inflation (RFC 5681 §3.2 steps 3-4):
    /// during fast recovery, the window recovery deflates to
    /// (`recovery_cwnd`); otherwise cwnd. ns-2 traces this as `cwnd_`.
    pub fn cwnd_without_inflation(&self) -> u64 {
        if self.in_recovery {
            self.recovery_cwnd
        } else {
            self.w.cwnd
        }
    }

    /// FlightSize (RFC 5681 §2): sent but not cumulatively acknowledged.
    pub fn flight_size(&self) -> u64 {
        self.snd_max - self.snd_una
    }

    /// RFC 6582 §4: duplicate ACKs that do not cover `recover` set by a
    /// timeout are for data sent before it and must not trigger a fast
    /// retransmit.
    pub fn dupacks_predate_timeout(&self) -> bool {
        self.recover_from_timeout && self.recover.is_some_and(|r| self.snd_una <= r)
    }

    /// All data handed over by the application has been acknowledged.
    pub fn all_acked(&self) -> bool {
        self.snd_una >= self.app_limit && self.state == ConnState::Established
    }

    pub fn trace(&mut self, now_ns: TimeNs, ev: TraceEvent) {
        if self.cfg.trace {
            self.trace.push((now_ns, ev));
        }
    }

    /// Loss recovery is in progress and snd_una has reached its recovery
    /// point (`recover`, RFC 6582's / RFC 6675's RecoveryPoint).
    pub fn recovery_point_reached(&self) -> bool {
        self.in_recovery && self.recover.is_some_and(|r| self.snd_una >= r)
    }

    /// Leave loss recovery at the current snd_una (the window is the
    /// caller's to set first).
    pub fn end_recovery(&mut self, now_ns: TimeNs) {
        self.in_recovery = false;
        if self.cfg.proportional_rate_reduction {
            // RFC 9937 §6.4: cwnd = ssthresh.
            self.w.cwnd = self.recovery_cwnd;
        }
        let ack = self.snd_una;
        self.trace(now_ns, TraceEvent::RecoveryExit { ack });
        self.trace_window(now_ns);
    }

    pub fn trace_window(&mut self, now_ns: TimeNs) {
        let ev = TraceEvent::Window {
            cwnd: self.w.cwnd,
            ssthresh: self.w.ssthresh,
        };
        self.trace(now_ns, ev);
    }

    /// (Re)start the retransmission timer with the current RTO
    /// (RFC 6298 (5.1), (5.3), (5.6)).
    pub fn restart_rto_timer(&mut self, now_ns: TimeNs) {
        self.rto_deadline = Some(now_ns + self.rtt.rto_ns());
        self.rto_generation += 1;
    }

    /// RFC 6298 (5.2).
    pub fn stop_rto_timer(&mut self) {
        if self.rto_deadline.is_some() {
            self.rto_deadline = None;
            self.rto_generation += 1;
        }
    }

    /// Ask the classifier about a detected loss of the segment at snd_una
    /// and, if it is congestion, set ssthresh (RFC 5681 (4) via the
    /// congestion controller). The decision is recorded for scoring against
    /// the ground truth.
    pub fn congestion_signal(&mut self, now_ns: TimeNs, how: LossDetection) -> LossCause {
        self.congestion_signal_during(now_ns, how, false)
    }

    /// [`Self::congestion_signal`]; `window_already_reduced`: the window of
    /// this loss has already been reduced by an ECN-Echo (at once, or by
    /// its PRR episode), so its verdict is recorded and nothing else is
    /// done (RFC 3168 §6.1.2: "reduced only once in response to a series
    /// of dropped and/or CE packets from a single window of data"); it
    /// returns `NonCongestion` then, as for a cut the once-per-RTT rule
    /// blocks: retransmit, do not reduce (Tahoe reads it).
    fn congestion_signal_during(
        &mut self,
        now_ns: TimeNs,
        how: LossDetection,
        window_already_reduced: bool,
    ) -> LossCause {
        let seq = self.snd_una;
        let cause = self.classifier.classify(now_ns, seq, how, &self.rtt);
        let last_sent_ns = self.sb.get(0).map_or(0, |s| s.last_sent_ns);
        let cwnd_before = self.w.cwnd;
        let mut decision = LossDecision {
            seq,
            last_sent_ns,
            how,
            cause,
            halved_window: false,
            cut_blocked: false,
            blocked_cut_would_halve: false,
            window_already_reduced,
        };
        if cause == LossCause::NonCongestion {
            self.stats.non_congestion_losses += 1;
            self.loss_decisions.push(decision);
            return cause;
        }
        if window_already_reduced {
            self.loss_decisions.push(decision);
            return LossCause::NonCongestion;
        }
        let flight = match how {
            LossDetection::DuplicateAcks => {
                self.flight_size() - self.limited_transmit_bytes.min(self.flight_size())
            }
            LossDetection::Timeout => self.flight_size(),
        };
        // The cut is computed before deciding to apply it (a blocked cut
        // is scored by whether it would have halved). That is sound only
        // because the one controller that reduces at most once per RTT
        // (MECN, `once_per_rtt`) has a pure rule; CUBIC's is not (RFC 9438
        // §4.6-§4.7: it records W_max and cwnd_prior and ends the epoch),
        // and it is asked only when the cut is applied, since CUBIC is
        // never blocked.
        let ssthresh = match self.classifier.graded_keep() {
            Some(keep) => self
                .cc
                .ssthresh_after_graded_congestion(&self.w, flight, keep),
            None => self.cc.ssthresh_after_congestion(&self.w, flight),
        };
        let halves = 2 * ssthresh <= cwnd_before;
        if how == LossDetection::DuplicateAcks && !self.reduction_allowed(now_ns) {
            // MECN §2.3 / WMECN §3.2: reduce at most once per RTT; the
            // loss is still retransmitted, the window kept.
            decision.cut_blocked = true;
            decision.blocked_cut_would_halve = halves;
            self.loss_decisions.push(decision);
            return LossCause::NonCongestion;
        }
        self.w.ssthresh = ssthresh;
        self.note_reduction(now_ns);
        // A timeout collapses cwnd; otherwise the window recovery heads
        // for is the new ssthresh.
        decision.halved_window = how == LossDetection::Timeout || halves;
        self.loss_decisions.push(decision);
        cause
    }

    /// May the window be reduced now? Always, unless the congestion
    /// controller reduces at most once per RTT and the last reduction is
    /// less than one SRTT old.
    pub fn reduction_allowed(&self, now_ns: TimeNs) -> bool {
        if !self.cc.once_per_rtt() {
            return true;
        }
        match (self.last_reduction_ns, self.rtt.srtt_ns()) {
            (Some(t), Some(srtt)) => now_ns >= t + srtt,
            _ => true,
        }
    }

    /// Remember a window reduction: the once-per-RTT rule, and RFC 3168
    /// §6.1.2: CWR on the first new data packet after ANY reduction (a
    /// timeout, a fast retransmit or an ECN-Echo), and no ECN-Echo
    /// reduction for the rest of this window of data.
    fn note_reduction(&mut self, now_ns: TimeNs) {
        self.last_reduction_ns = Some(now_ns);
        if self.cfg.mecn || self.cfg.ecn {
            self.cwr_pending = true;
        }
        self.ecn_recover = self.ecn_recover.max(self.snd_max);
        self.last_reduction_by_ecn_echo = false;
    }

    /// The byte `seq` is in the window of data an ECN-Echo reduced, with
    /// no reduction since: RFC 3168 §6.1.2, "the TCP sender's congestion
    /// window should be reduced only once in response to a series of
    /// dropped and/or CE packets from a single window of data", so its
    /// loss is repaired without a second reduction (as ns-2's
    /// `dupack_action` after an ECN action, and Linux, whose loss recovery
    /// from its CWR state keeps ssthresh).
    pub fn in_window_an_ecn_echo_reduced(&self, seq: u64) -> bool {
        self.last_reduction_by_ecn_echo && seq < self.ecn_recover
    }

    /// A timeout's congestion signal: RFC 5681 (4), except that during
    /// fast recovery the `timeout_in_recovery_ssthresh` rule may keep the
    /// ssthresh fast recovery set, and that a timeout of a segment of the
    /// window an ECN-Echo reduced keeps the ECN-Echo's unless that segment
    /// was retransmitted (RFC 3168 §6.1.2: once per window, but "if any
    /// retransmitted packets are dropped, then this is interpreted by the
    /// source TCP as a new instance of congestion"; ns-2's timeout "in
    /// recovery from a recent ECN" sets cwnd to one, not ssthresh).
    pub fn timeout_congestion_signal(&mut self, now_ns: TimeNs) -> LossCause {
        let ecn_reduced = self.in_window_an_ecn_echo_reduced(self.snd_una)
            && self.sb.get(0).is_some_and(|s| !s.retransmitted);
        let keep = ecn_reduced
            || self.in_recovery
                && self.cfg.timeout_in_recovery_ssthresh == TimeoutInRecoverySsthresh::Keep;
        let ssthresh = self.w.ssthresh;
        let cause = self.congestion_signal(now_ns, LossDetection::Timeout);
        if keep {
            self.w.ssthresh = ssthresh;
        }
        cause
    }

    /// RFC 3042 / RFC 5681 §3.2 step 1 (without SACK): on the first and
    /// second duplicate ACK, one new segment if the receiver's window
    /// allows, FlightSize stays within cwnd + 2 SMSS and there is new data;
    /// cwnd is unchanged. With SACK, RFC 6675 §5 step (3): new segments
    /// while cwnd - pipe >= 1 SMSS.
    pub fn limited_transmit(&mut self, now_ns: TimeNs, out: &mut Vec<Packet>) {
        if !self.cfg.limited_transmit
            || self.in_recovery
            || self.sack_after_timeout
            || self.snd_nxt != self.snd_max
            || self.dupacks >= self.cfg.dupthresh
        {
            return;
        }
        let before = self.snd_max;
        if self.sack_enabled {
            // (3.1) HighRxt = HighACK; (3.2)-(3.3) SetPipe and send.
            self.sb.set_high_rxt(self.snd_una);
            while self.w.cwnd >= self.sb.pipe() + self.mss {
                if self.send_new_segments(now_ns, 1, out) == 0 {
                    break;
                }
            }
        } else if self.dupacks <= 2 {
            let len = (self.app_limit - self.snd_max.min(self.app_limit)).min(self.mss);
            if len > 0 && self.flight_size() + len <= self.w.cwnd + 2 * self.mss {
                self.send_new_segments(now_ns, 1, out);
            }
        }
        self.limited_transmit_bytes += self.snd_max - before;
    }

    /// MECN §2.3: an ACK echoed congestion `level`; the congestion
    /// controller says how much of cwnd to keep. At most once per RTT and
    /// not during loss recovery. "cwnd is decreased": ssthresh's 2-SMSS
    /// floor must not raise it (from one segment after a timeout, say).
    fn mecn_feedback(&mut self, now_ns: TimeNs, level: MecnLevel) {
        let Some(keep) = self.cc.mark_response(level) else {
            return;
        };
        if self.in_recovery || !self.reduction_allowed(now_ns) {
            return;
        }
        let cwnd_before = self.w.cwnd;
        let kept = (cwnd_before as f64 * keep) as u64;
        self.w.ssthresh = kept.max(2 * self.mss);
        let cwnd_after = match self.cfg.mark_window_floor {
            MarkWindowFloor::TwoSegments => self.w.ssthresh,
            MarkWindowFloor::OneSegment => kept.max(self.mss),
        };
        // §2.3: on a mark "cwnd is decreased", never raised by the floor.
        self.w.cwnd = cwnd_after.min(cwnd_before);
        self.note_reduction(now_ns);
        self.stats.ecn_reductions += 1;
        self.trace(now_ns, TraceEvent::EcnReduction);
        self.trace_window(now_ns);
    }

    /// Common entry into fast retransmit / fast recovery (RFC 5681 §3.2
    /// steps 2–3, RFC 6582 §3.2 step 2, RFC 6675 §5 step 4): classify, set
    /// ssthresh, remember the recovery point, retransmit the first
    /// unacknowledged segment. Returns `Congestion` if the loss reduced the
    /// window (`congestion_signal_during`). The window recovery works
    /// towards is the new ssthresh after a congestion loss, the current
    /// cwnd after a non-congestion loss (retransmit, do not reduce;
    /// ssthresh is left alone), and the ECN-Echo's after a loss in the
    /// window it reduced.
    pub fn begin_fast_retransmit(&mut self, now_ns: TimeNs, out: &mut Vec<Packet>) -> LossCause {
        let cause = self.enter_loss_recovery(now_ns);
        self.retransmit_first(now_ns, out);
        cause
    }

    /// [`Self::begin_fast_retransmit`] without its retransmission (RACK,
    /// RFC 8985: the segments RACK marked lost go out by NextSeg).
    ///
    /// A loss in the window an ECN-Echo reduced (`SND.UNA` below the end
    /// of the data sent before it, no reduction since) makes no second
    /// reduction (RFC 3168 §6.1.2): ssthresh stays, and recovery heads for
    /// the window the ECN-Echo set. During the ECN-Echo's PRR episode
    /// (which ends when SND.UNA passes that window) there is no new
    /// congestion control response either, hence no new PRR episode (RFC
    /// 9937 §6.1): fast recovery goes on with the episode and its target,
    /// and ends it (§6.4).
    pub fn enter_loss_recovery(&mut self, now_ns: TimeNs) -> LossCause {
        let cwnd_before = self.w.cwnd;
        let ecn_reduced = self.in_window_an_ecn_echo_reduced(self.snd_una);
        if let Some(p) = self.prr.as_deref_mut() {
            // A loss in the ECN-Echo's window goes on with its begun
            // episode. One detected on the ACK that reaches the episode's
            // RecoveryPoint (the episode would end on it) is of data sent
            // after the ECN-Echo: a new reduction, a new episode.
            let e = p.ecn.take();
            p.continue_episode = ecn_reduced && e.is_some_and(|e| e.begun);
        }
        let cause =
            self.congestion_signal_during(now_ns, LossDetection::DuplicateAcks, ecn_reduced);
        self.recovery_cwnd = match cause {
            _ if ecn_reduced => self.recovery_cwnd,
            LossCause::Congestion => self.w.ssthresh,
            LossCause::NonCongestion => cwnd_before,
        };
        self.in_recovery = true;
        self.recover = Some(self.snd_max);
        self.recover_from_timeout = false;
        self.stats.fast_retransmits += 1;
        let seq = self.snd_una;
        self.trace(now_ns, TraceEvent::FastRetransmit { seq });
        // RFC 6298 leaves this open; ns-2's Reno (dupack_action:
        // reset_rtx_timer) and Linux restart the timer with the fast
        // retransmission, so that its ACK, one RTT away, is not pre-empted
        // by an RTO armed for the lost original.
        if self.cfg.restart_rto_on_fast_retransmit {
            self.restart_rto_timer(now_ns);
        }
        cause
    }

    /// Repair the holes of the data in flight one by one as partial ACKs
    /// name them ([`Self::repair_next_hole`]), after a loss judged not
    /// congestion whose retransmission did not go back N.
    pub fn start_hole_repair(&mut self) {
        self.hole_repair_until = Some(self.snd_max);
        self.hole_repair_partial_acks = 0;
    }

    /// After a timeout judged not congestion (and Tahoe's fast retransmit
    /// of a loss judged not congestion), an ACK of new data that stays
    /// below `hole_repair_until`: every segment it does not cover was sent
    /// before the retransmission it acknowledges, so the segment at the
    /// new snd_una was lost (the inference of RFC 6582 §3.2 step 3's
    /// partial ACK); it is retransmitted alone and the window is left as
    /// it is. The repair ends when the ACK covers the point.
    /// Returns whether this ACK may restart the retransmission timer (RFC
    /// 6298 (5.3)): not at the second and later partial ACKs (RFC 6582 §3.2
    /// step 3, "for the first partial ACK ... also reset the retransmit
    /// timer", the Impatient variant), so that many holes end in a timeout.
    pub fn repair_next_hole(&mut self, now_ns: TimeNs, out: &mut Vec<Packet>) -> bool {
        let Some(until) = self.hole_repair_until else {
            return true;
        };
        if self.snd_una >= until || self.in_recovery {
            self.hole_repair_until = None;
            return true;
        }
        self.retransmit_first(now_ns, out);
        self.hole_repair_partial_acks += 1;
        self.hole_repair_partial_acks == 1
    }

    /// A loss repaired outside loss recovery (RFC 8985 §7.4.2: only the
    /// tail loss probe's retransmission arrived): the window reduction of
    /// a fast recovery, at once; none if `repaired_seq` is in the window
    /// an ECN-Echo reduced (RFC 3168 §6.1.2, as for a fast retransmit:
    /// `enter_loss_recovery`). Otherwise an ECN-Echo's PRR episode under
    /// way ends here: this reduction replaces it.
    pub fn reduce_window_for_repaired_loss(
        &mut self,
        now_ns: TimeNs,
        flight: u64,
        repaired_seq: u64,
    ) {
        if self.in_window_an_ecn_echo_reduced(repaired_seq) {
            return;
        }
        if let Some(prr) = self.prr.as_deref_mut() {
            prr.ecn = None;
        }
        self.w.ssthresh = self.cc.ssthresh_after_congestion(&self.w, flight);
        self.w.cwnd = self.w.ssthresh;
        self.note_reduction(now_ns);
        self.trace_window(now_ns);
    }

    /// Retransmit the scoreboard segment at index `i` without moving
    /// HighRxt (a probe, outside the NextSeg order: RFC 8985 §7.3's tail
    /// loss probe, RFC 6675's rescue retransmission).
    pub fn retransmit_out_of_order(&mut self, i: usize, now_ns: TimeNs, out: &mut Vec<Packet>) {
        let rec = self.sb.mark_retransmitted(i, now_ns);
        self.emit_retransmission(now_ns, rec.start, rec.len() as u32, out);
    }

    /// Retransmit the segment at snd_una.
    pub fn retransmit_first(&mut self, now_ns: TimeNs, out: &mut Vec<Packet>) {
        if let Some(i) = self.sb.index_of(self.snd_una) {
            self.retransmit_index(i, now_ns, out);
        }
    }

    /// Retransmit the scoreboard segment at index `i`.
    pub fn retransmit_index(&mut self, i: usize, now_ns: TimeNs, out: &mut Vec<Packet>) {
        let rec = self.sb.mark_retransmitted(i, now_ns);
        if self.sb.high_rxt() < rec.end {
            self.sb.set_high_rxt(rec.end);
        }
        self.emit_retransmission(now_ns, rec.start, rec.len() as u32, out);
    }

    /// Send a retransmission of [seq, seq + len).
    fn emit_retransmission(&mut self, now_ns: TimeNs, seq: u64, len: u32, out: &mut Vec<Packet>) {
        self.stop_timing_resent(seq);
        self.emit(now_ns, seq, len, out);
        if self.in_recovery && self.cfg.restart_rto_on_recovery_retransmission {
            self.restart_rto_timer(now_ns);
        }
    }

    /// Karn's rule (RFC 6298 §3): a segment starting at `seq` is being sent
    /// again, so the ACK that covers the timed segment, if that ends after
    /// `seq`, may answer the copy: the timed segment is no longer timed.
    fn stop_timing_resent(&mut self, seq: u64) {
        if self.timed.is_some_and(|(end, _)| end > seq) {
            self.timed = None;
        }
    }

    /// Build and queue one data segment; starts the timer if it is not
    /// running (RFC 6298 (5.1)).
    fn emit(&mut self, now_ns: TimeNs, seq: u64, len: u32, out: &mut Vec<Packet>) {
        let retransmission = seq < self.snd_max;
        let mut f = flags::ACK;
        if self.cwr_pending && !retransmission {
            f |= if self.cfg.mecn {
                mecn::MECN_BITS
            } else {
                flags::CWR
            };
            self.cwr_pending = false;
        }
        // RFC 3168 §6.1.5: retransmissions are not ECN-capable, unless the
        // `ecn_capable_retransmissions` option (ns-2) says otherwise. MECN
        // marks ECN-capable data `01` (no congestion) the same way.
        let ect = !retransmission || self.cfg.ecn_capable_retransmissions;
        let pkt = Packet {
            kind: PacketKind::TcpData,
            flow: self.cfg.flow,
            epoch: self.cfg.epoch,
            src: self.cfg.src,
            dst: self.cfg.dst,
            ecn: if self.cfg.ecn && ect {
                Ecn::Ect0
            } else if self.cfg.mecn && ect {
                MecnLevel::NoCongestion.to_ip()
            } else {
                Ecn::NotEct
            },
            ttl: DEFAULT_TTL,
            flags: f,
            seq,
            payload_len: len,
            has_ts: self.cfg.timestamps,
            ts_val: now_ns,
            ts_ecr: self.ts_recent,
            is_retransmission: retransmission,
            sent_ns: now_ns,
            ..Default::default()
        };
        self.stats.segments_sent += 1;
        self.stats.bytes_sent += len as u64;
        if self.cfg.proportional_rate_reduction {
            let in_recovery = self.in_recovery;
            if let Some(prr) = self.prr.as_mut() {
                if prr.episode_running(in_recovery) {
                    // RFC 9937 §6.3.
                    prr.episode.on_transmit(len as u64);
                }
            }
        }
        if retransmission {
            self.stats.retransmitted_segments += 1;
            self.stats.retransmitted_bytes += len as u64;
        }
        self.trace(
            now_ns,
            TraceEvent::Send {
                seq,
                len,
                retransmission,
            },
        );
        if self.rto_deadline.is_none() {
            self.restart_rto_timer(now_ns);
        }
        out.push(pkt);
    }

    /// A kick or probe copy of the first unacknowledged segment, built like
    /// the retransmission the RTO would send but not recorded as one. It is
    /// a segment sent again all the same, so Karn's rule applies to it.
    pub fn copy_of_first_segment(&mut self, now_ns: TimeNs) -> Option<Packet> {
        let rec = *self.sb.get(0)?;
        self.stop_timing_resent(rec.start);
        Some(Packet {
            kind: PacketKind::TcpData,
            flow: self.cfg.flow,
            epoch: self.cfg.epoch,
            src: self.cfg.src,
            dst: self.cfg.dst,
            ttl: DEFAULT_TTL,
            flags: flags::ACK,
            seq: rec.start,
            payload_len: rec.len() as u32,
            has_ts: self.cfg.timestamps,
            ts_val: now_ns,
            ts_ecr: self.ts_recent,
            is_retransmission: true,
            sent_ns: now_ns,
            ..Default::default()
        })
    }

    /// How far past SND.UNA in-order sending may reach: cwnd (RFC 5681's
    /// FlightSize <= cwnd), except in a PRR episode, where cwnd is RFC
    /// 9937's inflight + SndCnt and inflight leaves out what has left the
    /// network (§6.2): without SACK, in fast recovery or an ECN-Echo's
    /// episode, what the duplicate ACKs say; with SACK, in an ECN-Echo's
    /// episode (loss recovery sends by pipe), FlightSize - pipe. There the
    /// reach is cwnd plus that, so that SndCnt bytes go out, as "inflight
    /// < cwnd" allows. At most the receiver's window.
    fn send_window(&self) -> u64 {
        let credit = match self.prr.as_deref() {
            Some(p) if p.episode_running(self.in_recovery) => {
                if !self.sack_enabled {
                    p.episode.dupack_credit_bytes()
                } else if self.in_recovery {
                    0
                } else {
                    let flight = self.flight_size();
                    flight - self.sb.pipe().min(flight)
                }
            }
            _ => 0,
        };
        (self.w.cwnd + credit).min(self.rwnd)
    }

    /// Send whatever the window, the application and the recovery state
    /// allow.
    pub fn send_pending(&mut self, now_ns: TimeNs, out: &mut Vec<Packet>) {
        if self.state != ConnState::Established || self.ece_hold_until.is_some() {
            return;
        }
        if self.sack_enabled && (self.in_recovery || self.sack_after_timeout) {
            self.send_by_pipe(now_ns, out);
        } else {
            self.send_in_order(now_ns, out);
        }
    }

    /// Window-limited sending from snd_nxt: go-back-N retransmissions first
    /// (after a timeout, snd_nxt < snd_max), then new data.
    fn send_in_order(&mut self, now_ns: TimeNs, out: &mut Vec<Packet>) {
        // Nothing sent here moves SND.UNA or the windows.
        let limit = self.snd_una + self.send_window();
        loop {
            if self.snd_nxt < self.snd_max {
                let Some(i) = self.sb.index_of(self.snd_nxt) else {
                    break;
                };
                let rec = *self.sb.get(i).expect("index_of returned it");
                if rec.end > limit && self.snd_nxt > self.snd_una {
                    break;
                }
                self.retransmit_index(i, now_ns, out);
                self.snd_nxt = rec.end;
            } else {
                let len = (self.app_limit - self.snd_nxt.min(self.app_limit)).min(self.mss);
                if len == 0 || (self.snd_nxt + len > limit && self.snd_nxt > self.snd_una) {
                    break;
                }
                self.send_new(now_ns, len as u32, out);
            }
        }
    }

    pub fn send_new(&mut self, now_ns: TimeNs, len: u32, out: &mut Vec<Packet>) {
        let seq = self.snd_max;
        self.sb.push_new(seq, seq + len as u64, now_ns);
        if self.timed.is_none() && !self.cfg.timestamps {
            self.timed = Some((seq + len as u64, now_ns));
        }
        self.emit(now_ns, seq, len, out);
        self.snd_max = seq + len as u64;
        self.snd_nxt = self.snd_max;
    }

    /// RFC 6675 §4 NextSeg(): which segment SACK loss recovery sends next,
    /// by the rule that picks it (None: nothing to send).
    fn next_seg(&self) -> Option<NextSeg> {
        // Rule (1); after a timeout every unSACKed segment is a candidate
        // (RFC 6675 §5.1).
        let lost = if self.sack_after_timeout && !self.in_recovery {
            self.sb.next_lost_segment_any()
        } else {
            self.sb.next_lost_segment()
        };
        if let Some(i) = lost {
            return Some(NextSeg::Lost(i));
        }
        if let Some(len) = self.new_data_len() {
            return Some(NextSeg::NewData(len));
        }
        // Rule (3).
        if let Some(i) = self.sb.next_unsacked_segment() {
            return Some(NextSeg::Unsacked(i));
        }
        // Rule (4), an option: once per recovery, when HighACK >
        // RescueRxt, the highest unSACKed segment.
        if self.cfg.rescue_retransmission
            && self.in_recovery
            && self.rescue_rxt.is_none_or(|r| self.snd_una > r)
        {
            return self.sb.last_unsacked_segment().map(NextSeg::Rescue);
        }
        None
    }

    /// NextSeg() rule (2): the length of the next new segment, if the
    /// application has data and the receiver's window takes it.
    fn new_data_len(&self) -> Option<u32> {
        let len = (self.app_limit - self.snd_max.min(self.app_limit)).min(self.mss);
        (len > 0 && self.snd_max + len <= self.snd_una + self.rwnd).then_some(len as u32)
    }

    /// RFC 6675 §5 (C): while cwnd - pipe >= 1 SMSS, send NextSeg().
    ///
    /// pipe is the scoreboard's, kept up to date (reading it scans
    /// nothing). A new segment changes nothing else NextSeg() reads (it
    /// marks nothing lost and leaves HighRxt), so once rule (2) answers it
    /// answers until the window, the application or the receiver's window
    /// stops it: those segments go out without asking NextSeg() again,
    /// whose rules (1) and (3) search the scoreboard (a burst of n
    /// segments would cost n searches of about n segments).
    fn send_by_pipe(&mut self, now_ns: TimeNs, out: &mut Vec<Packet>) {
        while self.w.cwnd >= self.sb.pipe() + self.mss {
            match self.next_seg() {
                Some(NextSeg::Lost(i) | NextSeg::Unsacked(i)) => {
                    self.retransmit_index(i, now_ns, out);
                }
                Some(NextSeg::NewData(first_len)) => {
                    let mut len = first_len;
                    loop {
                        self.send_new(now_ns, len, out);
                        match self.new_data_len() {
                            Some(next) if self.w.cwnd >= self.sb.pipe() + self.mss => len = next,
                            _ => break,
                        }
                    }
                }
                Some(NextSeg::Rescue(i)) => {
                    // RescueRxt = RecoveryPoint; HighRxt is not updated.
                    self.rescue_rxt = self.recover;
                    self.retransmit_out_of_order(i, now_ns, out);
                }
                None => break,
            }
        }
    }

    /// Let the congestion controller grow the window for `acked` new bytes.
    /// In the initial slow start with HyStart++ (RFC 9406), HyStart++
    /// grows it instead. Neither does while the flow is application limited
    /// if the controller holds its window then (CUBIC, RFC 9438 §5.8).
    pub fn grow_window(&mut self, now_ns: TimeNs, acked: u64) {
        if self.window_unused && self.cc.holds_window_while_application_limited() {
            return;
        }
        if self.cfg.hystart {
            if let Some(h) = self.hystart.as_deref_mut() {
                if h.on_ack(&mut self.w, acked, self.snd_una, self.snd_nxt, &self.rtt) {
                    return;
                }
            }
        }
        self.cc.on_ack(&mut self.w, acked, now_ns, &self.rtt);
    }

    pub fn record_timeout(&mut self, now_ns: TimeNs) {
        // A new timeout ends the repair after the previous one (the
        // standard response may start another).
        self.hole_repair_until = None;
        // The retransmit timer expired: RFC 3168 §6.1.2's wait is over.
        self.ece_hold_until = None;
        // And an ECN-Echo's PRR episode: it ends with its §6.4 cwnd, the
        // window the timeout then starts from (as after a cut at once).
        if let Some(prr) = self.prr.as_deref_mut() {
            prr.continue_episode = false;
            if prr.ecn.take().is_some() {
                self.w.cwnd = self.recovery_cwnd;
            }
        }
        self.stats.timeouts += 1;
        if self.rtt.backoff_count() == 0 {
            self.stats.first_expiries += 1;
            self.stats.first_expiry_rto_sum_ns += self.rtt.base_rto_ns() as u128;
        }
        let seq = self.snd_una;
        self.trace(now_ns, TraceEvent::Timeout { seq });
    }

    /// Bookkeeping every acceptable ACK needs: the peer's window, the
    /// timestamp to echo, SACK blocks (RFC 2018 / RFC 6675 Update()), and,
    /// if it acknowledges new data, an RTT sample (RFC 7323 RTTM, else the
    /// timed segment with Karn's rule; skipped when `sample_rtt` is false)
    /// and the cumulative ACK itself. Returns the newly acknowledged bytes.
    pub fn apply_ack(&mut self, now_ns: TimeNs, ack: &Packet, sample_rtt: bool) -> u64 {
        let ackno = ack.ack;
        self.sb.begin_ack();
        if ackno > self.snd_max || ackno < self.snd_una {
            return 0;
        }
        self.rwnd = ack.wnd;
        if ack.has_ts {
            self.ts_recent = ack.ts_val;
        }
        let sacked_before_bytes = self.sb.sacked_bytes();
        let snd_una_before = self.snd_una;
        self.newly_sacked_bytes = 0;
        if ack.sack_count > 0 {
            self.sack_seen = true;
            if self.sack_enabled {
                self.newly_sacked_bytes = self.sb.apply_sack(ack.sack_blocks());
            }
        }
        if ackno == self.snd_una {
            self.note_prr_delivery(snd_una_before, sacked_before_bytes);
            return 0;
        }
        if sample_rtt {
            if self.cfg.timestamps && ack.has_ts && ack.ts_ecr > 0 {
                let sample = now_ns.saturating_sub(ack.ts_ecr);
                self.take_rtt_sample(now_ns, sample, ackno);
            } else if let Some((end, sent)) = self.timed {
                if ackno >= end {
                    self.timed = None;
                    self.take_rtt_sample(now_ns, now_ns - sent, end);
                }
            }
        } else if self.timed.is_some_and(|(end, _)| ackno >= end) {
            self.timed = None;
        }
        self.limited_transmit_bytes = 0;
        let acked = self.sb.ack_to(ackno).bytes;
        self.snd_una = ackno;
        if self.snd_nxt < self.snd_una {
            self.snd_nxt = self.snd_una;
        }
        if self.sb.high_rxt() < self.snd_una {
            self.sb.set_high_rxt(self.snd_una);
        }
        self.dupacks = 0;
        if self.sack_after_timeout && self.recover.is_some_and(|r| self.snd_una >= r) {
            self.sack_after_timeout = false;
        }
        self.note_prr_delivery(snd_una_before, sacked_before_bytes);
        acked
    }

    /// RFC 9937 §6.2: DeliveredData = the change in SND.UNA plus the
    /// signed change in SACKed bytes, kept for PRR's per-ACK step.
    fn note_prr_delivery(&mut self, snd_una_before: u64, sacked_before_bytes: u64) {
        if !self.cfg.proportional_rate_reduction {
            return;
        }
        let cum_acked = self.snd_una - snd_una_before;
        let input = PrrAckInput {
            delivered_bytes: (cum_acked + self.sb.sacked_bytes())
                .saturating_sub(sacked_before_bytes),
            cum_acked_bytes: cum_acked,
            loss_marks_before: self.sb.loss_marks(),
            duplicate: false,
        };
        if let Some(prr) = self.prr.as_mut() {
            prr.pending_ack = Some(input);
        }
    }

    /// The ACK being processed is a duplicate ACK (RFC 5681 §2): without
    /// SACK, RFC 9937 §6.2 counts it as 1 SMSS delivered. Called before the
    /// recovery strategy sees it.
    pub fn note_duplicate_ack_for_prr(&mut self) {
        if let Some(input) = self.prr.as_mut().and_then(|p| p.pending_ack.as_mut()) {
            input.duplicate = true;
        }
    }

    /// The option `proportional_rate_reduction` is on: RFC 9937 sets cwnd
    /// in fast recovery.
    pub fn prr_enabled(&self) -> bool {
        self.prr.is_some()
    }

    /// RFC 9937's episode (the last one; all zero without the option or
    /// before the first recovery), for tests and diagnostics.
    pub fn prr_episode(&self) -> PrrEpisode {
        self.prr
            .as_ref()
            .map_or_else(PrrEpisode::default, |p| p.episode)
    }

    /// The window at the start of loss recovery, after
    /// `enter_loss_recovery` and before the first retransmission: RFC
    /// 6675 §5 (4.2) cwnd = ssthresh, or with PRR RFC 9937 §6.1's
    /// initialization and §6.2's steps for the ACK that starts recovery
    /// (`from_ack`; RACK's reordering timer starts one with no ACK, and
    /// nothing delivered). Without SACK (Reno, NewReno, with PRR only) the
    /// duplicate ACKs since SND.UNA last advanced stand for the SACKed
    /// bytes (`PrrEpisode::begin_without_sack`), and the segment at
    /// SND.UNA, about to be fast retransmitted, is the one marked lost
    /// (§6.2's inflight). A recovery that starts during an ECN-Echo's
    /// begun episode takes this ACK's §6.2 step in that episode instead of
    /// initializing one (`enter_loss_recovery`).
    pub fn set_recovery_window(&mut self, from_ack: bool) {
        let loss_marks = self.sb.loss_marks();
        let Some(prr) = self.prr.as_mut() else {
            self.w.cwnd = self.recovery_cwnd;
            return;
        };
        let continuing = std::mem::take(&mut prr.continue_episode);
        let input = if from_ack {
            prr.pending_ack.take()
        } else {
            None
        }
        .unwrap_or(PrrAckInput {
            delivered_bytes: 0,
            cum_acked_bytes: 0,
            loss_marks_before: loss_marks,
            duplicate: false,
        });
        if !continuing {
            self.begin_prr_episode(input.cum_acked_bytes, from_ack);
        }
        self.prr_step(input, true, !self.sack_enabled);
    }

    /// RFC 9937 §6.1: prr_delivered = prr_out = 0 and RecoverFS, on the
    /// ACK being processed (its SACK blocks in the scoreboard, its
    /// `cum_acked_bytes`) or, with `from_ack` false, on none.
    fn begin_prr_episode(&mut self, cum_acked_bytes: u64, from_ack: bool) {
        let outstanding_bytes = self.snd_max - self.snd_una;
        let episode = if self.sack_enabled {
            let newly_sacked_bytes = if from_ack { self.newly_sacked_bytes } else { 0 };
            PrrEpisode::begin(
                outstanding_bytes,
                self.sb.sacked_bytes(),
                newly_sacked_bytes,
                cum_acked_bytes,
            )
        } else {
            PrrEpisode::begin_without_sack(
                outstanding_bytes,
                u64::from(self.dupacks),
                cum_acked_bytes,
                self.mss,
            )
        };
        if let Some(prr) = self.prr.as_mut() {
            prr.episode = episode;
        }
    }

    /// An ECN-Echo's PRR episode is under way (RFC 9937 §4): from the
    /// ECN-Echo ACK to the ACK that reaches its RecoveryPoint (included),
    /// unless a timeout ends it or a loss recovery takes it over. The
    /// window does not grow on those ACKs (RFC 3168 §6.1.2's reduction
    /// is still being made).
    pub fn ecn_reduction_under_way(&self) -> bool {
        self.prr.as_ref().is_some_and(|p| p.ecn.is_some())
    }

    /// RFC 9937 §6.2 for an ACK during fast recovery or an ECN-Echo's
    /// episode, after the recovery strategy's loss detection and before
    /// sending (the ACK that starts recovery had it in
    /// [`Self::set_recovery_window`], the one that ends it has none). An
    /// ECN-Echo's episode begins here on the ECN-Echo ACK (§6.1, then its
    /// §6.2 step) and ends on the ACK that reaches its RecoveryPoint
    /// (§6.4: cwnd = ssthresh, no §6.2 step: "excluding the ACK that
    /// concludes a PRR episode").
    pub fn prr_after_ack(&mut self, now_ns: TimeNs) {
        if let Some(e) = self.prr.as_ref().and_then(|p| p.ecn) {
            if !e.begun {
                let cum_acked_bytes = self
                    .prr
                    .as_ref()
                    .and_then(|p| p.pending_ack)
                    .map_or(0, |i| i.cum_acked_bytes);
                self.begin_prr_episode(cum_acked_bytes, true);
            }
            let Some(prr) = self.prr.as_deref_mut() else {
                return;
            };
            if self.snd_una >= e.recovery_point {
                prr.ecn = None;
                prr.pending_ack = None;
                self.w.cwnd = self.recovery_cwnd;
                self.trace_window(now_ns);
                return;
            }
            prr.ecn = Some(EcnEpisode { begun: true, ..e });
        }
        self.prr_pending_ack(now_ns, false);
    }

    /// RFC 9937 §6.2 for an ACK of fast recovery without SACK that reveals
    /// the segment at SND.UNA lost (RFC 6582 §3.2 step 3's partial ACK),
    /// before the recovery strategy retransmits it: the §6.2 step first,
    /// then the transmissions (§6.3), as at the start of recovery.
    pub fn prr_before_retransmitting_first(&mut self, now_ns: TimeNs) {
        self.prr_pending_ack(now_ns, true);
    }

    /// The §6.2 step of the ACK being processed, once (its input is taken),
    /// in recovery; `first_lost` as in [`Self::prr_step`].
    fn prr_pending_ack(&mut self, now_ns: TimeNs, first_lost: bool) {
        let Some(prr) = self.prr.as_deref_mut() else {
            return;
        };
        let Some(input) = prr.pending_ack.take() else {
            return;
        };
        let in_episode = prr.episode_running(self.in_recovery);
        if in_episode && self.prr_step(input, false, first_lost) {
            self.trace_window(now_ns);
        }
    }

    /// One §6.2 step; true if it set cwnd. With SACK, DeliveredData is
    /// the scoreboard's and inflight RFC 6675's pipe; SafeACK: SND.UNA
    /// advanced, this ACK's loss detection marked no segment lost (§9:
    /// "any ACK of a retransmission that does not cause some other segment
    /// to be marked for retransmission"), and NextSeg() is not the rescue
    /// retransmission (§6.2: "an ACK triggering "rescue" retransmission
    /// ... may indicate further losses"). Without SACK, both are §6.2's
    /// estimates from duplicate ACKs (`PrrEpisode`; inflight after this
    /// ACK's own count or deduction), `first_lost` says the segment at
    /// SND.UNA is marked lost and not yet retransmitted, and SafeACK is an
    /// advance of SND.UNA that marks no segment lost (never, in Reno's and
    /// NewReno's recovery: Reno's first advance ends it, NewReno's partial
    /// ACK marks the next segment lost).
    fn prr_step(&mut self, input: PrrAckInput, entering: bool, first_lost: bool) -> bool {
        let sack = self.sack_enabled;
        let safe_ack = input.cum_acked_bytes > 0
            && if sack {
                self.sb.loss_marks() == input.loss_marks_before
                    && !(self.cfg.rescue_retransmission
                        && matches!(self.next_seg(), Some(NextSeg::Rescue(_))))
            } else {
                !first_lost
            };
        let pipe = if sack { self.sb.pipe() } else { 0 };
        let lost_bytes = if first_lost {
            self.sb.get(0).map_or(0, |s| s.len())
        } else {
            0
        };
        let flight = self.flight_size();
        let (ssthresh_bytes, smss_bytes) = (self.recovery_cwnd, self.mss);
        let Some(prr) = self.prr.as_mut() else {
            return false;
        };
        let (delivered_bytes, inflight_bytes) = if sack {
            (input.delivered_bytes, pipe)
        } else {
            let delivered = prr.episode.delivered_without_sack(
                input.cum_acked_bytes,
                input.duplicate,
                smss_bytes,
            );
            (
                delivered,
                prr.episode.inflight_without_sack(flight, lost_bytes),
            )
        };
        let ack = PrrAck {
            delivered_bytes,
            inflight_bytes,
            safe_ack,
            ssthresh_bytes,
            smss_bytes,
        };
        match prr.episode.on_ack(ack, entering) {
            Some(cwnd) => {
                self.w.cwnd = cwnd;
                true
            }
            None => false,
        }
    }

    /// Send up to `n` segments of new data regardless of cwnd (F-RTO step
    /// 2b, DCLOR step 4), within the receiver's window. Returns how many
    /// were sent.
    pub fn send_new_segments(&mut self, now_ns: TimeNs, n: u32, out: &mut Vec<Packet>) -> u32 {
        let mut sent = 0;
        while sent < n {
            let Some(len) = self.new_data_len() else {
                break;
            };
            self.send_new(now_ns, len, out);
            sent += 1;
        }
        sent
    }

    /// Undo the loss marks a timeout put on every unSACKed segment and
    /// resume sending from snd_max (a timeout found spurious, RFC 4015).
    pub fn undo_timeout_go_back_n(&mut self) {
        self.hole_repair_until = None;
        // Of the data sent before the timeout the timer resent only the
        // first segment, which the ACK being processed acknowledges: a
        // later expiry is of a segment it never resent (RFC 5681 §3.1).
        self.timer_resent_until = Some(self.snd_una);
        self.sb.clear_loss_marks();
        self.sack_after_timeout = false;
        self.snd_nxt = self.snd_max;
        self.sb.set_high_rxt(self.snd_una);
    }

    /// Add cwnd x (time since the last call) to the cwnd integral. cwnd
    /// only changes inside the sender's entry points, which all call this
    /// first, so the integral is exact.
    pub fn account_cwnd(&mut self, now_ns: TimeNs) {
        if let Some(last) = self.cwnd_accounted_ns {
            let dt = now_ns.saturating_sub(last) as u128;
            self.stats.cwnd_byte_ns += self.w.cwnd as u128 * dt;
            self.stats.cwnd_time_ns += dt;
        }
        self.cwnd_accounted_ns = Some(now_ns);
    }

    /// RFC 9438 §5.8: "A flow is application limited if it is using less
    /// than the allowed congestion window", held back by the sending
    /// application (no data) or the receiving one (its advertised window).
    /// Here: FlightSize leaves room under cwnd for one more full-sized
    /// segment (a fraction of a segment cannot be used). Called at the end
    /// of each entry point, once sending has stopped, so the state holds
    /// until the next one; the controller hears of each change and when.
    pub fn note_window_use(&mut self, now_ns: TimeNs) {
        let unused = self.flight_size() + self.mss <= self.w.cwnd;
        if unused != self.window_unused {
            self.window_unused = unused;
            self.cc.on_application_limited(now_ns, unused);
        }
    }

    pub fn forget_timed_segment(&mut self) {
        self.timed = None;
    }

    /// One RTT measurement of the data ending at `timed_end` (the ACK
    /// number with timestamps, the timed segment's end without): RFC 6298
    /// (2.2)/(2.3), or RFC 4015 step (5)'s re-seed when it is the first
    /// for data sent after a spurious timeout. Taken before the ACK
    /// restarts the timer, so (5.3) uses the RTO it yields.
    fn take_rtt_sample(&mut self, now_ns: TimeNs, tao_ns: TimeNs, timed_end: u64) {
        let sample_ns = self.rtt.measure(now_ns, tao_ns);
        match self.rtt_reseed {
            Some(r) if timed_end > r.sent_after => {
                self.rtt_reseed = None;
                self.rtt
                    .reseed_after_spurious_timeout(r.srtt_prev_ns, r.rttvar_prev_ns, sample_ns);
            }
            _ => self.rtt.on_sample(sample_ns),
        }
        self.trace(now_ns, TraceEvent::RttSample { rtt_ns: sample_ns });
    }
}

/// Something that runs beside the sender with a timer of its own and sees
/// every packet the sender receives first (Kick TCP's kick timer).
pub trait SenderHook: Send {
    fn name(&self) -> &'static str;
    /// The retransmission timer was set or reset (`Some(deadline)`) or
    /// stopped (`None`).
    fn on_rto_timer_changed(
        &mut self,
        now_ns: TimeNs,
        rto_deadline: Option<TimeNs>,
        core: &SenderCore,
    );
    /// Offered each arriving packet before TCP; return true to consume it.
    fn on_packet(&mut self, _now_ns: TimeNs, _pkt: &Packet) -> bool {
        false
    }
    /// Named counters reported per flow.
    fn counters(&self) -> Vec<(&'static str, u64)> {
        Vec::new()
    }
    fn deadline(&self) -> Option<TimeNs>;
    fn on_timer(&mut self, now_ns: TimeNs, core: &mut SenderCore, out: &mut Vec<Packet>);
}
