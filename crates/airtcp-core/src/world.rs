//! The World: nodes, links, flows and agents wired to the event queue. It
//! is the only place that knows the clock; endpoints and agents are
//! sans-I/O and hand back packets and deadlines.

use crate::agents::{AgentOutput, AgentVerdict, Ingress, NodeAgent};
use crate::app::{OnOffConfig, TcpApp, TransferRecord};
use crate::metrics::{
    AgentResult, FlowResult, LinkResult, RunResult, SeriesPoint, TransferResult, N_CAUSES,
};
use crate::net::link::{LinkDir, LinkOutcome};
use crate::net::packet::{DeathCause, Packet, PacketKind, DEFAULT_TTL};
use crate::net::stis::StallProcess;
use crate::net::topology::NO_ROUTE;
use crate::sim::events::{EventKind, EventQueue};
use crate::sim::rng::RandomStream;
use crate::sim::{ns_to_s, s_to_ns, TimeNs, NS_PER_S};
use crate::tcp::classify::{LossCause, LossDetection};
use crate::tcp::receiver::{ReceiverStats, TcpReceiver};
use crate::tcp::sender::{SenderStats, TcpSender};
use crate::tcp::spec::TcpSpec;
use std::collections::HashMap;

pub struct Node {
    pub name: String,
    /// Next-hop link direction per destination node; empty when every
    /// destination goes the same way (`only_link`, e.g. a host on one link),
    /// which keeps large topologies' tables small and cache-friendly.
    routes: Vec<u32>,
    only_link: Option<u32>,
    pub agents: Vec<Box<dyn NodeAgent>>,
    /// Earliest scheduled wake-up per agent.
    agent_wakeups: Vec<Option<TimeNs>>,
}

impl Node {
    pub fn new(name: String, routes: Vec<u32>) -> Self {
        let mut used = routes.iter().copied().filter(|&l| l != NO_ROUTE);
        let only_link = used.next().filter(|&first| used.all(|l| l == first));
        Self {
            name,
            routes: if only_link.is_some() {
                Vec::new()
            } else {
                routes
            },
            only_link,
            agents: Vec::new(),
            agent_wakeups: Vec::new(),
        }
    }

    /// The next hop towards each of `n_nodes` destinations (agents that
    /// need a node's whole table, e.g. G-Snoop's gateways).
    pub fn routes_to_all(&self, n_nodes: usize) -> Vec<u32> {
        (0..n_nodes as u32).map(|d| self.next_hop(d)).collect()
    }

    /// The link direction towards `dst` (NO_ROUTE if none).
    #[inline]
    pub fn next_hop(&self, dst: u32) -> u32 {
        match self.only_link {
            Some(l) => l,
            None => self.routes.get(dst as usize).copied().unwrap_or(NO_ROUTE),
        }
    }

    pub fn add_agent(&mut self, agent: Box<dyn NodeAgent>) {
        self.agents.push(agent);
        self.agent_wakeups.push(None);
    }
}

/// A TCP flow: its configuration, application, and current connection.
pub struct TcpFlow {
    pub spec: TcpSpec,
    pub app: TcpApp,
    pub sender: Option<TcpSender>,
    pub receiver: Option<TcpReceiver>,
    /// The last closed connection, kept for inspection after the run.
    pub finished_sender: Option<TcpSender>,
    pub finished_receiver: Option<TcpReceiver>,
    pub epoch: u32,
    transfer_start_ns: TimeNs,
    transfers_done: u64,
    sender_wakeup: Option<TimeNs>,
    receiver_wakeup: Option<TimeNs>,
    app_rng: RandomStream,
    /// Totals of connections already closed (repeated downloads).
    closed_sender: SenderStats,
    closed_receiver: ReceiverStats,
    /// Counters of the sender hooks of closed connections, by name.
    closed_hook_counters: Vec<(&'static str, u64)>,
    pub spurious_timeouts: u64,
    /// Latest death of each data segment of the current connection, by
    /// sequence number: (send time of the packet that died, cause).
    lost_segments: HashMap<u64, (TimeNs, DeathCause)>,
    /// Classifier confusion counts: [truth][verdict], truth = congestion,
    /// wireless, other; verdict = congestion, non-congestion.
    confusion: [[u64; 2]; 3],
    /// Wireless (channel) losses whose response halved the window or more.
    wireless_losses_halved: u64,
    wireless_losses_halved_by_dupacks: u64,
    rtt_samples: u64,
    rtt_sum_ns: u128,
    min_rtt_ns: Option<TimeNs>,
}

pub struct UdpFlow {
    pub cfg: OnOffConfig,
    started: bool,
    on: bool,
    /// End of the current on or off period.
    period_end_ns: TimeNs,
    rng: RandomStream,
    pub packets_sent: u64,
    pub bytes_sent: u64,
    pub packets_received: u64,
    pub bytes_received: u64,
}

#[allow(clippy::large_enum_variant)]
pub enum FlowKind {
    Tcp(Box<TcpFlow>),
    Udp(UdpFlow),
}

pub struct Flow {
    pub name: String,
    pub src: u32,
    pub dst: u32,
    pub start_ns: TimeNs,
    pub stop_ns: Option<TimeNs>,
    pub kind: FlowKind,
    /// When the flow finished (file transfer done, repeated count reached).
    pub finished_ns: Option<TimeNs>,
    pub data_drops: [u64; N_CAUSES],
    pub ack_drops: u64,
    pub ecn_marks: u64,
}

impl Flow {
    #[allow(clippy::too_many_arguments)]
    pub fn tcp(
        name: String,
        src: u32,
        dst: u32,
        start_ns: TimeNs,
        stop_ns: Option<TimeNs>,
        spec: TcpSpec,
        app: TcpApp,
        seed: u64,
    ) -> Self {
        let app_rng = RandomStream::new(seed, &format!("app:{name}"));
        Self {
            kind: FlowKind::Tcp(Box::new(TcpFlow {
                spec,
                app,
                sender: None,
                receiver: None,
                finished_sender: None,
                finished_receiver: None,
                epoch: 0,
                transfer_start_ns: 0,
                transfers_done: 0,
                sender_wakeup: None,
                receiver_wakeup: None,
                app_rng,
                closed_sender: SenderStats::default(),
                closed_receiver: ReceiverStats::default(),
                closed_hook_counters: Vec::new(),
                spurious_timeouts: 0,
                lost_segments: HashMap::new(),
                confusion: [[0; 2]; 3],
                wireless_losses_halved: 0,
                wireless_losses_halved_by_dupacks: 0,
                rtt_samples: 0,
                rtt_sum_ns: 0,
                min_rtt_ns: None,
            })),
            name,
            src,
            dst,
            start_ns,
            stop_ns,
            finished_ns: None,
            data_drops: [0; N_CAUSES],
            ack_drops: 0,
            ecn_marks: 0,
        }
    }

    pub fn udp(
        name: String,
        src: u32,
        dst: u32,
        start_ns: TimeNs,
        stop_ns: Option<TimeNs>,
        cfg: OnOffConfig,
        seed: u64,
    ) -> Self {
        let rng = RandomStream::new(seed, &format!("app:{name}"));
        Self {
            kind: FlowKind::Udp(UdpFlow {
                cfg,
                started: false,
                on: false,
                period_end_ns: 0,
                rng,
                packets_sent: 0,
                bytes_sent: 0,
                packets_received: 0,
                bytes_received: 0,
            }),
            name,
            src,
            dst,
            start_ns,
            stop_ns,
            finished_ns: None,
            data_drops: [0; N_CAUSES],
            ack_drops: 0,
            ecn_marks: 0,
        }
    }
}

/// Which time series to sample.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SeriesConfig {
    pub interval_ns: TimeNs,
    pub flows: bool,
    pub links: bool,
}

/// Slots for packets in flight, so that events carry a 4-byte index.
#[derive(Default)]
struct PacketPool {
    slots: Vec<(Packet, u32)>,
    live: Vec<bool>,
    free: Vec<u32>,
}

impl PacketPool {
    fn put(&mut self, pkt: Packet, link: u32) -> u32 {
        if let Some(i) = self.free.pop() {
            self.slots[i as usize] = (pkt, link);
            self.live[i as usize] = true;
            i
        } else {
            self.slots.push((pkt, link));
            self.live.push(true);
            (self.slots.len() - 1) as u32
        }
    }

    fn take(&mut self, i: u32) -> (Packet, u32) {
        self.live[i as usize] = false;
        self.free.push(i);
        self.slots[i as usize]
    }

    fn live_packets(&self) -> impl Iterator<Item = &Packet> {
        self.slots
            .iter()
            .zip(&self.live)
            .filter(|(_, &l)| l)
            .map(|((p, _), _)| p)
    }
}

pub struct World {
    pub now_ns: TimeNs,
    pub seed: u64,
    pub duration_ns: TimeNs,
    pub nodes: Vec<Node>,
    pub links: Vec<LinkDir>,
    pub flows: Vec<Flow>,
    pub series_cfg: Option<SeriesConfig>,
    /// Per link (not direction): STIS per-connection stalling, if any.
    pub stalls: Vec<Option<StallProcess>>,
    events: EventQueue,
    primed: bool,
    pool: PacketPool,
    next_uid: u64,
    hops: u64,
    transfers: Vec<TransferRecord>,
    series: Vec<SeriesPoint>,
    /// Reused output buffers (no allocation per packet).
    scratch: Vec<Packet>,
    agent_out: AgentOutput,
}

impl World {
    pub fn new(
        seed: u64,
        duration_ns: TimeNs,
        nodes: Vec<Node>,
        links: Vec<LinkDir>,
        flows: Vec<Flow>,
    ) -> Self {
        Self {
            now_ns: 0,
            seed,
            duration_ns,
            nodes,
            links,
            flows,
            series_cfg: None,
            stalls: Vec::new(),
            events: EventQueue::new(),
            primed: false,
            pool: PacketPool::default(),
            next_uid: 0,
            hops: 0,
            transfers: Vec::new(),
            series: Vec::new(),
            scratch: Vec::with_capacity(64),
            agent_out: AgentOutput::default(),
        }
    }

    /// Schedule every flow's start and the first sample.
    fn prime(&mut self) {
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

    /// Run to the end of the scenario. `progress` is called every simulated
    /// second with the current time; return false from it to stop early.
    /// If `progress` stops the run early, the results cover the simulated
    /// time reached so far.
    pub fn run(&mut self, progress: impl FnMut(TimeNs) -> bool) -> RunResult {
        if self.advance(self.duration_ns, progress) {
            self.now_ns = self.duration_ns;
        }
        self.collect()
    }

    /// Process every event up to and including `until_ns` (tests and
    /// step-by-step inspection); call [`Self::finish`] for the results.
    pub fn run_until(&mut self, until_ns: TimeNs) {
        self.advance(until_ns.min(self.duration_ns), |_| true);
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
            self.dispatch(ev);
        }
        self.now_ns = self.now_ns.max(until_ns);
        true
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
        let n = node as usize;
        if !self.nodes[n].agents.is_empty() {
            for a in 0..self.nodes[n].agents.len() {
                let verdict = self.nodes[n].agents[a].on_packet(
                    self.now_ns,
                    &mut pkt,
                    ingress,
                    &mut self.agent_out,
                );
                self.flush_agent_output(node, a as u32);
                match verdict {
                    AgentVerdict::Pass => {}
                    AgentVerdict::Drop => {
                        self.kill(&pkt, DeathCause::AgentDrop);
                        return;
                    }
                    AgentVerdict::Take => return,
                }
            }
        }
        self.route(node, pkt, ingress);
    }

    /// Deliver locally or forward on the next hop (agents already seen).
    fn route(&mut self, node: u32, mut pkt: Packet, ingress: Ingress) {
        if pkt.dst == node {
            self.deliver(pkt);
            return;
        }
        if let Ingress::Link(_) = ingress {
            // IP forwarding decrements the TTL (RFC 791).
            if pkt.ttl <= 1 {
                self.kill(&pkt, DeathCause::TtlExpired);
                return;
            }
            pkt.ttl -= 1;
        }
        let l = self.nodes[node as usize].next_hop(pkt.dst);
        if l == NO_ROUTE {
            self.kill(&pkt, DeathCause::NoRoute);
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
        match link.offer(self.now_ns, &mut pkt) {
            LinkOutcome::Arrives { arrival_ns, marked } => {
                if marked {
                    self.flows[pkt.flow as usize].ecn_marks += 1;
                }
                let to = link.to;
                let slot = self.pool.put(pkt, l);
                self.events
                    .schedule(arrival_ns, EventKind::Arrive { node: to, slot });
            }
            LinkOutcome::Dropped(cause) => self.kill(&pkt, cause),
        }
    }

    fn kill(&mut self, pkt: &Packet, cause: DeathCause) {
        if let Some(f) = self.flows.get_mut(pkt.flow as usize) {
            if let FlowKind::Tcp(t) = &mut f.kind {
                if pkt.kind == PacketKind::TcpData && pkt.payload_len > 0 && pkt.epoch == t.epoch {
                    t.lost_segments.insert(pkt.seq, (pkt.sent_ns, cause));
                }
            }
            match pkt.kind {
                PacketKind::TcpData | PacketKind::Udp => f.data_drops[cause.index()] += 1,
                PacketKind::TcpAck => f.ack_drops += 1,
                PacketKind::Control => {}
            }
        }
    }

    /// Send packets produced by an endpoint on `node`.
    fn send_from(&mut self, node: u32, out: &mut Vec<Packet>) {
        for mut pkt in out.drain(..) {
            pkt.uid = self.next_uid;
            self.next_uid += 1;
            self.at_node(node, pkt, Ingress::Local);
        }
    }

    fn flush_agent_output(&mut self, node: u32, agent: u32) {
        if !self.agent_out.inject.is_empty() {
            let mut inject = std::mem::take(&mut self.agent_out.inject);
            for mut pkt in inject.drain(..) {
                pkt.uid = self.next_uid;
                self.next_uid += 1;
                if pkt.ttl == 0 {
                    pkt.ttl = DEFAULT_TTL;
                }
                self.route(node, pkt, Ingress::Local);
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
            n.agents[agent as usize].on_timer(self.now_ns, &mut self.agent_out);
        }
        self.flush_agent_output(node, agent);
    }

    fn deliver(&mut self, pkt: Packet) {
        let fi = pkt.flow as usize;
        let now = self.now_ns;
        if fi >= self.flows.len() {
            return;
        }
        let mut out = std::mem::take(&mut self.scratch);
        let flow = &mut self.flows[fi];
        match (&mut flow.kind, pkt.kind) {
            (FlowKind::Tcp(t), PacketKind::TcpData) if pkt.epoch == t.epoch => {
                if let Some(r) = t.receiver.as_mut() {
                    r.on_packet(now, &pkt, &mut out);
                    let node = flow.dst;
                    self.sync_receiver_timer(fi);
                    self.send_from(node, &mut out);
                }
            }
            (FlowKind::Tcp(t), PacketKind::TcpAck) if pkt.epoch == t.epoch => {
                if let Some(s) = t.sender.as_mut() {
                    s.on_packet(now, &pkt, &mut out);
                    let node = flow.src;
                    self.after_sender_activity(fi);
                    self.send_from(node, &mut out);
                }
            }
            (FlowKind::Udp(u), PacketKind::Udp) => {
                u.packets_received += 1;
                u.bytes_received += pkt.raw_size as u64;
            }
            _ => {}
        }
        self.scratch = out;
    }

    /// After the sender ran: score its loss decisions, re-arm its timer and
    /// check for a finished transfer.
    fn after_sender_activity(&mut self, fi: usize) {
        self.sync_sender_timer(fi);
        let now = self.now_ns;
        let flow = &mut self.flows[fi];
        let FlowKind::Tcp(t) = &mut flow.kind else {
            return;
        };
        if let Some(s) = t.sender.as_mut() {
            for d in s.core.loss_decisions.drain(..) {
                let truth = match t.lost_segments.get(&d.seq) {
                    Some(&(sent, cause)) if sent == d.last_sent_ns => match cause {
                        DeathCause::QueueOverflow | DeathCause::AqmDrop => 0,
                        DeathCause::ChannelError => 1,
                        _ => 2,
                    },
                    _ => 2,
                };
                let verdict = match d.cause {
                    LossCause::Congestion => 0,
                    LossCause::NonCongestion => 1,
                };
                t.confusion[truth][verdict] += 1;
                if truth == 1 && d.halved_window {
                    t.wireless_losses_halved += 1;
                    if d.how == LossDetection::DuplicateAcks {
                        t.wireless_losses_halved_by_dupacks += 1;
                    }
                }
            }
        }
        let Some(size) = t.app.transfer_bytes() else {
            return;
        };
        let Some(s) = t.sender.as_ref() else { return };
        if s.core.snd_una < size {
            return;
        }
        self.transfers.push(TransferRecord {
            flow: fi as u32,
            index: t.transfers_done,
            start_ns: t.transfer_start_ns,
            end_ns: now,
            bytes: size,
        });
        t.transfers_done += 1;
        Self::close_connection(t, now);
        let more = match t.app {
            TcpApp::Repeated { count, .. } => count.is_none_or(|c| t.transfers_done < c),
            _ => false,
        };
        if let (true, TcpApp::Repeated { mean_think_ns, .. }) = (more, &t.app) {
            let think = s_to_ns(t.app_rng.exponential(*mean_think_ns as f64 / 1e9));
            self.events
                .schedule(now + think, EventKind::App { flow: fi as u32 });
        } else {
            flow.finished_ns = Some(now);
        }
    }

    /// Fold a finished connection's counters into the flow totals.
    fn close_connection(t: &mut TcpFlow, now_ns: TimeNs) {
        if let Some(mut s) = t.sender.take() {
            s.core.account_cwnd(now_ns);
            let st = &s.core.stats;
            let c = &mut t.closed_sender;
            c.segments_sent += st.segments_sent;
            c.bytes_sent += st.bytes_sent;
            c.retransmitted_segments += st.retransmitted_segments;
            c.retransmitted_bytes += st.retransmitted_bytes;
            c.timeouts += st.timeouts;
            c.fast_retransmits += st.fast_retransmits;
            c.ecn_reductions += st.ecn_reductions;
            c.non_congestion_losses += st.non_congestion_losses;
            c.spurious_timeouts_detected += st.spurious_timeouts_detected;
            c.cwnd_byte_ns += st.cwnd_byte_ns;
            c.cwnd_time_ns += st.cwnd_time_ns;
            c.first_expiries += st.first_expiries;
            c.first_expiry_rto_sum_ns += st.first_expiry_rto_sum_ns;
            t.rtt_samples += s.core.rtt.samples;
            t.rtt_sum_ns += s.core.rtt.sample_sum_ns;
            if let Some(m) = s.core.rtt.min_rtt_ns() {
                t.min_rtt_ns = Some(t.min_rtt_ns.map_or(m, |x| x.min(m)));
            }
            if let Some(h) = s.hook.as_ref() {
                for (name, v) in h.counters() {
                    match t.closed_hook_counters.iter_mut().find(|(n, _)| *n == name) {
                        Some((_, total)) => *total += v,
                        None => t.closed_hook_counters.push((name, v)),
                    }
                }
            }
            t.finished_sender = Some(s);
        }
        if let Some(r) = t.receiver.take() {
            let st = &r.stats;
            let c = &mut t.closed_receiver;
            c.delivered_bytes += st.delivered_bytes;
            c.duplicate_bytes += st.duplicate_bytes;
            c.received_bytes += st.received_bytes;
            c.segments_received += st.segments_received;
            c.acks_sent += st.acks_sent;
            c.ce_marked_segments += st.ce_marked_segments;
            t.finished_receiver = Some(r);
        }
        t.sender_wakeup = None;
        t.receiver_wakeup = None;
    }

    fn sync_sender_timer(&mut self, fi: usize) {
        let FlowKind::Tcp(t) = &mut self.flows[fi].kind else {
            return;
        };
        let Some(d) = t.sender.as_ref().and_then(|s| s.next_deadline()) else {
            return;
        };
        if t.sender_wakeup.is_none_or(|w| d < w) {
            t.sender_wakeup = Some(d);
            self.events.schedule(
                d.max(self.now_ns),
                EventKind::SenderTimer { flow: fi as u32 },
            );
        }
    }

    fn sync_receiver_timer(&mut self, fi: usize) {
        let FlowKind::Tcp(t) = &mut self.flows[fi].kind else {
            return;
        };
        let Some(d) = t.receiver.as_ref().and_then(|r| r.next_deadline()) else {
            return;
        };
        if t.receiver_wakeup.is_none_or(|w| d < w) {
            t.receiver_wakeup = Some(d);
            self.events.schedule(
                d.max(self.now_ns),
                EventKind::ReceiverTimer { flow: fi as u32 },
            );
        }
    }

    fn sender_timer(&mut self, flow: u32) {
        let fi = flow as usize;
        let now = self.now_ns;
        let f = &mut self.flows[fi];
        let node = f.src;
        let FlowKind::Tcp(t) = &mut f.kind else {
            return;
        };
        let mut out = std::mem::take(&mut self.scratch);
        if t.sender_wakeup == Some(now) {
            t.sender_wakeup = None;
        }
        let mut expired = None;
        if let Some(s) = t.sender.as_mut() {
            if s.next_deadline().is_some_and(|d| d <= now) {
                expired = s.on_timer(now, &mut out);
            }
        }
        if let Some(seq) = expired {
            // Ground truth: was the segment actually lost? It was not if the
            // receiver holds it or a copy is still in the network.
            let epoch = t.epoch;
            let held = t.receiver.as_ref().is_some_and(|r| r.holds(seq));
            let in_network = self.pool.live_packets().any(|p| {
                p.flow == flow
                    && p.epoch == epoch
                    && !p.has_flag(crate::tcp::kick::KICK)
                    && p.kind == PacketKind::TcpData
                    && p.payload_len > 0
                    && p.seq <= seq
                    && seq < p.end_seq()
            });
            if held || in_network {
                if let FlowKind::Tcp(t) = &mut self.flows[fi].kind {
                    t.spurious_timeouts += 1;
                }
            }
        }
        self.after_sender_activity(fi);
        self.send_from(node, &mut out);
        self.scratch = out;
    }

    fn receiver_timer(&mut self, flow: u32) {
        let fi = flow as usize;
        let now = self.now_ns;
        let f = &mut self.flows[fi];
        let node = f.dst;
        let FlowKind::Tcp(t) = &mut f.kind else {
            return;
        };
        let mut out = std::mem::take(&mut self.scratch);
        if t.receiver_wakeup == Some(now) {
            t.receiver_wakeup = None;
        }
        if let Some(r) = t.receiver.as_mut() {
            r.on_timer(now, &mut out);
        }
        self.sync_receiver_timer(fi);
        self.send_from(node, &mut out);
        self.scratch = out;
    }

    fn app_event(&mut self, flow: u32) {
        let fi = flow as usize;
        let now = self.now_ns;
        let f = &mut self.flows[fi];
        if f.stop_ns.is_some_and(|s| now >= s) {
            // The flow's active interval is over: close its connection.
            if let FlowKind::Tcp(t) = &mut f.kind {
                Self::close_connection(t, now);
            }
            return;
        }
        let (src, dst) = (f.src, f.dst);
        match &mut f.kind {
            FlowKind::Tcp(t) => {
                // A new connection per transfer.
                t.epoch += 1;
                t.lost_segments.clear();
                let mut sender = t.spec.build_sender(flow, t.epoch, src, dst);
                t.receiver = Some(t.spec.build_receiver(flow, t.epoch, src, dst));
                t.transfer_start_ns = now;
                let mut out = std::mem::take(&mut self.scratch);
                sender.start(now, &mut out);
                let bytes = t.app.transfer_bytes().unwrap_or(u64::MAX);
                sender.app_write(now, bytes, &mut out);
                t.sender = Some(sender);
                self.after_sender_activity(fi);
                self.send_from(src, &mut out);
                self.scratch = out;
            }
            FlowKind::Udp(u) => {
                if !u.started || now >= u.period_end_ns {
                    // The first event starts an on period; later ones alternate.
                    u.on = !u.started || !u.on;
                    u.started = true;
                    let mean = if u.on {
                        u.cfg.mean_on_ns
                    } else {
                        u.cfg.mean_off_ns
                    };
                    u.period_end_ns = now + s_to_ns(u.rng.exponential(mean as f64 / 1e9)).max(1);
                }
                if u.on {
                    let pkt = Packet {
                        kind: PacketKind::Udp,
                        flow,
                        src,
                        dst,
                        ttl: DEFAULT_TTL,
                        raw_size: u.cfg.packet_bytes,
                        payload_len: 0,
                        sent_ns: now,
                        ..Default::default()
                    };
                    u.packets_sent += 1;
                    u.bytes_sent += u.cfg.packet_bytes as u64;
                    let gap = crate::sim::tx_time_ns(u.cfg.packet_bytes, u.cfg.rate_bps);
                    let next = (now + gap).min(u.period_end_ns);
                    self.events.schedule(next, EventKind::App { flow });
                    let mut out = std::mem::take(&mut self.scratch);
                    out.push(pkt);
                    self.send_from(src, &mut out);
                    self.scratch = out;
                } else {
                    self.events
                        .schedule(u.period_end_ns, EventKind::App { flow });
                }
            }
        }
    }

    fn sample(&mut self) {
        let Some(cfg) = self.series_cfg.clone() else {
            return;
        };
        let t = ns_to_s(self.now_ns);
        if cfg.flows {
            for (i, f) in self.flows.iter().enumerate() {
                let FlowKind::Tcp(tf) = &f.kind else { continue };
                let Some(s) = tf.sender.as_ref() else {
                    continue;
                };
                let id = i as u32;
                self.series.push(SeriesPoint {
                    time_s: t,
                    metric: "cwnd",
                    id,
                    value: s.core.w.cwnd as f64,
                });
                let ssthresh = s.core.w.ssthresh.min(u32::MAX as u64) as f64;
                self.series.push(SeriesPoint {
                    time_s: t,
                    metric: "ssthresh",
                    id,
                    value: ssthresh,
                });
                if let Some(srtt) = s.core.rtt.srtt_ns() {
                    self.series.push(SeriesPoint {
                        time_s: t,
                        metric: "srtt",
                        id,
                        value: ns_to_s(srtt),
                    });
                }
                if let Some(r) = s.core.rtt.latest_rtt_ns() {
                    self.series.push(SeriesPoint {
                        time_s: t,
                        metric: "rtt",
                        id,
                        value: ns_to_s(r),
                    });
                }
            }
        }
        if cfg.links {
            let now = self.now_ns;
            for (i, l) in self.links.iter_mut().enumerate() {
                let q = l.queue_len_pkts(now) as f64;
                self.series.push(SeriesPoint {
                    time_s: t,
                    metric: "queue",
                    id: i as u32,
                    value: q,
                });
                if let Some(avg) = l.queue.red_avg() {
                    self.series.push(SeriesPoint {
                        time_s: t,
                        metric: "red_avg",
                        id: i as u32,
                        value: avg,
                    });
                }
            }
        }
        self.events
            .schedule(self.now_ns + cfg.interval_ns, EventKind::Sample);
    }

    fn collect(&mut self) -> RunResult {
        let end = self.now_ns;
        let mut flows = Vec::with_capacity(self.flows.len());
        for (i, f) in self.flows.iter_mut().enumerate() {
            let stop = f.finished_ns.or(f.stop_ns).unwrap_or(end).min(end);
            let active_ns = stop.saturating_sub(f.start_ns);
            let per_s = |bytes: u64| {
                if active_ns == 0 {
                    0.0
                } else {
                    bytes as f64 * 8.0 / ns_to_s(active_ns)
                }
            };
            let mut r = FlowResult {
                flow: i as u32,
                name: f.name.clone(),
                src: self.nodes[f.src as usize].name.clone(),
                dst: self.nodes[f.dst as usize].name.clone(),
                start_s: ns_to_s(f.start_ns),
                end_s: ns_to_s(stop),
                data_drops: f.data_drops,
                ack_drops: f.ack_drops,
                ecn_marks: f.ecn_marks,
                mean_first_rto_s: f64::NAN,
                mean_rtt_s: f64::NAN,
                min_rtt_s: f64::NAN,
                ..Default::default()
            };
            match &mut f.kind {
                FlowKind::Tcp(t) => {
                    let (cwnd, ssthresh) = t
                        .sender
                        .as_ref()
                        .map_or((0, 0), |s| (s.core.w.cwnd, s.core.w.ssthresh));
                    Self::close_connection(t, end);
                    let s = &t.closed_sender;
                    let rx = &t.closed_receiver;
                    r.protocol = "tcp".into();
                    r.variant = t.spec.label();
                    r.app = t.app.kind_name().into();
                    r.delivered_bytes = rx.delivered_bytes;
                    r.goodput_bps = per_s(rx.delivered_bytes);
                    r.throughput_bps = per_s(rx.received_bytes);
                    r.segments_sent = s.segments_sent;
                    r.bytes_sent = s.bytes_sent;
                    r.retransmitted_segments = s.retransmitted_segments;
                    r.retransmitted_bytes = s.retransmitted_bytes;
                    r.duplicate_bytes_received = rx.duplicate_bytes;
                    r.timeouts = s.timeouts;
                    r.spurious_timeouts = t.spurious_timeouts;
                    r.spurious_timeouts_detected = s.spurious_timeouts_detected;
                    if let Some(mean) = s.cwnd_byte_ns.checked_div(s.cwnd_time_ns) {
                        r.mean_cwnd_bytes = mean as f64;
                    }
                    r.fast_retransmits = s.fast_retransmits;
                    r.ecn_reductions = s.ecn_reductions;
                    r.non_congestion_losses = s.non_congestion_losses;
                    r.transfers_completed = t.transfers_done;
                    if t.rtt_samples > 0 {
                        r.mean_rtt_s = ns_to_s((t.rtt_sum_ns / t.rtt_samples as u128) as u64);
                    }
                    if let Some(m) = t.min_rtt_ns {
                        r.min_rtt_s = ns_to_s(m);
                    }
                    if s.first_expiries > 0 {
                        r.mean_first_rto_s =
                            ns_to_s((s.first_expiry_rto_sum_ns / s.first_expiries as u128) as u64);
                    }
                    let counter = |name: &str| {
                        t.closed_hook_counters
                            .iter()
                            .find(|(n, _)| *n == name)
                            .map_or(0, |(_, v)| *v)
                    };
                    let c = t.confusion;
                    r.loss_congestion_as_congestion = c[0][0];
                    r.loss_congestion_as_wireless = c[0][1];
                    r.loss_wireless_as_congestion = c[1][0];
                    r.loss_wireless_as_wireless = c[1][1];
                    r.loss_other_as_congestion = c[2][0];
                    r.loss_other_as_wireless = c[2][1];
                    r.wireless_losses_halved = t.wireless_losses_halved;
                    r.wireless_losses_halved_by_dupacks = t.wireless_losses_halved_by_dupacks;
                    r.kicks_sent = counter("kicks_sent");
                    r.kickbacks_received = counter("kickbacks_received");
                    r.final_cwnd_bytes = cwnd;
                    r.final_ssthresh_bytes = ssthresh;
                }
                FlowKind::Udp(u) => {
                    r.protocol = "udp".into();
                    r.app = "onoff".into();
                    r.segments_sent = u.packets_sent;
                    r.bytes_sent = u.bytes_sent;
                    r.delivered_bytes = u.bytes_received;
                    r.goodput_bps = per_s(u.bytes_received);
                    r.throughput_bps = r.goodput_bps;
                }
            }
            flows.push(r);
        }
        let mut links = Vec::with_capacity(self.links.len());
        for (i, l) in self.links.iter_mut().enumerate() {
            l.finish(end);
            let s = &l.stats;
            links.push(LinkResult {
                link: i as u32,
                name: l.name.clone(),
                from: self.nodes[l.from as usize].name.clone(),
                to: self.nodes[l.to as usize].name.clone(),
                rate_bps: l.rate_bps,
                delay_s: ns_to_s(l.delay_ns),
                packets_sent: s.packets_sent,
                bytes_sent: s.bytes_sent,
                utilization: if end == 0 {
                    0.0
                } else {
                    (s.busy_ns.min(end)) as f64 / end as f64
                },
                drops: s.drops,
                ecn_marks: s.ecn_marks,
                mean_queue_pkts: if end == 0 {
                    0.0
                } else {
                    s.queue_pkt_ns as f64 / end as f64
                },
                max_queue_pkts: s.max_queue_pkts,
            });
        }
        let transfers = self
            .transfers
            .iter()
            .map(|t| TransferResult {
                flow: t.flow,
                index: t.index,
                start_s: ns_to_s(t.start_ns),
                end_s: ns_to_s(t.end_ns),
                bytes: t.bytes,
                response_s: ns_to_s(t.response_ns()),
            })
            .collect();
        let mut agents = Vec::new();
        for n in &self.nodes {
            for a in &n.agents {
                for (counter, value) in a.counters() {
                    agents.push(AgentResult {
                        node: n.name.clone(),
                        agent: a.name().into(),
                        counter: counter.into(),
                        value,
                    });
                }
            }
        }
        RunResult {
            seed: self.seed,
            duration_s: ns_to_s(end),
            flows,
            links,
            transfers,
            agents,
            series: std::mem::take(&mut self.series),
            events: self.events.processed(),
            packet_hops: self.hops,
        }
    }

    /// The sender of flow `fi`'s current connection (tests, diagnostics).
    pub fn tcp_sender(&self, fi: usize) -> Option<&TcpSender> {
        match &self.flows.get(fi)?.kind {
            FlowKind::Tcp(t) => t.sender.as_ref().or(t.finished_sender.as_ref()),
            _ => None,
        }
    }

    pub fn tcp_receiver(&self, fi: usize) -> Option<&TcpReceiver> {
        match &self.flows.get(fi)?.kind {
            FlowKind::Tcp(t) => t.receiver.as_ref().or(t.finished_receiver.as_ref()),
            _ => None,
        }
    }
}
