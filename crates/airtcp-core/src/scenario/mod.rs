//! Scenario files: TOML in, a validated [`Scenario`] out, and from it a
//! [`World`] for any seed. Every user mistake becomes one
//! [`ScenarioError`] line: file, line, field, problem.

pub mod build;
pub mod expand;
pub mod observe;
pub mod schema;
pub mod units;

use std::fmt;
use std::ops::Range;
use std::path::Path;

use crate::metrics::RunResult;
use crate::sim::TimeNs;
use crate::world::World;

pub use schema::ScenarioFile;

/// A mistake in a scenario, located in its file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    pub file: String,
    pub line: Option<usize>,
    /// Dotted path of the offending field, e.g. "flow[0].tcp.variant".
    pub field: String,
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(l) = self.line {
            write!(f, ":{l}")?;
        }
        if !self.field.is_empty() {
            write!(f, ": {}", self.field)?;
        }
        write!(f, ": {}", self.message)
    }
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
            let field = tidy_path(&e.path().to_string());
            let inner = e.into_inner();
            ScenarioError {
                file: source_name.to_string(),
                line: inner.span().map(|s| line_of(text, s.start)),
                field,
                message: first_line(inner.message()),
            }
        })?;
        let sc = Scenario {
            file,
            source_name: source_name.to_string(),
            text: text.to_string(),
            members: expand::Members::default(),
        };
        // Building checks counts, names, routes and parameters; then what
        // the scenario asks to observe.
        let world = sc.build(seed)?;
        sc.observe_plan(&world, &observe::ObserveRequest::default())?;
        Ok((sc, world))
    }

    pub fn from_path(path: impl AsRef<Path>) -> Result<Self, ScenarioError> {
        let p = path.as_ref();
        let text = std::fs::read_to_string(p).map_err(|e| ScenarioError {
            file: p.display().to_string(),
            line: None,
            field: String::new(),
            message: format!("cannot read file: {e}"),
        })?;
        Self::from_toml_str(&text, &p.display().to_string())
    }

    pub fn default_seed(&self) -> u64 {
        self.file.simulation.seed
    }

    pub fn duration_ns(&self) -> TimeNs {
        self.file.simulation.duration.get_ref().0
    }

    /// An error located at `span` in the file.
    pub(crate) fn error_at(
        &self,
        span: Option<Range<usize>>,
        field: impl Into<String>,
        message: impl Into<String>,
    ) -> ScenarioError {
        ScenarioError {
            file: self.source_name.clone(),
            line: span.map(|s| line_of(&self.text, s.start)),
            field: self.members.user_field(&field.into()),
            message: message.into(),
        }
    }

    /// Build a world for `seed` (None: the file's seed).
    pub fn build(&self, seed: Option<u64>) -> Result<World, ScenarioError> {
        let seed = seed.unwrap_or(self.default_seed());
        match expand::expand(self)? {
            Some(members) => build::build_world(&members, seed),
            None => build::build_world(self, seed),
        }
    }

    /// Number of links, counted tables counting their members.
    pub fn link_count(&self) -> usize {
        expand::members(
            self.file
                .link
                .iter()
                .map(|l| l.count.as_ref().map(|c| *c.get_ref())),
        )
    }

    /// Number of flows, counted tables counting their members.
    pub fn flow_count(&self) -> usize {
        expand::members(
            self.file
                .flow
                .iter()
                .map(|f| f.count.as_ref().map(|c| *c.get_ref())),
        )
    }

    /// Build and run to the end.
    pub fn run(&self, seed: Option<u64>) -> Result<RunResult, ScenarioError> {
        Ok(self.build(seed)?.run(|_| true))
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
