//! The scenario file format (TOML). Every table rejects unknown keys; every
//! quantity carries its unit. Defaults are documented on each field and in
//! docs/scenario.md.

use serde::Deserialize;
use toml::Spanned;

use super::units::{Duration, Probability, QueueLimitSpec, Rate, Size};

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
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimulationSpec {
    /// Simulated time to run.
    pub duration: Spanned<Duration>,
    /// Master seed (default 1); `run(seed=...)` overrides it.
    #[serde(default = "default_seed")]
    pub seed: u64,
}

fn default_seed() -> u64 {
    1
}

/// Optional: declares a node (nodes named by links exist anyway).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeSpec {
    pub name: Spanned<String>,
    /// Middlebox agents on this node, in the order they see packets.
    #[serde(default)]
    pub agents: Vec<Spanned<AgentSpec>>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum AgentSpec {
    /// Kick TCP's kick-aware intermediate node.
    Kick,
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
    pub ttl: Option<u8>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    pub a: Spanned<String>,
    pub b: Spanned<String>,
    pub rate: Rate,
    pub delay: Duration,
    /// Queue of both directions (default DropTail, 50 packets, as ns-2).
    pub queue: Option<QueueSpec>,
    /// Channel errors of both directions (default none).
    pub error: Option<ErrorSpec>,
    /// Per-direction overrides.
    pub a_to_b: Option<DirectionSpec>,
    pub b_to_a: Option<DirectionSpec>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DirectionSpec {
    pub rate: Option<Rate>,
    pub delay: Option<Duration>,
    pub queue: Option<QueueSpec>,
    pub error: Option<ErrorSpec>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum QueueSpec {
    Droptail {
        limit: QueueLimitSpec,
    },
    /// Floyd & Jacobson RED; thresholds in packets of the average queue.
    Red {
        limit: QueueLimitSpec,
        min_th: f64,
        max_th: f64,
        /// EWMA weight w_q (default 0.002, the paper's).
        #[serde(default = "default_red_weight")]
        weight: f64,
        /// Probability at max_th (default 0.1).
        #[serde(default = "default_max_p")]
        max_p: Probability,
        #[serde(default)]
        gentle: bool,
        /// Mark ECN-capable packets instead of dropping them early.
        #[serde(default)]
        ecn: bool,
        /// Typical packet size for ageing the average when idle (default 1000B).
        mean_packet_size: Option<Size>,
    },
}

fn default_red_weight() -> f64 {
    0.002
}
fn default_max_p() -> Probability {
    Probability(0.1)
}

#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "snake_case")]
pub enum AppliesTo {
    #[default]
    All,
    Data,
    Acks,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum ErrorSpec {
    /// Independent losses with packet error rate `per`.
    Bernoulli {
        per: Probability,
        #[serde(default)]
        applies_to: AppliesTo,
    },
    /// Independent bit errors: P(loss) = 1 - (1 - ber)^bits.
    Ber {
        ber: Probability,
        #[serde(default)]
        applies_to: AppliesTo,
    },
    /// Continuous-time two-state Markov fading.
    GilbertElliott {
        mean_good: Duration,
        mean_bad: Duration,
        /// Loss probability in the good state (default 0).
        #[serde(default)]
        loss_good: Option<Probability>,
        /// Loss probability in the bad state (default 1).
        #[serde(default)]
        loss_bad: Option<Probability>,
        #[serde(default)]
        applies_to: AppliesTo,
    },
    /// Drop exactly the listed packets (1-based count of matching packets).
    DropList {
        packets: Vec<u64>,
        #[serde(default)]
        applies_to: AppliesTo,
    },
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    /// Name in results (default "flow<i>").
    pub name: Option<String>,
    pub from: Spanned<String>,
    pub to: Spanned<String>,
    /// Start time (default 0s).
    pub start: Option<Duration>,
    /// End of the active interval (default: the end of the run).
    pub stop: Option<Spanned<Duration>>,
    /// TCP settings; omitted = all defaults. Not allowed with a UDP app.
    pub tcp: Option<Spanned<TcpFileSpec>>,
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
    pub initial_cwnd: Option<u32>,
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
    /// Delayed ACKs at the receiver (default true).
    pub delayed_ack: Option<bool>,
    /// Delayed-ACK timer (default 200ms, RFC 1122's "less than 0.5 s"; BSD).
    pub delack_timeout: Option<Duration>,
    /// ACK every n-th full-sized segment (default 2, RFC 5681 §4.2).
    pub delack_segments: Option<u32>,
    /// Duplicate-ACK threshold (default 3).
    pub dupthresh: Option<u32>,
    /// Record a per-sender event trace (tests; default false).
    pub trace: Option<bool>,
    /// Kick TCP's kick timer (default off).
    pub kick: Option<KickFileSpec>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum AppSpec {
    Bulk,
    File {
        size: Size,
    },
    Repeated {
        size: Size,
        /// Mean of the exponential think time.
        think: Duration,
        count: Option<u64>,
    },
    Onoff {
        rate: Rate,
        /// Bytes on the wire per datagram (default 1000B).
        packet_size: Option<Size>,
        mean_on: Duration,
        mean_off: Duration,
    },
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputSpec {
    pub timeseries: Option<TimeseriesSpec>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimeseriesSpec {
    pub interval: Duration,
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
