//! Link-layer retransmission (LRT) over a wireless hop, "similar to DDA" as
//! the WMECN paper (§5.2) uses it: Vaidya, Mehta, Perkins, Montenegro,
//! "Delayed duplicate acknowledgements: a TCP-unaware approach to improve
//! performance of TCP over wireless", Texas A&M TR, 1999.
//!
//! Two agents, one at each end of the wireless link:
//!
//! * [`LinkArq`] on the node before the wireless hop (the base station):
//!   local ARQ. It keeps a copy of every TCP data segment it forwards over
//!   the wireless link to `peer` and waits for a link-layer ACK. If none
//!   arrives within `timeout`, it retransmits the copy (the retransmission
//!   joins the link's FIFO queue behind what is already there, so later
//!   segments can overtake it, as with DDA's TCP-unaware link layer), at
//!   most `retries` times; then it gives up and the loss is left to TCP.
//!   Copies keep the segment's send time, so the ground truth still matches
//!   a death of any copy to the sender's transmission.
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
//! ACKs the duplicate). The cache is searched linearly: it holds only what
//! is in flight on the wireless hop. State is per flow index in `Vec`s.

use std::collections::VecDeque;

use super::{AgentOutput, AgentVerdict, Ingress, NodeAgent};
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
    /// Wait for the link-layer ACK before retransmitting.
    pub timeout_ns: TimeNs,
}

#[derive(Clone, Copy, Debug)]
struct Frame {
    pkt: Packet,
    deadline_ns: TimeNs,
    attempts: u8,
}

/// Local ARQ at the sending end of the wireless link.
#[derive(Clone, Debug)]
pub struct LinkArq {
    pub cfg: ArqConfig,
    node: u32,
    peer: u32,
    /// The wireless link direction node -> peer.
    out_link: u32,
    /// Next-hop link direction per destination, from this node.
    routes: Vec<u32>,
    /// Frames awaiting a link ACK, in deadline order.
    cache: VecDeque<Frame>,
    pub frames_protected: u64,
    pub local_retransmissions: u64,
    pub link_acks: u64,
    pub gave_up: u64,
}

impl LinkArq {
    pub fn new(node: u32, peer: u32, out_link: u32, routes: &[u32], cfg: ArqConfig) -> Self {
        Self {
            cfg,
            node,
            peer,
            out_link,
            routes: routes.to_vec(),
            cache: VecDeque::with_capacity(64),
            frames_protected: 0,
            local_retransmissions: 0,
            link_acks: 0,
            gave_up: 0,
        }
    }

    fn same_segment(a: &Packet, b: &Packet) -> bool {
        a.flow == b.flow && a.epoch == b.epoch && a.seq == b.seq
    }
}

impl NodeAgent for LinkArq {
    fn name(&self) -> &'static str {
        "arq"
    }

    fn on_packet(
        &mut self,
        now_ns: TimeNs,
        pkt: &mut Packet,
        _ingress: Ingress,
        _out: &mut AgentOutput,
    ) -> AgentVerdict {
        match pkt.kind {
            PacketKind::Control
                if pkt.has_flag(LINK_ACK) && pkt.dst == self.node && pkt.src == self.peer =>
            {
                self.link_acks += 1;
                if let Some(i) = self
                    .cache
                    .iter()
                    .position(|f| Self::same_segment(&f.pkt, pkt))
                {
                    self.cache.remove(i);
                }
                AgentVerdict::Take
            }
            PacketKind::TcpData
                if pkt.payload_len > 0
                    && pkt.dst != self.node
                    && self.routes.get(pkt.dst as usize) == Some(&self.out_link) =>
            {
                // A newer copy of a segment already held replaces it.
                if let Some(i) = self
                    .cache
                    .iter()
                    .position(|f| Self::same_segment(&f.pkt, pkt))
                {
                    self.cache.remove(i);
                }
                if self.cache.len() < MAX_CACHED {
                    self.frames_protected += 1;
                    self.cache.push_back(Frame {
                        pkt: *pkt,
                        deadline_ns: now_ns + self.cfg.timeout_ns,
                        attempts: 0,
                    });
                }
                AgentVerdict::Pass
            }
            _ => AgentVerdict::Pass,
        }
    }

    fn deadline(&self) -> Option<TimeNs> {
        self.cache.front().map(|f| f.deadline_ns)
    }

    fn on_timer(&mut self, now_ns: TimeNs, out: &mut AgentOutput) {
        while self.cache.front().is_some_and(|f| f.deadline_ns <= now_ns) {
            let mut f = self.cache.pop_front().expect("checked");
            if f.attempts >= self.cfg.retries {
                // The retry limit is reached: the loss is TCP's.
                self.gave_up += 1;
                continue;
            }
            f.attempts += 1;
            f.deadline_ns = now_ns + self.cfg.timeout_ns;
            self.local_retransmissions += 1;
            let mut copy = f.pkt;
            copy.ttl = DEFAULT_TTL;
            out.inject.push(copy);
            // Deadlines stay sorted: every other deadline is at most
            // now + timeout.
            self.cache.push_back(f);
        }
    }

    fn counters(&self) -> Vec<(Column<'static>, u64)> {
        vec![
            (col("frames_protected", "segments", "TCP data segments the base station forwarded over the wireless link and kept a copy of, awaiting a link-layer ACK (at most 4096 held; later ones go unprotected)."), self.frames_protected),
            (col("local_retransmissions", "segments", "Copies the base station retransmitted after a link-layer ACK timeout."), self.local_retransmissions),
            (col("link_acks", "ACKs", "Link-layer ACKs the base station received from the mobile host."), self.link_acks),
            (col("gave_up", "segments", "Segments still unacknowledged at the retry limit: the loss is left to TCP."), self.gave_up),
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
    runs: Vec<DupRun>,
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
            runs: Vec::new(),
            link_acks_sent: 0,
            dupacks_delayed: 0,
            dupacks_discarded: 0,
            dupacks_released: 0,
        }
    }

    fn run(&mut self, flow: u32) -> &mut DupRun {
        let i = flow as usize;
        if self.runs.len() <= i {
            self.runs.resize_with(i + 1, DupRun::default);
        }
        &mut self.runs[i]
    }

    fn on_local_ack(&mut self, now_ns: TimeNs, pkt: &Packet) -> AgentVerdict {
        let (delay, undelayed) = (self.cfg.delay_ns, self.cfg.undelayed_dups);
        let r = self.run(pkt.flow);
        if r.epoch != pkt.epoch || pkt.ack > r.ack {
            // A new cumulative ACK (or a new connection): the hole is
            // filled; held duplicates are stale.
            let discarded = r.held.len() as u64;
            r.held.clear();
            r.epoch = pkt.epoch;
            r.ack = pkt.ack;
            r.dups = 0;
            r.release_ns = None;
            r.released = false;
            self.dupacks_discarded += discarded;
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
                self.on_local_ack(now_ns, pkt)
            }
            _ => AgentVerdict::Pass,
        }
    }

    fn deadline(&self) -> Option<TimeNs> {
        self.runs.iter().filter_map(|r| r.release_ns).min()
    }

    fn on_timer(&mut self, now_ns: TimeNs, out: &mut AgentOutput) {
        for r in self.runs.iter_mut() {
            if r.release_ns.is_some_and(|t| t <= now_ns) {
                r.release_ns = None;
                r.released = true;
                self.dupacks_released += r.held.len() as u64;
                out.inject.append(&mut r.held);
            }
        }
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
    use crate::net::packet::testing;

    fn data(seq: u64) -> Packet {
        testing::data(seq, 1000)
    }

    fn ack(n: u64) -> Packet {
        testing::ack(n)
    }

    #[test]
    fn arq_retransmits_until_acked_or_the_limit() {
        // Node 1, peer 2 over link direction 5; routes: to 2 via 5.
        let mut a = LinkArq::new(
            1,
            2,
            5,
            &[9, 9, 5],
            ArqConfig {
                retries: 2,
                timeout_ns: 10,
            },
        );
        let mut out = AgentOutput::default();
        assert_eq!(
            a.on_packet(0, &mut data(0), Ingress::Link(0), &mut out),
            AgentVerdict::Pass
        );
        a.on_packet(1, &mut data(1000), Ingress::Link(0), &mut out);
        assert_eq!(a.deadline(), Some(10));
        // Segment 1000 is link-acked; segment 0 is not.
        let mut la = Packet {
            kind: PacketKind::Control,
            flags: LINK_ACK,
            src: 2,
            dst: 1,
            flow: 0,
            epoch: 1,
            seq: 1000,
            ..Default::default()
        };
        assert_eq!(
            a.on_packet(5, &mut la, Ingress::Link(6), &mut out),
            AgentVerdict::Take
        );
        a.on_timer(10, &mut out);
        a.on_timer(20, &mut out);
        assert_eq!(out.inject.len(), 2);
        assert!(out.inject.iter().all(|p| p.seq == 0));
        a.on_timer(30, &mut out);
        assert_eq!(out.inject.len(), 2, "retry limit reached");
        assert_eq!((a.local_retransmissions, a.gave_up), (2, 1));
        assert_eq!(a.deadline(), None);
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
        let mut send = |d: &mut Dda, t, n| d.on_packet(t, &mut ack(n), Ingress::Local, &mut out);
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
            d.on_packet(170, &mut ack(6000), Ingress::Local, &mut out2),
            AgentVerdict::Pass
        );
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
        d.on_packet(0, &mut data(0), Ingress::Link(5), &mut out);
        d.on_packet(0, &mut data(0), Ingress::Link(7), &mut out);
        assert_eq!(out.inject.len(), 1);
        let la = out.inject[0];
        assert!(la.has_flag(LINK_ACK) && la.kind == PacketKind::Control);
        assert_eq!((la.src, la.dst, la.seq, la.wire_bytes()), (2, 1, 0, 14));
    }
}
