//! Python bindings for airtcp-core: a thin layer that parses, runs and hands
//! results over as column buffers (`tables.rs`). All logic lives in
//! airtcp-core (Rust) or in the `airtcp` Python package.

// pyo3 0.22's #[pyfunction] expansion trips this lint on every PyResult.
#![allow(clippy::useless_conversion)]

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Instant;

use airtcp_core::metrics;
use airtcp_core::observe::trace::{ColumnData, TraceColumns, TraceRecord, TraceSink, Tracer};
use airtcp_core::observe::{create_parent, remove_partial, Observed, OutputError};
use airtcp_core::scenario::observe::{ObserveRequest, TraceRequest};
use airtcp_core::scenario::{Scenario, ScenarioError as CoreError};
use airtcp_core::sim::NS_PER_S;
use airtcp_core::world::World;
use pyo3::create_exception;
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

mod tables;
use tables::PyRunTables;

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

/// A ScenarioError made on the Python side (a sweep table, a file that
/// cannot be read), built like the core's: its parts escaped by
/// `ScenarioError::new`, so `str(err)` and the attributes agree.
#[pyfunction]
#[pyo3(signature = (file, message, line=None, field=""))]
fn scenario_error(
    py: Python<'_>,
    file: &str,
    message: &str,
    line: Option<usize>,
    field: &str,
) -> PyObject {
    let err = scenario_err(py, &CoreError::new(file, line, field, message));
    err.into_value(py).into_any()
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

/// A parsed and validated scenario. Loading builds the world for the
/// file's seed (that is how it is validated); the first run with that seed
/// uses it, so loading and running build once.
#[pyclass(name = "Scenario", module = "airtcp._core", frozen)]
struct PyScenario {
    inner: Scenario,
    /// Number of nodes (declared ones and those named by links).
    n_nodes: usize,
    /// The world built while validating, for the file's seed, until a run
    /// takes it (or a run with another seed drops it).
    built: Mutex<Option<World>>,
}

#[pymethods]
impl PyScenario {
    /// The file's seed.
    #[getter]
    fn seed(&self) -> u64 {
        self.inner.default_seed()
    }

    #[getter]
    fn duration_s(&self) -> f64 {
        self.inner.duration_ns() as f64 / NS_PER_S as f64
    }

    /// Number of nodes (declared ones and those named by links).
    #[getter]
    fn nodes(&self) -> usize {
        self.n_nodes
    }

    #[getter]
    fn links(&self) -> usize {
        self.inner.link_count()
    }

    #[getter]
    fn flows(&self) -> usize {
        self.inner.flow_count()
    }

    /// True if the file has a `[sweep]` table (run by `airtcp sweep`).
    #[getter]
    fn has_sweep(&self) -> bool {
        self.inner.file.sweep.is_some()
    }

    /// Whether any component draws random numbers (whether seeds matter).
    #[getter]
    fn random(&self) -> bool {
        self.inner.uses_randomness()
    }

    /// Raise ScenarioError if `runs` runs of one command, all of whose
    /// results are kept, would exceed the memory budget
    /// (`budget::check_runs`).
    fn check_runs(&self, py: Python<'_>, runs: u64) -> PyResult<()> {
        no_panic(|| {
            py.allow_threads(|| self.inner.check_runs(runs))
                .map_err(|e| scenario_err(py, &e))
        })
    }
}

impl PyScenario {
    /// The world for `seed`: the one built while loading if it is for this
    /// seed and still unused, else a new one.
    fn world(&self, seed: Option<u64>) -> Result<World, CoreError> {
        let seed = seed.unwrap_or(self.inner.default_seed());
        let built = self.built.lock().unwrap_or_else(|e| e.into_inner()).take();
        match built {
            Some(w) if w.seed == seed => Ok(w),
            _ => self.inner.build(Some(seed)),
        }
    }
}

/// Parse and validate a scenario (ScenarioError if it is wrong), building
/// the world for `seed` (None: the file's seed), which the first run with
/// that seed uses. The GIL is released while the world is built.
#[pyfunction]
#[pyo3(signature = (text, source_name, seed=None))]
fn load(
    py: Python<'_>,
    text: String,
    source_name: String,
    seed: Option<u64>,
) -> PyResult<PyScenario> {
    no_panic(|| {
        let loaded = py.allow_threads(|| {
            catch_unwind(AssertUnwindSafe(|| {
                Scenario::load(&text, &source_name, seed)
            }))
        });
        let (inner, world) = loaded
            .map_err(panic_err)?
            .map_err(|e| scenario_err(py, &e))?;
        Ok(PyScenario {
            inner,
            n_nodes: world.nodes.len(),
            built: Mutex::new(Some(world)),
        })
    })
}

/// Check a scenario; raise ScenarioError if it is wrong.
#[pyfunction]
fn validate(py: Python<'_>, text: &str, source_name: &str) -> PyResult<()> {
    no_panic(|| {
        Scenario::from_toml_str(text, source_name)
            .map(|_| ())
            .map_err(|e| scenario_err(py, &e))
    })
}

/// The trace sink of a Python run: each batch of records becomes columns
/// (raw little-endian buffers, dictionary indices with their names) handed
/// to `airtcp._trace.ParquetTraceWriter.write`.
struct PyTraceSink {
    writer: PyObject,
    columns: TraceColumns,
    rows: u64,
}

pub(crate) fn le_bytes<T: Copy, const N: usize>(v: &[T], f: impl Fn(T) -> [u8; N]) -> Vec<u8> {
    v.iter().flat_map(|&x| f(x)).collect()
}

impl PyTraceSink {
    fn hand_over(&self, py: Python<'_>) -> PyResult<()> {
        let list = PyList::empty_bound(py);
        for (c, data) in self.columns.columns() {
            let bytes = |b: Vec<u8>| PyBytes::new_bound(py, &b).into_any().unbind();
            let (kind, value): (&str, PyObject) = match data {
                ColumnData::F64(v) => ("double", bytes(le_bytes(v, f64::to_le_bytes))),
                ColumnData::U64(v) => ("uint64", bytes(le_bytes(v, u64::to_le_bytes))),
                ColumnData::U32(v) => ("uint32", bytes(le_bytes(v, u32::to_le_bytes))),
                ColumnData::U16(v) => ("uint16", bytes(le_bytes(v, u16::to_le_bytes))),
                ColumnData::U8(v) => ("uint8", bytes(v.to_vec())),
                ColumnData::Bool(v) => ("bool", bytes(v.iter().map(|&b| b as u8).collect())),
                ColumnData::Dict { indices, names } => (
                    "dict",
                    (bytes(le_bytes(indices, u32::to_le_bytes)), names.to_vec()).to_object(py),
                ),
                ColumnData::Ranges {
                    offsets,
                    starts,
                    ends,
                } => (
                    "ranges",
                    (
                        bytes(le_bytes(offsets, u32::to_le_bytes)),
                        bytes(le_bytes(starts, u64::to_le_bytes)),
                        bytes(le_bytes(ends, u64::to_le_bytes)),
                    )
                        .to_object(py),
                ),
            };
            list.append((c.name, kind, value))?;
        }
        self.writer.call_method1(py, "write", (list,))?;
        Ok(())
    }
}

/// The trace writer's exception, carried through the core as an I/O error
/// and raised as it was (`os_err`): an OSError naming the file.
fn io_err(e: PyErr) -> std::io::Error {
    std::io::Error::other(e)
}

/// An output error of a run as Python's OSError (FileNotFoundError, ...),
/// `OSError(errno, strerror, filename)` when the core says which file
/// (`OutputError`), so that `str()` is Python's "[Errno 2] No such file or
/// directory: 'x.pcapng'" and the CLI prints "x.pcapng: No such file or
/// directory", not Rust's "(os error 2)". An exception of the trace writer
/// (`io_err`) is raised as it was.
fn os_err(e: std::io::Error) -> PyErr {
    if e.get_ref().is_some_and(|inner| inner.is::<PyErr>()) {
        if let Ok(py_err) = e.into_inner().expect("checked above").downcast::<PyErr>() {
            return *py_err;
        }
        unreachable!("checked above");
    }
    let (path, error) = match OutputError::of(&e) {
        Some(o) => (Some(o.path.to_string_lossy().into_owned()), &o.error),
        None => (None, &e),
    };
    let text = error.to_string();
    // Rust's text is strerror(3) followed by " (os error N)".
    let strerror = match error.raw_os_error() {
        Some(n) => text
            .strip_suffix(&format!(" (os error {n})"))
            .unwrap_or(&text)
            .to_owned(),
        None => text,
    };
    match path {
        Some(path) => PyOSError::new_err((error.raw_os_error(), strerror, path)),
        None => PyOSError::new_err(strerror),
    }
}

impl TraceSink for PyTraceSink {
    fn write(&mut self, records: &[TraceRecord]) -> std::io::Result<()> {
        self.columns.fill(records);
        self.rows += records.len() as u64;
        Python::with_gil(|py| self.hand_over(py)).map_err(io_err)
    }

    fn finish(&mut self) -> std::io::Result<()> {
        Python::with_gil(|py| {
            if self.rows == 0 {
                // An empty trace still gets its file and schema.
                self.columns.fill(&[]);
                self.hand_over(py)?;
            }
            self.writer.call_method0(py, "close").map(|_| ())
        })
        .map_err(io_err)
    }
}

/// The caller's observation request: {"out_dir": str, "suffix": str,
/// "pcap": [(point, file or None)], "trace": None or {"file", "flows",
/// "links"}}.
fn observe_request(o: &Bound<'_, PyDict>) -> PyResult<(String, String, ObserveRequest)> {
    let get = |k: &str| o.get_item(k);
    let out_dir = match get("out_dir")? {
        Some(v) if !v.is_none() => v.extract::<String>()?,
        _ => String::new(),
    };
    let suffix = match get("suffix")? {
        Some(v) if !v.is_none() => v.extract::<String>()?,
        _ => String::new(),
    };
    let mut req = ObserveRequest::default();
    if let Some(p) = get("pcap")? {
        if !p.is_none() {
            req.pcap = p.extract::<Vec<(String, Option<String>)>>()?;
        }
    }
    if let Some(t) = get("trace")? {
        if !t.is_none() {
            let t = t.downcast::<PyDict>()?;
            let list = |k: &str| -> PyResult<Vec<String>> {
                match t.get_item(k)? {
                    Some(v) if !v.is_none() => v.extract(),
                    _ => Ok(Vec::new()),
                }
            };
            req.trace = Some(TraceRequest {
                file: match t.get_item("file")? {
                    Some(v) if !v.is_none() => Some(v.extract()?),
                    _ => None,
                },
                flows: list("flows")?,
                links: list("links")?,
            });
        }
    }
    Ok((out_dir, suffix, req))
}

/// Why a run could not start or finish.
enum RunError {
    Scenario(CoreError),
    Io(std::io::Error),
    Py(PyErr),
}

impl RunError {
    fn into_py(self, py: Python<'_>) -> PyErr {
        match self {
            RunError::Scenario(e) => scenario_err(py, &e),
            RunError::Io(e) => os_err(e),
            RunError::Py(e) => e,
        }
    }
}

/// Attach what the scenario and the caller ask to observe (captures are
/// opened, the trace gets its Parquet writer); returns the trace file's
/// path, if any, and every file the run writes. Every file is created here, before the run, so that one
/// that cannot be is reported before anything is simulated: the captures
/// first (removed if the trace's file then fails), then the trace's.
/// Called without the GIL.
fn attach_observers(
    sc: &Scenario,
    world: &mut World,
    out_dir: &str,
    suffix: &str,
    req: &ObserveRequest,
) -> Result<(Option<String>, Vec<PathBuf>), RunError> {
    let plan = sc.observe_plan(world, req).map_err(RunError::Scenario)?;
    if plan.is_empty() {
        return Ok((None, Vec::new()));
    }
    let out = std::path::Path::new(out_dir);
    let mut observers = plan.open(out, suffix, None).map_err(RunError::Io)?;
    let trace_path = plan.trace_path(out, suffix);
    if let (Some(path), Some(t)) = (&trace_path, &plan.trace) {
        let writer = create_parent(path).map_err(RunError::Io).and_then(|()| {
            Python::with_gil(|py| -> PyResult<PyObject> {
                Ok(py
                    .import_bound("airtcp._trace")?
                    .getattr("ParquetTraceWriter")?
                    .call1((path.to_string_lossy().into_owned(),))?
                    .unbind())
            })
            .map_err(RunError::Py)
        });
        let writer = match writer {
            Ok(w) => w,
            Err(e) => {
                // The run fails before simulating: no capture file left
                // holding only headers, as if it were the run's.
                if let Some(captures) = observers.captures.take() {
                    captures.discard();
                }
                return Err(e);
            }
        };
        let sink = PyTraceSink {
            writer,
            columns: TraceColumns::new(t.names.clone()),
            rows: 0,
        };
        observers.tracer = Some(Tracer::new(t.filter.clone(), Box::new(sink)));
    }
    world.set_observers(observers);
    Ok((
        trace_path.map(|p| p.to_string_lossy().into_owned()),
        plan.paths(out, suffix),
    ))
}

/// `e`, carrying in `_removed_files` the files of its run that were
/// removed (run_many and the CLI say so).
fn with_removed(py: Python<'_>, e: PyErr, removed: &[String]) -> PyErr {
    if !removed.is_empty() {
        // An exception that takes no attribute is raised as it is.
        let _ = e
            .value_bound(py)
            .setattr("_removed_files", removed.to_vec());
    }
    e
}

fn observed_into(
    py: Python<'_>,
    d: &Bound<'_, PyDict>,
    observed: &Observed,
    trace_path: Option<String>,
) -> PyResult<()> {
    let caps = PyList::empty_bound(py);
    for (path, n) in &observed.captures {
        caps.append((path.to_string_lossy().into_owned(), *n))?;
    }
    d.set_item("captures", caps)?;
    match (trace_path, observed.trace_records) {
        (Some(p), Some(n)) => d.set_item("trace", (p, n))?,
        _ => d.set_item("trace", py.None())?,
    }
    Ok(())
}

/// Run a loaded scenario for `seed` (None: the file's seed). The GIL is
/// released while building and simulating, so runs on several threads go in
/// parallel; every simulated second `progress(seconds)` is called (if
/// given) and pending signals are handled, so Ctrl-C stops the run and
/// raises KeyboardInterrupt (on the main thread), as does an exception
/// raised by `progress` (on any thread). The dict holds the result tables
/// ("tables", a `RunTables` made without the GIL: `columns()` turns any
/// number of them into lists), the scalars "seed", "duration_s", "events"
/// and "packet_hops", the wall-clock seconds spent building
/// ("setup_wall_s"), in the event loop ("run_wall_s") and collecting the
/// results ("collect_wall_s"), for benchmarks, and what was observed:
/// "captures"
/// [(path, packets)] and "trace" (path, records) or None. `observe` adds
/// captures and a trace to the scenario's (see `observe_request`); outputs
/// go to its "out_dir" (default "", the current directory: files are
/// named as given, "x.pcapng" rather than "./x.pcapng").
#[pyfunction]
#[pyo3(signature = (scenario, seed=None, progress=None, observe=None))]
fn run<'py>(
    py: Python<'py>,
    scenario: &Bound<'py, PyScenario>,
    seed: Option<u64>,
    progress: Option<PyObject>,
    observe: Option<Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyDict>> {
    let sc = scenario.get();
    no_panic(|| {
        let (out_dir, suffix, req) = match &observe {
            Some(o) => observe_request(o)?,
            None => (String::new(), String::new(), ObserveRequest::default()),
        };
        let mut pending: Option<PyErr> = None;
        let mut setup_s = 0.0;
        let mut run_s = 0.0;
        let mut collect_s = 0.0;
        let mut removed: Vec<String> = Vec::new();
        let outcome = py.allow_threads(|| {
            catch_unwind(AssertUnwindSafe(|| {
                let t0 = Instant::now();
                let mut world = sc.world(seed).map_err(RunError::Scenario)?;
                let (trace_path, outputs) =
                    attach_observers(&sc.inner, &mut world, &out_dir, &suffix, &req)?;
                setup_s = t0.elapsed().as_secs_f64();
                let t1 = Instant::now();
                world.simulate(|now_ns| {
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
                let overrun = sc.inner.overrun_error(&world);
                let t2 = Instant::now();
                let r = world.results();
                collect_s = t2.elapsed().as_secs_f64();
                // Close the captures and the trace even if the run stopped early.
                let observed = world.finish_observers();
                if pending.is_some() || overrun.is_some() {
                    // The run did not reach its end (Ctrl-C, a cancellation
                    // or an exception from `progress`, the memory budget):
                    // its captures and trace are partial, and must not be
                    // left to pass for a whole run's.
                    removed = outputs
                        .iter()
                        .filter(|p| remove_partial(p))
                        .map(|p| p.to_string_lossy().into_owned())
                        .collect();
                }
                if let Some(e) = overrun {
                    return Err(RunError::Scenario(e));
                }
                // Free the world without the GIL (large topologies).
                drop(world);
                // The tables' columns, made (and the rows freed) without
                // the GIL too: a thread holds it only to hand them over.
                let tables = PyRunTables::new(&r);
                let scalars = (r.seed, r.duration_s, r.events, r.packet_hops);
                drop(r);
                Ok((tables, scalars, observed, trace_path))
            }))
        });
        let (tables, (seed, duration_s, events, packet_hops), observed, trace_path) = outcome
            .map_err(panic_err)?
            .map_err(|e: RunError| with_removed(py, e.into_py(py), &removed))?;
        if let Some(e) = pending {
            return Err(with_removed(py, e, &removed));
        }
        let observed = observed.map_err(os_err)?;
        let d = PyDict::new_bound(py);
        d.set_item("tables", Bound::new(py, tables)?)?;
        d.set_item("seed", seed)?;
        d.set_item("duration_s", duration_s)?;
        d.set_item("events", events)?;
        d.set_item("packet_hops", packet_hops)?;
        d.set_item("setup_wall_s", setup_s)?;
        d.set_item("run_wall_s", run_s)?;
        d.set_item("collect_wall_s", collect_s)?;
        observed_into(py, &d, &observed, trace_path)?;
        Ok(d)
    })
}

/// Jain's fairness index (sum x)^2 / (n sum x^2); NaN when no value is
/// positive (`metrics::jain_fairness`).
#[pyfunction]
fn jain_fairness(values: Vec<f64>) -> PyResult<f64> {
    no_panic(|| Ok(metrics::jain_fairness(&values)))
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("__build__", env!("AIRTCP_BUILD"))?;
    m.add("ScenarioError", m.py().get_type_bound::<ScenarioError>())?;
    // The Python front end reads scenario files to the same bound.
    m.add(
        "MAX_SCENARIO_FILE_BYTES",
        airtcp_core::scenario::MAX_SCENARIO_FILE_BYTES,
    )?;
    m.add(
        "SCENARIO_FILE_TOO_LARGE",
        airtcp_core::scenario::too_large_message(),
    )?;
    m.add_class::<PyScenario>()?;
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(jain_fairness, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_error, m)?)?;
    m.add_class::<PyRunTables>()?;
    m.add_function(wrap_pyfunction!(tables::columns, m)?)?;
    m.add_function(wrap_pyfunction!(tables::arrow_columns, m)?)?;
    m.add_function(wrap_pyfunction!(tables::schema, m)?)?;
    m.add_function(wrap_pyfunction!(tables::text::write_text, m)?)?;
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
}
