//! Time series: keyed by name, units in the metric names, rates that add
//! up to the totals, and no sentinel where there is no value.

mod common;

use airtcp_core::metrics::{SeriesKind, SeriesMetric};
use common::{run_world, scripted};

fn with_series(text: &str, interval: &str) -> String {
    format!("{text}\n[output.timeseries]\ninterval = \"{interval}\"\n")
}

/// Goodput over each interval, times the interval, adds up to the bytes
/// delivered; throughput to the bytes received (here one lost segment is
/// retransmitted, so no duplicate arrives and both totals are equal).
#[test]
fn goodput_over_time_adds_up_to_the_delivered_bytes() {
    let text = with_series(&scripted(r#"variant = "newreno""#, 60, &[20]), "50ms");
    let (_, r) = run_world(&text, None);
    let total = |m: SeriesMetric| -> f64 {
        r.series
            .iter()
            .filter(|p| p.metric == m)
            .map(|p| p.value * 0.05 / 8.0)
            .sum()
    };
    let delivered = r.flows[0].delivered_bytes as f64;
    assert_eq!(delivered, 60_000.0);
    assert!(
        (total(SeriesMetric::GoodputBps) - delivered).abs() < 1e-6,
        "{}",
        total(SeriesMetric::GoodputBps)
    );
    assert!((total(SeriesMetric::ThroughputBps) - delivered).abs() < 1e-6);
    // No rate at the first sample (no interval has ended yet).
    let first = r
        .series
        .iter()
        .find(|p| p.metric == SeriesMetric::GoodputBps)
        .unwrap();
    assert!(first.time_s > 0.0);
}

/// ssthresh starts "arbitrarily high" (RFC 5681 §3.1): no row until the
/// first loss sets it, and then a real number of bytes, never a sentinel.
#[test]
fn ssthresh_has_no_row_until_the_first_loss() {
    // The scripted path's sender, with the default (unbounded) ssthresh.
    let text = scripted(r#"variant = "newreno""#, 60, &[20])
        .replace(r#", initial_ssthresh = "16000B""#, "");
    let (_, r) = run_world(&with_series(&text, "10ms"), None);
    let times = |m: SeriesMetric| -> Vec<f64> {
        r.series
            .iter()
            .filter(|p| p.metric == m)
            .map(|p| p.time_s)
            .collect()
    };
    let cwnd = times(SeriesMetric::CwndBytes);
    let ssthresh = times(SeriesMetric::SsthreshBytes);
    assert!(!ssthresh.is_empty() && cwnd[0] < ssthresh[0]);
    for p in r
        .series
        .iter()
        .filter(|p| p.metric == SeriesMetric::SsthreshBytes)
    {
        assert!(p.value >= 2000.0 && p.value < 100_000.0, "{}", p.value);
    }
    // The initial ssthresh was never reached: the final one is reported.
    assert!(
        r.flows[0].final_ssthresh_bytes.is_none(),
        "the connection closed"
    );
}

/// Every row names its flow or link, with the kind saying which.
#[test]
fn rows_are_keyed_by_name_and_kind() {
    let text = with_series(&scripted(r#"variant = "newreno""#, 30, &[]), "100ms");
    let (_, r) = run_world(&text, None);
    let rows = r.series_rows();
    assert_eq!(rows.len(), r.series.len());
    for row in &rows {
        match row.point.metric.kind() {
            SeriesKind::Flow => assert_eq!(row.name, "flow0"),
            SeriesKind::Link => assert!(row.name == "S->D" || row.name == "D->S", "{}", row.name),
        }
    }
    assert!(rows
        .iter()
        .any(|r| r.point.metric == SeriesMetric::QueuePkts));
}
