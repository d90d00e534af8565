//! From a parsed scenario file to a runnable World, with the semantic checks
//! that serde cannot do (names, routes, consistency of parameters).

use std::collections::HashMap;

use super::schema::*;
use super::units::{parse_duration_ns, QueueCapacity};
use super::{Scenario, ScenarioError};
use crate::agents::kick_node::KickAwareNode;
use crate::app::{OnOffConfig, TcpApp};
use crate::net::channel::{
    Bernoulli, BitErrorRate, Channel, ChannelModel, DropList, GilbertElliott, PacketFilter,
};
use crate::net::link::LinkDir;
use crate::net::queue::{DropTail, QueueDiscipline, QueueLimit, Red, RedConfig};
use crate::net::topology::{shortest_path_routes, NO_ROUTE};
use crate::sim::rng::RandomStream;
use crate::sim::{NS_PER_MS, NS_PER_S};
use crate::tcp::kick::{KickConfig, KickInterval};
use crate::tcp::rtt::RtoConfig;
use crate::tcp::sender::SenderConfig;
use crate::tcp::spec::{TcpSpec, Variant};
use crate::world::{Flow, Node, SeriesConfig, World};

/// ns-2's default queue limit.
pub const DEFAULT_QUEUE_PKTS: u32 = 50;

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
    let mut index: HashMap<String, u32> = HashMap::new();
    let mut add = |n: &str, names: &mut Vec<String>| -> u32 {
        *index.entry(n.to_string()).or_insert_with(|| {
            names.push(n.to_string());
            (names.len() - 1) as u32
        })
    };
    for (i, n) in f.node.iter().enumerate() {
        if n.name.get_ref().trim().is_empty() {
            return Err(sc.error_at(
                Some(n.name.span()),
                format!("node[{i}].name"),
                "must not be empty",
            ));
        }
        add(n.name.get_ref(), &mut names);
    }
    if f.link.is_empty() {
        return Err(sc.error_at(None, "link", "a scenario needs at least one [[link]]"));
    }
    let mut ends = Vec::new();
    for (i, l) in f.link.iter().enumerate() {
        for (end, which) in [(&l.a, "a"), (&l.b, "b")] {
            if end.get_ref().trim().is_empty() {
                return Err(sc.error_at(
                    Some(end.span()),
                    format!("link[{i}].{which}"),
                    "node name must not be empty",
                ));
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
        ends.push((a, b));
    }
    // Link directions 2i (a->b) and 2i+1 (b->a).
    let mut dir_pairs = Vec::new();
    for &(a, b) in &ends {
        dir_pairs.push((a, b));
        dir_pairs.push((b, a));
    }
    let routes = shortest_path_routes(names.len(), &dir_pairs);
    let mut links = Vec::new();
    let mut used_names: HashMap<String, u32> = HashMap::new();
    for (i, l) in f.link.iter().enumerate() {
        for (d, (from, to), over, which) in [
            (0, ends[i], &l.a_to_b, "a_to_b"),
            (1, (ends[i].1, ends[i].0), &l.b_to_a, "b_to_a"),
        ] {
            let _ = d;
            let field = format!("link[{i}].{which}");
            let base = format!("{}->{}", names[from as usize], names[to as usize]);
            let k = used_names.entry(base.clone()).or_insert(0);
            *k += 1;
            let name = if *k == 1 { base } else { format!("{base}#{k}") };
            let rate = over.as_ref().and_then(|o| o.rate).unwrap_or(l.rate).0;
            let delay = over.as_ref().and_then(|o| o.delay).unwrap_or(l.delay).0;
            let qspec = over
                .as_ref()
                .and_then(|o| o.queue.clone())
                .or_else(|| l.queue.clone());
            let espec = over
                .as_ref()
                .and_then(|o| o.error.clone())
                .or_else(|| l.error.clone());
            let queue = build_queue(sc, qspec.as_ref(), rate, &field)?;
            let channel = build_channel(espec.as_ref(), seed, &name);
            let qrng = RandomStream::new(seed, &format!("queue:{name}"));
            links.push(LinkDir::new(
                name, from, to, rate, delay, queue, channel, qrng,
            ));
        }
    }
    let mut nodes: Vec<Node> = names
        .iter()
        .zip(routes)
        .map(|(n, r)| Node::new(n.clone(), r))
        .collect();
    for n in &f.node {
        let id = index_of(&names, n.name.get_ref()).expect("declared nodes are named");
        for a in &n.agents {
            match a.get_ref() {
                AgentSpec::Kick => nodes[id as usize].add_agent(Box::new(KickAwareNode::new(id))),
            }
        }
    }
    let node_of = |s: &toml::Spanned<String>, field: String| -> Result<u32, ScenarioError> {
        index_of(&names, s.get_ref()).ok_or_else(|| {
            sc.error_at(
                Some(s.span()),
                field,
                format!(
                    "unknown node \"{}\" (nodes: {})",
                    s.get_ref(),
                    names.join(", ")
                ),
            )
        })
    };
    let mut flows = Vec::new();
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
        if nodes[src as usize].routes[dst as usize] == NO_ROUTE {
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
        if nodes[dst as usize].routes[src as usize] == NO_ROUTE {
            return Err(sc.error_at(
                Some(fl.from.span()),
                format!("flow[{i}].from"),
                format!(
                    "no route back from \"{}\" to \"{}\"",
                    fl.to.get_ref(),
                    fl.from.get_ref()
                ),
            ));
        }
        let name = fl.name.clone().unwrap_or_else(|| format!("flow{i}"));
        let start = fl.start.map_or(0, |d| d.0);
        let stop = fl.stop.as_ref().map(|s| s.get_ref().0);
        if let Some(s) = &fl.stop {
            if s.get_ref().0 <= start {
                return Err(sc.error_at(
                    Some(s.span()),
                    format!("flow[{i}].stop"),
                    "must be after start",
                ));
            }
        }
        let app_field = format!("flow[{i}].app");
        match fl.app.get_ref() {
            AppSpec::Onoff {
                rate,
                packet_size,
                mean_on,
                mean_off,
            } => {
                if let Some(t) = &fl.tcp {
                    return Err(sc.error_at(
                        Some(t.span()),
                        format!("flow[{i}].tcp"),
                        "an \"onoff\" app runs over UDP: remove the tcp table",
                    ));
                }
                let packet_bytes = packet_size.map_or(1000, |s| s.0);
                if !(28..=65_535).contains(&packet_bytes) {
                    return Err(sc.error_at(
                        Some(fl.app.span()),
                        format!("{app_field}.packet_size"),
                        "must be between 28B and 65535B",
                    ));
                }
                if mean_on.0 == 0 || mean_off.0 == 0 {
                    return Err(sc.error_at(
                        Some(fl.app.span()),
                        app_field,
                        "mean_on and mean_off must be positive",
                    ));
                }
                let cfg = OnOffConfig {
                    rate_bps: rate.0,
                    packet_bytes: packet_bytes as u32,
                    mean_on_ns: mean_on.0,
                    mean_off_ns: mean_off.0,
                };
                flows.push(Flow::udp(name, src, dst, start, stop, cfg, seed));
            }
            app => {
                let app = match app {
                    AppSpec::Bulk => TcpApp::Bulk,
                    AppSpec::File { size } => TcpApp::File { size_bytes: size.0 },
                    AppSpec::Repeated { size, think, count } => TcpApp::Repeated {
                        size_bytes: size.0,
                        mean_think_ns: think.0,
                        count: *count,
                    },
                    AppSpec::Onoff { .. } => unreachable!("handled above"),
                };
                if app.transfer_bytes() == Some(0) {
                    return Err(sc.error_at(
                        Some(fl.app.span()),
                        format!("{app_field}.size"),
                        "must be positive",
                    ));
                }
                let spec = tcp_spec(sc, fl, i)?;
                flows.push(Flow::tcp(name, src, dst, start, stop, spec, app, seed));
            }
        }
    }
    let mut world = World::new(seed, duration, nodes, links, flows);
    if let Some(ts) = &f.output.timeseries {
        if ts.interval.0 == 0 {
            return Err(sc.error_at(None, "output.timeseries.interval", "must be positive"));
        }
        world.series_cfg = Some(SeriesConfig {
            interval_ns: ts.interval.0,
            flows: ts.flows,
            links: ts.links,
        });
    }
    Ok(world)
}

fn index_of(names: &[String], n: &str) -> Option<u32> {
    names.iter().position(|x| x == n).map(|i| i as u32)
}

fn queue_limit(c: QueueCapacity) -> QueueLimit {
    match c {
        QueueCapacity::Packets(n) => QueueLimit::Packets(n),
        QueueCapacity::Bytes(b) => QueueLimit::Bytes(b),
    }
}

fn build_queue(
    sc: &Scenario,
    q: Option<&QueueSpec>,
    rate_bps: u64,
    field: &str,
) -> Result<QueueDiscipline, ScenarioError> {
    Ok(match q {
        None => QueueDiscipline::DropTail(DropTail::new(QueueLimit::Packets(DEFAULT_QUEUE_PKTS))),
        Some(QueueSpec::Droptail { limit }) => {
            QueueDiscipline::DropTail(DropTail::new(queue_limit(limit.0)))
        }
        Some(QueueSpec::Red {
            limit,
            min_th,
            max_th,
            weight,
            max_p,
            gentle,
            ecn,
            mean_packet_size,
        }) => {
            let f = format!("{field}.queue");
            if min_th.is_nan() || *min_th < 0.0 {
                return Err(sc.error_at(None, format!("{f}.min_th"), "must not be negative"));
            }
            if max_th.is_nan() || *max_th <= *min_th {
                return Err(sc.error_at(
                    None,
                    format!("{f}.max_th"),
                    "must be greater than min_th",
                ));
            }
            if weight.is_nan() || *weight <= 0.0 || *weight > 1.0 {
                return Err(sc.error_at(None, format!("{f}.weight"), "must be in (0, 1]"));
            }
            let cfg = RedConfig {
                limit: queue_limit(limit.0),
                min_th_pkts: *min_th,
                max_th_pkts: *max_th,
                weight: *weight,
                max_p: max_p.0,
                gentle: *gentle,
                ecn: *ecn,
                mean_pkt_bytes: mean_packet_size.map_or(1000, |s| s.0.max(1) as u32),
            };
            QueueDiscipline::Red(Red::new(cfg, rate_bps))
        }
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
fn build_channel(e: Option<&ErrorSpec>, seed: u64, name: &str) -> Channel {
    let rng = RandomStream::new(seed, &format!("channel:{name}"));
    match e {
        None => Channel::perfect(),
        Some(ErrorSpec::Bernoulli { per, applies_to }) => Channel::new(
            ChannelModel::Bernoulli(Bernoulli { per: per.0 }),
            filter(*applies_to),
            rng,
        ),
        Some(ErrorSpec::Ber { ber, applies_to }) => Channel::new(
            ChannelModel::BitErrorRate(BitErrorRate::new(ber.0)),
            filter(*applies_to),
            rng,
        ),
        Some(ErrorSpec::GilbertElliott {
            mean_good,
            mean_bad,
            loss_good,
            loss_bad,
            applies_to,
        }) => {
            let fading = RandomStream::new(seed, &format!("fading:{name}"));
            let ge = GilbertElliott::new(
                mean_good.0.max(1),
                mean_bad.0.max(1),
                loss_good.map_or(0.0, |p| p.0),
                loss_bad.map_or(1.0, |p| p.0),
                fading,
            );
            Channel::new(ChannelModel::GilbertElliott(ge), filter(*applies_to), rng)
        }
        Some(ErrorSpec::DropList {
            packets,
            applies_to,
        }) => Channel::new(
            ChannelModel::DropList(DropList::new(packets.clone())),
            filter(*applies_to),
            rng,
        ),
    }
}

fn tcp_spec(sc: &Scenario, fl: &FlowSpec, i: usize) -> Result<TcpSpec, ScenarioError> {
    let default = TcpFileSpec::default();
    let (t, span) = match &fl.tcp {
        Some(s) => (s.get_ref(), Some(s.span())),
        None => (&default, None),
    };
    let err =
        |field: &str, msg: &str| sc.error_at(span.clone(), format!("flow[{i}].tcp.{field}"), msg);
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
    };
    if rto.max_rto_ns < rto.min_rto_ns {
        return Err(err("max_rto", "must not be less than min_rto"));
    }
    if rto.initial_rto_ns == 0 {
        return Err(err("initial_rto", "must be positive"));
    }
    let initial_cwnd = t
        .initial_cwnd
        .unwrap_or_else(|| SenderConfig::rfc5681_initial_window(mss as u32));
    if initial_cwnd == 0 {
        return Err(err("initial_cwnd", "must be at least 1 segment"));
    }
    let rwnd = t.rwnd.map_or(1_000_000, |s| s.0);
    if rwnd < mss {
        return Err(err("rwnd", "must hold at least one segment (mss)"));
    }
    let dupthresh = t.dupthresh.unwrap_or(3);
    if dupthresh == 0 {
        return Err(err("dupthresh", "must be at least 1"));
    }
    let delack_segments = t.delack_segments.unwrap_or(2);
    if delack_segments == 0 {
        return Err(err("delack_segments", "must be at least 1"));
    }
    let delack_timeout = t.delack_timeout.map_or(200 * NS_PER_MS, |d| d.0);
    if t.delayed_ack.unwrap_or(true) && delack_timeout > NS_PER_S / 2 {
        return Err(err(
            "delack_timeout",
            "must be at most 500ms (RFC 5681 §4.2)",
        ));
    }
    Ok(TcpSpec {
        variant,
        sack,
        mss: mss as u32,
        initial_cwnd_segments: initial_cwnd,
        initial_ssthresh_bytes: t
            .initial_ssthresh
            .map_or(u64::MAX / 4, |s| s.0.max(2 * mss)),
        rwnd_bytes: rwnd,
        timestamps: t.timestamps.unwrap_or(false),
        ecn: t.ecn.unwrap_or(false),
        handshake: t.handshake.unwrap_or(false),
        rto,
        delack_timeout_ns: if t.delayed_ack.unwrap_or(true) {
            Some(delack_timeout)
        } else {
            None
        },
        delack_segments,
        dupthresh,
        trace: t.trace.unwrap_or(false),
        kick: match &t.kick {
            None => None,
            Some(k) => {
                let spec = k.interval.get_ref().trim();
                let interval = if spec == "rtt" || spec == "srtt" {
                    KickInterval::SmoothedRtt {
                        before_sample_ns: k.before_sample.map_or(rto.initial_rto_ns, |d| d.0),
                    }
                } else {
                    match parse_duration_ns(spec) {
                        Ok(d) if d > 0 => KickInterval::Fixed(d),
                        Ok(_) => {
                            return Err(sc.error_at(
                                Some(k.interval.span()),
                                format!("flow[{i}].tcp.kick.interval"),
                                "must be positive",
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
                let ttl = k.ttl.unwrap_or(1);
                if ttl == 0 {
                    return Err(err("kick.ttl", "must be at least 1"));
                }
                Some(KickConfig { interval, ttl })
            }
        },
    })
}
