//! Scenario files: TOML in, a validated [`Scenario`] out, and from it a
//! [`World`] for any seed. Every user mistake becomes one
//! [`ScenarioError`] line: file, line, field, problem.

pub mod budget;
pub mod build;
pub mod expand;
pub mod observe;
pub mod schema;
pub mod spanned;
pub mod units;

use std::borrow::Cow;
use std::fmt;
use std::ops::Range;
use std::path::Path;

use crate::metrics::RunResult;
use crate::sim::TimeNs;
use crate::world::World;

pub use schema::ScenarioFile;

/// The largest scenario file read, in bytes (32 MB). A file of 200,000
/// `[[flow]]` tables is 14 MB and its parse takes about 1.3 GB, so this
/// bounds what reading a file may cost to a few GB, under the default
/// memory budget; larger topologies are written with `count` tables.
/// Reading stops there: `/dev/zero` or an endless pipe is refused, not
/// read whole.
pub const MAX_SCENARIO_FILE_BYTES: u64 = 32_000_000;

/// The error for a file above [`MAX_SCENARIO_FILE_BYTES`] (its file
/// name is the error's own).
pub fn too_large_message() -> String {
    format!(
        "file is larger than {} MB, the most a scenario file may be \
         (write large topologies with count tables: docs/scenario.md#compact-topologies-count)",
        MAX_SCENARIO_FILE_BYTES / 1_000_000
    )
}

/// A mistake in a scenario, located in its file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    pub file: String,
    pub line: Option<usize>,
    /// Dotted path of the offending field, e.g. "flow[0].tcp.variant".
    pub field: String,
    pub message: String,
}

impl ScenarioError {
    /// An error whose parts are as `Display` shows them: a TOML key, a
    /// value, a node name or a path may hold any character, so control
    /// characters in `file`, `field` and `message` are written as their
    /// escapes here, once, and the attributes (`e.field`, Python's
    /// `err.message`) read exactly as the one-line error does.
    pub fn new(
        file: impl AsRef<str>,
        line: Option<usize>,
        field: impl AsRef<str>,
        message: impl AsRef<str>,
    ) -> Self {
        ScenarioError {
            file: escape_controls(file.as_ref()).into_owned(),
            line,
            field: escape_controls(field.as_ref()).into_owned(),
            message: escape_controls(message.as_ref()).into_owned(),
        }
    }
}

/// The error is one line whatever the file holds. [`ScenarioError::new`]
/// has escaped the parts already; a value built with the public fields is
/// escaped here too.
impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", escape_controls(&self.file))?;
        if let Some(l) = self.line {
            write!(f, ":{l}")?;
        }
        if !self.field.is_empty() {
            write!(f, ": {}", escape_controls(&self.field))?;
        }
        write!(f, ": {}", escape_controls(&self.message))
    }
}

/// `s` with each character that breaks or hides a line (the control
/// characters, and U+2028/U+2029, line breaks to Python's `splitlines`)
/// written as its Rust escape: `\n`, `\t`, `\u{7}`.
fn escape_controls(s: &str) -> Cow<'_, str> {
    escape_where(s, |c| c.is_control() || c == '\u{2028}' || c == '\u{2029}')
}

/// `s` with each character for which `escape` holds written as its Rust
/// escape (`\n`, `\u{a0}`), so that a message shows what it is about.
pub(crate) fn escape_where(s: &str, escape: impl Fn(char) -> bool) -> Cow<'_, str> {
    if !s.contains(&escape) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if escape(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Does `c` break or hide text where names are shown (tables, CSV files,
/// capture comments, terminals)? The control characters, the line and
/// paragraph separators, and the zero-width and bidirectional formatting
/// characters (U+200B-U+200F, U+202A-U+202E, U+2060-U+2069, U+FEFF).
pub(crate) fn hides_text(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200B}'..='\u{200F}' | '\u{2028}'..='\u{202E}' | '\u{2060}'..='\u{2069}' | '\u{FEFF}')
}

/// Why a user's name (of a node, `node` true, or a flow) cannot name
/// anything in results, or None. A node name must not hold `->`: link
/// directions are named `A->B`, and nodes `x->y` and `z` gave a link
/// `x->y->z` that `x` and `y->z` give too.
pub(crate) fn name_problem(name: &str, node: bool) -> Option<String> {
    if let Some(c) = name.chars().find(|&c| hides_text(c)) {
        return Some(format!(
            "\"{}\" holds U+{:04X}, which breaks or hides text where names are shown (tables, \
             CSV, captures)",
            escape_where(name, hides_text),
            c as u32
        ));
    }
    if node && name.contains("->") {
        return Some(format!(
            "\"{name}\": a node name must not hold \"->\" (link directions are named \"A->B\")"
        ));
    }
    None
}

impl std::error::Error for ScenarioError {}

/// A parsed and validated scenario.
#[derive(Clone, Debug)]
pub struct Scenario {
    pub file: ScenarioFile,
    pub source_name: String,
    text: String,
    /// Where each table came from, when the file has counted tables.
    members: expand::Members,
}

/// 1-based line of a byte offset.
fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())]
        .bytes()
        .filter(|&b| b == b'\n')
        .count()
        + 1
}

/// Make serde_path_to_error's path read like the file: "flow[0].tcp.mss".
fn tidy_path(path: &str) -> String {
    let p = if path == "." { "" } else { path };
    // serde_path_to_error writes sequence indices as ".0"; show "[0]".
    let mut out = String::with_capacity(p.len());
    // toml's Spanned<T> shows up as an extra path segment: hide it.
    for (i, part) in p
        .split('.')
        .filter(|s| !s.starts_with("$__serde"))
        .enumerate()
    {
        if part.chars().all(|c| c.is_ascii_digit()) && !part.is_empty() {
            out.push_str(&format!("[{part}]"));
        } else {
            if i > 0 && !out.is_empty() {
                out.push('.');
            }
            out.push_str(part);
        }
    }
    out
}

/// The dotted field written on 1-based `line` ("simulation.seed",
/// "link[2].delay"), from the key before its '=' and the last table
/// header above it; "" if the line holds no `key = value`.
fn key_on_line(text: &str, line: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let Some(key) = lines
        .get(line.wrapping_sub(1))
        .and_then(|l| l.split_once('='))
        .map(|(k, _)| k.trim())
        .filter(|k| !k.is_empty() && !k.starts_with('['))
    else {
        return String::new();
    };
    // "[[link]]" -> ("link", true), "[output]" -> ("output", false).
    let table_of = |l: &str| {
        let l = l.trim();
        l.starts_with('[').then(|| {
            let name = l.trim_start_matches('[').trim_end_matches(']').trim();
            (name.to_string(), l.starts_with("[["))
        })
    };
    let above = &lines[..line - 1];
    let table = match above.iter().rev().find_map(|l| table_of(l)) {
        Some((name, true)) => {
            let index = above
                .iter()
                .filter(|l| table_of(l).is_some_and(|(n, array)| array && n == name))
                .count();
            format!("{name}[{}]", index.saturating_sub(1))
        }
        Some((name, false)) => name,
        None => String::new(),
    };
    if table.is_empty() {
        key.to_string()
    } else {
        format!("{table}.{key}")
    }
}

const WHOLE_NUMBER: &str = "a whole number";

/// What a field of serde's Rust number type `rust_type` ("u32", "f64")
/// takes, in the page's words; None for any other type.
fn number_type_in_words(rust_type: &str) -> Option<&'static str> {
    match rust_type {
        "f32" | "f64" => Some("a number"),
        "i8" | "i16" | "i32" | "i64" | "isize" | "u8" | "u16" | "u32" | "u64" | "usize" => {
            Some(WHOLE_NUMBER)
        }
        _ => None,
    }
}

/// The key a field path ends in, as the user wrote it ("flow[0].tcp.mss"
/// -> "mss", "link[0]" -> "link").
fn last_key(field: &str) -> &str {
    let key = field.rsplit('.').next().unwrap_or(field);
    key.split('[').next().unwrap_or(key)
}

/// serde's "invalid type: string \"1e-5\", expected f64" (a number written
/// in quotes) in the project's words: what the field takes, and how to
/// write it (the user's own value without its quotes, if it is a number).
fn number_written_as_string(field: &str, message: &str) -> Option<String> {
    let (value, expected) = message
        .strip_prefix("invalid type: string \"")?
        .rsplit_once("\", expected ")?;
    let what = number_type_in_words(expected)?;
    let whole = what == WHOLE_NUMBER;
    let key = last_key(field);
    let example = if whole { "3" } else { "0.5" };
    let is_number = if whole {
        value.parse::<i64>().is_ok()
    } else {
        value.parse::<f64>().is_ok_and(f64::is_finite)
    };
    Some(if is_number {
        format!("expected {what}, not a string: write {key} = {value} without quotes")
    } else {
        format!("expected {what}, not a string: write it like {key} = {example}, without quotes")
    })
}

/// serde's "invalid type: FOUND, expected EXPECTED", and toml's "wanted
/// string or table" where a kind's name or a table goes, in the page's
/// words (docs/scenario.md, "Quantities"): what the field takes and what
/// was written (`written`: the value's text in the file, when the error
/// has its place). A string where a number goes is
/// [`number_written_as_string`]'s.
fn wrong_kind_in_words(field: &str, message: &str, written: Option<&str>) -> Option<String> {
    let written = written.map(str::trim).filter(|w| !w.is_empty());
    let (found, expected) = if message == "wanted string or table" {
        (None, "a name in quotes or a table".to_string())
    } else {
        let (found, expected) = message
            .strip_prefix("invalid type: ")?
            .rsplit_once(", expected ")?;
        let expected = match (number_type_in_words(expected), expected) {
            (Some(number), _) => number.to_string(),
            (None, "a boolean") => "true or false".to_string(),
            (None, e) if e.starts_with("struct ") => "a table".to_string(),
            (None, e) if e.starts_with('"') => format!("a string like {e}"),
            (None, e) => e.to_string(),
        };
        (Some(found), expected)
    };
    let found = match (written, found) {
        (Some(w), _) => written_kind(w),
        (None, Some(f)) => serde_found_kind(f),
        (None, None) => return Some(format!("expected {expected}")),
    };
    let mut words = format!("expected {expected}, found {found}");
    // A whole number written with a fraction of zero: say how to write it.
    if expected == WHOLE_NUMBER {
        if let Some(whole) = found
            .parse::<f64>()
            .ok()
            .filter(|v| v.fract() == 0.0 && v.abs() < 1e15)
        {
            words.push_str(&format!(": write {} = {whole}", last_key(field)));
        }
    }
    Some(words)
}

/// What a value written in the file is, for an error: a table, a list or a
/// date by its kind, any other value as written.
fn written_kind(written: &str) -> String {
    let number = written.replace('_', "");
    let is_number = number.parse::<f64>().is_ok()
        || ["inf", "+inf", "-inf", "nan", "+nan", "-nan"].contains(&written)
        || number.starts_with("0x")
        || number.starts_with("0o")
        || number.starts_with("0b");
    match written.chars().next() {
        Some('{') => "a table".to_string(),
        Some('[') => "a list".to_string(),
        Some(c) if c.is_ascii_digit() && !is_number => "a date".to_string(),
        _ => written.to_string(),
    }
}

/// What serde says it found ("floating point `2.5`", "map", ...), for an
/// error without a place in the file.
fn serde_found_kind(found: &str) -> String {
    if let Some((_, value)) = found.split_once(" `") {
        return value.trim_end_matches('`').to_string();
    }
    match found {
        "map" => "a table or a date".to_string(),
        "sequence" => "a list".to_string(),
        f => f.to_string(),
    }
}

/// A seed written as an integer of 2^64 or more on 1-based `line`: no way
/// of writing it helps (from 2^63 to 2^64 - 1 a string does), so the error
/// gives the range. None for any other value.
fn seed_beyond_u64(text: &str, line: Option<usize>) -> Option<String> {
    let written = text
        .lines()
        .nth(line?.checked_sub(1)?)?
        .split_once('=')?
        .1
        .split('#')
        .next()?
        .trim()
        .replace('_', "");
    let digits = !written.is_empty() && written.bytes().all(|b| b.is_ascii_digit());
    (digits && written.parse::<u64>().is_err())
        .then(|| format!("a seed must be an integer in [0, 2^64), got {written}"))
}

/// One line of a toml error message (they can span several lines).
fn first_line(msg: &str) -> String {
    msg.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

impl Scenario {
    /// Parse and validate a scenario held in `text`; `source_name` names it
    /// in errors (a path, or "<dict>").
    pub fn from_toml_str(text: &str, source_name: &str) -> Result<Self, ScenarioError> {
        Self::load(text, source_name, None).map(|(sc, _)| sc)
    }

    /// Parse and validate a scenario, and return it with the world built
    /// for `seed` (None: the file's seed). Validation is building: the
    /// world comes at no extra cost, ready for the first run.
    pub fn load(
        text: &str,
        source_name: &str,
        seed: Option<u64>,
    ) -> Result<(Self, World), ScenarioError> {
        let de = toml::Deserializer::new(text);
        let file: ScenarioFile = serde_path_to_error::deserialize(de).map_err(|e| {
            // A key holding a newline (`"a\nb" = 0`) is named as written
            // (escaped by ScenarioError::new).
            let mut field = tidy_path(&e.path().to_string());
            let inner = e.into_inner();
            // An unknown first key of a table TOML made implicitly is read
            // before the path knows it (spanned.rs): name it as any other.
            if let Some(key) = inner
                .message()
                .strip_prefix("unknown field `")
                .and_then(|m| m.split_once('`'))
                .map(|(k, _)| k)
            {
                if !field.is_empty() && field != key && !field.ends_with(&format!(".{key}")) {
                    field = format!("{field}.{key}");
                }
            }
            // An error inside a table TOML made implicitly (`[flow.tcp.kick]`
            // without `[flow.tcp]`) may come without a place: find it from
            // the field's path.
            let line = inner
                .span()
                .map(|s| s.start)
                .or_else(|| spanned::offset_of_path(text, &field))
                .map(|o| line_of(text, o));
            // A syntax error's message spans lines (what was expected
            // below it): join them. A line break in any other message is
            // the user's own key or value: it is escaped.
            let mut message = if field.is_empty() {
                first_line(inner.message())
            } else {
                inner.message().to_string()
            };
            let written = inner.span().and_then(|s| text.get(s));
            if let Some(better) = number_written_as_string(&field, &message)
                .or_else(|| wrong_kind_in_words(&field, &message, written))
            {
                message = better;
            }
            if field.is_empty() {
                // A syntax error (e.g. an integer beyond TOML's i64) comes
                // without a path: name the key written on that line.
                field = line.map_or(String::new(), |l| key_on_line(text, l));
                if field == "simulation.seed" && message.contains("number") {
                    match seed_beyond_u64(text, line) {
                        Some(range) => message = range,
                        None => message.push_str(
                            "; a seed of 2^63 or more is written as a string, e.g. seed = \"18446744073709551615\"",
                        ),
                    }
                }
            }
            ScenarioError::new(source_name, line, field, message)
        })?;
        let sc = Scenario {
            file,
            source_name: source_name.to_string(),
            text: text.to_string(),
            members: expand::Members::default(),
        };
        // Building checks the memory budget, counts, names, routes and
        // parameters; then what the scenario asks to observe.
        let world = sc.build(seed)?;
        sc.observe_plan(&world, &observe::ObserveRequest::default())?;
        Ok((sc, world))
    }

    /// A scenario read from a file of at most [`MAX_SCENARIO_FILE_BYTES`]
    /// (a longer one, `/dev/zero` or an endless pipe is refused once that
    /// much is read, never read whole).
    pub fn from_path(path: impl AsRef<Path>) -> Result<Self, ScenarioError> {
        use std::io::Read;

        let p = path.as_ref();
        let name = p.display().to_string();
        let cannot = |e: std::io::Error| {
            ScenarioError::new(&name, None, "", format!("cannot read file: {e}"))
        };
        let mut bytes = Vec::new();
        std::fs::File::open(p)
            .and_then(|f| f.take(MAX_SCENARIO_FILE_BYTES + 1).read_to_end(&mut bytes))
            .map_err(cannot)?;
        if bytes.len() as u64 > MAX_SCENARIO_FILE_BYTES {
            return Err(ScenarioError::new(&name, None, "", too_large_message()));
        }
        let text = String::from_utf8(bytes).map_err(|e| {
            let line = e.as_bytes()[..e.utf8_error().valid_up_to()]
                .iter()
                .filter(|&&b| b == b'\n')
                .count()
                + 1;
            ScenarioError::new(&name, Some(line), "", "file is not valid UTF-8")
        })?;
        Self::from_toml_str(&text, &name)
    }

    pub fn default_seed(&self) -> u64 {
        self.file.simulation.seed.0
    }

    pub fn duration_ns(&self) -> TimeNs {
        self.file.simulation.duration.get_ref().0
    }

    /// Whether any component draws random numbers: an error table other
    /// than a drop list, a RED-family queue, a stall process, a
    /// repeated-download or on/off app, or a TCP flow's random RTT-clock
    /// phase (`rtt_tick_phase = "random"`). Without one every seed gives
    /// the same run, so running several seeds is pointless (the front ends
    /// warn).
    pub fn uses_randomness(&self) -> bool {
        use schema::{AppKind, ErrorKind, QueueKind, RttTickPhaseSpec};
        let f = &self.file;
        let random_error = |e: Option<&spanned::Spanned<schema::ErrorSpec>>| {
            e.is_some_and(|e| e.get_ref().kind != ErrorKind::DropList)
        };
        let random_queue = |q: Option<&spanned::Spanned<schema::QueueSpec>>| {
            q.is_some_and(|q| {
                matches!(
                    q.get_ref().kind,
                    QueueKind::Red | QueueKind::Mecn | QueueKind::Wmecn
                )
            })
        };
        let link_random = f.link.iter().any(|l| {
            l.stall.is_some()
                || random_error(l.error.as_deref())
                || random_queue(l.queue.as_deref())
                || [&l.a_to_b, &l.b_to_a]
                    .into_iter()
                    .flatten()
                    .any(|d| random_error(d.error.as_ref()) || random_queue(d.queue.as_ref()))
        });
        let app_random = f
            .flow
            .iter()
            .any(|fl| matches!(fl.app.get_ref().kind, AppKind::Repeated | AppKind::Onoff));
        let tcp_random = f.flow.iter().any(|fl| {
            fl.tcp
                .as_ref()
                .is_some_and(|t| t.get_ref().rtt_tick_phase == Some(RttTickPhaseSpec::Random))
        });
        link_random || app_random || tcp_random
    }

    /// An error located at `span` in the file.
    pub(crate) fn error_at(
        &self,
        span: Option<Range<usize>>,
        field: impl Into<String>,
        message: impl Into<String>,
    ) -> ScenarioError {
        let field = self.members.user_field(&field.into());
        // A table TOML made implicitly has no place of its own: the line
        // is found from the field's path.
        let offset = match span {
            Some(s) if s == spanned::IMPLICIT_SPAN => spanned::offset_of_path(&self.text, &field),
            s => s.map(|s| s.start),
        };
        ScenarioError::new(
            &self.source_name,
            offset.map(|o| line_of(&self.text, o)),
            field,
            message.into(),
        )
    }

    /// An error about `field`, located by its path in the file (for what
    /// has no span of its own: a name, a table holding nothing).
    pub(crate) fn error_at_path(
        &self,
        field: impl Into<String>,
        message: impl Into<String>,
    ) -> ScenarioError {
        self.error_at(Some(spanned::IMPLICIT_SPAN), field, message)
    }

    /// Build a world for `seed` (None: the file's seed).
    pub fn build(&self, seed: Option<u64>) -> Result<World, ScenarioError> {
        let seed = seed.unwrap_or(self.default_seed());
        // Estimate memory (of the expanded tables) before allocating it.
        let built = |sc: &Scenario| -> Result<World, ScenarioError> {
            let max_packets = budget::check(sc)?;
            let mut world = build::build_world(sc, seed)?;
            world.limit_packets(max_packets);
            Ok(world)
        };
        match expand::expand(self)? {
            Some(members) => built(&members),
            None => built(self),
        }
    }

    /// Refuse `runs` runs of this scenario in one command if their
    /// results, all kept until it ends, would exceed the memory budget
    /// (`budget::check_runs`); the counted tables are expanded first.
    pub fn check_runs(&self, runs: u64) -> Result<(), ScenarioError> {
        if runs <= 1 {
            return Ok(());
        }
        match expand::expand(self)? {
            Some(members) => budget::check_runs(&members, runs),
            None => budget::check_runs(self, runs),
        }
    }

    /// The error of a run of this scenario that `world` stopped because
    /// its packets outgrew the memory budget, if it did.
    pub fn overrun_error(&self, world: &World) -> Option<ScenarioError> {
        budget::overrun_error(self, world)
    }

    /// Number of links, counted tables counting their members.
    pub fn link_count(&self) -> usize {
        expand::members(
            self.file
                .link
                .iter()
                .map(|l| l.count.as_ref().map(|c| *c.get_ref() as u64)),
        )
    }

    /// Number of flows, counted tables counting their members.
    pub fn flow_count(&self) -> usize {
        expand::members(
            self.file
                .flow
                .iter()
                .map(|f| f.count.as_ref().map(|c| *c.get_ref() as u64)),
        )
    }

    /// Build and run to the end.
    pub fn run(&self, seed: Option<u64>) -> Result<RunResult, ScenarioError> {
        let mut world = self.build(seed)?;
        let result = world.run(|_| true);
        match self.overrun_error(&world) {
            Some(e) => Err(e),
            None => Ok(result),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tidy_paths() {
        assert_eq!(tidy_path("flow.0.tcp.variant"), "flow[0].tcp.variant");
        assert_eq!(tidy_path("."), "");
        assert_eq!(tidy_path("link.12.a_to_b.error"), "link[12].a_to_b.error");
    }
}
