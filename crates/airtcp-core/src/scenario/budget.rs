//! The memory budget: before anything is built, estimate what a run is
//! sure to allocate in proportion to its input (flows, links, nodes, the
//! routing table, time-series points, the largest first flight, agent
//! caches, G-Snoop's list of packets on its wireless link) and reject a
//! scenario whose estimate exceeds `simulation.memory_budget` (default
//! [`DEFAULT_MEMORY_BUDGET_BYTES`]), with one line naming the field behind the largest share. A run that
//! cannot fit then fails at once with a clear error instead of growing
//! until the allocator aborts the process (which Python cannot catch).
//!
//! Memory that grows with traffic (packets queued or in flight, a
//! sender's scoreboard) is bounded by the queue limits and `rwnd`; only
//! the largest queue, full, is counted here (docs/scenario.md says what
//! that leaves out, with measurements). The per-item figures are peak resident sizes measured on
//! this code (docs/scenario.md, "Memory budget"), rounded up, and include
//! the copy of the results the Python tables hold.

use rustc_hash::FxHashMap;

use super::build::{DEFAULT_QUEUE_PKTS, MAX_WINDOW_BYTES, MIN_PERIOD_NS};
use super::schema::{AgentKind, AppKind, DirectionSpec, LinkSpec, QueueKind, ScenarioFile};
use super::units::QueueCapacity;
use super::{Scenario, ScenarioError};
use crate::net::packet::Packet;
use crate::tcp::sender::SenderConfig;

/// Default budget: 4 GB: a 100,000-flow dumbbell (3.4 GB estimated) fits,
/// a million flows (16 GB) do not.
pub const DEFAULT_MEMORY_BUDGET_BYTES: u64 = 4_000_000_000;
/// A TCP or UDP flow: endpoints, counters, its parsed table and result
/// row (11 KB measured with 20,000 flows on one link).
pub const FLOW_BYTES: u64 = 16 * 1024;
/// One link direction: queue ring, channel, counters, result row (2.5 KB
/// measured).
pub const LINK_DIR_BYTES: u64 = 4 * 1024;
/// One node: name, agents list, result bookkeeping, its routing arrays.
pub const NODE_BYTES: u64 = 512;
/// One entry of a core routing table (a u32 link direction): routing keeps
/// a table of |core| entries per core destination (net/topology.rs).
pub const ROUTE_ENTRY_BYTES: u64 = 4;
/// One time-series point: 40 B in the core, plus the Python columns and
/// the Arrow table built from them.
pub const SERIES_POINT_BYTES: u64 = 200;
/// A packet waiting in a link's queue, at worst: its slot in the world's
/// packet pool (the packet and its link index), the pool's live flag and
/// free-list entry, its arrival event in the heap and its entry in the
/// link's FIFO (together under 64 B besides the packet), doubled because
/// each of those buffers grows by reallocation and briefly holds the old
/// and the new copy. Measured (peak RSS of `airtcp run`): 261 MB for one
/// link whose 1,000,000-packet queue a UDP flood fills (about 260 B a
/// packet), 297 B a packet for 1,000 links with full 1,000-packet queues.
pub const QUEUED_PACKET_BYTES: u64 = 2 * (std::mem::size_of::<Packet>() as u64 + 64);
/// One entry of G-Snoop gateway A's list of packets on the wireless link
/// (its end of transmission and a copy of the packet), doubled because
/// the list grows by reallocation.
pub const GSNOOP_SENDING_BYTES: u64 =
    2 * std::mem::size_of::<(crate::sim::TimeNs, Packet)>() as u64;
/// What one run's results keep once it has ended, per flow: its row of the
/// flows table as the core hands it over and the Arrow table made of it
/// (560 B measured: 40 runs of 2,000 flows on one link, resident memory
/// per run). Counted only for several runs of one command, whose results
/// are all kept (`check_runs`); pandas DataFrames made from the tables
/// take about four times more and are not counted.
pub const FLOW_RESULT_BYTES: u64 = 640;
/// The same for one link direction's row (232 B measured: 40 runs of
/// 8,002 directions), and for one agent's row of the agents table.
pub const LINK_DIR_RESULT_BYTES: u64 = 256;
/// The same for one row of the transfers table (one completed download of
/// a `file` or `repeated` app), with its Arrow table: 114 B measured (40
/// runs of 10 flows of 2,000 one-kB downloads, resident memory per row),
/// 154 B in `airtcp reproduce dclor`'s scenario (60 runs of 17,531
/// downloads, the run's other rows taken off).
pub const TRANSFER_RESULT_BYTES: u64 = 160;
/// The smallest packet on the wire (a 28-byte UDP datagram): a queue
/// limited in bytes holds at most limit / 28 packets.
const SMALLEST_PACKET_BYTES: u64 = 28;

/// One share of the estimate: the field that causes it, bytes, and what it is.
struct Share {
    field: String,
    /// Where the field is written, if one place.
    span: Option<std::ops::Range<usize>>,
    bytes: u64,
    what: String,
    /// Packets queued or in flight: the share the run-time limit on
    /// packets (`packet_allowance`) replaces.
    packets: bool,
}

/// The memory budget of `sc` in bytes.
pub fn budget_bytes(sc: &Scenario) -> u64 {
    sc.file
        .simulation
        .memory_budget
        .as_ref()
        .map_or(DEFAULT_MEMORY_BUDGET_BYTES, |b| b.get_ref().0)
}

/// Reject `sc` if its estimate exceeds the budget; else return how many
/// packets may be queued or in flight at once: what the budget leaves
/// beside everything else, at `QUEUED_PACKET_BYTES` a packet. The world
/// enforces it as the run goes (`World::limit_packets`), since many
/// queues full at once are possible but far above what the static
/// estimate can count (`largest_queue`).
pub fn check(sc: &Scenario) -> Result<usize, ScenarioError> {
    let budget = budget_bytes(sc);
    let shares = estimate(&sc.file);
    let total = shares
        .iter()
        .fold(0u64, |sum, s| sum.saturating_add(s.bytes));
    if total <= budget {
        let other = shares
            .iter()
            .filter(|s| !s.packets)
            .fold(0u64, |sum, s| sum.saturating_add(s.bytes));
        let packets = (budget - other) / QUEUED_PACKET_BYTES;
        return Ok(usize::try_from(packets).unwrap_or(usize::MAX));
    }
    let top = shares
        .iter()
        .max_by_key(|s| s.bytes)
        .expect("a total above the budget has shares");
    Err(sc.error_at(
        top.span.clone(),
        top.field.clone(),
        format!(
            "the run would need about {} ({} of it for {}), more than the memory budget of {} \
             (raise simulation.memory_budget if the machine has the memory)",
            show_bytes(total),
            show_bytes(top.bytes),
            top.what,
            show_bytes(budget)
        ),
    ))
}

/// The most rows the transfers table of one run can hold: one per `file`
/// flow and `count` per `repeated` flow (a row is a completed download).
/// A `repeated` flow without `count` downloads until the run ends, as
/// many times as the run lets it: not known in advance, not counted.
fn transfers_at_most(f: &ScenarioFile) -> u64 {
    f.flow
        .iter()
        .map(|fl| {
            let app = fl.app.get_ref();
            match app.kind {
                AppKind::File => 1,
                AppKind::Repeated => app.count.map_or(0, |c| c.max(0) as u64),
                AppKind::Bulk | AppKind::Onoff => 0,
            }
        })
        .fold(0u64, |sum, n| sum.saturating_add(n))
}

/// What the results of one run of `f` keep in memory after it ends: the
/// rows of its tables, at most `transfers_at_most` transfer rows, and its
/// time-series points.
fn results_bytes(f: &ScenarioFile) -> (u64, String) {
    let flows = f.flow.len() as u64;
    let dirs = 2 * f.link.len() as u64;
    let agents: u64 = f.node.iter().map(|n| n.agents.len() as u64).sum();
    let transfers = transfers_at_most(f);
    let mut what = format!("{flows} flows, {dirs} link directions");
    if agents > 0 {
        what += &format!(", {agents} agents");
    }
    if transfers > 0 {
        what += &format!(", up to {transfers} transfers");
    }
    let mut bytes = flows
        .saturating_mul(FLOW_RESULT_BYTES)
        .saturating_add(
            dirs.saturating_add(agents)
                .saturating_mul(LINK_DIR_RESULT_BYTES),
        )
        .saturating_add(transfers.saturating_mul(TRANSFER_RESULT_BYTES));
    if let Some((points, _)) = series_points(f) {
        what += &format!(", {points} time-series points");
        bytes = bytes.saturating_add(points.saturating_mul(SERIES_POINT_BYTES));
    }
    (bytes, what)
}

/// Reject `runs` runs of `sc` in one command (`run_many`, `airtcp run
/// --runs`) if their results, every one kept until the command ends,
/// would exceed the memory budget: each run alone fits it (`check`), but
/// a thousand runs of a large topology would not, and the process would
/// grow until the OS killed it, with nothing saved. One run is `check`'s.
pub fn check_runs(sc: &Scenario, runs: u64) -> Result<(), ScenarioError> {
    let budget = budget_bytes(sc);
    let (per_run, what) = results_bytes(&sc.file);
    let total = per_run.saturating_mul(runs);
    if runs <= 1 || total <= budget {
        return Ok(());
    }
    Err(sc.error_at(
        sc.file.simulation.memory_budget.as_ref().map(|b| b.span()),
        "simulation.memory_budget",
        format!(
            "{runs} runs would keep about {} of results ({} a run: {what}), more than the memory \
             budget of {} (run fewer seeds at a time, or raise simulation.memory_budget if the \
             machine has the memory)",
            show_bytes(total),
            show_bytes(per_run),
            show_bytes(budget)
        ),
    ))
}

/// The error of a run stopped because its packets outgrew the budget's
/// allowance (`check`, `World::limit_packets`), if it was.
pub fn overrun_error(sc: &Scenario, world: &crate::world::World) -> Option<ScenarioError> {
    let (at_ns, max_packets) = world.packets_over_budget()?;
    Some(sc.error_at(
        sc.file.simulation.memory_budget.as_ref().map(|b| b.span()),
        "simulation.memory_budget",
        format!(
            "the run outgrew the memory budget of {}: more than {max_packets} packets queued or \
             in flight at once (about {} each), at {:.6} s; it was stopped there \
             (raise simulation.memory_budget if the machine has the memory, or shorten the queues)",
            show_bytes(budget_bytes(sc)),
            show_bytes(QUEUED_PACKET_BYTES),
            at_ns as f64 / 1e9
        ),
    ))
}

/// The estimate, share by share (saturating: an absurd input gives
/// u64::MAX, never a wrapped small number).
fn estimate(f: &ScenarioFile) -> Vec<Share> {
    let mut index: FxHashMap<&str, u32> = FxHashMap::default();
    for n in &f.node {
        let next = index.len() as u32;
        index.entry(n.name.get_ref().as_str()).or_insert(next);
    }
    let mut ends = Vec::with_capacity(f.link.len());
    for l in &f.link {
        let mut ids = [0u32; 2];
        for (k, name) in [l.a.get_ref(), l.b.get_ref()].into_iter().enumerate() {
            let next = index.len() as u32;
            ids[k] = *index.entry(name.as_str()).or_insert(next);
        }
        ends.push((ids[0], ids[1]));
    }
    let nodes = index.len() as u64;
    let core = core_nodes(index.len(), &ends);
    let dirs = 2 * f.link.len() as u64;
    let flows = f.flow.len() as u64;
    let mut shares = vec![
        Share {
            field: "flow".into(),
            span: None,
            bytes: flows.saturating_mul(FLOW_BYTES),
            what: format!("{flows} flows"),
            packets: false,
        },
        Share {
            field: "link".into(),
            span: None,
            bytes: dirs.saturating_mul(LINK_DIR_BYTES),
            what: format!("{dirs} link directions"),
            packets: false,
        },
        Share {
            field: "node".into(),
            span: None,
            bytes: core
                .saturating_mul(core)
                .saturating_mul(ROUTE_ENTRY_BYTES)
                .saturating_add(nodes.saturating_mul(NODE_BYTES)),
            what: format!("{nodes} nodes and routing tables for {core} of them"),
            packets: false,
        },
    ];
    if let Some((points, span)) = series_points(f) {
        shares.push(Share {
            field: "output.timeseries.interval".into(),
            span: Some(span),
            bytes: points.saturating_mul(SERIES_POINT_BYTES),
            what: format!("{points} time-series points"),
            packets: false,
        });
    }
    // A sender emits its whole initial window at once into one buffer.
    let first_flight = f
        .flow
        .iter()
        .enumerate()
        .filter_map(|(i, fl)| {
            let tcp = fl.tcp.as_ref()?;
            let t = tcp.get_ref();
            let mss = t.mss.map_or(1000, |m| m.0).clamp(1, u32::MAX as u64) as u32;
            // Out of range (below 1, or above the largest window) is
            // refused by build.rs, in the field's words.
            let iw = t.initial_cwnd.map_or_else(
                || SenderConfig::rfc5681_initial_window(mss) as u64,
                |c| c.max(0) as u64,
            );
            let within_window = iw.saturating_mul(mss as u64) <= MAX_WINDOW_BYTES;
            within_window.then_some((i, iw, tcp.span()))
        })
        .max_by_key(|&(_, iw, _)| iw);
    if let Some((i, iw, span)) = first_flight {
        shares.push(Share {
            field: format!("flow[{i}].tcp.initial_cwnd"),
            span: Some(span),
            bytes: iw.saturating_mul(std::mem::size_of::<Packet>() as u64),
            what: format!("a first flight of {iw} segments"),
            packets: true,
        });
    }
    if let Some(share) = largest_queue(f) {
        shares.push(share);
    }
    // Agents' own packet stores. The other agents hold what traffic bounds
    // and the estimate leaves out, as a sender's scoreboard (see the
    // module doc): Snoop caches a connection's unacknowledged segments
    // past its node (at most its window, and `snoop::MAX_CACHED_PER_FLOW`);
    // the ARQ keeps a copy of each frame awaiting its link ACK (at most
    // what its link holds and carries in a link round trip, and
    // `arq::MAX_CACHED`); DDA holds a run's third and later duplicate ACKs
    // (at most one per segment of the window); a kick-aware node and
    // G-Snoop's gateway B keep sequence ranges, not packets. Packets a
    // STIS stall holds at a link's entrance are in the world's packet pool
    // and count against the budget's packet allowance as the run goes.
    // Gateway A's wireless link by (gateway, peer), built once and only
    // when there is a gateway A: a search of every link per gateway would
    // cost agents x links comparisons before the build. The first link in
    // file order that joins the two, as the build takes it.
    let mut link_toward: FxHashMap<(&str, &str), u64> = FxHashMap::default();
    let has_gateway_a = f.node.iter().any(|n| {
        n.agents
            .iter()
            .any(|a| a.get_ref().kind == AgentKind::GsnoopA)
    });
    if has_gateway_a {
        for l in &f.link {
            let (a_end, b_end) = (l.a.get_ref().as_str(), l.b.get_ref().as_str());
            link_toward
                .entry((a_end, b_end))
                .or_insert_with(|| queue_packets(l, l.a_to_b.as_deref()));
            link_toward
                .entry((b_end, a_end))
                .or_insert_with(|| queue_packets(l, l.b_to_a.as_deref()));
        }
    }
    for (i, n) in f.node.iter().enumerate() {
        for (j, a) in n.agents.iter().enumerate() {
            let (span, a) = (a.span(), a.get_ref());
            if a.kind == AgentKind::GsnoopA {
                // A negative cache is refused by build.rs.
                let cache = a
                    .cache
                    .as_ref()
                    .map_or(25, |c| (*c.get_ref()).max(0) as u64);
                shares.push(Share {
                    field: format!("node[{i}].agents[{j}].cache"),
                    span: Some(span.clone()),
                    bytes: cache.saturating_mul(std::mem::size_of::<Packet>() as u64),
                    what: format!("a cache of {cache} packets"),
                    packets: false,
                });
                // Fig. 2's packets "being sent": a copy of each packet the
                // wireless link admitted until its transmission ends, so
                // at most that direction's queue, full, and the one on
                // the wire; doubled, as the list grows by reallocation.
                let wireless = a.peer.as_ref().and_then(|peer| {
                    let key = (n.name.get_ref().as_str(), peer.get_ref().as_str());
                    link_toward.get(&key).copied()
                });
                // No such link: the build refuses the agent, naming `peer`.
                if let Some(queued) = wireless {
                    let sending = queued.saturating_add(1);
                    shares.push(Share {
                        field: format!("node[{i}].agents[{j}]"),
                        span: Some(span),
                        bytes: sending.saturating_mul(GSNOOP_SENDING_BYTES),
                        what: format!("a list of up to {sending} packets on the wireless link"),
                        packets: false,
                    });
                }
            }
        }
    }
    shares
}

/// How many time-series points a run records (`output.timeseries`), and
/// where the interval is written; None when nothing is sampled.
fn series_points(f: &ScenarioFile) -> Option<(u64, std::ops::Range<usize>)> {
    // Values that the build refuses for their own reason (below a floor,
    // above a bound) are left to it: its message says more.
    let ts = f
        .output
        .timeseries
        .as_ref()
        .filter(|ts| ts.interval.get_ref().0 >= MIN_PERIOD_NS)?;
    let interval = ts.interval.get_ref().0;
    let duration = f.simulation.duration.get_ref().0;
    let samples = duration / interval + 1;
    let mut points = 0u64;
    if ts.flows {
        // Over its active interval a flow is sampled for goodput and
        // throughput, and a TCP flow also for cwnd, ssthresh, srtt and
        // rtt while a connection is open: all along for a bulk flow;
        // file and repeated downloads only until they finish, which is
        // not known in advance, so they are not counted.
        for fl in &f.flow {
            let per_sample = match fl.app.get_ref().kind {
                AppKind::Bulk => 6,
                AppKind::Onoff => 2,
                AppKind::File | AppKind::Repeated => continue,
            };
            let start = fl.start.as_ref().map_or(0, |s| s.get_ref().0).min(duration);
            let stop = fl
                .stop
                .as_ref()
                .map_or(duration, |s| s.get_ref().0)
                .min(duration);
            let open = stop.saturating_sub(start) / interval + 1;
            points = points.saturating_add(per_sample * open);
        }
    }
    let mut per_sample = 0u64;
    if ts.links {
        for l in &f.link {
            for dir in [&l.a_to_b, &l.b_to_a] {
                let q = dir
                    .as_ref()
                    .and_then(|d| d.queue.as_ref())
                    .or(l.queue.as_deref());
                let averaged = q.is_some_and(|q| {
                    matches!(
                        q.get_ref().kind,
                        QueueKind::Red | QueueKind::Mecn | QueueKind::Wmecn
                    )
                });
                per_sample += if averaged { 2 } else { 1 }; // queue, red_avg
            }
        }
    }
    let points = points.saturating_add(samples.saturating_mul(per_sample));
    Some((points, ts.interval.span()))
}

/// The largest queue full: a queue fills up to its limit whatever the
/// windows (a UDP source faster than the link), so one queue limited at
/// 2^32 - 1 packets would need terabytes. Like the first flight, only the
/// largest is counted: every queue full at once is possible in principle
/// but far above what runs need (a 100,000-flow dumbbell's 400,000
/// directions of 50 packets would be 9 GB; it peaks at 1 GB).
fn largest_queue(f: &ScenarioFile) -> Option<Share> {
    let mut largest: Option<(u64, String, Option<std::ops::Range<usize>>)> = None;
    for (i, l) in f.link.iter().enumerate() {
        for (dir, over) in [("a_to_b", &l.a_to_b), ("b_to_a", &l.b_to_a)] {
            let (field, q) = match over.as_ref().and_then(|d| d.queue.as_ref()) {
                Some(q) => (format!("link[{i}].{dir}.queue"), Some(q)),
                None => (format!("link[{i}].queue"), l.queue.as_deref()),
            };
            let limit = q.and_then(|q| q.get_ref().limit.as_ref());
            let packets = queue_packets(l, over.as_deref());
            if largest.as_ref().is_none_or(|(most, _, _)| packets > *most) {
                let (field, span) = match limit {
                    Some(l) => (format!("{field}.limit"), Some(l.span())),
                    None => (field, q.map(|q| q.span())),
                };
                largest = Some((packets, field, span));
            }
        }
    }
    largest.map(|(packets, field, span)| Share {
        field,
        span,
        bytes: packets.saturating_mul(QUEUED_PACKET_BYTES),
        what: format!("a full queue of {packets} packets"),
        packets: true,
    })
}

/// How many packets the queue of one direction of `l` holds, full: its
/// own queue table (`over`) or the link's, or the default.
fn queue_packets(l: &LinkSpec, over: Option<&DirectionSpec>) -> u64 {
    let q = over.and_then(|d| d.queue.as_ref()).or(l.queue.as_deref());
    match q
        .and_then(|q| q.get_ref().limit.as_ref())
        .map(|l| l.get_ref().0)
    {
        None => u64::from(DEFAULT_QUEUE_PKTS),
        Some(QueueCapacity::Packets(n)) => u64::from(n),
        Some(QueueCapacity::Bytes(b)) => b / SMALLEST_PACKET_BYTES,
    }
}

/// How many nodes are left after stripping, repeatedly, every node with at
/// most one neighbour: the routing core, the only part that keeps tables
/// (a dumbbell, a chain or a star has none).
fn core_nodes(n: usize, ends: &[(u32, u32)]) -> u64 {
    let mut neighbours: Vec<Vec<u32>> = vec![Vec::new(); n];
    for &(a, b) in ends {
        neighbours[a as usize].push(b);
        neighbours[b as usize].push(a);
    }
    for list in &mut neighbours {
        list.sort_unstable();
        list.dedup();
    }
    let mut degree: Vec<usize> = neighbours.iter().map(Vec::len).collect();
    let mut removed = vec![false; n];
    let mut leaves: Vec<u32> = (0..n as u32).filter(|&v| degree[v as usize] <= 1).collect();
    while let Some(v) = leaves.pop() {
        if std::mem::replace(&mut removed[v as usize], true) {
            continue;
        }
        for &w in &neighbours[v as usize] {
            let d = &mut degree[w as usize];
            *d = d.saturating_sub(1);
            if *d <= 1 && !removed[w as usize] {
                leaves.push(w);
            }
        }
    }
    removed.iter().filter(|&&r| !r).count() as u64
}

/// "4 GB", "812 MB", "640 kB": decimal units, as the budget is written.
fn show_bytes(b: u64) -> String {
    const UNITS: [(u64, &str); 4] = [
        (1_000_000_000_000, "TB"),
        (1_000_000_000, "GB"),
        (1_000_000, "MB"),
        (1_000, "kB"),
    ];
    for (scale, unit) in UNITS {
        if b >= scale {
            return format!("{:.1} {unit}", b as f64 / scale as f64);
        }
    }
    format!("{b} B")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_routing_core_is_what_stripping_leaves() {
        // A chain and a star are trees: no core.
        assert_eq!(core_nodes(4, &[(0, 1), (1, 2), (2, 3)]), 0);
        assert_eq!(core_nodes(4, &[(0, 1), (0, 2), (0, 3)]), 0);
        // A triangle with a tail: the triangle; parallel links count once.
        assert_eq!(
            core_nodes(5, &[(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (3, 4)]),
            3
        );
    }

    #[test]
    fn bytes_are_shown_in_decimal_units() {
        assert_eq!(show_bytes(4_000_000_000), "4.0 GB");
        assert_eq!(show_bytes(812_300_000), "812.3 MB");
        assert_eq!(show_bytes(999), "999 B");
        assert_eq!(show_bytes(u64::MAX), "18446744.1 TB");
    }
}
