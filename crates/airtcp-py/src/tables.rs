//! A run's result tables as typed column buffers, made from the core's
//! rows without the GIL, and turned into Python lists only when the
//! caller asks for them, all runs of a batch at once.
//!
//! Why: a simulation thread holds the GIL only for what cannot be done
//! without it. Building a Python object per cell for each run (and the
//! lists and dicts that hold them, and the garbage collector's passes over
//! them) was most of the GIL time of a short run, which capped the speedup
//! of `run_many` on threads (Amdahl). Now a run hands back one
//! [`PyRunTables`]; [`columns`] makes the lists of any number of runs,
//! concatenated in the order given, with an optional leading `seed`
//! column.

use rustc_hash::FxHashMap;
use std::sync::OnceLock;

use airtcp_core::metrics::{Cell, Row, RunResult};
use airtcp_core::reference::arrow_type;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

/// The result tables, in the order of `RunResult`'s fields.
pub const TABLES: [&str; 5] = ["flows", "links", "transfers", "agents", "series"];

/// What kind of cell a column holds (the core's [`Cell`] variants).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    U32,
    U64,
    F64,
    Str,
    OptU64,
}

impl Kind {
    fn of(cell: &Cell<'_>) -> Kind {
        match cell {
            Cell::U32(_) => Kind::U32,
            Cell::U64(_) => Kind::U64,
            Cell::F64(_) => Kind::F64,
            Cell::Str(_) => Kind::Str,
            Cell::OptU64(_) => Kind::OptU64,
        }
    }
}

/// A column's name, kind and arrow type name.
struct ColumnSchema {
    name: String,
    kind: Kind,
    arrow: &'static str,
}

fn columns_of<R: Row + Default>() -> Vec<ColumnSchema> {
    let mut out = Vec::new();
    R::default().visit(&mut |c, cell| {
        out.push(ColumnSchema {
            name: c.name.to_string(),
            kind: Kind::of(&cell),
            arrow: arrow_type(&cell),
        })
    });
    out
}

/// Each table's columns, in [`TABLES`] order: taken once from default rows
/// (the core's `Row` impls define the columns and their order).
fn schemas() -> &'static [Vec<ColumnSchema>; 5] {
    use airtcp_core::metrics::{AgentResult, FlowResult, LinkResult, SeriesRow, TransferResult};
    static SCHEMAS: OnceLock<[Vec<ColumnSchema>; 5]> = OnceLock::new();
    SCHEMAS.get_or_init(|| {
        [
            columns_of::<FlowResult>(),
            columns_of::<LinkResult>(),
            columns_of::<TransferResult>(),
            columns_of::<AgentResult>(),
            columns_of::<SeriesRow<'_>>(),
        ]
    })
}

/// One column's values. Names repeat on every row (a series has millions
/// of rows and a handful of names): each distinct one is kept once.
enum Values {
    U32(Vec<u32>),
    U64(Vec<u64>),
    F64(Vec<f64>),
    Str {
        names: Vec<String>,
        index: Vec<u32>,
    },
    /// A count that may be missing: a float or None in Python (the table
    /// holds it as a double; see `Cell::OptU64`).
    OptU64(Vec<Option<u64>>),
}

impl Values {
    fn new(kind: Kind, rows: usize) -> Values {
        match kind {
            Kind::U32 => Values::U32(Vec::with_capacity(rows)),
            Kind::U64 => Values::U64(Vec::with_capacity(rows)),
            Kind::F64 => Values::F64(Vec::with_capacity(rows)),
            Kind::Str => Values::Str {
                names: Vec::new(),
                index: Vec::with_capacity(rows),
            },
            Kind::OptU64 => Values::OptU64(Vec::with_capacity(rows)),
        }
    }

    /// Append this column's values to `out` as Python objects.
    fn extend_py(&self, py: Python<'_>, out: &mut Vec<PyObject>) {
        match self {
            Values::U32(v) => out.extend(v.iter().map(|x| x.to_object(py))),
            Values::U64(v) => out.extend(v.iter().map(|x| x.to_object(py))),
            Values::F64(v) => out.extend(v.iter().map(|x| x.to_object(py))),
            Values::Str { names, index } => {
                // One string object per distinct name, shared by its rows
                // (not interned: a large topology's names are all distinct,
                // and interning each cost a lookup in Python's table).
                let names: Vec<PyObject> = names
                    .iter()
                    .map(|n| PyString::new_bound(py, n).into_any().unbind())
                    .collect();
                out.extend(index.iter().map(|&i| names[i as usize].clone_ref(py)));
            }
            Values::OptU64(v) => out.extend(v.iter().map(|x| x.map(|x| x as f64).to_object(py))),
        }
    }
}

/// Fills one column from cells, row by row.
struct ColumnBuilder<'a> {
    values: Values,
    /// For a name column: each distinct name's index in `names`.
    seen: FxHashMap<&'a str, u32>,
}

impl<'a> ColumnBuilder<'a> {
    fn push(&mut self, cell: Cell<'a>) {
        match (&mut self.values, cell) {
            (Values::U32(v), Cell::U32(x)) => v.push(x),
            (Values::U64(v), Cell::U64(x)) => v.push(x),
            (Values::F64(v), Cell::F64(x)) => v.push(x),
            (Values::OptU64(v), Cell::OptU64(x)) => v.push(x),
            (Values::Str { names, index }, Cell::Str(s)) => {
                let i = *self.seen.entry(s).or_insert_with(|| {
                    names.push(s.to_string());
                    (names.len() - 1) as u32
                });
                index.push(i);
            }
            (_, cell) => panic!("a result row's cell {cell:?} does not match its column's type"),
        }
    }
}

/// A table: its number of rows and its columns in schema order.
struct Table {
    rows: usize,
    columns: Vec<Values>,
}

fn table_of<R: Row>(schema: &[ColumnSchema], rows: &[R]) -> Table {
    let mut columns: Vec<ColumnBuilder<'_>> = schema
        .iter()
        .map(|c| ColumnBuilder {
            values: Values::new(c.kind, rows.len()),
            seen: FxHashMap::default(),
        })
        .collect();
    for row in rows {
        let mut i = 0;
        row.visit(&mut |_, cell| {
            columns[i].push(cell);
            i += 1;
        });
        assert_eq!(
            i,
            schema.len(),
            "a result row has the wrong number of cells"
        );
    }
    Table {
        rows: rows.len(),
        columns: columns.into_iter().map(|c| c.values).collect(),
    }
}

/// One run's result tables (opaque to Python: see [`columns`]).
#[pyclass(name = "RunTables", module = "airtcp._core", frozen)]
pub struct PyRunTables {
    seed: u64,
    tables: [Table; 5],
}

impl PyRunTables {
    /// The tables of a run's result. Needs no GIL.
    pub fn new(r: &RunResult) -> PyRunTables {
        let s = schemas();
        PyRunTables {
            seed: r.seed,
            tables: [
                table_of(&s[0], &r.flows),
                table_of(&s[1], &r.links),
                table_of(&s[2], &r.transfers),
                table_of(&s[3], &r.agents),
                table_of(&s[4], &r.series_rows()),
            ],
        }
    }
}

#[pymethods]
impl PyRunTables {
    /// The run's seed.
    #[getter]
    fn seed(&self) -> u64 {
        self.seed
    }
}

/// Column-oriented tables {table: {column: list}} of `runs`, concatenated
/// in the order given; with `seed_column`, each table starts with a `seed`
/// column (the run's seed on each of its rows).
#[pyfunction]
pub fn columns<'py>(
    py: Python<'py>,
    runs: Vec<Bound<'py, PyRunTables>>,
    seed_column: bool,
) -> PyResult<Bound<'py, PyDict>> {
    crate::no_panic(|| {
        let runs: Vec<&PyRunTables> = runs.iter().map(|r| r.get()).collect();
        let out = PyDict::new_bound(py);
        for (t, (key, schema)) in TABLES.iter().zip(schemas()).enumerate() {
            let n: usize = runs.iter().map(|r| r.tables[t].rows).sum();
            let table = PyDict::new_bound(py);
            if seed_column {
                let mut seeds: Vec<PyObject> = Vec::with_capacity(n);
                for r in &runs {
                    let seed = r.seed.to_object(py);
                    seeds.extend((0..r.tables[t].rows).map(|_| seed.clone_ref(py)));
                }
                table.set_item("seed", PyList::new_bound(py, seeds))?;
            }
            for (c, col) in schema.iter().enumerate() {
                let mut values: Vec<PyObject> = Vec::with_capacity(n);
                for r in &runs {
                    r.tables[t].columns[c].extend_py(py, &mut values);
                }
                table.set_item(&col.name, PyList::new_bound(py, values))?;
            }
            out.set_item(*key, table)?;
        }
        Ok(out)
    })
}

/// The result tables' column types: {table: {column: arrow type name}}.
#[pyfunction]
pub fn schema(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    crate::no_panic(|| {
        let out = PyDict::new_bound(py);
        for (key, schema) in TABLES.iter().zip(schemas()) {
            let types = PyDict::new_bound(py);
            for col in schema {
                types.set_item(&col.name, col.arrow)?;
            }
            out.set_item(*key, types)?;
        }
        Ok(out)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use airtcp_core::metrics::FlowResult;

    #[test]
    fn schema_lists_every_column_with_its_type() {
        pyo3::prepare_freethreaded_python();
        Python::with_gil(|py| {
            let schema = schema(py).unwrap();
            let flows = schema.get_item("flows").unwrap().unwrap();
            assert_eq!(
                flows.get_item("drops_no_route").unwrap().to_string(),
                "uint64"
            );
            assert_eq!(flows.get_item("goodput_bps").unwrap().to_string(), "double");
            let links = schema.get_item("links").unwrap().unwrap();
            assert_eq!(
                links.get_item("drops_channel").unwrap().to_string(),
                "uint64"
            );
            let empty = Bound::new(py, PyRunTables::new(&RunResult::default())).unwrap();
            let cols = columns(py, vec![empty], false).unwrap();
            for t in TABLES {
                let table = cols.get_item(t).unwrap().unwrap();
                assert_eq!(
                    table.len().unwrap(),
                    schema.get_item(t).unwrap().unwrap().len().unwrap()
                );
            }
        });
    }

    /// Runs concatenate in the order given, each row with its run's seed;
    /// a name column keeps each row's own name.
    #[test]
    fn columns_concatenate_runs_in_order_with_their_seeds() {
        pyo3::prepare_freethreaded_python();
        let run = |seed: u64, names: &[&str]| RunResult {
            seed,
            flows: names
                .iter()
                .map(|n| FlowResult {
                    name: n.to_string(),
                    ..FlowResult::default()
                })
                .collect(),
            ..RunResult::default()
        };
        Python::with_gil(|py| {
            let runs = vec![
                Bound::new(py, PyRunTables::new(&run(7, &["b", "a", "b"]))).unwrap(),
                Bound::new(py, PyRunTables::new(&run(3, &["a"]))).unwrap(),
            ];
            let cols = columns(py, runs, true).unwrap();
            let flows = cols.get_item("flows").unwrap().unwrap();
            let flows = flows.downcast::<PyDict>().unwrap();
            let first: String = flows.keys().get_item(0).unwrap().extract().unwrap();
            assert_eq!(first, "seed");
            let seeds: Vec<u64> = flows.get_item("seed").unwrap().unwrap().extract().unwrap();
            assert_eq!(seeds, [7, 7, 7, 3]);
            let names: Vec<String> = flows.get_item("name").unwrap().unwrap().extract().unwrap();
            assert_eq!(names, ["b", "a", "b", "a"]);
            let links = cols.get_item("links").unwrap().unwrap();
            let link_seeds = links.get_item("seed").unwrap();
            assert_eq!(link_seeds.len().unwrap(), 0);
        });
    }
}
