//! What a run observes: the scenario's `[[capture]]` tables, its `[trace]`
//! table and the flows with `tcp.trace = true`, plus what the caller adds
//! (the CLI's `--pcap` and `--trace`, the API's `pcap=` and `trace=`),
//! checked against the world's names and turned into open outputs.
//!
//! Output paths are relative to the caller's output directory; a suffix
//! (e.g. `-seed3` for one of several seeds) goes before the extension.

use std::path::{Component, Path, PathBuf};

use super::{Scenario, ScenarioError};
use crate::observe::capture::{Capture, CapturePoint, Captures};
use crate::observe::trace::{TraceFilter, TraceNames, TraceSink, Tracer};
use crate::observe::wire::{FlowWire, MAX_CAPTURE_NODES};
use crate::observe::Observers;
use crate::world::{FlowKind, World};

/// Captures and a trace asked for outside the scenario file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ObserveRequest {
    /// Capture points ("A->B", "A<->B" or a node), each with an optional
    /// file name.
    pub pcap: Vec<(String, Option<String>)>,
    /// A trace, with its file and filters (added to the scenario's).
    pub trace: Option<TraceRequest>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TraceRequest {
    pub file: Option<String>,
    pub flows: Vec<String>,
    pub links: Vec<String>,
}

/// Default trace file name.
pub const DEFAULT_TRACE_FILE: &str = "trace.parquet";

/// A validated plan: which files, which points, which filter. No file is
/// touched until [`ObservePlan::open`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ObservePlan {
    /// (file, points with their interface names and descriptions, snaplen).
    pub captures: Vec<CapturePlan>,
    pub trace: Option<TracePlan>,
    node_names: Vec<String>,
    n_links: usize,
    flow_wire: Vec<Option<FlowWire>>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct CapturePlan {
    pub file: String,
    pub points: Vec<CapturePoint>,
    pub interfaces: Vec<(String, String)>,
    pub snaplen: Option<u32>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TracePlan {
    pub file: String,
    pub filter: TraceFilter,
    pub names: TraceNames,
}

/// At most this many names are listed in an "unknown name" error.
const LISTED_NAMES: usize = 12;

fn listing(names: &[String]) -> String {
    let mut s = names
        .iter()
        .take(LISTED_NAMES)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > LISTED_NAMES {
        s.push_str(&format!(", ... ({} in all)", names.len()));
    }
    s
}

/// `file` with `suffix` inserted before its extension.
pub fn with_suffix(file: &str, suffix: &str) -> String {
    if suffix.is_empty() {
        return file.to_string();
    }
    let p = Path::new(file);
    match (p.file_stem(), p.extension()) {
        (Some(stem), Some(ext)) => p
            .with_file_name(format!(
                "{}{suffix}.{}",
                stem.to_string_lossy(),
                ext.to_string_lossy()
            ))
            .to_string_lossy()
            .into_owned(),
        _ => format!("{file}{suffix}"),
    }
}

/// A capture point's default file name: `capture-<point>.pcapng` with the
/// arrows spelled `-` (one direction) and `--` (both).
pub fn default_capture_file(point: &str) -> String {
    let mut s = point.replace("<->", "--").replace("->", "-");
    s = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("capture-{s}.pcapng")
}

/// The link directions a name means: "A->B" (one direction, by its name)
/// or "A<->B" (both; "A<->B#2" for the second link between A and B).
fn link_directions(world: &World, name: &str) -> Option<Vec<u32>> {
    let find = |n: &str| {
        world
            .links
            .iter()
            .position(|l| l.name == n)
            .map(|i| i as u32)
    };
    if let Some((a, rest)) = name.split_once("<->") {
        let (b, tag) = match rest.split_once('#') {
            Some((b, k)) => (b, format!("#{k}")),
            None => (rest, String::new()),
        };
        let there = find(&format!("{a}->{b}{tag}"))?;
        let back = find(&format!("{b}->{a}{tag}"))?;
        return Some(vec![there, back]);
    }
    find(name).map(|l| vec![l])
}

impl Scenario {
    /// Check what the scenario and `req` ask to observe against `world`'s
    /// names; errors name the field (`capture[0].link`, or `pcap` and
    /// `trace` for the request).
    pub fn observe_plan(
        &self,
        world: &World,
        req: &ObserveRequest,
    ) -> Result<ObservePlan, ScenarioError> {
        let node_names: Vec<String> = world.nodes.iter().map(|n| n.name.clone()).collect();
        let link_names: Vec<String> = world.links.iter().map(|l| l.name.clone()).collect();
        let flow_names: Vec<String> = world.flows.iter().map(|f| f.name.clone()).collect();
        let mut plan = ObservePlan {
            node_names: node_names.clone(),
            n_links: link_names.len(),
            ..Default::default()
        };
        let unknown_point = |what: &str| {
            format!(
                "unknown link or node \"{what}\" (link directions: {}; nodes: {}; \"A<->B\" means \
                 both directions)",
                listing(&link_names),
                listing(&node_names)
            )
        };
        // Scenario tables first, then the request's points.
        for (i, c) in self.file.capture.iter().enumerate() {
            let c = c.get_ref();
            let field = format!("capture[{i}]");
            let mut points = Vec::new();
            let mut interfaces = Vec::new();
            let mut first_name = None;
            if let Some(l) = &c.link {
                let dirs = link_directions(world, l.get_ref()).ok_or_else(|| {
                    self.error_at(
                        Some(l.span()),
                        format!("{field}.link"),
                        format!(
                            "unknown link \"{}\" (link directions: {}; \"A<->B\" means both \
                             directions)",
                            l.get_ref(),
                            listing(&link_names)
                        ),
                    )
                })?;
                first_name.get_or_insert_with(|| l.get_ref().clone());
                add_links(world, &dirs, &mut points, &mut interfaces);
            }
            if let Some(n) = &c.node {
                let node = world
                    .nodes
                    .iter()
                    .position(|x| &x.name == n.get_ref())
                    .ok_or_else(|| {
                        self.error_at(
                            Some(n.span()),
                            format!("{field}.node"),
                            format!(
                                "unknown node \"{}\" (nodes: {})",
                                n.get_ref(),
                                listing(&node_names)
                            ),
                        )
                    })?;
                first_name.get_or_insert_with(|| n.get_ref().clone());
                add_node(world, node as u32, &mut points, &mut interfaces);
            }
            let Some(first) = first_name else {
                return Err(self.error_at(
                    None,
                    field,
                    "a capture needs a `link` (\"A->B\" or \"A<->B\") or a `node`",
                ));
            };
            let snaplen = match &c.snaplen {
                None => None,
                Some(s) if s.get_ref().0 == 0 || s.get_ref().0 > 65_535 => {
                    return Err(self.error_at(
                        Some(s.span()),
                        format!("{field}.snaplen"),
                        "must be between 1B and 65535B",
                    ))
                }
                Some(s) => Some(s.get_ref().0 as u32),
            };
            let file = match &c.file {
                Some(f) => {
                    check_file_name(self, f.get_ref(), Some(f.span()), &format!("{field}.file"))?
                }
                None => default_capture_file(&first),
            };
            plan.captures.push(CapturePlan {
                file,
                points,
                interfaces,
                snaplen,
            });
        }
        for (point, file) in &req.pcap {
            let mut points = Vec::new();
            let mut interfaces = Vec::new();
            if let Some(dirs) = link_directions(world, point) {
                add_links(world, &dirs, &mut points, &mut interfaces);
            } else if let Some(n) = world.nodes.iter().position(|x| &x.name == point) {
                add_node(world, n as u32, &mut points, &mut interfaces);
            } else {
                return Err(self.error_at(None, "pcap", unknown_point(point)));
            }
            let file = match file {
                Some(f) => check_file_name(self, f, None, "pcap")?,
                None => default_capture_file(point),
            };
            plan.captures.push(CapturePlan {
                file,
                points,
                interfaces,
                snaplen: None,
            });
        }
        if !plan.captures.is_empty() {
            self.check_capturable(world)?;
            plan.flow_wire = world
                .flows
                .iter()
                .map(|f| match &f.kind {
                    FlowKind::Tcp(t) => Some(FlowWire {
                        mss: t.spec.mss as u16,
                        sack_permitted: t.spec.uses_sack(),
                    }),
                    FlowKind::Udp(_) => None,
                })
                .collect();
        }
        plan.trace = self.trace_plan(world, req, &flow_names, &link_names)?;
        let mut files: Vec<&str> = plan.captures.iter().map(|c| c.file.as_str()).collect();
        if let Some(t) = &plan.trace {
            files.push(&t.file);
        }
        for (i, f) in files.iter().enumerate() {
            if files[..i].iter().any(|g| same_file_name(g, f)) {
                return Err(self.error_at(
                    None,
                    "capture",
                    format!("two outputs would write the same file \"{f}\": give each a `file`"),
                ));
            }
        }
        Ok(plan)
    }

    /// Captures need IPv4 addresses for every node and packets that fit in
    /// an IPv4 datagram.
    fn check_capturable(&self, world: &World) -> Result<(), ScenarioError> {
        if world.nodes.len() > MAX_CAPTURE_NODES {
            return Err(self.error_at(
                None,
                "capture",
                format!(
                    "a capture gives each node an address in 10.0.0.0/8: at most {MAX_CAPTURE_NODES} \
                     nodes, this scenario has {}",
                    world.nodes.len()
                ),
            ));
        }
        for (i, f) in world.flows.iter().enumerate() {
            if let FlowKind::Tcp(t) = &f.kind {
                // Headers, options (at most 40 bytes) and one full segment.
                if t.spec.mss as u64 + 80 > 65_535 {
                    return Err(self.error_at(
                        None,
                        format!("flow[{i}].tcp.mss"),
                        "a capture needs segments that fit an IPv4 datagram: mss at most 65455B",
                    ));
                }
            }
        }
        Ok(())
    }

    fn trace_plan(
        &self,
        world: &World,
        req: &ObserveRequest,
        flow_names: &[String],
        link_names: &[String],
    ) -> Result<Option<TracePlan>, ScenarioError> {
        let table = self.file.trace.as_ref();
        // The world's flows: a counted table's members in its place.
        let by_flag: Vec<usize> = self
            .file
            .flow
            .iter()
            .flat_map(|f| {
                let members = f.count.as_ref().map_or(1, |c| *c.get_ref() as usize);
                let traced = f
                    .tcp
                    .as_ref()
                    .is_some_and(|t| t.get_ref().trace.unwrap_or(false));
                std::iter::repeat_n(traced, members)
            })
            .enumerate()
            .filter(|(_, traced)| *traced)
            .map(|(i, _)| i)
            .collect();
        if table.is_none() && by_flag.is_empty() && req.trace.is_none() {
            return Ok(None);
        }
        let mut flows = vec![false; flow_names.len()];
        let mut links = vec![false; link_names.len()];
        for i in by_flag {
            flows[i] = true;
        }
        let flow_index = |name: &str| flow_names.iter().position(|n| n == name);
        let unknown_flow =
            |name: &str| format!("unknown flow \"{name}\" (flows: {})", listing(flow_names));
        let unknown_link = |name: &str| {
            format!(
                "unknown link \"{name}\" (link directions: {}; \"A<->B\" means both directions)",
                listing(link_names)
            )
        };
        let mut file = None;
        if let Some(t) = table {
            let t = t.get_ref();
            for (j, f) in t.flows.iter().flatten().enumerate() {
                let i = flow_index(f.get_ref()).ok_or_else(|| {
                    self.error_at(
                        Some(f.span()),
                        format!("trace.flows[{j}]"),
                        unknown_flow(f.get_ref()),
                    )
                })?;
                flows[i] = true;
            }
            for (j, l) in t.links.iter().flatten().enumerate() {
                let dirs = link_directions(world, l.get_ref()).ok_or_else(|| {
                    self.error_at(
                        Some(l.span()),
                        format!("trace.links[{j}]"),
                        unknown_link(l.get_ref()),
                    )
                })?;
                for d in dirs {
                    links[d as usize] = true;
                }
            }
            if let Some(f) = &t.file {
                file = Some(check_file_name(
                    self,
                    f.get_ref(),
                    Some(f.span()),
                    "trace.file",
                )?);
            }
        }
        if let Some(r) = &req.trace {
            for f in &r.flows {
                let i =
                    flow_index(f).ok_or_else(|| self.error_at(None, "trace", unknown_flow(f)))?;
                flows[i] = true;
            }
            for l in &r.links {
                let dirs = link_directions(world, l)
                    .ok_or_else(|| self.error_at(None, "trace", unknown_link(l)))?;
                for d in dirs {
                    links[d as usize] = true;
                }
            }
            if let Some(f) = &r.file {
                file = Some(check_file_name(self, f, None, "trace")?);
            }
        }
        // No flow named: every flow. No link named: links and nodes alike.
        if !flows.contains(&true) {
            flows.clear();
        }
        if !links.contains(&true) {
            links.clear();
        }
        Ok(Some(TracePlan {
            file: file.unwrap_or_else(|| DEFAULT_TRACE_FILE.to_string()),
            filter: TraceFilter { flows, links },
            names: TraceNames {
                nodes: world.nodes.iter().map(|n| n.name.clone()).collect(),
                links: link_names.to_vec(),
                flows: flow_names.to_vec(),
            },
        }))
    }
}

fn add_links(
    world: &World,
    dirs: &[u32],
    points: &mut Vec<CapturePoint>,
    interfaces: &mut Vec<(String, String)>,
) {
    for &d in dirs {
        let l = &world.links[d as usize];
        points.push(CapturePoint::Link(d));
        interfaces.push((
            l.name.clone(),
            format!(
                "airtcp link {}: packets offered to it, after its queue's decision",
                l.name
            ),
        ));
    }
}

fn add_node(
    world: &World,
    n: u32,
    points: &mut Vec<CapturePoint>,
    interfaces: &mut Vec<(String, String)>,
) {
    let name = &world.nodes[n as usize].name;
    points.push(CapturePoint::Node(n));
    interfaces.push((
        name.clone(),
        format!("airtcp node {name}: packets it sends and receives"),
    ));
}

/// An output file name: not empty; if a scenario file names it, relative
/// and without `..` (a scenario writes only under the output directory:
/// `../x.pcapng` from `--out od/run` wrote `od/x.pcapng`, and from a
/// scenario run without `--out`, outside the working directory).
fn check_file_name(
    sc: &Scenario,
    name: &str,
    span: Option<std::ops::Range<usize>>,
    field: &str,
) -> Result<String, ScenarioError> {
    if name.trim().is_empty() {
        return Err(sc.error_at(span, field, "file name must not be empty"));
    }
    if span.is_some() && Path::new(name).is_absolute() {
        return Err(sc.error_at(
            span,
            field,
            "must be relative (outputs go to the output directory: `--out`, or `out_dir=`)",
        ));
    }
    if span.is_some()
        && Path::new(name)
            .components()
            .any(|c| c == Component::ParentDir)
    {
        return Err(sc.error_at(
            span,
            field,
            format!("\"{name}\" must stay inside the output directory (no `..`)"),
        ));
    }
    Ok(name.to_string())
}

/// Do two output file names name one file in the output directory
/// (`./a.pcapng` and `a.pcapng`, `d//a` and `d/a`)? Paths compare by
/// components, which drop repeated separators and inner `.`; a leading
/// `.` is dropped here.
fn same_file_name(a: &str, b: &str) -> bool {
    fn parts(name: &str) -> impl Iterator<Item = Component<'_>> {
        Path::new(name)
            .components()
            .filter(|c| *c != Component::CurDir)
    }
    parts(a).eq(parts(b))
}

impl ObservePlan {
    /// Nothing to observe.
    pub fn is_empty(&self) -> bool {
        self.captures.is_empty() && self.trace.is_none()
    }

    /// Create the capture files in `out_dir` (names with `suffix` before the
    /// extension) and wire the trace to `trace_sink` (required when the
    /// plan has a trace). An error names the file ([`OutputError`]); the
    /// captures created before it are removed.
    ///
    /// [`OutputError`]: crate::observe::OutputError
    pub fn open(
        &self,
        out_dir: &Path,
        suffix: &str,
        trace_sink: Option<Box<dyn TraceSink>>,
    ) -> std::io::Result<Observers> {
        let mut obs = Observers::default();
        if !self.captures.is_empty() {
            let mut files = Vec::new();
            for c in &self.captures {
                let path = out_dir.join(with_suffix(&c.file, suffix));
                match Capture::create(path, &c.interfaces, c.snaplen, &self.node_names) {
                    Ok(cap) => files.push((cap, c.points.clone())),
                    Err(e) => {
                        files.into_iter().for_each(|(cap, _)| cap.discard());
                        return Err(e);
                    }
                }
            }
            obs.captures = Some(Captures::new(
                files,
                self.n_links,
                self.node_names.len(),
                self.flow_wire.clone(),
            ));
        }
        if let (Some(t), Some(sink)) = (&self.trace, trace_sink) {
            obs.tracer = Some(Tracer::new(t.filter.clone(), sink));
        }
        Ok(obs)
    }

    /// Every file the plan writes (the captures, then the trace's), with
    /// `suffix`, under `out_dir`.
    pub fn paths(&self, out_dir: &Path, suffix: &str) -> Vec<PathBuf> {
        let captures = self
            .captures
            .iter()
            .map(|c| out_dir.join(with_suffix(&c.file, suffix)));
        captures.chain(self.trace_path(out_dir, suffix)).collect()
    }

    /// Where the trace goes, with `suffix`, under `out_dir`.
    pub fn trace_path(&self, out_dir: &Path, suffix: &str) -> Option<PathBuf> {
        self.trace
            .as_ref()
            .map(|t| out_dir.join(with_suffix(&t.file, suffix)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suffix_goes_before_the_extension() {
        assert_eq!(with_suffix("a/b.pcapng", "-seed3"), "a/b-seed3.pcapng");
        assert_eq!(with_suffix("trace", "-seed3"), "trace-seed3");
        assert_eq!(with_suffix("x.pcapng", ""), "x.pcapng");
    }

    #[test]
    fn default_names_spell_the_arrows() {
        assert_eq!(
            default_capture_file("base_station->mobile"),
            "capture-base_station-mobile.pcapng"
        );
        assert_eq!(default_capture_file("R<->D"), "capture-R--D.pcapng");
        assert_eq!(default_capture_file("a b/c"), "capture-a_b_c.pcapng");
    }
}
