//! Result collection: time-series samples during the run and the final
//! tables ([`RunResult`]) at its end.

use super::{FlowKind, World};
use crate::metrics::{
    AgentResult, FlowResult, LinkResult, RunResult, SeriesMetric, SeriesPoint, TransferResult,
};
use crate::sim::events::EventKind;
use crate::sim::{ns_to_s, NS_PER_S};
use crate::tcp::spec::UNBOUNDED_SSTHRESH_BYTES;

impl World {
    /// Take one sample of every time series (see `metrics/series.rs`).
    pub(super) fn sample(&mut self) {
        let Some(cfg) = self.series_cfg.clone() else {
            return;
        };
        let now = self.now_ns;
        let time_s = ns_to_s(now);
        let since = self.rates.begin(now, self.flows.len());
        let series = &mut self.series;
        let mut push = |metric: SeriesMetric, index: usize, value: f64| {
            series.push(SeriesPoint {
                time_s,
                metric,
                index: index as u32,
                value,
            })
        };
        if cfg.flows {
            for (i, f) in self.flows.iter().enumerate() {
                let (delivered, received) = f.bytes_received();
                let (d, r) = self.rates.advance(i, delivered, received);
                // Rates for the intervals that overlap the flow's active
                // time: a sweep of short flows does not fill the table.
                let end = f.finished_ns.or(f.stop_ns);
                if let Some(since) =
                    since.filter(|&s| now > f.start_ns && end.is_none_or(|e| s < e))
                {
                    let dt = ns_to_s(now - since);
                    push(SeriesMetric::GoodputBps, i, d as f64 * 8.0 / dt);
                    push(SeriesMetric::ThroughputBps, i, r as f64 * 8.0 / dt);
                }
                let FlowKind::Tcp(tf) = &f.kind else { continue };
                let Some(s) = tf.sender() else {
                    continue;
                };
                push(SeriesMetric::CwndBytes, i, s.core.w.cwnd as f64);
                push(
                    SeriesMetric::CwndWithoutInflationBytes,
                    i,
                    s.core.cwnd_without_inflation() as f64,
                );
                if s.core.w.ssthresh < UNBOUNDED_SSTHRESH_BYTES {
                    push(SeriesMetric::SsthreshBytes, i, s.core.w.ssthresh as f64);
                }
                if let Some(srtt) = s.core.rtt.srtt_ns() {
                    push(SeriesMetric::SrttS, i, ns_to_s(srtt));
                }
                if let Some(rtt) = s.core.rtt.latest_rtt_ns() {
                    push(SeriesMetric::RttS, i, ns_to_s(rtt));
                }
            }
        }
        if cfg.links {
            for (i, l) in self.links.iter_mut().enumerate() {
                push(SeriesMetric::QueuePkts, i, l.queue_len_pkts(now) as f64);
                if let Some(avg) = l.queue.red_avg() {
                    push(SeriesMetric::RedAvgPkts, i, avg);
                }
            }
        }
        self.events
            .schedule(self.now_ns + cfg.interval_ns, EventKind::Sample);
    }

    pub(super) fn collect(&mut self) -> RunResult {
        let end = self.now_ns;
        let mut flows = Vec::with_capacity(self.flows.len());
        for (i, f) in self.flows.iter_mut().enumerate() {
            let stop = f.finished_ns.or(f.stop_ns).unwrap_or(end).min(end);
            let active_ns = stop.saturating_sub(f.start_ns);
            let per_s = |bytes: u64| {
                if active_ns == 0 {
                    0.0
                } else {
                    bytes as f64 * 8.0 / ns_to_s(active_ns)
                }
            };
            let mut r = FlowResult {
                flow: i as u32,
                name: f.name.clone(),
                src: self.nodes[f.src as usize].name.clone(),
                dst: self.nodes[f.dst as usize].name.clone(),
                start_s: ns_to_s(f.start_ns),
                end_s: ns_to_s(stop),
                data_drops: f.data_drops,
                ack_drops: f.ack_drops,
                ecn_marks: f.ecn_marks,
                mean_first_rto_s: f64::NAN,
                mean_rtt_s: f64::NAN,
                min_rtt_s: f64::NAN,
                mean_cwnd_bytes: f64::NAN,
                ..Default::default()
            };
            match &mut f.kind {
                FlowKind::Tcp(t) => {
                    let open = t.sender().map(|s| (s.core.w.cwnd, s.core.w.ssthresh));
                    Self::close_connection(t, end);
                    let s = &t.closed_sender;
                    let rx = &t.closed_receiver;
                    r.protocol = "tcp".into();
                    r.variant = Some(t.spec.label());
                    r.app = t.app.kind_name().into();
                    r.delivered_bytes = rx.delivered_bytes;
                    r.goodput_bps = per_s(rx.delivered_bytes);
                    r.throughput_bps = per_s(rx.received_bytes);
                    r.segments_sent = s.segments_sent;
                    r.bytes_sent = s.bytes_sent;
                    r.retransmitted_segments = s.retransmitted_segments;
                    r.retransmitted_bytes = s.retransmitted_bytes;
                    r.duplicate_bytes_received = rx.duplicate_bytes;
                    r.duplicate_acks_sent = rx.duplicate_acks;
                    r.timeouts = s.timeouts;
                    r.spurious_timeouts = t.spurious_timeouts;
                    r.spurious_timeouts_detected = s.spurious_timeouts_detected;
                    // Means divided once per flow in floating point (an
                    // integer division truncated them to whole bytes / ns).
                    if s.cwnd_time_ns > 0 {
                        r.mean_cwnd_bytes = s.cwnd_byte_ns as f64 / s.cwnd_time_ns as f64;
                    }
                    r.fast_retransmits = s.fast_retransmits;
                    r.ecn_reductions = s.ecn_reductions;
                    r.non_congestion_losses = s.non_congestion_losses;
                    r.transfers_completed = t.transfers_done;
                    if t.rtt_samples > 0 {
                        r.mean_rtt_s = mean_ns_as_s(t.rtt_sum_ns, t.rtt_samples);
                    }
                    if let Some(m) = t.min_rtt_ns {
                        r.min_rtt_s = ns_to_s(m);
                    }
                    if s.first_expiries > 0 {
                        r.mean_first_rto_s =
                            mean_ns_as_s(s.first_expiry_rto_sum_ns, s.first_expiries);
                    }
                    let counter = |name: &str| {
                        t.closed_hook_counters
                            .iter()
                            .find(|(n, _)| *n == name)
                            .map_or(0, |(_, v)| *v)
                    };
                    let c = t.confusion;
                    r.loss_congestion_as_congestion = c[0][0];
                    r.loss_congestion_as_wireless = c[0][1];
                    r.loss_wireless_as_congestion = c[1][0];
                    r.loss_wireless_as_wireless = c[1][1];
                    r.loss_other_as_congestion = c[2][0];
                    r.loss_other_as_wireless = c[2][1];
                    r.wireless_losses_halved = t.wireless_losses_halved;
                    r.wireless_losses_halved_by_dupacks = t.wireless_losses_halved_by_dupacks;
                    r.wireless_losses_cut = t.wireless_losses_cut;
                    r.wireless_losses_cut_by_dupacks = t.wireless_losses_cut_by_dupacks;
                    r.loss_cuts_blocked_once_per_rtt = t.loss_cuts_blocked;
                    r.wireless_halvings_blocked_once_per_rtt = t.wireless_halvings_blocked;
                    r.kicks_sent = counter("kicks_sent");
                    r.kickbacks_received = counter("kickbacks_received");
                    r.stale_kickbacks = counter("stale_kickbacks");
                    r.final_cwnd_bytes = open.map(|(cwnd, _)| cwnd);
                    r.final_ssthresh_bytes = open
                        .map(|(_, ssthresh)| ssthresh)
                        .filter(|&s| s < UNBOUNDED_SSTHRESH_BYTES);
                }
                FlowKind::Udp(u) => {
                    r.protocol = "udp".into();
                    r.app = "onoff".into();
                    r.segments_sent = u.packets_sent;
                    r.bytes_sent = u.bytes_sent;
                    r.delivered_bytes = u.bytes_received;
                    r.goodput_bps = per_s(u.bytes_received);
                    r.throughput_bps = r.goodput_bps;
                }
            }
            flows.push(r);
        }
        let mut links = Vec::with_capacity(self.links.len());
        for (i, l) in self.links.iter_mut().enumerate() {
            l.finish(end);
            let s = &l.stats;
            links.push(LinkResult {
                link: i as u32,
                name: l.name.clone(),
                from: self.nodes[l.from as usize].name.clone(),
                to: self.nodes[l.to as usize].name.clone(),
                rate_bps: l.rate_bps,
                delay_s: ns_to_s(l.delay_ns),
                packets_sent: s.packets_sent,
                bytes_sent: s.bytes_sent,
                utilization: if end == 0 {
                    0.0
                } else {
                    s.busy_in_run_ns.min(end) as f64 / end as f64
                },
                drops: s.drops,
                ecn_marks: s.ecn_marks,
                mean_queue_pkts: if end == 0 {
                    0.0
                } else {
                    s.queue_pkt_ns as f64 / end as f64
                },
                max_queue_pkts: s.max_queue_pkts,
            });
        }
        let transfers = self
            .transfers
            .iter()
            .map(|t| TransferResult {
                flow: t.flow,
                index: t.index,
                start_s: ns_to_s(t.start_ns),
                end_s: ns_to_s(t.end_ns),
                bytes: t.bytes,
                response_s: ns_to_s(t.response_ns()),
            })
            .collect();
        let mut agents = Vec::new();
        for n in &self.nodes {
            for a in &n.agents {
                for (counter, value) in a.counters() {
                    agents.push(AgentResult {
                        node: n.name.clone(),
                        agent: a.name().into(),
                        counter: counter.name.into(),
                        value,
                    });
                }
            }
        }
        RunResult {
            seed: self.seed,
            duration_s: ns_to_s(end),
            flows,
            links,
            transfers,
            agents,
            series: std::mem::take(&mut self.series),
            events: self.events.processed(),
            packet_hops: self.hops,
        }
    }
}

/// The mean of `count` durations summing to `sum_ns`, in seconds, divided
/// in floating point (an integer division truncated it to whole ns).
fn mean_ns_as_s(sum_ns: u128, count: u64) -> f64 {
    sum_ns as f64 / count as f64 / NS_PER_S as f64
}
