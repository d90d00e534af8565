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

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TransferResult {
    pub flow: u32,
    pub index: u64,
    pub start_s: f64,
    pub end_s: f64,
    pub bytes: u64,
    pub response_s: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct AgentResult {
    pub node: String,
    pub agent: String,
    pub counter: String,
    pub value: u64,
}

/// One time-series sample in long format.
#[derive(Clone, Debug, PartialEq)]
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
