//! docs/scenario.md documents every field and every named value the
//! scenario parser accepts, in the section of its table, and names no field
//! or kind the parser does not accept.
//!
//! The parser lists what it accepts itself: every table rejects unknown
//! keys, and serde's error for an unknown key (or an unknown variant of a
//! named value) lists the expected ones. So the test feeds each table a key
//! that is no field, reads the list, and walks into every field that is
//! itself a table, an array of tables or a named value. A field added to
//! `scenario/schema.rs` without a line in the page fails here, with no list
//! in this test to keep up to date; only a new *table* needs a line in
//! `SECTIONS` if it should be documented under its own heading (otherwise
//! it is looked for under its top-level table's heading).

use std::collections::BTreeSet;

use airtcp_core::scenario::Scenario;

mod common;
use common::one_link;

/// A key that is no field and a value that is no variant of anything.
const PROBE: &str = "zzz_not_a_field";

const DOC: &str = include_str!("../../../docs/scenario.md");

/// One step into a scenario file: a key of a table, or the first element of
/// an array of tables.
#[derive(Clone, Debug)]
enum Step {
    Key(String),
    First,
}

/// How the page writes the path of a table: "flow.tcp.cc", "node.agents".
fn dotted(path: &[Step]) -> String {
    path.iter()
        .filter_map(|s| match s {
            Step::Key(k) => Some(k.as_str()),
            Step::First => None,
        })
        .collect::<Vec<_>>()
        .join(".")
}

/// A file holding only `leaf` at `path`, written as inline tables (a
/// table header such as `[flow.tcp.kick]` would leave `tcp` an implicit
/// table, which the parser's spanned tables do not take). Missing required
/// fields are reported after the unknown key, so nothing else is needed.
fn file_with(path: &[Step], leaf: &str) -> String {
    let mut v = leaf.to_string();
    for step in path.iter().skip(1).rev() {
        v = match step {
            Step::Key(k) => format!("{{ {k} = {v} }}"),
            Step::First => format!("[{v}]"),
        };
    }
    match path.first() {
        None => format!("{PROBE} = 1\n"),
        Some(Step::Key(k)) => format!("{k} = {v}\n"),
        Some(Step::First) => unreachable!("a scenario is a table"),
    }
}

/// The names serde lists after "unknown `what` `PROBE`, ": "expected one of
/// `a`, `b`", "expected `a` or `b`", "expected `a`"; None if the message is
/// another one (the value at `path` is no table, or no named value).
fn expected_names(path: &[Step], leaf: &str, what: &str) -> Option<Vec<String>> {
    let text = file_with(path, leaf);
    let err = Scenario::from_toml_str(&text, "probe.toml").err()?;
    let rest = err
        .message
        .strip_prefix(&format!("unknown {what} `{PROBE}`, "))?;
    let names: Vec<String> = rest
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect();
    assert!(
        !names.is_empty(),
        "{}: no names in \"{}\"",
        dotted(path),
        err.message
    );
    Some(names)
}

/// Everything the parser accepts: each table's fields and each named
/// value's variants, by dotted path.
#[derive(Default)]
struct Accepted {
    tables: Vec<(String, Vec<String>)>,
    values: Vec<(String, Vec<String>)>,
}

/// A table with one key that is no field.
fn probe_table() -> String {
    format!("{{ {PROBE} = 1 }}")
}

fn walk(path: Vec<Step>, found: &mut Accepted) {
    let mut first = path.clone();
    first.push(Step::First);
    let table = expected_names(&path, &probe_table(), "field")
        .map(|f| (path.clone(), f))
        .or_else(|| expected_names(&first, &probe_table(), "field").map(|f| (first, f)));
    if let Some((at, fields)) = table {
        found.tables.push((dotted(&at), fields.clone()));
        for f in fields {
            let mut next = at.clone();
            next.push(Step::Key(f));
            walk(next, found);
        }
        return;
    }
    if let Some(variants) = expected_names(&path, &format!("\"{PROBE}\""), "variant") {
        found.values.push((dotted(&path), variants));
    }
}

fn accepted() -> Accepted {
    let mut found = Accepted::default();
    walk(Vec::new(), &mut found);
    found
}

/// The heading under which a table's fields are documented: the most
/// specific entry whose path is a prefix of the table's (a field inside a
/// per-direction override, `link.a_to_b.queue`, is the `queue` table's:
/// entries match any path containing their last segment after their
/// first). Unlisted tables belong to their top-level table's section.
const SECTIONS: &[(&str, &str)] = &[
    ("simulation", "## `[simulation]`"),
    ("node", "## `[[node]]`"),
    ("link", "## `[[link]]`"),
    ("link.queue", "### Queue tables"),
    ("link.error", "### Error tables"),
    ("link.stall", "### Stalls (`stall`)"),
    ("flow", "## `[[flow]]`"),
    ("flow.app", "### Application tables"),
    ("flow.tcp", "### TCP table"),
    ("flow.tcp.cc", "### Congestion controllers (`cc`)"),
    ("flow.tcp.classifier", "### Loss classifiers (`classifier`)"),
    ("flow.tcp.kick", "### Kick TCP (`kick`)"),
    ("output", "## `[output]`"),
    ("capture", "## `[[capture]]`"),
    ("trace", "## `[trace]`"),
];

fn section_heading(table: &str) -> &'static str {
    let segments: Vec<&str> = table.split('.').collect();
    SECTIONS
        .iter()
        .filter(|(p, _)| {
            let p: Vec<&str> = p.split('.').collect();
            // "link.queue" matches link.queue and link.a_to_b.queue.
            segments.first() == p.first()
                && (p.len() == 1 || segments[1..].contains(p.last().unwrap()))
        })
        .max_by_key(|(p, _)| p.len())
        .map_or_else(
            || panic!("{table}: no section in SECTIONS for its top-level table"),
            |(_, h)| *h,
        )
}

/// The page's lines, with the heading level of each (0: not a heading; a
/// `#` line inside a fenced block is a comment, not a heading).
fn lines_with_levels() -> Vec<(&'static str, usize)> {
    let mut fenced = false;
    DOC.lines()
        .map(|l| {
            if l.starts_with("```") {
                fenced = !fenced;
            }
            let hashes = l.len() - l.trim_start_matches('#').len();
            let heading = !fenced && hashes > 0 && l[hashes..].starts_with(' ');
            (l, if heading { hashes } else { 0 })
        })
        .collect()
}

/// The text of the section under `heading` (a heading line starting with
/// it), to the next heading of the same or a higher level.
fn section(heading: &str) -> String {
    let lines = lines_with_levels();
    let level = heading.split(' ').next().unwrap().len();
    let start = lines
        .iter()
        .position(|(l, lv)| *lv == level && l.starts_with(heading))
        .unwrap_or_else(|| panic!("docs/scenario.md has no heading \"{heading}\""));
    lines[start..]
        .iter()
        .enumerate()
        .take_while(|(k, (_, lv))| *k == 0 || *lv == 0 || *lv > level)
        .map(|(_, (l, _))| *l)
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every field of every table is named, as `name`, in its table's section.
#[test]
fn every_accepted_field_is_documented_in_its_section() {
    let found = accepted();
    // The walk reaches the nested tables (a sanity check that it walks).
    for t in ["flow.tcp.classifier", "node.agents", "link.a_to_b.error"] {
        assert!(
            found.tables.iter().any(|(p, _)| p == t),
            "the walk did not reach {t}"
        );
    }
    let mut missing = Vec::new();
    for (table, fields) in &found.tables {
        if table.is_empty() {
            // The top-level tables are the page's headings.
            for f in fields {
                let heads = [format!("## `[{f}]`"), format!("## `[[{f}]]`")];
                if !lines_with_levels()
                    .iter()
                    .any(|(l, lv)| *lv == 2 && heads.iter().any(|h| l.starts_with(h.as_str())))
                {
                    missing.push(format!("[{f}]: no heading \"## `[{f}]`\""));
                }
            }
            continue;
        }
        let heading = section_heading(table);
        let text = section(heading);
        for f in fields {
            if !text.contains(&format!("`{f}`")) {
                missing.push(format!(
                    "{table}.{f}: not named as `{f}` under \"{heading}\""
                ));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "docs/scenario.md leaves out fields the parser accepts:\n{}",
        missing.join("\n")
    );
}

/// Every named value (a `kind`, `variant`, `applies_to`, ...) is spelled
/// out, as `"value"` or `value`, in its table's section.
#[test]
fn every_accepted_value_is_documented_in_its_section() {
    let found = accepted();
    assert!(
        found.values.iter().any(|(p, _)| p == "flow.tcp.variant"),
        "the walk found no named values"
    );
    let mut missing = Vec::new();
    for (field, variants) in &found.values {
        let table = field.rsplit_once('.').map_or("", |(t, _)| t);
        let heading = section_heading(if table.is_empty() { field } else { table });
        let text = section(heading);
        for v in variants {
            if !text.contains(&format!("\"{v}\"")) && !text.contains(&format!("`{v}`")) {
                missing.push(format!("{field} = \"{v}\": not under \"{heading}\""));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "docs/scenario.md leaves out values the parser accepts:\n{}",
        missing.join("\n")
    );
}

/// The other way round: the names in the first column of the page's field
/// tables (`| field | ...`) are fields, and those of its kind tables
/// (`| kind | ...`) are values, as the parser spells them.
#[test]
fn every_documented_field_and_kind_is_accepted() {
    let found = accepted();
    let fields: BTreeSet<&str> = found
        .tables
        .iter()
        .flat_map(|(_, f)| f.iter().map(String::as_str))
        .collect();
    let values: BTreeSet<&str> = found
        .values
        .iter()
        .flat_map(|(_, v)| v.iter().map(String::as_str))
        .collect();
    let mut unknown = Vec::new();
    let mut checked = 0;
    let mut column: Option<&str> = None;
    for line in DOC.lines() {
        if !line.starts_with('|') {
            column = None;
            continue;
        }
        let first = line.split('|').nth(1).unwrap_or("").trim();
        match column {
            None => {
                column = Some(match first {
                    "field" => "field",
                    "kind" => "kind",
                    _ => "other",
                });
                continue;
            }
            Some("field") | Some("kind") if !first.starts_with("---") => {}
            _ => continue,
        }
        let known = if column == Some("field") {
            &fields
        } else {
            &values
        };
        // `a`, `b`; `kick.interval` (a duration): every backticked name,
        // and each part of a dotted one.
        for name in first.split('`').skip(1).step_by(2) {
            for part in name.split('.') {
                checked += 1;
                if !known.contains(part) {
                    unknown.push(format!("{part} (in \"{line}\")"));
                }
            }
        }
    }
    assert!(checked > 50, "only {checked} names found in the tables");
    assert!(
        unknown.is_empty(),
        "docs/scenario.md names fields or kinds the parser does not accept:\n{}",
        unknown.join("\n")
    );
}

/// A scenario with `line` written into the table `table` (a dotted path
/// as the walk names tables).
fn scenario_with(table: &str, line: &str) -> String {
    let (link, tcp, flow, output) = match table {
        "link" => (line, "", "", ""),
        "flow.tcp" => ("", line, "", ""),
        "flow" => ("", "", line, ""),
        "output" => ("", "", "", line),
        other => panic!("no place for a `{line}` of table {other} in scenario_with"),
    };
    one_link("", link, tcp, &format!("{flow}\n\n[output]\n{output}\n"))
}

/// The page's inline examples of a table field (`` `stall = { ... }` ``,
/// in its text and tables) are accepted where that field belongs, as the
/// page writes them. (Its fenced TOML blocks are run by
/// tests/python/test_docs_examples.py.)
#[test]
fn every_inline_table_example_is_accepted() {
    let found = accepted();
    let mut checked = Vec::new();
    // The text outside fenced blocks.
    let mut fenced = false;
    let prose: String = DOC
        .lines()
        .filter(|l| {
            fenced ^= l.starts_with("```");
            !fenced && !l.starts_with("```")
        })
        .collect::<Vec<_>>()
        .join("\n");
    for snippet in prose.split('`').skip(1).step_by(2) {
        let Some((key, value)) = snippet.split_once(" = ") else {
            continue;
        };
        if !value.starts_with('{') || value.contains("...") || key.contains(' ') {
            continue;
        }
        let table = found
            .tables
            .iter()
            .find(|(_, fields)| fields.iter().any(|f| f == key))
            .map(|(t, _)| t.as_str())
            .unwrap_or_else(|| panic!("`{snippet}`: no table takes `{key}`"));
        let text = scenario_with(table, snippet);
        if let Err(e) = airtcp_core::scenario::Scenario::from_toml_str(&text, "example.toml") {
            panic!("docs/scenario.md's `{snippet}` is refused: {e}\n{text}");
        }
        checked.push(key);
    }
    for key in ["stall", "kick", "cc", "timeseries"] {
        assert!(
            checked.contains(&key),
            "no `{key} = {{ ... }}` example checked"
        );
    }
}
