//! G-Snoop (K.-F. Leung and K. L. Yeung, "G-Snoop: Enhancing TCP
//! Performance over Wireless Networks"): two agents on the gateways at the
//! ends of a wireless link that may sit anywhere on the path (document §1,
//! Fig. 1). Gateway A sends data over the wireless link, gateway B receives
//! it. Both are transparent to the TCP endpoints.
//!
//! **Gateway A** ([`GSnoopA`], document §3.A, Fig. 2):
//! * a FIFO cache of the last `cache_size` data packets sent over the
//!   wireless link (all flows share it; the oldest is pushed out);
//! * per flow, a hole table built from the sequence numbers arriving at A:
//!   a gap that later arrivals do not fill is a hole (lost upstream);
//! * on a NACK from B for `[seq, end)`, for each packet it requests: one in
//!   a hole (**hole hit**, lost upstream, §4.A) arms the incipient
//!   congestion notification (ICN): the next ACK of that connection
//!   arriving from B is forwarded together with three copies of it, so the
//!   sender sees three duplicate ACKs and slows down early; the others, on
//!   a **cache hit**, A retransmits locally (§4.B); on a **cache miss**
//!   they are ignored (§4.C).
//! * `icn` (default true, the document's behaviour) switches the ICN off
//!   for an ablation the document does not describe: with it off, a hole
//!   hit arms nothing and the next ACK passes alone (the ICNs it would have
//!   armed are counted as `icns_withheld`); cache repairs are unchanged.
//!
//! **Gateway B** ([`GSnoopB`], document §3.B):
//! * per flow, tracks the sequence numbers arriving over the wireless link;
//!   a gap not filled by the next `nack_after` (3) out-of-order arrivals
//!   triggers one NACK to A. The NACK is a 40-byte [`PacketKind::Control`]
//!   packet from B to A over the reverse wireless direction carrying the
//!   flow, epoch, first missing sequence number (`seq`) and the end of the
//!   gap (`ack`);
//! * `O3_counter` counts the out-of-order arrivals since the gap opened
//!   (the three before the NACK included: in the document's example packet
//!   4 is lost, 5, 6, 7 trigger the NACK, the repair arrives after 8, 9, 10
//!   and O3_counter = 6) until the repair arrives. If no repair arrives
//!   within one wireless RTT plus a guard time of the NACK, the counter is
//!   reset (the gap is forgotten: a hole hit at A, or a lost repair);
//! * after the repair, the first duplicate ACK for the repaired segment and
//!   the following ones are suppressed, O3_counter of them in all, never
//!   more: a repair lost downstream produces more duplicate ACKs than
//!   O3_counter, and those reach the sender (§3.B, last paragraph).
//!
//! ## Choices where the document is silent or inconsistent
//!
//! * **Who sends the ICN duplicate ACKs.** §3.A says gateway A; the data-flow
//!   analysis (§4.A) says gateway B. We choose **A**: A is the gateway that
//!   learns of the hole hit (B only knows a NACK went out), it is next to
//!   the sender so the ICN arrives a wireless RTT earlier (the whole point
//!   of "incipient" notification), and §3.A, the protocol description, is
//!   the normative text while §4 is an illustration.
//! * **The ICN ACK.** "Three copies of the next received ACK" of the
//!   connection: the original is forwarded and three copies follow it, so
//!   a sender whose `snd_una` the original advances sees exactly three
//!   duplicates (§3.A: the retransmitted packet "is not the packet
//!   requested by NACK").
//! * **Duplicate ACKs that reach B before the repair** (a short downstream
//!   path). The document assumes the repair arrives first (§3.B: "when the
//!   retransmitted packet 4 arrives ... When the first duplicate ACK for
//!   packet 4 arrives at gateway B subsequently"), which holds in its ns-2
//!   topology (30 ms downstream, 5 ms wireless). Earlier duplicate ACKs are
//!   forwarded, and are deducted from the suppression budget, so the total
//!   suppressed never exceeds O3_counter minus those already forwarded.
//! * **What counts as a duplicate ACK at B**: an ACK without payload, SYN or
//!   FIN that acknowledges the same number as the previous ACK B forwarded
//!   for the connection (RFC 5681 §2, as the sender counts them).
//! * **When a packet enters the cache**: when the wireless link has finished
//!   sending it (Fig. 2: "When it has been sent, a copy of it will be stored
//!   in the FIFO cache"), reported by the link ([`NodeAgent::on_link_tx`]).
//!   A packet A's wireless queue refuses was never sent: it is not cached,
//!   and it is a hole, like a packet dropped before A (§4.A: "congestion
//!   ... in upstream network (including gateway A) ... will be detected by
//!   gateway A as a 'hole'"). A's own local retransmissions are not cached
//!   again: the original stays where it was (B sends one NACK per gap and
//!   forgets the gap if the repair does not come, so a second request for
//!   the same packet never comes).
//! * **Reset timing.** The RTT-plus-guard expiry is checked when the next
//!   packet of the flow reaches B; only later packets of the flow can
//!   observe it, so this equals a timer without one.
//! * **Multi-packet gaps** (bursts) are one NACK for the whole range (§3.B:
//!   "When a sequence number gap is detected ... a special NACK will be
//!   generated"); A applies §3.A's rule, written for "the requested
//!   packet", to each packet in it: the ones in holes arm one ICN, the
//!   others are resent from the cache, so a wireless loss next to an
//!   upstream loss is still repaired locally.

use std::collections::{btree_map::Entry, BTreeMap, BTreeSet, VecDeque};

use super::{AgentOutput, AgentVerdict, Ingress, LinkTx, NodeAgent};
use crate::metrics::{col, Column};
use crate::net::packet::{flags, Packet, PacketKind, DEFAULT_TTL};
use crate::sim::{TimeNs, NS_PER_MS};

/// Holes remembered per flow at A (oldest forgotten first).
pub const MAX_HOLES: usize = 64;
/// Open gaps tracked per flow at B (oldest forgotten first).
pub const MAX_GAPS: usize = 64;
/// Wire size of a NACK: IP + TCP-like header, no payload.
pub const NACK_BYTES: u32 = 40;

fn is_dupack_shape(p: &Packet) -> bool {
    p.payload_len == 0 && !p.has_flag(flags::SYN | flags::FIN)
}

/// Per-flow state by flow index, with its connection's epoch; `None` from
/// `get` for an older epoch. Memory in the flows the gateway has seen, not
/// in the scenario's number of flows (one table per gateway).
#[derive(Clone, Debug)]
struct PerFlow<T> {
    slots: BTreeMap<u32, (u32, T)>,
}

impl<T> Default for PerFlow<T> {
    fn default() -> Self {
        Self {
            slots: BTreeMap::new(),
        }
    }
}

impl<T> PerFlow<T> {
    /// The state of `pkt`'s connection, created by `init` for a new one.
    fn get(&mut self, pkt: &Packet, init: impl FnOnce() -> T) -> Option<&mut T> {
        match self.slots.entry(pkt.flow) {
            Entry::Vacant(v) => Some(&mut v.insert((pkt.epoch, init())).1),
            Entry::Occupied(o) => {
                let (e, t) = o.into_mut();
                if *e > pkt.epoch {
                    return None;
                }
                if *e < pkt.epoch {
                    (*e, *t) = (pkt.epoch, init());
                }
                Some(t)
            }
        }
    }

    /// The state of `pkt`'s connection if it exists.
    fn existing(&mut self, pkt: &Packet) -> Option<&mut T> {
        match self.slots.get_mut(&pkt.flow)? {
            (e, t) if *e == pkt.epoch => Some(t),
            _ => None,
        }
    }

    fn peek(&self, flow: u32, epoch: u32) -> Option<&T> {
        match self.slots.get(&flow)? {
            (e, t) if *e == epoch => Some(t),
            _ => None,
        }
    }
}

/// Remove `[s, e)` from a list of disjoint ranges (splitting as needed).
/// Returns true if some range lost bytes.
fn remove_range<R>(
    ranges: &mut Vec<R>,
    s: u64,
    e: u64,
    get: impl Fn(&mut R) -> (&mut u64, &mut u64),
) -> bool
where
    R: Clone,
{
    let mut touched = false;
    let mut i = 0;
    while i < ranges.len() {
        let (rs, re) = {
            let (a, b) = get(&mut ranges[i]);
            (*a, *b)
        };
        if e <= rs || s >= re {
            i += 1;
            continue;
        }
        touched = true;
        if s <= rs && e >= re {
            ranges.remove(i);
            continue;
        }
        if s > rs && e < re {
            // Split: keep [rs, s) here and insert [e, re) after it.
            let mut tail = ranges[i].clone();
            *get(&mut ranges[i]).1 = s;
            *get(&mut tail).0 = e;
            ranges.insert(i + 1, tail);
            i += 2;
            continue;
        }
        if s <= rs {
            *get(&mut ranges[i]).0 = e;
        } else {
            *get(&mut ranges[i]).1 = s;
        }
        i += 1;
    }
    touched
}

// ---------------------------------------------------------------- gateway A

/// Caches of at most this many packets are read whole on a NACK; larger
/// ones (up to 2^20 packets) keep an index by segment. Keeping the index
/// costs a tree insertion and removal per packet sent, reading the cache
/// a few instructions per cached packet per NACK, and NACKs are rarer than
/// packets by about the wireless loss rate.
const INDEXED_ABOVE_PKTS: usize = 1024;

/// Gateway A's FIFO cache (Fig. 2: the last `capacity` data packets the
/// wireless link sent, all connections sharing it, the oldest pushed out).
/// A large one is indexed by segment, so that a NACK looks up the packets
/// it asks for instead of reading the whole cache.
#[derive(Clone, Debug)]
struct SegmentFifo {
    capacity: usize,
    /// Oldest first.
    packets: VecDeque<Packet>,
    /// Packets pushed out so far: the position in arrival order of
    /// `packets[0]`.
    first_position: u64,
    /// `(flow, epoch, seq, position)` of every cached packet: a segment
    /// cached twice (TCP sent it again) has two entries, the oldest first.
    /// Kept for caches of more than `INDEXED_ABOVE_PKTS` packets only.
    by_segment: Option<BTreeSet<(u32, u32, u64, u64)>>,
    /// Scratch for [`SegmentFifo::oldest_copies`].
    found: Vec<u64>,
}

impl SegmentFifo {
    fn new(capacity: usize) -> Self {
        Self::with_index(capacity, capacity > INDEXED_ABOVE_PKTS)
    }

    /// A cache that keeps the index by segment, or reads itself whole.
    fn with_index(capacity: usize, indexed: bool) -> Self {
        Self {
            capacity,
            packets: VecDeque::with_capacity(capacity),
            first_position: 0,
            by_segment: indexed.then(BTreeSet::new),
            found: Vec::new(),
        }
    }

    /// Cache `p`, pushing the oldest packet out if the cache is full.
    fn push(&mut self, p: Packet) {
        if self.packets.len() == self.capacity {
            let old = self.packets.pop_front().expect("capacity is positive");
            if let Some(index) = &mut self.by_segment {
                index.remove(&(old.flow, old.epoch, old.seq, self.first_position));
            }
            self.first_position += 1;
        }
        if let Some(index) = &mut self.by_segment {
            let position = self.first_position + self.packets.len() as u64;
            index.insert((p.flow, p.epoch, p.seq, position));
        }
        self.packets.push_back(p);
    }

    /// The oldest cached copy of each segment of `flow`'s connection
    /// `epoch` whose first byte lies in one of `ranges` (`[start, end)`),
    /// in cache order (oldest first): what reading the cache from its
    /// oldest packet, skipping segments already met, would find.
    fn oldest_copies(
        &mut self,
        flow: u32,
        epoch: u32,
        ranges: &[(u64, u64)],
    ) -> impl Iterator<Item = &Packet> {
        let found = &mut self.found;
        found.clear();
        let first = self.first_position;
        match &self.by_segment {
            None => {
                // Read whole, oldest first: a packet of a segment already
                // found is a later copy (the first copy met was found).
                for (i, p) in self.packets.iter().enumerate() {
                    if p.flow == flow
                        && p.epoch == epoch
                        && ranges.iter().any(|&(s, e)| p.seq >= s && p.seq < e)
                        && !found
                            .iter()
                            .any(|&q| self.packets[(q - first) as usize].seq == p.seq)
                    {
                        found.push(first + i as u64);
                    }
                }
            }
            Some(index) => {
                for &(s, e) in ranges {
                    let mut last_seq = None;
                    for &(_, _, seq, position) in
                        index.range((flow, epoch, s, 0)..(flow, epoch, e, 0))
                    {
                        if last_seq != Some(seq) {
                            last_seq = Some(seq);
                            found.push(position);
                        }
                    }
                }
            }
        }
        found.sort_unstable();
        // Overlapping ranges would name a packet twice; it is sent once.
        found.dedup();
        let packets = &self.packets;
        found.iter().map(move |&p| &packets[(p - first) as usize])
    }
}

#[derive(Clone, Debug, Default)]
struct AFlow {
    /// One past the highest sequence number that reached A.
    highest_end: u64,
    /// Holes `[start, end)` in what reached A, oldest first.
    holes: Vec<(u64, u64)>,
    /// A hole hit is waiting for the next ACK (ICN; with ICN off, the ICN
    /// it would have sent is withheld then).
    icn_pending: bool,
}

impl AFlow {
    /// Record `[s, e)` as a hole, in sequence order (the order holes are
    /// found in), forgetting the oldest beyond [`MAX_HOLES`].
    fn add_hole(&mut self, s: u64, e: u64) {
        remove_range(&mut self.holes, s, e, |r| (&mut r.0, &mut r.1));
        let at = self.holes.partition_point(|&(hs, _)| hs < s);
        self.holes.insert(at, (s, e));
        if self.holes.len() > MAX_HOLES {
            self.holes.remove(0);
        }
    }
}

/// G-Snoop gateway A: the sender side of the wireless link (§3.A).
#[derive(Clone, Debug)]
pub struct GSnoopA {
    pub node: u32,
    /// Gateway B's node index (source of NACKs).
    pub peer: u32,
    /// Link direction A -> B and B -> A.
    pub wireless_out: u32,
    pub wireless_back: u32,
    pub cache_size: usize,
    /// The incipient congestion notification is on (§3.A; the default).
    /// Off is an ablation the document does not describe: hole hits arm
    /// nothing and are counted in `icns_withheld`.
    pub icn: bool,
    /// Packets the wireless link admitted, with the end of their
    /// transmission, not yet sent (they enter `cache` then).
    sending: VecDeque<(TimeNs, Packet)>,
    cache: SegmentFifo,
    /// uids of A's local retransmissions not yet offered to the link.
    own: Vec<u64>,
    /// Scratch: the ranges a NACK asks for that are not holes (kept to
    /// spare an allocation per NACK).
    wanted: Vec<(u64, u64)>,
    flows: PerFlow<AFlow>,
    pub nacks_received: u64,
    pub cache_hits: u64,
    pub cache_misses: u64,
    pub local_retransmissions: u64,
    /// ICNs armed by hole hits (hits before the next ACK share one).
    pub icns: u64,
    /// Duplicate ACKs sent to senders by ICNs (three per ICN).
    pub icn_dupacks_sent: u64,
    /// With ICN off: the ICNs hole hits would have armed (counted as
    /// `icns` would be), none sent.
    pub icns_withheld: u64,
}

impl GSnoopA {
    /// A watches the data routed onto `wireless_out` (its `egress`).
    pub fn new(
        node: u32,
        peer: u32,
        wireless_out: u32,
        wireless_back: u32,
        cache_size: usize,
    ) -> Self {
        assert!(cache_size > 0, "G-Snoop cache size must be positive");
        Self {
            node,
            peer,
            wireless_out,
            wireless_back,
            cache_size,
            icn: true,
            sending: VecDeque::new(),
            cache: SegmentFifo::new(cache_size),
            own: Vec::new(),
            wanted: Vec::new(),
            flows: PerFlow::default(),
            nacks_received: 0,
            cache_hits: 0,
            cache_misses: 0,
            local_retransmissions: 0,
            icns: 0,
            icn_dupacks_sent: 0,
            icns_withheld: 0,
        }
    }

    /// The same gateway with the ICN on (`true`, §3.A) or off (an ablation).
    pub fn with_icn(self, icn: bool) -> Self {
        Self { icn, ..self }
    }

    /// Holes currently in `flow`'s table (tests, diagnostics).
    pub fn holes(&self, flow: u32, epoch: u32) -> Vec<(u64, u64)> {
        self.flows
            .peek(flow, epoch)
            .map_or_else(Vec::new, |f| f.holes.clone())
    }

    fn on_data(&mut self, pkt: &Packet) {
        let (s, e) = (pkt.seq, pkt.end_seq());
        if let Some(f) = self.flows.get(pkt, || AFlow {
            highest_end: s,
            ..Default::default()
        }) {
            if s > f.highest_end {
                f.add_hole(f.highest_end, s);
            } else if s < f.highest_end {
                remove_range(&mut f.holes, s, e, |r| (&mut r.0, &mut r.1));
            }
            f.highest_end = f.highest_end.max(e);
        }
    }

    /// Fig. 2: packets the wireless link has finished sending by `now`
    /// move to the FIFO cache, pushing the oldest out.
    fn settle(&mut self, now: TimeNs) {
        while self.sending.front().is_some_and(|&(end, _)| end <= now) {
            let (_, p) = self.sending.pop_front().expect("front exists");
            self.cache.push(p);
        }
    }

    /// A's wireless queue refused `pkt`: a loss at gateway A, a hole (§4.A).
    fn refused(&mut self, pkt: &Packet) {
        let Some(f) = self.flows.existing(pkt) else {
            return;
        };
        f.add_hole(pkt.seq, pkt.end_seq());
    }

    fn on_nack(&mut self, now: TimeNs, nack: &Packet, out: &mut AgentOutput) {
        self.settle(now);
        self.nacks_received += 1;
        // §3.A for each requested packet: one in a hole was lost upstream
        // (ICN), the others are looked up in the cache.
        let wanted = &mut self.wanted;
        wanted.clear();
        wanted.push((nack.seq, nack.ack.max(nack.seq + 1)));
        if let Some(f) = self.flows.existing(nack) {
            let mut hole_hit = false;
            for &(hs, he) in &f.holes {
                hole_hit |= remove_range(wanted, hs, he, |r| (&mut r.0, &mut r.1));
            }
            // Hole hits before the next ACK share its one ICN (or, with
            // ICN off, the one withheld).
            if hole_hit && !f.icn_pending {
                f.icn_pending = true;
                if self.icn {
                    self.icns += 1;
                } else {
                    self.icns_withheld += 1;
                }
            }
        }
        if self.wanted.is_empty() {
            return;
        }
        let mut found = 0;
        for p in self
            .cache
            .oldest_copies(nack.flow, nack.epoch, &self.wanted)
        {
            // Routed to the wireless link at once: on_link_tx sees it next.
            self.own.push(out.next_uid());
            out.inject.push(Packet {
                is_retransmission: true,
                ttl: DEFAULT_TTL,
                ..*p
            });
            found += 1;
        }
        if found > 0 {
            self.cache_hits += 1;
            self.local_retransmissions += found;
        } else {
            self.cache_misses += 1;
        }
    }

    fn on_ack(&mut self, pkt: &Packet, out: &mut AgentOutput) {
        let Some(f) = self.flows.get(pkt, || AFlow {
            highest_end: pkt.ack,
            ..Default::default()
        }) else {
            return;
        };
        // Holes the receiver has acknowledged past were filled.
        f.holes.retain(|&(_, he)| he > pkt.ack);
        if std::mem::take(&mut f.icn_pending) && self.icn {
            for _ in 0..3 {
                out.inject.push(Packet {
                    ttl: DEFAULT_TTL,
                    ..*pkt
                });
            }
            self.icn_dupacks_sent += 3;
        }
    }
}

impl NodeAgent for GSnoopA {
    fn name(&self) -> &'static str {
        "gsnoop_a"
    }

    fn on_packet(
        &mut self,
        now_ns: TimeNs,
        pkt: &mut Packet,
        ingress: Ingress,
        egress: Option<u32>,
        out: &mut AgentOutput,
    ) -> AgentVerdict {
        let from_wireless = ingress == Ingress::Link(self.wireless_back);
        match pkt.kind {
            PacketKind::Control if pkt.dst == self.node && pkt.src == self.peer => {
                self.on_nack(now_ns, pkt, out);
                AgentVerdict::Take
            }
            PacketKind::TcpData
                if pkt.payload_len > 0 && !from_wireless && egress == Some(self.wireless_out) =>
            {
                self.on_data(pkt);
                AgentVerdict::Pass
            }
            PacketKind::TcpAck if from_wireless && pkt.has_flag(flags::ACK) => {
                self.on_ack(pkt, out);
                AgentVerdict::Pass
            }
            _ => AgentVerdict::Pass,
        }
    }

    fn watched_link(&self) -> Option<u32> {
        Some(self.wireless_out)
    }

    fn on_link_tx(&mut self, now_ns: TimeNs, pkt: &Packet, tx: LinkTx) {
        if pkt.kind != PacketKind::TcpData || pkt.payload_len == 0 {
            return;
        }
        if let Some(i) = self.own.iter().position(|&u| u == pkt.uid) {
            self.own.swap_remove(i);
            return;
        }
        self.settle(now_ns);
        match tx {
            LinkTx::Sent { end_ns, .. } => self.sending.push_back((end_ns, *pkt)),
            LinkTx::Refused(_) => self.refused(pkt),
        }
    }

    fn counters(&self) -> Vec<(Column<'static>, u64)> {
        vec![
            (col("nacks_received", "packets", "NACKs gateway A received from gateway B."), self.nacks_received),
            (col("cache_hits", "NACKs", "NACKs whose segments were in A's cache: A retransmitted them locally."), self.cache_hits),
            (col("cache_misses", "NACKs", "NACKs for segments neither cached nor lost upstream: ignored."), self.cache_misses),
            (col("local_retransmissions", "segments", "Segments A retransmitted locally over the wireless link."), self.local_retransmissions),
            (col("icns", "count", "Incipient congestion notifications armed: NACKs for a segment lost upstream of A (a hole), those before the connection's next ACK counted once, as they share its three copies."), self.icns),
            (col("icn_dupacks_sent", "ACKs", "Duplicate ACKs A sent to senders as ICNs (three per ICN)."), self.icn_dupacks_sent),
            (col("icns_withheld", "count", "With icn = false (an ablation): the ICNs hole hits would have armed, counted as icns would be; none sent (icns and icn_dupacks_sent stay 0). 0 with ICN on."), self.icns_withheld),
        ]
    }
}

// ---------------------------------------------------------------- gateway B

#[derive(Clone, Debug)]
struct Gap {
    /// Still missing `[start, end)`.
    start: u64,
    end: u64,
    /// The first missing byte when the gap opened: the receiver's
    /// duplicate ACKs for it carry this number.
    first: u64,
    /// O3_counter: out-of-order arrivals since the gap opened.
    o3: u32,
    nack_ns: Option<TimeNs>,
    /// Duplicate ACKs for `first` forwarded before the repair.
    dupacks_passed: u32,
}

#[derive(Clone, Copy, Debug)]
struct Suppress {
    ack: u64,
    remaining: u32,
}

#[derive(Clone, Debug, Default)]
struct BFlow {
    highest_end: u64,
    gaps: Vec<Gap>,
    last_ack: Option<u64>,
    suppress: Vec<Suppress>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GSnoopBConfig {
    /// Out-of-order arrivals that must fail to fill a gap before the NACK
    /// (3, "in line with sender's Fast Retransmit", §3.B).
    pub nack_after: u32,
    /// Wireless link round-trip time (propagation both ways).
    pub wireless_rtt_ns: TimeNs,
    /// Guard time added to it before O3_counter is reset.
    pub guard_ns: TimeNs,
    /// Wire size of a NACK.
    pub nack_bytes: u32,
}

impl Default for GSnoopBConfig {
    fn default() -> Self {
        Self {
            nack_after: 3,
            wireless_rtt_ns: 10 * NS_PER_MS,
            guard_ns: 10 * NS_PER_MS,
            nack_bytes: NACK_BYTES,
        }
    }
}

/// G-Snoop gateway B: the receiver side of the wireless link (§3.B).
#[derive(Clone, Debug)]
pub struct GSnoopB {
    pub node: u32,
    /// Gateway A's node index (destination of NACKs).
    pub peer: u32,
    /// Link direction A -> B (data arrives over it).
    pub wireless_in: u32,
    /// Link direction B -> A: B watches the ACKs routed onto it.
    pub wireless_back: u32,
    pub cfg: GSnoopBConfig,
    flows: PerFlow<BFlow>,
    pub nacks_sent: u64,
    pub repairs_received: u64,
    /// O3_counters reset because no repair came within RTT + guard.
    pub o3_resets: u64,
    pub dupacks_suppressed: u64,
    /// Sum of O3_counter over repairs, and its last value.
    pub o3_total: u64,
    pub last_o3_counter: u32,
}

impl GSnoopB {
    /// `wireless_back` is the direction B -> A.
    pub fn new(
        node: u32,
        peer: u32,
        wireless_in: u32,
        wireless_back: u32,
        cfg: GSnoopBConfig,
    ) -> Self {
        Self {
            node,
            peer,
            wireless_in,
            wireless_back,
            cfg,
            flows: PerFlow::default(),
            nacks_sent: 0,
            repairs_received: 0,
            o3_resets: 0,
            dupacks_suppressed: 0,
            o3_total: 0,
            last_o3_counter: 0,
        }
    }

    fn expire(&mut self, now: TimeNs, pkt: &Packet) {
        let limit = self.cfg.wireless_rtt_ns + self.cfg.guard_ns;
        let Some(f) = self.flows.existing(pkt) else {
            return;
        };
        let before = f.gaps.len();
        f.gaps
            .retain(|g| g.nack_ns.is_none_or(|t| now <= t + limit));
        self.o3_resets += (before - f.gaps.len()) as u64;
    }

    fn on_data(&mut self, now: TimeNs, pkt: &Packet, out: &mut AgentOutput) {
        self.expire(now, pkt);
        let (s, e) = (pkt.seq, pkt.end_seq());
        let node = self.node;
        let peer = self.peer;
        let cfg = self.cfg;
        let Some(f) = self.flows.get(pkt, || BFlow {
            highest_end: s,
            ..Default::default()
        }) else {
            return;
        };
        let mut repaired: Option<Gap> = None;
        if s >= f.highest_end {
            if s > f.highest_end {
                if f.gaps.len() >= MAX_GAPS {
                    f.gaps.remove(0);
                }
                f.gaps.push(Gap {
                    start: f.highest_end,
                    end: s,
                    first: f.highest_end,
                    o3: 0,
                    nack_ns: None,
                    dupacks_passed: 0,
                });
            }
            f.highest_end = e;
        } else {
            // Fills (part of) a gap, or a duplicate.
            let mut i = 0;
            while i < f.gaps.len() {
                let g = &f.gaps[i];
                if e <= g.start || s >= g.end {
                    i += 1;
                    continue;
                }
                if s <= g.start && e >= g.end {
                    let g = f.gaps.remove(i);
                    if g.nack_ns.is_some() {
                        repaired = Some(g);
                    }
                    continue;
                }
                remove_range(&mut f.gaps, s, e, |g| (&mut g.start, &mut g.end));
                break;
            }
        }
        // O3_counter: this arrival is out of order for every gap below it.
        let mut nacks = 0;
        for g in f.gaps.iter_mut() {
            if s >= g.end {
                g.o3 += 1;
                if g.nack_ns.is_none() && g.o3 >= cfg.nack_after {
                    g.nack_ns = Some(now);
                    out.inject.push(Packet {
                        kind: PacketKind::Control,
                        flow: pkt.flow,
                        epoch: pkt.epoch,
                        src: node,
                        dst: peer,
                        ttl: DEFAULT_TTL,
                        seq: g.start,
                        ack: g.end,
                        raw_size: cfg.nack_bytes,
                        sent_ns: now,
                        ..Default::default()
                    });
                    nacks += 1;
                }
            }
        }
        if let Some(g) = repaired {
            f.suppress.push(Suppress {
                ack: g.first,
                remaining: g.o3.saturating_sub(g.dupacks_passed),
            });
            self.repairs_received += 1;
            self.o3_total += g.o3 as u64;
            self.last_o3_counter = g.o3;
        }
        self.nacks_sent += nacks;
    }

    fn on_ack(&mut self, now: TimeNs, pkt: &Packet) -> AgentVerdict {
        self.expire(now, pkt);
        let Some(f) = self.flows.get(pkt, || BFlow {
            highest_end: pkt.ack,
            ..Default::default()
        }) else {
            return AgentVerdict::Pass;
        };
        let ack = pkt.ack;
        match f.last_ack {
            Some(last) if ack < last => AgentVerdict::Pass,
            Some(last) if ack == last => {
                if !is_dupack_shape(pkt) {
                    return AgentVerdict::Pass;
                }
                if let Some(sp) = f
                    .suppress
                    .iter_mut()
                    .find(|sp| sp.ack == ack && sp.remaining > 0)
                {
                    sp.remaining -= 1;
                    self.dupacks_suppressed += 1;
                    return AgentVerdict::Drop;
                }
                if let Some(g) = f
                    .gaps
                    .iter_mut()
                    .find(|g| g.first == ack && g.nack_ns.is_some())
                {
                    g.dupacks_passed += 1;
                }
                AgentVerdict::Pass
            }
            _ => {
                f.last_ack = Some(ack);
                f.suppress.retain(|sp| sp.ack >= ack);
                AgentVerdict::Pass
            }
        }
    }
}

impl NodeAgent for GSnoopB {
    fn name(&self) -> &'static str {
        "gsnoop_b"
    }

    fn on_packet(
        &mut self,
        now_ns: TimeNs,
        pkt: &mut Packet,
        ingress: Ingress,
        egress: Option<u32>,
        out: &mut AgentOutput,
    ) -> AgentVerdict {
        let from_wireless = ingress == Ingress::Link(self.wireless_in);
        match pkt.kind {
            PacketKind::TcpData if pkt.payload_len > 0 && from_wireless => {
                self.on_data(now_ns, pkt, out);
                AgentVerdict::Pass
            }
            PacketKind::TcpAck
                if !from_wireless
                    && pkt.has_flag(flags::ACK)
                    && egress == Some(self.wireless_back) =>
            {
                self.on_ack(now_ns, pkt)
            }
            _ => AgentVerdict::Pass,
        }
    }

    fn counters(&self) -> Vec<(Column<'static>, u64)> {
        vec![
            (col("nacks_sent", "packets", "NACKs gateway B sent to A for gaps not filled by three later arrivals."), self.nacks_sent),
            (col("repairs_received", "segments", "Segments that filled a gap B had NACKed."), self.repairs_received),
            (col("o3_resets", "count", "O3_counters reset because no repair came within a wireless RTT plus the guard time."), self.o3_resets),
            (col("dupacks_suppressed", "ACKs", "Duplicate ACKs B held back after a repair (at most O3_counter per repair)."), self.dupacks_suppressed),
            (col("o3_total", "count", "Sum of O3_counter (out-of-order arrivals while a gap was open) over repairs."), self.o3_total),
        ]
    }
}

#[cfg(test)]
mod tests {
    //! Each test quotes the rule of Leung & Yeung it checks (section of the
    //! document in /work/shared/seeds/004_3145d9a15ab3cf48.txt) and drives
    //! one gateway packet by packet. Packets are numbered as in the
    //! document's example: packet k carries bytes [k*512, (k+1)*512).
    use super::*;

    const MSS: u64 = 512;
    /// 512 bytes at 10 Mb/s (Table 1): 0.41 ms on the wireless link.
    const TX: TimeNs = 409_600;
    // Nodes: 0 sender, 1 A, 2 B, 3 receiver. Directions: 0 S->A, 1 A->S,
    // 2 A->B, 3 B->A, 4 B->D, 5 D->B.
    const A_ROUTES: [u32; 4] = [1, u32::MAX, 2, 2];
    const B_ROUTES: [u32; 4] = [3, 3, u32::MAX, 4];

    /// The direction routing sends `p` on from the gateway whose next hops
    /// are `routes` (the world's `egress`).
    fn route(routes: &[u32], p: &Packet) -> Option<u32> {
        Some(routes[p.dst as usize]).filter(|&l| l != u32::MAX)
    }

    fn data(i: u64) -> Packet {
        Packet {
            kind: PacketKind::TcpData,
            flow: 0,
            epoch: 1,
            src: 0,
            dst: 3,
            seq: i * MSS,
            payload_len: MSS as u32,
            ttl: 62,
            flags: flags::ACK,
            uid: 1000 + i,
            ..Default::default()
        }
    }

    fn ack(next: u64) -> Packet {
        Packet {
            kind: PacketKind::TcpAck,
            flow: 0,
            epoch: 1,
            src: 3,
            dst: 0,
            ack: next * MSS,
            ttl: 62,
            flags: flags::ACK,
            ..Default::default()
        }
    }

    fn b() -> GSnoopB {
        GSnoopB::new(2, 1, 2, 3, GSnoopBConfig::default())
    }

    fn a(cache: usize) -> GSnoopA {
        GSnoopA::new(1, 2, 2, 3, cache)
    }

    fn at_b(g: &mut GSnoopB, t: TimeNs, mut p: Packet, out: &mut AgentOutput) -> AgentVerdict {
        let ingress = if p.kind == PacketKind::TcpData { 2 } else { 5 };
        let egress = route(&B_ROUTES, &p);
        g.on_packet(t, &mut p, Ingress::Link(ingress), egress, out)
    }

    fn nack(seq: u64, end: u64) -> Packet {
        Packet {
            kind: PacketKind::Control,
            flow: 0,
            epoch: 1,
            src: 2,
            dst: 1,
            seq: seq * MSS,
            ack: end * MSS,
            raw_size: 40,
            ..Default::default()
        }
    }

    /// A packet reaches A at `t` from the sender's side (data) or from B
    /// (NACKs, ACKs); a data packet A passes is then offered to the
    /// wireless link, which sends it from `t` to `t + TX`.
    fn at_a(g: &mut GSnoopA, t: TimeNs, mut p: Packet, out: &mut AgentOutput) -> AgentVerdict {
        let ingress = match p.kind {
            PacketKind::TcpData => 0,
            _ => 3,
        };
        out.first_uid = 1;
        let egress = route(&A_ROUTES, &p);
        let v = g.on_packet(t, &mut p, Ingress::Link(ingress), egress, out);
        if p.kind == PacketKind::TcpData && v == AgentVerdict::Pass {
            let tx = LinkTx::Sent {
                start_ns: t,
                end_ns: t + TX,
            };
            g.on_link_tx(t, &p, tx);
        }
        v
    }

    /// Gateway A with a `cache`-packet cache after data packets `packets`
    /// reached it, packet i at i ms, and the wireless link sent them.
    fn a_fed(cache: usize, packets: impl IntoIterator<Item = u64>) -> (GSnoopA, AgentOutput) {
        let (mut g, mut out) = (a(cache), AgentOutput::default());
        for i in packets {
            at_a(&mut g, i * MS, data(i), &mut out);
        }
        (g, out)
    }

    /// The packets A sent over the wireless link for its NACKs: (packet
    /// number, source, destination, marked as a retransmission).
    fn resent(out: &AgentOutput) -> Vec<(u64, u32, u32, bool)> {
        out.inject
            .iter()
            .map(|p| {
                assert_eq!(
                    (p.kind, p.flow, p.payload_len),
                    (PacketKind::TcpData, 0, MSS as u32)
                );
                (p.seq / MSS, p.src, p.dst, p.is_retransmission)
            })
            .collect()
    }

    const MS: TimeNs = NS_PER_MS;

    // ------------------------------------------------------- gateway A

    /// §3.A: "For each flow/connection, gateway A keeps track of its
    /// incoming packet sequence numbers. Any missing packet creates a
    /// 'hole' in its sequence number table. In case of an out-of-order
    /// packet arrival, the hole will be filled up very quickly."
    #[test]
    fn a_hole_table_records_a_missing_packet_until_it_arrives() {
        let mut g = a(25);
        let mut out = AgentOutput::default();
        for i in [1, 2, 3, 5, 6] {
            assert_eq!(at_a(&mut g, i * MS, data(i), &mut out), AgentVerdict::Pass);
        }
        assert_eq!(g.holes(0, 1), vec![(4 * MSS, 5 * MSS)]);
        // Another connection's packets make no hole in this one's table.
        let mut other = data(9);
        other.flow = 1;
        at_a(&mut g, 7 * MS, other, &mut out);
        assert_eq!(g.holes(0, 1), vec![(4 * MSS, 5 * MSS)]);
        assert!(g.holes(1, 1).is_empty());
        // The out-of-order packet fills the hole.
        assert_eq!(at_a(&mut g, 8 * MS, data(4), &mut out), AgentVerdict::Pass);
        assert!(g.holes(0, 1).is_empty());
        assert!(out.inject.is_empty(), "data only passes through A");
    }

    /// Memory in the connections seen: state for one connection of flow
    /// index 4,000,000,000 is one record. A table indexed by flow asked for
    /// a slot per index below it, per agent (20,000 G-Snoop gateway pairs
    /// on 20,000 flows needed 22 GB and were killed); this one would ask
    /// for hundreds of GB and abort.
    #[test]
    fn a_keeps_state_for_the_flows_seen_not_for_every_flow_index() {
        let mut g = a(25);
        let mut out = AgentOutput::default();
        let flow = 4_000_000_000;
        for i in [1, 3] {
            at_a(&mut g, i * MS, Packet { flow, ..data(i) }, &mut out);
        }
        assert_eq!(g.holes(flow, 1), vec![(2 * MSS, 3 * MSS)]);
        assert!(g.holes(0, 1).is_empty());
    }

    /// §3.A: gateway A keeps the sequence table of the packets it sends over
    /// the wireless link; data that leaves A on another link (`egress`, the
    /// direction routing takes) is not its business and makes no hole.
    #[test]
    fn a_tracks_only_data_routed_over_the_wireless_link() {
        let mut g = a(25);
        let mut out = AgentOutput::default();
        for i in [1, 3] {
            let mut p = data(i);
            let v = g.on_packet(i * MS, &mut p, Ingress::Link(0), Some(1), &mut out);
            assert_eq!(v, AgentVerdict::Pass);
        }
        assert!(g.holes(0, 1).is_empty());
        for i in [1, 3] {
            let mut p = data(i);
            g.on_packet(
                i * MS,
                &mut p,
                Ingress::Link(0),
                Some(g.wireless_out),
                &mut out,
            );
        }
        assert_eq!(g.holes(0, 1), vec![(2 * MSS, 3 * MSS)]);
    }

    /// Fig. 2: "When a packet arrives, it waits in the FIFO buffer for
    /// transmission over the wireless link. When it has been sent, a copy
    /// of it will be stored in the FIFO cache for possible local loss
    /// recovery later on."
    #[test]
    fn a_packet_enters_the_cache_when_the_wireless_link_has_sent_it() {
        let (mut g, mut out) = a_fed(25, 1..=4);
        // Packet 4 is on the link until 4 ms + TX: not yet in the cache.
        assert_eq!(
            at_a(&mut g, 4 * MS + TX - 1, nack(4, 5), &mut out),
            AgentVerdict::Take
        );
        assert!(out.inject.is_empty());
        assert_eq!((g.cache_hits, g.cache_misses), (0, 1));
        // Once sent, it is.
        at_a(&mut g, 4 * MS + TX, nack(4, 5), &mut out);
        assert_eq!(resent(&out), vec![(4, 0, 3, true)]);
        assert_eq!((g.cache_hits, g.cache_misses), (1, 1));
    }

    /// §4.A: "If congestion occurs in upstream network (including gateway
    /// A), some packets will be dropped as a result of buffer overflow ...
    /// A missing data packet creates a sequence number gap and will be
    /// detected by gateway A as a 'hole' in its hole-table." A packet A's
    /// own FIFO buffer refuses was never sent: not cached, a hole, and its
    /// NACK a hole hit.
    #[test]
    fn a_packet_refused_by_the_wireless_queue_is_a_hole() {
        let mut g = a(25);
        let mut out = AgentOutput::default();
        for i in 1..=7 {
            let mut p = data(i);
            let egress = route(&A_ROUTES, &p);
            assert_eq!(
                g.on_packet(i * MS, &mut p, Ingress::Link(0), egress, &mut out),
                AgentVerdict::Pass
            );
            let tx = if i == 4 {
                LinkTx::Refused(crate::net::packet::DeathCause::QueueOverflow)
            } else {
                LinkTx::Sent {
                    start_ns: i * MS,
                    end_ns: i * MS + TX,
                }
            };
            g.on_link_tx(i * MS, &p, tx);
        }
        assert_eq!(g.holes(0, 1), vec![(4 * MSS, 5 * MSS)]);
        at_a(&mut g, 20 * MS, nack(4, 5), &mut out);
        assert!(out.inject.is_empty(), "nothing to resend");
        assert_eq!((g.icns, g.cache_hits, g.cache_misses), (1, 0, 0));
        // The ICN: three copies of the next ACK.
        at_a(&mut g, 21 * MS, ack(4), &mut out);
        assert_eq!(out.inject.len(), 3);
    }

    /// §3.A: "When a NACK (negative ACK) generated by gateway B is
    /// received, gateway A checks its hole table. (NACK is a special ACK
    /// used only between the two gateways.) If there is no match, gateway A
    /// checks its cache for a cached copy of the requested packet. ... Then
    /// gateway A carries out the local packet retransmission." (§4.B the
    /// same.) The NACK goes no further than A.
    #[test]
    fn a_cache_hit_retransmits_locally() {
        let (mut g, mut out) = a_fed(25, 1..=7);
        assert!(g.holes(0, 1).is_empty());
        assert_eq!(
            at_a(&mut g, 10 * MS, nack(4, 5), &mut out),
            AgentVerdict::Take
        );
        // Exactly packet 4, from the sender to the receiver, over the
        // wireless link (A's route to node 3), as a retransmission.
        assert_eq!(resent(&out), vec![(4, 0, 3, true)]);
        assert_eq!(A_ROUTES[out.inject[0].dst as usize], g.wireless_out);
        assert_eq!(out.inject[0].ttl, DEFAULT_TTL);
        assert_eq!(
            (
                g.nacks_received,
                g.cache_hits,
                g.cache_misses,
                g.local_retransmissions,
                g.icns
            ),
            (1, 1, 0, 1, 0)
        );
        // No ICN follows: the next ACK passes alone.
        assert_eq!(at_a(&mut g, 11 * MS, ack(4), &mut out), AgentVerdict::Pass);
        assert_eq!(out.inject.len(), 1);
    }

    /// §3.A: the ICN sends "three copies of the next received ACK": a
    /// second NACK for the hole before that ACK arrives names the same ACK,
    /// so it arms no second ICN. `icns` counts ICNs (three copies each),
    /// not hole hits.
    #[test]
    fn hole_hits_before_the_next_ack_share_one_icn() {
        let (mut g, mut out) = a_fed(25, [1, 2, 3, 5, 6, 7]);
        at_a(&mut g, 10 * MS, nack(4, 5), &mut out);
        at_a(&mut g, 11 * MS, nack(4, 5), &mut out);
        assert_eq!((g.nacks_received, g.icns), (2, 1));
        at_a(&mut g, 12 * MS, ack(3), &mut out);
        at_a(&mut g, 13 * MS, ack(3), &mut out);
        assert_eq!((out.inject.len(), g.icn_dupacks_sent), (3, 3));
    }

    /// §3.A: "If the requested packet by NACK corresponds to a hole in the
    /// hole table, that means this packet was lost in upstream network ...
    /// An incipient congestion notification (ICN) function is then
    /// activated. ... gateway A makes three copies of the next received
    /// ACK, which belongs to the same TCP connection of the requested
    /// packet by NACK, and sends them to the corresponding sender." and
    /// "gateway A cannot generate three duplicate ACKs for the requested
    /// packet": the copies carry the next ACK's number, not the hole's.
    #[test]
    fn a_hole_hit_sends_three_copies_of_the_next_ack() {
        let (mut g, mut out) = a_fed(25, [1, 2, 3, 5, 6, 7]);
        assert_eq!(g.holes(0, 1), vec![(4 * MSS, 5 * MSS)]);
        assert_eq!(
            at_a(&mut g, 10 * MS, nack(4, 5), &mut out),
            AgentVerdict::Take
        );
        assert!(out.inject.is_empty(), "no local retransmission");
        assert_eq!((g.icns, g.cache_hits, g.cache_misses), (1, 0, 0));
        assert_eq!(g.icns_withheld, 0, "ICN on by default: none withheld");
        // Another connection's ACK is not "the next received ACK".
        let mut other = ack(9);
        other.flow = 1;
        assert_eq!(at_a(&mut g, 11 * MS, other, &mut out), AgentVerdict::Pass);
        assert!(out.inject.is_empty());
        // The next ACK of this connection passes, and three copies go to
        // the sender with it.
        assert_eq!(at_a(&mut g, 12 * MS, ack(3), &mut out), AgentVerdict::Pass);
        assert_eq!(out.inject.len(), 3);
        for p in &out.inject {
            assert_eq!(
                (
                    p.kind,
                    p.flow,
                    p.epoch,
                    p.src,
                    p.dst,
                    p.ack,
                    p.flags,
                    p.payload_len
                ),
                (PacketKind::TcpAck, 0, 1, 3, 0, 3 * MSS, flags::ACK, 0)
            );
            assert_eq!(A_ROUTES[p.dst as usize], 1, "towards the sender");
        }
        // Only the next ACK.
        at_a(&mut g, 13 * MS, ack(3), &mut out);
        assert_eq!(out.inject.len(), 3);
        assert_eq!(g.icn_dupacks_sent, 3);
        // The sender's retransmission fills the hole.
        at_a(&mut g, 14 * MS, data(4), &mut out);
        assert!(g.holes(0, 1).is_empty());
    }

    /// §3.A, applied to each packet a NACK requests (B sends one NACK per
    /// gap, and a gap may span several packets): "If the requested packet
    /// by NACK corresponds to a hole in the hole table, that means this
    /// packet was lost in upstream network ... An incipient congestion
    /// notification (ICN) function is then activated." and "If there is no
    /// match, gateway A checks its cache for a cached copy of the requested
    /// packet. ... Then gateway A carries out the local packet
    /// retransmission." Packet 4 was lost upstream (a hole), packet 5 on
    /// the wireless link (cached): B's one gap [4, 6) gets 5 resent and
    /// the ICN armed.
    #[test]
    fn a_nack_over_a_hole_and_a_wireless_loss_resends_the_cached_packet_and_arms_the_icn() {
        let (mut g, mut out) = nack_over_a_hole_and_a_wireless_loss(true);
        assert_eq!((g.icns, g.icns_withheld), (1, 0));
        at_a(&mut g, 21 * MS, ack(4), &mut out);
        assert_eq!(out.inject.len(), 4, "the repair, then three ICN copies");
        assert!(out.inject[1..]
            .iter()
            .all(|p| p.kind == PacketKind::TcpAck && p.ack == 4 * MSS && p.dst == 0));
    }

    /// Gateway A with the ICN on or off (`icn`), after packets 1-3 and
    /// 5-8 (4 lost upstream: a hole) and B's one NACK for the gap [4, 6)
    /// (5 lost on the wireless link): the cached 5 is resent either way.
    fn nack_over_a_hole_and_a_wireless_loss(icn: bool) -> (GSnoopA, AgentOutput) {
        let (g, mut out) = a_fed(25, [1, 2, 3, 5, 6, 7, 8]);
        let mut g = g.with_icn(icn);
        assert_eq!(g.holes(0, 1), vec![(4 * MSS, 5 * MSS)]);
        assert_eq!(
            at_a(&mut g, 20 * MS, nack(4, 6), &mut out),
            AgentVerdict::Take
        );
        assert_eq!(resent(&out), vec![(5, 0, 3, true)]);
        assert_eq!(
            (
                g.nacks_received,
                g.cache_hits,
                g.cache_misses,
                g.local_retransmissions
            ),
            (1, 1, 0, 1)
        );
        (g, out)
    }

    /// `icn = false`, an ablation the document does not describe, of §3.A's
    /// "If the requested packet by NACK corresponds to a hole in the hole
    /// table ... An incipient congestion notification (ICN) function is
    /// then activated. ... gateway A makes three copies of the next received
    /// ACK" while "If there is no match, gateway A checks its cache for a
    /// cached copy of the requested packet. ... Then gateway A carries out
    /// the local packet retransmission.": the same NACK over a hole (4) and
    /// a wireless loss (5) as with ICN on gets the repair of 5 only; the
    /// hole hit arms nothing, so the next ACK passes alone, and the ICN it
    /// would have armed is counted as withheld.
    #[test]
    fn with_icn_off_a_nack_over_a_hole_and_a_wireless_loss_resends_the_cached_packet_only() {
        let (mut g, mut out) = nack_over_a_hole_and_a_wireless_loss(false);
        assert_eq!((g.icns, g.icns_withheld), (0, 1));
        assert_eq!(at_a(&mut g, 21 * MS, ack(4), &mut out), AgentVerdict::Pass);
        assert_eq!(out.inject.len(), 1, "the repair only, no ICN copies");
        assert_eq!(g.icn_dupacks_sent, 0);
    }

    /// `icn = false` (ablation) with §3.A's "three copies of the next
    /// received ACK": hole hits before the next ACK are one ICN withheld,
    /// as they would be one ICN sent; no ACK is copied, the next one or a
    /// later one; a hole hit after that ACK is another ICN withheld.
    #[test]
    fn with_icn_off_hole_hits_before_the_next_ack_withhold_one_icn_and_copy_no_ack() {
        let (g, mut out) = a_fed(25, [1, 2, 3, 5, 6, 7]);
        let mut g = g.with_icn(false);
        at_a(&mut g, 10 * MS, nack(4, 5), &mut out);
        at_a(&mut g, 11 * MS, nack(4, 5), &mut out);
        assert_eq!((g.nacks_received, g.icns, g.icns_withheld), (2, 0, 1));
        assert!(out.inject.is_empty(), "no local retransmission of a hole");
        assert_eq!((g.cache_hits, g.cache_misses), (0, 0));
        for t in [12, 13] {
            assert_eq!(at_a(&mut g, t * MS, ack(3), &mut out), AgentVerdict::Pass);
        }
        at_a(&mut g, 14 * MS, nack(4, 5), &mut out);
        assert_eq!((g.icns, g.icns_withheld), (0, 2));
        at_a(&mut g, 15 * MS, ack(3), &mut out);
        assert!(out.inject.is_empty());
        assert_eq!(g.icn_dupacks_sent, 0);
    }

    /// §3.A: "In case of a cache-miss, the request is ignored and no
    /// further action will be taken. This happens when the cached copy of
    /// the requested packet has been pre-maturely flushed." Fig. 2 has one
    /// FIFO cache at A: packets of every connection push the oldest out.
    #[test]
    fn a_cache_miss_is_ignored() {
        let (mut g, mut out) = a_fed(2, [4, 5]);
        let mut other = data(9);
        other.flow = 1;
        at_a(&mut g, 6 * MS, other, &mut out);
        // Cache: 5, then the other connection's packet; 4 was pushed out.
        assert_eq!(
            at_a(&mut g, 10 * MS, nack(4, 5), &mut out),
            AgentVerdict::Take
        );
        assert!(out.inject.is_empty());
        assert_eq!((g.cache_hits, g.cache_misses, g.icns), (0, 1, 0));
        // No ICN either: the next ACK passes alone.
        at_a(&mut g, 11 * MS, ack(4), &mut out);
        assert!(out.inject.is_empty());
        // 5 is still there.
        at_a(&mut g, 12 * MS, nack(5, 6), &mut out);
        assert_eq!(resent(&out), vec![(5, 0, 3, true)]);
    }

    /// Document silent: A's local retransmission is sent over the wireless
    /// link, but it does not enter the FIFO cache again (Fig. 2 caches the
    /// packets that arrive for the link; B asks for a packet once).
    #[test]
    fn a_local_retransmission_is_not_cached_again() {
        let (mut g, mut out) = a_fed(2, [1, 2]);
        at_a(&mut g, 10 * MS, nack(1, 2), &mut out);
        assert_eq!(resent(&out), vec![(1, 0, 3, true)]);
        let mut r = out.inject[0];
        r.uid = out.first_uid;
        let tx = LinkTx::Sent {
            start_ns: 10 * MS,
            end_ns: 10 * MS + TX,
        };
        g.on_link_tx(10 * MS, &r, tx);
        at_a(&mut g, 11 * MS, data(3), &mut out);
        // Cache 2, 3 (a re-cached 1 would have pushed 2 out).
        at_a(&mut g, 20 * MS, nack(2, 3), &mut out);
        assert_eq!(resent(&out), vec![(1, 0, 3, true), (2, 0, 3, true)]);
    }

    // ------------------------------------------------- A's FIFO cache

    /// Packet `i` of `flow`'s connection `epoch`, told apart by `uid`.
    fn segment(flow: u32, epoch: u32, i: u64, uid: u64) -> Packet {
        Packet {
            flow,
            epoch,
            uid,
            ..data(i)
        }
    }

    /// The uids of the packets a request for `ranges` (in packets) resends.
    fn resends(c: &mut SegmentFifo, flow: u32, epoch: u32, ranges: &[(u64, u64)]) -> Vec<u64> {
        let bytes: Vec<_> = ranges.iter().map(|&(s, e)| (s * MSS, e * MSS)).collect();
        c.oldest_copies(flow, epoch, &bytes)
            .map(|p| p.uid)
            .collect()
    }

    /// Fig. 2: "When it has been sent, a copy of it will be stored in the
    /// FIFO cache", one cache at A for every connection (§3.A: "the
    /// cache"), so a full cache pushes out its oldest packet whatever its
    /// connection; a request names a connection and finds only its packets.
    #[test]
    fn a_cache_holds_the_last_packets_sent_and_pushes_the_oldest_out() {
        for indexed in [false, true] {
            cache_holds_the_last_packets_sent(SegmentFifo::with_index(3, indexed));
        }
    }

    fn cache_holds_the_last_packets_sent(mut c: SegmentFifo) {
        for (uid, (flow, i)) in [(0, 1), (1, 1), (0, 2), (0, 3)].into_iter().enumerate() {
            c.push(segment(flow, 1, i, uid as u64));
        }
        // Packet 1 of connection 0 (uid 0) was pushed out by packet 3.
        assert_eq!(resends(&mut c, 0, 1, &[(0, 10)]), vec![2, 3]);
        assert_eq!(resends(&mut c, 1, 1, &[(0, 10)]), vec![1]);
        // Another connection of flow 0 (a later epoch) has none cached.
        assert_eq!(resends(&mut c, 0, 2, &[(0, 10)]), Vec::<u64>::new());
        // A request covers [start, end): packet 3 starts at the end of [1, 3).
        assert_eq!(resends(&mut c, 0, 1, &[(1, 3)]), vec![2]);
        c.push(segment(1, 1, 2, 4));
        assert_eq!(resends(&mut c, 1, 1, &[(0, 10)]), vec![4]);
    }

    /// §3.A: on a NACK, "gateway A checks its cache for a cached copy of
    /// the requested packet" and retransmits it: each requested packet
    /// once, though the cache may hold two copies of it (the sender sent
    /// it again while the first was cached), from the oldest copy, and the
    /// packets of a multi-packet request in the order they were cached
    /// (the order of a reading of the cache from its oldest packet).
    #[test]
    fn a_cache_resends_each_requested_packet_once_from_its_oldest_copy_in_cache_order() {
        for indexed in [false, true] {
            cache_resends_oldest_copies(SegmentFifo::with_index(5, indexed));
        }
    }

    fn cache_resends_oldest_copies(mut c: SegmentFifo) {
        // Sent: 5, 3, 5 again (TCP's retransmission), 4, 7.
        for (uid, i) in [(10, 5), (11, 3), (12, 5), (13, 4), (14, 7)] {
            c.push(segment(0, 1, i, uid));
        }
        assert_eq!(resends(&mut c, 0, 1, &[(3, 6)]), vec![10, 11, 13]);
        // A request split by a hole (§3.A per packet: [4, 5) is a hole).
        assert_eq!(resends(&mut c, 0, 1, &[(3, 4), (5, 8)]), vec![10, 11, 14]);
        // Two ranges naming one packet still resend it once.
        assert_eq!(resends(&mut c, 0, 1, &[(5, 6), (5, 6)]), vec![10]);
        // Once the first copy of 5 is pushed out, the second one answers.
        c.push(segment(0, 1, 9, 15));
        assert_eq!(resends(&mut c, 0, 1, &[(5, 6)]), vec![12]);
        assert_eq!(resends(&mut c, 0, 1, &[(0, 10)]), vec![11, 12, 13, 14, 15]);
    }

    /// Small caches are read whole, large ones indexed.
    #[test]
    fn a_cache_is_indexed_when_large() {
        assert!(SegmentFifo::new(INDEXED_ABOVE_PKTS).by_segment.is_none());
        assert!(SegmentFifo::new(INDEXED_ABOVE_PKTS + 1)
            .by_segment
            .is_some());
    }

    proptest::proptest! {
        /// The index, and the reading of a small cache, find what the old
        /// reading of the whole cache from its oldest packet found:
        /// the packets of the connection in a requested range, each
        /// segment's first copy met, in cache order.
        #[test]
        fn a_cache_lookup_finds_what_reading_the_cache_finds(
            capacity in 1usize..8,
            pushes in proptest::collection::vec((0u32..2, 1u32..3, 0u64..10), 0..40),
            ranges in proptest::collection::vec((0u64..11, 1u64..4), 1..4),
            flow in 0u32..2,
            epoch in 1u32..3,
            indexed: bool,
        ) {
            let mut c = SegmentFifo::with_index(capacity, indexed);
            let mut all = Vec::new();
            for (uid, &(f, e, i)) in pushes.iter().enumerate() {
                let p = segment(f, e, i, uid as u64);
                c.push(p);
                all.push(p);
            }
            let cached = &all[all.len().saturating_sub(capacity)..];
            let ranges: Vec<_> = ranges.iter().map(|&(s, len)| (s, s + len)).collect();
            let wanted = |p: &Packet| ranges.iter().any(|&(s, e)| p.seq >= s * MSS && p.seq < e * MSS);
            let expected: Vec<u64> = cached
                .iter()
                .enumerate()
                .filter(|&(i, p)| {
                    p.flow == flow
                        && p.epoch == epoch
                        && wanted(p)
                        && !cached[..i]
                            .iter()
                            .any(|q| q.flow == p.flow && q.epoch == p.epoch && q.seq == p.seq)
                })
                .map(|(_, p)| p.uid)
                .collect();
            proptest::prop_assert_eq!(resends(&mut c, flow, epoch, &ranges), expected);
        }
    }

    // ------------------------------------------------------- gateway B

    /// §3.B: "When a sequence number gap is detected and the gap cannot be
    /// filled up by the next three (out-of-order) packet arrivals, a
    /// special NACK will be generated and forwarded to gateway A." and
    /// "When a NACK is sent, gateway B initializes a counter, denoted as
    /// O3_counter, for counting the number of out-of-order packet arrivals
    /// before the requested repair is received." The example: "Suppose
    /// packet 4 is corrupted at the wireless link. When packets 5, 6 & 7
    /// arrive at gateway B, gateway B realizes that packet 4 is lost and it
    /// generates an NACK to gateway A. ... gateway B has already received
    /// packets 8, 9, & 10. ... when the retransmitted packet 4 arrives at
    /// gateway B, 6 packets have been received by gateway B as
    /// out-of-order packets, so O3_counter = 6. When the first duplicate
    /// ACK for packet 4 arrives at gateway B subsequently, gateway B
    /// retrieves the associated O3_counter, and the next 6 duplicate ACKs
    /// (including the current one) will be suppressed." and "if the
    /// retransmitted packet 4 is lost again in downstream network, the
    /// number of duplicate ACKs received by gateway B will be larger than
    /// 6 (its O3_counter), so gateway B will not suppress useful duplicate
    /// ACKs."
    #[test]
    fn packet_4_example() {
        let mut g = b();
        let mut out = AgentOutput::default();
        for i in 1..=3 {
            assert_eq!(at_b(&mut g, i * MS, data(i), &mut out), AgentVerdict::Pass);
        }
        for i in 5..=6 {
            assert_eq!(at_b(&mut g, i * MS, data(i), &mut out), AgentVerdict::Pass);
            assert!(out.inject.is_empty(), "no NACK before 3 out-of-order");
        }
        at_b(&mut g, 7 * MS, data(7), &mut out);
        assert_eq!(out.inject.len(), 1);
        let n = out.inject[0];
        assert_eq!(
            (n.kind, n.src, n.dst, n.flow, n.epoch, n.seq, n.ack),
            (PacketKind::Control, 2, 1, 0, 1, 4 * MSS, 5 * MSS)
        );
        assert_eq!(B_ROUTES[n.dst as usize], 3, "over the wireless link to A");
        assert_eq!(n.wire_bytes(), 40);
        for i in 8..=10 {
            assert_eq!(at_b(&mut g, i * MS, data(i), &mut out), AgentVerdict::Pass);
        }
        assert_eq!(g.repairs_received, 0);
        // Data is never held: the repair passes too.
        assert_eq!(at_b(&mut g, 11 * MS, data(4), &mut out), AgentVerdict::Pass);
        assert_eq!(out.inject.len(), 1, "one NACK only");
        assert_eq!(g.last_o3_counter, 6);
        assert_eq!((g.nacks_sent, g.repairs_received, g.o3_resets), (1, 1, 0));
        // The ACK for 3 (new), then the receiver's six duplicates.
        assert_eq!(at_b(&mut g, 20 * MS, ack(4), &mut out), AgentVerdict::Pass);
        for k in 0..6 {
            assert_eq!(
                at_b(&mut g, 21 * MS + k, ack(4), &mut out),
                AgentVerdict::Drop,
                "dupack {k}"
            );
        }
        // A seventh (the repair lost downstream) is useful: it passes.
        assert_eq!(at_b(&mut g, 22 * MS, ack(4), &mut out), AgentVerdict::Pass);
        assert_eq!(g.dupacks_suppressed, 6);
        assert_eq!(at_b(&mut g, 23 * MS, ack(11), &mut out), AgentVerdict::Pass);
        assert_eq!(out.inject.len(), 1, "B injects nothing for ACKs");
    }

    /// §3.B: "Gateway B also keeps track of the sequence number of incoming
    /// data packets for each TCP connection." Another connection's packets
    /// are not out-of-order arrivals for this one's gap.
    #[test]
    fn b_counts_out_of_order_arrivals_per_connection() {
        let mut g = b();
        let mut out = AgentOutput::default();
        for i in [1, 2, 3, 5] {
            at_b(&mut g, i * MS, data(i), &mut out);
        }
        for i in 20..23 {
            let mut p = data(i);
            p.flow = 1;
            at_b(&mut g, i * MS, p, &mut out);
        }
        assert!(out.inject.is_empty());
        at_b(&mut g, 30 * MS, data(6), &mut out);
        assert!(out.inject.is_empty());
        at_b(&mut g, 31 * MS, data(7), &mut out);
        assert_eq!(out.inject.len(), 1);
        assert_eq!((out.inject[0].flow, out.inject[0].seq), (0, 4 * MSS));
        assert_eq!(g.nacks_sent, 1);
    }

    /// §3.B: "If the packet requested by NACK is lost in upstream network
    /// instead of at the wireless link (i.e. a hole-hit at gateway A),
    /// gateway B will not get the retransmitted packet from gateway A
    /// within a wireless link RTT (plus some guard time). Then the
    /// associated O3_counter is reset." Wireless RTT 10 ms and guard 10 ms
    /// (defaults): the NACK at 7 ms expires after 27 ms.
    #[test]
    fn no_repair_within_rtt_plus_guard_resets_o3() {
        let mut g = b();
        let mut out = AgentOutput::default();
        for i in [1, 2, 3, 5, 6, 7] {
            at_b(&mut g, i * MS, data(i), &mut out);
        }
        assert_eq!(g.nacks_sent, 1);
        // At 27 ms the repair is still awaited.
        at_b(&mut g, 27 * MS, data(8), &mut out);
        assert_eq!(g.o3_resets, 0);
        // Past it, O3_counter is reset.
        at_b(&mut g, 27 * MS + 1, data(9), &mut out);
        assert_eq!(g.o3_resets, 1);
        // The sender's retransmission is no repair; nothing is suppressed
        // and no second NACK goes out.
        at_b(&mut g, 29 * MS, data(4), &mut out);
        assert_eq!(g.repairs_received, 0);
        at_b(&mut g, 30 * MS, ack(4), &mut out);
        for k in 0..8 {
            assert_eq!(
                at_b(&mut g, 31 * MS + k, ack(4), &mut out),
                AgentVerdict::Pass
            );
        }
        assert_eq!((g.dupacks_suppressed, g.nacks_sent), (0, 1));
        assert_eq!(out.inject.len(), 1);
    }

    /// Document silent (it assumes the repair reaches B before the
    /// receiver's duplicate ACKs): duplicate ACKs for the NACKed packet
    /// that reach B before the repair pass, and are deducted from the
    /// O3_counter budget, so that the sender never misses more than the
    /// document's count would hide.
    #[test]
    fn dupacks_before_the_repair_pass_and_reduce_the_budget() {
        let mut g = b();
        let mut out = AgentOutput::default();
        for i in [1, 2, 3, 5, 6, 7] {
            at_b(&mut g, i, data(i), &mut out);
        }
        at_b(&mut g, 8, ack(4), &mut out);
        assert_eq!(at_b(&mut g, 9, ack(4), &mut out), AgentVerdict::Pass);
        assert_eq!(at_b(&mut g, 10, ack(4), &mut out), AgentVerdict::Pass);
        at_b(&mut g, 11, data(4), &mut out);
        assert_eq!(g.last_o3_counter, 3);
        assert_eq!(at_b(&mut g, 12, ack(4), &mut out), AgentVerdict::Drop);
        assert_eq!(at_b(&mut g, 13, ack(4), &mut out), AgentVerdict::Pass);
        assert_eq!(g.dupacks_suppressed, 1);
    }

    /// §3.B: "The threshold of 3 out-of-order packets is chosen in order to
    /// be in line with sender's Fast Retransmit triggering mechanism. This
    /// is to ensure the missing packet is not due to the possible
    /// out-of-order packet delivery." A gap filled by the second later
    /// arrival is reordering: no NACK.
    #[test]
    fn reordering_filled_before_three_arrivals_sends_no_nack() {
        let mut g = b();
        let mut out = AgentOutput::default();
        for i in [1, 2, 4, 5, 3, 6, 7, 8] {
            assert_eq!(at_b(&mut g, i, data(i), &mut out), AgentVerdict::Pass);
        }
        assert!(out.inject.is_empty());
        assert_eq!(g.nacks_sent, 0);
        // Nor are the receiver's ACKs touched.
        at_b(&mut g, 9, ack(3), &mut out);
        assert_eq!(at_b(&mut g, 10, ack(3), &mut out), AgentVerdict::Pass);
    }

    /// §4.D: "If congestion occurs in downstream network ... Duplicate ACKs
    /// will be generated by a standard TCP receiver. Those duplicate ACKs
    /// will be forwarded by gateways B and A all the way to the sender."
    /// No gap at B, no NACK, no ICN: every duplicate ACK passes both.
    #[test]
    fn downstream_loss_dupacks_pass_both_gateways() {
        let (mut ga, mut gb) = (a(25), b());
        let mut out = AgentOutput::default();
        for i in 1..=10 {
            at_a(&mut ga, i * MS, data(i), &mut out);
            at_b(&mut gb, i * MS + 5 * MS, data(i), &mut out);
        }
        // Packet 4 dies downstream of B: the receiver acknowledges 4 seven
        // times (3, then 5..10).
        for k in 0..7 {
            assert_eq!(
                at_b(&mut gb, 40 * MS + k, ack(4), &mut out),
                AgentVerdict::Pass
            );
            assert_eq!(
                at_a(&mut ga, 45 * MS + k, ack(4), &mut out),
                AgentVerdict::Pass
            );
        }
        assert!(out.inject.is_empty());
        assert_eq!((gb.nacks_sent, gb.dupacks_suppressed, ga.icns), (0, 0, 0));
    }

    #[test]
    fn remove_range_splits() {
        let mut r = vec![(0u64, 10u64), (20, 30)];
        assert!(remove_range(&mut r, 4, 6, |x| (&mut x.0, &mut x.1)));
        assert_eq!(r, vec![(0, 4), (6, 10), (20, 30)]);
        assert!(remove_range(&mut r, 0, 4, |x| (&mut x.0, &mut x.1)));
        assert!(remove_range(&mut r, 25, 40, |x| (&mut x.0, &mut x.1)));
        assert_eq!(r, vec![(6, 10), (20, 25)]);
        assert!(!remove_range(&mut r, 10, 20, |x| (&mut x.0, &mut x.1)));
    }
}
