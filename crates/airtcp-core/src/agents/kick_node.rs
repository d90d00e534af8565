//! The kick-aware intermediate node of Kick TCP
//! (draft-bahk-pilc-tcp-wireless-00 §2).
//!
//! A kick segment (K bit set) is answered with a kickback (an ACK with the K
//! bit whose ACK number is the end of the kicked segment). If the node has
//! already forwarded the segment, the kick is dropped; if not, it is
//! forwarded with the K bit cleared and the TTL restored.
//!
//! What "already forwarded" means is a parameter, [`NodeKnowledge`]. §2 has
//! the node remember "the largest sequence number for each TCP connection";
//! a segment lost on the uplink while later ones got through (a hole) then
//! counts as forwarded, so a kick for it is dropped and its kickback stops
//! the kick timer: the node can repair only losses at the front of the
//! data it has seen. In the draft's simulation (§3) the node is the
//! receiving host itself, which knows exactly which segments it holds; the
//! exact reading keeps the set of byte ranges forwarded per connection.

use std::collections::BTreeMap;

use super::{AgentOutput, AgentVerdict, Ingress, NodeAgent};
use crate::metrics::{col, Column};
use crate::net::packet::{flags, Packet, PacketKind, DEFAULT_TTL};
use crate::sim::TimeNs;
use crate::tcp::kick::KICK;

/// How the node decides that it has already forwarded a kicked segment.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum NodeKnowledge {
    /// Every byte of the segment is in the set of ranges the node has
    /// forwarded (the draft's simulation, §3: the node is the receiver).
    Exact,
    /// The segment ends at or below the largest sequence number forwarded
    /// (the draft's §2 wording).
    #[default]
    HighestForwarded,
}

/// What the node knows about one connection (one flow and epoch).
#[derive(Clone, Debug, Default)]
struct Forwarded {
    epoch: u32,
    /// One past the largest sequence number forwarded.
    highest_end: u64,
    /// [`NodeKnowledge::Exact`]: disjoint, non-adjacent [start, end) ranges
    /// forwarded, in order. Ranges merge as holes fill, so there are at most
    /// as many as there are holes (plus one).
    ranges: Vec<(u64, u64)>,
}

impl Forwarded {
    fn record(&mut self, start: u64, end: u64, exact: bool) {
        self.highest_end = self.highest_end.max(end);
        if !exact {
            return;
        }
        // Ranges that overlap or touch [start, end) merge into one.
        let first = self.ranges.partition_point(|&(_, e)| e < start);
        let last = self.ranges.partition_point(|&(s, _)| s <= end);
        if first == last {
            self.ranges.insert(first, (start, end));
        } else {
            let merged = (
                start.min(self.ranges[first].0),
                end.max(self.ranges[last - 1].1),
            );
            self.ranges[first] = merged;
            self.ranges.drain(first + 1..last);
        }
    }

    fn covers(&self, start: u64, end: u64, knowledge: NodeKnowledge) -> bool {
        match knowledge {
            NodeKnowledge::HighestForwarded => end <= self.highest_end,
            NodeKnowledge::Exact => {
                let i = self.ranges.partition_point(|&(_, e)| e < end);
                self.ranges.get(i).is_some_and(|&(s, _)| s <= start)
            }
        }
    }
}

#[derive(Clone, Debug)]
pub struct KickAwareNode {
    /// This node's index (source of kickbacks).
    pub node: u32,
    pub knowledge: NodeKnowledge,
    /// Per flow, by index: what has been forwarded in its current
    /// connection; memory in the flows seen, not in the scenario's number
    /// of flows (one table per agent).
    forwarded: BTreeMap<u32, Forwarded>,
    pub kicks_answered: u64,
    pub kicks_forwarded: u64,
    pub kickbacks_sent: u64,
}

impl KickAwareNode {
    pub fn new(node: u32, knowledge: NodeKnowledge) -> Self {
        Self {
            node,
            knowledge,
            forwarded: BTreeMap::new(),
            kicks_answered: 0,
            kicks_forwarded: 0,
            kickbacks_sent: 0,
        }
    }

    /// The connection's record, if the node has seen its data.
    fn known(&self, pkt: &Packet) -> Option<&Forwarded> {
        self.forwarded
            .get(&pkt.flow)
            .filter(|f| f.epoch == pkt.epoch)
    }

    fn already_forwarded(&self, pkt: &Packet) -> bool {
        self.known(pkt)
            .is_some_and(|f| f.covers(pkt.seq, pkt.end_seq(), self.knowledge))
    }

    fn record_forwarded(&mut self, pkt: &Packet) {
        let fresh = || Forwarded {
            epoch: pkt.epoch,
            ..Default::default()
        };
        let slot = self.forwarded.entry(pkt.flow).or_insert_with(fresh);
        if slot.epoch != pkt.epoch {
            // A new connection of this flow starts afresh.
            *slot = fresh();
        }
        let exact = self.knowledge == NodeKnowledge::Exact;
        slot.record(pkt.seq, pkt.end_seq(), exact);
    }

    fn kickback(&mut self, kick: &Packet, out: &mut AgentOutput) {
        self.kickbacks_sent += 1;
        out.inject.push(Packet {
            kind: PacketKind::TcpAck,
            flow: kick.flow,
            epoch: kick.epoch,
            src: self.node,
            dst: kick.src,
            ttl: DEFAULT_TTL,
            flags: flags::ACK | KICK,
            // Acknowledges receipt of the kicked segment at this node only.
            ack: kick.end_seq(),
            ..Default::default()
        });
    }
}

impl NodeAgent for KickAwareNode {
    fn name(&self) -> &'static str {
        "kick_node"
    }

    fn on_packet(
        &mut self,
        _now_ns: TimeNs,
        pkt: &mut Packet,
        ingress: Ingress,
        _egress: Option<u32>,
        out: &mut AgentOutput,
    ) -> AgentVerdict {
        if pkt.kind != PacketKind::TcpData || pkt.payload_len == 0 || ingress == Ingress::Local {
            return AgentVerdict::Pass;
        }
        if !pkt.has_flag(KICK) {
            self.record_forwarded(pkt);
            return AgentVerdict::Pass;
        }
        self.kickback(pkt, out);
        if self.already_forwarded(pkt) {
            self.kicks_answered += 1;
            AgentVerdict::Drop
        } else {
            pkt.set_flag(KICK, false);
            pkt.ttl = DEFAULT_TTL;
            self.kicks_forwarded += 1;
            self.record_forwarded(pkt);
            AgentVerdict::Pass
        }
    }

    fn counters(&self) -> Vec<(Column<'static>, u64)> {
        vec![
            (col("kicks_answered", "segments", "Kicks (K bit) for data this node had already forwarded: answered with a kickback and dropped."), self.kicks_answered),
            (col("kicks_forwarded", "segments", "Kicks for data not yet forwarded: the K bit is cleared and the segment forwarded as data."), self.kicks_forwarded),
            (col("kickbacks_sent", "ACKs", "Kickbacks this node sent to kick senders."), self.kickbacks_sent),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 536;

    /// Segment `k` ([k * 536, (k + 1) * 536)) of flow 0 from MH (node 0) to
    /// FH (node 2); a kick has the K bit and TTL 1 (§2).
    fn data(k: u64, kick: bool) -> Packet {
        let mut p = Packet {
            kind: PacketKind::TcpData,
            flow: 0,
            epoch: 1,
            src: 0,
            dst: 2,
            seq: k * MSS,
            payload_len: MSS as u32,
            ttl: 64,
            flags: flags::ACK,
            ..Default::default()
        };
        if kick {
            p.set_flag(KICK, true);
            p.ttl = 1;
        }
        p
    }

    /// Offer segment `k` to the node; return the verdict and the kickbacks
    /// it sent (their ACK numbers in segments).
    fn offer(n: &mut KickAwareNode, k: u64, kick: bool) -> (AgentVerdict, Vec<u64>, Packet) {
        let mut out = AgentOutput::default();
        let mut p = data(k, kick);
        let v = n.on_packet(0, &mut p, Ingress::Link(0), None, &mut out);
        for kb in &out.inject {
            // §2: "an ACK for the segment with the K bit set", from the node
            // back to the kicking host.
            assert!(kb.has_flag(KICK) && kb.has_flag(flags::ACK), "{kb:?}");
            assert_eq!((kb.kind, kb.src, kb.dst), (PacketKind::TcpAck, 1, 0));
        }
        (v, out.inject.iter().map(|kb| kb.ack / MSS).collect(), p)
    }

    const BOTH: [NodeKnowledge; 2] = [NodeKnowledge::Exact, NodeKnowledge::HighestForwarded];

    /// §2: "If IN did forward, it sends an ACK for the segment with the K bit
    /// set (a kick-back)" and the kick goes no further.
    #[test]
    fn a_kick_for_a_forwarded_segment_gets_a_kickback_and_is_dropped() {
        for knowledge in BOTH {
            let mut n = KickAwareNode::new(1, knowledge);
            assert_eq!(offer(&mut n, 0, false).0, AgentVerdict::Pass);
            let (v, kickbacks, _) = offer(&mut n, 0, true);
            assert_eq!(
                (v, kickbacks),
                (AgentVerdict::Drop, vec![1]),
                "{knowledge:?}"
            );
            assert_eq!((n.kicks_answered, n.kicks_forwarded), (1, 0));
        }
    }

    /// Memory in the connections seen: state for one connection of flow
    /// index 4,000,000,000 is one record. A table indexed by flow asked for
    /// a slot per index below it, per agent (20,000 G-Snoop gateway pairs
    /// on 20,000 flows needed 22 GB and were killed); this one would ask
    /// for hundreds of GB and abort.
    #[test]
    fn state_is_kept_for_the_flows_seen_not_for_every_flow_index() {
        let mut n = KickAwareNode::new(1, NodeKnowledge::Exact);
        let flow = 4_000_000_000;
        for kick in [false, true] {
            let mut p = Packet {
                flow,
                ..data(0, kick)
            };
            let v = n.on_packet(
                0,
                &mut p,
                Ingress::Link(0),
                None,
                &mut AgentOutput::default(),
            );
            assert_eq!(v, [AgentVerdict::Pass, AgentVerdict::Drop][kick as usize]);
        }
        assert_eq!((n.kicks_answered, n.kicks_forwarded), (1, 0));
    }

    /// §2: "If it did not, it forwards the segment after resetting the kick
    /// flag and TTL (if necessary), and sends a kickback to MH for the
    /// segment." It then counts as forwarded.
    #[test]
    fn a_kick_for_a_new_segment_is_forwarded_with_k_cleared_and_ttl_restored() {
        for knowledge in BOTH {
            let mut n = KickAwareNode::new(1, knowledge);
            offer(&mut n, 0, false);
            let (v, kickbacks, fwd) = offer(&mut n, 1, true);
            assert_eq!(
                (v, kickbacks),
                (AgentVerdict::Pass, vec![2]),
                "{knowledge:?}"
            );
            assert!(!fwd.has_flag(KICK));
            assert_eq!(fwd.ttl, DEFAULT_TTL);
            assert_eq!((n.kicks_answered, n.kicks_forwarded), (0, 1));
            assert_eq!(offer(&mut n, 1, true).0, AgentVerdict::Drop);
        }
    }

    /// A hole: segment 1 was lost before the node, 0 and 2 got through.
    /// The exact node (§3: the receiving host, which knows what it holds)
    /// forwards the kick for 1; §2's largest-sequence-number rule thinks 1
    /// was forwarded and drops the kick (the consequence of that reading).
    #[test]
    fn a_kick_for_a_hole_is_forwarded_only_by_the_exact_node() {
        let mut exact = KickAwareNode::new(1, NodeKnowledge::Exact);
        let mut highest = KickAwareNode::new(1, NodeKnowledge::HighestForwarded);
        for n in [&mut exact, &mut highest] {
            offer(n, 0, false);
            offer(n, 2, false);
        }
        assert_eq!(offer(&mut exact, 1, true).0, AgentVerdict::Pass);
        assert_eq!(offer(&mut highest, 1, true).0, AgentVerdict::Drop);
        // Segment 0 and 2 stay forwarded; 1 now is for the exact node.
        for k in 0..3 {
            assert_eq!(offer(&mut exact, k, true).0, AgentVerdict::Drop, "{k}");
        }
        assert_eq!(offer(&mut exact, 3, true).0, AgentVerdict::Pass);
    }

    #[test]
    fn the_exact_node_merges_ranges_as_holes_fill() {
        let mut n = KickAwareNode::new(1, NodeKnowledge::Exact);
        for k in [0, 2, 4, 6] {
            offer(&mut n, k, false);
        }
        let ranges = |n: &KickAwareNode| n.forwarded[&0].ranges.clone();
        let r = |a: u64, b: u64| (a * MSS, b * MSS);
        assert_eq!(ranges(&n), vec![r(0, 1), r(2, 3), r(4, 5), r(6, 7)]);
        offer(&mut n, 5, false);
        assert_eq!(ranges(&n), vec![r(0, 1), r(2, 3), r(4, 7)]);
        offer(&mut n, 1, false);
        assert_eq!(ranges(&n), vec![r(0, 3), r(4, 7)]);
        // A segment spanning a hole and both neighbours (a repacketised
        // retransmission) closes it.
        let mut big = data(2, false);
        big.payload_len = 3 * MSS as u32;
        n.on_packet(
            0,
            &mut big,
            Ingress::Link(0),
            None,
            &mut AgentOutput::default(),
        );
        assert_eq!(ranges(&n), vec![r(0, 7)]);
        // Only whole coverage counts: half of segment 7 is not forwarded.
        let mut half = data(7, true);
        half.seq -= MSS / 2;
        let mut out = AgentOutput::default();
        assert_eq!(
            n.on_packet(0, &mut half, Ingress::Link(0), None, &mut out),
            AgentVerdict::Pass
        );
    }

    #[test]
    fn a_new_connection_of_the_flow_starts_with_nothing_forwarded() {
        for knowledge in BOTH {
            let mut n = KickAwareNode::new(1, knowledge);
            offer(&mut n, 0, false);
            let mut kick = data(0, true);
            kick.epoch = 2;
            let mut out = AgentOutput::default();
            assert_eq!(
                n.on_packet(0, &mut kick, Ingress::Link(0), None, &mut out),
                AgentVerdict::Pass,
                "{knowledge:?}"
            );
        }
    }
}
