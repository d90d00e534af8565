//! The event queue: a binary min-heap ordered by (time, insertion sequence),
//! so ties break deterministically by the order events were scheduled.

use super::TimeNs;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// What happens at an event. Events carry arena indices, never closures or
/// heap data, so one event is 24 bytes and scheduling never allocates once
/// the heap has grown to its working size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    /// Packet in pool slot `b` arrives at node `a` at the far end of a link.
    Arrive { node: u32, slot: u32 },
    /// Wake-up of flow `flow`'s sender timers (RTO and extension timers).
    SenderTimer { flow: u32 },
    /// Wake-up of flow `flow`'s receiver timers (delayed ACK).
    ReceiverTimer { flow: u32 },
    /// Application event of flow `flow` (start, think time over, UDP on/off).
    App { flow: u32 },
    /// Timer of middlebox agent `agent` on node `node`.
    AgentTimer { node: u32, agent: u32 },
    /// Time-series sampling tick.
    Sample,
    /// A packet held at the entrance of link direction `link` (a stalled
    /// connection) is offered to it now.
    Offer { link: u32, slot: u32 },
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    time_ns: TimeNs,
    seq: u64,
    kind: EventKind,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.time_ns == other.time_ns && self.seq == other.seq
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        // Reversed: BinaryHeap is a max-heap and we want the earliest first.
        other
            .time_ns
            .cmp(&self.time_ns)
            .then_with(|| other.seq.cmp(&self.seq))
    }
}

/// Deterministic discrete-event queue.
#[derive(Default)]
pub struct EventQueue {
    heap: BinaryHeap<Entry>,
    next_seq: u64,
    processed: u64,
}

impl EventQueue {
    pub fn new() -> Self {
        Self::default()
    }

    /// Schedule `kind` at absolute time `time_ns`.
    pub fn schedule(&mut self, time_ns: TimeNs, kind: EventKind) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Entry { time_ns, seq, kind });
    }

    /// Remove and return the earliest event if it is not later than `until_ns`.
    pub fn pop_until(&mut self, until_ns: TimeNs) -> Option<(TimeNs, EventKind)> {
        match self.heap.peek() {
            Some(e) if e.time_ns <= until_ns => {
                let e = self.heap.pop().expect("peeked");
                self.processed += 1;
                Some((e.time_ns, e.kind))
            }
            _ => None,
        }
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Number of events handed out so far.
    pub fn processed(&self) -> u64 {
        self.processed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_break_by_insertion_order() {
        let mut q = EventQueue::new();
        q.schedule(10, EventKind::App { flow: 1 });
        q.schedule(5, EventKind::App { flow: 0 });
        q.schedule(10, EventKind::App { flow: 2 });
        q.schedule(10, EventKind::Sample);
        let order: Vec<_> = std::iter::from_fn(|| q.pop_until(u64::MAX)).collect();
        assert_eq!(
            order,
            vec![
                (5, EventKind::App { flow: 0 }),
                (10, EventKind::App { flow: 1 }),
                (10, EventKind::App { flow: 2 }),
                (10, EventKind::Sample),
            ]
        );
    }

    #[test]
    fn pop_until_respects_horizon() {
        let mut q = EventQueue::new();
        q.schedule(100, EventKind::Sample);
        assert_eq!(q.pop_until(99), None);
        assert_eq!(q.pop_until(100), Some((100, EventKind::Sample)));
    }
}
