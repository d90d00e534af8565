//! Reference documentation generated from the code, so that it cannot
//! drift: `docs/results.md` lists every column of every result table from
//! the tables' own column lists ([`crate::metrics::Row`]), the time-series
//! metrics ([`SeriesMetric`]), the agents' counters (each agent's
//! `counters()`) and the trace's columns ([`TraceColumns::columns`]). The test
//! `tests/generated_docs.rs` fails when the committed file is stale;
//! `AIRTCP_UPDATE_DOCS=1 cargo test -p airtcp-core --test generated_docs`
//! rewrites it.

use crate::metrics::{
    AgentResult, Cell, Column, FlowResult, LinkResult, Row, SeriesMetric, SeriesRow, TransferResult,
};
use crate::observe::trace::{TraceColumns, TraceNames};
use crate::scenario::schema::AgentKind;
use crate::scenario::Scenario;

/// The column type as the Python tables (Arrow) and Parquet files hold it.
pub fn arrow_type(c: &Cell<'_>) -> &'static str {
    match c {
        Cell::U32(_) => "uint32",
        Cell::U64(_) => "uint64",
        Cell::F64(_) | Cell::OptU64(_) => "double",
        Cell::Str(_) | Cell::OptStr(_) => "string",
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
         (an RTT without samples, a UDP flow's TCP variant or congestion window) is missing \
         (NaN or null), never a sentinel number or an empty name. \
         Every format keeps full precision: CSV writes what pandas' `to_csv` writes (a \
         missing value as an empty field), JSON an array of records, one record per line \
         (read it with `pd.read_json(path)`, not `lines=True`, and with \
         `precise_float=True` for pandas to read the values exactly; a missing value, or an \
         infinity, which JSON cannot write, as null). A table without rows is `[]` in \
         JSON, which names no columns (`pd.read_json` gives a frame without any; CSV \
         and Parquet keep them, and they are listed below).\n",
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
            columns_of::<SeriesRow<'_>>(),
        ),
    ];
    for (name, what, cols) in &tables {
        s.push_str(&format!("\n## `{name}`\n\n{what}\n\n"));
        table_md(&mut s, cols);
        if *name == "agents" {
            agent_counters_md(&mut s);
        }
        if *name == "series" {
            series_metrics_md(&mut s);
        }
    }
    s.push_str(
        "\n## `trace`\n\nThe per-packet event trace (Parquet; `[trace]`, `--trace`, \
         `run(trace=...)`; see [capture.md](capture.md)): one row per event. Name columns are \
         dictionary-encoded strings (pandas categoricals); a missing value is null.\n\n",
    );
    let cols = TraceColumns::new(TraceNames::default());
    let trace_cols: Vec<_> = cols
        .columns()
        .iter()
        .map(|(c, data)| {
            (
                c.name.to_string(),
                data.arrow_type(),
                c.unit,
                c.doc.to_string(),
            )
        })
        .collect();
    table_md(&mut s, &trace_cols);
    s
}

fn series_metrics_md(s: &mut String) {
    s.push_str(
        "\nThe metrics (the `metric` column), sampled every `interval`; a value that does not \
         exist at that instant has no row (the wide form, `Result.series_wide()`, shows it as \
         missing):\n\n| metric | kind | unit | meaning |\n|---|---|---|---|\n",
    );
    for m in SeriesMetric::ALL {
        let (name, unit, doc) = m.describe();
        s.push_str(&format!(
            "| `{name}` | {} | {unit} | {doc} |\n",
            m.kind().name()
        ));
    }
}

/// Every agent kind the scenario format has; adding one breaks the match in
/// [`documented`] until it is listed here.
const AGENT_KINDS: [AgentKind; 6] = [
    AgentKind::Kick,
    AgentKind::Snoop,
    AgentKind::GsnoopA,
    AgentKind::GsnoopB,
    AgentKind::Arq,
    AgentKind::Dda,
];

/// The agent table of a scenario (node B before the wireless link to C).
fn documented(k: AgentKind) -> (&'static str, &'static str) {
    match k {
        AgentKind::Kick => ("B", "{ kind = \"kick\" }"),
        AgentKind::Snoop => ("B", "{ kind = \"snoop\" }"),
        AgentKind::GsnoopA => ("B", "{ kind = \"gsnoop_a\", peer = \"C\" }"),
        AgentKind::GsnoopB => ("C", "{ kind = \"gsnoop_b\", peer = \"B\" }"),
        AgentKind::Arq => ("B", "{ kind = \"arq\", peer = \"C\" }"),
        AgentKind::Dda => ("C", "{ kind = \"dda\", peer = \"B\" }"),
    }
}

/// The counters of every agent, from the agents themselves.
fn agent_counters_md(s: &mut String) {
    let mut text = String::from(
        "[simulation]\nduration = \"1s\"\n[[link]]\na = \"A\"\nb = \"B\"\nrate = \"1Mbps\"\n\
         delay = \"1ms\"\n[[link]]\na = \"B\"\nb = \"C\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\n\
         [[flow]]\nfrom = \"A\"\nto = \"C\"\napp = { kind = \"bulk\" }\n",
    );
    for node in ["B", "C"] {
        let agents: Vec<_> = AGENT_KINDS
            .iter()
            .map(|&k| documented(k))
            .filter(|(n, _)| *n == node)
            .map(|(_, table)| table)
            .collect();
        text.push_str(&format!(
            "[[node]]\nname = \"{node}\"\nagents = [{}]\n",
            agents.join(", ")
        ));
    }
    let world = Scenario::from_toml_str(&text, "<agents>")
        .and_then(|sc| sc.build(None))
        .expect("the agents' documentation scenario is valid");
    s.push_str(
        "\nThe counters of each agent (`agent`, `counter`), as the agents define them:\n\n\
         | agent | counter | unit | meaning |\n|---|---|---|---|\n",
    );
    for n in &world.nodes {
        for a in &n.agents {
            for (c, _) in a.counters() {
                s.push_str(&format!(
                    "| `{}` | `{}` | {} | {} |\n",
                    a.name(),
                    c.name,
                    c.unit,
                    c.doc
                ));
            }
        }
    }
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
            columns_of::<SeriesRow<'_>>(),
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
