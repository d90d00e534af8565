//! Results of a run, from ground truth: per flow, per link direction, per
//! transfer, per agent, and optional sampled time series.

pub mod series;

use std::sync::OnceLock;

use crate::net::packet::DeathCause;
pub use series::{SeriesConfig, SeriesKind, SeriesMetric, SeriesPoint, SeriesRow};

pub const N_CAUSES: usize = DeathCause::ALL.len();

#[derive(Clone, Debug, Default, PartialEq)]
pub struct FlowResult {
    pub flow: u32,
    pub name: String,
    pub src: String,
    pub dst: String,
    /// "tcp" or "udp".
    pub protocol: String,
    /// TCP variant label ("reno", "newreno+sack", ...); None for UDP.
    pub variant: Option<String>,
    pub app: String,
    pub start_s: f64,
    pub end_s: f64,
    /// Bytes delivered in order to the receiving application, each once.
    pub delivered_bytes: u64,
    /// delivered_bytes * 8 / (end - start).
    pub goodput_bps: f64,
    /// Payload bytes that reached the receiver, duplicates included, per second.
    pub throughput_bps: f64,
    pub segments_sent: u64,
    pub bytes_sent: u64,
    pub retransmitted_segments: u64,
    pub retransmitted_bytes: u64,
    pub duplicate_bytes_received: u64,
    /// ACKs the receiver sent repeating the previous ACK's number.
    pub duplicate_acks_sent: u64,
    pub timeouts: u64,
    pub spurious_timeouts: u64,
    /// Timeouts the flow's timeout response (Eifel, F-RTO, DCLOR) judged
    /// spurious (compare with the ground-truth `spurious_timeouts`).
    pub spurious_timeouts_detected: u64,
    pub fast_retransmits: u64,
    pub ecn_reductions: u64,
    pub non_congestion_losses: u64,
    /// Data (or UDP) packets of this flow that died, by cause.
    pub data_drops: [u64; N_CAUSES],
    pub ack_drops: u64,
    /// Packets of this flow that a queue CE-marked.
    pub ecn_marks: u64,
    pub transfers_completed: u64,
    pub mean_rtt_s: f64,
    pub min_rtt_s: f64,
    /// Mean base RTO at first expiries (the PFTK model's T0), NaN if none.
    pub mean_first_rto_s: f64,
    /// cwnd averaged over the time the flow's connections were open; NaN
    /// for UDP or if none was.
    pub mean_cwnd_bytes: f64,
    /// None for UDP or if no connection was open at the end.
    pub final_cwnd_bytes: Option<u64>,
    /// None while ssthresh is still the initial "arbitrarily high" value.
    pub final_ssthresh_bytes: Option<u64>,
    /// Loss-classifier accuracy against the ground truth: each loss the
    /// sender detected, by the true fate of the segment's latest
    /// transmission (congestion = queue or AQM drop, wireless = channel
    /// error, other = not lost or lost otherwise) and the classifier's
    /// verdict. Type 1 errors are `loss_congestion_as_wireless`, type 2
    /// errors `loss_wireless_as_congestion`.
    pub loss_congestion_as_congestion: u64,
    pub loss_congestion_as_wireless: u64,
    pub loss_wireless_as_congestion: u64,
    pub loss_wireless_as_wireless: u64,
    pub loss_other_as_congestion: u64,
    pub loss_other_as_wireless: u64,
    /// Wireless losses whose congestion response halved the window or cut
    /// it further (a timeout, or a new ssthresh <= cwnd / 2).
    pub wireless_losses_halved: u64,
    /// Of those, the ones detected by duplicate ACKs (not a timeout).
    pub wireless_losses_halved_by_dupacks: u64,
    /// Wireless losses called congestion whose window cut was made (a
    /// timeout, or a duplicate-ACK loss whose cut the once-per-RTT rule did
    /// not skip): the type-2 errors at which the window could be halved.
    pub wireless_losses_cut: u64,
    /// Of those, the ones detected by duplicate ACKs.
    pub wireless_losses_cut_by_dupacks: u64,
    /// Congestion verdicts on duplicate-ACK losses whose window cut the
    /// once-per-RTT rule skipped (MECN / WMECN).
    pub loss_cuts_blocked_once_per_rtt: u64,
    /// Of those, channel-error losses whose cut would have halved the window.
    pub wireless_halvings_blocked_once_per_rtt: u64,
    /// Kick TCP: kick segments sent, kickbacks that answered the latest
    /// kick (and stopped the kick timer), and stale kickbacks (for an
    /// earlier kick: discarded, the kick timer left running).
    pub kicks_sent: u64,
    pub kickbacks_received: u64,
    pub stale_kickbacks: u64,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct LinkResult {
    pub link: u32,
    pub name: String,
    pub from: String,
    pub to: String,
    pub rate_bps: u64,
    pub delay_s: f64,
    pub packets_sent: u64,
    pub bytes_sent: u64,
    pub utilization: f64,
    pub drops: [u64; N_CAUSES],
    pub ecn_marks: u64,
    pub mean_queue_pkts: f64,
    pub max_queue_pkts: u32,
}

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TransferResult {
    pub flow: u32,
    pub index: u64,
    pub start_s: f64,
    pub end_s: f64,
    pub bytes: u64,
    pub response_s: f64,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct AgentResult {
    pub node: String,
    pub agent: String,
    pub counter: String,
    pub value: u64,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunResult {
    pub seed: u64,
    pub duration_s: f64,
    pub flows: Vec<FlowResult>,
    pub links: Vec<LinkResult>,
    pub transfers: Vec<TransferResult>,
    pub agents: Vec<AgentResult>,
    pub series: Vec<SeriesPoint>,
    pub events: u64,
    /// Packets that crossed a link (one packet over one link = one hop).
    pub packet_hops: u64,
}

impl RunResult {
    /// The `series` table's rows: each sample with its flow or link name.
    pub fn series_rows(&self) -> Vec<SeriesRow<'_>> {
        self.series
            .iter()
            .map(|p| {
                let i = p.index as usize;
                let name = match p.metric.kind() {
                    SeriesKind::Flow => self.flows.get(i).map(|f| f.name.as_str()),
                    SeriesKind::Link => self.links.get(i).map(|l| l.name.as_str()),
                };
                SeriesRow {
                    point: p,
                    name: name.unwrap_or(""),
                }
            })
            .collect()
    }
}

/// One value of a result table, for front ends that build column tables
/// (the Python binding) without listing the fields themselves.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Cell<'a> {
    U32(u32),
    U64(u64),
    F64(f64),
    Str(&'a str),
    /// A count that may have no value (missing, not a sentinel). Tables
    /// hold it as a double, so that its type is the same whether or not a
    /// value is missing (pandas turns an integer column with a null into
    /// floats); counts below 2^53 are exact.
    OptU64(Option<u64>),
    /// A name that may be missing (null; never an empty string standing
    /// for "does not apply", which a CSV file could not tell from missing).
    OptStr(Option<&'a str>),
}

/// A column of a result table: its public name, its unit ("" for names and
/// indices) and what it means and how it is counted. `docs/results.md` is
/// generated from these, so the documentation is the code's column list.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Column<'n> {
    pub name: &'n str,
    pub unit: &'static str,
    pub doc: &'n str,
}

/// Shorthand for a [`Column`].
pub const fn col<'n>(name: &'n str, unit: &'static str, doc: &'n str) -> Column<'n> {
    Column { name, unit, doc }
}

/// A row of a result table: its columns in a fixed order. The names are
/// the public column names of the Python tables.
pub trait Row {
    fn visit<'a>(&'a self, f: &mut dyn FnMut(Column<'_>, Cell<'a>));
}

/// The drop counters' (name, doc), one column per death cause, for a
/// table whose rows are `whose`; `link`: a link direction's, which only
/// ever sees its queue's and its channel's deaths.
fn drop_column_texts(whose: &str, link: bool) -> Vec<(String, String)> {
    DeathCause::ALL
        .iter()
        .map(|cause| {
            let at_node = matches!(
                cause,
                DeathCause::TtlExpired | DeathCause::AgentDrop | DeathCause::NoRoute
            );
            let note = if link && at_node {
                " This happens at a node, never on a link: always 0 here."
            } else if *cause == DeathCause::ChannelError {
                " Only a transmission that starts within the run counts (one on the air at the \
                 end does, as its `drop` row in the trace); a packet still waiting at the end, \
                 which the channel would lose later, does not."
            } else {
                ""
            };
            (
                format!("drops_{}", cause.name()),
                format!("{whose} that died because {}.{note}", cause.describe()),
            )
        })
        .collect()
}

/// The drop counters of a row, one column per death cause; `texts` from
/// [`drop_column_texts`], built once per table, not once per row (a table
/// of 100,000 flows formatted 2.4 million strings).
fn drop_columns<'a>(
    drops: &[u64; N_CAUSES],
    texts: &[(String, String)],
    f: &mut dyn FnMut(Column<'_>, Cell<'a>),
) {
    for ((name, doc), n) in texts.iter().zip(drops) {
        f(col(name, "packets", doc), Cell::U64(*n));
    }
}

impl Row for FlowResult {
    fn visit<'a>(&'a self, f: &mut dyn FnMut(Column<'_>, Cell<'a>)) {
        use Cell::*;
        f(
            col(
                "flow",
                "",
                "Index of the flow in the scenario's `[[flow]]` list (from 0).",
            ),
            U32(self.flow),
        );
        f(
            col(
                "name",
                "",
                "The flow's `name` (default `flow<index>`); unique in a scenario.",
            ),
            Str(&self.name),
        );
        f(
            col("src", "", "Node of the data sender (`from`)."),
            Str(&self.src),
        );
        f(
            col("dst", "", "Node of the receiver (`to`)."),
            Str(&self.dst),
        );
        f(col("protocol", "", "`tcp` or `udp`."), Str(&self.protocol));
        f(
            col(
                "variant",
                "",
                "TCP variant label, in this order: recovery (`tahoe`, `reno`, `newreno`, `sack`); \
                 `+sack` when SACK is on with another recovery; `+rack_tlp` or `+rack` for RACK \
                 loss detection; `+hystart++`; `+prr` for Proportional Rate Reduction; `/<cc>` \
                 for a congestion controller other than Reno (`cubic`, `westwood`, `westwood+`, \
                 `mecn`, `wmecn`), as in `sack+rack_tlp+prr/cubic`; missing for UDP. It does not \
                 name the timeout response (`timeout_response`: DCLOR, Eifel, F-RTO), ECN, a loss \
                 classifier or Kick TCP: read those from the scenario (a sweep's parameter \
                 columns, a reproduction's scheme column).",
            ),
            OptStr(self.variant.as_deref()),
        );
        f(
            col(
                "app",
                "",
                "Application: `bulk`, `file`, `repeated` or `onoff` (UDP).",
            ),
            Str(&self.app),
        );
        f(
            col("start_s", "s", "The flow's start time."),
            F64(self.start_s),
        );
        f(
            col(
                "end_s",
                "s",
                "End of the flow's accounting interval: when it finished (file transferred, last \
                 repeated download done), its `stop` time, or the end of the run, whichever is first.",
            ),
            F64(self.end_s),
        );
        f(
            col(
                "delivered_bytes",
                "bytes",
                "TCP: payload bytes delivered in order to the receiving application, each byte once. \
                 UDP: wire bytes of the datagrams that arrived.",
            ),
            U64(self.delivered_bytes),
        );
        f(
            col(
                "goodput_bps",
                "bit/s",
                "`delivered_bytes` × 8 / (`end_s` − `start_s`); 0 for an empty interval.",
            ),
            F64(self.goodput_bps),
        );
        f(
            col(
                "throughput_bps",
                "bit/s",
                "TCP: payload bytes that reached the receiver, duplicates included, × 8 / \
                 (`end_s` − `start_s`). UDP: equal to `goodput_bps`.",
            ),
            F64(self.throughput_bps),
        );
        f(
            col(
                "segments_sent",
                "segments",
                "TCP: data segments the sender transmitted, retransmissions included (SYNs, pure \
                 ACKs and Kick TCP's kick copies excluded). UDP: datagrams sent.",
            ),
            U64(self.segments_sent),
        );
        f(
            col(
                "bytes_sent",
                "bytes",
                "TCP: payload bytes of `segments_sent`. UDP: wire bytes of the datagrams sent.",
            ),
            U64(self.bytes_sent),
        );
        f(
            col(
                "retransmitted_segments",
                "segments",
                "Data segments the sender transmitted that re-send bytes it had sent before (fast \
                 retransmits, timeout retransmissions, go-back-N, SACK recovery). Local \
                 retransmissions by agents (Snoop, G-Snoop, ARQ) and kicks are not counted.",
            ),
            U64(self.retransmitted_segments),
        );
        f(
            col(
                "retransmitted_bytes",
                "bytes",
                "Payload bytes of `retransmitted_segments`.",
            ),
            U64(self.retransmitted_bytes),
        );
        f(
            col(
                "duplicate_bytes_received",
                "bytes",
                "Payload bytes that reached the receiver when it already had them (delivered or \
                 held out of order).",
            ),
            U64(self.duplicate_bytes_received),
        );
        f(
            col(
                "duplicate_acks_sent",
                "ACKs",
                "ACKs the receiver sent that repeat the acknowledgment number of the ACK it sent \
                 before (RFC 5681 §2 duplicate ACKs as the receiver emits them; Wireshark's \
                 `tcp.analysis.duplicate_ack` on a capture of the receiver's output, see \
                 docs/capture.md).",
            ),
            U64(self.duplicate_acks_sent),
        );
        f(
            col(
                "timeouts",
                "count",
                "Retransmission timer expiries (RFC 6298 (5.4)-(5.7)), SYN timeouts included.",
            ),
            U64(self.timeouts),
        );
        f(
            col(
                "spurious_timeouts",
                "count",
                "Ground truth: data timeouts whose first retransmitted segment was not lost (at \
                 expiry the receiver already held it or a copy was still in the network). SYN \
                 timeouts are never counted here (they are in `timeouts`).",
            ),
            U64(self.spurious_timeouts),
        );
        f(
            col(
                "spurious_timeouts_detected",
                "count",
                "Timeouts the flow's timeout response (Eifel, F-RTO, DCLOR) judged spurious; compare \
                 with `spurious_timeouts` (the responses act on data timeouts only, never on a SYN's).",
            ),
            U64(self.spurious_timeouts_detected),
        );
        f(
            col(
                "fast_retransmits",
                "count",
                "Entries into fast retransmit on `dupthresh` duplicate ACKs (RFC 5681 §3.2 step 2, \
                 RFC 6582 §3.2, RFC 6675 §5 step 4).",
            ),
            U64(self.fast_retransmits),
        );
        f(
            col(
                "ecn_reductions",
                "count",
                "Window reductions in response to congestion echoed by the receiver: ECN-Echo \
                 (RFC 3168 §6.1.2, once per window) or an MECN level (at most once per RTT).",
            ),
            U64(self.ecn_reductions),
        );
        f(
            col(
                "non_congestion_losses",
                "count",
                "Losses the flow's loss classifier judged not caused by congestion (the window was \
                 kept).",
            ),
            U64(self.non_congestion_losses),
        );
        static TEXTS: OnceLock<Vec<(String, String)>> = OnceLock::new();
        let texts = TEXTS.get_or_init(|| {
            drop_column_texts("Data segments (UDP: datagrams) of this flow", false)
        });
        drop_columns(&self.data_drops, texts, f);
        f(
            col(
                "ack_drops",
                "packets",
                "ACKs of this flow that died, whatever the cause (a channel loss only if its \
                 transmission starts within the run, as `drops_channel`).",
            ),
            U64(self.ack_drops),
        );
        f(
            col(
                "ecn_marks",
                "packets",
                "Packets of this flow a queue marked: CE set by RED/ECN, or the MECN level raised.",
            ),
            U64(self.ecn_marks),
        );
        f(
            col(
                "transfers_completed",
                "count",
                "Transfers of a `file` or `repeated` app whose last byte was acknowledged.",
            ),
            U64(self.transfers_completed),
        );
        f(
            col(
                "mean_rtt_s",
                "s",
                "Mean of the sender's RTT samples (RFC 7323 RTTM with timestamps, otherwise one \
                 timed segment per RTT with Karn's rule); missing (NaN) without samples.",
            ),
            F64(self.mean_rtt_s),
        );
        f(
            col(
                "min_rtt_s",
                "s",
                "Smallest RTT sample; missing (NaN) without samples.",
            ),
            F64(self.min_rtt_s),
        );
        f(
            col(
                "mean_first_rto_s",
                "s",
                "Mean retransmission timeout, before backoff, at the first expiry of each backoff \
                 series (the PFTK model's T0); missing (NaN) without timeouts.",
            ),
            F64(self.mean_first_rto_s),
        );
        f(
            col(
                "mean_cwnd_bytes",
                "bytes",
                "Congestion window averaged over the time the flow's connections were open; \
                 missing (NaN) for UDP, or if no connection was open.",
            ),
            F64(self.mean_cwnd_bytes),
        );
        f(
            col(
                "final_cwnd_bytes",
                "bytes",
                "cwnd of the connection open at the end of the run; missing for UDP, or if \
                 none was open.",
            ),
            OptU64(self.final_cwnd_bytes),
        );
        f(
            col(
                "final_ssthresh_bytes",
                "bytes",
                "ssthresh of the connection open at the end of the run; missing while ssthresh \
                 is still the initial \"arbitrarily high\" value (RFC 5681 §3.1) or no connection \
                 was open.",
            ),
            OptU64(self.final_ssthresh_bytes),
        );
        // The docs are literals (concat!), not formatted per row.
        macro_rules! confusion_doc {
            ($truth:literal, $verdict:literal) => {
                concat!(
                    "Losses the sender detected (duplicate ACKs or timeout) whose segment's \
                     latest transmission truly met ",
                    $truth,
                    ", and that the loss classifier called ",
                    $verdict,
                    "."
                )
            };
        }
        let confusion = [
            (
                "loss_congestion_as_congestion",
                confusion_doc!("a queue or AQM drop", "congestion"),
                self.loss_congestion_as_congestion,
            ),
            (
                "loss_congestion_as_wireless",
                confusion_doc!("a queue or AQM drop", "not congestion (type 1 error)"),
                self.loss_congestion_as_wireless,
            ),
            (
                "loss_wireless_as_congestion",
                confusion_doc!("a channel error", "congestion (type 2 error)"),
                self.loss_wireless_as_congestion,
            ),
            (
                "loss_wireless_as_wireless",
                confusion_doc!("a channel error", "not congestion"),
                self.loss_wireless_as_wireless,
            ),
            (
                "loss_other_as_congestion",
                confusion_doc!("no loss or another death", "congestion"),
                self.loss_other_as_congestion,
            ),
            (
                "loss_other_as_wireless",
                confusion_doc!("no loss or another death", "not congestion"),
                self.loss_other_as_wireless,
            ),
        ];
        for (name, doc, v) in confusion {
            f(col(name, "count", doc), U64(v));
        }
        f(
            col(
                "wireless_losses_halved",
                "count",
                "Channel-error losses whose congestion response halved the window or cut it \
                 further (a timeout, or a new ssthresh at most half the cwnd).",
            ),
            U64(self.wireless_losses_halved),
        );
        f(
            col(
                "wireless_losses_halved_by_dupacks",
                "count",
                "Of `wireless_losses_halved`, those detected by duplicate ACKs (not a timeout).",
            ),
            U64(self.wireless_losses_halved_by_dupacks),
        );
        f(
            col(
                "wireless_losses_cut",
                "count",
                "Channel-error losses the loss classifier called congestion whose window cut was made \
                 (a timeout, or a duplicate-ACK loss whose cut the once-per-RTT rule did not skip \
                 and that was not in a window an ECN-Echo had already reduced, RFC 3168 §6.1.2): \
                 the type-2 errors at which the window could be halved; `wireless_losses_halved` \
                 counts those where it was.",
            ),
            U64(self.wireless_losses_cut),
        );
        f(
            col(
                "wireless_losses_cut_by_dupacks",
                "count",
                "Of `wireless_losses_cut`, those detected by duplicate ACKs (not a timeout).",
            ),
            U64(self.wireless_losses_cut_by_dupacks),
        );
        f(
            col(
                "loss_cuts_blocked_once_per_rtt",
                "count",
                "Losses detected by duplicate ACKs that the loss classifier called congestion but whose \
                 window cut was skipped because the window had been cut less than one SRTT before \
                 (the once-per-RTT rule of an `mecn`/`wmecn` cc, MECN §2.3 / WMECN §3.2): \
                 retransmitted, window kept. Their verdicts still count in the `loss_*` columns.",
            ),
            U64(self.loss_cuts_blocked_once_per_rtt),
        );
        f(
            col(
                "wireless_halvings_blocked_once_per_rtt",
                "count",
                "Of `loss_cuts_blocked_once_per_rtt`, channel-error losses whose skipped cut would have \
                 halved the window or more (a new ssthresh at most half the cwnd): type-2 errors that \
                 `wireless_losses_halved_by_dupacks` does not count because the rule blocked them.",
            ),
            U64(self.wireless_halvings_blocked_once_per_rtt),
        );
        f(
            col(
                "kicks_sent",
                "segments",
                "Kick TCP: kick segments the sender sent.",
            ),
            U64(self.kicks_sent),
        );
        f(
            col(
                "kickbacks_received",
                "segments",
                "Kick TCP: kickbacks (answers of a kick-aware node) that answered the sender's latest kick and stopped its kick timer.",
            ),
            U64(self.kickbacks_received),
        );
        f(
            col(
                "stale_kickbacks",
                "segments",
                "Kick TCP: kickbacks for a kick sent before the kick timer was last set (the segment since acknowledged, or the timer restarted): discarded, the kick timer left running.",
            ),
            U64(self.stale_kickbacks),
        );
    }
}

impl Row for LinkResult {
    fn visit<'a>(&'a self, f: &mut dyn FnMut(Column<'_>, Cell<'a>)) {
        use Cell::*;
        f(
            col(
                "link",
                "",
                "Index of the link direction: 2i for `a`->`b` and 2i+1 for `b`->`a` of the \
                 scenario's i-th `[[link]]`.",
            ),
            U32(self.link),
        );
        f(
            col(
                "name",
                "",
                "`from->to`, with `#2`, `#3`, ... for further links between the same nodes.",
            ),
            Str(&self.name),
        );
        f(col("from", "", "Transmitting node."), Str(&self.from));
        f(col("to", "", "Receiving node."), Str(&self.to));
        f(
            col("rate_bps", "bit/s", "Transmission rate."),
            U64(self.rate_bps),
        );
        f(col("delay_s", "s", "Propagation delay."), F64(self.delay_s));
        f(
            col(
                "packets_sent",
                "packets",
                "Packets the queue admitted for transmission (those the channel then lost \
                 included).",
            ),
            U64(self.packets_sent),
        );
        f(
            col(
                "bytes_sent",
                "bytes",
                "Wire bytes (headers included) of `packets_sent`.",
            ),
            U64(self.bytes_sent),
        );
        f(
            col(
                "utilization",
                "fraction",
                "Time spent transmitting / duration of the run. Only transmission within the \
                 run counts: a packet on the air at the end counts up to the end, packets still \
                 waiting count nothing (`packets_sent` counts them: admitted). A `per_flow` \
                 queue serves its connections side by side, each at the link rate: the sum of \
                 their transmitting times, capped at the duration (1).",
            ),
            F64(self.utilization),
        );
        static TEXTS: OnceLock<Vec<(String, String)>> = OnceLock::new();
        let texts =
            TEXTS.get_or_init(|| drop_column_texts("Packets offered to this link direction", true));
        drop_columns(&self.drops, texts, f);
        f(
            col(
                "ecn_marks",
                "packets",
                "Packets the queue marked (CE set, or the MECN level raised).",
            ),
            U64(self.ecn_marks),
        );
        f(
            col(
                "mean_queue_pkts",
                "packets",
                "Time-averaged number of packets waiting (not in transmission) over the run.",
            ),
            F64(self.mean_queue_pkts),
        );
        f(
            col(
                "max_queue_pkts",
                "packets",
                "Largest number of packets waiting.",
            ),
            U32(self.max_queue_pkts),
        );
    }
}

impl Row for TransferResult {
    fn visit<'a>(&'a self, f: &mut dyn FnMut(Column<'_>, Cell<'a>)) {
        use Cell::*;
        f(
            col("flow", "", "Index of the flow (as in the flows table)."),
            U32(self.flow),
        );
        f(
            col("index", "", "Transfer number within the flow, from 0."),
            U64(self.index),
        );
        f(
            col("start_s", "s", "When the transfer's connection opened."),
            F64(self.start_s),
        );
        f(
            col("end_s", "s", "When its last byte was acknowledged."),
            F64(self.end_s),
        );
        f(
            col("bytes", "bytes", "Size of the transfer."),
            U64(self.bytes),
        );
        f(
            col("response_s", "s", "`end_s` − `start_s`: the response time."),
            F64(self.response_s),
        );
    }
}

impl Row for AgentResult {
    fn visit<'a>(&'a self, f: &mut dyn FnMut(Column<'_>, Cell<'a>)) {
        use Cell::*;
        f(col("node", "", "Node the agent runs on."), Str(&self.node));
        f(
            col("agent", "", "Agent kind (see the agent counters below)."),
            Str(&self.agent),
        );
        f(col("counter", "", "Counter name."), Str(&self.counter));
        f(col("value", "count", "Counter value."), U64(self.value));
    }
}

/// Jain's fairness index (sum x)^2 / (n * sum x^2): 1 when all shares are
/// equal, 1/n when one flow has everything. NaN when there is nothing to
/// share (no values, or all zero): the index is 0/0 there, and a run in
/// which no flow got anything says nothing about how flows share a path,
/// so it must not count as perfectly fair. The reproductions' statistics
/// skip NaN runs (`experiments/base.py`), and a table prints "-" when no
/// run has a value. An undefined share (NaN, or infinite) makes the index
/// NaN; shares are amounts, so the Python API refuses negative ones.
pub fn jain_fairness(xs: &[f64]) -> f64 {
    let n = xs.len() as f64;
    let sum: f64 = xs.iter().sum();
    let sq: f64 = xs.iter().map(|x| x * x).sum();
    if n == 0.0 || sq == 0.0 || !xs.iter().all(|x| x.is_finite()) {
        return f64::NAN;
    }
    if !(sum * sum).is_finite() || !sq.is_finite() {
        // The index does not change when every value is scaled: values
        // near f64::MAX would overflow their squares, so divide by the
        // largest first (only then, so ordinary inputs keep their bits).
        let largest = xs.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
        let scaled: Vec<f64> = xs.iter().map(|x| x / largest).collect();
        return jain_fairness(&scaled);
    }
    sum * sum / (n * sq)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jain_index() {
        assert!((jain_fairness(&[1.0, 1.0, 1.0]) - 1.0).abs() < 1e-12);
        assert!((jain_fairness(&[1.0, 0.0]) - 0.5).abs() < 1e-12);
        assert!((jain_fairness(&[3.0, 1.0]) - 16.0 / 20.0).abs() < 1e-12);
        assert!((jain_fairness(&[5.0, 0.0, 0.0, 0.0]) - 0.25).abs() < 1e-12);
    }

    /// The index is scale-free (Jain, Chiu and Hawe 1984): values whose
    /// squares overflow f64 give the index of the same values scaled down,
    /// not NaN (it was (inf)/(inf) before).
    #[test]
    fn jain_index_of_huge_values() {
        assert_eq!(jain_fairness(&[1e308, 1e308]), 1.0);
        assert!((jain_fairness(&[3e300, 1e300]) - 16.0 / 20.0).abs() < 1e-12);
        assert!((jain_fairness(&[f64::MAX, 0.0]) - 0.5).abs() < 1e-12);
    }

    /// Nothing to share: (0)^2 / (n * 0) is undefined, never "fair".
    #[test]
    fn jain_index_of_nothing_is_nan() {
        assert!(jain_fairness(&[0.0, 0.0, 0.0]).is_nan());
        assert!(jain_fairness(&[0.0]).is_nan());
        assert!(jain_fairness(&[]).is_nan());
    }
}
