//! Sampled time series (`[output.timeseries]`): every `interval` the world
//! samples each TCP flow's window and RTT, each flow's goodput and
//! throughput over the interval just ended, and each link direction's
//! queue. A series is keyed by the flow's or link's *name* with a `kind`
//! column; a metric's name carries its unit; a value that does not exist
//! at that instant (ssthresh before the first loss, an RTT before the first
//! sample, a flow without an open connection) has no row.

use super::{col, Cell, Column, Row};
use crate::sim::TimeNs;

/// Which time series to sample.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SeriesConfig {
    pub interval_ns: TimeNs,
    pub flows: bool,
    pub links: bool,
}

/// What a series describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeriesKind {
    Flow,
    Link,
}

impl SeriesKind {
    pub fn name(self) -> &'static str {
        match self {
            SeriesKind::Flow => "flow",
            SeriesKind::Link => "link",
        }
    }
}

/// A sampled metric. Its name carries its unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeriesMetric {
    CwndBytes,
    CwndWithoutInflationBytes,
    SsthreshBytes,
    SrttS,
    RttS,
    GoodputBps,
    ThroughputBps,
    QueuePkts,
    RedAvgPkts,
}

impl SeriesMetric {
    pub const ALL: [SeriesMetric; 9] = [
        SeriesMetric::CwndBytes,
        SeriesMetric::CwndWithoutInflationBytes,
        SeriesMetric::SsthreshBytes,
        SeriesMetric::SrttS,
        SeriesMetric::RttS,
        SeriesMetric::GoodputBps,
        SeriesMetric::ThroughputBps,
        SeriesMetric::QueuePkts,
        SeriesMetric::RedAvgPkts,
    ];

    pub fn name(self) -> &'static str {
        self.describe().0
    }

    pub fn kind(self) -> SeriesKind {
        match self {
            SeriesMetric::QueuePkts | SeriesMetric::RedAvgPkts => SeriesKind::Link,
            _ => SeriesKind::Flow,
        }
    }

    /// (name, unit, meaning): the documentation of docs/results.md.
    pub fn describe(self) -> (&'static str, &'static str, &'static str) {
        match self {
            SeriesMetric::CwndBytes => (
                "cwnd_bytes",
                "bytes",
                "Congestion window of the flow's open TCP connection.",
            ),
            SeriesMetric::CwndWithoutInflationBytes => (
                "cwnd_without_inflation_bytes",
                "bytes",
                "The congestion window without fast recovery's temporary inflation by \
                 duplicate ACKs (RFC 5681 §3.2 steps 3-4, RFC 6582): during fast recovery the \
                 window recovery deflates to when it ends, otherwise `cwnd_bytes`. It is ns-2's \
                 traced `cwnd_` (ns-2 keeps the inflation apart, in `dupwnd_`).",
            ),
            SeriesMetric::SsthreshBytes => (
                "ssthresh_bytes",
                "bytes",
                "Slow-start threshold; no row while it is still the initial \"arbitrarily high\" \
                 value (RFC 5681 §3.1).",
            ),
            SeriesMetric::SrttS => (
                "srtt_s",
                "s",
                "Smoothed RTT (RFC 6298); no row before the first RTT sample.",
            ),
            SeriesMetric::RttS => ("rtt_s", "s", "Latest RTT sample; no row before the first."),
            SeriesMetric::GoodputBps => (
                "goodput_bps",
                "bit/s",
                "Bytes delivered in order to the receiving application during the interval \
                 ending at `time_s`, × 8 / interval (UDP: bytes of datagrams received). A row \
                 for each interval that overlaps the flow's active time (from its start to when \
                 it finished or stopped).",
            ),
            SeriesMetric::ThroughputBps => (
                "throughput_bps",
                "bit/s",
                "Payload bytes that reached the receiver during the interval ending at `time_s`, \
                 duplicates included, × 8 / interval (UDP: as goodput).",
            ),
            SeriesMetric::QueuePkts => (
                "queue_pkts",
                "packets",
                "Packets waiting in the link direction's queue (not in transmission); for a `per_flow` queue, every packet in its shared buffer until its transmission ends.",
            ),
            SeriesMetric::RedAvgPkts => (
                "red_avg_pkts",
                "packets",
                "RED's average queue length (RED, MECN and WMECN queues only).",
            ),
        }
    }
}

/// One sample in long format; `index` is the flow's or link direction's
/// index (its name is resolved when the table is built).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SeriesPoint {
    pub time_s: f64,
    pub metric: SeriesMetric,
    pub index: u32,
    pub value: f64,
}

static DEFAULT_POINT: SeriesPoint = SeriesPoint {
    time_s: 0.0,
    metric: SeriesMetric::CwndBytes,
    index: 0,
    value: 0.0,
};

/// A sample as a row of the `series` table: with its flow or link name.
#[derive(Clone, Copy, Debug)]
pub struct SeriesRow<'a> {
    pub point: &'a SeriesPoint,
    pub name: &'a str,
}

impl Default for SeriesRow<'_> {
    fn default() -> Self {
        SeriesRow {
            point: &DEFAULT_POINT,
            name: "",
        }
    }
}

impl Row for SeriesRow<'_> {
    fn visit<'a>(&'a self, f: &mut dyn FnMut(Column<'_>, Cell<'a>)) {
        use Cell::*;
        let p = self.point;
        f(col("time_s", "s", "Sampling instant."), F64(p.time_s));
        f(
            col("kind", "", "`flow` or `link`: what `name` names."),
            Str(p.metric.kind().name()),
        );
        f(
            col(
                "name",
                "",
                "The flow's name or the link direction's name (as in the flows and links tables).",
            ),
            Str(self.name),
        );
        f(
            col(
                "metric",
                "",
                "What is sampled, its unit in its name (see the metrics below).",
            ),
            Str(p.metric.name()),
        );
        f(
            col("value", "", "The sample, in the metric's unit."),
            F64(p.value),
        );
    }
}

/// Turns each flow's cumulative byte counts into rates over the sampling
/// interval: it remembers the counts at the previous sample.
#[derive(Clone, Debug, Default)]
pub struct RateSampler {
    last_ns: Option<TimeNs>,
    last_bytes: Vec<(u64, u64)>,
}

impl RateSampler {
    /// Start a sample at `now_ns`; returns when the previous sample was, if
    /// there was one (the interval is (that, `now_ns`]).
    pub fn begin(&mut self, now_ns: TimeNs, n_flows: usize) -> Option<TimeNs> {
        self.last_bytes.resize(n_flows, (0, 0));
        self.last_ns.replace(now_ns).filter(|&since| since < now_ns)
    }

    /// Flow `i` has `delivered` and `received` bytes so far: their increase
    /// since the previous sample.
    pub fn advance(&mut self, i: usize, delivered: u64, received: u64) -> (u64, u64) {
        let (d0, r0) = std::mem::replace(&mut self.last_bytes[i], (delivered, received));
        (delivered.saturating_sub(d0), received.saturating_sub(r0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_are_increases_over_the_interval() {
        let mut s = RateSampler::default();
        assert_eq!(s.begin(0, 1), None);
        assert_eq!(s.advance(0, 0, 0), (0, 0));
        assert_eq!(s.begin(500_000_000, 1), Some(0));
        assert_eq!(s.advance(0, 1000, 1500), (1000, 1500));
        assert_eq!(s.begin(1_000_000_000, 1), Some(500_000_000));
        assert_eq!(s.advance(0, 1000, 1500), (0, 0));
    }

    #[test]
    fn metric_names_carry_units_and_are_unique() {
        let mut names: Vec<_> = SeriesMetric::ALL.iter().map(|m| m.name()).collect();
        for n in &names {
            assert!(
                n.ends_with("_bytes")
                    || n.ends_with("_s")
                    || n.ends_with("_bps")
                    || n.ends_with("_pkts"),
                "{n}"
            );
        }
        names.sort();
        names.dedup();
        assert_eq!(names.len(), SeriesMetric::ALL.len());
    }
}
