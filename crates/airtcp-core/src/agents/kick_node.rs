//! The kick-aware intermediate node of Kick TCP
//! (draft-bahk-pilc-tcp-wireless-00 §2).
//!
//! It remembers, per connection from the mobile host, the largest sequence
//! number it has forwarded. A kick segment (K bit set) for data it already
//! forwarded is answered with a kickback (an ACK with the K bit) and
//! dropped. A kick for data it has not forwarded yet is forwarded with the K
//! bit cleared and the TTL restored, and answered with a kickback too.

use super::{AgentOutput, AgentVerdict, Ingress, NodeAgent};
use crate::metrics::{col, Column};
use crate::net::packet::{flags, Packet, PacketKind, DEFAULT_TTL};
use crate::sim::TimeNs;
use crate::tcp::kick::KICK;

#[derive(Clone, Debug)]
pub struct KickAwareNode {
    /// This node's index (source of kickbacks).
    pub node: u32,
    /// Per flow: (connection epoch, one past the largest sequence forwarded).
    forwarded: Vec<Option<(u32, u64)>>,
    pub kicks_answered: u64,
    pub kicks_forwarded: u64,
    pub kickbacks_sent: u64,
}

impl KickAwareNode {
    pub fn new(node: u32) -> Self {
        Self {
            node,
            forwarded: Vec::new(),
            kicks_answered: 0,
            kicks_forwarded: 0,
            kickbacks_sent: 0,
        }
    }

    fn forwarded_end(&self, pkt: &Packet) -> u64 {
        match self.forwarded.get(pkt.flow as usize) {
            Some(Some((epoch, end))) if *epoch == pkt.epoch => *end,
            _ => 0,
        }
    }

    fn record_forwarded(&mut self, pkt: &Packet) {
        let i = pkt.flow as usize;
        if self.forwarded.len() <= i {
            self.forwarded.resize(i + 1, None);
        }
        let end = pkt.end_seq().max(self.forwarded_end(pkt));
        self.forwarded[i] = Some((pkt.epoch, end));
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
        if pkt.end_seq() <= self.forwarded_end(pkt) {
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

    fn data(seq: u64, kick: bool) -> Packet {
        let mut p = Packet {
            kind: PacketKind::TcpData,
            flow: 0,
            epoch: 1,
            src: 0,
            dst: 2,
            seq,
            payload_len: 536,
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

    #[test]
    fn already_forwarded_kick_gets_kickback_and_is_dropped() {
        let mut n = KickAwareNode::new(1);
        let mut out = AgentOutput::default();
        assert_eq!(
            n.on_packet(0, &mut data(0, false), Ingress::Link(0), &mut out),
            AgentVerdict::Pass
        );
        assert!(out.inject.is_empty());
        let mut kick = data(0, true);
        assert_eq!(
            n.on_packet(1, &mut kick, Ingress::Link(0), &mut out),
            AgentVerdict::Drop
        );
        assert_eq!(out.inject.len(), 1);
        let kb = out.inject[0];
        assert!(kb.has_flag(KICK) && kb.has_flag(flags::ACK));
        assert_eq!(
            (kb.kind, kb.src, kb.dst, kb.ack),
            (PacketKind::TcpAck, 1, 0, 536)
        );
        assert_eq!((n.kicks_answered, n.kicks_forwarded), (1, 0));
    }

    #[test]
    fn new_kick_is_forwarded_with_k_cleared_and_ttl_restored_plus_kickback() {
        let mut n = KickAwareNode::new(1);
        let mut out = AgentOutput::default();
        n.on_packet(0, &mut data(0, false), Ingress::Link(0), &mut out);
        let mut kick = data(536, true);
        assert_eq!(
            n.on_packet(1, &mut kick, Ingress::Link(0), &mut out),
            AgentVerdict::Pass
        );
        assert!(!kick.has_flag(KICK));
        assert_eq!(kick.ttl, DEFAULT_TTL);
        assert_eq!(out.inject.len(), 1);
        assert_eq!(out.inject[0].ack, 1072);
        assert_eq!((n.kicks_answered, n.kicks_forwarded), (0, 1));
        // It now counts as forwarded: a second kick of it is answered.
        assert_eq!(
            n.on_packet(2, &mut data(536, true), Ingress::Link(0), &mut out),
            AgentVerdict::Drop
        );
    }
}
