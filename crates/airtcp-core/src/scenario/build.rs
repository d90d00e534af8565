//! From a parsed scenario file to a runnable World, with the semantic checks
//! that serde cannot do (names, routes, consistency of parameters).

use rustc_hash::FxHashMap;

use super::schema::*;
use super::spanned::Spanned;
use super::units::{parse_duration_ns, Duration, QueueCapacity};
use super::{name_problem, Scenario, ScenarioError};
use crate::agents::arq::{ArqConfig, Dda, DdaConfig, LinkArq};
use crate::agents::gsnoop::{GSnoopA, GSnoopB, GSnoopBConfig};
use crate::agents::kick_node::{KickAwareNode, NodeKnowledge};
use crate::agents::snoop::{Snoop, SnoopConfig};
use crate::agents::NodeAgent;
use crate::app::{OnOffConfig, TcpApp};
use crate::net::channel::{
    Bernoulli, BitErrorRate, Channel, ChannelModel, DropList, GilbertElliott, PacketFilter,
    RouteChange,
};
use crate::net::link::LinkDir;
use crate::net::packet::DEFAULT_TTL;
use crate::net::packet::{IP_HEADER_BYTES, TCP_HEADER_BYTES, TS_OPTION_BYTES};
use crate::net::queue::{
    DropTail, Mecn, MultiLevelConfig, NotEctPolicy, QueueDiscipline, QueueLimit, Red, RedConfig,
    Wmecn,
};
use crate::net::stis::{PerFlowService, StallConfig, StallProcess};
use crate::net::topology::{Routes, NO_ROUTE};
use crate::sim::rng::RandomStream;
use crate::sim::{TimeNs, NS_PER_MS, NS_PER_S};
use crate::tcp::cc::{CubicConfig, MecnCcConfig, WestwoodConfig, WestwoodFilter};
use crate::tcp::classify::{
    BeforeSamplePolicy, RttThresholdConfig, Threshold, TimeoutPolicy, WmecnClassifierConfig,
};
use crate::tcp::core::{MarkWindowFloor, TimeoutInRecoverySsthresh};
use crate::tcp::kick::{KickConfig, KickInterval};
use crate::tcp::rtt::RtoConfig;
use crate::tcp::sender::SenderConfig;
use crate::tcp::spec::{
    CcChoice, ClassifierChoice, LossDetector, SlowStart, TcpSpec, TimeoutKind, Variant,
    UNBOUNDED_SSTHRESH_BYTES,
};
use crate::world::{Flow, Node, SeriesConfig, World};

/// ns-2's default queue limit.
pub const DEFAULT_QUEUE_PKTS: u32 = 50;

/// Shortest TCP timer (RTOs, the kick interval): 1 ms, the finest tick of
/// a real TCP's timers (Linux's jiffy at HZ=1000). A shorter timer fires
/// before any path can return an ACK, and a nanosecond one turns a run
/// into billions of timer events.
pub const MIN_TIMER_NS: TimeNs = NS_PER_MS;
const MIN_TIMER_REASON: &str =
    "must be at least 1ms (the finest real TCP timer tick; shorter timers only make timer events)";
/// Largest G-Snoop cache: 2^20 packets (about 150 MB of copies), far
/// beyond any window that can be in flight over one wireless hop.
pub const MAX_AGENT_CACHE_PKTS: u64 = 1 << 20;
/// Largest window TCP can use or advertise: 2^30 bytes (RFC 7323 §2.3,
/// window scale at most 14).
pub const MAX_WINDOW_BYTES: u64 = 1 << 30;
/// Shortest period of a random on/off, fading or stall process and of
/// time-series sampling: 1 us. Each period is at least one event; shorter
/// ones make the process, not the traffic, dominate the run time.
pub const MIN_PERIOD_NS: TimeNs = crate::sim::NS_PER_US;
const MIN_PERIOD_REASON: &str =
    "must be at least 1us (each period is an event: shorter ones make the process, not the traffic, the run)";

pub fn build_world(sc: &Scenario, seed: u64) -> Result<World, ScenarioError> {
    let f = &sc.file;
    let duration = f.simulation.duration.get_ref().0;
    if duration == 0 {
        return Err(sc.error_at(
            Some(f.simulation.duration.span()),
            "simulation.duration",
            "must be positive",
        ));
    }
    // Nodes: declared ones first, then in order of appearance in links.
    let mut names: Vec<String> = Vec::new();
    let mut index: FxHashMap<String, u32> = FxHashMap::default();
    let mut add = |n: &str, names: &mut Vec<String>| -> u32 {
        if let Some(&i) = index.get(n) {
            return i;
        }
        names.push(n.to_string());
        let i = (names.len() - 1) as u32;
        index.insert(n.to_string(), i);
        i
    };
    for (i, n) in f.node.iter().enumerate() {
        if n.name.get_ref().trim().is_empty() {
            return Err(sc.error_at(
                Some(n.name.span()),
                format!("node[{i}].name"),
                "must not be empty",
            ));
        }
        if let Some(why) = name_problem(n.name.get_ref(), true) {
            return Err(sc.error_at(Some(n.name.span()), format!("node[{i}].name"), why));
        }
        // A second table for a node would add its agents to the first's.
        let declared = names.len();
        let j = add(n.name.get_ref(), &mut names);
        if names.len() == declared {
            return Err(sc.error_at(
                Some(n.name.span()),
                format!("node[{i}].name"),
                format!(
                    "\"{}\" is already declared by {}: declare a node once, with all its agents",
                    n.name.get_ref(),
                    sc.members.user_field(&format!("node[{j}]"))
                ),
            ));
        }
    }
    if f.link.is_empty() {
        return Err(sc.error_at(None, "link", "a scenario needs at least one [[link]]"));
    }
    // Nothing would be simulated: the run reported "0 events" and exit 0.
    if f.flow.is_empty() {
        return Err(sc.error_at(None, "flow", "a scenario needs at least one [[flow]]"));
    }
    let mut ends = Vec::new();
    // The first link (in file order) joining each pair of nodes: the one
    // routes take (ties go to the link listed first, net/topology.rs), and
    // the one agents that name the far end of their link mean.
    let mut first_link = FirstLinks::default();
    for (i, l) in f.link.iter().enumerate() {
        for (end, which) in [(&l.a, "a"), (&l.b, "b")] {
            if end.get_ref().trim().is_empty() {
                return Err(sc.error_at(
                    Some(end.span()),
                    format!("link[{i}].{which}"),
                    "node name must not be empty",
                ));
            }
            if let Some(why) = name_problem(end.get_ref(), true) {
                return Err(sc.error_at(Some(end.span()), format!("link[{i}].{which}"), why));
            }
        }
        if l.a.get_ref() == l.b.get_ref() {
            return Err(sc.error_at(
                Some(l.b.span()),
                format!("link[{i}].b"),
                format!("link joins \"{}\" to itself", l.a.get_ref()),
            ));
        }
        let a = add(l.a.get_ref(), &mut names);
        let b = add(l.b.get_ref(), &mut names);
        // A second link between the same two nodes ties with the first on
        // every route, and the first wins both ways.
        if let Some(&j) = first_link.get(&(a.min(b), a.max(b))) {
            return Err(sc.error_at(
                Some(l.a.span()),
                format!("link[{i}]"),
                format!(
                    "joins \"{}\" and \"{}\", as {} does: routes take the first; this one would never \
                     carry traffic (routing is by hops, ties to the link listed first); remove it \
                     (for a different rate, delay, queue or error each way, give the first a_to_b or b_to_a)",
                    l.a.get_ref(),
                    l.b.get_ref(),
                    sc.members.user_field(&format!("link[{j}]"))
                ),
            ));
        }
        first_link.insert((a.min(b), a.max(b)), i as u32);
        ends.push((a, b));
    }
    // Link directions 2i (a->b) and 2i+1 (b->a).
    let mut dir_pairs = Vec::new();
    for &(a, b) in &ends {
        dir_pairs.push((a, b));
        dir_pairs.push((b, a));
    }
    let mut routes = Routes::new(names.len(), &dir_pairs);
    let ttl = initial_ttl(sc)?;
    let mut links = Vec::new();
    // Where each direction's queue was written, for errors about its limit.
    let mut queue_sites: Vec<(String, Option<std::ops::Range<usize>>)> = Vec::new();
    let mut used_names: FxHashMap<String, u32> = FxHashMap::default();
    // (direction, queue field, span) of every red queue with ecn = true.
    let mut red_ecn_sites: Vec<(u32, String, std::ops::Range<usize>)> = Vec::new();
    for (i, l) in f.link.iter().enumerate() {
        for (d, (from, to), over, which) in [
            (0, ends[i], &l.a_to_b, "a_to_b"),
            (1, (ends[i].1, ends[i].0), &l.b_to_a, "b_to_a"),
        ] {
            let _ = d;
            let field = format!("link[{i}].{which}");
            if over.as_ref().is_some_and(|o| {
                o.rate.is_none() && o.delay.is_none() && o.queue.is_none() && o.error.is_none()
            }) {
                return Err(sc.error_at_path(
                    &field,
                    "an empty table overrides nothing: give this direction's `rate`, `delay`, `queue` or `error`, or remove the table",
                ));
            }
            let base = format!("{}->{}", names[from as usize], names[to as usize]);
            let k = used_names.entry(base.clone()).or_insert(0);
            *k += 1;
            let name = if *k == 1 { base } else { format!("{base}#{k}") };
            let rate = over.as_ref().and_then(|o| o.rate).unwrap_or(l.rate).0;
            let delay = over.as_ref().and_then(|o| o.delay).unwrap_or(l.delay).0;
            // A per-direction table overrides the link's; errors name
            // whichever one the user wrote.
            let (qspec, qfield) = match over.as_ref().and_then(|o| o.queue.as_ref()) {
                Some(q) => (Some(q), format!("{field}.queue")),
                None => (l.queue.as_deref(), format!("link[{i}].queue")),
            };
            let (espec, efield) = match over.as_ref().and_then(|o| o.error.as_ref()) {
                Some(e) => (Some(e), format!("{field}.error")),
                None => (l.error.as_deref(), format!("link[{i}].error")),
            };
            let queue = build_queue(sc, qspec, rate, &qfield)?;
            if let (QueueDiscipline::Red(r), Some(q)) = (&queue, qspec) {
                if r.cfg.ecn {
                    red_ecn_sites.push((links.len() as u32, qfield.clone(), q.span()));
                }
            }
            let limit_span = qspec.and_then(|q| q.get_ref().limit.as_ref().map(|l| l.span()));
            queue_sites.push((format!("{qfield}.limit"), limit_span));
            let channel = build_channel(sc, espec, seed, &name, &efield)?;
            let qrng = RandomStream::new(seed, &format!("queue:{name}"));
            let mut link = LinkDir::new(name, from, to, rate, delay, queue, channel, qrng);
            if qspec.is_some_and(|q| q.get_ref().kind == QueueKind::PerFlow) {
                link.per_flow = Some(Box::new(PerFlowService::new(link.queue.limit())));
            }
            links.push(link);
        }
    }
    // A declared node must be on a link: its agents would see no packet.
    let mut on_link = vec![false; f.node.len()];
    for &(a, b) in &ends {
        for end in [a, b] {
            if let Some(seen) = on_link.get_mut(end as usize) {
                *seen = true;
            }
        }
    }
    if let Some(i) = on_link.iter().position(|&seen| !seen) {
        let n = &f.node[i].name;
        return Err(sc.error_at(
            Some(n.span()),
            format!("node[{i}].name"),
            format!(
                "\"{}\" is on no [[link]]: no packet could reach it or its agents",
                n.get_ref()
            ),
        ));
    }
    let mut nodes: Vec<Node> = names.iter().map(|n| Node::new(n.clone())).collect();
    for (i, n) in f.node.iter().enumerate() {
        let id = index[n.name.get_ref()];
        for (j, a) in n.agents.iter().enumerate() {
            let field = format!("node[{i}].agents[{j}]");
            let ways = (&ends[..], &first_link);
            let agent = build_agent(sc, a, &field, id, (&names, &index), ways, &links)?;
            nodes[id as usize].add_agent(agent);
        }
    }
    check_arq_pairs(sc)?;
    let node_of = |s: &Spanned<String>, field: String| -> Result<u32, ScenarioError> {
        index.get(s.get_ref()).copied().ok_or_else(|| {
            sc.error_at(
                Some(s.span()),
                field,
                format!(
                    "unknown node \"{}\" (nodes: {})",
                    s.get_ref(),
                    node_list(&names)
                ),
            )
        })
    };
    // Each flow's record is large (a TCP connection's, inline): sized
    // once, never moved by growing.
    let mut flows = Vec::with_capacity(f.flow.len());
    // Per link direction: which flows' packets cross it, and whether
    // ECN-capable data does (for `check_red_ecn_crossed`). Kept only when
    // some red queue has ecn = true: at 100,000 flows the table would
    // cost tens of MB for nothing to check.
    let mut crossing = if red_ecn_sites.is_empty() {
        Vec::new()
    } else {
        vec![Crossing::default(); links.len()]
    };
    let mut flow_names: FxHashMap<String, usize> = FxHashMap::default();
    for (i, fl) in f.flow.iter().enumerate() {
        let src = node_of(&fl.from, format!("flow[{i}].from"))?;
        let dst = node_of(&fl.to, format!("flow[{i}].to"))?;
        if src == dst {
            return Err(sc.error_at(
                Some(fl.to.span()),
                format!("flow[{i}].to"),
                "a flow's source and destination must differ",
            ));
        }
        // Links go both ways, so a route there is a route back.
        if !routes.connected(src, dst) {
            return Err(sc.error_at(
                Some(fl.to.span()),
                format!("flow[{i}].to"),
                format!(
                    "no route from \"{}\" to \"{}\"",
                    fl.from.get_ref(),
                    fl.to.get_ref()
                ),
            ));
        }
        // The link directions of the way there (data) and back (ACKs).
        let there = route_path(&mut routes, &dir_pairs, src, dst);
        let back = route_path(&mut routes, &dir_pairs, dst, src);
        for (from, to, end, path) in [(src, dst, &fl.to, &there), (dst, src, &fl.from, &back)] {
            let hops = path.len();
            if hops > ttl as usize {
                return Err(sc.error_at(
                    Some(end.span()),
                    format!("flow[{i}].{}", if end == &fl.to { "to" } else { "from" }),
                    format!(
                        "the route from \"{}\" to \"{}\" has {hops} hops, more than the TTL of {ttl} \
                         (simulation.ttl, at most 255): no packet would arrive",
                        names[from as usize], names[to as usize]
                    ),
                ));
            }
        }
        let name = fl.name.clone().unwrap_or_else(|| format!("flow{i}"));
        // Results, series, traces and captures name flows: a name is read
        // and names one flow.
        if name.trim().is_empty() {
            return Err(sc.error_at_path(format!("flow[{i}].name"), "must not be empty"));
        }
        if let Some(why) = name_problem(&name, false) {
            return Err(sc.error_at_path(format!("flow[{i}].name"), why));
        }
        if let Some(j) = flow_names.insert(name.clone(), i) {
            return Err(sc.error_at_path(
                format!("flow[{i}].name"),
                format!(
                    "\"{name}\" is already the name of {}: flow names must be unique",
                    sc.members.user_field(&format!("flow[{j}]"))
                ),
            ));
        }
        let start = fl.start.as_ref().map_or(0, |d| d.get_ref().0);
        if let Some(st) = fl.start.as_ref().filter(|_| start >= duration) {
            return Err(sc.error_at(
                Some(st.span()),
                format!("flow[{i}].start"),
                format!(
                    "{} is not before the end of the run ({}): the flow would never send",
                    show_ns(start),
                    show_ns(duration)
                ),
            ));
        }
        let stop = fl.stop.as_ref().map(|s| s.get_ref().0);
        if let Some(s) = &fl.stop {
            if s.get_ref().0 <= start {
                return Err(sc.error_at(
                    Some(s.span()),
                    format!("flow[{i}].stop"),
                    "must be after start",
                ));
            }
            if s.get_ref().0 >= duration {
                return Err(sc.error_at(
                    Some(s.span()),
                    format!("flow[{i}].stop"),
                    format!(
                        "{} is not before the end of the run ({}): it has no effect (every flow stops at the end of the run); remove it",
                        show_ns(s.get_ref().0),
                        show_ns(duration)
                    ),
                ));
            }
        }
        let app_field = format!("flow[{i}].app");
        let app = fl.app.get_ref();
        let app_span = Some(fl.app.span());
        let present = [
            ("size", app.size.is_some()),
            ("think", app.think.is_some()),
            ("count", app.count.is_some()),
            ("rate", app.rate.is_some()),
            ("packet_size", app.packet_size.is_some()),
            ("mean_on", app.mean_on.is_some()),
            ("mean_off", app.mean_off.is_some()),
        ];
        let kind_fields: (&str, &[&str], &[&str]) = match app.kind {
            AppKind::Bulk => ("bulk", &[], &[]),
            AppKind::File => ("file", &["size"], &[]),
            AppKind::Repeated => ("repeated", &["size", "think"], &["count"]),
            AppKind::Onoff => ("onoff", &["rate", "mean_on", "mean_off"], &["packet_size"]),
        };
        check_kind_fields(sc, app_span.clone(), &app_field, kind_fields, &present)?;
        if app.count.is_some_and(|c| c < 1) {
            return Err(sc.error_at(
                app_span.clone(),
                format!("{app_field}.count"),
                "must be at least 1 transfer",
            ));
        }
        if let Some(size) = &app.size {
            if size.get_ref().0 == 0 {
                return Err(sc.error_at(
                    Some(size.span()),
                    format!("{app_field}.size"),
                    "must be positive",
                ));
            }
        }
        if app.kind == AppKind::Onoff {
            if let Some(t) = &fl.tcp {
                return Err(sc.error_at(
                    Some(t.span()),
                    format!("flow[{i}].tcp"),
                    "an \"onoff\" app runs over UDP: remove the tcp table",
                ));
            }
            let packet_bytes = app.packet_size.as_ref().map_or(1000, |s| s.get_ref().0);
            if !(28..=65_535).contains(&packet_bytes) {
                return Err(sc.error_at(
                    app.packet_size.as_ref().map(|s| s.span()),
                    format!("{app_field}.packet_size"),
                    "must be between 28B and 65535B",
                ));
            }
            let period =
                |d: &Option<Spanned<Duration>>, name: &str| -> Result<TimeNs, ScenarioError> {
                    let d = d.as_ref().expect("checked by check_kind_fields");
                    match d.get_ref().0 {
                        v if v >= MIN_PERIOD_NS => Ok(v),
                        _ => Err(sc.error_at(
                            Some(d.span()),
                            format!("{app_field}.{name}"),
                            MIN_PERIOD_REASON,
                        )),
                    }
                };
            let cfg = OnOffConfig {
                rate_bps: app.rate.expect("checked").0,
                packet_bytes: packet_bytes as u32,
                mean_on_ns: period(&app.mean_on, "mean_on")?,
                mean_off_ns: period(&app.mean_off, "mean_off")?,
            };
            check_first_packet_arrives(
                sc,
                fl,
                i,
                &links,
                &there,
                packet_bytes as u32,
                None,
                duration,
            )?;
            Crossing::add_path(&mut crossing, &there, i, false);
            let what = format!("datagram of flow[{i}] (packet_size)");
            check_fits_queues(sc, &links, &queue_sites, &there, packet_bytes as u32, &what)?;
            flows.push(Flow::udp(name, src, dst, start, stop, cfg, seed));
        } else {
            let size = || {
                app.size
                    .as_ref()
                    .expect("checked by check_kind_fields")
                    .get_ref()
                    .0
            };
            let tcp_app = match app.kind {
                AppKind::Bulk => TcpApp::Bulk,
                AppKind::File => TcpApp::File { size_bytes: size() },
                AppKind::Repeated => TcpApp::Repeated {
                    size_bytes: size(),
                    mean_think_ns: app.think.expect("checked").0,
                    count: app.count.map(|c| c as u64),
                },
                AppKind::Onoff => unreachable!("handled above"),
            };
            let spec = tcp_spec(sc, fl, i)?;
            if spec.ecn {
                check_route_marks_ecn(sc, fl, i, &links, &there)?;
            }
            let options = if spec.timestamps { TS_OPTION_BYTES } else { 0 };
            let headers = IP_HEADER_BYTES + TCP_HEADER_BYTES + options;
            // The first segment: a whole mss, or the whole transfer if smaller.
            let first_payload = match &tcp_app {
                TcpApp::Bulk => spec.mss,
                TcpApp::File { size_bytes } | TcpApp::Repeated { size_bytes, .. } => {
                    (*size_bytes).min(spec.mss as u64) as u32
                }
            };
            // SYN and SYN-ACK: headers and the MSS and SACK-permitted options
            // (Packet::wire_bytes).
            let handshake = spec
                .handshake
                .then(|| (&back[..], headers + SYN_OPTION_BYTES));
            check_first_packet_arrives(
                sc,
                fl,
                i,
                &links,
                &there,
                headers + first_payload,
                handshake,
                duration,
            )?;
            let ect = spec.ecn || spec.uses_mecn();
            Crossing::add_path(&mut crossing, &there, i, ect);
            Crossing::add_path(&mut crossing, &back, i, false);
            let what = format!(
                "segment of flow[{i}] (mss {}B + {headers}B of headers)",
                spec.mss
            );
            check_fits_queues(sc, &links, &queue_sites, &there, spec.mss + headers, &what)?;
            let what = format!("ACK of flow[{i}] ({headers}B)");
            check_fits_queues(sc, &links, &queue_sites, &back, headers, &what)?;
            flows.push(Flow::tcp(name, src, dst, start, stop, spec, tcp_app, seed));
        }
    }
    check_red_ecn_crossed(sc, &red_ecn_sites, &crossing)?;
    let mut world = World::new(seed, duration, nodes, routes, links, flows);
    world.initial_ttl = ttl;
    world.stalls = stall_processes(sc, seed)?;
    if let Some(ts) = &f.output.timeseries {
        if ts.interval.get_ref().0 < MIN_PERIOD_NS {
            return Err(sc.error_at(
                Some(ts.interval.span()),
                "output.timeseries.interval",
                MIN_PERIOD_REASON,
            ));
        }
        // Samples are taken at 0 s and at the end of each interval: an
        // interval longer than the run ends none in it.
        if ts.interval.get_ref().0 > duration {
            return Err(sc.error_at(
                Some(ts.interval.span()),
                "output.timeseries.interval",
                format!(
                    "{} is longer than the run (simulation.duration = {}): no interval would end in it, \
                     and the only sample would be the one at 0s (the initial state)",
                    show_ns(ts.interval.get_ref().0),
                    show_ns(duration)
                ),
            ));
        }
        if !ts.flows && !ts.links {
            return Err(sc.error_at(
                Some(ts.interval.span()),
                "output.timeseries",
                "flows = false and links = false sample nothing: remove the table",
            ));
        }
        world.series_cfg = Some(SeriesConfig {
            interval_ns: ts.interval.get_ref().0,
            flows: ts.flows,
            links: ts.links,
        });
    }
    Ok(world)
}

/// One agent table of node `id`: fields checked per kind; G-Snoop's `peer`
/// must be a node joined to this one by a link (the wireless link).
/// The first link (in file order) joining each pair of nodes, keyed by
/// (smaller node index, larger).
type FirstLinks = FxHashMap<(u32, u32), u32>;

#[allow(clippy::too_many_arguments)]
fn build_agent(
    sc: &Scenario,
    spanned: &Spanned<AgentSpec>,
    field: &str,
    id: u32,
    (names, index): (&[String], &FxHashMap<String, u32>),
    (ends, first_link): (&[(u32, u32)], &FirstLinks),
    links: &[LinkDir],
) -> Result<Box<dyn NodeAgent>, ScenarioError> {
    let a = spanned.get_ref();
    let span = Some(spanned.span());
    let present = [
        ("peer", a.peer.is_some()),
        ("cache", a.cache.is_some()),
        ("guard", a.guard.is_some()),
        ("wireless_rtt", a.wireless_rtt.is_some()),
        ("min_timeout", a.min_timeout.is_some()),
        ("retries", a.retries.is_some()),
        ("timeout", a.timeout.is_some()),
        ("delay", a.delay.is_some()),
        ("knowledge", a.knowledge.is_some()),
        ("icn", a.icn.is_some()),
    ];
    let kind: (&str, &[&str], &[&str]) = match a.kind {
        AgentKind::Kick => ("kick", &[], &["knowledge"]),
        AgentKind::Snoop => ("snoop", &[], &["min_timeout"]),
        AgentKind::GsnoopA => ("gsnoop_a", &["peer"], &["cache", "icn"]),
        AgentKind::GsnoopB => ("gsnoop_b", &["peer"], &["guard", "wireless_rtt"]),
        AgentKind::Arq => ("arq", &["peer"], &["retries", "timeout"]),
        AgentKind::Dda => ("dda", &["peer"], &["delay"]),
    };
    check_kind_fields(sc, span.clone(), field, kind, &present)?;
    // The wireless link: directions (this -> peer, peer -> this).
    let wireless = || -> Result<(u32, u32, u32), ScenarioError> {
        let p = a.peer.as_ref().expect("checked by check_kind_fields");
        let perr = |msg: String| sc.error_at(Some(p.span()), format!("{field}.peer"), msg);
        let peer = index.get(p.get_ref()).copied().ok_or_else(|| {
            perr(format!(
                "unknown node \"{}\" (nodes: {})",
                p.get_ref(),
                node_list(names)
            ))
        })?;
        if peer == id {
            return Err(perr(
                "must be another node (the far end of the wireless link)".into(),
            ));
        }
        let l = *first_link
            .get(&(id.min(peer), id.max(peer)))
            .ok_or_else(|| {
                perr(format!(
                    "no link joins \"{}\" and \"{}\" (the wireless link)",
                    names[id as usize],
                    p.get_ref()
                ))
            })?;
        let (out, back) = if ends[l as usize].0 == id {
            (2 * l, 2 * l + 1)
        } else {
            (2 * l + 1, 2 * l)
        };
        Ok((peer, out, back))
    };
    Ok(match a.kind {
        AgentKind::Kick => Box::new(KickAwareNode::new(
            id,
            match a.knowledge.as_ref().map(|k| *k.get_ref()) {
                None => NodeKnowledge::default(),
                Some(KickKnowledgeSpec::Exact) => NodeKnowledge::Exact,
                Some(KickKnowledgeSpec::HighestForwarded) => NodeKnowledge::HighestForwarded,
            },
        )),
        AgentKind::Snoop => {
            let mut cfg = SnoopConfig::default();
            if let Some(t) = &a.min_timeout {
                if t.get_ref().0 == 0 {
                    return Err(sc.error_at(
                        Some(t.span()),
                        format!("{field}.min_timeout"),
                        "must be positive",
                    ));
                }
                cfg.min_timeout_ns = t.get_ref().0;
            }
            Box::new(Snoop::new(cfg))
        }
        AgentKind::GsnoopA => {
            let (peer, out, back) = wireless()?;
            let cache = match &a.cache {
                None => 25,
                Some(c) if !(1..=MAX_AGENT_CACHE_PKTS as i64).contains(c.get_ref()) => {
                    return Err(sc.error_at(
                        Some(c.span()),
                        format!("{field}.cache"),
                        format!("must be from 1 to {MAX_AGENT_CACHE_PKTS} packets"),
                    ))
                }
                Some(c) => *c.get_ref() as usize,
            };
            // §3.A's ICN unless switched off (an ablation).
            let icn = a.icn.as_ref().is_none_or(|i| *i.get_ref());
            Box::new(GSnoopA::new(id, peer, out, back, cache).with_icn(icn))
        }
        AgentKind::GsnoopB => {
            let (peer, out, back) = wireless()?;
            let mut cfg = GSnoopBConfig {
                wireless_rtt_ns: links[back as usize].delay_ns + links[out as usize].delay_ns,
                ..Default::default()
            };
            if let Some(g) = &a.guard {
                cfg.guard_ns = g.get_ref().0;
            }
            if let Some(r) = &a.wireless_rtt {
                if r.get_ref().0 == 0 {
                    return Err(sc.error_at(
                        Some(r.span()),
                        format!("{field}.wireless_rtt"),
                        "must be positive",
                    ));
                }
                cfg.wireless_rtt_ns = r.get_ref().0;
            }
            // Data arrives over peer -> this; NACKs and ACKs leave over this -> peer.
            Box::new(GSnoopB::new(id, peer, back, out, cfg))
        }
        AgentKind::Arq => {
            let (peer, out, back) = wireless()?;
            let retries = match &a.retries {
                None => 3,
                Some(r) if !(0..=255).contains(r.get_ref()) => {
                    return Err(sc.error_at(
                        Some(r.span()),
                        format!("{field}.retries"),
                        "must be from 0 to 255",
                    ))
                }
                Some(r) => *r.get_ref() as u8,
            };
            let timeout_ns = match &a.timeout {
                None => wireless_round_trip(links, out, back) * 3 / 2,
                Some(t) if t.get_ref().0 == 0 => {
                    return Err(sc.error_at(
                        Some(t.span()),
                        format!("{field}.timeout"),
                        "must be positive",
                    ))
                }
                Some(t) => t.get_ref().0,
            };
            Box::new(LinkArq::new(
                id,
                peer,
                out,
                ArqConfig {
                    retries,
                    timeout_ns,
                },
            ))
        }
        AgentKind::Dda => {
            // The wireless link as seen from the mobile host: data arrives
            // over peer -> this (`back`).
            let (peer, out, back) = wireless()?;
            let delay_ns = a
                .delay
                .as_ref()
                .map_or(2 * wireless_round_trip(links, back, out), |d| d.get_ref().0);
            Box::new(Dda::new(
                id,
                peer,
                back,
                DdaConfig {
                    delay_ns,
                    undelayed_dups: 2,
                },
            ))
        }
    })
}

/// The WMECN paper's link-layer retransmission is two agents across one
/// wireless link: `arq` at the base station keeps each frame until the
/// `dda` agent at the mobile host link-ACKs it (docs/scenario.md). One
/// without the other never works: an `arq` whose peer has no `dda` hears
/// no link ACK and retransmits every frame; a `dda` whose peer has no
/// `arq` sends link ACKs that nothing reads.
fn check_arq_pairs(sc: &Scenario) -> Result<(), ScenarioError> {
    use rustc_hash::FxHashSet;
    let f = &sc.file;
    let pair_agent = |k: AgentKind| matches!(k, AgentKind::Arq | AgentKind::Dda);
    if !f
        .node
        .iter()
        .any(|n| n.agents.iter().any(|a| pair_agent(a.get_ref().kind)))
    {
        return Ok(());
    }
    // (kind, node, peer) of every arq and dda agent.
    let mut present: FxHashSet<(AgentKind, &str, &str)> = FxHashSet::default();
    for n in &f.node {
        for a in &n.agents {
            let a = a.get_ref();
            if let (true, Some(p)) = (pair_agent(a.kind), &a.peer) {
                present.insert((a.kind, n.name.get_ref().as_str(), p.get_ref().as_str()));
            }
        }
    }
    for (i, n) in f.node.iter().enumerate() {
        for (j, a) in n.agents.iter().enumerate() {
            let (span, a) = (a.span(), a.get_ref());
            let (Some(peer), true) = (&a.peer, pair_agent(a.kind)) else {
                continue;
            };
            let (other, what) = match a.kind {
                AgentKind::Arq => (
                    AgentKind::Dda,
                    "nothing there would link-ACK its frames, so it would retransmit every one",
                ),
                _ => (AgentKind::Arq, "nothing there would read its link ACKs"),
            };
            let name = n.name.get_ref().as_str();
            if !present.contains(&(other, peer.get_ref().as_str(), name)) {
                let kind = |k| if k == AgentKind::Arq { "arq" } else { "dda" };
                return Err(sc.error_at(
                    Some(span),
                    format!("node[{i}].agents[{j}]"),
                    format!(
                        "this {} agent needs a {} agent at its peer \"{}\" with peer = \"{name}\": {what}",
                        kind(a.kind),
                        kind(other),
                        peer.get_ref()
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// One link-layer round trip over the wireless hop: a 1040-byte frame over
/// `data`, a link ACK back over `ack`, and both propagation delays (ARQ and
/// DDA defaults).
fn wireless_round_trip(links: &[LinkDir], data: u32, ack: u32) -> TimeNs {
    let (d, a) = (&links[data as usize], &links[ack as usize]);
    d.delay_ns
        + a.delay_ns
        + crate::sim::tx_time_ns(1040, d.rate_bps)
        + crate::sim::tx_time_ns(crate::agents::arq::LINK_ACK_BYTES, a.rate_bps)
}

/// The node names for an error message: all of a small topology's, the
/// first few of a large one's.
fn node_list(names: &[String]) -> String {
    const SHOWN: usize = 12;
    if names.len() <= SHOWN {
        return names.join(", ");
    }
    format!("{}, ... ({} nodes)", names[..SHOWN].join(", "), names.len())
}

/// `simulation.ttl`: the initial IP TTL, 1 to 255 (an 8-bit field, RFC
/// 791); default 64 (RFC 1700, Linux).
fn initial_ttl(sc: &Scenario) -> Result<u8, ScenarioError> {
    let Some(t) = &sc.file.simulation.ttl else {
        return Ok(DEFAULT_TTL);
    };
    u8::try_from(*t.get_ref())
        .ok()
        .filter(|&v| v >= 1)
        .ok_or_else(|| {
            sc.error_at(
                Some(t.span()),
                "simulation.ttl",
                "must be from 1 to 255 (the IP header's 8-bit TTL)",
            )
        })
}

/// The link directions a packet takes from `src` to `dst` (empty if
/// there is no route). `dirs[l]` is direction l's (from, to).
fn route_path(routes: &mut Routes, dirs: &[(u32, u32)], src: u32, dst: u32) -> Vec<u32> {
    let mut path = Vec::new();
    let mut at = src;
    while at != dst && path.len() <= dirs.len() {
        let l = routes.next_hop(at, dst);
        if l == NO_ROUTE {
            return Vec::new();
        }
        path.push(l);
        at = dirs[l as usize].1;
    }
    path
}

/// RFC 3168 §6.1: an ECN sender acts on an ACK echoing a Congestion
/// Experienced mark, which only a router's active queue sets (§5; a RED
/// queue with `ecn = true`, `mecn`, `wmecn`), and TCP's ACKs are not
/// ECN-capable (§6.1.4): with no marking queue on the data's route (`path`)
/// `ecn = true` changes nothing.
fn check_route_marks_ecn(
    sc: &Scenario,
    fl: &FlowSpec,
    i: usize,
    links: &[LinkDir],
    path: &[u32],
) -> Result<(), ScenarioError> {
    let marks = |q: &QueueDiscipline| match q {
        QueueDiscipline::DropTail(_) => false,
        QueueDiscipline::Red(r) => r.cfg.ecn,
        QueueDiscipline::Mecn(_) | QueueDiscipline::Wmecn(_) => true,
    };
    if path.iter().any(|&l| marks(&links[l as usize].queue)) {
        return Ok(());
    }
    Err(sc.error_at(
        fl.tcp.as_ref().map(|t| t.span()),
        format!("flow[{i}].tcp.ecn"),
        format!(
            "has no effect: no queue on the route from \"{}\" to \"{}\" marks ECN (a red queue with ecn = true, \
             or mecn or wmecn), so no ACK of this flow could echo a mark (RFC 3168 §6.1); add one or remove ecn",
            fl.from.get_ref(),
            fl.to.get_ref()
        ),
    ))
}

/// The SYN's and SYN-ACK's options: MSS (4), SACK-permitted (2) and two
/// bytes of padding (`Packet::wire_bytes`).
const SYN_OPTION_BYTES: u32 = 8;

/// A link crosses a packet in its transmission time at the direction's
/// rate and then its propagation delay, one link after another (store and
/// forward), so a packet of `bytes` sent at time 0 on an idle route
/// arrives at the earliest after the sum over `path` of both. With a
/// handshake (`Some((back, syn_bytes))`) no data leaves before the SYN has
/// crossed the way there and the SYN-ACK the way back. If even the flow's
/// first packet, sent at 0 on idle links, arrives after the end of the
/// run, no byte of the flow can be delivered (a packet arriving exactly at
/// the end is delivered).
///
/// When the way there's propagation delay alone is at least the run
/// (`delay = "10s"` written for "10ms"), the message says so. The rule is
/// the whole run, not the flow's time left after its start: a flow
/// starting late still loads the links it shares (`airtcp bench`'s
/// staggered members start a few ms before the end).
#[allow(clippy::too_many_arguments)]
fn check_first_packet_arrives(
    sc: &Scenario,
    fl: &FlowSpec,
    i: usize,
    links: &[LinkDir],
    there: &[u32],
    bytes: u32,
    handshake: Option<(&[u32], u32)>,
    duration: TimeNs,
) -> Result<(), ScenarioError> {
    let delay = |path: &[u32]| {
        path.iter().fold(0, |sum: TimeNs, &l| {
            sum.saturating_add(links[l as usize].delay_ns)
        })
    };
    let transmission = |path: &[u32], bytes: u32| {
        path.iter().fold(0, |sum: TimeNs, &l| {
            sum.saturating_add(crate::sim::tx_time_ns(bytes, links[l as usize].rate_bps))
        })
    };
    let propagation = delay(there);
    if propagation >= duration {
        return Err(sc.error_at(
            Some(fl.to.span()),
            format!("flow[{i}].to"),
            format!(
                "the route from \"{}\" to \"{}\" has {} of propagation delay, at least the whole run \
                 (simulation.duration = {}): no packet of this flow could arrive in the run; check the links' delay",
                fl.from.get_ref(),
                fl.to.get_ref(),
                show_ns(propagation),
                show_ns(duration)
            ),
        ));
    }
    let data = propagation.saturating_add(transmission(there, bytes));
    let setup = handshake.map_or(0, |(back, syn)| {
        propagation
            .saturating_add(transmission(there, syn))
            .saturating_add(delay(back))
            .saturating_add(transmission(back, syn))
    });
    let earliest = setup.saturating_add(data);
    if earliest <= duration {
        return Ok(());
    }
    let packet = if fl.app.get_ref().kind == AppKind::Onoff {
        format!("its first datagram ({bytes}B)")
    } else {
        format!("its first segment ({bytes}B on the wire)")
    };
    let before = match handshake {
        Some((_, syn)) => format!(
            ", after {} for the handshake (a {syn}B SYN there, the SYN-ACK back),",
            show_seconds(setup)
        ),
        None => String::new(),
    };
    Err(sc.error_at(
        Some(fl.to.span()),
        format!("flow[{i}].to"),
        format!(
            "{packet} sent at 0s{before} would reach \"{}\" from \"{}\" at {} at the earliest \
             (each link's delay plus its transmission time at the link's rate), after the end of \
             the run (simulation.duration = {}): no byte of this flow could arrive; check the links' \
             delay and rate",
            fl.to.get_ref(),
            fl.from.get_ref(),
            show_seconds(earliest),
            show_ns(duration)
        ),
    ))
}

/// A time in seconds to the nanosecond, without trailing zeros:
/// "10.000001s", "19.800768s", "10s".
fn show_seconds(t: TimeNs) -> String {
    let frac = format!("{:09}", t % NS_PER_S);
    let frac = frac.trim_end_matches('0');
    if frac.is_empty() {
        format!("{}s", t / NS_PER_S)
    } else {
        format!("{}.{frac}s", t / NS_PER_S)
    }
}

/// The flows whose packets cross one link direction: a few of their
/// indices for a message, how many, and whether ECN-capable data does.
#[derive(Clone, Debug, Default)]
struct Crossing {
    first: Vec<usize>,
    flows: usize,
    ect_data: bool,
}

impl Crossing {
    const SHOWN: usize = 3;

    /// Flow `flow` crosses every direction of `path` (a table left empty
    /// when nothing is to be checked records nothing).
    fn add_path(table: &mut [Crossing], path: &[u32], flow: usize, ect_data: bool) {
        if table.is_empty() {
            return;
        }
        for &l in path {
            table[l as usize].add(flow, ect_data);
        }
    }

    /// Flow `flow` crosses the direction (once per route: a route never
    /// takes a direction twice, nor the way there and back the same one).
    fn add(&mut self, flow: usize, ect_data: bool) {
        self.ect_data |= ect_data;
        self.flows += 1;
        if self.first.len() < Self::SHOWN {
            self.first.push(flow);
        }
    }
}

/// RFC 3168 §5: a RED queue with `ecn = true` marks an ECN-capable packet
/// where it would drop it early, and drops a packet that is not
/// ECN-capable as a RED queue without ECN does (`Red::decide`). Only the
/// data of an ECN flow (`ecn = true`, or multi-level ECN) is ECN-capable:
/// ACKs and UDP datagrams are not (§6.1.4). So where a queue table with
/// `ecn = true` is crossed by flows of which none sends ECN-capable data
/// through it, no mark can happen and the queue runs exactly as a
/// dropping RED: the field has no effect. A queue no flow crosses at all
/// is accepted, as any other queue on an unused direction is.
fn check_red_ecn_crossed(
    sc: &Scenario,
    sites: &[(u32, String, std::ops::Range<usize>)],
    crossing: &[Crossing],
) -> Result<(), ScenarioError> {
    // A link's `queue` table serves both its directions (unless one is
    // overridden): the field acts if ECN data crosses either.
    let mut by_field: FxHashMap<&str, Vec<u32>> = FxHashMap::default();
    for (dir, field, _) in sites {
        by_field.entry(field.as_str()).or_default().push(*dir);
    }
    for (_, field, span) in sites {
        let Some(dirs) = by_field.remove(field.as_str()) else {
            continue;
        };
        let cross: Vec<&Crossing> = dirs.iter().map(|&d| &crossing[d as usize]).collect();
        if cross.iter().any(|c| c.ect_data) || cross.iter().all(|c| c.flows == 0) {
            continue;
        }
        let mut shown: Vec<usize> = cross.iter().flat_map(|c| c.first.iter().copied()).collect();
        shown.sort_unstable();
        shown.dedup();
        let more = cross.iter().any(|c| c.flows > c.first.len()) || shown.len() > Crossing::SHOWN;
        let mut names: Vec<String> = shown
            .iter()
            .take(Crossing::SHOWN)
            .map(|&j| sc.members.user_field(&format!("flow[{j}]")))
            .collect();
        if more {
            names.push("others".to_string());
        }
        return Err(sc.error_at(
            Some(span.clone()),
            format!("{field}.ecn"),
            format!(
                "has no effect: no ECN-capable data crosses this queue (it is crossed by {}: UDP, \
                 flows without ecn = true or multi-level ECN, or only their ACKs, which are not \
                 ECN-capable, RFC 3168 §6.1.4), so it never marks and drops as a red queue without \
                 ecn does; remove ecn or give a flow through it ecn = true",
                names.join(", ")
            ),
        ));
    }
    Ok(())
}

/// A packet of `bytes` on the wire must fit every byte-limited queue on
/// `path`: a larger one is dropped even by an empty queue, so the setup
/// could never deliver anything.
fn check_fits_queues(
    sc: &Scenario,
    links: &[LinkDir],
    sites: &[(String, Option<std::ops::Range<usize>>)],
    path: &[u32],
    bytes: u32,
    what: &str,
) -> Result<(), ScenarioError> {
    for &l in path {
        if let QueueLimit::Bytes(limit) = links[l as usize].queue.limit() {
            if limit < bytes as u64 {
                let (field, span) = &sites[l as usize];
                return Err(sc.error_at(
                    span.clone(),
                    field.clone(),
                    format!(
                        "{limit}B cannot hold one {what}, {bytes}B on the wire: \
                         no such packet could ever enter this queue"
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// A time for messages: "10s", "250ms", "1500ns".
fn show_ns(t: TimeNs) -> String {
    if t.is_multiple_of(NS_PER_S) {
        format!("{}s", t / NS_PER_S)
    } else if t.is_multiple_of(NS_PER_MS) {
        format!("{}ms", t / NS_PER_MS)
    } else {
        format!("{t}ns")
    }
}

fn queue_limit(c: QueueCapacity) -> QueueLimit {
    match c {
        QueueCapacity::Packets(n) => QueueLimit::Packets(n),
        QueueCapacity::Bytes(b) => QueueLimit::Bytes(b),
    }
}

/// Check that a table with a `kind` has every field its kind needs and none
/// that it does not take. `kind` is (name, required, optional).
fn check_kind_fields(
    sc: &Scenario,
    span: Option<std::ops::Range<usize>>,
    field: &str,
    (kind, required, optional): (&str, &[&str], &[&str]),
    present: &[(&str, bool)],
) -> Result<(), ScenarioError> {
    for (name, is) in present {
        if *is && !required.contains(name) && !optional.contains(name) {
            return Err(sc.error_at(
                span,
                format!("{field}.{name}"),
                format!("not used by kind \"{kind}\""),
            ));
        }
    }
    for r in required {
        if !present.iter().any(|(n, is)| n == r && *is) {
            return Err(sc.error_at(span, field, format!("kind \"{kind}\" needs `{r}`")));
        }
    }
    Ok(())
}

fn build_queue(
    sc: &Scenario,
    q: Option<&Spanned<QueueSpec>>,
    rate_bps: u64,
    field: &str,
) -> Result<QueueDiscipline, ScenarioError> {
    let Some(spanned) = q else {
        return Ok(QueueDiscipline::DropTail(DropTail::new(
            QueueLimit::Packets(DEFAULT_QUEUE_PKTS),
        )));
    };
    let q = spanned.get_ref();
    let present = [
        ("limit", q.limit.is_some()),
        ("min_th", q.min_th.is_some()),
        ("max_th", q.max_th.is_some()),
        ("weight", q.weight.is_some()),
        ("max_p", q.max_p.is_some()),
        ("gentle", q.gentle.is_some()),
        ("wait", q.wait.is_some()),
        ("ecn", q.ecn.is_some()),
        ("mean_packet_size", q.mean_packet_size.is_some()),
        ("mid_th", q.mid_th.is_some()),
        ("max_p1", q.max_p1.is_some()),
        ("max_p2", q.max_p2.is_some()),
        ("not_ect", q.not_ect.is_some()),
    ];
    let kind: (&str, &[&str], &[&str]) = match q.kind {
        QueueKind::Droptail => ("droptail", &["limit"], &[]),
        QueueKind::PerFlow => ("per_flow", &["limit"], &[]),
        QueueKind::Red => (
            "red",
            &["limit", "min_th", "max_th"],
            &[
                "weight",
                "max_p",
                "gentle",
                "wait",
                "ecn",
                "mean_packet_size",
            ],
        ),
        QueueKind::Mecn => (
            "mecn",
            &["limit", "min_th", "mid_th", "max_th"],
            &["weight", "max_p1", "max_p2", "mean_packet_size"],
        ),
        QueueKind::Wmecn => (
            "wmecn",
            &["limit", "min_th", "mid_th", "max_th"],
            &["weight", "max_p", "mean_packet_size", "not_ect"],
        ),
    };
    check_kind_fields(sc, Some(spanned.span()), field, kind, &present)?;
    let limit_spec = q.limit.as_ref().expect("checked by check_kind_fields");
    let limit = match limit_spec.get_ref().0 {
        QueueCapacity::Packets(0) => {
            return Err(sc.error_at(
                Some(limit_spec.span()),
                format!("{field}.limit"),
                "must be at least 1 packet",
            ));
        }
        QueueCapacity::Bytes(b) if b < 40 => {
            return Err(sc.error_at(
                Some(limit_spec.span()),
                format!("{field}.limit"),
                "must hold at least one packet (40B)",
            ));
        }
        c => queue_limit(c),
    };
    Ok(match q.kind {
        // Per-flow service replaces the FIFO; see `per_flow_service`.
        QueueKind::Droptail | QueueKind::PerFlow => QueueDiscipline::DropTail(DropTail::new(limit)),
        QueueKind::Red => {
            let min_th = q.min_th.as_ref().expect("checked by check_kind_fields");
            let [lo, hi] = increasing_thresholds(
                sc,
                field,
                [
                    ("min_th", min_th),
                    ("max_th", q.max_th.as_ref().expect("checked")),
                ],
            )?;
            // Floyd & Jacobson 1993 recommend w_q = 0.002.
            let weight = q.weight.as_ref().map_or(0.002, |w| *w.get_ref());
            if weight.is_nan() || weight <= 0.0 || weight > 1.0 {
                let span = q.weight.as_ref().map(|w| w.span());
                return Err(sc.error_at(span, format!("{field}.weight"), "must be in (0, 1]"));
            }
            check_min_th_reachable(sc, min_th, limit, weight, field)?;
            let cfg = RedConfig {
                limit,
                min_th_pkts: lo,
                max_th_pkts: hi,
                weight,
                max_p: q.max_p.map_or(0.1, |p| p.0),
                gentle: q.gentle.unwrap_or(false),
                wait: q.wait.unwrap_or(false),
                ecn: q.ecn.unwrap_or(false),
                mean_pkt_bytes: mean_packet_size(sc, spanned, field)?,
            };
            QueueDiscipline::Red(Red::new(cfg, rate_bps))
        }
        QueueKind::Mecn | QueueKind::Wmecn => {
            let cfg = multi_level_config(sc, spanned, limit, field)?;
            if q.kind == QueueKind::Mecn {
                let p = |x: &Option<Spanned<super::units::Probability>>| {
                    x.as_ref().map_or(0.1, |p| p.get_ref().0)
                };
                let (p1, p2) = (p(&q.max_p1), p(&q.max_p2));
                if p1 + p2 > 1.0 {
                    return Err(sc.error_at(
                        q.max_p2.as_ref().or(q.max_p1.as_ref()).map(|p| p.span()),
                        format!("{field}.max_p2"),
                        "max_p1 + max_p2 must not exceed 1 (one draw decides both marks)",
                    ));
                }
                QueueDiscipline::Mecn(Mecn::new(cfg, p1, p2, rate_bps))
            } else {
                let max_p = q.max_p.map_or(0.1, |p| p.0);
                let not_ect = match q.not_ect {
                    None | Some(NotEctSpec::RandomMarks) => NotEctPolicy::RandomMarks,
                    Some(NotEctSpec::EveryMark) => NotEctPolicy::EveryMark,
                };
                QueueDiscipline::Wmecn(Wmecn::new(cfg, max_p, rate_bps).with_not_ect(not_ect))
            }
        }
    })
}

/// The average queue of RED and its multi-level kin is a moving average
/// of the queue, so with a limit in packets it never exceeds the limit
/// (nor reaches it unless `weight` is 1): a `min_th` beyond that is never
/// reached, and the queue would never mark or drop early, leaving every
/// field but `limit` without effect.
fn check_min_th_reachable(
    sc: &Scenario,
    min_th: &Spanned<f64>,
    limit: QueueLimit,
    weight: f64,
    field: &str,
) -> Result<(), ScenarioError> {
    let QueueLimit::Packets(n) = limit else {
        return Ok(());
    };
    let th = *min_th.get_ref();
    let reached = if weight >= 1.0 {
        th <= n as f64
    } else {
        th < n as f64
    };
    if reached {
        return Ok(());
    }
    Err(sc.error_at(
        Some(min_th.span()),
        format!("{field}.min_th"),
        format!(
            "{th} packets is never reached: the average queue stays below the limit of {n} packets, \
             so the queue would never mark or drop early (lower min_th or raise limit)"
        ),
    ))
}

/// A queue's `mean_packet_size` (RED's idle ageing): 1B to 65535B, the
/// sizes an IP packet can have; default 1000B (ns-2).
fn mean_packet_size(
    sc: &Scenario,
    q: &Spanned<QueueSpec>,
    field: &str,
) -> Result<u32, ScenarioError> {
    match q.get_ref().mean_packet_size {
        None => Ok(1000),
        Some(s) if (1..=65_535).contains(&s.0) => Ok(s.0 as u32),
        Some(_) => Err(sc.error_at(
            Some(q.span()),
            format!("{field}.mean_packet_size"),
            "must be from 1B to 65535B (an IP packet's size)",
        )),
    }
}

/// The thresholds of a RED-family queue, named and in order: each a finite
/// number of packets of the average queue (an infinite one is never
/// reached), the first not negative, each greater than the one before.
fn increasing_thresholds<const N: usize>(
    sc: &Scenario,
    field: &str,
    named: [(&str, &Spanned<f64>); N],
) -> Result<[f64; N], ScenarioError> {
    let mut out = [0.0; N];
    for (k, (name, t)) in named.iter().enumerate() {
        let v = *t.get_ref();
        let problem = if !v.is_finite() {
            Some(format!("must be a finite number of packets, got {v}"))
        } else if k == 0 && v < 0.0 {
            Some("must not be negative".to_string())
        } else if k > 0 && v <= out[k - 1] {
            Some(format!("must be greater than {}", named[k - 1].0))
        } else {
            None
        };
        if let Some(problem) = problem {
            return Err(sc.error_at(Some(t.span()), format!("{field}.{name}"), problem));
        }
        out[k] = v;
    }
    Ok(out)
}

/// Thresholds and averaging of an `mecn` or `wmecn` queue:
/// 0 <= min_th < mid_th < max_th.
fn multi_level_config(
    sc: &Scenario,
    spanned: &Spanned<QueueSpec>,
    limit: QueueLimit,
    field: &str,
) -> Result<MultiLevelConfig, ScenarioError> {
    let q = spanned.get_ref();
    fn th(x: &Option<Spanned<f64>>) -> &Spanned<f64> {
        x.as_ref().expect("checked by check_kind_fields")
    }
    let [lo, mid, hi] = increasing_thresholds(
        sc,
        field,
        [
            ("min_th", th(&q.min_th)),
            ("mid_th", th(&q.mid_th)),
            ("max_th", th(&q.max_th)),
        ],
    )?;
    let weight = q.weight.as_ref().map_or(0.002, |w| *w.get_ref());
    if weight.is_nan() || weight <= 0.0 || weight > 1.0 {
        let span = q.weight.as_ref().map(|w| w.span());
        return Err(sc.error_at(span, format!("{field}.weight"), "must be in (0, 1]"));
    }
    let min_th = q.min_th.as_ref().expect("checked by check_kind_fields");
    check_min_th_reachable(sc, min_th, limit, weight, field)?;
    Ok(MultiLevelConfig {
        limit,
        min_th_pkts: lo,
        mid_th_pkts: mid,
        max_th_pkts: hi,
        weight,
        mean_pkt_bytes: mean_packet_size(sc, spanned, field)?,
    })
}

fn filter(a: AppliesTo) -> PacketFilter {
    match a {
        AppliesTo::All => PacketFilter::All,
        AppliesTo::Data => PacketFilter::Data,
        AppliesTo::Acks => PacketFilter::Acks,
    }
}

/// Stream names are "channel:<dir>" and "fading:<dir>": a channel's draws
/// depend only on the seed and the link direction's name.
fn build_channel(
    sc: &Scenario,
    e: Option<&Spanned<ErrorSpec>>,
    seed: u64,
    name: &str,
    field: &str,
) -> Result<Channel, ScenarioError> {
    use crate::net::channel::gilbert_elliott::{
        InitialState as GeInitialState, LossRule as GeLossRule,
    };
    let Some(spanned) = e else {
        return Ok(Channel::perfect());
    };
    let e = spanned.get_ref();
    let present = [
        ("per", e.per.is_some()),
        ("ber", e.ber.is_some()),
        ("mean_good", e.mean_good.is_some()),
        ("mean_bad", e.mean_bad.is_some()),
        ("loss_good", e.loss_good.is_some()),
        ("loss_bad", e.loss_bad.is_some()),
        ("loss_rule", e.loss_rule.is_some()),
        ("initial_state", e.initial_state.is_some()),
        ("packets", e.packets.is_some()),
        ("switch_probability", e.switch_probability.is_some()),
        ("extra_delay", e.extra_delay.is_some()),
    ];
    let kind: (&str, &[&str], &[&str]) = match e.kind {
        ErrorKind::Bernoulli => ("bernoulli", &["per"], &[]),
        ErrorKind::Ber => ("ber", &["ber"], &[]),
        ErrorKind::GilbertElliott => (
            "gilbert_elliott",
            &["mean_good", "mean_bad"],
            &["loss_good", "loss_bad", "loss_rule", "initial_state"],
        ),
        ErrorKind::DropList => ("drop_list", &["packets"], &[]),
        ErrorKind::RouteChange => ("route_change", &["switch_probability", "extra_delay"], &[]),
    };
    check_kind_fields(sc, Some(spanned.span()), field, kind, &present)?;
    let rng = RandomStream::new(seed, &format!("channel:{name}"));
    let model = match e.kind {
        ErrorKind::Bernoulli => ChannelModel::Bernoulli(Bernoulli {
            per: e.per.expect("checked").0,
        }),
        ErrorKind::Ber => ChannelModel::BitErrorRate(BitErrorRate::new(e.ber.expect("checked").0)),
        ErrorKind::GilbertElliott => {
            // Sojourns shorter than a microsecond would make the fading
            // process, not the traffic, dominate the run time.
            let mean = |d: &Option<Spanned<Duration>>, n: &str| -> Result<TimeNs, ScenarioError> {
                let d = d.as_ref().expect("checked");
                match d.get_ref().0 {
                    v if v >= MIN_PERIOD_NS => Ok(v),
                    _ => {
                        Err(sc.error_at(Some(d.span()), format!("{field}.{n}"), MIN_PERIOD_REASON))
                    }
                }
            };
            let (mean_good, mean_bad) = (
                mean(&e.mean_good, "mean_good")?,
                mean(&e.mean_bad, "mean_bad")?,
            );
            let (loss_good, loss_bad) = (
                e.loss_good.map_or(0.0, |p| p.0),
                e.loss_bad.map_or(1.0, |p| p.0),
            );
            // Each packet is one draw at the loss probability of its state
            // (GilbertElliott::is_lost): with both equal the state decides
            // nothing, and neither do the fields that drive it.
            if loss_good == loss_bad {
                return Err(sc.error_at(
                    Some(spanned.span()),
                    format!("{field}.loss_bad"),
                    format!(
                        "equals loss_good ({loss_good}): the state never changes a packet's fate, so mean_good, \
                         mean_bad, loss_rule and initial_state have no effect; this is kind = \"bernoulli\", per = {loss_good}"
                    ),
                ));
            }
            let mut fading = RandomStream::new(seed, &format!("fading:{name}"));
            ChannelModel::GilbertElliott(GilbertElliott::with_options(
                mean_good,
                mean_bad,
                loss_good,
                loss_bad,
                match e.loss_rule.unwrap_or(GeLossRuleSpec::Start) {
                    GeLossRuleSpec::Start => GeLossRule::AtStart,
                    GeLossRuleSpec::During => GeLossRule::AnyBadDuringTransmission,
                },
                match e.initial_state.unwrap_or(GeInitialStateSpec::Stationary) {
                    GeInitialStateSpec::Stationary => GeInitialState::Stationary,
                    GeInitialStateSpec::Good => GeInitialState::Good,
                    GeInitialStateSpec::Bad => GeInitialState::Bad,
                },
                &mut fading,
            ))
        }
        ErrorKind::DropList => {
            let packets = e.packets.clone().expect("checked");
            if packets.iter().any(|&p| p < 1) {
                return Err(sc.error_at(
                    Some(spanned.span()),
                    format!("{field}.packets"),
                    "packets are counted from 1: 0 or a negative number would never be dropped",
                ));
            }
            let mut sorted = packets.clone();
            sorted.sort_unstable();
            if let Some(twice) = sorted.windows(2).find(|w| w[0] == w[1]) {
                return Err(sc.error_at(
                    Some(spanned.span()),
                    format!("{field}.packets"),
                    format!(
                        "packet {} is listed twice: the second drops nothing more",
                        twice[0]
                    ),
                ));
            }
            ChannelModel::DropList(DropList::new(
                packets.into_iter().map(|p| p as u64).collect(),
            ))
        }
        ErrorKind::RouteChange => {
            let (switch_probability, extra_delay_ns) = (
                e.switch_probability.expect("checked").0,
                e.extra_delay.expect("checked").0,
            );
            // Both routes take the same time (RouteChange::delay_for adds
            // 0 on either): a switch reorders nothing.
            if switch_probability > 0.0 && extra_delay_ns == 0 {
                return Err(sc.error_at(
                    Some(spanned.span()),
                    format!("{field}.switch_probability"),
                    "has no effect: extra_delay = 0s, so both routes take the same time and a switch \
                     reorders nothing; give extra_delay a duration, or write switch_probability = 0",
                ));
            }
            ChannelModel::RouteChange(RouteChange::new(switch_probability, extra_delay_ns))
        }
    };
    Ok(Channel::new(model, filter(e.applies_to), rng))
}

fn tcp_spec(sc: &Scenario, fl: &FlowSpec, i: usize) -> Result<TcpSpec, ScenarioError> {
    let default = TcpFileSpec::default();
    let (t, span) = match &fl.tcp {
        Some(s) => (s.get_ref(), Some(s.span())),
        None => (&default, None),
    };
    let err =
        |field: &str, msg: &str| sc.error_at(span.clone(), format!("flow[{i}].tcp.{field}"), msg);
    // A count read as any TOML integer: 1 to 2^32 - 1, never wrapped.
    let positive_u32 = |field: &str, v: i64| -> Result<u32, ScenarioError> {
        u32::try_from(v)
            .ok()
            .filter(|&v| v >= 1)
            .ok_or_else(|| err(field, "must be from 1 to 4294967295 (2^32 − 1)"))
    };
    let variant = match t.variant.unwrap_or(VariantSpec::Newreno) {
        VariantSpec::Tahoe => Variant::Tahoe,
        VariantSpec::Reno => Variant::Reno,
        VariantSpec::Newreno => Variant::NewReno,
        VariantSpec::Sack => Variant::Sack,
    };
    let sack = t.sack.unwrap_or(false);
    if sack && variant == Variant::Tahoe {
        return Err(err(
            "sack",
            "Tahoe has no SACK recovery: use reno, newreno or sack",
        ));
    }
    if t.sack == Some(false) && variant == Variant::Sack {
        return Err(err(
            "sack",
            "variant = \"sack\" is SACK loss recovery, which sack = false contradicts: remove `sack`",
        ));
    }
    let mss = t.mss.map_or(1000, |s| s.0);
    if !(1..=65_495).contains(&mss) {
        return Err(err("mss", "must be between 1B and 65495B"));
    }
    let rto_default = RtoConfig::default();
    let rto = RtoConfig {
        initial_rto_ns: t.initial_rto.map_or(rto_default.initial_rto_ns, |d| d.0),
        min_rto_ns: t.min_rto.map_or(rto_default.min_rto_ns, |d| d.0),
        max_rto_ns: t.max_rto.map_or(rto_default.max_rto_ns, |d| d.0),
        clock_granularity_ns: t
            .clock_granularity
            .map_or(rto_default.clock_granularity_ns, |d| d.0),
        max_backoff: t
            .max_backoff
            .map(|b| positive_u32("max_backoff", b))
            .transpose()?,
        rtt_tick_ns: t.rtt_tick.map(|d| d.0),
        // Drawn per connection when `rtt_tick_phase = "random"`.
        rtt_tick_phase_ns: 0,
    };
    if t.rtt_tick.is_some_and(|d| d.0 == 0) {
        return Err(err("rtt_tick", "must be positive"));
    }
    for (name, v) in [
        ("initial_rto", rto.initial_rto_ns),
        ("min_rto", rto.min_rto_ns),
        ("max_rto", rto.max_rto_ns),
    ] {
        if v < MIN_TIMER_NS {
            return Err(err(name, MIN_TIMER_REASON));
        }
    }
    if t.rtt_tick_phase.is_some() && t.rtt_tick.is_none() {
        return Err(err(
            "rtt_tick_phase",
            "has no effect without rtt_tick (RTT samples are exact)",
        ));
    }
    if rto.max_rto_ns < rto.min_rto_ns {
        return Err(err("max_rto", "must not be less than min_rto"));
    }
    if rto.initial_rto_ns > rto.max_rto_ns {
        return Err(err(
            "initial_rto",
            "must not exceed max_rto (RFC 6298 (2.5))",
        ));
    }
    if let Some(cap) = rto.max_backoff {
        check_max_backoff_binds(&rto, cap).map_err(|msg| err("max_backoff", &msg))?;
    }
    let initial_cwnd = t
        .initial_cwnd
        .unwrap_or_else(|| SenderConfig::rfc5681_initial_window(mss as u32).into());
    if initial_cwnd < 1 {
        return Err(err("initial_cwnd", "must be at least 1 segment"));
    }
    if (initial_cwnd as u64).saturating_mul(mss) > MAX_WINDOW_BYTES {
        return Err(err(
            "initial_cwnd",
            &format!(
                "{initial_cwnd} segments of {mss}B exceed 2^30 bytes, the largest window TCP \
                 can use (RFC 7323 §2.3): at most {} segments",
                MAX_WINDOW_BYTES / mss
            ),
        ));
    }
    let rwnd = t.rwnd.map_or(1_000_000, |s| s.0);
    if rwnd < mss {
        return Err(err("rwnd", "must hold at least one segment (mss)"));
    }
    if rwnd > MAX_WINDOW_BYTES {
        return Err(err(
            "rwnd",
            "must be at most 2^30 bytes (1GiB), the largest window TCP can advertise (RFC 7323 §2.3)",
        ));
    }
    if t.initial_ssthresh.is_some_and(|s| s.0 < 2 * mss) {
        return Err(err(
            "initial_ssthresh",
            "must be at least 2 segments (2 × mss): RFC 5681 never sets ssthresh lower",
        ));
    }
    let dupthresh = t
        .dupthresh
        .map_or(Ok(3), |v| positive_u32("dupthresh", v))?;
    // RFC 3042 §2: Limited Transmit sends on the duplicate ACKs before the
    // threshold; with a threshold of 1 there are none.
    if dupthresh == 1 && t.limited_transmit.is_some() {
        return Err(err(
            "limited_transmit",
            "has no effect with dupthresh = 1: Limited Transmit sends on the duplicate ACKs before the threshold (RFC 3042 §2), and the first one already starts fast retransmit; remove it",
        ));
    }
    let delack_segments = t
        .delack_segments
        .map_or(Ok(2), |v| positive_u32("delack_segments", v))?;
    let delack_timeout = t.delack_timeout.map_or(200 * NS_PER_MS, |d| d.0);
    let delayed_ack = t.delayed_ack.unwrap_or(true);
    if delayed_ack && delack_timeout > NS_PER_S / 2 {
        return Err(err(
            "delack_timeout",
            "must be at most 500ms (RFC 5681 §4.2)",
        ));
    }
    for (field, set) in [
        ("delack_timeout", t.delack_timeout.is_some()),
        ("delack_segments", t.delack_segments.is_some()),
    ] {
        if set && !delayed_ack {
            return Err(err(
                field,
                "has no effect with delayed_ack = false (the receiver ACKs every segment)",
            ));
        }
    }
    let loss_detection = match &t.loss_detection {
        None => LossDetector::DupAck,
        Some(s) => {
            let detector = match s.get_ref() {
                LossDetectionSpec::Dupack => LossDetector::DupAck,
                LossDetectionSpec::RackTlp => LossDetector::RackTlp,
                LossDetectionSpec::Rack => LossDetector::Rack,
            };
            if detector.uses_rack() && !(sack || variant == Variant::Sack) {
                return Err(sc.error_at(
                    Some(s.span()),
                    format!("flow[{i}].tcp.loss_detection"),
                    format!(
                        "\"{}\" needs SACK (RFC 8985 §4): set variant = \"sack\"",
                        detector.name()
                    ),
                ));
            }
            detector
        }
    };
    let slow_start = match t.slow_start {
        None | Some(SlowStartSpec::Rfc5681) => SlowStart::Rfc5681,
        // RFC 9406 §4.2 needs N_RTT_SAMPLE (8) RTT samples per round; without
        // timestamps the sender times one segment per round trip.
        Some(SlowStartSpec::HyStartPlusPlus) if !t.timestamps() => {
            return Err(err(
                "slow_start",
                "\"hystart++\" needs timestamps = true: RFC 9406 takes 8 RTT samples per round, and without timestamps the sender times one segment per round trip",
            ));
        }
        Some(SlowStartSpec::HyStartPlusPlus) => SlowStart::HyStartPlusPlus,
    };
    let classifier = classifier_config(sc, t, i)?;
    let cc = cc_config(sc, t, i)?;
    let mecn =
        matches!(cc, CcChoice::Mecn(_)) || matches!(classifier, Some(ClassifierChoice::Wmecn(_)));
    if mecn && t.ecn == Some(true) {
        return Err(err(
            "ecn",
            "multi-level ECN (an mecn/wmecn cc or the wmecn classifier) replaces RFC 3168 ECN: remove `ecn`",
        ));
    }
    // Options of RFC 6675's SACK loss recovery: without SACK nothing reads them.
    let sack_recovery = sack || variant == Variant::Sack;
    for (field, on) in [
        ("rescue_retransmission", t.rescue_retransmission),
        (
            "restart_rto_on_recovery_retransmission",
            t.restart_rto_on_recovery_retransmission,
        ),
    ] {
        if on == Some(true) && !sack_recovery {
            return Err(err(
                field,
                "has no effect without SACK (an RFC 6675 option): set variant = \"sack\" or sack = true",
            ));
        }
    }
    if t.proportional_rate_reduction == Some(true) && variant == Variant::Tahoe {
        return Err(err(
            "proportional_rate_reduction",
            "is not offered with Tahoe, which has no fast recovery for RFC 9937 PRR to pace (it slow-starts from one segment; its ECN-Echo reductions stay at once): use reno, newreno or sack",
        ));
    }
    if t.reno_one_fast_retransmit_per_window == Some(true)
        && (variant != Variant::Reno || sack_recovery)
    {
        return Err(err(
            "reno_one_fast_retransmit_per_window",
            "has no effect here: it is a rule of Reno's recovery without SACK (ns-2's bug_fix_); set variant = \"reno\" without SACK",
        ));
    }
    if t.timeout_in_recovery_ssthresh.is_some() && variant == Variant::Tahoe {
        return Err(err(
            "timeout_in_recovery_ssthresh",
            "has no effect with Tahoe, which has no fast recovery for a timeout to interrupt",
        ));
    }
    let dclor = t
        .timeout_response
        .as_ref()
        .is_some_and(|r| *r.get_ref() == TimeoutResponseSpec::Dclor);
    if t.dclor_requires_sack_block.is_some() && !dclor {
        return Err(err(
            "dclor_requires_sack_block",
            "has no effect without timeout_response = \"dclor\"",
        ));
    }
    let ecn_capable_retransmissions = t.ecn_capable_retransmissions.unwrap_or(false);
    if ecn_capable_retransmissions && !mecn && t.ecn != Some(true) {
        return Err(err(
            "ecn_capable_retransmissions",
            "has no effect without ECN: set `ecn = true` or use multi-level ECN (an mecn/wmecn cc or the wmecn classifier)",
        ));
    }
    let mark_window_floor = match t.mark_min_cwnd {
        None | Some(2) => MarkWindowFloor::TwoSegments,
        Some(1) => MarkWindowFloor::OneSegment,
        Some(_) => {
            return Err(err(
                "mark_min_cwnd",
                "must be 1 (RFC 3168 §6.1.2 halves cwnd, down to one segment, as ns-2) or 2 (RFC 5681's floor, as Linux) segments",
            ))
        }
    };
    // A mark reduces cwnd through RFC 3168's ECN-Echo (except CUBIC's,
    // which goes to one segment whatever this says: RFC 9438 §4.6) or an
    // mecn/wmecn cc's mark response; the wmecn classifier alone reads marks
    // without reducing on them.
    if t.mark_min_cwnd.is_some() {
        let cubic = matches!(cc, CcChoice::Cubic(_));
        let marks_reduce = matches!(cc, CcChoice::Mecn(_)) || (t.ecn == Some(true) && !cubic);
        if !marks_reduce {
            return Err(err(
                "mark_min_cwnd",
                if cubic {
                    "has no effect with cc = \"cubic\": CUBIC's ECN-Echo reduction already goes down to one segment (RFC 9438 §4.6)"
                } else {
                    "has no effect: no congestion mark reduces this flow's window; set `ecn = true` or use an mecn/wmecn cc"
                },
            ));
        }
    }
    Ok(TcpSpec {
        loss_detection,
        slow_start,
        variant,
        sack,
        mss: mss as u32,
        // At most 2^30 segments (checked above).
        initial_cwnd_segments: initial_cwnd as u32,
        initial_ssthresh_bytes: t.initial_ssthresh.map_or(UNBOUNDED_SSTHRESH_BYTES, |s| s.0),
        rwnd_bytes: rwnd,
        timestamps: t.timestamps(),
        ecn: t.ecn.unwrap_or(false),
        handshake: t.handshake.unwrap_or(false),
        rto,
        delack_timeout_ns: if delayed_ack {
            Some(delack_timeout)
        } else {
            None
        },
        delack_segments,
        dupthresh,
        restart_rto_on_fast_retransmit: t.restart_rto_on_fast_retransmit.unwrap_or(true),
        // The sender's in-memory event log is a Rust diagnostic
        // (World::record_sender_events); `tcp.trace` selects the flow for the
        // per-packet trace (scenario/observe.rs).
        trace: false,
        limited_transmit: t.limited_transmit.unwrap_or(true),
        ecn_capable_retransmissions,
        mark_window_floor,
        rescue_retransmission: t.rescue_retransmission.unwrap_or(false),
        proportional_rate_reduction: t.proportional_rate_reduction.unwrap_or(false),
        restart_rto_on_recovery_retransmission: t
            .restart_rto_on_recovery_retransmission
            .unwrap_or(false),
        timeout_in_recovery_ssthresh: match t.timeout_in_recovery_ssthresh {
            None | Some(TimeoutInRecoverySsthreshSpec::Keep) => TimeoutInRecoverySsthresh::Keep,
            Some(TimeoutInRecoverySsthreshSpec::FlightSize) => {
                TimeoutInRecoverySsthresh::FlightSize
            }
        },
        reno_one_fast_retransmit_per_window: t.reno_one_fast_retransmit_per_window.unwrap_or(false),
        rtt_tick_random_phase: t.rtt_tick_phase == Some(RttTickPhaseSpec::Random),
        classifier,
        cc,
        timeout_response: timeout_response(sc, t, i)?,
        kick: match &t.kick {
            None => None,
            Some(k) => {
                let spec = k.interval.get_ref().as_str();
                let interval = if spec == "rtt" || spec == "srtt" {
                    let before_sample_ns = k.before_sample.map_or(rto.initial_rto_ns, |d| d.0);
                    if before_sample_ns < MIN_TIMER_NS {
                        return Err(err("kick.before_sample", MIN_TIMER_REASON));
                    }
                    KickInterval::SmoothedRtt { before_sample_ns }
                } else {
                    if k.before_sample.is_some() {
                        return Err(err(
                            "kick.before_sample",
                            "only used with interval = \"rtt\" (a fixed interval needs no estimate before the first RTT sample)",
                        ));
                    }
                    match parse_duration_ns(spec) {
                        // The kick timer is armed only if it would expire
                        // before the retransmission timer (tcp/kick.rs),
                        // which is set from now for at most max_rto.
                        Ok(d) if d >= rto.max_rto_ns => {
                            return Err(sc.error_at(
                                Some(k.interval.span()),
                                format!("flow[{i}].tcp.kick.interval"),
                                format!(
                                    "{} never expires before the retransmission timer, which is at most max_rto ({}): \
                                     no kick would be sent; give an interval below max_rto",
                                    show_ns(d),
                                    show_ns(rto.max_rto_ns)
                                ),
                            ))
                        }
                        Ok(d) if d >= MIN_TIMER_NS => KickInterval::Fixed(d),
                        Ok(_) => {
                            return Err(sc.error_at(
                                Some(k.interval.span()),
                                format!("flow[{i}].tcp.kick.interval"),
                                MIN_TIMER_REASON,
                            ))
                        }
                        Err(e) => {
                            return Err(sc.error_at(
                                Some(k.interval.span()),
                                format!("flow[{i}].tcp.kick.interval"),
                                format!("expected \"rtt\" or a duration: {e}"),
                            ))
                        }
                    }
                };
                let ttl = u8::try_from(k.ttl.unwrap_or(1))
                    .ok()
                    .filter(|&t| t >= 1)
                    .ok_or_else(|| {
                        err(
                            "kick.ttl",
                            "must be from 1 to 255 (the IP header's 8-bit TTL)",
                        )
                    })?;
                Some(KickConfig { interval, ttl })
            }
        },
    })
}

/// A backoff cap that can act. The RTO doubles from its base
/// (`RttEstimator::rto_ns`, RFC 6298 (5.5)) until the multiplier would pass
/// the cap, i.e. up to the largest power of two P <= `cap`, and `max_rto`
/// bounds it anyway. The base is never below min(`initial_rto`,
/// `min_rto`) (RFC 6298 (2.1), (2.4)), so if that times P reaches
/// `max_rto` the cap never stops a doubling `max_rto` would not: every run
/// is the run without it.
fn check_max_backoff_binds(rto: &RtoConfig, cap: u32) -> Result<(), String> {
    let base = rto.initial_rto_ns.min(rto.min_rto_ns);
    let stops_at = 1u64 << (31 - cap.leading_zeros());
    if (base as u128) * (stops_at as u128) < rto.max_rto_ns as u128 {
        return Ok(());
    }
    let from = if rto.initial_rto_ns < rto.min_rto_ns {
        "initial_rto"
    } else {
        "min_rto"
    };
    if base >= rto.max_rto_ns {
        return Err(format!(
            "{cap} can never act: {from} ({}) is already max_rto, so the RTO never doubles; remove it",
            show_ns(base)
        ));
    }
    // The multiplier at which the RTO doubled from `base` reaches max_rto;
    // every cap below it stops the doubling short of max_rto.
    let mut reaches = 1u64;
    while (base as u128) * (reaches as u128) < rto.max_rto_ns as u128 {
        reaches *= 2;
    }
    Err(format!(
        "{cap} can never act: doubled from {from} ({}), the RTO reaches max_rto ({}) at multiplier {reaches}, \
         so a cap that stops doubling at {stops_at} never holds it back; at most {} has an effect (or remove it)",
        show_ns(base),
        show_ns(rto.max_rto_ns),
        reaches - 1
    ))
}

/// The TCP table's `classifier`, checked per kind.
fn classifier_config(
    sc: &Scenario,
    t: &TcpFileSpec,
    i: usize,
) -> Result<Option<ClassifierChoice>, ScenarioError> {
    let Some(spanned) = &t.classifier else {
        return Ok(None);
    };
    let c = spanned.get_ref();
    let field = format!("flow[{i}].tcp.classifier");
    let present = [
        ("threshold", c.threshold.is_some()),
        ("ticks_above_base", c.ticks_above_base.is_some()),
        ("tick", c.tick.is_some()),
        ("on_timeout", c.on_timeout.is_some()),
        ("before_rtt_sample", c.before_rtt_sample.is_some()),
    ];
    let kind: (&str, &[&str], &[&str]) = match c.kind {
        ClassifierKind::AlwaysCongestion => ("always_congestion", &[], &[]),
        ClassifierKind::RttThreshold => (
            "rtt_threshold",
            &[],
            &[
                "threshold",
                "ticks_above_base",
                "tick",
                "on_timeout",
                "before_rtt_sample",
            ],
        ),
        ClassifierKind::Wmecn => ("wmecn", &[], &["on_timeout"]),
    };
    check_kind_fields(sc, Some(spanned.span()), &field, kind, &present)?;
    let timeout_policy = |default| match c.on_timeout {
        None => default,
        Some(OnTimeoutSpec::Congestion) => TimeoutPolicy::Congestion,
        Some(OnTimeoutSpec::Classify) => TimeoutPolicy::Classify,
    };
    match c.kind {
        ClassifierKind::AlwaysCongestion => return Ok(None),
        ClassifierKind::Wmecn => {
            return Ok(Some(ClassifierChoice::Wmecn(WmecnClassifierConfig {
                on_timeout: timeout_policy(TimeoutPolicy::Classify),
            })))
        }
        ClassifierKind::RttThreshold => {}
    }
    let threshold = match (c.threshold, c.ticks_above_base) {
        (Some(d), None) => {
            if c.tick.is_some() {
                return Err(sc.error_at(
                    c.tick.as_ref().map(|t| t.span()),
                    format!("{field}.tick"),
                    "only used with ticks_above_base",
                ));
            }
            Threshold::Absolute { rtt_ns: d.0 }
        }
        (None, Some(ticks)) => {
            // The paper's TCP tick (ns-2's tcpTick_): 10 ms.
            let tick_ns = c.tick.as_ref().map_or(10 * NS_PER_MS, |t| t.get_ref().0);
            if tick_ns == 0 {
                return Err(sc.error_at(
                    c.tick.as_ref().map(|t| t.span()),
                    format!("{field}.tick"),
                    "must be positive",
                ));
            }
            let ticks = u32::try_from(ticks).map_err(|_| {
                sc.error_at(
                    Some(spanned.span()),
                    format!("{field}.ticks_above_base"),
                    "must be from 0 to 4294967295 (2^32 − 1) ticks",
                )
            })?;
            Threshold::AboveBase { ticks, tick_ns }
        }
        _ => {
            return Err(sc.error_at(
                Some(spanned.span()),
                field,
                "give exactly one of `threshold` and `ticks_above_base`",
            ));
        }
    };
    Ok(Some(ClassifierChoice::RttThreshold(RttThresholdConfig {
        threshold,
        on_timeout: timeout_policy(TimeoutPolicy::Congestion),
        before_rtt_sample: match c.before_rtt_sample {
            None | Some(BeforeRttSampleSpec::Corruption) => BeforeSamplePolicy::Corruption,
            Some(BeforeRttSampleSpec::Congestion) => BeforeSamplePolicy::Congestion,
        },
    })))
}

/// The TCP table's `cc`, checked per kind.
fn cc_config(sc: &Scenario, t: &TcpFileSpec, i: usize) -> Result<CcChoice, ScenarioError> {
    let Some(spanned) = &t.cc else {
        return Ok(CcChoice::Reno);
    };
    let c = &spanned.get_ref().0;
    let field = format!("flow[{i}].tcp.cc");
    let present = [
        ("beta1", c.beta1.is_some()),
        ("beta2", c.beta2.is_some()),
        ("beta3", c.beta3.is_some()),
        ("tau", c.tau.is_some()),
        ("c", c.c.is_some()),
        ("beta", c.beta.is_some()),
        ("fast_convergence", c.fast_convergence.is_some()),
    ];
    let betas: &[&str] = &["beta1", "beta2", "beta3"];
    let kind: (&str, &[&str], &[&str]) = match c.kind {
        CcKind::Reno => ("reno", &[], &[]),
        CcKind::Mecn => ("mecn", &[], betas),
        CcKind::Wmecn => ("wmecn", &[], betas),
        CcKind::Westwood => ("westwood", &[], &["tau"]),
        CcKind::WestwoodPlus => ("westwood_plus", &[], &[]),
        CcKind::Cubic => ("cubic", &[], &["c", "beta", "fast_convergence"]),
    };
    check_kind_fields(sc, Some(spanned.span()), &field, kind, &present)?;
    Ok(match c.kind {
        CcKind::Reno => CcChoice::Reno,
        CcKind::Mecn | CcKind::Wmecn => {
            let mut m = if c.kind == CcKind::Mecn {
                MecnCcConfig::mecn()
            } else {
                MecnCcConfig::wmecn()
            };
            for (name, b, slot) in [
                ("beta1", &c.beta1, &mut m.beta1),
                ("beta2", &c.beta2, &mut m.beta2),
                ("beta3", &c.beta3, &mut m.beta3),
            ] {
                if let Some(b) = b {
                    let v = b.get_ref().0;
                    if v >= 1.0 {
                        return Err(sc.error_at(
                            Some(b.span()),
                            format!("{field}.{name}"),
                            "must be below 1 (the fraction of cwnd removed)",
                        ));
                    }
                    *slot = v;
                }
            }
            CcChoice::Mecn(m)
        }
        CcKind::Westwood => {
            let tau_ns = match &c.tau {
                None => 500 * NS_PER_MS,
                Some(d) if d.get_ref().0 == 0 => {
                    return Err(sc.error_at(
                        Some(d.span()),
                        format!("{field}.tau"),
                        "must be positive",
                    ))
                }
                Some(d) => d.get_ref().0,
            };
            CcChoice::Westwood(WestwoodConfig {
                filter: WestwoodFilter::PerAck { tau_ns },
            })
        }
        CcKind::WestwoodPlus => CcChoice::Westwood(WestwoodConfig::westwood_plus()),
        CcKind::Cubic => {
            let mut cubic = CubicConfig::default();
            if let Some(c) = &c.c {
                let v = *c.get_ref();
                if !(v.is_finite() && v > 0.0) {
                    return Err(sc.error_at(
                        Some(c.span()),
                        format!("{field}.c"),
                        format!("must be a positive number (segments per second cubed), got {v}"),
                    ));
                }
                cubic.c = v;
            }
            if let Some(b) = &c.beta {
                let v = *b.get_ref();
                if !(v > 0.0 && v < 1.0) {
                    return Err(sc.error_at(
                        Some(b.span()),
                        format!("{field}.beta"),
                        format!("must be above 0 and below 1 (the fraction of cwnd kept), got {v}"),
                    ));
                }
                cubic.beta = v;
            }
            if let Some(f) = &c.fast_convergence {
                cubic.fast_convergence = *f.get_ref();
            }
            CcChoice::Cubic(cubic)
        }
    })
}

/// Each link's `stall` table as a per-connection stall process.
fn stall_processes(sc: &Scenario, seed: u64) -> Result<Vec<Option<StallProcess>>, ScenarioError> {
    let mut out = Vec::new();
    for (i, l) in sc.file.link.iter().enumerate() {
        let Some(spanned) = &l.stall else {
            out.push(None);
            continue;
        };
        let st = spanned.get_ref();
        if st.p1.0 + st.p2.0 > 1.0 {
            return Err(sc.error_at(
                Some(spanned.span()),
                format!("link[{i}].stall"),
                "p1 + p2 must not exceed 1",
            ));
        }
        // A stall of 0s ends where it starts and holds no packet, and the
        // draws in p1's band do not move p2's: the probability would have
        // no effect.
        for (p, d, n) in [(st.p1.0, st.d1.0, "1"), (st.p2.0, st.d2.0, "2")] {
            if p > 0.0 && d == 0 {
                return Err(sc.error_at(
                    Some(spanned.span()),
                    format!("link[{i}].stall.p{n}"),
                    format!(
                        "has no effect: d{n} = 0s, and a stall of 0s holds no packet; \
                         give d{n} a duration, or write p{n} = 0"
                    ),
                ));
            }
        }
        let period_ns = st.period.map_or(NS_PER_S, |d| d.0);
        if period_ns < MIN_PERIOD_NS {
            return Err(sc.error_at(
                Some(spanned.span()),
                format!("link[{i}].stall.period"),
                MIN_PERIOD_REASON,
            ));
        }
        let cfg = StallConfig {
            period_ns,
            p1: st.p1.0,
            d1_ns: st.d1.0,
            p2: st.p2.0,
            d2_ns: st.d2.0,
        };
        let name = format!("{}-{}", l.a.get_ref(), l.b.get_ref());
        out.push(Some(StallProcess::new(cfg, seed, name)));
    }
    if out.iter().all(Option::is_none) {
        // No stalling anywhere: an empty list, so that forwarding a packet
        // does not read a per-link entry (a cache miss per hop with many
        // links).
        out = Vec::new();
    }
    Ok(out)
}

/// The TCP table's `timeout_response`, with the option each one needs.
fn timeout_response(
    sc: &Scenario,
    t: &TcpFileSpec,
    i: usize,
) -> Result<TimeoutKind, ScenarioError> {
    let Some(spanned) = &t.timeout_response else {
        return Ok(TimeoutKind::Standard);
    };
    let err = |msg: &str| {
        sc.error_at(
            Some(spanned.span()),
            format!("flow[{i}].tcp.timeout_response"),
            msg,
        )
    };
    let sack = t.sack.unwrap_or(false) || t.variant == Some(VariantSpec::Sack);
    Ok(match spanned.get_ref() {
        TimeoutResponseSpec::Standard => TimeoutKind::Standard,
        TimeoutResponseSpec::Eifel if !t.timestamps() => {
            return Err(err("Eifel detection needs timestamps = true (RFC 3522)"));
        }
        TimeoutResponseSpec::Eifel => TimeoutKind::Eifel,
        TimeoutResponseSpec::Frto => TimeoutKind::Frto {
            sack_enhanced: false,
        },
        TimeoutResponseSpec::FrtoSack if !sack => {
            return Err(err("frto_sack needs SACK (sack = true)"))
        }
        TimeoutResponseSpec::FrtoSack => TimeoutKind::Frto {
            sack_enhanced: true,
        },
        TimeoutResponseSpec::Dclor if !sack => return Err(err("DCLOR needs SACK (sack = true)")),
        TimeoutResponseSpec::Dclor => TimeoutKind::Dclor {
            require_sack_seen: t.dclor_requires_sack_block.unwrap_or(true),
        },
    })
}
