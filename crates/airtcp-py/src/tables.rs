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

pub mod text;

use rustc_hash::FxHashMap;
use std::sync::OnceLock;

use airtcp_core::metrics::{Cell, Row, RunResult};
use airtcp_core::reference::arrow_type;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};

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
    /// A name that may be missing (kept as [`Kind::Str`] with
    /// [`MISSING_NAME`] rows).
    OptStr,
}

/// The index of a missing name in a name column (`Values::Str`).
const MISSING_NAME: u32 = u32::MAX;

impl Kind {
    fn of(cell: &Cell<'_>) -> Kind {
        match cell {
            Cell::U32(_) => Kind::U32,
            Cell::U64(_) => Kind::U64,
            Cell::F64(_) => Kind::F64,
            Cell::Str(_) => Kind::Str,
            Cell::OptU64(_) => Kind::OptU64,
            Cell::OptStr(_) => Kind::OptStr,
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
/// of rows and a handful of names): each distinct one is kept once, and a
/// missing one is [`MISSING_NAME`].
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
            Kind::Str | Kind::OptStr => Values::Str {
                names: Vec::new(),
                index: Vec::with_capacity(rows),
            },
            Kind::OptU64 => Values::OptU64(Vec::with_capacity(rows)),
        }
    }

    fn len(&self) -> usize {
        match self {
            Values::U32(v) => v.len(),
            Values::U64(v) => v.len(),
            Values::F64(v) => v.len(),
            Values::Str { index, .. } => index.len(),
            Values::OptU64(v) => v.len(),
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
                out.extend(index.iter().map(|&i| match i {
                    MISSING_NAME => py.None(),
                    _ => names[i as usize].clone_ref(py),
                }));
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
            (Values::Str { index, .. }, Cell::OptStr(None)) => index.push(MISSING_NAME),
            (Values::Str { names, index }, Cell::Str(s) | Cell::OptStr(Some(s))) => {
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

/// Table `t`'s `seed` column of `runs`: each run's seed on each of its
/// rows.
fn seed_values(runs: &[&PyRunTables], t: usize) -> Vec<Values> {
    runs.iter()
        .map(|r| Values::U64(vec![r.seed; r.tables[t].rows]))
        .collect()
}

/// {table: `new_table()`} for the tables of `runs`, each filled by
/// `each(table, column name, kind, arrow type, the column's values in each
/// run)` for its columns in schema order; with `seed_column`, each table
/// starts with a `seed` column (the run's seed on each of its rows). What
/// [`columns`] and [`arrow_columns`] make, in their own forms.
fn tables_of<'py, T>(
    py: Python<'py>,
    runs: &[Bound<'py, PyRunTables>],
    seed_column: bool,
    new_table: impl Fn() -> Bound<'py, T>,
    mut each: impl FnMut(&Bound<'py, T>, &str, Kind, &'static str, &[&Values]) -> PyResult<()>,
) -> PyResult<Bound<'py, PyDict>> {
    crate::no_panic(|| {
        let runs: Vec<&PyRunTables> = runs.iter().map(|r| r.get()).collect();
        let out = PyDict::new_bound(py);
        for (t, (key, schema)) in TABLES.iter().zip(schemas()).enumerate() {
            let table = new_table();
            if seed_column {
                let seeds = seed_values(&runs, t);
                each(
                    &table,
                    "seed",
                    Kind::U64,
                    "uint64",
                    &seeds.iter().collect::<Vec<_>>(),
                )?;
            }
            for (c, col) in schema.iter().enumerate() {
                let values: Vec<&Values> = runs.iter().map(|r| &r.tables[t].columns[c]).collect();
                each(&table, &col.name, col.kind, col.arrow, &values)?;
            }
            out.set_item(*key, table)?;
        }
        Ok(out)
    })
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
    let new_table = || PyDict::new_bound(py);
    tables_of(
        py,
        &runs,
        seed_column,
        new_table,
        |table, name, _, _, values| {
            let mut objects = Vec::with_capacity(values.iter().map(|v| v.len()).sum());
            for v in values {
                v.extend_py(py, &mut objects);
            }
            table.set_item(name, PyList::new_bound(py, objects))
        },
    )
}

/// A column's Arrow buffers, as `pyarrow.Array.from_buffers` takes them,
/// filled run after run: the DataFrames and Parquet files are made from
/// these, with no Python object per cell (and without pandas for Parquet:
/// `pyarrow.array` of a list imports it).
enum ArrowColumn {
    /// `rows` little-endian values; for a count that may be missing, which
    /// rows have one (the others are nulls).
    Fixed {
        rows: usize,
        values: Vec<u8>,
        valid: Option<Vec<bool>>,
    },
    /// UTF-8 strings, in chunks of at most `i32::MAX` bytes (Arrow's
    /// `string` type has 32-bit offsets).
    Strings(Vec<StringChunk>),
}

/// Rows of a string column: the offsets of each row's bytes in `bytes`;
/// for a name that may be missing, which rows have one (a missing name is
/// a null of no bytes), as [`ArrowColumn::Fixed`] keeps it for a count.
struct StringChunk {
    offsets: Vec<i32>,
    bytes: Vec<u8>,
    valid: Option<Vec<bool>>,
}

impl StringChunk {
    fn new(optional: bool) -> StringChunk {
        StringChunk {
            offsets: vec![0],
            bytes: Vec::new(),
            valid: optional.then(Vec::new),
        }
    }
}

impl ArrowColumn {
    fn new(kind: Kind) -> ArrowColumn {
        match kind {
            Kind::Str | Kind::OptStr => {
                ArrowColumn::Strings(vec![StringChunk::new(kind == Kind::OptStr)])
            }
            _ => ArrowColumn::Fixed {
                rows: 0,
                values: Vec::new(),
                valid: (kind == Kind::OptU64).then(Vec::new),
            },
        }
    }

    /// Append a run's values of this column.
    fn extend(&mut self, column: &Values) -> PyResult<()> {
        use crate::le_bytes;
        match self {
            ArrowColumn::Fixed {
                rows,
                values,
                valid,
            } => {
                *rows += column.len();
                match (column, valid) {
                    (Values::U32(v), None) => values.extend(le_bytes(v, u32::to_le_bytes)),
                    (Values::U64(v), None) => values.extend(le_bytes(v, u64::to_le_bytes)),
                    (Values::F64(v), None) => values.extend(le_bytes(v, f64::to_le_bytes)),
                    (Values::OptU64(v), Some(valid)) => {
                        // As `extend_py`: the count as a double, or a null.
                        values.extend(
                            v.iter()
                                .flat_map(|x| x.map_or(0.0, |x| x as f64).to_le_bytes()),
                        );
                        valid.extend(v.iter().map(Option::is_some));
                    }
                    _ => unreachable!("a column's values match its kind"),
                }
            }
            ArrowColumn::Strings(chunks) => {
                let Values::Str { names, index } = column else {
                    unreachable!("a column's values match its kind");
                };
                extend_strings(chunks, names, index, i32::MAX as usize)?;
            }
        }
        Ok(())
    }

    /// The chunks as `[(rows, validity bitmap or None, [buffers])]`.
    fn into_py(self, py: Python<'_>) -> PyObject {
        let bytes = |b: &[u8]| PyBytes::new_bound(py, b).into_any().unbind();
        // No bitmap when every row has a value.
        let bitmap = |valid: Option<Vec<bool>>| {
            valid
                .filter(|v| v.contains(&false))
                .map(|v| bytes(&validity_bitmap(&v)))
        };
        let chunks: Vec<(usize, Option<PyObject>, Vec<PyObject>)> = match self {
            ArrowColumn::Fixed {
                rows,
                values,
                valid,
            } => {
                vec![(rows, bitmap(valid), vec![bytes(&values)])]
            }
            ArrowColumn::Strings(chunks) => chunks
                .into_iter()
                .map(|c| {
                    let offsets = crate::le_bytes(&c.offsets, i32::to_le_bytes);
                    (
                        c.offsets.len() - 1,
                        bitmap(c.valid),
                        vec![bytes(&offsets), bytes(&c.bytes)],
                    )
                })
                .collect(),
        };
        chunks.to_object(py)
    }
}

/// Append the rows' names (`names[index[row]]`) to a string column,
/// starting a new chunk where the last would pass `max_chunk_bytes`.
fn extend_strings(
    chunks: &mut Vec<StringChunk>,
    names: &[String],
    index: &[u32],
    max_chunk_bytes: usize,
) -> PyResult<()> {
    for &i in index {
        let name = match i {
            MISSING_NAME => &[][..],
            _ => names[i as usize].as_bytes(),
        };
        if name.len() > max_chunk_bytes {
            return Err(PyValueError::new_err(format!(
                "a name of {} bytes is too long for an Arrow string",
                name.len()
            )));
        }
        let last = chunks.last().expect("a chunk");
        if last.bytes.len() + name.len() > max_chunk_bytes {
            chunks.push(StringChunk::new(last.valid.is_some()));
        }
        let chunk = chunks.last_mut().expect("a chunk");
        chunk.bytes.extend_from_slice(name);
        chunk.offsets.push(chunk.bytes.len() as i32);
        if let Some(valid) = &mut chunk.valid {
            valid.push(i != MISSING_NAME);
        }
    }
    Ok(())
}

/// Arrow's validity bitmap of `valid`: bit i (least significant first)
/// set when row i has a value.
fn validity_bitmap(valid: &[bool]) -> Vec<u8> {
    valid
        .chunks(8)
        .map(|byte| byte.iter().rev().fold(0u8, |acc, &ok| acc << 1 | ok as u8))
        .collect()
}

/// The tables of `runs` as Arrow buffers, concatenated in the order given:
/// {table: [(column, arrow type, chunks)]}, chunks as
/// [`ArrowColumn::into_py`] gives them; with `seed_column`, each table
/// starts with a `seed` column. The same data as [`columns`].
#[pyfunction]
pub fn arrow_columns<'py>(
    py: Python<'py>,
    runs: Vec<Bound<'py, PyRunTables>>,
    seed_column: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let new_table = || PyList::empty_bound(py);
    tables_of(
        py,
        &runs,
        seed_column,
        new_table,
        |table, name, kind, arrow, values| {
            let mut column = ArrowColumn::new(kind);
            for v in values {
                column.extend(v)?;
            }
            table.append((name, arrow, column.into_py(py)))
        },
    )
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

    /// Arrow's layout (columnar format spec, "Validity bitmaps": bit j of
    /// byte i is row 8i + j, least significant bit first; "Variable-size
    /// binary layout": offsets[0] = 0 and row j spans offsets[j] to
    /// offsets[j + 1]).
    #[test]
    fn validity_bits_are_least_significant_first() {
        let valid = [
            true, false, false, true, true, false, true, true, false, true,
        ];
        assert_eq!(validity_bitmap(&valid), [0b1101_1001, 0b0000_0010]);
    }

    /// A string column starts a new chunk rather than pass the chunk
    /// limit (2^31 - 1 bytes for Arrow's `string`; 10 here), keeps every
    /// row in order, and refuses a name that fits no chunk.
    #[test]
    fn string_chunks_stay_under_their_limit() {
        let names: Vec<String> = ["abcd", "efg", ""].iter().map(|s| s.to_string()).collect();
        let mut chunks = vec![StringChunk::new(false)];
        extend_strings(&mut chunks, &names, &[0, 1, 0, 2, 1, 1, 1], 10).unwrap();
        let rows: Vec<(Vec<i32>, &[u8])> = chunks
            .iter()
            .map(|c| (c.offsets.clone(), &c.bytes[..]))
            .collect();
        assert_eq!(
            rows,
            [
                (vec![0, 4, 7], &b"abcdefg"[..]),
                (vec![0, 4, 4, 7, 10], &b"abcdefgefg"[..]),
                (vec![0, 3], &b"efg"[..]),
            ]
        );
        let long = vec!["x".repeat(11)];
        assert!(extend_strings(&mut vec![StringChunk::new(false)], &long, &[0], 10).is_err());
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
