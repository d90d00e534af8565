//! The event queue, ordered by (time, insertion sequence): ties break by
//! the order events were scheduled, so a run is a pure function of the
//! scenario and the seed.
//!
//! It is a radix heap with 256-way digits (Ahuja, Mehlhorn, Orlin and
//! Tarjan, "Faster algorithms for the shortest path problem", J. ACM 37(2),
//! 1990; the layered buckets of a hierarchical timing wheel) over time
//! *slots* of 2^16 ns. A discrete-event simulation suits it: every event is
//! scheduled now or later, so the queue only orders events relative to the
//! current slot. An event waits in the bucket of the highest 8-bit digit in
//! which its slot differs from the current one, and moves to a lower level
//! only when its bucket becomes the earliest non-empty one: at most six
//! sequential moves over its life (one or two for a packet crossing a
//! link) instead of a binary heap's log2(n) scattered comparisons per pop.
//! The events of the current slot wait in a short list sorted by (time,
//! seq). It hands out exactly the order of a binary heap on (time, seq);
//! `tests::same_order_as_a_binary_heap` checks that on random schedules.
//! (The `radix-heap` crate has one bucket per bit of a generic key: an
//! event would move up to ~20 times on the way down from a 128-bit key
//! distance, hence this specialised one.)

use super::TimeNs;

/// What happens at an event. Events carry arena indices, never closures or
/// heap data, so a queued event is 32 bytes and scheduling never allocates
/// once the queue has grown to its working size.
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

impl Entry {
    /// The order of events: time, then insertion sequence.
    #[inline]
    fn key(&self) -> u128 {
        (self.time_ns as u128) << 64 | self.seq as u128
    }
}

/// An event's slot: its time in units of 2^SLOT_BITS ns (65.5 us, a few
/// packet transmissions on a 100 Mb/s link).
const SLOT_BITS: u32 = 16;
/// Bits of the slot number per level of buckets: 256 buckets per level
/// (16.8 ms of slots on level 0, 4.3 s on level 1), so that an event
/// scheduled up to seconds ahead moves at most twice before its slot.
const RADIX_BITS: u32 = 8;
const DIGITS: usize = 1 << RADIX_BITS;
const LEVELS: usize = (64 - SLOT_BITS as usize).div_ceil(RADIX_BITS as usize);
const BUCKETS: usize = LEVELS * DIGITS;
const MASK_WORDS: usize = BUCKETS / 64;

/// Deterministic discrete-event queue.
pub struct EventQueue {
    /// The events of the current slot or earlier, latest first: the next
    /// event is the last. They all come before any event in `buckets`.
    near: Vec<Entry>,
    /// `buckets[level * DIGITS + digit]`: the events of slots after
    /// `slot`, by the highest group of `RADIX_BITS` bits (`level`, from
    /// the least significant) in which their slot differs from `slot`,
    /// and their value there (`digit`). Buckets in index order hold ever
    /// later events.
    buckets: Vec<Vec<Entry>>,
    /// Per level, the emptied buffers of drained buckets, the latest
    /// last: a bucket that gets its first event takes one, so the queue
    /// holds room for what is queued, not for the peak of every bucket it
    /// has used (a bucket of a high level is used once every few seconds).
    spare: [Vec<Vec<Entry>>; LEVELS],
    /// Bit `b % 64` of word `b / 64` set if `buckets[b]` is not empty.
    occupied: [u64; MASK_WORDS],
    /// Bit `w` set if `occupied[w]` is not zero.
    occupied_words: u32,
    /// The current slot: that of the last event handed out, or of the
    /// next one if it is already known (`pop_until` stopped at its horizon).
    slot: u64,
    len: usize,
    next_seq: u64,
    processed: u64,
    /// The end of the run: an event after it would never be handed out,
    /// so it is not kept (with many flows in timeouts, retransmission
    /// timers backed off beyond the end).
    horizon_ns: TimeNs,
}

impl Default for EventQueue {
    fn default() -> Self {
        Self {
            near: Vec::new(),
            buckets: (0..BUCKETS).map(|_| Vec::new()).collect(),
            spare: Default::default(),
            occupied: [0; MASK_WORDS],
            occupied_words: 0,
            slot: 0,
            len: 0,
            next_seq: 0,
            processed: 0,
            horizon_ns: TimeNs::MAX,
        }
    }
}

impl EventQueue {
    pub fn new() -> Self {
        Self::default()
    }

    /// A queue for a run that ends at `horizon_ns`: it hands out no event
    /// after that time, and drops any scheduled for later.
    pub fn until(horizon_ns: TimeNs) -> Self {
        Self {
            horizon_ns,
            ..Self::default()
        }
    }

    /// Schedule `kind` at absolute time `time_ns`.
    pub fn schedule(&mut self, time_ns: TimeNs, kind: EventKind) {
        if time_ns > self.horizon_ns {
            return;
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        self.len += 1;
        self.file(Entry { time_ns, seq, kind });
    }

    /// Put `e` in `near` if it falls in the current slot or before it
    /// (the latter never in a simulation: events happen now or later),
    /// else in its bucket.
    #[inline(always)]
    fn file(&mut self, e: Entry) {
        let slot = e.time_ns >> SLOT_BITS;
        if slot <= self.slot {
            // Rare: most events are scheduled beyond the current slot.
            let key = e.key();
            let at = self.near.partition_point(|n| n.key() > key);
            self.near.insert(at, e);
            return;
        }
        let high_bit = 63 - (slot ^ self.slot).leading_zeros();
        let level = high_bit / RADIX_BITS;
        let digit = (slot >> (level * RADIX_BITS)) as usize & (DIGITS - 1);
        let b = level as usize * DIGITS + digit;
        let bucket = &mut self.buckets[b];
        if bucket.capacity() == 0 {
            if let Some(buffer) = self.spare[level as usize].pop() {
                *bucket = buffer;
            }
        }
        bucket.push(e);
        self.occupied[b / 64] |= 1 << (b % 64);
        self.occupied_words |= 1 << (b / 64);
    }

    /// The time of the earliest event (at the top of `near`), if any.
    fn settle(&mut self) -> Option<TimeNs> {
        if self.near.is_empty() {
            if self.occupied_words == 0 {
                return None;
            }
            // The lowest non-empty bucket holds the earliest slot, which
            // becomes the current one: its events go to `near`, the
            // bucket's others to lower buckets (their slots agree with it
            // on every bit of this level and above).
            let w = self.occupied_words.trailing_zeros() as usize;
            let b = w * 64 + self.occupied[w].trailing_zeros() as usize;
            self.occupied[w] &= !(1 << (b % 64));
            if self.occupied[w] == 0 {
                self.occupied_words &= !(1 << w);
            }
            let mut moving = std::mem::take(&mut self.buckets[b]);
            self.slot = moving
                .iter()
                .map(|e| e.time_ns >> SLOT_BITS)
                .min()
                .expect("occupied");
            for e in moving.drain(..) {
                if e.time_ns >> SLOT_BITS == self.slot {
                    self.near.push(e);
                } else {
                    self.file(e);
                }
            }
            self.near
                .sort_unstable_by_key(|e| std::cmp::Reverse(e.key()));
            // Its buffer serves the next bucket of its level to fill.
            self.spare[b / DIGITS].push(moving);
        }
        self.near.last().map(|e| e.time_ns)
    }

    /// The time of the earliest event, if any: what [`Self::pop_until`]
    /// would hand out next. It sorts the earliest bucket into the current
    /// slot as a pop does (which a pop stopped at its horizon has already
    /// done), so it changes no order.
    pub fn next_time_ns(&mut self) -> Option<TimeNs> {
        self.settle()
    }

    /// Remove and return the earliest event if it is not later than `until_ns`.
    pub fn pop_until(&mut self, until_ns: TimeNs) -> Option<(TimeNs, EventKind)> {
        let time_ns = self.settle()?;
        if time_ns > until_ns {
            return None;
        }
        let e = self.near.pop().expect("settled");
        self.len -= 1;
        self.processed += 1;
        Some((e.time_ns, e.kind))
    }

    /// The event `k` places after the next one (0: the next), if it is
    /// already among the current slot's sorted events: a look ahead for
    /// prefetching, which events scheduled meanwhile may overtake.
    #[inline]
    pub fn upcoming(&self, k: usize) -> Option<EventKind> {
        let n = self.near.len();
        (k < n).then(|| self.near[n - 1 - k].kind)
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Number of events handed out so far.
    pub fn processed(&self) -> u64 {
        self.processed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::cmp::Ordering;
    use std::collections::BinaryHeap;

    // The reference order, for `Reference` below.
    impl PartialEq for Entry {
        fn eq(&self, other: &Self) -> bool {
            self.key() == other.key()
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
            other.key().cmp(&self.key())
        }
    }

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

    #[test]
    fn an_event_before_the_one_seen_at_the_horizon_comes_first() {
        let mut q = EventQueue::new();
        q.schedule(100, EventKind::App { flow: 0 });
        assert_eq!(q.pop_until(50), None);
        // Scheduled after the queue saw the event at 100, but earlier.
        q.schedule(60, EventKind::App { flow: 1 });
        q.schedule(60, EventKind::App { flow: 2 });
        q.schedule(100, EventKind::App { flow: 3 });
        let order: Vec<_> = std::iter::from_fn(|| q.pop_until(u64::MAX)).collect();
        assert_eq!(
            order,
            vec![
                (60, EventKind::App { flow: 1 }),
                (60, EventKind::App { flow: 2 }),
                (100, EventKind::App { flow: 0 }),
                (100, EventKind::App { flow: 3 }),
            ]
        );
        assert!(q.is_empty());
    }

    /// The next event's time, read between pops (the fuzz harness steps
    /// over quiet stretches with it): what the next pop hands out, and
    /// reading it changes no order, even with an earlier event scheduled
    /// after it was read.
    #[test]
    fn the_next_time_is_the_next_pop_and_changes_no_order() {
        let mut q = EventQueue::new();
        assert_eq!(q.next_time_ns(), None);
        q.schedule(7_000_000_000, EventKind::App { flow: 0 });
        q.schedule(3, EventKind::App { flow: 1 });
        assert_eq!(q.next_time_ns(), Some(3));
        assert_eq!(q.pop_until(10), Some((3, EventKind::App { flow: 1 })));
        assert_eq!(q.next_time_ns(), Some(7_000_000_000));
        assert_eq!(q.next_time_ns(), Some(7_000_000_000));
        q.schedule(5_000_000_000, EventKind::App { flow: 2 });
        assert_eq!(q.next_time_ns(), Some(5_000_000_000));
        let order: Vec<_> = std::iter::from_fn(|| q.pop_until(u64::MAX)).collect();
        assert_eq!(
            order,
            vec![
                (5_000_000_000, EventKind::App { flow: 2 }),
                (7_000_000_000, EventKind::App { flow: 0 }),
            ]
        );
        assert_eq!(q.next_time_ns(), None);
        assert_eq!(q.processed(), 3);
    }

    /// A run's queue keeps nothing it would never hand out: an event at
    /// the end of the run comes out, later ones are dropped (and not
    /// counted as queued).
    #[test]
    fn events_after_the_end_of_the_run_are_not_kept() {
        let mut q = EventQueue::until(1_000);
        q.schedule(1_000, EventKind::App { flow: 0 });
        q.schedule(1_001, EventKind::App { flow: 1 });
        q.schedule(5_000_000_000, EventKind::App { flow: 2 });
        assert_eq!(q.len(), 1);
        assert_eq!(
            q.pop_until(u64::MAX),
            Some((1_000, EventKind::App { flow: 0 }))
        );
        assert_eq!(q.pop_until(u64::MAX), None);
        assert!(q.is_empty());
    }

    /// Entries the queue has room for, in its buckets, spare buffers and
    /// current slot.
    fn buffered_entries(q: &EventQueue) -> usize {
        q.buckets.iter().map(Vec::capacity).sum::<usize>()
            + q.spare.iter().flatten().map(Vec::capacity).sum::<usize>()
            + q.near.capacity()
    }

    /// Bursts of events, each a few seconds ahead in a different level-1
    /// bucket (as a large run's retransmission timers are): the buffer of
    /// a drained bucket serves the next, so the queue holds room for about
    /// one burst, not one per bucket it has used.
    #[test]
    fn drained_buckets_lend_their_room_to_the_next() {
        const BURST: u64 = 1_000;
        let mut q = EventQueue::new();
        let mut now = 0;
        for round in 0..100u64 {
            // A different level-1 digit each round: 2^24 ns apart.
            let at = now + (1 + round) * (1 << (SLOT_BITS + RADIX_BITS));
            for i in 0..BURST {
                q.schedule(at + i, EventKind::App { flow: i as u32 });
            }
            while let Some((t, _)) = q.pop_until(u64::MAX) {
                now = t;
            }
        }
        let room = buffered_entries(&q);
        assert!(room <= 4 * BURST as usize, "room for {room} entries");
    }

    /// The order the queue must reproduce: a binary heap on (time, seq),
    /// the event queue airtcp had before the radix heap.
    #[derive(Default)]
    struct Reference {
        heap: BinaryHeap<Entry>,
        next_seq: u64,
    }

    impl Reference {
        fn schedule(&mut self, time_ns: TimeNs, kind: EventKind) {
            let seq = self.next_seq;
            self.next_seq += 1;
            self.heap.push(Entry { time_ns, seq, kind });
        }

        fn pop_until(&mut self, until_ns: TimeNs) -> Option<(TimeNs, EventKind)> {
            match self.heap.peek() {
                Some(e) if e.time_ns <= until_ns => self.heap.pop().map(|e| (e.time_ns, e.kind)),
                _ => None,
            }
        }
    }

    /// One step of a random schedule: schedule an event `delay` after the
    /// current time (or, rarely, before it), or pop up to a horizon.
    #[derive(Clone, Debug)]
    enum Step {
        Schedule { delay: u64, before_now: bool },
        Pop { horizon: u64 },
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            // Delays from ties (0) to seconds, as a simulation's are.
            5 => prop_oneof![Just(0u64), 0u64..4, 0u64..1_000, 0u64..2_000_000_000]
                .prop_flat_map(|delay| (Just(delay), prop::bool::weighted(0.05)))
                .prop_map(|(delay, before_now)| Step::Schedule { delay, before_now }),
            4 => prop_oneof![Just(0u64), 0u64..1_000, 0u64..u64::MAX / 4]
                .prop_map(|horizon| Step::Pop { horizon }),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// Same events in the same order as the binary heap, ties by
        /// insertion order, with events scheduled at the current time,
        /// later, and earlier (after a pop stopped at its horizon).
        #[test]
        fn same_order_as_a_binary_heap(steps in prop::collection::vec(step(), 1..400)) {
            let mut q = EventQueue::new();
            let mut r = Reference::default();
            let mut now = 0u64;
            for (i, s) in steps.iter().enumerate() {
                let kind = EventKind::App { flow: i as u32 };
                match *s {
                    Step::Schedule { delay, before_now } => {
                        let t = if before_now { now.saturating_sub(delay) } else { now + delay };
                        q.schedule(t, kind);
                        r.schedule(t, kind);
                    }
                    Step::Pop { horizon } => {
                        let until = now.saturating_add(horizon);
                        loop {
                            // The look ahead for prefetching names exactly
                            // the events the next pops hand out.
                            let mut next = r.heap.clone();
                            for k in 0..4 {
                                if let Some(ahead) = q.upcoming(k) {
                                    prop_assert_eq!(Some(ahead), next.pop().map(|e| e.kind));
                                }
                            }
                            let (a, b) = (q.pop_until(until), r.pop_until(until));
                            prop_assert_eq!(a, b);
                            match a {
                                Some((t, _)) => now = now.max(t),
                                None => break,
                            }
                        }
                    }
                }
                prop_assert_eq!(q.len(), r.heap.len());
            }
            loop {
                let (a, b) = (q.pop_until(u64::MAX), r.pop_until(u64::MAX));
                prop_assert_eq!(a, b);
                if a.is_none() {
                    break;
                }
            }
        }
    }
}
