//! Flow and application glue: what the event loop does for the endpoints
//! it hosts. TCP connections (their timers, delivery of their packets,
//! transfers, loss ground truth for scoring classifiers) and UDP on/off
//! sources.

use super::World;
use crate::app::{OnOffConfig, TcpApp, TransferRecord};
use crate::metrics::N_CAUSES;
use crate::net::packet::{DeathCause, Packet, PacketKind};
use crate::sim::events::{EventKind, EventQueue};
use crate::sim::rng::RandomStream;
use crate::sim::{s_to_ns, TimeNs};
use crate::tcp::classify::{LossCause, LossDetection};
use crate::tcp::receiver::{ReceiverStats, TcpReceiver};
use crate::tcp::sender::{SenderStats, TcpSender};
use crate::tcp::spec::TcpSpec;

/// A TCP flow: its configuration, application, and current connection.
/// In declaration order (`repr(C)`): what the events of a running
/// connection read and write first, together ([`TcpFlow::HOT_BYTES`]),
/// then the connection's endpoints; with many flows each event finds its
/// flow out of cache, and the loop hints just those lines into cache. What
/// a connection's start, its close and the results read comes after.
#[repr(C)]
pub struct TcpFlow {
    pub epoch: u32,
    /// Whether the latest connection is running: its endpoints take
    /// events ([`Self::sender`]); a closed one's stay for inspection.
    pub(super) open: bool,
    /// Deaths of the current connection's data segments (first, with the
    /// epoch: all a drop reads, `TcpFlow::DEATH_BYTES`).
    pub(super) lost_segments: LostSegments,
    pub(super) sender_wakeup: Option<TimeNs>,
    pub(super) receiver_wakeup: Option<TimeNs>,
    pub app: TcpApp,
    /// Classifier confusion counts: [truth][verdict], truth = congestion,
    /// wireless, other; verdict = congestion, non-congestion.
    pub(super) confusion: [[u64; 2]; 3],
    pub spurious_timeouts: u64,
    /// The latest connection's endpoints, inline in the flow's record
    /// (allocated with it when the world is built), open or closed
    /// (`open`): an event's sender or receiver is at a fixed offset from
    /// the flow's record, found without waiting for a pointer, and a
    /// connection's start or close neither allocates nor moves them.
    pub(super) sender_slot: Option<TcpSender>,
    pub(super) receiver_slot: Option<TcpReceiver>,
    // Colder: connections' starts and closes, rarer losses, results.
    pub spec: TcpSpec,
    pub(super) transfer_start_ns: TimeNs,
    pub(super) transfers_done: u64,
    pub(super) app_rng: RandomStream,
    /// Draws each connection's RTT tick phase (`rtt_tick_phase = "random"`).
    pub(super) tick_rng: RandomStream,
    /// Totals of connections already closed (repeated downloads).
    pub(super) closed_sender: SenderStats,
    pub(super) closed_receiver: ReceiverStats,
    /// Counters of the sender hooks of closed connections, by name.
    pub(super) closed_hook_counters: Vec<(&'static str, u64)>,
    /// Wireless (channel) losses whose response halved the window or more.
    pub(super) wireless_losses_halved: u64,
    pub(super) wireless_losses_halved_by_dupacks: u64,
    /// Wireless (channel) losses called congestion whose window cut was
    /// made (not skipped by the once-per-RTT rule): where it could halve.
    pub(super) wireless_losses_cut: u64,
    pub(super) wireless_losses_cut_by_dupacks: u64,
    /// Congestion verdicts whose cut the once-per-RTT rule skipped, and of
    /// those the wireless (channel) losses whose cut would have halved.
    pub(super) loss_cuts_blocked: u64,
    pub(super) wireless_halvings_blocked: u64,
    pub(super) rtt_samples: u64,
    pub(super) rtt_sum_ns: u128,
    pub(super) min_rtt_ns: Option<TimeNs>,
}

/// Ground truth of the deaths of a connection's data segments, for scoring
/// its loss classifier: the latest death of each sequence number (send
/// time of the packet that died, cause), sorted by sequence number.
///
/// A classifier's decisions are about the segment at snd_una
/// (`SenderCore::congestion_signal`), which never decreases, so deaths
/// below it are forgotten ([`Self::forget_below`]) and what is kept is
/// about the data in flight: a short vector, allocated once per flow and
/// reused, where a hash table kept every death of the connection and grew
/// (rehashing, allocating) at its drops, which with many flows are each a
/// flow out of cache.
#[derive(Default)]
pub(super) struct LostSegments {
    deaths: Vec<(u64, TimeNs, DeathCause)>,
    /// The sequence numbers of the first and the last of `deaths`, if any.
    /// Most deaths are of a segment beyond every earlier one (a window's
    /// tail) or of the first (its retransmission after a timeout): these
    /// tell so without reading the vector, out of cache with many flows,
    /// and the record is then a store, which does not wait.
    first_last_seq: Option<(u64, u64)>,
}

impl LostSegments {
    /// The segment at `seq` died: its packet left at `sent_ns`.
    fn record(&mut self, seq: u64, sent_ns: TimeNs, cause: DeathCause) {
        let death = (seq, sent_ns, cause);
        match self.first_last_seq {
            None => {
                self.deaths.push(death);
                self.first_last_seq = Some((seq, seq));
            }
            Some((first, last)) if seq > last => {
                self.deaths.push(death);
                self.first_last_seq = Some((first, seq));
            }
            Some((first, _)) if seq == first => self.deaths[0] = death,
            Some((first, last)) => match self.deaths.binary_search_by_key(&seq, |d| d.0) {
                Ok(i) => self.deaths[i] = death,
                Err(i) => {
                    self.deaths.insert(i, death);
                    self.first_last_seq = Some((first.min(seq), last));
                }
            },
        }
    }

    /// Hint the first death into cache (a timeout's decision reads it).
    #[inline(always)]
    pub(super) fn prefetch_first(&self) {
        if let Some(d) = self.deaths.first() {
            crate::sim::prefetch::prefetch(d);
        }
    }

    /// The latest death of the segment at `seq`: (send time of the packet
    /// that died, cause).
    fn get(&self, seq: u64) -> Option<(TimeNs, DeathCause)> {
        let (first, last) = self.first_last_seq?;
        if seq < first || seq > last {
            return None;
        }
        // Mostly the first: decisions are about snd_una.
        let i = if seq == first {
            0
        } else {
            self.deaths.binary_search_by_key(&seq, |d| d.0).ok()?
        };
        Some((self.deaths[i].1, self.deaths[i].2))
    }

    /// Forget the deaths of segments below `snd_una`: no decision will be
    /// about them.
    fn forget_below(&mut self, snd_una: u64) {
        let Some((first, last)) = self.first_last_seq else {
            return;
        };
        if first >= snd_una {
            return;
        }
        let n = self.deaths.partition_point(|d| d.0 < snd_una);
        self.deaths.drain(..n);
        self.first_last_seq = self.deaths.first().map(|d| (d.0, last));
    }

    /// A new connection: forget the last one's deaths (keeping the space).
    fn clear(&mut self) {
        self.deaths.clear();
        self.first_last_seq = None;
    }
}

// An endpoint's hot fields are at the start of its slot in the flow's
// record (`World::prefetch_flow` hints them without reading the slot):
// `None` is a niche value, not a tag before the endpoint.
const _: () = assert!(size_of::<Option<TcpSender>>() == size_of::<TcpSender>());
const _: () = assert!(size_of::<Option<TcpReceiver>>() == size_of::<TcpReceiver>());

impl TcpFlow {
    /// The bytes at the start of a flow's record that a running
    /// connection's events read and write, besides its endpoints.
    pub const HOT_BYTES: usize = std::mem::offset_of!(TcpFlow, sender_slot);
    /// The bytes at its start that recording a packet's death reads.
    pub const DEATH_BYTES: usize = std::mem::offset_of!(TcpFlow, sender_wakeup);

    /// The running connection's sender, if a connection is open.
    pub fn sender(&self) -> Option<&TcpSender> {
        self.sender_slot.as_ref().filter(|_| self.open)
    }

    pub fn sender_mut(&mut self) -> Option<&mut TcpSender> {
        self.sender_slot.as_mut().filter(|_| self.open)
    }

    /// The running connection's receiver, if a connection is open.
    pub fn receiver(&self) -> Option<&TcpReceiver> {
        self.receiver_slot.as_ref().filter(|_| self.open)
    }

    pub fn receiver_mut(&mut self) -> Option<&mut TcpReceiver> {
        self.receiver_slot.as_mut().filter(|_| self.open)
    }

    /// The latest connection's sender, open or closed (inspection).
    pub fn latest_sender(&self) -> Option<&TcpSender> {
        self.sender_slot.as_ref()
    }

    /// The latest connection's receiver, open or closed (inspection).
    pub fn latest_receiver(&self) -> Option<&TcpReceiver> {
        self.receiver_slot.as_ref()
    }

    /// The RTT tick phase of a new connection: uniform in [0, tick) when
    /// the flow asks for a random one (ns-2's `boot_time_`), else 0.
    fn next_tick_phase(&mut self) -> TimeNs {
        match self.spec.rto.rtt_tick_ns {
            Some(tick) if self.spec.rtt_tick_random_phase => {
                ((self.tick_rng.uniform() * tick as f64) as TimeNs).min(tick - 1)
            }
            _ => 0,
        }
    }
}

pub struct UdpFlow {
    pub cfg: OnOffConfig,
    pub(super) started: bool,
    pub(super) on: bool,
    /// End of the current on or off period.
    pub(super) period_end_ns: TimeNs,
    pub(super) rng: RandomStream,
    pub packets_sent: u64,
    pub bytes_sent: u64,
    pub packets_received: u64,
    pub bytes_received: u64,
}

/// A flow's transport. A TCP flow's record is inline, so that the flows
/// are one array (`World::flows`) and an event finds its connection at a fixed
/// offset from its flow's record, without a pointer to wait for. A UDP
/// flow's small record is boxed: inline, it would be as large as a TCP
/// flow's, and UDP flows are few and their events cheap. `repr(u8)`: the
/// tag comes first, then the variant's fields ([`Flow::HOT_BYTES`]).
#[repr(u8)]
#[allow(clippy::large_enum_variant)] // inline on purpose: see above
pub enum FlowKind {
    Tcp(TcpFlow),
    Udp(Box<UdpFlow>),
}

/// A flow: its endpoints, its drops, its transport. In declaration order
/// (`repr(C)`), and aligned to a cache line: its nodes and what a packet's
/// death updates fill the first line, then come the rest that every
/// event reads and the transport's hot part, together
/// ([`Flow::HOT_BYTES`]).
#[repr(C, align(64))]
pub struct Flow {
    pub src: u32,
    pub dst: u32,
    pub ack_drops: u64,
    pub data_drops: [u64; N_CAUSES],
    pub stop_ns: Option<TimeNs>,
    pub ecn_marks: u64,
    pub kind: FlowKind,
    pub start_ns: TimeNs,
    /// When the flow finished (file transfer done, repeated count reached).
    pub finished_ns: Option<TimeNs>,
    pub name: String,
}

// A flow's record is a whole number of cache lines, and each line is
// memory at every flow: 64 B more a flow is 6 MiB more at 100,000 flows
// (docs/performance.md). PRR's 16 B once took it from 34 lines to 35;
// the handshake's flag, moved from the end of the sender into padding
// among its hot flags, undid that without moving a hot field. Growing past
// 34 lines should be a decision, so the build says so (x86_64, where it
// was measured).
#[cfg(target_arch = "x86_64")]
const _: () = assert!(
    size_of::<Flow>() <= 34 * 64,
    "a flow's record grew past 34 cache lines: see the comment above"
);

impl Flow {
    /// The bytes at the start of a flow's record that its events read,
    /// besides its connection's endpoints.
    pub const HOT_BYTES: usize = Self::TCP_OFFSET + TcpFlow::HOT_BYTES;
    /// The bytes at its start that recording a packet's death reads.
    pub const DEATH_BYTES: usize = Self::TCP_OFFSET + TcpFlow::DEATH_BYTES;
    /// Where a TCP flow's record starts in its flow's: `FlowKind` is
    /// `repr(u8)`, so a variant's fields follow the one-byte tag at their
    /// alignment (a test checks it).
    const TCP_OFFSET: usize = std::mem::offset_of!(Flow, kind) + align_of::<TcpFlow>();

    /// Bytes delivered in order to the application and bytes received
    /// (duplicates included) so far, over all the flow's connections; for
    /// UDP, datagram bytes received (both).
    pub fn bytes_received(&self) -> (u64, u64) {
        match &self.kind {
            FlowKind::Tcp(t) => {
                let closed = &t.closed_receiver;
                let (d, r) = t.receiver().map_or((0, 0), |rx| {
                    (rx.stats.delivered_bytes, rx.stats.received_bytes)
                });
                (closed.delivered_bytes + d, closed.received_bytes + r)
            }
            FlowKind::Udp(u) => (u.bytes_received, u.bytes_received),
        }
    }

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
        let tick_rng = RandomStream::new(seed, &format!("tick:{name}"));
        Self {
            kind: FlowKind::Tcp(TcpFlow {
                spec,
                app,
                open: false,
                sender_slot: None,
                receiver_slot: None,
                epoch: 0,
                transfer_start_ns: 0,
                transfers_done: 0,
                sender_wakeup: None,
                receiver_wakeup: None,
                app_rng,
                tick_rng,
                closed_sender: SenderStats::default(),
                closed_receiver: ReceiverStats::default(),
                closed_hook_counters: Vec::new(),
                lost_segments: LostSegments::default(),
                spurious_timeouts: 0,
                confusion: [[0; 2]; 3],
                wireless_losses_halved: 0,
                wireless_losses_halved_by_dupacks: 0,
                wireless_losses_cut: 0,
                wireless_losses_cut_by_dupacks: 0,
                loss_cuts_blocked: 0,
                wireless_halvings_blocked: 0,
                rtt_samples: 0,
                rtt_sum_ns: 0,
                min_rtt_ns: None,
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

    /// Ground truth of a packet's death: drops by cause, and for a data
    /// segment of the current connection, what killed it (scored against the
    /// classifier's verdict in `after_sender_activity`).
    pub(super) fn record_death(&mut self, pkt: &Packet, cause: DeathCause) {
        if let FlowKind::Tcp(t) = &mut self.kind {
            if pkt.kind == PacketKind::TcpData && pkt.payload_len > 0 && pkt.epoch == t.epoch {
                t.lost_segments.record(pkt.seq, pkt.sent_ns, cause);
            }
        }
        match pkt.kind {
            PacketKind::TcpData | PacketKind::Udp => self.data_drops[cause.index()] += 1,
            PacketKind::TcpAck => self.ack_drops += 1,
            PacketKind::Control => {}
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
            kind: FlowKind::Udp(Box::new(UdpFlow {
                cfg,
                started: false,
                on: false,
                period_end_ns: 0,
                rng,
                packets_sent: 0,
                bytes_sent: 0,
                packets_received: 0,
                bytes_received: 0,
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
}

impl World {
    pub(super) fn deliver(&mut self, pkt: Packet) {
        let fi = pkt.flow as usize;
        let now = self.now_ns;
        if let Some(o) = self.observers.as_deref_mut() {
            o.delivered(now, pkt.dst, &pkt);
        }
        if fi >= self.flows.len() {
            return;
        }
        let mut out = std::mem::take(&mut self.scratch);
        let flow = &mut self.flows[fi];
        match (&mut flow.kind, pkt.kind) {
            (FlowKind::Tcp(t), PacketKind::TcpData) if pkt.epoch == t.epoch => {
                if let Some(r) = t.receiver_mut() {
                    r.on_packet(now, &pkt, &mut out);
                    let node = flow.dst;
                    self.sync_receiver_timer(fi);
                    self.send_from(node, &mut out);
                }
            }
            (FlowKind::Tcp(t), PacketKind::TcpAck) if pkt.epoch == t.epoch => {
                if let Some(s) = t.sender_mut() {
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
    pub(super) fn after_sender_activity(&mut self, fi: usize) {
        self.sync_sender_timer(fi);
        let now = self.now_ns;
        let flow = &mut self.flows[fi];
        let FlowKind::Tcp(t) = &mut flow.kind else {
            return;
        };
        // The slot itself, not `sender_mut()`: the loop below also reads
        // the flow's other fields while the sender is borrowed.
        if let Some(s) = t
            .sender_slot
            .as_mut()
            .filter(|s| t.open && !s.core.loss_decisions.is_empty())
        {
            for d in s.core.loss_decisions.drain(..) {
                let truth = match t.lost_segments.get(d.seq) {
                    Some((sent, cause)) if sent == d.last_sent_ns => match cause {
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
                if truth == 1 && verdict == 0 && !d.cut_blocked && !d.window_already_reduced {
                    t.wireless_losses_cut += 1;
                    if d.how == LossDetection::DuplicateAcks {
                        t.wireless_losses_cut_by_dupacks += 1;
                    }
                }
                if truth == 1 && d.halved_window {
                    t.wireless_losses_halved += 1;
                    if d.how == LossDetection::DuplicateAcks {
                        t.wireless_losses_halved_by_dupacks += 1;
                    }
                }
                if d.cut_blocked {
                    t.loss_cuts_blocked += 1;
                    if truth == 1 && d.blocked_cut_would_halve {
                        t.wireless_halvings_blocked += 1;
                    }
                }
            }
            t.lost_segments.forget_below(s.core.snd_una);
        }
        let Some(size) = t.app.transfer_bytes() else {
            return;
        };
        let Some(s) = t.sender() else { return };
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

    /// Close the connection: fold its counters into the flow totals (its
    /// endpoints stay in place for inspection, no longer taking events).
    pub(super) fn close_connection(t: &mut TcpFlow, now_ns: TimeNs) {
        if std::mem::replace(&mut t.open, false) {
            if let Some(s) = t.sender_slot.as_mut() {
                s.core.account_cwnd(now_ns);
                t.closed_sender.add(&s.core.stats);
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
            }
            if let Some(r) = t.receiver_slot.as_ref() {
                t.closed_receiver.add(&r.stats);
            }
        }
        t.sender_wakeup = None;
        t.receiver_wakeup = None;
    }

    pub(super) fn sync_sender_timer(&mut self, fi: usize) {
        let FlowKind::Tcp(t) = &mut self.flows[fi].kind else {
            return;
        };
        let deadline = t.sender().and_then(|s| s.next_deadline());
        let event = EventKind::SenderTimer { flow: fi as u32 };
        arm_wakeup(
            &mut self.events,
            self.now_ns,
            &mut t.sender_wakeup,
            deadline,
            event,
        );
    }

    pub(super) fn sync_receiver_timer(&mut self, fi: usize) {
        let FlowKind::Tcp(t) = &mut self.flows[fi].kind else {
            return;
        };
        let deadline = t.receiver().and_then(|r| r.next_deadline());
        let event = EventKind::ReceiverTimer { flow: fi as u32 };
        arm_wakeup(
            &mut self.events,
            self.now_ns,
            &mut t.receiver_wakeup,
            deadline,
            event,
        );
    }

    pub(super) fn sender_timer(&mut self, flow: u32) {
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
        if let Some(s) = t.sender_mut() {
            if s.next_deadline().is_some_and(|d| d <= now) {
                expired = s.on_timer(now, &mut out);
            }
        }
        if let Some(seq) = expired {
            // Ground truth: was the segment actually lost? It was not if the
            // receiver holds it or a copy is still in the network.
            let epoch = t.epoch;
            let held = t.receiver().is_some_and(|r| r.holds(seq));
            let in_network = || {
                self.pool.live_segments_of(flow).any(|p| {
                    p.epoch == epoch
                        && !p.has_flag(crate::tcp::kick::KICK)
                        && p.seq <= seq
                        && seq < p.end_seq()
                })
            };
            if held || in_network() {
                if let FlowKind::Tcp(t) = &mut self.flows[fi].kind {
                    t.spurious_timeouts += 1;
                }
            }
        }
        self.after_sender_activity(fi);
        self.send_from(node, &mut out);
        self.scratch = out;
    }

    pub(super) fn receiver_timer(&mut self, flow: u32) {
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
        if let Some(r) = t.receiver_mut() {
            r.on_timer(now, &mut out);
        }
        self.sync_receiver_timer(fi);
        self.send_from(node, &mut out);
        self.scratch = out;
    }

    pub(super) fn app_event(&mut self, flow: u32) {
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
                let phase = t.next_tick_phase();
                let sender = t.spec.build_sender(flow, t.epoch, src, dst, phase);
                t.receiver_slot = Some(t.spec.build_receiver(flow, t.epoch, src, dst));
                t.open = true;
                t.transfer_start_ns = now;
                let mut out = std::mem::take(&mut self.scratch);
                let bytes = t.app.transfer_bytes().unwrap_or(u64::MAX);
                let sender = t.sender_slot.insert(sender);
                sender.start(now, &mut out);
                sender.app_write(now, bytes, &mut out);
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
                        ttl: self.initial_ttl,
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
}

/// Schedule `event` at an endpoint's next `deadline` unless its `wakeup`
/// (the earliest timer event already scheduled for it) comes no later: an
/// endpoint re-reads its deadline after every packet, and one event at the
/// earliest deadline is enough (a later wakeup finds nothing due and
/// re-arms). Never in the past: a deadline already passed fires now.
#[inline]
fn arm_wakeup(
    events: &mut EventQueue,
    now_ns: TimeNs,
    wakeup: &mut Option<TimeNs>,
    deadline: Option<TimeNs>,
    event: EventKind,
) {
    let Some(d) = deadline else {
        return;
    };
    if wakeup.is_none_or(|w| d < w) {
        *wakeup = Some(d);
        events.schedule(d.max(now_ns), event);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    #[derive(Clone, Debug)]
    enum Op {
        Record {
            seq: u64,
            sent_ns: TimeNs,
            cause: DeathCause,
        },
        ForgetBelow(u64),
        Clear,
    }

    fn op() -> impl Strategy<Value = Op> {
        let cause = prop_oneof![
            Just(DeathCause::QueueOverflow),
            Just(DeathCause::AqmDrop),
            Just(DeathCause::ChannelError),
        ];
        prop_oneof![
            8 => (0u64..30, 0u64..1_000, cause)
                .prop_map(|(seq, sent_ns, cause)| Op::Record { seq: seq * 100, sent_ns, cause }),
            2 => (0u64..3_000).prop_map(Op::ForgetBelow),
            1 => Just(Op::Clear),
        ]
    }

    /// `Flow::HOT_BYTES` and `DEATH_BYTES` count from where the record of
    /// a TCP flow really is in its flow's (`Flow::TCP_OFFSET`).
    #[test]
    fn a_tcp_flows_record_is_where_the_hints_count_from() {
        let toml = r#"
[simulation]
duration = "1s"
[[link]]
a = "s"
b = "r"
rate = "1Mbps"
delay = "1ms"
[[flow]]
from = "s"
to = "r"
app = { kind = "bulk" }
"#;
        let (_, world) = crate::scenario::Scenario::load(toml, "t.toml", None).unwrap();
        let flow = &world.flows[0];
        let FlowKind::Tcp(t) = &flow.kind else {
            panic!("a TCP flow");
        };
        let offset = t as *const TcpFlow as usize - flow as *const Flow as usize;
        assert_eq!(offset, Flow::TCP_OFFSET);
    }

    proptest! {
        /// `LostSegments` answers, for every sequence number, the latest
        /// death recorded since the connection began or `forget_below`
        /// passed it (its record, as a map from sequence number to death):
        /// in whatever order deaths come, new highest, the first again,
        /// or in between.
        #[test]
        fn lost_segments_keep_the_latest_death_of_each_segment(
            ops in proptest::collection::vec(op(), 0..60),
        ) {
            let mut lost = LostSegments::default();
            let mut model: BTreeMap<u64, (TimeNs, DeathCause)> = BTreeMap::new();
            for op in ops {
                match op {
                    Op::Record { seq, sent_ns, cause } => {
                        lost.record(seq, sent_ns, cause);
                        model.insert(seq, (sent_ns, cause));
                    }
                    Op::ForgetBelow(snd_una) => {
                        lost.forget_below(snd_una);
                        model.retain(|&seq, _| seq >= snd_una);
                    }
                    Op::Clear => {
                        lost.clear();
                        model.clear();
                    }
                }
                for seq in (0..31).map(|i| i * 100) {
                    prop_assert_eq!(lost.get(seq), model.get(&seq).copied(), "seq {}", seq);
                }
            }
        }
    }
}
