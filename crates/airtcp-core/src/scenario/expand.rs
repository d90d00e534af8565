//! Compact topologies: a `[[node]]`, `[[link]]` or `[[flow]]` table with
//! `count = N` stands for N members, numbered i = 0 .. N-1; `{i}` in its
//! node names (and a flow's name) is replaced by the member's number, `{i+K}`
//! and `{i-K}` by that number plus or minus K (a chain: `a = "n{i}"`,
//! `b = "n{i+1}"`), and a flow's `stagger` starts member i at
//! `start + i × stagger`. Expansion
//! happens right after parsing, so the rest of the scenario code sees
//! ordinary tables; errors still name the member (`flow[1][i=17].to`) and
//! point at the line of its table.

use super::spanned::Spanned;

use super::units::Duration;
use super::{Scenario, ScenarioError};

/// The placeholder replaced by a member's number (also `{i+K}`, `{i-K}`).
pub const INDEX: &str = "{i}";
/// How every placeholder starts.
const PLACEHOLDER: &str = "{i";

/// At most this many members in all (a typo such as `count = 1e9` is an
/// error, not an allocation that takes the machine down).
pub const MAX_MEMBERS: u64 = 1_000_000;

/// Where each expanded table came from: (its index in the file, its member
/// number if the table had a count), per table kind. Empty when nothing is
/// counted (expanded index = file index).
#[derive(Clone, Debug, Default)]
pub struct Members {
    pub node: Vec<(u32, Option<u32>)>,
    pub link: Vec<(u32, Option<u32>)>,
    pub flow: Vec<(u32, Option<u32>)>,
}

impl Members {
    /// `field` as the user wrote it: "link[7].queue" of the expanded tables
    /// becomes "link[2][i=5].queue".
    pub fn user_field(&self, field: &str) -> String {
        for (table, map) in [
            ("node", &self.node),
            ("link", &self.link),
            ("flow", &self.flow),
        ] {
            let Some(rest) = field.strip_prefix(table).and_then(|r| r.strip_prefix('[')) else {
                continue;
            };
            let Some(close) = rest.find(']') else {
                continue;
            };
            let Some(&(file_index, member)) =
                rest[..close].parse::<usize>().ok().and_then(|k| map.get(k))
            else {
                continue;
            };
            let member = member.map_or(String::new(), |m| format!("[i={m}]"));
            return format!("{table}[{file_index}]{member}{}", &rest[close + 1..]);
        }
        field.to_string()
    }
}

/// `template` with each `{i}`, `{i+K}` and `{i-K}` replaced by `i`, `i + K`
/// and `i - K`; the problem if a placeholder is malformed or negative.
pub fn substitute(template: &str, i: u64) -> Result<String, String> {
    let mut out = String::with_capacity(template.len() + 8);
    let mut rest = template;
    while let Some(at) = rest.find(PLACEHOLDER) {
        out.push_str(&rest[..at]);
        let tail = &rest[at + PLACEHOLDER.len()..];
        let close = tail.find('}');
        let whole = &rest[at..at + PLACEHOLDER.len() + close.map_or(tail.len(), |c| c + 1)];
        let malformed = || format!("\"{whole}\": a placeholder is {{i}}, {{i+K}} or {{i-K}}");
        let close = close.ok_or_else(malformed)?;
        let offset = &tail[..close];
        let k = || -> Result<u64, String> {
            let digits = &offset[1..];
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return Err(malformed());
            }
            digits.parse::<u64>().map_err(|_| malformed())
        };
        let value = match offset.as_bytes().first() {
            None => i,
            Some(b'+') => i.checked_add(k()?).ok_or_else(malformed)?,
            Some(b'-') => i
                .checked_sub(k()?)
                .ok_or_else(|| format!("\"{whole}\" is negative for member i={i}"))?,
            Some(_) => return Err(malformed()),
        };
        out.push_str(&value.to_string());
        rest = &tail[close + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// `sc` with every counted table replaced by its members, recording where
/// each came from in `members`; None if nothing is counted (after checking
/// that no name has a stray `{i}`). The members live only while a world is
/// built: a scenario keeps its compact form.
pub(super) fn expand(sc: &Scenario) -> Result<Option<Scenario>, ScenarioError> {
    let f = &sc.file;
    let counted = f.node.iter().any(|n| n.count.is_some())
        || f.link.iter().any(|l| l.count.is_some())
        || f.flow.iter().any(|l| l.count.is_some());
    // A placeholder without a count, or a stagger without one, is a mistake.
    let stray = |name: &Spanned<String>, field: String| -> Result<(), ScenarioError> {
        if name.get_ref().contains(PLACEHOLDER) {
            return Err(sc.error_at(
                Some(name.span()),
                field,
                format!("\"{INDEX}\" in a name needs a count in the same table"),
            ));
        }
        Ok(())
    };
    // A member's name, or an error naming the member's field.
    let named = |template: &Spanned<String>, i: u64, table: &str, what: &str| {
        substitute(template.get_ref(), i)
            .map(|name| Spanned::new(template.span(), name))
            .map_err(|msg| {
                sc.error_at(Some(template.span()), format!("{table}[i={i}].{what}"), msg)
            })
    };
    let mut total = 0u64;
    let mut count_of =
        |count: &Option<Spanned<i64>>, field: String| -> Result<u64, ScenarioError> {
            let Some(c) = count else { return Ok(1) };
            let err = |msg: String| Err(sc.error_at(Some(c.span()), field.clone(), msg));
            if *c.get_ref() < 1 {
                return err("must be at least 1".into());
            }
            let n = *c.get_ref() as u64;
            total = total.saturating_add(n);
            if total > MAX_MEMBERS {
                return err(format!(
                    "too many members: at most {MAX_MEMBERS} in all the counted tables"
                ));
            }
            Ok(n)
        };

    let mut nodes = Vec::new();
    let mut node_members = Vec::new();
    for (t, n) in f.node.iter().enumerate() {
        let field = format!("node[{t}]");
        let members = count_of(&n.count, format!("{field}.count"))?;
        if n.count.is_none() {
            stray(&n.name, format!("{field}.name"))?;
            for (j, a) in n.agents.iter().enumerate() {
                if let Some(p) = &a.get_ref().peer {
                    stray(p, format!("{field}.agents[{j}].peer"))?;
                }
            }
        } else if !n.name.get_ref().contains(PLACEHOLDER) {
            return Err(sc.error_at(
                Some(n.name.span()),
                format!("{field}.name"),
                format!("a counted node needs \"{INDEX}\" in its name"),
            ));
        }
        if !counted {
            continue;
        }
        for i in 0..members {
            let mut m = n.clone();
            m.count = None;
            m.name = named(&n.name, i, &field, "name")?;
            for (j, a) in m.agents.iter_mut().enumerate() {
                let span = a.span();
                let mut agent = a.get_ref().clone();
                if let Some(p) = &agent.peer {
                    agent.peer = Some(named(p, i, &field, &format!("agents[{j}].peer"))?);
                }
                *a = Spanned::new(span, agent);
            }
            nodes.push(m);
            node_members.push((t as u32, n.count.as_ref().map(|_| i as u32)));
        }
    }

    let mut links = Vec::new();
    let mut link_members = Vec::new();
    for (t, l) in f.link.iter().enumerate() {
        let field = format!("link[{t}]");
        let members = count_of(&l.count, format!("{field}.count"))?;
        if l.count.is_none() {
            stray(&l.a, format!("{field}.a"))?;
            stray(&l.b, format!("{field}.b"))?;
        }
        if !counted {
            continue;
        }
        for i in 0..members {
            let mut m = l.clone();
            m.count = None;
            m.a = named(&l.a, i, &field, "a")?;
            m.b = named(&l.b, i, &field, "b")?;
            links.push(m);
            link_members.push((t as u32, l.count.as_ref().map(|_| i as u32)));
        }
    }

    let mut flows = Vec::new();
    let mut flow_members = Vec::new();
    for (t, fl) in f.flow.iter().enumerate() {
        let field = format!("flow[{t}]");
        let members = count_of(&fl.count, format!("{field}.count"))?;
        if fl.count.is_none() {
            stray(&fl.from, format!("{field}.from"))?;
            stray(&fl.to, format!("{field}.to"))?;
            if fl.name.as_ref().is_some_and(|n| n.contains(PLACEHOLDER)) {
                return Err(sc.error_at(
                    Some(fl.from.span()),
                    format!("{field}.name"),
                    format!("\"{INDEX}\" in a name needs a count in the same table"),
                ));
            }
            if let Some(s) = &fl.stagger {
                return Err(sc.error_at(
                    Some(s.span()),
                    format!("{field}.stagger"),
                    "stagger needs a count in the same table",
                ));
            }
        }
        if !counted {
            continue;
        }
        let start_ns = fl.start.as_ref().map_or(0, |d| d.get_ref().0);
        let stagger_ns = fl.stagger.as_ref().map_or(0, |s| s.get_ref().0);
        for i in 0..members {
            let mut m = fl.clone();
            m.count = None;
            m.stagger = None;
            m.from = named(&fl.from, i, &field, "from")?;
            m.to = named(&fl.to, i, &field, "to")?;
            m.name = match &fl.name {
                None => None,
                Some(n) => Some(substitute(n, i).map_err(|msg| {
                    sc.error_at(Some(fl.from.span()), format!("{field}[i={i}].name"), msg)
                })?),
            };
            if stagger_ns > 0 {
                let start = stagger_ns
                    .checked_mul(i)
                    .and_then(|d| d.checked_add(start_ns))
                    .ok_or_else(|| {
                        let s = fl.stagger.as_ref().expect("stagger_ns > 0");
                        sc.error_at(
                            Some(s.span()),
                            format!("{field}[i={i}].stagger"),
                            "start + i × stagger is beyond the largest time (about 584 years)",
                        )
                    })?;
                // Errors about the member's start point at its stagger.
                let span = fl.stagger.as_ref().expect("stagger_ns > 0").span();
                m.start = Some(Spanned::new(span, Duration(start)));
            }
            flows.push(m);
            flow_members.push((t as u32, fl.count.as_ref().map(|_| i as u32)));
        }
    }
    if !counted {
        return Ok(None);
    }
    let mut file = sc.file.clone();
    file.node = nodes;
    file.link = links;
    file.flow = flows;
    Ok(Some(Scenario {
        file,
        source_name: sc.source_name.clone(),
        text: sc.text.clone(),
        members: Members {
            node: node_members,
            link: link_members,
            flow: flow_members,
        },
    }))
}

/// Number of members of the tables `counts` (a table without a count is
/// one).
pub(super) fn members(counts: impl Iterator<Item = Option<u64>>) -> usize {
    counts.map(|c| c.unwrap_or(1) as usize).sum()
}
