//! Python bindings for airtcp-core: a thin layer that parses, runs and turns
//! results into column-oriented dicts. All logic lives in airtcp-core (Rust)
//! or in the `airtcp` Python package.

// pyo3 0.22's #[pyfunction] expansion trips this lint on every PyResult.
#![allow(clippy::useless_conversion)]

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;

use airtcp_core::metrics::{self, RunResult, N_CAUSES};
use airtcp_core::net::packet::DeathCause;
use airtcp_core::scenario::{Scenario, ScenarioError as CoreError};
use airtcp_core::sim::NS_PER_S;
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

create_exception!(
    _core,
    ScenarioError,
    PyValueError,
    "A mistake in a scenario. str() is the one-line \"file:line: field: message\"; \
     the parts are in the attributes file, line (int or None), field and message."
);

/// A ScenarioError carrying the core error's parts as attributes.
fn scenario_err(py: Python<'_>, e: &CoreError) -> PyErr {
    let err = ScenarioError::new_err(e.to_string());
    let value = err.value_bound(py);
    let set = || -> PyResult<()> {
        value.setattr("file", &e.file)?;
        value.setattr("line", e.line)?;
        value.setattr("field", &e.field)?;
        value.setattr("message", &e.message)?;
        Ok(())
    };
    match set() {
        Ok(()) => err,
        Err(other) => other,
    }
}

/// Run `f`, turning a Rust panic into a RuntimeError: a panic is always a bug
/// in airtcp, never a user mistake, and must not take Python down.
fn no_panic<T>(f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => Err(panic_err(payload)),
    }
}

fn panic_err(payload: Box<dyn std::any::Any + Send>) -> PyErr {
    let what = if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_string()
    };
    PyRuntimeError::new_err(format!(
        "internal error in the airtcp simulator (this is an airtcp bug, please report it): {what}"
    ))
}

fn parse(py: Python<'_>, text: &str, source_name: &str) -> PyResult<Scenario> {
    Scenario::from_toml_str(text, source_name).map_err(|e| scenario_err(py, &e))
}

/// Check a scenario; raise ScenarioError if it is wrong.
#[pyfunction]
fn validate(py: Python<'_>, text: &str, source_name: &str) -> PyResult<()> {
    no_panic(|| parse(py, text, source_name).map(|_| ()))
}

/// Validate and describe a scenario: a dict with seed, duration_s, nodes,
/// links and flows (counts).
#[pyfunction]
fn describe<'py>(py: Python<'py>, text: &str, source_name: &str) -> PyResult<Bound<'py, PyDict>> {
    no_panic(|| {
        let sc = parse(py, text, source_name)?;
        let world = sc.build(None).map_err(|e| scenario_err(py, &e))?;
        let d = PyDict::new_bound(py);
        d.set_item("seed", sc.default_seed())?;
        d.set_item("duration_s", sc.duration_ns() as f64 / NS_PER_S as f64)?;
        d.set_item("nodes", world.nodes.len())?;
        d.set_item("links", sc.file.link.len())?;
        d.set_item("flows", sc.file.flow.len())?;
        Ok(d)
    })
}

/// Build and run a scenario for `seed` (None: the file's seed). The GIL is
/// released while simulating; every simulated second `progress(seconds)` is
/// called (if given) and pending signals are handled, so Ctrl-C stops the
/// run and raises KeyboardInterrupt. Besides the tables, the dict holds the
/// wall-clock seconds spent parsing and building ("setup_wall_s") and
/// simulating ("run_wall_s"), for benchmarks.
#[pyfunction]
#[pyo3(signature = (text, source_name, seed=None, progress=None))]
fn run<'py>(
    py: Python<'py>,
    text: &str,
    source_name: &str,
    seed: Option<u64>,
    progress: Option<PyObject>,
) -> PyResult<Bound<'py, PyDict>> {
    no_panic(|| {
        let t0 = Instant::now();
        let sc = parse(py, text, source_name)?;
        let mut world = sc.build(seed).map_err(|e| scenario_err(py, &e))?;
        let setup_s = t0.elapsed().as_secs_f64();
        let mut pending: Option<PyErr> = None;
        let mut run_s = 0.0;
        let outcome = py.allow_threads(|| {
            catch_unwind(AssertUnwindSafe(|| {
                let t1 = Instant::now();
                let r = world.run(|now_ns| {
                    Python::with_gil(|py| {
                        if let Some(cb) = &progress {
                            let secs = now_ns as f64 / NS_PER_S as f64;
                            if let Err(e) = cb.call1(py, (secs,)) {
                                pending = Some(e);
                                return false;
                            }
                        }
                        if let Err(e) = py.check_signals() {
                            pending = Some(e);
                            return false;
                        }
                        true
                    })
                });
                run_s = t1.elapsed().as_secs_f64();
                r
            }))
        });
        let result = outcome.map_err(panic_err)?;
        if let Some(e) = pending {
            return Err(e);
        }
        let d = result_dict(py, &result)?;
        d.set_item("setup_wall_s", setup_s)?;
        d.set_item("run_wall_s", run_s)?;
        Ok(d)
    })
}

/// Jain's fairness index (sum x)^2 / (n sum x^2); 1.0 for an empty list.
#[pyfunction]
fn jain_fairness(values: Vec<f64>) -> PyResult<f64> {
    no_panic(|| Ok(metrics::jain_fairness(&values)))
}

/// The result tables' column types: {table: {column: arrow type name}}.
#[pyfunction]
fn schema(py: Python<'_>) -> PyResult<PyObject> {
    no_panic(|| {
        let d = result_dict(py, &RunResult::default())?;
        Ok(d.get_item("schema")?
            .expect("schema is always set")
            .unbind())
    })
}

fn cause_names() -> [&'static str; N_CAUSES] {
    DeathCause::ALL.map(|c| c.name())
}

/// Arrow type name of a column's values, so that Python can build typed
/// (and, when empty, still well-formed) tables.
trait ColumnType: ToPyObject {
    const ARROW: &'static str;
}
impl ColumnType for u32 {
    const ARROW: &'static str = "uint32";
}
impl ColumnType for u64 {
    const ARROW: &'static str = "uint64";
}
impl ColumnType for f64 {
    const ARROW: &'static str = "double";
}
impl ColumnType for &str {
    const ARROW: &'static str = "string";
}

/// One column-oriented table under construction: name -> list, and
/// name -> arrow type in `schema`.
struct Table<'py> {
    py: Python<'py>,
    columns: Bound<'py, PyDict>,
    schema: Bound<'py, PyDict>,
    error: Option<PyErr>,
}

impl<'py> Table<'py> {
    fn new(py: Python<'py>) -> Self {
        Table {
            py,
            columns: PyDict::new_bound(py),
            schema: PyDict::new_bound(py),
            error: None,
        }
    }

    fn col<'a, R: 'a, T: ColumnType>(
        &mut self,
        rows: &'a [R],
        name: impl AsRef<str>,
        f: impl Fn(&'a R) -> T,
    ) {
        let name = name.as_ref();
        let list = PyList::new_bound(self.py, rows.iter().map(f));
        let set = self
            .columns
            .set_item(name, list)
            .and_then(|_| self.schema.set_item(name, T::ARROW));
        if let Err(e) = set {
            self.error.get_or_insert(e);
        }
    }

    /// Store the table and its schema under `key`.
    fn finish(
        self,
        key: &str,
        out: &Bound<'py, PyDict>,
        schema: &Bound<'py, PyDict>,
    ) -> PyResult<()> {
        if let Some(e) = self.error {
            return Err(e);
        }
        out.set_item(key, self.columns)?;
        schema.set_item(key, self.schema)
    }
}

/// Column-oriented tables, one list per field; their arrow types under
/// "schema"; plus the scalars seed, duration_s, events and packet_hops.
fn result_dict<'py>(py: Python<'py>, r: &RunResult) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new_bound(py);
    let schema = PyDict::new_bound(py);

    let mut f = Table::new(py);
    f.col(&r.flows, "flow", |x| x.flow);
    f.col(&r.flows, "name", |x| x.name.as_str());
    f.col(&r.flows, "src", |x| x.src.as_str());
    f.col(&r.flows, "dst", |x| x.dst.as_str());
    f.col(&r.flows, "protocol", |x| x.protocol.as_str());
    f.col(&r.flows, "variant", |x| x.variant.as_str());
    f.col(&r.flows, "app", |x| x.app.as_str());
    f.col(&r.flows, "start_s", |x| x.start_s);
    f.col(&r.flows, "end_s", |x| x.end_s);
    f.col(&r.flows, "delivered_bytes", |x| x.delivered_bytes);
    f.col(&r.flows, "goodput_bps", |x| x.goodput_bps);
    f.col(&r.flows, "throughput_bps", |x| x.throughput_bps);
    f.col(&r.flows, "segments_sent", |x| x.segments_sent);
    f.col(&r.flows, "bytes_sent", |x| x.bytes_sent);
    f.col(&r.flows, "retransmitted_segments", |x| {
        x.retransmitted_segments
    });
    f.col(&r.flows, "retransmitted_bytes", |x| x.retransmitted_bytes);
    f.col(&r.flows, "duplicate_bytes_received", |x| {
        x.duplicate_bytes_received
    });
    f.col(&r.flows, "timeouts", |x| x.timeouts);
    f.col(&r.flows, "spurious_timeouts", |x| x.spurious_timeouts);
    f.col(&r.flows, "spurious_timeouts_detected", |x| {
        x.spurious_timeouts_detected
    });
    f.col(&r.flows, "fast_retransmits", |x| x.fast_retransmits);
    f.col(&r.flows, "ecn_reductions", |x| x.ecn_reductions);
    f.col(&r.flows, "non_congestion_losses", |x| {
        x.non_congestion_losses
    });
    for (i, cause) in cause_names().iter().enumerate() {
        f.col(&r.flows, format!("drops_{cause}"), |x| x.data_drops[i]);
    }
    f.col(&r.flows, "ack_drops", |x| x.ack_drops);
    f.col(&r.flows, "ecn_marks", |x| x.ecn_marks);
    f.col(&r.flows, "transfers_completed", |x| x.transfers_completed);
    f.col(&r.flows, "mean_rtt_s", |x| x.mean_rtt_s);
    f.col(&r.flows, "min_rtt_s", |x| x.min_rtt_s);
    f.col(&r.flows, "mean_first_rto_s", |x| x.mean_first_rto_s);
    f.col(&r.flows, "mean_cwnd_bytes", |x| x.mean_cwnd_bytes);
    f.col(&r.flows, "final_cwnd_bytes", |x| x.final_cwnd_bytes);
    f.col(&r.flows, "final_ssthresh_bytes", |x| x.final_ssthresh_bytes);
    f.col(&r.flows, "loss_congestion_as_congestion", |x| {
        x.loss_congestion_as_congestion
    });
    f.col(&r.flows, "loss_congestion_as_wireless", |x| {
        x.loss_congestion_as_wireless
    });
    f.col(&r.flows, "loss_wireless_as_congestion", |x| {
        x.loss_wireless_as_congestion
    });
    f.col(&r.flows, "loss_wireless_as_wireless", |x| {
        x.loss_wireless_as_wireless
    });
    f.col(&r.flows, "loss_other_as_congestion", |x| {
        x.loss_other_as_congestion
    });
    f.col(&r.flows, "loss_other_as_wireless", |x| {
        x.loss_other_as_wireless
    });
    f.col(&r.flows, "wireless_losses_halved", |x| {
        x.wireless_losses_halved
    });
    f.col(&r.flows, "wireless_losses_halved_by_dupacks", |x| {
        x.wireless_losses_halved_by_dupacks
    });
    f.col(&r.flows, "kicks_sent", |x| x.kicks_sent);
    f.col(&r.flows, "kickbacks_received", |x| x.kickbacks_received);
    f.finish("flows", &out, &schema)?;

    let mut l = Table::new(py);
    l.col(&r.links, "link", |x| x.link);
    l.col(&r.links, "name", |x| x.name.as_str());
    l.col(&r.links, "from", |x| x.from.as_str());
    l.col(&r.links, "to", |x| x.to.as_str());
    l.col(&r.links, "rate_bps", |x| x.rate_bps);
    l.col(&r.links, "delay_s", |x| x.delay_s);
    l.col(&r.links, "packets_sent", |x| x.packets_sent);
    l.col(&r.links, "bytes_sent", |x| x.bytes_sent);
    l.col(&r.links, "utilization", |x| x.utilization);
    for (i, cause) in cause_names().iter().enumerate() {
        l.col(&r.links, format!("drops_{cause}"), |x| x.drops[i]);
    }
    l.col(&r.links, "ecn_marks", |x| x.ecn_marks);
    l.col(&r.links, "mean_queue_pkts", |x| x.mean_queue_pkts);
    l.col(&r.links, "max_queue_pkts", |x| x.max_queue_pkts);
    l.finish("links", &out, &schema)?;

    let mut t = Table::new(py);
    t.col(&r.transfers, "flow", |x| x.flow);
    t.col(&r.transfers, "index", |x| x.index);
    t.col(&r.transfers, "start_s", |x| x.start_s);
    t.col(&r.transfers, "end_s", |x| x.end_s);
    t.col(&r.transfers, "bytes", |x| x.bytes);
    t.col(&r.transfers, "response_s", |x| x.response_s);
    t.finish("transfers", &out, &schema)?;

    let mut a = Table::new(py);
    a.col(&r.agents, "node", |x| x.node.as_str());
    a.col(&r.agents, "agent", |x| x.agent.as_str());
    a.col(&r.agents, "counter", |x| x.counter.as_str());
    a.col(&r.agents, "value", |x| x.value);
    a.finish("agents", &out, &schema)?;

    let mut s = Table::new(py);
    s.col(&r.series, "time_s", |x| x.time_s);
    s.col(&r.series, "metric", |x| x.metric);
    s.col(&r.series, "id", |x| x.id);
    s.col(&r.series, "value", |x| x.value);
    s.finish("series", &out, &schema)?;

    out.set_item("schema", schema)?;
    out.set_item("seed", r.seed)?;
    out.set_item("duration_s", r.duration_s)?;
    out.set_item("events", r.events)?;
    out.set_item("packet_hops", r.packet_hops)?;
    Ok(out)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("ScenarioError", m.py().get_type_bound::<ScenarioError>())?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(describe, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(jain_fairness, m)?)?;
    m.add_function(wrap_pyfunction!(schema, m)?)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panic_becomes_runtime_error() {
        pyo3::prepare_freethreaded_python();
        Python::with_gil(|py| {
            let err = no_panic::<()>(|| panic!("boom {}", 42)).unwrap_err();
            assert!(err.is_instance_of::<PyRuntimeError>(py));
            let msg = err.to_string();
            assert!(
                msg.contains("airtcp bug") && msg.contains("boom 42"),
                "{msg}"
            );
        });
    }

    #[test]
    fn schema_lists_every_column_with_its_type() {
        pyo3::prepare_freethreaded_python();
        Python::with_gil(|py| {
            let d = result_dict(py, &RunResult::default()).unwrap();
            let schema = d.get_item("schema").unwrap().unwrap();
            let flows = schema.get_item("flows").unwrap();
            assert_eq!(
                flows.get_item("drops_no_route").unwrap().to_string(),
                "uint64"
            );
            assert_eq!(flows.get_item("goodput_bps").unwrap().to_string(), "double");
            let links = schema.get_item("links").unwrap();
            assert_eq!(
                links.get_item("drops_channel").unwrap().to_string(),
                "uint64"
            );
            for t in ["flows", "links", "transfers", "agents", "series"] {
                let cols = d.get_item(t).unwrap().unwrap();
                assert_eq!(
                    cols.len().unwrap(),
                    schema.get_item(t).unwrap().len().unwrap()
                );
            }
        });
    }
}
