//! Reference documentation generated from the code, so that it cannot
//! drift: `docs/results.md` lists every column of every result table from
//! the tables' own column lists ([`crate::metrics::Row`]). The test
//! `tests/generated_docs.rs` fails when the committed file is stale;
//! `AIRTCP_UPDATE_DOCS=1 cargo test -p airtcp-core --test generated_docs`
//! rewrites it.

use crate::metrics::{
    AgentResult, Cell, Column, FlowResult, LinkResult, Row, SeriesPoint, TransferResult,
};

/// The column type as the Python tables (Arrow) and Parquet files hold it.
pub fn arrow_type(c: &Cell<'_>) -> &'static str {
    match c {
        Cell::U32(_) => "uint32",
        Cell::U64(_) | Cell::OptU64(_) => "uint64",
        Cell::F64(_) => "double",
        Cell::Str(_) => "string",
    }
}

/// (name, type, unit, doc) of each column of a row type.
pub fn columns_of<R: Row + Default>() -> Vec<(String, &'static str, &'static str, String)> {
    let mut out = Vec::new();
    R::default().visit(&mut |c: Column<'_>, cell| {
        out.push((
            c.name.to_string(),
            arrow_type(&cell),
            c.unit,
            c.doc.to_string(),
        ))
    });
    out
}

fn table_md(out: &mut String, cols: &[(String, &'static str, &'static str, String)]) {
    out.push_str("| column | type | unit | meaning |\n|---|---|---|---|\n");
    for (name, ty, unit, doc) in cols {
        let unit = if unit.is_empty() { "—" } else { unit };
        out.push_str(&format!("| `{name}` | {ty} | {unit} | {doc} |\n"));
    }
}

/// The whole of `docs/results.md`.
pub fn results_markdown() -> String {
    let mut s = String::from(
        "# Result columns\n\n\
         <!-- Generated from the code (crates/airtcp-core/src/reference.rs); do not edit.\n     \
         Regenerate: AIRTCP_UPDATE_DOCS=1 cargo test -p airtcp-core --test generated_docs -->\n\n\
         Every table of a run's result, column by column, as `airtcp.Result` holds them \
         (pandas DataFrames) and `airtcp run --out` writes them (CSV, Parquet, JSON). Results \
         of several seeds (`run_many`, `--runs`) have a leading `seed` column. Counts are \
         ground truth kept by the simulator, never estimates. A value that does not exist \
         (an RTT without samples) is missing (NaN or null), never a sentinel number.\n",
    );
    let tables: [(&str, &str, Vec<_>); 5] = [
        (
            "flows",
            "One row per `[[flow]]`. TCP counters add up every connection of the flow \
             (repeated downloads open one per transfer).",
            columns_of::<FlowResult>(),
        ),
        (
            "links",
            "One row per link direction.",
            columns_of::<LinkResult>(),
        ),
        (
            "transfers",
            "One row per completed transfer of a `file` or `repeated` app.",
            columns_of::<TransferResult>(),
        ),
        (
            "agents",
            "Counters of the middlebox agents, one row per (node, agent, counter).",
            columns_of::<AgentResult>(),
        ),
        (
            "series",
            "Sampled time series (`[output.timeseries]`), long format.",
            columns_of::<SeriesPoint>(),
        ),
    ];
    for (name, what, cols) in &tables {
        s.push_str(&format!("\n## `{name}`\n\n{what}\n\n"));
        table_md(&mut s, cols);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_column_is_documented_once() {
        for cols in [
            columns_of::<FlowResult>(),
            columns_of::<LinkResult>(),
            columns_of::<TransferResult>(),
            columns_of::<AgentResult>(),
            columns_of::<SeriesPoint>(),
        ] {
            let mut names: Vec<_> = cols.iter().map(|c| c.0.clone()).collect();
            for (name, _, _, doc) in &cols {
                assert!(doc.len() > 10, "{name}: {doc:?}");
                assert!(!doc.contains('|'), "{name}: a '|' breaks the table");
            }
            names.sort();
            names.dedup();
            assert_eq!(names.len(), cols.len(), "duplicate column names");
        }
    }
}
