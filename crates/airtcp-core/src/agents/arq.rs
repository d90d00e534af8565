//! Link-layer retransmission (LRT) over a wireless hop, "similar to DDA" as
//! the WMECN paper (§5.2) uses it: Vaidya, Mehta, Perkins, Montenegro,
//! "Delayed duplicate acknowledgements: a TCP-unaware approach to improve
//! performance of TCP over wireless", Texas A&M TR, 1999.
//!
//! Two agents, one at each end of the wireless link:
//!
//! * [`LinkArq`] on the node before the wireless hop (the base station):
//!   local ARQ. It keeps a copy of every TCP data segment the wireless link
//!   to `peer` transmits and waits for a link-layer ACK. If none arrives
//!   within `timeout` of the END of the frame's transmission, it
//!   retransmits the copy, at most `retries` times; then it gives up and
//!   the loss is left to TCP. The timer is armed when the link sends the
//!   frame, not when the frame joins the link's queue: the link ACK can
//!   only leave the receiver once the frame's last bit is there, so the
//!   wait is measured from there (802.11's ACK timeout, and ns-2's
//!   `Mac802_11`, which starts its timer at transmission for the frame's
//!   transmission time plus the ACK timeout; ns-2's link `ARQTx` only
//!   decides on an ACK or NACK returned for a frame it has transmitted).
//!   Measured from the queue, a frame waiting longer than the timeout
//!   behind other traffic would be copied while it, or an earlier copy,
//!   still waits: needless copies that lengthen the queue. So a copy is
//!   never made while an earlier copy of the frame is queued or being sent.
//!   The link tells the agent when it sends each frame
//!   ([`NodeAgent::on_link_tx`]). A retransmission joins the link's FIFO
//!   queue behind what is already there, so later segments can overtake it,
//!   as with DDA's TCP-unaware link layer; if the queue refuses it (buffer
//!   full), the frame is dropped and the loss left to TCP. Copies keep the
//!   segment's send time, so the ground truth still matches a death of any
//!   copy to the sender's transmission. The agent knows its copies by
//!   packet (the uid the world gives each, [`AgentOutput::next_uid`]), not
//!   by segment: a TCP retransmission of the same segment can reach the
//!   link before or after a copy (both may wait at a stalled link's
//!   entrance), and it is TCP's frame, protected afresh, while the copy's
//!   fate (sent or refused) is the agent's. At most one frame per segment
//!   is held, its latest transmission's.
//! * [`Dda`] on the mobile host (the far end): sends a link-layer ACK for
//!   every data segment that arrives over the wireless link, and delays
//!   duplicate TCP ACKs as DDA does: the first two duplicate ACKs for a
//!   sequence number are sent at once; from the third on they are held for
//!   `delay` (one timer per run of duplicates, started at the third). If a
//!   new cumulative ACK is sent before the timer expires (the local
//!   retransmission filled the hole), the held duplicates are discarded;
//!   otherwise they are all released when it expires, and later duplicates
//!   of the same run pass at once.
//!
//! A link-layer ACK is a 14-byte [`PacketKind::Control`] packet (an 802.11
//! ACK frame's size; our choice) from the mobile host to the base station
//! carrying the flow, epoch and sequence number of the segment, marked with
//! [`LINK_ACK`] so that other agents' control packets (G-Snoop's NACKs) are
//! told apart. It crosses the reverse wireless direction and can be lost
//! there too (then the segment is retransmitted needlessly; the receiver
//! ACKs the duplicate). The frames awaiting a link ACK are kept in deadline
//! order and indexed by segment, so that a link ACK or a newer copy finds
//! its frame without reading the others. [`Dda`]'s state is per flow in a map,
//! and its held runs are also kept ordered by release time, so that its
//! deadline and the runs due are found without visiting every flow.

use std::collections::BTreeMap;

use super::{AgentOutput, AgentVerdict, FlowTimers, Ingress, LinkTx, NodeAgent};
use crate::metrics::{col, Column};
use crate::net::packet::{flags, Packet, PacketKind, DEFAULT_TTL};
use crate::sim::TimeNs;

/// Marks a control packet as a link-layer ACK.
pub const LINK_ACK: u16 = flags::RESERVED_5;
/// Wire size of a link-layer ACK.
pub const LINK_ACK_BYTES: u32 = 14;
/// Copies kept per agent beyond which new segments are forwarded unprotected.
pub const MAX_CACHED: usize = 4096;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArqConfig {
    /// Local retransmissions per segment before giving up.
    pub retries: u8,
    /// Wait for the link-layer ACK, from the end of the frame's
    /// transmission, before retransmitting.
    pub timeout_ns: TimeNs,
}

#[derive(Clone, Copy, Debug)]
struct Frame {
    pkt: Packet,
    /// When its latest copy's link-ACK wait ends.
    deadline_ns: TimeNs,
    /// Copies sent by the agent so far.
    attempts: u8,
}

/// A retransmission handed to routing whose transmission the link has not
/// reported yet (it may wait at a stalled link's entrance).
#[derive(Clone, Copy, Debug)]
struct Resend {
    /// The copy as injected; its uid is the one the world gives it.
    pkt: Packet,
    attempts: u8,
    /// A link ACK for an earlier copy arrived meanwhile: forget it once
    /// sent.
    acked: bool,
}

/// Local ARQ at the sending end of the wireless link.
#[derive(Clone, Debug)]
pub struct LinkArq {
    pub cfg: ArqConfig,
    node: u32,
    peer: u32,
    /// The wireless link direction node -> peer.
    out_link: u32,
    /// Frames sent and awaiting a link ACK, in deadline order, frames
    /// with the same deadline in the order they were held: keyed by
    /// (deadline, `held` when it was held).
    cache: BTreeMap<(TimeNs, u64), Frame>,
    /// The key in `cache` of each segment's frame (at most one per
    /// segment), so that a link ACK finds its frame without reading the
    /// others (up to `MAX_CACHED`).
    by_segment: BTreeMap<(u32, u32, u64), (TimeNs, u64)>,
    /// Frames held so far.
    held: u64,
    /// Retransmissions not yet sent by the link.
    resends: Vec<Resend>,
    pub frames_protected: u64,
    pub local_retransmissions: u64,
    pub link_acks: u64,
    pub gave_up: u64,
    pub copies_refused: u64,
}

impl LinkArq {
    pub fn new(node: u32, peer: u32, out_link: u32, cfg: ArqConfig) -> Self {
        Self {
            cfg,
            node,
            peer,
            out_link,
            cache: BTreeMap::new(),
            by_segment: BTreeMap::new(),
            held: 0,
            resends: Vec::new(),
            frames_protected: 0,
            local_retransmissions: 0,
            link_acks: 0,
            gave_up: 0,
            copies_refused: 0,
        }
    }

    fn same_segment(a: &Packet, b: &Packet) -> bool {
        a.flow == b.flow && a.epoch == b.epoch && a.seq == b.seq
    }

    fn segment(p: &Packet) -> (u32, u32, u64) {
        (p.flow, p.epoch, p.seq)
    }

    /// Stop waiting for a link ACK of `pkt`'s segment.
    fn forget(&mut self, pkt: &Packet) {
        if let Some(key) = self.by_segment.remove(&Self::segment(pkt)) {
            self.cache.remove(&key);
        }
    }

    /// Keep `frame` in deadline order (after frames with the same
    /// deadline). Its segment has no frame held (`forget` first).
    fn hold(&mut self, frame: Frame) {
        let key = (frame.deadline_ns, self.held);
        self.held += 1;
        let earlier = self.by_segment.insert(Self::segment(&frame.pkt), key);
        debug_assert!(earlier.is_none(), "one frame per segment");
        self.cache.insert(key, frame);
    }
}

impl NodeAgent for LinkArq {
    fn name(&self) -> &'static str {
        "arq"
    }

    fn on_packet(
        &mut self,
        _now_ns: TimeNs,
        pkt: &mut Packet,
        _ingress: Ingress,
        _egress: Option<u32>,
        _out: &mut AgentOutput,
    ) -> AgentVerdict {
        if pkt.kind == PacketKind::Control
            && pkt.has_flag(LINK_ACK)
            && pkt.dst == self.node
            && pkt.src == self.peer
        {
            self.link_acks += 1;
            self.forget(pkt);
            for r in self.resends.iter_mut() {
                if Self::same_segment(&r.pkt, pkt) {
                    r.acked = true;
                }
            }
            return AgentVerdict::Take;
        }
        AgentVerdict::Pass
    }

    fn watched_link(&self) -> Option<u32> {
        Some(self.out_link)
    }

    fn on_link_tx(&mut self, _now_ns: TimeNs, pkt: &Packet, tx: LinkTx) {
        if pkt.kind != PacketKind::TcpData || pkt.payload_len == 0 {
            return;
        }
        // One of our retransmissions (that very packet), or a segment from
        // TCP?
        let resend = self
            .resends
            .iter()
            .position(|r| r.pkt.uid == pkt.uid)
            .map(|i| self.resends.swap_remove(i));
        match (tx, resend) {
            (LinkTx::Sent { end_ns, .. }, Some(r)) => {
                if !r.acked {
                    // It replaces a frame TCP sent meanwhile.
                    self.forget(pkt);
                    self.hold(Frame {
                        pkt: r.pkt,
                        deadline_ns: end_ns + self.cfg.timeout_ns,
                        attempts: r.attempts,
                    });
                }
            }
            (LinkTx::Refused(_), Some(_)) => {
                // The link's own buffer is full: the frame is dropped
                // there, like any packet the queue refuses.
                self.copies_refused += 1;
            }
            (LinkTx::Sent { end_ns, .. }, None) => {
                // A newer copy from TCP replaces one already held.
                self.forget(pkt);
                if self.cache.len() + self.resends.len() < MAX_CACHED {
                    self.frames_protected += 1;
                    self.hold(Frame {
                        pkt: *pkt,
                        deadline_ns: end_ns + self.cfg.timeout_ns,
                        attempts: 0,
                    });
                }
            }
            // TCP's segment never left: its loss is a queue drop, TCP's.
            (LinkTx::Refused(_), None) => {}
        }
    }

    fn deadline(&self) -> Option<TimeNs> {
        self.cache.first_key_value().map(|(&(d, _), _)| d)
    }

    fn on_timer(&mut self, now_ns: TimeNs, out: &mut AgentOutput) {
        while self.deadline().is_some_and(|d| d <= now_ns) {
            let (_, f) = self.cache.pop_first().expect("checked");
            self.by_segment.remove(&Self::segment(&f.pkt));
            if f.attempts >= self.cfg.retries {
                // The retry limit is reached: the loss is TCP's.
                self.gave_up += 1;
                continue;
            }
            self.local_retransmissions += 1;
            let mut copy = f.pkt;
            copy.ttl = DEFAULT_TTL;
            // It re-sends bytes sent before: the trace's ground truth, as
            // for Snoop's and G-Snoop's local copies (docs/results.md).
            copy.is_retransmission = true;
            copy.uid = out.next_uid();
            out.inject.push(copy);
            // Its timer starts when the link sends it (`on_link_tx`).
            self.resends.push(Resend {
                pkt: copy,
                attempts: f.attempts + 1,
                acked: false,
            });
        }
    }

    fn counters(&self) -> Vec<(Column<'static>, u64)> {
        vec![
            (col("frames_protected", "segments", "TCP data segments the wireless link transmitted from the base station whose copy the base station kept, awaiting a link-layer ACK (at most 4096 held; later ones go unprotected)."), self.frames_protected),
            (col("local_retransmissions", "segments", "Copies the base station retransmitted after a link-layer ACK timeout (counted from the end of the previous copy's transmission)."), self.local_retransmissions),
            (col("link_acks", "ACKs", "Link-layer ACKs the base station received from the mobile host."), self.link_acks),
            (col("gave_up", "segments", "Segments still unacknowledged at the retry limit: the loss is left to TCP."), self.gave_up),
            (col("copies_refused", "segments", "Local retransmissions the wireless link's queue refused (buffer full): the segment is dropped there and its loss left to TCP."), self.copies_refused),
        ]
    }
}

#[derive(Clone, Debug, Default)]
struct DupRun {
    epoch: u32,
    /// Cumulative ACK number of the run (the last new ACK sent).
    ack: u64,
    dups: u32,
    /// Set while duplicates are held: when they are released.
    release_ns: Option<TimeNs>,
    /// The timer of this run already fired (later duplicates pass).
    released: bool,
    held: Vec<Packet>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DdaConfig {
    /// How long the third and later duplicate ACKs are held (DDA's d);
    /// 0 = link ACKs only, no delaying.
    pub delay_ns: TimeNs,
    /// Duplicates sent at once before delaying starts (DDA: 2).
    pub undelayed_dups: u32,
}

/// The mobile host's side: link ACKs and delayed duplicate ACKs.
#[derive(Clone, Debug)]
pub struct Dda {
    pub cfg: DdaConfig,
    node: u32,
    peer: u32,
    /// The wireless link direction peer -> node.
    in_link: u32,
    /// Per flow, by index: its run of duplicate ACKs; memory in the flows
    /// seen, not in the scenario's number of flows (one table per agent),
    /// released in index order as a vector would be.
    runs: BTreeMap<u32, DupRun>,
    /// Every held run's release, in time order.
    releases: FlowTimers,
    pub link_acks_sent: u64,
    pub dupacks_delayed: u64,
    pub dupacks_discarded: u64,
    pub dupacks_released: u64,
}

impl Dda {
    pub fn new(node: u32, peer: u32, in_link: u32, cfg: DdaConfig) -> Self {
        Self {
            cfg,
            node,
            peer,
            in_link,
            runs: BTreeMap::new(),
            releases: FlowTimers::default(),
            link_acks_sent: 0,
            dupacks_delayed: 0,
            dupacks_discarded: 0,
            dupacks_released: 0,
        }
    }

    /// When `flow`'s held duplicates are released, if it holds some.
    fn release_of(&self, flow: u32) -> Option<TimeNs> {
        self.runs.get(&flow).and_then(|r| r.release_ns)
    }

    fn run(&mut self, flow: u32) -> &mut DupRun {
        self.runs.entry(flow).or_default()
    }

    /// A new cumulative ACK `pkt` leaves (or a new connection's SYN-ACK):
    /// duplicates are counted from it, and held ones are stale (the hole
    /// is filled).
    fn start_run(&mut self, pkt: &Packet) {
        let r = self.run(pkt.flow);
        let discarded = r.held.len() as u64;
        r.held.clear();
        r.epoch = pkt.epoch;
        r.ack = pkt.ack;
        r.dups = 0;
        r.release_ns = None;
        r.released = false;
        self.dupacks_discarded += discarded;
    }

    fn on_local_ack(&mut self, now_ns: TimeNs, pkt: &Packet) -> AgentVerdict {
        let (delay, undelayed) = (self.cfg.delay_ns, self.cfg.undelayed_dups);
        let r = self.run(pkt.flow);
        if r.epoch != pkt.epoch || pkt.ack > r.ack {
            self.start_run(pkt);
            return AgentVerdict::Pass;
        }
        if pkt.ack < r.ack {
            return AgentVerdict::Pass;
        }
        r.dups += 1;
        if delay == 0 || r.dups <= undelayed || r.released {
            return AgentVerdict::Pass;
        }
        if r.release_ns.is_none() {
            r.release_ns = Some(now_ns + delay);
        }
        r.held.push(*pkt);
        self.dupacks_delayed += 1;
        AgentVerdict::Take
    }
}

impl NodeAgent for Dda {
    fn name(&self) -> &'static str {
        "dda"
    }

    fn on_packet(
        &mut self,
        now_ns: TimeNs,
        pkt: &mut Packet,
        ingress: Ingress,
        _egress: Option<u32>,
        out: &mut AgentOutput,
    ) -> AgentVerdict {
        match (pkt.kind, ingress) {
            (PacketKind::TcpData, Ingress::Link(l)) if l == self.in_link && pkt.payload_len > 0 => {
                self.link_acks_sent += 1;
                out.inject.push(Packet {
                    kind: PacketKind::Control,
                    flow: pkt.flow,
                    epoch: pkt.epoch,
                    src: self.node,
                    dst: self.peer,
                    ttl: DEFAULT_TTL,
                    flags: LINK_ACK,
                    seq: pkt.seq,
                    raw_size: LINK_ACK_BYTES,
                    sent_ns: now_ns,
                    ..Default::default()
                });
                AgentVerdict::Pass
            }
            (PacketKind::TcpAck, Ingress::Local)
                if pkt.payload_len == 0
                    && pkt.has_flag(flags::ACK)
                    && !pkt.has_flag(flags::SYN) =>
            {
                let held = self.release_of(pkt.flow);
                let verdict = self.on_local_ack(now_ns, pkt);
                self.releases
                    .moved(pkt.flow, held, self.release_of(pkt.flow));
                verdict
            }
            // The SYN-ACK is the connection's first cumulative ACK: an ACK
            // repeating its number (the first data segment was lost) is a
            // duplicate, as the sender counts it (RFC 5681 §2).
            (PacketKind::TcpAck, Ingress::Local)
                if pkt.has_flag(flags::SYN) && pkt.has_flag(flags::ACK) =>
            {
                let held = self.release_of(pkt.flow);
                self.start_run(pkt);
                self.releases
                    .moved(pkt.flow, held, self.release_of(pkt.flow));
                AgentVerdict::Pass
            }
            _ => AgentVerdict::Pass,
        }
    }

    fn deadline(&self) -> Option<TimeNs> {
        self.releases.earliest()
    }

    fn on_timer(&mut self, now_ns: TimeNs, out: &mut AgentOutput) {
        let due = self.releases.take_due(now_ns);
        for &flow in &due {
            let r = self.runs.get_mut(&flow).expect("a held run's flow");
            r.release_ns = None;
            r.released = true;
            self.dupacks_released += r.held.len() as u64;
            out.inject.append(&mut r.held);
        }
        self.releases.recycle(due);
    }

    fn counters(&self) -> Vec<(Column<'static>, u64)> {
        vec![
            (col("link_acks_sent", "ACKs", "Link-layer ACKs the mobile host sent (one per data segment arriving over the wireless link)."), self.link_acks_sent),
            (col("dupacks_delayed", "ACKs", "Third and later duplicate TCP ACKs the mobile host held (DDA)."), self.dupacks_delayed),
            (col("dupacks_discarded", "ACKs", "Held duplicate ACKs dropped because a new cumulative ACK went out first (the local retransmission filled the hole)."), self.dupacks_discarded),
            (col("dupacks_released", "ACKs", "Held duplicate ACKs released when their timer expired."), self.dupacks_released),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::{testing, DeathCause};

    fn data(seq: u64) -> Packet {
        testing::data(seq, 1000)
    }

    fn ack(n: u64) -> Packet {
        testing::ack(n)
    }

    fn sent(start_ns: TimeNs, end_ns: TimeNs) -> LinkTx {
        LinkTx::Sent { start_ns, end_ns }
    }

    fn link_ack(seq: u64) -> Packet {
        Packet {
            kind: PacketKind::Control,
            flags: LINK_ACK,
            src: 2,
            dst: 1,
            flow: 0,
            epoch: 1,
            seq,
            ..Default::default()
        }
    }

    /// Node 1, peer 2 over link direction 5, timeout 10 ns, `retries`.
    fn arq(retries: u8) -> LinkArq {
        LinkArq::new(
            1,
            2,
            5,
            ArqConfig {
                retries,
                timeout_ns: 10,
            },
        )
    }

    /// The LRT rule (WMECN §5.2, "similar to DDA"; Vaidya et al. 1999): a
    /// frame is retransmitted when no link ACK arrives within the timeout
    /// after it was TRANSMITTED (here: after its transmission ends), at most
    /// `retries` times. Frames queued at 0 are sent 100-108 and 108-116: the
    /// enqueue time starts no timer; the deadlines are 118 and 126.
    #[test]
    fn arq_timer_starts_when_the_link_sends_the_frame() {
        let mut a = arq(2);
        let mut out = AgentOutput::default();
        // Passing through the node (to the queue) arms nothing.
        assert_eq!(
            a.on_packet(0, &mut data(0), Ingress::Link(0), None, &mut out),
            AgentVerdict::Pass
        );
        assert_eq!(a.deadline(), None);
        a.on_link_tx(0, &data(0), sent(100, 108));
        a.on_link_tx(0, &data(1000), sent(108, 116));
        assert_eq!(a.frames_protected, 2);
        assert_eq!(a.deadline(), Some(118));
        // Segment 1000 is link-acked; segment 0 is not.
        assert_eq!(
            a.on_packet(50, &mut link_ack(1000), Ingress::Link(6), None, &mut out),
            AgentVerdict::Take
        );
        a.on_timer(118, &mut out);
        assert_eq!(out.inject.len(), 1);
        assert_eq!(out.inject[0].seq, 0);
        // Until the link reports the copy sent, no timer runs and no other
        // copy is made, however late it is.
        assert_eq!(a.deadline(), None);
        a.on_timer(1_000, &mut out);
        assert_eq!(out.inject.len(), 1, "no copy while a copy waits");
        // The copy waited in the queue until 300: its timer runs from 308.
        a.on_link_tx(118, &out.inject[0], sent(300, 308));
        assert_eq!(a.deadline(), Some(318));
        a.on_timer(318, &mut out);
        assert_eq!(out.inject.len(), 2);
        a.on_link_tx(318, &out.inject[1], sent(318, 326));
        assert_eq!(a.deadline(), Some(336));
        // Two retries made: at the third deadline the ARQ gives up.
        a.on_timer(336, &mut out);
        assert_eq!(out.inject.len(), 2, "retry limit reached");
        assert_eq!((a.local_retransmissions, a.gave_up), (2, 1));
        assert_eq!(a.deadline(), None);
    }

    /// Only TCP data the watched link sends is protected; a segment the
    /// queue refuses never left (its loss is a queue drop, TCP's); a
    /// retransmission the queue refuses drops the frame.
    #[test]
    fn arq_protects_sent_data_and_drops_refused_copies() {
        let mut a = arq(3);
        let mut out = AgentOutput::default();
        a.on_link_tx(0, &ack(1), sent(0, 1));
        a.on_link_tx(0, &data(0), LinkTx::Refused(DeathCause::QueueOverflow));
        assert_eq!((a.frames_protected, a.deadline()), (0, None));
        a.on_link_tx(0, &data(0), sent(0, 8));
        a.on_timer(18, &mut out);
        a.on_link_tx(
            18,
            &out.inject[0],
            LinkTx::Refused(DeathCause::QueueOverflow),
        );
        assert_eq!((a.copies_refused, a.gave_up), (1, 0));
        assert_eq!(a.deadline(), None);
        // A link ACK for an earlier copy while a copy waits to be sent:
        // the copy, once sent, is not held.
        a.on_link_tx(20, &data(1000), sent(20, 28));
        a.on_timer(38, &mut out);
        a.on_packet(39, &mut link_ack(1000), Ingress::Link(6), None, &mut out);
        a.on_link_tx(38, &out.inject[1], sent(40, 48));
        assert_eq!(a.deadline(), None);
        assert_eq!(a.local_retransmissions, 2);
    }

    /// The agent's copies are its own frames (module doc: "The agent knows
    /// its copies by packet"): a TCP retransmission of the same segment at
    /// the link while a copy waits to be sent is TCP's frame, protected
    /// afresh, and the copy's fate is counted for the copy. Found on DCLOR's
    /// path (docs/reproductions/matrix.md, ARQ row): TCP's retransmission
    /// and the agent's copy left a stall together, TCP's first.
    #[test]
    fn arq_knows_its_copies_from_tcp_retransmissions_of_the_same_segment() {
        let tcp = |uid, sent_ns| Packet {
            uid,
            sent_ns,
            is_retransmission: uid > 1,
            ..data(0)
        };
        // The segment's frame times out and the agent's copy (uid 50)
        // waits at the link, while TCP's retransmission (uid 2) arrives.
        let copy_waiting = || {
            let mut a = arq(1);
            let mut out = AgentOutput {
                first_uid: 50,
                ..Default::default()
            };
            a.on_link_tx(0, &tcp(1, 0), sent(0, 8));
            a.on_timer(18, &mut out);
            (a, out)
        };
        // TCP's retransmission leaves first and is sent; the copy is
        // refused.
        let (mut a, mut out) = copy_waiting();
        let copy = out.inject[0];
        assert_eq!((copy.uid, copy.sent_ns), (50, 0));
        a.on_link_tx(20, &tcp(2, 15), sent(100, 108));
        a.on_link_tx(20, &copy, LinkTx::Refused(DeathCause::QueueOverflow));
        assert_eq!((a.copies_refused, a.frames_protected), (1, 2));
        // What it holds is TCP's retransmission, with a whole retry budget:
        // its timeout brings a copy of it, not the retry limit.
        assert_eq!(a.deadline(), Some(118));
        out.inject.clear();
        out.first_uid = 60;
        a.on_timer(118, &mut out);
        assert_eq!((a.local_retransmissions, a.gave_up), (2, 0));
        assert_eq!((out.inject[0].uid, out.inject[0].sent_ns), (60, 15));

        // The other way round: TCP's retransmission is refused, the copy
        // sent. No copy was refused; the copy is held as the agent's
        // first retry, so with one retry its timeout ends the repair.
        let (mut a, mut out) = copy_waiting();
        a.on_link_tx(20, &tcp(2, 15), LinkTx::Refused(DeathCause::QueueOverflow));
        a.on_link_tx(20, &out.inject[0], sent(100, 108));
        assert_eq!((a.copies_refused, a.frames_protected), (0, 1));
        assert_eq!(a.deadline(), Some(118));
        a.on_timer(118, &mut out);
        assert_eq!((a.local_retransmissions, a.gave_up), (1, 1));
        assert_eq!(a.deadline(), None);

        // Both sent, TCP's first: the copy, the latest transmission,
        // replaces TCP's frame; one frame of the segment is held.
        let (mut a, mut out) = copy_waiting();
        a.on_link_tx(20, &tcp(2, 15), sent(100, 108));
        a.on_link_tx(20, &out.inject[0], sent(108, 116));
        assert_eq!((a.copies_refused, a.frames_protected), (0, 2));
        assert_eq!(a.deadline(), Some(126));
        a.on_timer(126, &mut out);
        assert_eq!((a.local_retransmissions, a.gave_up), (1, 1));
        assert_eq!(a.deadline(), None);
    }

    /// With per-connection service (STIS) frames do not finish in the order
    /// they were offered: the earliest deadline still comes first.
    #[test]
    fn arq_deadlines_stay_in_order_when_sends_are_not() {
        let mut a = arq(1);
        a.on_link_tx(0, &data(0), sent(50, 58));
        a.on_link_tx(0, &data(1000), sent(0, 8));
        assert_eq!(a.deadline(), Some(18));
        let mut out = AgentOutput::default();
        a.on_timer(18, &mut out);
        assert_eq!(out.inject.len(), 1);
        assert_eq!(out.inject[0].seq, 1000);
        assert_eq!(a.deadline(), Some(68));
    }

    /// The link ACK acknowledges one segment (module doc: it carries "the
    /// flow, epoch and sequence number of the segment"): that segment's
    /// frame stops waiting, every other frame (of this connection or
    /// another, or another connection of the same flow) still times out
    /// and is retransmitted at its own deadline.
    #[test]
    fn arq_link_ack_forgets_only_its_segment() {
        let mut a = arq(1);
        let other = |flow, epoch| Packet {
            flow,
            epoch,
            ..data(1000)
        };
        a.on_link_tx(0, &data(0), sent(0, 8));
        a.on_link_tx(0, &data(1000), sent(8, 16));
        a.on_link_tx(0, &other(1, 1), sent(16, 24));
        a.on_link_tx(0, &other(0, 2), sent(24, 32));
        a.on_link_tx(0, &data(2000), sent(32, 40));
        let mut out = AgentOutput::default();
        a.on_packet(30, &mut link_ack(1000), Ingress::Link(6), None, &mut out);
        // An ACK for a segment not held changes nothing.
        a.on_packet(31, &mut link_ack(9000), Ingress::Link(6), None, &mut out);
        assert_eq!(a.deadline(), Some(18));
        a.on_timer(50, &mut out);
        let resent: Vec<_> = out
            .inject
            .iter()
            .map(|p| (p.flow, p.epoch, p.seq))
            .collect();
        assert_eq!(
            resent,
            vec![(0, 1, 0), (1, 1, 1000), (0, 2, 1000), (0, 1, 2000)]
        );
        assert_eq!(a.deadline(), None);
    }

    /// Frames whose link-ACK waits end at the same time are retransmitted
    /// in the order the link sent them (the order they were held), and a
    /// frame replaced by a newer transmission of its segment waits from
    /// the newer one's end only.
    #[test]
    fn arq_frames_with_one_deadline_are_retransmitted_in_the_order_held() {
        let mut a = arq(1);
        // STIS-like service: 2000 and 0 end together; 1000 is sent twice,
        // TCP's retransmission ending later.
        a.on_link_tx(0, &data(2000), sent(0, 8));
        a.on_link_tx(0, &data(1000), sent(0, 8));
        a.on_link_tx(0, &data(0), sent(0, 8));
        let again = Packet {
            uid: 7,
            sent_ns: 1,
            ..data(1000)
        };
        a.on_link_tx(1, &again, sent(8, 16));
        let mut out = AgentOutput::default();
        a.on_timer(18, &mut out);
        let resent: Vec<_> = out.inject.iter().map(|p| p.seq).collect();
        assert_eq!(resent, vec![2000, 0]);
        assert_eq!(a.deadline(), Some(26));
        a.on_timer(26, &mut out);
        // A copy of the newer transmission (its send time).
        let last = out.inject.last().map(|p| (p.seq, p.sent_ns));
        assert_eq!((out.inject.len(), last), (3, Some((1000, 1))));
    }

    #[test]
    fn dda_holds_third_and_later_duplicates() {
        let mut d = Dda::new(
            2,
            1,
            5,
            DdaConfig {
                delay_ns: 100,
                undelayed_dups: 2,
            },
        );
        let mut out = AgentOutput::default();
        let mut send =
            |d: &mut Dda, t, n| d.on_packet(t, &mut ack(n), Ingress::Local, None, &mut out);
        assert_eq!(send(&mut d, 0, 1000), AgentVerdict::Pass);
        assert_eq!(send(&mut d, 1, 1000), AgentVerdict::Pass);
        assert_eq!(send(&mut d, 2, 1000), AgentVerdict::Pass);
        assert_eq!(send(&mut d, 3, 1000), AgentVerdict::Take);
        assert_eq!(send(&mut d, 4, 1000), AgentVerdict::Take);
        assert_eq!(d.deadline(), Some(103));
        // The hole is filled: held duplicates are discarded.
        assert_eq!(send(&mut d, 50, 6000), AgentVerdict::Pass);
        assert_eq!(d.dupacks_discarded, 2);
        assert_eq!(d.deadline(), None);
        // A new run whose hole is not filled in time: released.
        for t in 60..62 {
            assert_eq!(send(&mut d, t, 6000), AgentVerdict::Pass);
        }
        assert_eq!(send(&mut d, 62, 6000), AgentVerdict::Take);
        assert_eq!(d.deadline(), Some(162));
        d.on_timer(162, &mut out);
        assert_eq!(out.inject.len(), 1);
        assert_eq!(d.dupacks_released, 1);
        // Later duplicates of the same run pass.
        let mut out2 = AgentOutput::default();
        assert_eq!(
            d.on_packet(170, &mut ack(6000), Ingress::Local, None, &mut out2),
            AgentVerdict::Pass
        );
    }

    /// A DDA mobile host with `delay` 100 ns, two undelayed duplicates.
    fn dda() -> Dda {
        Dda::new(
            2,
            1,
            5,
            DdaConfig {
                delay_ns: 100,
                undelayed_dups: 2,
            },
        )
    }

    /// The mobile host sends a pure ACK of `n` on connection `flow`.
    fn ack_on(d: &mut Dda, t: TimeNs, flow: u32, n: u64, out: &mut AgentOutput) -> AgentVerdict {
        d.on_packet(t, &mut Packet { flow, ..ack(n) }, Ingress::Local, None, out)
    }

    /// DDA holds the third and later duplicates of each connection for
    /// `delay` from the third, with one timer per run of duplicates: the
    /// host next needs its timer at the earliest release among all its
    /// connections, whatever happens to the others. A new cumulative ACK
    /// discards a run's held duplicates (its release is cancelled), a new
    /// run starts a later release, a released run's later duplicates pass.
    /// Twenty connections, their runs started in an order unlike their
    /// flow order.
    #[test]
    fn dda_deadline_is_the_earliest_release_among_many_connections() {
        let mut d = dda();
        let mut out = AgentOutput::default();
        const N: u64 = 20;
        // The k-th run is flow 7k mod 20's; its third duplicate leaves at
        // 10 + k ns, so it is released at 110 + k.
        let kth = |k: u64| (k * 7 % N) as u32;
        for k in 0..N {
            for t in 0..3 {
                ack_on(&mut d, t, kth(k), 1000, &mut out);
            }
            assert_eq!(
                ack_on(&mut d, 10 + k, kth(k), 1000, &mut out),
                AgentVerdict::Take
            );
        }
        assert_eq!(d.deadline(), Some(110));
        // The earliest run's hole is filled: its held duplicate is
        // discarded and its release cancelled.
        ack_on(&mut d, 50, kth(0), 2000, &mut out);
        assert_eq!(d.deadline(), Some(111));
        // Its next run holds again, later than every other.
        for t in 51..54 {
            ack_on(&mut d, t, kth(0), 2000, &mut out);
        }
        assert_eq!(d.deadline(), Some(111));
        // The earliest run now is cancelled too.
        ack_on(&mut d, 60, kth(1), 2000, &mut out);
        assert_eq!(d.deadline(), Some(112));
        // Releases fire in turn; the re-started run (at 153) comes last.
        for k in 2..N {
            assert_eq!(d.deadline(), Some(110 + k));
            d.on_timer(110 + k, &mut out);
        }
        assert_eq!(d.deadline(), Some(153));
        d.on_timer(153, &mut out);
        assert_eq!(d.deadline(), None);
        assert_eq!((d.dupacks_released, d.dupacks_discarded), (N - 1, 2));
        // A released run's later duplicates pass at once.
        assert_eq!(
            ack_on(&mut d, 200, kth(5), 1000, &mut out),
            AgentVerdict::Pass
        );
        assert_eq!(d.deadline(), None);
    }

    /// The runs due when the timer runs are each released once, in flow
    /// order (a walk over the connections by flow index), not in expiry
    /// order; runs not yet due stay held.
    #[test]
    fn dda_due_runs_are_released_in_flow_order() {
        let mut d = dda();
        let mut out = AgentOutput::default();
        // Third duplicates at 3, 10 and 50: released at 103, 110, 150.
        for (flow, third) in [(9, 3), (3, 10), (5, 50)] {
            for t in third - 3..third {
                ack_on(&mut d, t, flow, 1000, &mut out);
            }
            assert_eq!(
                ack_on(&mut d, third, flow, 1000, &mut out),
                AgentVerdict::Take
            );
        }
        let flows = |out: &AgentOutput| out.inject.iter().map(|p| p.flow).collect::<Vec<_>>();
        d.on_timer(120, &mut out);
        assert_eq!(flows(&out), vec![3, 9]);
        assert_eq!(d.deadline(), Some(150));
        d.on_timer(150, &mut out);
        assert_eq!(flows(&out), vec![3, 9, 5]);
        assert_eq!(d.deadline(), None);
    }

    /// Memory in the connections seen: state for one connection of flow
    /// index 4,000,000,000 is one record. A table indexed by flow asked for
    /// a slot per index below it, per agent (20,000 G-Snoop gateway pairs
    /// on 20,000 flows needed 22 GB and were killed); this one would ask
    /// for hundreds of GB and abort.
    #[test]
    fn dda_keeps_state_for_the_flows_seen_not_for_every_flow_index() {
        let cfg = DdaConfig {
            delay_ns: 100,
            undelayed_dups: 2,
        };
        let mut d = Dda::new(2, 1, 5, cfg);
        let mut out = AgentOutput::default();
        let flow = 4_000_000_000;
        let verdicts: Vec<_> = (0..4)
            .map(|t| {
                let mut p = Packet { flow, ..ack(1000) };
                d.on_packet(t, &mut p, Ingress::Local, None, &mut out)
            })
            .collect();
        assert_eq!(verdicts.last(), Some(&AgentVerdict::Take));
        assert_eq!(d.deadline(), Some(103));
    }

    /// DDA holds the third and later duplicates of the receiver's last
    /// cumulative ACK. When the connection's first data segment is lost,
    /// that ACK is the SYN-ACK's (RFC 5681 §2: an ACK repeating the highest
    /// acknowledgment is a duplicate), so the third ACK repeating its
    /// number is held: the sender sees two duplicates, not three.
    #[test]
    fn dda_counts_duplicates_of_the_syn_ack_when_the_first_segment_is_lost() {
        let mut d = Dda::new(
            2,
            1,
            5,
            DdaConfig {
                delay_ns: 100,
                undelayed_dups: 2,
            },
        );
        let mut out = AgentOutput::default();
        let mut syn_ack = ack(1);
        syn_ack.flags = flags::SYN | flags::ACK;
        assert_eq!(
            d.on_packet(0, &mut syn_ack, Ingress::Local, None, &mut out),
            AgentVerdict::Pass
        );
        let mut send =
            |d: &mut Dda, t, n| d.on_packet(t, &mut ack(n), Ingress::Local, None, &mut out);
        assert_eq!(send(&mut d, 10, 1), AgentVerdict::Pass);
        assert_eq!(send(&mut d, 11, 1), AgentVerdict::Pass);
        assert_eq!(send(&mut d, 12, 1), AgentVerdict::Take);
        assert_eq!(d.dupacks_delayed, 1);
        assert_eq!(d.deadline(), Some(112));
    }

    #[test]
    fn dda_link_acks_data_from_the_wireless_link_only() {
        let mut d = Dda::new(
            2,
            1,
            5,
            DdaConfig {
                delay_ns: 0,
                undelayed_dups: 2,
            },
        );
        let mut out = AgentOutput::default();
        d.on_packet(0, &mut data(0), Ingress::Link(5), None, &mut out);
        d.on_packet(0, &mut data(0), Ingress::Link(7), None, &mut out);
        assert_eq!(out.inject.len(), 1);
        let la = out.inject[0];
        assert!(la.has_flag(LINK_ACK) && la.kind == PacketKind::Control);
        assert_eq!((la.src, la.dst, la.seq, la.wire_bytes()), (2, 1, 0, 14));
    }
}
