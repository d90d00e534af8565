//! DropTail: admit until the limit, then drop arrivals.

use super::{Admission, QueueLimit, QueueOccupancy};
use crate::net::packet::{DeathCause, Packet};

#[derive(Clone, Debug)]
pub struct DropTail {
    pub limit: QueueLimit,
}

impl DropTail {
    pub fn new(limit: QueueLimit) -> Self {
        Self { limit }
    }

    #[inline]
    pub fn admit(&mut self, occ: QueueOccupancy, pkt: &Packet) -> Admission {
        if self
            .limit
            .overflows(occ.len_pkts, occ.len_bytes, pkt.wire_bytes())
        {
            Admission::Drop(DeathCause::QueueOverflow)
        } else {
            Admission::Enqueue
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::PacketKind;

    fn occ(p: u32, b: u64) -> QueueOccupancy {
        QueueOccupancy {
            len_pkts: p,
            len_bytes: b,
            idle_since_ns: None,
        }
    }

    #[test]
    fn packet_limit() {
        let mut q = DropTail::new(QueueLimit::Packets(2));
        let pkt = Packet {
            kind: PacketKind::TcpData,
            payload_len: 960,
            ..Default::default()
        };
        assert_eq!(q.admit(occ(1, 1000), &pkt), Admission::Enqueue);
        assert_eq!(
            q.admit(occ(2, 2000), &pkt),
            Admission::Drop(DeathCause::QueueOverflow)
        );
    }

    #[test]
    fn byte_limit() {
        let mut q = DropTail::new(QueueLimit::Bytes(2500));
        let pkt = Packet {
            kind: PacketKind::TcpData,
            payload_len: 960,
            ..Default::default()
        };
        assert_eq!(q.admit(occ(1, 1000), &pkt), Admission::Enqueue);
        assert_eq!(
            q.admit(occ(2, 2000), &pkt),
            Admission::Drop(DeathCause::QueueOverflow)
        );
    }
}
