//! The result tables as CSV or JSON text (`airtcp run --out DIR --format
//! csv|json`), written from the core's columns with the GIL released.
//!
//! Why: Python wrote them from the tables' lists, one Python object per
//! cell, with the csv and json modules. At 100,000 flows (9.2 million
//! cells in the flow and link tables) that added 1.8 s (CSV) and 3.9 s
//! (JSON) to a run of 2.5 s. The text is what they wrote, byte for byte:
//! - CSV as `pandas.DataFrame.to_csv(index=False)` writes it (pandas
//!   writes with Python's csv module): a header of the column names, a
//!   float as `repr(float)`, a missing value (NaN, a missing count) as an
//!   empty field, a name quoted when it holds a comma, a double quote, `\n`
//!   or `\r` (inner quotes doubled; `push_csv_field`), lines ending in the
//!   platform's line separator (`os.linesep`, as pandas and Python's
//!   writer).
//! - JSON as a list of records, one per line (`"[\n" + ",\n".join(records)
//!   + "\n]\n"`), each `json.dumps(record, ensure_ascii=False)`: numbers in
//!   full precision (`repr(float)`), a missing value or a double JSON
//!   cannot write (an infinity) as `null`.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use airtcp_core::observe::OutputError;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use super::{schemas, seed_values, PyRunTables, Values, TABLES};

/// The text formats of `--out`.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Format {
    Csv,
    Json,
}

/// The line separator Python's csv writer is given (`os.linesep`).
const LINE_END: &str = if cfg!(windows) { "\r\n" } else { "\n" };

/// Write table `table` of `runs` (concatenated in the order given; with
/// `seed_column`, a leading `seed` column) to `path` as `format` ("csv" or
/// "json"). An I/O error is an OSError naming the file.
#[pyfunction]
pub fn write_text(
    py: Python<'_>,
    runs: Vec<Bound<'_, PyRunTables>>,
    seed_column: bool,
    table: &str,
    path: std::path::PathBuf,
    format: &str,
) -> PyResult<()> {
    let format = match format {
        "csv" => Format::Csv,
        "json" => Format::Json,
        other => {
            return Err(PyValueError::new_err(format!(
                "unknown text format {other:?}"
            )))
        }
    };
    let Some(t) = TABLES.iter().position(|&k| k == table) else {
        return Err(PyValueError::new_err(format!("unknown table {table:?}")));
    };
    let runs: Vec<&PyRunTables> = runs.iter().map(|r| r.get()).collect();
    crate::no_panic(|| {
        py.allow_threads(|| write_table(&runs, seed_column, t, &path, format))
            .map_err(|e| crate::os_err(OutputError::wrap(&path, e)))
    })
}

/// One column's name and values in each run.
struct Column<'a> {
    name: &'a str,
    runs: Vec<&'a Values>,
}

fn write_table(
    runs: &[&PyRunTables],
    seed_column: bool,
    t: usize,
    path: &Path,
    format: Format,
) -> std::io::Result<()> {
    let seeds = seed_values(runs, t);
    let mut columns = Vec::new();
    if seed_column {
        columns.push(Column {
            name: "seed",
            runs: seeds.iter().collect(),
        });
    }
    for (c, schema) in schemas()[t].iter().enumerate() {
        columns.push(Column {
            name: &schema.name,
            runs: runs.iter().map(|r| &r.tables[t].columns[c]).collect(),
        });
    }
    let mut out = BufWriter::with_capacity(1 << 20, File::create(path)?);
    let mut cells = CellWriter::default();
    // Before each cell of a row: CSV's comma, or JSON's `"name": ` (with
    // the opening brace or the comma before it).
    let prefixes: Vec<Vec<u8>> = columns
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let mut p = Vec::new();
            match format {
                Format::Csv => p.extend_from_slice(if i == 0 { b"" } else { b"," }),
                Format::Json => {
                    p.extend_from_slice(if i == 0 { b"{" } else { b", " });
                    push_json_string(&mut p, c.name);
                    p.extend_from_slice(b": ");
                }
            }
            p
        })
        .collect();
    let mut line = Vec::new();
    match format {
        Format::Csv => {
            for (p, c) in prefixes.iter().zip(&columns) {
                line.extend_from_slice(p);
                push_csv_field(&mut line, c.name);
            }
            line.extend_from_slice(LINE_END.as_bytes());
        }
        Format::Json => line.push(b'['),
    }
    let mut first_row = true;
    for (r, run) in runs.iter().enumerate() {
        // Each distinct name of this run's string columns, encoded once.
        let names: Vec<Vec<Vec<u8>>> = columns
            .iter()
            .map(|c| match c.runs[r] {
                Values::Str { names, .. } => names
                    .iter()
                    .map(|n| {
                        let mut e = Vec::new();
                        match format {
                            Format::Csv => push_csv_field(&mut e, n),
                            Format::Json => push_json_string(&mut e, n),
                        }
                        e
                    })
                    .collect(),
                _ => Vec::new(),
            })
            .collect();
        for row in 0..run.tables[t].rows {
            if format == Format::Json {
                line.extend_from_slice(if first_row { b"\n" } else { b",\n" });
            }
            first_row = false;
            for (c, column) in columns.iter().enumerate() {
                line.extend_from_slice(&prefixes[c]);
                cells.push(&mut line, column.runs[r], &names[c], row, format);
            }
            match format {
                Format::Csv => line.extend_from_slice(LINE_END.as_bytes()),
                Format::Json => line.push(b'}'),
            }
            if line.len() >= 1 << 16 {
                out.write_all(&line)?;
                line.clear();
            }
        }
    }
    if format == Format::Json {
        line.extend_from_slice(b"\n]\n");
    }
    out.write_all(&line)?;
    out.flush()
}

/// Formats cells into its buffers (no allocation per cell).
#[derive(Default)]
struct CellWriter {
    integers: itoa::Buffer,
    floats: ryu::Buffer,
}

impl CellWriter {
    /// Append row `row` of `values` (`names`: a string column's names,
    /// encoded).
    fn push(
        &mut self,
        out: &mut Vec<u8>,
        values: &Values,
        names: &[Vec<u8>],
        row: usize,
        format: Format,
    ) {
        let missing: &[u8] = match format {
            Format::Csv => b"",
            Format::Json => b"null",
        };
        match values {
            Values::U32(v) => out.extend_from_slice(self.integers.format(v[row]).as_bytes()),
            Values::U64(v) => out.extend_from_slice(self.integers.format(v[row]).as_bytes()),
            Values::F64(v) => {
                let x = v[row];
                // CSV: NaN is an empty field (pandas' na_rep), an infinity
                // `inf`; JSON: null for both (JSON has neither).
                match format {
                    Format::Csv if x.is_nan() => out.extend_from_slice(missing),
                    Format::Json if !x.is_finite() => out.extend_from_slice(missing),
                    _ => push_float_repr(out, x, &mut self.floats),
                }
            }
            // A count that may be missing is a double in the tables.
            Values::OptU64(v) => match v[row] {
                Some(n) => push_float_repr(out, n as f64, &mut self.floats),
                None => out.extend_from_slice(missing),
            },
            Values::Str { index, .. } => match index[row] {
                super::MISSING_NAME => out.extend_from_slice(missing),
                i => out.extend_from_slice(&names[i as usize]),
            },
        }
    }
}

/// `x` as Python's `repr(float)` writes it: the shortest digits that read
/// back as `x`, of those the closest to `x`, of two equally close the even
/// one (Python's dtoa, and Ryu: `ryu` finds the digits), in fixed notation
/// when the decimal point falls within 4 places before the first digit to
/// 16 after it (`0.0001`, `1234567890123456.0`, with `.0` on a whole
/// number), otherwise in scientific notation with a signed exponent of at
/// least two digits (`1e-05`, `1e+16`, `1.5e+300`); `inf`, `-inf`, `nan`.
fn push_float_repr(out: &mut Vec<u8>, x: f64, ryu: &mut ryu::Buffer) {
    if x.is_nan() {
        out.extend_from_slice(b"nan");
        return;
    }
    if x.is_sign_negative() {
        out.push(b'-');
    }
    if x.is_infinite() {
        out.extend_from_slice(b"inf");
        return;
    }
    if x == 0.0 {
        out.extend_from_slice(b"0.0");
        return;
    }
    // Ryu writes "123.45", "0.0001", "1e16" or "1.5e300": take its digits
    // without leading or trailing zeros, and Python's decpt (where the
    // point falls: x = 0.d1d2... * 10^decpt).
    let text = ryu.format_finite(x.abs());
    let (mantissa, exponent) = match text.split_once('e') {
        Some((m, e)) => (m, e.parse::<i32>().expect("ryu's exponent is an integer")),
        None => (text, 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let mut digits = [0u8; 40];
    let mut n = 0;
    for &d in whole.as_bytes().iter().chain(fraction.as_bytes()) {
        digits[n] = d;
        n += 1;
    }
    let leading = digits[..n].iter().take_while(|&&d| d == b'0').count();
    let trailing = digits[..n].iter().rev().take_while(|&&d| d == b'0').count();
    let digits = &digits[leading..n - trailing];
    let point = exponent + whole.len() as i32 - leading as i32;
    let n_digits = digits.len() as i32;
    if -4 < point && point <= 16 {
        if point <= 0 {
            out.extend_from_slice(b"0.");
            out.extend(std::iter::repeat_n(b'0', (-point) as usize));
            out.extend_from_slice(digits);
        } else if point >= n_digits {
            out.extend_from_slice(digits);
            out.extend(std::iter::repeat_n(b'0', (point - n_digits) as usize));
            out.extend_from_slice(b".0");
        } else {
            out.extend_from_slice(&digits[..point as usize]);
            out.push(b'.');
            out.extend_from_slice(&digits[point as usize..]);
        }
    } else {
        out.push(digits[0]);
        if digits.len() > 1 {
            out.push(b'.');
            out.extend_from_slice(&digits[1..]);
        }
        let e = point - 1;
        out.push(b'e');
        out.push(if e < 0 { b'-' } else { b'+' });
        if e.unsigned_abs() < 10 {
            out.push(b'0');
        }
        out.extend_from_slice(itoa::Buffer::new().format(e.unsigned_abs()).as_bytes());
    }
}

/// A CSV field as Python's csv writer (minimal quoting) writes a string:
/// in double quotes, inner ones doubled, when it holds the delimiter, a
/// double quote, `\n` or `\r` (CPython since 3.11.9 and 3.12.3,
/// gh-67044; before, a lone carriage return was left bare when the line
/// ends in `\n`, and a reader took it for a line end).
fn push_csv_field(out: &mut Vec<u8>, s: &str) {
    if !s.contains([',', '"', '\n', '\r']) {
        out.extend_from_slice(s.as_bytes());
        return;
    }
    out.push(b'"');
    for b in s.bytes() {
        if b == b'"' {
            out.push(b'"');
        }
        out.push(b);
    }
    out.push(b'"');
}

/// A JSON string as `json.dumps(s, ensure_ascii=False)` writes it: `"` and
/// `\` escaped, `\b \f \n \r \t` by name, other characters below U+0020 as
/// `\u00xx` (lower-case hex), the rest as they are.
fn push_json_string(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    for &b in s.as_bytes() {
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0c => out.extend_from_slice(b"\\f"),
            0..=0x1f => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.extend_from_slice(b"\\u00");
                out.push(HEX[(b >> 4) as usize]);
                out.push(HEX[(b & 0xf) as usize]);
            }
            _ => out.push(b),
        }
    }
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use pyo3::types::PyList;
    use rand::{Rng, SeedableRng};

    /// Python's own text of each of `inputs` by `expr` (a lambda).
    fn python_texts<T: ToPyObject>(expr: &str, inputs: &[T]) -> Vec<String> {
        pyo3::prepare_freethreaded_python();
        Python::with_gil(|py| {
            let f = py.eval_bound(expr, None, None).unwrap();
            let list = PyList::new_bound(py, inputs.iter().map(|x| x.to_object(py)));
            py.import_bound("builtins")
                .unwrap()
                .getattr("list")
                .unwrap()
                .call1((py
                    .import_bound("builtins")
                    .unwrap()
                    .getattr("map")
                    .unwrap()
                    .call1((f, list))
                    .unwrap(),))
                .unwrap()
                .extract()
                .unwrap()
        })
    }

    fn ours(mut push: impl FnMut(&mut Vec<u8>)) -> String {
        let mut out = Vec::new();
        push(&mut out);
        String::from_utf8(out).unwrap()
    }

    /// Python's `repr(float)` (its reference: the shortest string that
    /// rounds back, repr's "r" mode, fixed notation for decimal exponents
    /// from -4 to 15) is the oracle: the boundaries of both notations,
    /// signed zeros and infinities, subnormals, the extremes, whole
    /// numbers around 2^53, short decimals, numbers where two candidates
    /// tie, and 200,000 random bit patterns.
    #[test]
    fn float_text_is_pythons_repr() {
        let mut xs = vec![
            0.0,
            -0.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            1.0,
            -1.5,
            0.1,
            0.0001,
            0.00001,
            0.000123,
            0.0000999,
            1e15,
            1e16,
            9999999999999998.0,
            1234567890123456.0,
            12345678901234567.0,
            f64::MAX,
            f64::MIN_POSITIVE,
            5e-324,
            f64::EPSILON,
            (1u64 << 53) as f64,
            ((1u64 << 53) + 2) as f64,
            1e100,
            1.5e300,
            123.456,
            4800.0,
            2.5e-7,
        ];
        for j in 0..20 {
            for k in [1, 3, 7, 25, 99, 12345] {
                xs.push(k as f64 / 10f64.powi(j));
                xs.push(k as f64 * 10f64.powi(j));
            }
        }
        // Where ties between two shortest candidates happen: numbers with
        // a few fraction bits around 10^15-10^16 and whole numbers past
        // 2^53 (exactly halfway between two 17-digit decimals).
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        for _ in 0..20_000 {
            let whole = rng.gen_range(1u64 << 49..1u64 << 53) as f64;
            xs.push(whole + [0.25, 0.5, 0.75, 0.125][rng.gen_range(0..4)]);
            xs.push((rng.gen_range(1u64 << 53..1u64 << 62) & !0xff) as f64);
        }
        xs.extend((0..200_000).map(|_| f64::from_bits(rng.gen::<u64>())));
        let expected = python_texts("repr", &xs);
        let mut ryu = ryu::Buffer::new();
        for (x, want) in xs.iter().zip(&expected) {
            assert_eq!(ours(|o| push_float_repr(o, *x, &mut ryu)), *want, "{x:e}");
        }
    }

    /// Names that need escaping: every ASCII character (the controls, `"`
    /// and `\`) and non-ASCII ones, as `json.dumps(s, ensure_ascii=False)`
    /// writes them.
    #[test]
    fn json_strings_are_json_dumps() {
        let mut names: Vec<String> = (0u8..0x80).map(|b| format!("a{}b", b as char)).collect();
        names.extend(["", "B, the \"far\" end", "é\u{2028}\u{7f}😀", "\\\"\\"].map(String::from));
        let expected = python_texts(
            "lambda s: __import__('json').dumps(s, ensure_ascii=False)",
            &names,
        );
        for (s, want) in names.iter().zip(&expected) {
            assert_eq!(ours(|o| push_json_string(o, s)), *want, "{s:?}");
        }
    }

    /// Python's csv writer with minimal quoting (what pandas' `to_csv`
    /// uses), a field before a second one; a lone carriage return quoted as
    /// CPython does since 3.11.9 (gh-67044; older writers left it bare).
    #[test]
    fn csv_fields_are_pythons_csv_writer() {
        let mut names: Vec<String> = (0u8..0x80)
            .filter(|&b| b != b'\r')
            .map(|b| format!("a{}b", b as char))
            .collect();
        names.extend(["", "file,1", "B, the \"far\" end", "\"", "é😀"].map(String::from));
        let expected = python_texts(
            "lambda s: (lambda b, csv: (csv.writer(b, lineterminator='\\n').writerow([s, 'x']), \
             b.getvalue()[:-3])[1])(__import__('io').StringIO(), __import__('csv'))",
            &names,
        );
        for (s, want) in names.iter().zip(&expected) {
            assert_eq!(ours(|o| push_csv_field(o, s)), *want, "{s:?}");
        }
        assert_eq!(ours(|o| push_csv_field(o, "a\rb")), "\"a\rb\"");
    }
}
