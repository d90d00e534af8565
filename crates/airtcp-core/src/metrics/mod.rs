//! Results of a run, from ground truth: per flow, per link direction, per
//! transfer, per agent, and optional sampled time series.

use crate::net::packet::DeathCause;

pub const N_CAUSES: usize = DeathCause::ALL.len();

#[derive(Clone, Debug, Default, PartialEq)]
pub struct FlowResult {
    pub flow: u32,
    pub name: String,
    pub src: String,
    pub dst: String,
    /// "tcp" or "udp".
    pub protocol: String,
    /// TCP variant label ("reno", "newreno+sack", ...) or "" for UDP.
    pub variant: String,
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
    /// cwnd averaged over the time the flow's connections were open.
    pub mean_cwnd_bytes: f64,
    pub final_cwnd_bytes: u64,
    pub final_ssthresh_bytes: u64,
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
    /// Kick TCP: kick segments sent and kickbacks received by the sender.
    pub kicks_sent: u64,
    pub kickbacks_received: u64,
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

/// One time-series sample in long format.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SeriesPoint {
    pub time_s: f64,
    /// "cwnd", "ssthresh", "srtt", "rtt" (flows) or "queue", "red_avg" (links).
    pub metric: &'static str,
    /// Flow or link-direction index.
    pub id: u32,
    pub value: f64,
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

/// One value of a result table, for front ends that build column tables
/// (the Python binding) without listing the fields themselves.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Cell<'a> {
    U32(u32),
    U64(u64),
    F64(f64),
    Str(&'a str),
}

/// A row of a result table: its columns in a fixed order. The names are
/// the public column names of the Python tables.
pub trait Row {
    fn visit<'a>(&'a self, f: &mut dyn FnMut(&str, Cell<'a>));
}

/// Column names of the drop counters, by death cause.
fn drop_columns<'a>(drops: &[u64; N_CAUSES], f: &mut dyn FnMut(&str, Cell<'a>)) {
    for (cause, n) in DeathCause::ALL.iter().zip(drops) {
        f(&format!("drops_{}", cause.name()), Cell::U64(*n));
    }
}

impl Row for FlowResult {
    fn visit<'a>(&'a self, f: &mut dyn FnMut(&str, Cell<'a>)) {
        use Cell::*;
        f("flow", U32(self.flow));
        f("name", Str(&self.name));
        f("src", Str(&self.src));
        f("dst", Str(&self.dst));
        f("protocol", Str(&self.protocol));
        f("variant", Str(&self.variant));
        f("app", Str(&self.app));
        f("start_s", F64(self.start_s));
        f("end_s", F64(self.end_s));
        f("delivered_bytes", U64(self.delivered_bytes));
        f("goodput_bps", F64(self.goodput_bps));
        f("throughput_bps", F64(self.throughput_bps));
        f("segments_sent", U64(self.segments_sent));
        f("bytes_sent", U64(self.bytes_sent));
        f("retransmitted_segments", U64(self.retransmitted_segments));
        f("retransmitted_bytes", U64(self.retransmitted_bytes));
        f(
            "duplicate_bytes_received",
            U64(self.duplicate_bytes_received),
        );
        f("timeouts", U64(self.timeouts));
        f("spurious_timeouts", U64(self.spurious_timeouts));
        f(
            "spurious_timeouts_detected",
            U64(self.spurious_timeouts_detected),
        );
        f("fast_retransmits", U64(self.fast_retransmits));
        f("ecn_reductions", U64(self.ecn_reductions));
        f("non_congestion_losses", U64(self.non_congestion_losses));
        drop_columns(&self.data_drops, f);
        f("ack_drops", U64(self.ack_drops));
        f("ecn_marks", U64(self.ecn_marks));
        f("transfers_completed", U64(self.transfers_completed));
        f("mean_rtt_s", F64(self.mean_rtt_s));
        f("min_rtt_s", F64(self.min_rtt_s));
        f("mean_first_rto_s", F64(self.mean_first_rto_s));
        f("mean_cwnd_bytes", F64(self.mean_cwnd_bytes));
        f("final_cwnd_bytes", U64(self.final_cwnd_bytes));
        f("final_ssthresh_bytes", U64(self.final_ssthresh_bytes));
        f(
            "loss_congestion_as_congestion",
            U64(self.loss_congestion_as_congestion),
        );
        f(
            "loss_congestion_as_wireless",
            U64(self.loss_congestion_as_wireless),
        );
        f(
            "loss_wireless_as_congestion",
            U64(self.loss_wireless_as_congestion),
        );
        f(
            "loss_wireless_as_wireless",
            U64(self.loss_wireless_as_wireless),
        );
        f(
            "loss_other_as_congestion",
            U64(self.loss_other_as_congestion),
        );
        f("loss_other_as_wireless", U64(self.loss_other_as_wireless));
        f("wireless_losses_halved", U64(self.wireless_losses_halved));
        f(
            "wireless_losses_halved_by_dupacks",
            U64(self.wireless_losses_halved_by_dupacks),
        );
        f("kicks_sent", U64(self.kicks_sent));
        f("kickbacks_received", U64(self.kickbacks_received));
    }
}

impl Row for LinkResult {
    fn visit<'a>(&'a self, f: &mut dyn FnMut(&str, Cell<'a>)) {
        use Cell::*;
        f("link", U32(self.link));
        f("name", Str(&self.name));
        f("from", Str(&self.from));
        f("to", Str(&self.to));
        f("rate_bps", U64(self.rate_bps));
        f("delay_s", F64(self.delay_s));
        f("packets_sent", U64(self.packets_sent));
        f("bytes_sent", U64(self.bytes_sent));
        f("utilization", F64(self.utilization));
        drop_columns(&self.drops, f);
        f("ecn_marks", U64(self.ecn_marks));
        f("mean_queue_pkts", F64(self.mean_queue_pkts));
        f("max_queue_pkts", U32(self.max_queue_pkts));
    }
}

impl Row for TransferResult {
    fn visit<'a>(&'a self, f: &mut dyn FnMut(&str, Cell<'a>)) {
        use Cell::*;
        f("flow", U32(self.flow));
        f("index", U64(self.index));
        f("start_s", F64(self.start_s));
        f("end_s", F64(self.end_s));
        f("bytes", U64(self.bytes));
        f("response_s", F64(self.response_s));
    }
}

impl Row for AgentResult {
    fn visit<'a>(&'a self, f: &mut dyn FnMut(&str, Cell<'a>)) {
        use Cell::*;
        f("node", Str(&self.node));
        f("agent", Str(&self.agent));
        f("counter", Str(&self.counter));
        f("value", U64(self.value));
    }
}

impl Row for SeriesPoint {
    fn visit<'a>(&'a self, f: &mut dyn FnMut(&str, Cell<'a>)) {
        use Cell::*;
        f("time_s", F64(self.time_s));
        f("metric", Str(self.metric));
        f("id", U32(self.id));
        f("value", F64(self.value));
    }
}

/// Jain's fairness index (sum x)^2 / (n * sum x^2); 1 when all are equal.
pub fn jain_fairness(xs: &[f64]) -> f64 {
    let n = xs.len() as f64;
    let sum: f64 = xs.iter().sum();
    let sq: f64 = xs.iter().map(|x| x * x).sum();
    if n == 0.0 || sq == 0.0 {
        return 1.0;
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
    }
}
