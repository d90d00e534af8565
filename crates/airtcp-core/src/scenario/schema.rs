//! The scenario file format (TOML). Every table rejects unknown keys; every
//! quantity carries its unit. Defaults are documented on each field and in
//! docs/scenario.md.

use std::sync::Arc;

use super::spanned::Spanned;
use serde::Deserialize;

use super::units::{Duration, Probability, QueueLimitSpec, Rate, Seed, Size};

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    pub simulation: SimulationSpec,
    #[serde(default)]
    pub node: Vec<NodeSpec>,
    #[serde(default)]
    pub link: Vec<LinkSpec>,
    #[serde(default)]
    pub flow: Vec<FlowSpec>,
    #[serde(default)]
    pub output: OutputSpec,
    /// Packet captures (pcapng), one file each.
    #[serde(default)]
    pub capture: Vec<Spanned<CaptureSpec>>,
    /// The per-packet event trace (Parquet).
    pub trace: Option<Spanned<TraceSpec>>,
    /// A parameter sweep over this scenario (docs/sweeps.md). The core
    /// runs the base scenario and leaves the table to the Python side
    /// (`airtcp sweep`), which checks it and substitutes each point.
    #[serde(default)]
    pub sweep: Option<toml::Table>,
}

/// `[[capture]]`: a pcapng file of the packets seen at a link direction
/// (at its entrance, drops included with their cause) and/or at a node
/// (what it sends and receives). See docs/capture.md.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaptureSpec {
    /// A link direction "A->B", or "A<->B" for both directions.
    pub link: Option<Spanned<String>>,
    /// A node.
    pub node: Option<Spanned<String>>,
    /// File name, relative to the output directory (default
    /// "capture-<link or node>.pcapng").
    pub file: Option<Spanned<String>>,
    /// Bytes kept of each packet (default: all of it; payload is zeros).
    pub snaplen: Option<Spanned<Size>>,
}

/// `[trace]`: one Parquet row per packet event (send, enqueue, dequeue,
/// drop, receive, deliver). See docs/capture.md.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceSpec {
    /// File name, relative to the output directory (default "trace.parquet").
    pub file: Option<Spanned<String>>,
    /// Only these flows (by name; default: every flow, or those with
    /// `tcp.trace = true`).
    pub flows: Option<Vec<Spanned<String>>>,
    /// Only the events on these link directions ("A->B", "A<->B"; default:
    /// every link and node event).
    pub links: Option<Vec<Spanned<String>>>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimulationSpec {
    /// Simulated time to run.
    pub duration: Spanned<Duration>,
    /// Master seed (default 1); `run(seed=...)` overrides it. An integer,
    /// or a string of digits for seeds of 2^63 and above (TOML integers
    /// stop at 2^63 - 1).
    #[serde(default)]
    pub seed: Seed,
    /// Initial IP TTL of every packet an endpoint or agent sends (default
    /// 64, RFC 1700's value and Linux's); a flow whose route is longer is
    /// rejected.
    pub ttl: Option<Spanned<i64>>,
    /// Largest memory a run may need, estimated before anything is
    /// allocated (default "4GB"; see docs/scenario.md).
    pub memory_budget: Option<Spanned<Size>>,
}

/// Optional: declares a node (nodes named by links exist anyway).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeSpec {
    pub name: Spanned<String>,
    /// Compact form: this table stands for `count` nodes, `{i}` in `name`
    /// and in agents' `peer` replaced by 0 .. count-1 (`expand.rs`).
    pub count: Option<Spanned<i64>>,
    /// Middlebox agents on this node, in the order they see packets.
    #[serde(default)]
    pub agents: Vec<Spanned<AgentSpec>>,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq, Hash)]
#[serde(rename_all = "snake_case")]
pub enum AgentKind {
    /// Kick TCP's kick-aware intermediate node: optional `knowledge`
    /// (what it knows it has forwarded, default "highest_forwarded").
    Kick,
    /// Snoop (Balakrishnan et al. 1995) on the node before the wireless
    /// hop: optional `min_timeout` (floor of the local timer, "20ms").
    Snoop,
    /// G-Snoop gateway A (sender side of the wireless link to `peer`):
    /// `peer`, optional `cache` (packets, default 25) and `icn` (default
    /// true; false turns the incipient congestion notification off, an
    /// ablation the document does not describe).
    GsnoopA,
    /// G-Snoop gateway B (receiver side of the wireless link from `peer`):
    /// `peer`, optional `guard` ("10ms") and `wireless_rtt` (default: the
    /// link's propagation delay both ways).
    GsnoopB,
    /// Link-layer ARQ on the node before the wireless hop to `peer`
    /// (WMECN paper's LRT, DDA-like): optional `retries` (default 3) and
    /// `timeout` (default: see docs/scenario.md).
    Arq,
    /// The mobile host's side of the ARQ with `peer`: link-layer ACKs and
    /// DDA's delayed duplicate ACKs, optional `delay` (default: see docs).
    Dda,
}

/// An agent table: a `kind` plus the fields that kind takes (see
/// [`AgentKind`]); `build.rs` checks which.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentSpec {
    pub kind: AgentKind,
    pub peer: Option<Spanned<String>>,
    pub cache: Option<Spanned<i64>>,
    pub guard: Option<Spanned<Duration>>,
    pub wireless_rtt: Option<Spanned<Duration>>,
    pub min_timeout: Option<Spanned<Duration>>,
    pub retries: Option<Spanned<i64>>,
    pub timeout: Option<Spanned<Duration>>,
    pub delay: Option<Spanned<Duration>>,
    pub knowledge: Option<Spanned<KickKnowledgeSpec>>,
    pub icn: Option<Spanned<bool>>,
}

/// What a kick-aware node knows it has forwarded
/// (`crate::agents::kick_node::NodeKnowledge`).
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum KickKnowledgeSpec {
    Exact,
    HighestForwarded,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ClassifierKind {
    /// Standard TCP: every loss is congestion.
    AlwaysCongestion,
    /// Teng & Chang's RTT threshold: `threshold` (an RTT) or
    /// `ticks_above_base` (with `tick`, default "10ms"); `on_timeout`;
    /// `before_rtt_sample`.
    RttThreshold,
    /// WMECN's filtering context (§3.2); `on_timeout` (default "classify").
    Wmecn,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum OnTimeoutSpec {
    Congestion,
    Classify,
}

/// What the RTT-threshold classifier calls a loss before the first RTT
/// sample (`crate::tcp::classify::BeforeSamplePolicy`).
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum BeforeRttSampleSpec {
    Corruption,
    Congestion,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClassifierSpec {
    pub kind: ClassifierKind,
    pub threshold: Option<Duration>,
    pub ticks_above_base: Option<i64>,
    pub tick: Option<Spanned<Duration>>,
    /// What a timeout is (default "congestion").
    pub on_timeout: Option<OnTimeoutSpec>,
    /// What a loss before the first RTT sample is (rtt_threshold only;
    /// default "corruption", as ns-2's `t_rtt_` of 0 compares).
    pub before_rtt_sample: Option<BeforeRttSampleSpec>,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum TimeoutResponseSpec {
    Standard,
    Eifel,
    Frto,
    FrtoSack,
    Dclor,
}

/// Kick TCP at the sender (draft-bahk-pilc-tcp-wireless-00).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KickFileSpec {
    /// "rtt" (the smoothed RTT) or a fixed duration such as "150ms".
    pub interval: Spanned<String>,
    /// Interval before the first RTT sample when interval = "rtt"
    /// (default: the initial RTO, i.e. no kick before the first expiry).
    pub before_sample: Option<Duration>,
    /// IP TTL of kick segments (default 1).
    pub ttl: Option<i64>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    pub a: Spanned<String>,
    pub b: Spanned<String>,
    /// Compact form: this table stands for `count` links, `{i}` in `a` and
    /// `b` replaced by 0 .. count-1 (`expand.rs`).
    pub count: Option<Spanned<i64>>,
    pub rate: Rate,
    pub delay: Duration,
    /// Queue of both directions (default DropTail, 50 packets, as ns-2).
    /// The optional tables are shared (`Arc`): inline, a link's table took
    /// 3.4 KB even when it named none of them, and a counted table is
    /// copied per member while a world is built (`expand.rs`: 690 MB for a
    /// 100,000-flow dumbbell's 200,001 links); members share what their
    /// table wrote.
    pub queue: Option<Arc<Spanned<QueueSpec>>>,
    /// Channel errors of both directions (default none).
    pub error: Option<Arc<Spanned<ErrorSpec>>>,
    /// Per-direction overrides.
    pub a_to_b: Option<Arc<DirectionSpec>>,
    pub b_to_a: Option<Arc<DirectionSpec>>,
    /// STIS per-connection stalling on this link (both directions).
    pub stall: Option<Arc<Spanned<StallSpec>>>,
}

/// DCLOR draft Appendix 1 item 4: every `period` (default "1s") each
/// connection draws r: r < p1 stalls it for d1, p1 <= r < p1 + p2 for d2;
/// packets arriving during a stall wait until its end.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StallSpec {
    pub period: Option<Duration>,
    pub p1: Probability,
    pub d1: Duration,
    pub p2: Probability,
    pub d2: Duration,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DirectionSpec {
    pub rate: Option<Rate>,
    pub delay: Option<Duration>,
    pub queue: Option<Spanned<QueueSpec>>,
    pub error: Option<Spanned<ErrorSpec>>,
}

// Integer fields are i64, the range of a TOML integer, so that a value
// out of a field's range is refused in that field's words (build.rs), not
// serde's ("expected u8").

// The tables with a `kind` are flat structs rather than serde-tagged enums:
// a tagged enum buffers its table, which loses the field path and the line
// of a bad value. `build.rs` checks which fields each kind takes.

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum QueueKind {
    Droptail,
    Red,
    /// Multi-level ECN (WMECN paper §2.1): `limit`, `min_th`, `mid_th`,
    /// `max_th`; optional `weight`, `max_p1` (0.1), `max_p2` (0.1),
    /// `mean_packet_size`.
    Mecn,
    /// WMECN marking (§3.1): `limit`, `min_th`, `mid_th`, `max_th`;
    /// optional `weight`, `max_p` (0.1), `mean_packet_size`, `not_ect`
    /// ("random_marks").
    Wmecn,
    /// STIS bottleneck (DCLOR draft, Appendix 1): `limit` is a buffer shared
    /// by all connections, each served in its own queue at the link rate.
    PerFlow,
}

/// What a `wmecn` queue does to a packet that is not ECN-capable.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum NotEctSpec {
    /// Dropped where a random mark falls and at or above max_th.
    RandomMarks,
    /// Dropped wherever a capable packet would be marked.
    EveryMark,
}

/// `kind = "droptail"`: `limit`. `kind = "red"` (Floyd & Jacobson RED,
/// thresholds in packets of the average queue): `limit`, `min_th`,
/// `max_th`, and optionally `weight` (default 0.002), `max_p` (0.1),
/// `gentle` (false), `wait` (false), `ecn` (false), `mean_packet_size`
/// ("1000B").
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueueSpec {
    pub kind: QueueKind,
    pub limit: Option<Spanned<QueueLimitSpec>>,
    pub min_th: Option<Spanned<f64>>,
    pub max_th: Option<Spanned<f64>>,
    pub weight: Option<Spanned<f64>>,
    pub max_p: Option<Probability>,
    pub gentle: Option<bool>,
    pub wait: Option<bool>,
    pub ecn: Option<bool>,
    pub mean_packet_size: Option<Size>,
    pub mid_th: Option<Spanned<f64>>,
    pub max_p1: Option<Spanned<Probability>>,
    pub max_p2: Option<Spanned<Probability>>,
    pub not_ect: Option<NotEctSpec>,
}

#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "snake_case")]
pub enum AppliesTo {
    #[default]
    All,
    Data,
    Acks,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// Independent losses with packet error rate `per`.
    Bernoulli,
    /// Independent bit errors: P(loss) = 1 - (1 - ber)^bits.
    Ber,
    /// Continuous-time two-state Markov fading: `mean_good`, `mean_bad`,
    /// `loss_good` (default 0), `loss_bad` (default 1).
    GilbertElliott,
    /// Drop exactly the listed `packets` (1-based count of matching packets).
    DropList,
    /// Reordering by route changes (DCLOR draft Appendix 1 item 5): per
    /// connection, each packet switches route with `switch_probability`;
    /// the second route adds `extra_delay`. Loses nothing.
    RouteChange,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum GeLossRuleSpec {
    Start,
    During,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum GeInitialStateSpec {
    Stationary,
    Good,
    Bad,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ErrorSpec {
    pub kind: ErrorKind,
    pub per: Option<Probability>,
    pub ber: Option<Probability>,
    pub mean_good: Option<Spanned<Duration>>,
    pub mean_bad: Option<Spanned<Duration>>,
    pub loss_good: Option<Probability>,
    pub loss_bad: Option<Probability>,
    /// Gilbert–Elliott: which state decides a packet's fate, "start" (of
    /// its transmission, default) or "during" (bad at any time while it is
    /// sent, as ns-2's two-state error model).
    pub loss_rule: Option<GeLossRuleSpec>,
    /// Gilbert–Elliott: "stationary" (default), "good" or "bad".
    pub initial_state: Option<GeInitialStateSpec>,
    pub packets: Option<Vec<i64>>,
    pub switch_probability: Option<Probability>,
    pub extra_delay: Option<Duration>,
    /// Which packets the errors hit (default all).
    #[serde(default)]
    pub applies_to: AppliesTo,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    /// Name in results (default "flow<i>").
    pub name: Option<String>,
    pub from: Spanned<String>,
    pub to: Spanned<String>,
    /// Compact form: this table stands for `count` flows, `{i}` in `name`,
    /// `from` and `to` replaced by 0 .. count-1 (`expand.rs`).
    pub count: Option<Spanned<i64>>,
    /// With `count`: member i starts at `start + i × stagger` (default 0s).
    pub stagger: Option<Spanned<Duration>>,
    /// Start time (default 0s).
    pub start: Option<Spanned<Duration>>,
    /// End of the active interval (default: the end of the run).
    pub stop: Option<Spanned<Duration>>,
    /// TCP settings; omitted = all defaults. Not allowed with a UDP app.
    /// Shared by the members of a counted table (see `LinkSpec::queue`).
    pub tcp: Option<Arc<Spanned<TcpFileSpec>>>,
    pub app: Spanned<AppSpec>,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(rename_all = "snake_case")]
pub enum VariantSpec {
    Tahoe,
    Reno,
    Newreno,
    Sack,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TcpFileSpec {
    /// Default newreno.
    pub variant: Option<VariantSpec>,
    /// SACK option and RFC 6675 recovery (default false; implied by "sack").
    pub sack: Option<bool>,
    /// Payload bytes per segment (default 1000B, ns-2's packetSize_).
    pub mss: Option<Size>,
    /// Initial window in segments (default: RFC 5681 §3.1 for the MSS).
    pub initial_cwnd: Option<i64>,
    /// Initial ssthresh (default: arbitrarily high, RFC 5681 §3.1).
    pub initial_ssthresh: Option<Size>,
    /// Receiver's advertised window (default 1MB).
    pub rwnd: Option<Size>,
    /// RFC 7323 timestamps (default false).
    pub timestamps: Option<bool>,
    /// RFC 3168 ECN (default false).
    pub ecn: Option<bool>,
    /// Three-way handshake (default false: start established, like ns-2).
    pub handshake: Option<bool>,
    /// RFC 6298 parameters (defaults 1s, 1s, 60s, 1ms).
    pub initial_rto: Option<Duration>,
    pub min_rto: Option<Duration>,
    pub max_rto: Option<Duration>,
    pub clock_granularity: Option<Duration>,
    /// Largest RTO backoff multiplier (ns-2's rtt_backoff: 64; default none).
    pub max_backoff: Option<i64>,
    /// Measure RTT in ticks of this clock, as ns-2 without timestamps
    /// (default: exact).
    pub rtt_tick: Option<Duration>,
    /// Where the ticks of `rtt_tick` fall: "zero" (at multiples of the tick
    /// from time 0, the default) or "random" (per connection, uniformly in
    /// [0, tick), ns-2's `boot_time_`).
    pub rtt_tick_phase: Option<RttTickPhaseSpec>,
    /// Delayed ACKs at the receiver (default true).
    pub delayed_ack: Option<bool>,
    /// Delayed-ACK timer (default 200ms, RFC 1122's "less than 0.5 s"; BSD).
    pub delack_timeout: Option<Duration>,
    /// ACK every n-th full-sized segment (default 2, RFC 5681 §4.2).
    pub delack_segments: Option<i64>,
    /// Duplicate-ACK threshold (default 3).
    pub dupthresh: Option<i64>,
    /// Restart the retransmission timer when a fast retransmit is sent
    /// (default true, as ns-2's Reno and Linux; RFC 6298 is silent).
    pub restart_rto_on_fast_retransmit: Option<bool>,
    /// Put this flow's packets in the per-packet trace (`[trace]`, written
    /// to "trace.parquet" unless `[trace]` names the file; default false).
    pub trace: Option<bool>,
    /// Kick TCP's kick timer (default off).
    pub kick: Option<KickFileSpec>,
    /// What to do after a retransmission timeout: "standard" (default),
    /// "eifel" (needs timestamps), "frto", "frto_sack" or "dclor" (needs
    /// SACK).
    pub timeout_response: Option<Spanned<TimeoutResponseSpec>>,
    /// DCLOR §6: only after a SACK block was seen (default true).
    pub dclor_requires_sack_block: Option<bool>,
    /// Loss classifier (default: every loss is congestion).
    pub classifier: Option<Spanned<ClassifierSpec>>,
    /// Congestion controller (default Reno, RFC 5681): a name ("cubic")
    /// or a table with `kind` and that kind's parameters.
    pub cc: Option<Spanned<CcField>>,
    /// RFC 3042 Limited Transmit (default true).
    pub limited_transmit: Option<bool>,
    /// Send retransmissions ECN-capable, as ns-2 did (default false: RFC
    /// 3168 §6.1.5). Needs `ecn` or multi-level ECN.
    pub ecn_capable_retransmissions: Option<bool>,
    /// The smallest cwnd a congestion mark's reduction leaves, in segments:
    /// 2 (default: RFC 5681's floor, Linux) or 1 (RFC 3168 §6.1.2's
    /// halving, ns-2). Needs `ecn` or an mecn/wmecn cc.
    pub mark_min_cwnd: Option<i64>,
    /// RFC 6675 NextSeg rule (4) rescue retransmission (default false).
    pub rescue_retransmission: Option<bool>,
    /// RFC 9937 Proportional Rate Reduction in SACK loss recovery
    /// (default false).
    pub proportional_rate_reduction: Option<bool>,
    /// RFC 6675 §6's MAY: restart the retransmission timer at each
    /// retransmission sent during SACK loss recovery (default false).
    pub restart_rto_on_recovery_retransmission: Option<bool>,
    /// ssthresh when the RTO fires during fast recovery: "keep" (default,
    /// Linux) or "flight_size" (RFC 5681 (4) literally).
    pub timeout_in_recovery_ssthresh: Option<TimeoutInRecoverySsthreshSpec>,
    /// Reno: at most one fast retransmit per window (ns-2's bug_fix_;
    /// default false).
    pub reno_one_fast_retransmit_per_window: Option<bool>,
    /// How losses are detected: "dupack" (default: DupThresh, RFC 5681 /
    /// RFC 6675), "rack_tlp" (RFC 8985; needs SACK) or "rack" (RFC 8985
    /// without the tail loss probe; needs SACK).
    pub loss_detection: Option<Spanned<LossDetectionSpec>>,
    /// The initial slow start, for any controller: "rfc5681" (default) or
    /// "hystart++" (RFC 9406).
    pub slow_start: Option<SlowStartSpec>,
}

impl TcpFileSpec {
    /// RFC 7323 timestamps: off unless the file turns them on. One place for
    /// the default, which the options that need them check too.
    pub fn timestamps(&self) -> bool {
        self.timestamps.unwrap_or(false)
    }
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
pub enum SlowStartSpec {
    #[serde(rename = "rfc5681")]
    Rfc5681,
    #[serde(rename = "hystart++")]
    HyStartPlusPlus,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum LossDetectionSpec {
    Dupack,
    RackTlp,
    Rack,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum RttTickPhaseSpec {
    Zero,
    Random,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum TimeoutInRecoverySsthreshSpec {
    Keep,
    FlightSize,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum CcKind {
    Reno,
    /// MECN source response (§2.3): `beta1` (0.2), `beta2` (0.4), `beta3` (0.5).
    Mecn,
    /// MECN response that applies the WMECN classifier's graded loss
    /// reductions (§3.2); same fields.
    Wmecn,
    /// TCP Westwood (Casetti et al. 2002): `tau` ("500ms").
    Westwood,
    /// Westwood+ (Grieco & Mascolo 2004).
    WestwoodPlus,
    /// CUBIC (RFC 9438): `c` (0.4), `beta` (0.7), `fast_convergence` (true).
    Cubic,
}

/// `cc = "cubic"` (a kind with its defaults) or `cc = { kind = "cubic",
/// ... }`: a name is the table with only `kind`.
#[derive(Clone, Debug)]
pub struct CcField(pub CcSpec);

impl<'de> Deserialize<'de> for CcField {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct NameOrTable;
        impl<'de> serde::de::Visitor<'de> for NameOrTable {
            type Value = CcField;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a controller name such as \"cubic\" or a table { kind = ... }")
            }
            fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<CcField, E> {
                let kind = CcKind::deserialize(serde::de::value::StrDeserializer::<E>::new(name))?;
                Ok(CcField(CcSpec {
                    kind,
                    beta1: None,
                    beta2: None,
                    beta3: None,
                    tau: None,
                    c: None,
                    beta: None,
                    fast_convergence: None,
                }))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<CcField, A::Error> {
                CcSpec::deserialize(serde::de::value::MapAccessDeserializer::new(map)).map(CcField)
            }
        }
        d.deserialize_any(NameOrTable)
    }
}

/// `cc = { kind = ... }`, fields checked per kind in `build.rs`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CcSpec {
    pub kind: CcKind,
    pub beta1: Option<Spanned<Probability>>,
    pub beta2: Option<Spanned<Probability>>,
    pub beta3: Option<Spanned<Probability>>,
    pub tau: Option<Spanned<Duration>>,
    /// CUBIC's C, segments per second cubed.
    pub c: Option<Spanned<f64>>,
    /// CUBIC's beta_cubic, the fraction of cwnd kept at a congestion event.
    pub beta: Option<Spanned<f64>>,
    pub fast_convergence: Option<Spanned<bool>>,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum AppKind {
    /// FTP-like, unlimited data.
    Bulk,
    /// One transfer of `size`.
    File,
    /// Transfers of `size` with exponential think times of mean `think`,
    /// `count` times (default: until the end).
    Repeated,
    /// UDP on/off: `rate` while on, `packet_size` (default "1000B"),
    /// exponential `mean_on` and `mean_off`.
    Onoff,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AppSpec {
    pub kind: AppKind,
    pub size: Option<Spanned<Size>>,
    pub think: Option<Duration>,
    pub count: Option<i64>,
    pub rate: Option<Rate>,
    pub packet_size: Option<Spanned<Size>>,
    pub mean_on: Option<Spanned<Duration>>,
    pub mean_off: Option<Spanned<Duration>>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputSpec {
    pub timeseries: Option<TimeseriesSpec>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimeseriesSpec {
    pub interval: Spanned<Duration>,
    /// cwnd, ssthresh, srtt, rtt per TCP flow (default true).
    #[serde(default = "yes")]
    pub flows: bool,
    /// queue length (and RED average) per link direction (default true).
    #[serde(default = "yes")]
    pub links: bool,
}

fn yes() -> bool {
    true
}
