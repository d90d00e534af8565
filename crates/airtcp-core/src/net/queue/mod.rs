//! Queue disciplines at the head of a link direction. A discipline decides,
//! when a packet arrives, whether it joins the queue (possibly ECN-marked) or
//! dies; the link serves admitted packets first-in first-out.

pub mod droptail;
pub mod mecn;
pub mod red;
pub mod wmecn;

use crate::net::packet::{DeathCause, Packet};
use crate::sim::rng::RandomStream;
use crate::sim::TimeNs;

pub use droptail::DropTail;
pub use mecn::{Mecn, MultiLevelConfig};
pub use red::{Red, RedConfig};
pub use wmecn::{NotEctPolicy, Wmecn};

/// Capacity of a queue, in packets or in bytes. Packets waiting count; the
/// one being transmitted does not (as in ns-2's `qlim_`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum QueueLimit {
    Packets(u32),
    Bytes(u64),
}

impl QueueLimit {
    /// Would a packet of `size_bytes` overflow a queue now holding
    /// `len_pkts` packets and `len_bytes` bytes?
    pub fn overflows(self, len_pkts: u32, len_bytes: u64, size_bytes: u32) -> bool {
        match self {
            QueueLimit::Packets(n) => len_pkts >= n,
            QueueLimit::Bytes(n) => len_bytes + size_bytes as u64 > n,
        }
    }
}

/// The queue's occupancy when a packet arrives.
#[derive(Clone, Copy, Debug)]
pub struct QueueOccupancy {
    pub len_pkts: u32,
    pub len_bytes: u64,
    /// If the link is idle with an empty queue: since when.
    pub idle_since_ns: Option<TimeNs>,
}

/// Outcome of offering a packet to a queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admission {
    Enqueue,
    /// Enqueued after setting CE (RFC 3168 §5) instead of an early drop.
    EnqueueMarked,
    Drop(DeathCause),
}

/// A queue discipline. An enum rather than a trait object: it sits on the
/// per-packet path and the set is closed within the crate.
#[derive(Clone, Debug)]
pub enum QueueDiscipline {
    DropTail(DropTail),
    Red(Red),
    /// Multi-level ECN (WMECN paper §2.1).
    Mecn(Mecn),
    /// WMECN marking (WMECN paper §3.1).
    Wmecn(Wmecn),
}

impl QueueDiscipline {
    #[inline]
    pub fn admit(
        &mut self,
        now_ns: TimeNs,
        occ: QueueOccupancy,
        pkt: &mut Packet,
        rng: &mut RandomStream,
    ) -> Admission {
        match self {
            QueueDiscipline::DropTail(q) => q.admit(occ, pkt),
            QueueDiscipline::Red(q) => q.admit(now_ns, occ, pkt, rng),
            QueueDiscipline::Mecn(q) => q.admit(now_ns, occ, pkt, rng),
            QueueDiscipline::Wmecn(q) => q.admit(now_ns, occ, pkt, rng),
        }
    }

    pub fn limit(&self) -> QueueLimit {
        match self {
            QueueDiscipline::DropTail(q) => q.limit,
            QueueDiscipline::Red(q) => q.cfg.limit,
            QueueDiscipline::Mecn(q) => q.core.cfg.limit,
            QueueDiscipline::Wmecn(q) => q.core.cfg.limit,
        }
    }

    /// RED's average queue estimate, if this is RED (or MECN / WMECN,
    /// which average the same way).
    pub fn red_avg(&self) -> Option<f64> {
        match self {
            QueueDiscipline::Red(q) => Some(q.avg),
            QueueDiscipline::Mecn(q) => Some(q.core.avg()),
            QueueDiscipline::Wmecn(q) => Some(q.core.avg()),
            _ => None,
        }
    }
}
