//! The World: nodes, links, flows and agents wired to the event queue. It
//! is the only place that knows the clock; endpoints and agents are
//! sans-I/O and hand back packets and deadlines.
//!
//! Split along its seams:
//! * this file: the event loop and the packet path (nodes, agents,
//!   routing, links, the packet pool);
//! * [`flows`]: flow and application glue (endpoints' timers, delivery,
//!   transfers, ground truth of losses);
//! * [`collect`]: time-series sampling and the final [`RunResult`].

mod collect;
mod flows;
#[cfg(feature = "event-profile")]
pub mod profile;

pub use crate::metrics::SeriesConfig;
pub use flows::{Flow, FlowKind, TcpFlow, UdpFlow};

use crate::agents::{AgentOutput, AgentVerdict, Ingress, LinkTx, NodeAgent};
use crate::app::TransferRecord;
use crate::metrics::series::RateSampler;
use crate::metrics::{RunResult, SeriesPoint};
use crate::net::link::{LinkDir, LinkOutcome};
use crate::net::packet::{DeathCause, Packet, PacketKind, DEFAULT_TTL};
use crate::net::stis::StallProcess;
use crate::net::topology::{Routes, NO_ROUTE};
use crate::observe::Observers;
use crate::sim::events::{EventKind, EventQueue};
use crate::sim::prefetch::{prefetch, prefetch_bytes};
use crate::sim::{tx_time_ns, TimeNs, NS_PER_S};
use crate::tcp::receiver::TcpReceiver;
use crate::tcp::sender::TcpSender;

pub struct Node {
    pub name: String,
    pub agents: Vec<Box<dyn NodeAgent>>,
    /// Earliest scheduled wake-up per agent.
    agent_wakeups: Vec<Option<TimeNs>>,
}

impl Node {
    pub fn new(name: String) -> Self {
        Self {
            name,
            agents: Vec::new(),
            agent_wakeups: Vec::new(),
        }
    }

    /// Add an agent to a node not yet in a world (the scenario's build);
    /// in a world, [`World::add_agent`] also tells the loop.
    pub(crate) fn add_agent(&mut self, agent: Box<dyn NodeAgent>) {
        self.agents.push(agent);
        self.agent_wakeups.push(None);
    }
}

/// An agent that hears of every transmission on one link direction
/// ([`NodeAgent::watched_link`]). Ordered by its fields in declaration
/// order: the watchers are kept sorted so, by link, then node, then agent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct LinkWatcher {
    link: u32,
    node: u32,
    agent: u32,
}

/// The next hop from an agent's node towards `dst` (`NO_ROUTE` if none),
/// looked up once for the agents' `egress` and reused by routing, which
/// checks that the packet still goes to `dst`.
#[derive(Clone, Copy, Debug)]
struct KnownHop {
    dst: u32,
    link: u32,
}

/// Slots for packets in flight, so that events carry a 4-byte index.
struct PacketPool {
    slots: Vec<(Packet, u32)>,
    /// Each listed slot's neighbours in its flow's list of data segments
    /// ([`FlowLinks`], parallel to `slots`; a free slot's are stale).
    links: Vec<FlowLinks>,
    /// Slots the memory budget allows (`World::limit_packets`); the pool
    /// grows up to it and flags `exceeded` when a packet needs one more.
    max_slots: usize,
    exceeded: bool,
    free: Vec<u32>,
    /// The newest live data segment of each flow (`NO_SLOT` if none), the
    /// head of its list: a retransmission timeout asks whether a copy of
    /// its segment is still in the network (`live_segments_of`), and reads
    /// its own flow's segments, not every slot. ACKs and other packets are
    /// not listed (half the hops do no list work). A scan of the pool cost
    /// each timeout O(packets in the network): with 100,000 flows and
    /// their queues full, 86% of the loop (`examples/event_cost.rs`,
    /// `per-flow-share`).
    newest_of_flow: Vec<u32>,
}

/// Does the pool list `pkt` in its flow's segments: TCP data with a
/// payload (the packets a retransmission timeout asks about).
fn is_segment(pkt: &Packet) -> bool {
    pkt.kind == PacketKind::TcpData && pkt.payload_len > 0
}

/// No slot: the end of a flow's list.
const NO_SLOT: u32 = u32::MAX;

/// A live data segment's neighbours in its flow's list, newest first: 8
/// bytes a slot in an array of their own, so that unlinking a segment
/// touches its neighbours' 8 bytes rather than their packets.
#[derive(Clone, Copy)]
struct FlowLinks {
    newer: u32,
    older: u32,
}

impl PacketPool {
    fn new(n_flows: usize) -> Self {
        Self {
            slots: Vec::new(),
            links: Vec::new(),
            max_slots: usize::MAX,
            exceeded: false,
            free: Vec::new(),
            newest_of_flow: vec![NO_SLOT; n_flows],
        }
    }

    #[inline(always)]
    fn put(&mut self, pkt: Packet, link: u32) -> u32 {
        let (flow, listed) = (pkt.flow as usize, is_segment(&pkt));
        let i = if let Some(i) = self.free.pop() {
            self.slots[i as usize] = (pkt, link);
            i
        } else {
            let len = self.slots.len();
            if len >= self.max_slots {
                // Over the budget: the loop stops after this event (this
                // one slot past the limit is the last).
                self.exceeded = true;
            }
            if len == self.slots.capacity() {
                // Double, but not past the limit (a doubling near it
                // would allocate up to twice what the budget allows).
                let grow = len.max(4).min(self.max_slots.saturating_sub(len)).max(1);
                self.slots.reserve_exact(grow);
                self.links.reserve_exact(grow);
            }
            self.slots.push((pkt, link));
            self.links.push(FlowLinks {
                newer: NO_SLOT,
                older: NO_SLOT,
            });
            len as u32
        };
        if let Some(newest) = self.newest_of_flow.get_mut(flow).filter(|_| listed) {
            let older = std::mem::replace(newest, i);
            self.links[i as usize] = FlowLinks {
                newer: NO_SLOT,
                older,
            };
            if older != NO_SLOT {
                self.links[older as usize].newer = i;
            }
        }
        i
    }

    #[inline(always)]
    fn take(&mut self, i: u32) -> (Packet, u32) {
        self.free.push(i);
        let slot = self.slots[i as usize];
        if let Some(newest) = self
            .newest_of_flow
            .get_mut(slot.0.flow as usize)
            .filter(|_| is_segment(&slot.0))
        {
            let FlowLinks { newer, older } = self.links[i as usize];
            if newer == NO_SLOT {
                *newest = older;
            } else {
                self.links[newer as usize].older = older;
            }
            if older != NO_SLOT {
                self.links[older as usize].newer = newer;
            }
        }
        slot
    }

    /// Hint into cache what taking the segment in `slot` of `flow` writes
    /// besides its own links: its neighbours' links, or the flow's head.
    fn prefetch_flow_list(&self, slot: u32, flow: u32) {
        let Some(&FlowLinks { newer, older }) = self.links.get(slot as usize) else {
            return;
        };
        for neighbour in [newer, older] {
            if let Some(links) = self.links.get(neighbour as usize) {
                prefetch(links);
            }
        }
        if newer == NO_SLOT {
            if let Some(head) = self.newest_of_flow.get(flow as usize) {
                prefetch(head);
            }
        }
    }

    /// The live data segments of `flow`, newest first.
    fn live_segments_of(&self, flow: u32) -> impl Iterator<Item = &Packet> {
        let newest = self
            .newest_of_flow
            .get(flow as usize)
            .copied()
            .unwrap_or(NO_SLOT);
        std::iter::successors((newest != NO_SLOT).then_some(newest), |&i| {
            let older = self.links[i as usize].older;
            (older != NO_SLOT).then_some(older)
        })
        .map(|i| &self.slots[i as usize].0)
    }
}

/// Events ahead of the current one whose state `prefetch_upcoming` hints
/// into cache, one stage of pointers per event.
const PREFETCH_STAGES: usize = 4;
/// Flows from which the loop hints the next events' state into cache: a
/// flow's state (record, connection, endpoints, access-link directions)
/// is about 4 KB, so from about 4,000 flows it outgrows a 16-32 MB
/// last-level cache. With fewer, the hints only cost time (measured with
/// `examples/event_cost.rs`: 4-5% more per event at 10 and 1,000 flows,
/// 7% less at 10,000 and 13% less at 100,000).
const PREFETCH_MIN_FLOWS: usize = 4_096;

/// What an upcoming event of a flow will read (`World::prefetch_flow`).
#[derive(Clone, Copy)]
enum FlowEvent {
    SenderTimer,
    ReceiverTimer,
    App,
    /// A packet delivered to the sender (an ACK) or the receiver.
    ToSender,
    ToReceiver,
}

pub struct World {
    pub now_ns: TimeNs,
    pub seed: u64,
    pub duration_ns: TimeNs,
    pub nodes: Vec<Node>,
    /// Next hops between nodes (`net/topology.rs`).
    pub routes: Routes,
    pub links: Vec<LinkDir>,
    pub flows: Vec<Flow>,
    pub series_cfg: Option<SeriesConfig>,
    /// The scenario's initial IP TTL (`simulation.ttl`). Endpoints and
    /// agents stamp `DEFAULT_TTL` (or 0 for "unset"); a packet leaving its
    /// origin gets this value instead. Other TTLs (a kick segment's 1)
    /// are the sender's choice and kept.
    pub initial_ttl: u8,
    /// Per link (not direction): STIS per-connection stalling, if any
    /// (empty if no link stalls).
    pub stalls: Vec<Option<StallProcess>>,
    events: EventQueue,
    primed: bool,
    /// Time per kind of event (`world/profile.rs`).
    #[cfg(feature = "event-profile")]
    pub profile: profile::EventProfile,
    /// When the loop stopped because the packet pool outgrew its limit.
    packets_over_budget_at_ns: Option<TimeNs>,
    /// Whether the loop hints upcoming events' state into cache
    /// (`PREFETCH_MIN_FLOWS`).
    prefetching: bool,
    pool: PacketPool,
    next_uid: u64,
    hops: u64,
    transfers: Vec<TransferRecord>,
    series: Vec<SeriesPoint>,
    /// Per-flow byte counts at the previous sample (goodput over time).
    rates: RateSampler,
    /// Reused output buffers (no allocation per packet).
    scratch: Vec<Packet>,
    agent_out: AgentOutput,
    /// Agents told of each transmission on their link (empty if none, so
    /// that a link offer costs one length check), sorted by link and, on
    /// one link, in node and agent order: an offer finds its link's
    /// watchers by binary search, not by reading all of them.
    link_watchers: Vec<LinkWatcher>,
    /// Bit `n % 64` of word `n / 64`: node `n` has agents (set when the
    /// run starts). A packet at a node without agents reads this, never
    /// the node's record, which with many flows is out of cache.
    agent_nodes: Vec<u64>,
    /// Captures and the per-packet trace, if any (`observe/`); they watch
    /// and never change the run.
    pub observers: Option<Box<Observers>>,
}

impl World {
    pub fn new(
        seed: u64,
        duration_ns: TimeNs,
        nodes: Vec<Node>,
        routes: Routes,
        mut links: Vec<LinkDir>,
        flows: Vec<Flow>,
    ) -> Self {
        // A channel loss counts only within the run (`starts_within_run`).
        for link in &mut links {
            link.run_end_ns = duration_ns;
        }
        let n_flows = flows.len();
        Self {
            now_ns: 0,
            seed,
            duration_ns,
            nodes,
            routes,
            links,
            flows,
            series_cfg: None,
            initial_ttl: DEFAULT_TTL,
            stalls: Vec::new(),
            events: EventQueue::until(duration_ns),
            primed: false,
            packets_over_budget_at_ns: None,
            prefetching: n_flows >= PREFETCH_MIN_FLOWS,
            #[cfg(feature = "event-profile")]
            profile: Default::default(),
            pool: PacketPool::new(n_flows),
            next_uid: 0,
            hops: 0,
            transfers: Vec::new(),
            series: Vec::new(),
            rates: RateSampler::default(),
            scratch: Vec::with_capacity(64),
            agent_out: AgentOutput::default(),
            link_watchers: Vec::new(),
            agent_nodes: Vec::new(),
            observers: None,
        }
    }

    /// Schedule every flow's start and the first sample; note the agents
    /// that watch a link (`World::add_agent` notes those added later).
    fn prime(&mut self) {
        self.agent_nodes = vec![0; self.nodes.len().div_ceil(64)];
        for node in 0..self.nodes.len() {
            for agent in 0..self.nodes[node].agents.len() {
                self.note_agent(node, agent);
            }
        }
        for (i, f) in self.flows.iter().enumerate() {
            self.events
                .schedule(f.start_ns, EventKind::App { flow: i as u32 });
            if let Some(stop) = f.stop_ns {
                self.events
                    .schedule(stop, EventKind::App { flow: i as u32 });
            }
        }
        if self.series_cfg.is_some() {
            self.events.schedule(0, EventKind::Sample);
        }
    }

    /// Add an agent to `node`, before the run or between
    /// [`Self::run_until`] calls: from then on it sees the packets its node
    /// handles and, if it watches one, its link's transmissions.
    pub fn add_agent(&mut self, node: usize, agent: Box<dyn NodeAgent>) {
        self.nodes[node].add_agent(agent);
        if self.primed {
            self.note_agent(node, self.nodes[node].agents.len() - 1);
        }
    }

    /// Tell the loop of one agent: its node's bit in the bitmap of nodes
    /// with agents, and the link it watches, among that link's watchers
    /// in node then agent order.
    fn note_agent(&mut self, node: usize, agent: usize) {
        self.agent_nodes[node / 64] |= 1 << (node % 64);
        if let Some(link) = self.nodes[node].agents[agent].watched_link() {
            let watcher = LinkWatcher {
                link,
                node: node as u32,
                agent: agent as u32,
            };
            let at = self.link_watchers.partition_point(|w| *w < watcher);
            self.link_watchers.insert(at, watcher);
        }
    }

    /// Run to the end of the scenario. `progress` is called every simulated
    /// second with the current time; return false from it to stop early.
    /// If `progress` stops the run early, the results cover the simulated
    /// time reached so far.
    pub fn run(&mut self, progress: impl FnMut(TimeNs) -> bool) -> RunResult {
        self.simulate(progress);
        self.results()
    }

    /// The event loop of [`Self::run`] alone (benchmarks time it apart
    /// from the collection of results, which costs per flow, not per
    /// event).
    pub fn simulate(&mut self, progress: impl FnMut(TimeNs) -> bool) {
        if self.advance(self.duration_ns, progress) {
            self.now_ns = self.duration_ns;
        }
    }

    /// The results at the current time: closes every connection, so call
    /// it once, after [`Self::simulate`].
    pub fn results(&mut self) -> RunResult {
        self.collect()
    }

    /// Process every event up to and including `until_ns` (tests and
    /// step-by-step inspection); call [`Self::finish`] for the results.
    pub fn run_until(&mut self, until_ns: TimeNs) {
        self.advance(until_ns.min(self.duration_ns), |_| true);
    }

    /// Events processed so far (the results' `events`): with
    /// [`Self::run_until`], a way to bound the work of a run by its
    /// events rather than its simulated time (the fuzz harness does).
    pub fn events_processed(&self) -> u64 {
        self.events.processed()
    }

    /// The time of the next event (none after the end of the run), if
    /// any: between [`Self::run_until`] calls, the next time anything
    /// happens, so that a caller stepping through a run can step over a
    /// quiet stretch at once. Before the first `run_until` nothing is
    /// scheduled yet (None). Reading it changes nothing in the run.
    pub fn next_event_ns(&mut self) -> Option<TimeNs> {
        self.events.next_time_ns()
    }

    /// Run to the end and collect the results.
    pub fn finish(&mut self) -> RunResult {
        self.run(|_| true)
    }

    /// Returns false if `progress` asked to stop.
    fn advance(&mut self, until_ns: TimeNs, mut progress: impl FnMut(TimeNs) -> bool) -> bool {
        if !self.primed {
            self.prime();
            self.primed = true;
        }
        // Report every simulated second, and every 2^20 events so that a
        // slow second (many flows) still lets the caller stop the run.
        let mut next_progress = (self.now_ns / NS_PER_S + 1) * NS_PER_S;
        let mut events_since_report = 0u32;
        while let Some((t, ev)) = self.events.pop_until(until_ns) {
            self.now_ns = t;
            events_since_report += 1;
            if t >= next_progress || events_since_report >= 1 << 20 {
                if !progress(t) {
                    return false;
                }
                events_since_report = 0;
                next_progress = (t / NS_PER_S + 1) * NS_PER_S;
            }
            if self.prefetching {
                self.prefetch_upcoming();
            }
            #[cfg(feature = "event-profile")]
            let (mut class, timeouts_before, t0) = (
                profile::classify(&ev, |slot| {
                    self.pool.slots.get(slot as usize).map(|(p, _)| p.dst)
                }),
                self.timeouts_of_timer_event(&ev),
                profile::now_ticks(),
            );
            self.dispatch(ev);
            #[cfg(feature = "event-profile")]
            {
                let t1 = profile::now_ticks();
                if self.timeouts_of_timer_event(&ev) > timeouts_before {
                    class = profile::EventClass::RetransmissionTimeout;
                }
                self.profile.add(class, t1 - t0);
            }
            if self.pool.exceeded {
                self.packets_over_budget_at_ns.get_or_insert(t);
                return false;
            }
        }
        self.now_ns = self.now_ns.max(until_ns);
        true
    }

    /// The retransmission timeouts so far of the sender a sender-timer
    /// event wakes (0 for other events): for the profile, which tells
    /// expiries from other wake-ups by whether this grew.
    #[cfg(feature = "event-profile")]
    fn timeouts_of_timer_event(&self, ev: &EventKind) -> u64 {
        match *ev {
            EventKind::SenderTimer { flow } => self
                .tcp_sender(flow as usize)
                .map_or(0, |s| s.core.stats.timeouts),
            _ => 0,
        }
    }

    /// Hint the state of the next events into cache (`sim/prefetch.rs`),
    /// in stages: an event `k` places ahead gets the lines that the lines
    /// hinted for it at `k + 1` lead to, so that each stage reads only
    /// what is already in cache. With many flows this overlaps an event's
    /// misses (its packet, route records, link direction, flow record,
    /// connection, endpoints) with the work of the events before it.
    #[inline(always)]
    fn prefetch_upcoming(&self) {
        for k in (0..PREFETCH_STAGES).rev() {
            match self.events.upcoming(k) {
                Some(EventKind::Arrive { node, slot }) => self.prefetch_arrival(k, node, slot),
                Some(EventKind::SenderTimer { flow }) => {
                    self.prefetch_flow(k, flow, FlowEvent::SenderTimer)
                }
                Some(EventKind::ReceiverTimer { flow }) => {
                    self.prefetch_flow(k, flow, FlowEvent::ReceiverTimer)
                }
                Some(EventKind::App { flow }) => self.prefetch_flow(k, flow, FlowEvent::App),
                _ => {}
            }
        }
    }

    /// Stage `k` of the hints for a packet in `slot` arriving at `node`.
    #[inline(always)]
    fn prefetch_arrival(&self, k: usize, node: u32, slot: u32) {
        let Some((pkt, _)) = self.pool.slots.get(slot as usize) else {
            return;
        };
        if k == PREFETCH_STAGES - 2 && is_segment(pkt) {
            // Taking the segment from the pool unlinks it from its flow's
            // list (its links were hinted with it).
            self.pool.prefetch_flow_list(slot, pkt.flow);
        }
        if k == PREFETCH_STAGES - 1 {
            prefetch(pkt);
            if let Some(links) = self.pool.links.get(slot as usize) {
                prefetch(links);
            }
        } else if pkt.dst == node {
            // Delivered here: the flow's endpoint, one stage later than a
            // timer's (the packet names the flow), and the link its answer
            // takes.
            let event = if pkt.kind == PacketKind::TcpAck {
                FlowEvent::ToSender
            } else {
                FlowEvent::ToReceiver
            };
            self.prefetch_flow(k + 1, pkt.flow, event);
            if k == PREFETCH_STAGES - 2 {
                self.routes.prefetch(node, pkt.src);
            } else if k == 0 {
                self.prefetch_link_towards(node, pkt.src);
            }
        } else if k == PREFETCH_STAGES - 2 {
            // Forwarded: the route records, then the link.
            self.routes.prefetch(node, pkt.dst);
        } else if k == PREFETCH_STAGES - 3 {
            self.prefetch_link_towards(node, pkt.dst);
            // A data segment may die in the link's queue: its flow's
            // record up to where the death is recorded (`record_death`).
            if pkt.kind == PacketKind::TcpData {
                if let Some(f) = self.flows.get(pkt.flow as usize) {
                    prefetch_bytes(f, Flow::DEATH_BYTES);
                }
            }
        }
    }

    /// The link direction `node` forwards packets for `dst` on: all of it,
    /// as a packet's offer reads or writes nearly every line of it (its
    /// counters, queue, channel and the queue's random stream).
    #[inline(always)]
    fn prefetch_link_towards(&self, node: u32, dst: u32) {
        if let Some(l) = self.routes.next_hop_if_built(node, dst) {
            if let Some(link) = self.links.get(l as usize) {
                prefetch(link);
            }
        }
    }

    /// Stage `k` of the hints for an event of flow `flow`: its record,
    /// with its connection's hot part (inline: `FlowKind`); then the
    /// endpoint state the event reads (at fixed offsets in it:
    /// `TcpFlow::sender_slot`); then what a timer's endpoint calls through
    /// and the link it sends on.
    #[inline(always)]
    fn prefetch_flow(&self, k: usize, flow: u32, event: FlowEvent) {
        let Some(f) = self.flows.get(flow as usize) else {
            return;
        };
        let depth = PREFETCH_STAGES - 1 - k;
        if depth == 0 {
            prefetch_bytes(f, Flow::HOT_BYTES);
            return;
        }
        let FlowKind::Tcp(t) = &f.kind else {
            return;
        };
        // The hot part of its sender only (`TcpSender::HOT_BYTES`), except
        // for a connection's start, which reads its configuration and
        // writes whole new endpoints. The endpoints' addresses are known
        // without reading them.
        let hot_sender = || prefetch_bytes(&t.sender_slot, TcpSender::HOT_BYTES);
        let receiver = || prefetch(&t.receiver_slot);
        // The oldest outstanding segment: what a timeout retransmits and an
        // ACK acknowledges first.
        let oldest_segment = || {
            if let Some(oldest) = t.sender_slot.as_ref().and_then(|s| s.core.sb.get(0)) {
                prefetch(oldest);
            }
        };
        match (depth, event) {
            (1, FlowEvent::App) => {
                prefetch(&t.spec);
                self.routes.prefetch(f.src, f.dst);
                // A start writes a whole new sender (about 15 lines) and
                // receiver over the old ones.
                prefetch(&t.sender_slot);
                receiver();
            }
            (1, event) => {
                // A timer's route records too, which the next stage's link
                // lookup reads (a delivery's are hinted by
                // `prefetch_arrival`).
                match event {
                    // A sender's timeout asks the receiver whether it
                    // holds the segment (ground truth of a spurious
                    // timeout).
                    FlowEvent::SenderTimer => {
                        hot_sender();
                        receiver();
                        self.routes.prefetch(f.src, f.dst);
                    }
                    FlowEvent::ToSender => hot_sender(),
                    FlowEvent::ReceiverTimer => {
                        receiver();
                        self.routes.prefetch(f.dst, f.src);
                    }
                    _ => receiver(),
                }
            }
            (2, FlowEvent::App) => self.prefetch_link_towards(f.src, f.dst),
            (2, FlowEvent::SenderTimer) => {
                if let Some(s) = &t.sender_slot {
                    prefetch(&*s.core.cc);
                    prefetch(&*s.core.classifier);
                    prefetch(&*s.recovery);
                    prefetch(&*s.timeout);
                }
                oldest_segment();
                t.lost_segments.prefetch_first();
                self.prefetch_link_towards(f.src, f.dst);
            }
            (2, FlowEvent::ToSender) => oldest_segment(),
            (2, FlowEvent::ReceiverTimer) => self.prefetch_link_towards(f.dst, f.src),
            _ => {}
        }
    }

    fn dispatch(&mut self, ev: EventKind) {
        match ev {
            EventKind::Arrive { node, slot } => {
                let (pkt, link) = self.pool.take(slot);
                self.hops += 1;
                self.at_node(node, pkt, Ingress::Link(link));
            }
            EventKind::SenderTimer { flow } => self.sender_timer(flow),
            EventKind::ReceiverTimer { flow } => self.receiver_timer(flow),
            EventKind::App { flow } => self.app_event(flow),
            EventKind::AgentTimer { node, agent } => self.agent_timer(node, agent),
            EventKind::Sample => self.sample(),
            EventKind::Offer { link, slot } => {
                let (pkt, _) = self.pool.take(slot);
                self.offer_to_link(link, pkt);
            }
        }
    }

    /// A packet is at `node`: agents first, then local delivery or routing.
    fn at_node(&mut self, node: u32, mut pkt: Packet, ingress: Ingress) {
        // Observers see it here, where the packet already lives in this
        // frame (a hook in the callers would cost a copy per hop).
        if let Some(o) = self.observers.as_deref_mut() {
            match ingress {
                Ingress::Link(link) => o.arrived(self.now_ns, node, link, &pkt),
                Ingress::Local => o.sent(self.now_ns, node, &pkt),
            }
        }
        let n = node as usize;
        let mut hop = None;
        if self.agent_nodes[n / 64] & 1 << (n % 64) != 0 {
            match self.agents_pass(node, &mut pkt, ingress) {
                Some(h) => hop = h,
                None => return,
            }
        }
        self.route(node, pkt, ingress, hop);
    }

    /// Show `pkt` to `node`'s agents in order. `None` if one dropped or
    /// took it; else the next hop they were told of (`KnownHop`), which
    /// routing then need not look up again. Out of line: most packets
    /// meet no agent.
    #[inline(never)]
    fn agents_pass(
        &mut self,
        node: u32,
        pkt: &mut Packet,
        ingress: Ingress,
    ) -> Option<Option<KnownHop>> {
        // Where routing will send it, for agents that watch the packets
        // bound over their link (G-Snoop).
        let hop = (pkt.dst != node).then(|| KnownHop {
            dst: pkt.dst,
            link: self.routes.next_hop(node, pkt.dst),
        });
        let egress = hop.map(|h| h.link).filter(|&l| l != NO_ROUTE);
        for a in 0..self.nodes[node as usize].agents.len() {
            self.agent_out.first_uid = self.next_uid;
            let verdict = self.nodes[node as usize].agents[a].on_packet(
                self.now_ns,
                pkt,
                ingress,
                egress,
                &mut self.agent_out,
            );
            self.flush_agent_output(node, a as u32);
            match verdict {
                AgentVerdict::Pass => {}
                AgentVerdict::Drop => {
                    self.kill_at_node(node, pkt, DeathCause::AgentDrop);
                    return None;
                }
                AgentVerdict::Take => return None,
            }
        }
        Some(hop)
    }

    /// Deliver locally or forward on the next hop (agents already seen);
    /// `hop`, if the agents' egress was looked up for this destination,
    /// spares the lookup.
    fn route(&mut self, node: u32, mut pkt: Packet, ingress: Ingress, hop: Option<KnownHop>) {
        if pkt.dst == node {
            self.deliver(pkt);
            return;
        }
        if let Ingress::Link(_) = ingress {
            // IP forwarding decrements the TTL (RFC 791).
            if pkt.ttl <= 1 {
                self.kill_at_node(node, &pkt, DeathCause::TtlExpired);
                return;
            }
            pkt.ttl -= 1;
        }
        let l = match hop {
            Some(h) if h.dst == pkt.dst => h.link,
            _ => self.routes.next_hop(node, pkt.dst),
        };
        if l == NO_ROUTE {
            self.kill_at_node(node, &pkt, DeathCause::NoRoute);
            return;
        }
        // STIS stalling: a packet of a stalled connection waits at the
        // link's entrance until the stall ends.
        if let Some(Some(stall)) = self.stalls.get_mut(l as usize / 2) {
            if let Some(release_ns) = stall.release_time(self.now_ns, pkt.flow) {
                let slot = self.pool.put(pkt, l);
                self.events
                    .schedule(release_ns, EventKind::Offer { link: l, slot });
                return;
            }
        }
        self.offer_to_link(l, pkt);
    }

    /// Offer `pkt` to link direction `l` now.
    fn offer_to_link(&mut self, l: u32, mut pkt: Packet) {
        let link = &mut self.links[l as usize];
        let outcome = link.offer(self.now_ns, &mut pkt);
        if let Some(o) = self.observers.as_deref_mut() {
            let tx_start = outcome.transmitted().then_some(link.last_tx_start_ns);
            let death = match outcome {
                LinkOutcome::Dropped(cause) => Some(cause),
                LinkOutcome::Arrives { .. } | LinkOutcome::LostAfterEnd => None,
            };
            o.offered(self.now_ns, link.from, l, &pkt, tx_start, death);
        }
        let to = link.to;
        if !self.link_watchers.is_empty() {
            self.report_link_tx(l, &pkt, outcome);
        }
        match outcome {
            LinkOutcome::Arrives { arrival_ns, marked } => {
                if marked {
                    self.flows[pkt.flow as usize].ecn_marks += 1;
                }
                let slot = self.pool.put(pkt, l);
                self.events
                    .schedule(arrival_ns, EventKind::Arrive { node: to, slot });
            }
            LinkOutcome::Dropped(cause) => self.kill(&pkt, cause),
            // It would be lost after the end: within the run it waits, and
            // nothing counts its death.
            LinkOutcome::LostAfterEnd => {}
        }
    }

    /// Tell the agents watching link direction `l` what it did with `pkt`.
    /// Out of line: most runs have no watcher, and the offer stays short.
    #[inline(never)]
    fn report_link_tx(&mut self, l: u32, pkt: &Packet, outcome: LinkOutcome) {
        let link = &self.links[l as usize];
        let tx = match outcome {
            LinkOutcome::Dropped(cause) if !outcome.transmitted() => LinkTx::Refused(cause),
            _ => {
                let start_ns = link.last_tx_start_ns;
                LinkTx::Sent {
                    start_ns,
                    end_ns: start_ns + tx_time_ns(pkt.wire_bytes(), link.rate_bps),
                }
            }
        };
        let first = self.link_watchers.partition_point(|w| w.link < l);
        for i in first..self.link_watchers.len() {
            let w = self.link_watchers[i];
            if w.link != l {
                break;
            }
            self.nodes[w.node as usize].agents[w.agent as usize].on_link_tx(self.now_ns, pkt, tx);
            self.flush_agent_output(w.node, w.agent);
        }
    }

    /// A packet dies at `node` (agent, TTL, no route).
    fn kill_at_node(&mut self, node: u32, pkt: &Packet, cause: DeathCause) {
        if let Some(o) = self.observers.as_deref_mut() {
            o.died_at_node(self.now_ns, node, pkt, cause);
        }
        self.kill(pkt, cause);
    }

    /// A packet dies: the flow it belongs to records it.
    fn kill(&mut self, pkt: &Packet, cause: DeathCause) {
        if let Some(f) = self.flows.get_mut(pkt.flow as usize) {
            f.record_death(pkt, cause);
        }
    }

    /// Send packets produced by an endpoint on `node`.
    fn send_from(&mut self, node: u32, out: &mut Vec<Packet>) {
        for mut pkt in out.drain(..) {
            pkt.uid = self.next_uid;
            self.next_uid += 1;
            if pkt.ttl == DEFAULT_TTL {
                pkt.ttl = self.initial_ttl;
            }
            self.at_node(node, pkt, Ingress::Local);
        }
    }

    fn flush_agent_output(&mut self, node: u32, agent: u32) {
        if !self.agent_out.inject.is_empty() {
            // The uids the agent was told its packets would carry
            // (`AgentOutput::next_uid`), all given before any is routed
            // (routing one may send other packets).
            debug_assert_eq!(self.agent_out.first_uid, self.next_uid);
            let mut inject = std::mem::take(&mut self.agent_out.inject);
            let first_uid = self.next_uid;
            self.next_uid += inject.len() as u64;
            for (uid, mut pkt) in (first_uid..).zip(inject.drain(..)) {
                pkt.uid = uid;
                if pkt.ttl == 0 || pkt.ttl == DEFAULT_TTL {
                    pkt.ttl = self.initial_ttl;
                }
                if let Some(o) = self.observers.as_deref_mut() {
                    o.sent(self.now_ns, node, &pkt);
                }
                self.route(node, pkt, Ingress::Local, None);
            }
            self.agent_out.inject = inject;
        }
        let n = &mut self.nodes[node as usize];
        if let Some(d) = n.agents[agent as usize].deadline() {
            let w = &mut n.agent_wakeups[agent as usize];
            if w.is_none_or(|cur| d < cur) {
                *w = Some(d);
                self.events
                    .schedule(d.max(self.now_ns), EventKind::AgentTimer { node, agent });
            }
        }
    }

    fn agent_timer(&mut self, node: u32, agent: u32) {
        let n = &mut self.nodes[node as usize];
        if n.agent_wakeups[agent as usize] == Some(self.now_ns) {
            n.agent_wakeups[agent as usize] = None;
        }
        if n.agents[agent as usize]
            .deadline()
            .is_some_and(|d| d <= self.now_ns)
        {
            self.agent_out.first_uid = self.next_uid;
            n.agents[agent as usize].on_timer(self.now_ns, &mut self.agent_out);
        }
        self.flush_agent_output(node, agent);
    }

    /// Let at most `max_packets` packets be queued or in flight at once
    /// (the memory budget's allowance for them, `scenario/budget.rs`): a
    /// run that needs more stops at that event, and
    /// [`World::packets_over_budget`] says when.
    pub fn limit_packets(&mut self, max_packets: usize) {
        self.pool.max_slots = max_packets;
    }

    /// When the run stopped because its packets outgrew the limit
    /// ([`World::limit_packets`]), and that limit.
    pub fn packets_over_budget(&self) -> Option<(TimeNs, usize)> {
        self.packets_over_budget_at_ns
            .map(|t| (t, self.pool.max_slots))
    }

    /// Turn the loop's cache hints on or off (by default on from
    /// `PREFETCH_MIN_FLOWS` flows): for measuring what they buy, and for
    /// tests that check they never change a result.
    pub fn set_prefetching(&mut self, on: bool) {
        self.prefetching = on;
    }

    /// The link direction `node` forwards a packet for `dst` on (NO_ROUTE
    /// if none).
    pub fn next_hop(&mut self, node: u32, dst: u32) -> u32 {
        self.routes.next_hop(node, dst)
    }

    /// The sender of flow `fi`'s current connection (tests, diagnostics).
    pub fn tcp_sender(&self, fi: usize) -> Option<&TcpSender> {
        match &self.flows.get(fi)?.kind {
            FlowKind::Tcp(t) => t.latest_sender(),
            _ => None,
        }
    }

    pub fn tcp_receiver(&self, fi: usize) -> Option<&TcpReceiver> {
        match &self.flows.get(fi)?.kind {
            FlowKind::Tcp(t) => t.latest_receiver(),
            _ => None,
        }
    }
}

#[cfg(test)]
mod pool_tests {
    use super::*;
    use crate::net::packet::testing::{ack, data};
    use rand::{Rng, SeedableRng};

    /// The live segments of a flow by brute force: every slot not on the
    /// free list holding a data segment of the flow.
    fn scanned(pool: &PacketPool, flow: u32) -> Vec<u64> {
        let mut uids: Vec<u64> = pool
            .slots
            .iter()
            .enumerate()
            .filter(|(i, (p, _))| {
                !pool.free.contains(&(*i as u32)) && p.flow == flow && is_segment(p)
            })
            .map(|(_, (p, _))| p.uid)
            .collect();
        uids.sort_unstable();
        uids
    }

    /// `live_segments_of` lists exactly what a scan of every slot finds
    /// (what it replaced): packets of three flows and of none
    /// (`u32::MAX`), data, empty segments and ACKs, put and taken in a
    /// random order, slots reused through the free list.
    #[test]
    fn a_flows_live_segments_are_what_a_scan_of_the_slots_finds() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let mut pool = PacketPool::new(3);
        let mut live: Vec<u32> = Vec::new();
        for uid in 0..5_000u64 {
            if live.is_empty() || rng.gen_bool(0.55) {
                let mut p = match rng.gen_range(0..3) {
                    0 => ack(uid),
                    1 => data(uid, 0),
                    _ => data(uid, 1_000),
                };
                p.uid = uid;
                p.flow = [0, 1, 2, u32::MAX][rng.gen_range(0..4)];
                live.push(pool.put(p, 0));
            } else {
                let slot = live.swap_remove(rng.gen_range(0..live.len()));
                pool.take(slot);
            }
            for flow in 0..3 {
                let mut listed: Vec<u64> = pool.live_segments_of(flow).map(|p| p.uid).collect();
                listed.sort_unstable();
                assert_eq!(listed, scanned(&pool, flow), "flow {flow} after uid {uid}");
            }
        }
        assert!(live.len() > 100, "the pool held many packets at once");
    }
}
