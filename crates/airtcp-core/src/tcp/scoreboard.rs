//! The sender's record of every segment between snd_una and snd_max: its
//! boundaries, SACK state, loss marks and retransmissions. It is the RFC 6675
//! scoreboard for SACK senders and the retransmission queue for all.
//!
//! What the RFCs define by a scan of the scoreboard is kept up to date
//! instead, so that no ACK or retransmission costs a pass over the window
//! (over a recovery of n segments, n^2): SetPipe (RFC 6675 §4) as two
//! sums, NextSeg rule (1) from the sets of lost segments
//! ([`SegmentSets`]), Update()'s SACK blocks (RFC 2018, RFC 6675 §5)
//! from the set of unSACKed segments blocks have reached, RACK's step 5
//! (RFC 8985 §6.2) from an index in transmission order, and IsLost from
//! how far down it has marked. Each keeps its scan or walk as the reading
//! it must equal (`*_by_scan`, `*_by_walk`): tests compare them after
//! random changes, and debug builds on short scoreboards.

use std::collections::{BTreeSet, VecDeque};

use crate::net::packet::SackBlock;
use crate::sim::TimeNs;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SegmentRecord {
    pub start: u64,
    pub end: u64,
    /// Covered by a SACK block (RFC 2018).
    pub sacked: bool,
    /// Deemed lost (RFC 6675 IsLost, or everything after a timeout).
    pub lost: bool,
    /// Retransmitted at least once.
    pub retransmitted: bool,
    /// RACK (RFC 8985 §6.2 step 5) deemed the latest transmission lost:
    /// retransmit it whatever HighRxt (a lost retransmission included), and
    /// count no retransmission of it in pipe until it is sent again.
    pub rack_lost: bool,
    pub transmissions: u32,
    pub last_sent_ns: TimeNs,
}

impl SegmentRecord {
    pub fn len(&self) -> u64 {
        self.end - self.start
    }
    pub fn is_empty(&self) -> bool {
        self.end == self.start
    }
}

/// Outstanding segments in sequence order.
#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    segs: VecDeque<SegmentRecord>,
    /// Highest sequence number covered by any SACK block seen (end, exclusive).
    pub highest_sacked_end: u64,
    sacked_bytes: u64,
    /// RACK.segs_sacked (RFC 8985 §5.2): segments SACKed and not yet
    /// cumulatively acknowledged.
    sacked_segments: u32,
    /// What RACK reads, kept only for RACK ([`Self::track_for_rack`]);
    /// boxed so that a sender carries a pointer: a flow's record has no
    /// byte to spare (34 cache lines, `world/flows.rs`).
    rack: Option<Box<RackRecords>>,
    /// The loss marks' count, the lost segments and the unSACKed segments
    /// SACK blocks have reached, in sequence order: made at the first loss
    /// mark or the first SACK block that covers a segment; until then no
    /// segment is lost and none SACKed. Boxed: a flow's record has no byte
    /// to spare (`world/flows.rs`), and a flow that never loses a segment
    /// and never sees a SACK block never needs it.
    sets: Option<Box<SegmentSets>>,
    /// RFC 6675 HighRxt: the highest sequence number retransmitted in
    /// NextSeg order ([`Self::set_high_rxt`]). The scoreboard keeps it
    /// because SetPipe counts retransmissions below it.
    high_rxt: u64,
    /// RFC 6675 SetPipe kept up to date instead of scanned for (a scan per
    /// ACK and per retransmission made a recovery over n segments cost
    /// n^2): the bytes of unSACKed segments not deemed lost, counted once
    /// each ([`pipe_terms`]).
    pipe_once_bytes: u64,
    /// The bytes of unSACKed segments retransmitted (and not found lost
    /// again by RACK) that start below HighRxt: counted a second time.
    pipe_resent_bytes: u64,
}

/// Sets of segments kept as segments are sent, marked lost, SACKed,
/// retransmitted and acknowledged, so that what the RFCs find by a scan
/// from the first segment is a look-up:
///
/// - NextSeg rule (1) (RFC 6675 §4, with RFC 8985 §6.2 step 5's marks),
///   from the lost segments, and not a scan per retransmission (which
///   made a recovery over n segments cost n^2, as SetPipe's scan did).
///   The scans [`Scoreboard::next_lost_segment_by_scan`] and
///   [`Scoreboard::next_lost_segment_any_by_scan`] are the RFCs' reading;
///   the look-ups equal them ([`Scoreboard::lost_index_is_the_scan`]).
/// - RFC 6675 §5 Update() (RFC 2018's blocks), from the unSACKed
///   segments: a block SACKs the unSACKed segments wholly inside it, and
///   a walk over every segment it covers crossed those SACKed by earlier
///   ACKs again, while a receiver's block grows by a segment an ACK in a
///   recovery: n^2 over n segments (9.7% of the instructions of 100
///   CUBIC+RACK flows, `examples/event_cost.rs 100 5 cubic-rack`). The
///   walk [`Scoreboard::apply_sack_by_walk`] is the reading; the look-ups
///   give the same ([`Scoreboard::sack_index_is_the_scan`]).
///
/// Each set is a bit per segment ([`OrdinalBits`]), named by its
/// ordinal: its position plus the segments cumulatively acknowledged
/// since this record was made (`front`). A segment keeps its ordinal
/// while it is outstanding: segments are never split or merged, and a
/// partial ACK that trims the first one changes its start, not its
/// ordinal. A change to a segment flips a bit or two and a look-up gives
/// a position, where ordered sets of starts cost a B-tree insertion and
/// removal per change (a retransmission took a segment out and put it
/// back) and a search from start to position per look-up: with 100
/// CUBIC+RACK flows, 23% of the instructions, and 1,141 M instructions
/// against 936 M.
#[derive(Clone, Debug, Default)]
struct SegmentSets {
    /// Loss marks ever made (a segment deemed lost, or a lost
    /// retransmission RACK marks again): a count that only grows, so that
    /// an ACK's loss detection can be told to have found a new loss
    /// (RFC 9937's SafeACK).
    loss_marks: u64,
    /// Every unSACKed segment starting below this sequence number is
    /// deemed lost: RFC 6675's IsLost holds for all segments below one it
    /// holds for (more SACKed data lies above them), so each ACK need only
    /// look above it ([`Scoreboard::update_loss_marks`]).
    marked_below_seq: u64,
    /// The ordinal of the first outstanding segment: the segments
    /// cumulatively acknowledged since this record was made.
    front: u64,
    /// The unSACKed segments deemed lost ([`in_lost`]).
    lost: OrdinalBits,
    /// The unSACKed segments whose latest transmission RACK deemed lost
    /// (RFC 8985 §6.2 step 5), sent again whatever HighRxt
    /// ([`in_rack_lost`]).
    rack_lost: OrdinalBits,
    /// The unSACKed segments below ordinal `reached`: those a SACK block
    /// may still SACK. A segment joins when the first block reaches past
    /// it, not when it is sent, so that a flow pays nothing per segment
    /// until it sees SACK blocks, and then once per segment a block
    /// reaches (the blocks of a recovery reach the segments sent since
    /// the loss, once; [`Scoreboard::sack_wholly_inside`]).
    unsacked: OrdinalBits,
    /// The ordinal of the first segment no SACK block has reached since
    /// this record was made or last [`Self::reindex`]ed: segments at and
    /// above it are in no SACK set, whatever their state, and are read
    /// one by one when a block first reaches them.
    reached: u64,
}

/// Is `s` one of [`SegmentSets::lost`]: unSACKed and deemed lost?
fn in_lost(s: &SegmentRecord) -> bool {
    !s.sacked && s.lost
}

/// Is `s` one of [`SegmentSets::rack_lost`]: unSACKed and its latest
/// transmission deemed lost by RACK?
fn in_rack_lost(s: &SegmentRecord) -> bool {
    !s.sacked && s.rack_lost
}

impl SegmentSets {
    /// The segment at position `pos` changed from `was` to `now` (it is
    /// still outstanding): flip its bits where its membership changed.
    fn note(&mut self, pos: usize, was: &SegmentRecord, now: &SegmentRecord) {
        if in_lost(was) != in_lost(now) {
            self.lost.assign(self.front, pos, in_lost(now));
        }
        if in_rack_lost(was) != in_rack_lost(now) {
            self.rack_lost.assign(self.front, pos, in_rack_lost(now));
        }
        if was.sacked != now.sacked && self.is_reached(pos) {
            self.unsacked.assign(self.front, pos, !now.sacked);
        }
    }

    /// The segment at position `pos`, `s`, is cumulatively acknowledged:
    /// out of every set that holds it.
    #[inline]
    fn forget(&mut self, pos: usize, s: &SegmentRecord) {
        if in_lost(s) {
            // (RACK's marks are lost segments too.)
            self.lost.assign(self.front, pos, false);
            self.rack_lost.assign(self.front, pos, false);
        }
        if !s.sacked && self.is_reached(pos) {
            self.unsacked.assign(self.front, pos, false);
        }
    }

    /// The position of the first segment no SACK block has reached
    /// ([`Self::reached`]).
    fn reached_position(&self) -> usize {
        usize::try_from(self.reached.saturating_sub(self.front)).unwrap_or(usize::MAX)
    }

    /// Has a SACK block reached the segment at position `pos`?
    fn is_reached(&self, pos: usize) -> bool {
        pos < self.reached_position()
    }

    /// Index every segment afresh (after a change to all of them).
    /// IsLost's frontier starts again from the first segment: an unSACKed
    /// segment below it may no longer be lost (a spurious timeout's
    /// unmarking) or may be unSACKed anew (reneging); and no segment is
    /// reached by a SACK block any more, so that the next blocks read
    /// the segments again as they reach them.
    fn reindex<'a>(&mut self, segs: impl ExactSizeIterator<Item = &'a SegmentRecord>) {
        self.marked_below_seq = 0;
        self.lost.reset(segs.len());
        self.rack_lost.reset(segs.len());
        self.unsacked.reset(segs.len());
        self.reached = self.front;
        for (pos, s) in segs.enumerate() {
            if in_lost(s) {
                self.lost.assign(self.front, pos, true);
            }
            if in_rack_lost(s) {
                self.rack_lost.assign(self.front, pos, true);
            }
        }
    }

    /// The position of the first segment in `set` at or after position
    /// `from`.
    #[inline(always)]
    fn first_in(&self, set: &OrdinalBits, from: usize) -> Option<usize> {
        set.first_at_or_after(self.front, from)
    }
}

/// Outstanding segments as a set of bits, one per segment: the segment
/// at position `pos`, with `front` the first one's ordinal
/// ([`SegmentSets::front`]), is the bit at slot `(front + pos) mod
/// capacity`. The capacity, a power of two, exceeds the position of
/// every segment in the set, so that the slots of the members are
/// distinct and a slot tells its member's position; a segment's slot
/// stays while segments before it are acknowledged (positions only fall).
///
/// Levels make a look-up logarithmic: each word of a level above the
/// first has a bit per word below, set while that word is not zero, and
/// the last level is one word (two levels up to 4,096 slots, three up to
/// 262,144). A change flips at most a bit per level; a look-up climbs and
/// descends the levels at most twice (once more where the search wraps
/// from the last slot to the first). The capacity grows (at least
/// doubling) when a segment at a position at or past it joins the set,
/// to the next power of two: it is never more than the longest
/// scoreboard's length rounded up to a power of two, or 64; growing moves
/// each member once, so its cost over a connection is linear in that
/// length. No step is ever a pass over the segments but a
/// whole-scoreboard change's ([`SegmentSets::reindex`]), and nothing is
/// left stale to be skipped later: a set holds its members and no more.
#[derive(Clone, Debug, Default)]
struct OrdinalBits {
    /// The levels, the slots' own first: empty until the first bit is
    /// set.
    levels: Vec<Vec<u64>>,
}

impl OrdinalBits {
    /// Slots: a power of two, at least 64 (or none before the first bit).
    fn capacity(&self) -> usize {
        self.levels.first().map_or(0, |w| w.len() * 64)
    }

    /// No member: the top level's one word is clear.
    fn is_empty(&self) -> bool {
        self.levels.last().is_none_or(|top| top[0] == 0)
    }

    /// The slot of the segment at `pos` (`pos` below the capacity).
    fn slot(&self, front: u64, pos: usize) -> usize {
        (front as usize).wrapping_add(pos) & (self.capacity() - 1)
    }

    /// Put the segment at `pos` in the set (`member`) or take it out.
    fn assign(&mut self, front: u64, pos: usize, member: bool) {
        if member {
            if pos >= self.capacity() {
                self.grow(front, pos + 1);
            }
            let mut i = self.slot(front, pos);
            for words in &mut self.levels {
                let w = &mut words[i / 64];
                let was = *w;
                *w |= 1 << (i % 64);
                if was != 0 {
                    break;
                }
                i /= 64;
            }
        } else if pos < self.capacity() {
            // (At or past the capacity no member can be.)
            let mut i = self.slot(front, pos);
            for words in &mut self.levels {
                let w = &mut words[i / 64];
                *w &= !(1 << (i % 64));
                if *w != 0 {
                    break;
                }
                i /= 64;
            }
        }
    }

    /// The first set slot at or after `slot`, not wrapping: up the levels
    /// to the first word with a set bit at or after the place, then down.
    fn next_set(&self, slot: usize) -> Option<usize> {
        let mut i = slot;
        let mut level = 0;
        loop {
            let words = &self.levels[level];
            let w = i / 64;
            let bits = words.get(w)? & (!0u64 << (i % 64));
            if bits != 0 {
                i = w * 64 + bits.trailing_zeros() as usize;
                break;
            }
            // Nothing more in this word: the words after it, one level up.
            level += 1;
            if level == self.levels.len() {
                return None;
            }
            i = w + 1;
        }
        while level > 0 {
            level -= 1;
            i = i * 64 + self.levels[level][i].trailing_zeros() as usize;
        }
        Some(i)
    }

    /// The position of the first member at or after position `from`: the
    /// first set slot in slot order from `from`'s round to the slot
    /// before it. Members lie at positions below the capacity, so a slot
    /// reached past the capacity's positions (the search wrapped) holds
    /// one before `from`.
    #[inline(always)]
    fn first_at_or_after(&self, front: u64, from: usize) -> Option<usize> {
        let cap = self.capacity();
        if from >= cap || self.is_empty() {
            return None;
        }
        let start = self.slot(front, from);
        let slot = self.next_set(start).or_else(|| self.next_set(0))?;
        let pos = from + (slot.wrapping_sub(start) & (cap - 1));
        (pos < cap).then_some(pos)
    }

    /// Make room for the positions below `need` (past the capacity, a
    /// power of two, so that the new one is at least twice it), and put
    /// each member in its new slot.
    #[cold]
    #[inline(never)]
    fn grow(&mut self, front: u64, need: usize) {
        let old = std::mem::take(self);
        let cap = need.next_power_of_two().max(64);
        let mut words = cap / 64;
        loop {
            self.levels.push(vec![0; words]);
            if words == 1 {
                break;
            }
            words = words.div_ceil(64);
        }
        for pos in old.members(front) {
            self.assign(front, pos, true);
        }
    }

    /// Empty the set for a scoreboard of `len` segments: the bits
    /// cleared, or dropped if they are more than twice what `len` needs
    /// (so that clearing costs no more than the scoreboard's pass).
    fn reset(&mut self, len: usize) {
        if self.capacity() > 2 * len.next_power_of_two().max(64) {
            self.levels = Vec::new();
        } else {
            for words in &mut self.levels {
                words.fill(0);
            }
        }
    }

    /// The members' positions, in order.
    fn members(&self, front: u64) -> Vec<usize> {
        let Some(slots) = self.levels.first() else {
            return Vec::new();
        };
        let mask = self.capacity() - 1;
        let mut found = Vec::new();
        for (w, &word) in slots.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                let slot = w * 64 + bits.trailing_zeros() as usize;
                found.push(slot.wrapping_sub(front as usize) & mask);
                bits &= bits - 1;
            }
        }
        found.sort_unstable();
        found
    }

    /// The levels' shape and summaries hold: a power-of-two capacity of
    /// 64 or more (or none), each level a word per 64 words below it (one
    /// at the top), and each bit above a level set exactly while its word
    /// is not zero.
    #[cfg(any(test, debug_assertions))]
    fn is_well_formed(&self) -> bool {
        let cap = self.capacity();
        if self.levels.is_empty() {
            return true;
        }
        let shaped = cap.is_power_of_two()
            && self.levels.last().is_some_and(|w| w.len() == 1)
            && self
                .levels
                .windows(2)
                .all(|l| l[1].len() == l[0].len().div_ceil(64) && l[0].len() > 1);
        shaped
            && self.levels.windows(2).all(|l| {
                l[0].iter()
                    .enumerate()
                    .all(|(i, &w)| (l[1][i / 64] >> (i % 64) & 1 == 1) == (w != 0))
                    && l[1].iter().enumerate().all(|(j, &w)| {
                        // No summary bit for a word that does not exist.
                        (0..64).all(|b| w >> b & 1 == 0 || j * 64 + b < l[0].len())
                    })
            })
    }
}

/// RFC 8985 RACK_sent_after(t1, seq1, t2, seq2) (§6.2): sent later, or
/// at the same time with a higher end.
pub fn sent_after(t1: TimeNs, end1: u64, t2: TimeNs, end2: u64) -> bool {
    t1 > t2 || (t1 == t2 && end1 > end2)
}

/// What RFC 8985 §6.2 step 5 compares each segment with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RackStep5 {
    /// RACK.xmit_ts and RACK.end_seq: the latest transmission delivered.
    pub xmit_ts_ns: TimeNs,
    pub end_seq: u64,
    /// RACK.rtt + RACK.reo_wnd: how long a segment sent before it is
    /// given before it is deemed lost.
    pub wait_ns: TimeNs,
    pub now_ns: TimeNs,
}

impl RackStep5 {
    /// RACK_sent_after(RACK, segment): the segment's latest transmission
    /// was sent before the one RACK records. The index keeps (time, end)
    /// in this order.
    fn sent_before(&self, s: &SegmentRecord) -> bool {
        sent_after(self.xmit_ts_ns, self.end_seq, s.last_sent_ns, s.end)
    }

    /// When a segment last sent at `sent_ns` is deemed lost.
    fn deadline(&self, sent_ns: TimeNs) -> TimeNs {
        sent_ns + self.wait_ns
    }
}

/// The fewest segments over which RACK's step 5 keeps its index rather
/// than walking ([`RackRecords::indexed`]).
const RACK_INDEX_MIN_SEGMENTS: usize = 32;

/// The stale entries RACK's index may hold beyond one per segment before
/// it is compacted ([`RackRecords::by_send_time`]): with at most one live
/// entry per segment, an index longer than twice the segments plus this
/// is more than half stale, so that a compaction, a pass over the index,
/// frees at least as many entries as it keeps (amortised, a constant per
/// entry ever added), and the index never holds more than about twice
/// the longest scoreboard.
const RACK_INDEX_STALE_SLACK: usize = 32;

/// The fewest segments over which a scoreboard takes SACK blocks by its
/// look-ups ([`Scoreboard::apply_sack`]) rather than by the walk over the
/// segments each block covers: over fewer, a block covers a few segments
/// and the walk costs less than the searches and look-ups (100 CUBIC+RACK
/// flows sharing 100 Mb/s gain 3% of their instructions by the look-ups
/// and 1,000 lost 1.2% by them; with this bound the 1,000 flows walk).
const SACK_LOOK_UP_MIN_SEGMENTS: usize = 32;

/// A transmission as RFC 8985 §6.2 orders them (RACK_sent_after, see
/// [`sent_after`]): (latest transmission time, end sequence), compared
/// as a tuple.
type SentKey = (TimeNs, u64);

/// Does RACK's step 5 read the segment (unSACKed, not deemed lost by
/// RACK)? Its index holds an entry for each of these.
fn read_by_step5(s: &SegmentRecord) -> bool {
    !s.sacked && !s.rack_lost
}

/// Where the segment whose `edge` (its start or its end) is `seq` lies if
/// every segment is as long as the first (None if `seq` is below the
/// first's edge). Segments are contiguous and never empty and most are
/// as long as the first, so the searches below try this position first
/// (a record or two read, where a binary search reads several, each out
/// of cache with many flows).
fn length_guess(
    segs: &VecDeque<SegmentRecord>,
    seq: u64,
    edge: impl Fn(&SegmentRecord) -> u64,
) -> Option<usize> {
    let front = segs.front()?;
    let from = seq.checked_sub(edge(front))?;
    Some(usize::try_from(from / front.len().max(1)).unwrap_or(usize::MAX))
}

/// The position in `segs` of the segment whose `edge` (its start or its
/// end) is `seq`.
fn position_where(
    segs: &VecDeque<SegmentRecord>,
    seq: u64,
    edge: impl Fn(&SegmentRecord) -> u64,
) -> Option<usize> {
    let guess = length_guess(segs, seq, &edge)?;
    if segs.get(guess).is_some_and(|s| edge(s) == seq) {
        return Some(guess);
    }
    segs.binary_search_by(|s| edge(s).cmp(&seq)).ok()
}

/// The position of the first segment starting at or above `seq` (the
/// number of segments starting below it).
fn first_starting_at_or_above(segs: &VecDeque<SegmentRecord>, seq: u64) -> usize {
    let starts_below = |i: usize| segs.get(i).is_some_and(|s| s.start < seq);
    if !starts_below(0) {
        // No segment, or `seq` at or below the first one's start.
        return 0;
    }
    let guess = length_guess(segs, seq, |s| s.start)
        .unwrap_or(0)
        .clamp(1, segs.len());
    if starts_below(guess - 1) && !starts_below(guess) {
        return guess;
    }
    segs.partition_point(|s| s.start < seq)
}

/// The keys of the segments RACK's step 5 reads, in sequence order.
fn step5_keys(segs: &VecDeque<SegmentRecord>) -> impl Iterator<Item = SentKey> + '_ {
    segs.iter()
        .filter(|s| read_by_step5(s))
        .map(|s| (s.last_sent_ns, s.end))
}

/// The position of the segment an index entry names, if the entry is
/// live: the segment is still outstanding, read by step 5, and its latest
/// transmission is the one the entry records.
fn live_position(segs: &VecDeque<SegmentRecord>, (sent_ns, end): SentKey) -> Option<usize> {
    position_where(segs, end, |s| s.end)
        .filter(|&i| read_by_step5(&segs[i]) && segs[i].last_sent_ns == sent_ns)
}

/// The records RACK (RFC 8985) reads besides the segments themselves.
#[derive(Clone, Debug, Default)]
struct RackRecords {
    /// The segments the ACK being processed SACKed or cumulatively
    /// acknowledged for the first time (cleared by `begin_ack`): §6.2
    /// steps 2-3.
    delivered: Vec<SegmentRecord>,
    /// While `indexed`: RFC 8985 §6.2 step 5's segments, every unSACKed
    /// segment RACK has not deemed lost, as (latest transmission time,
    /// end) in the order §6.2 compares transmissions (RACK_sent_after:
    /// time, then end sequence), so that step 5 reads only the segments
    /// sent before RACK.xmit_ts and stops at the first not yet expired,
    /// as Linux's time-sorted list does. A walk from the first segment
    /// crosses every SACKed segment and every hole, per ACK: n^2 over a
    /// recovery.
    ///
    /// A sorted deque with lazy deletion rather than an ordered set: a
    /// transmission's time is the clock's, which never goes back, so
    /// nearly every entry is added at the back, a push into a reused
    /// buffer (a B-tree's insertion and later removal per packet made 100
    /// CUBIC+RACK flows, `examples/event_cost.rs 100 5 cubic-rack`, cost
    /// 1,328 M instructions against 1,163 M). Only a tie at the back's
    /// nanosecond that RACK_sent_after orders by end sequence before the
    /// back (a retransmission sent after higher data in the same instant)
    /// goes to [`Self::out_of_order`] instead. An entry is never
    /// taken out when its segment is SACKed, acknowledged, deemed lost or
    /// sent again: it is live only while [`live_position`] finds its
    /// segment read by step 5 with that latest transmission, and stale
    /// entries are dropped where step 5 meets them (at the front, and
    /// between the last live entry sent before RACK.xmit_ts and
    /// RACK.xmit_ts) or by a compaction once they could be the majority
    /// ([`RACK_INDEX_STALE_SLACK`]). Entries are distinct, here and in
    /// `out_of_order` together, so that a segment has at most one live
    /// entry.
    by_send_time: VecDeque<SentKey>,
    /// The entries that did not sort after the back of `by_send_time`
    /// when they were added (ties at one nanosecond, rare), with the same
    /// lazy deletion: kept apart in an ordered set, so that a burst of
    /// them costs a logarithm each, not a search and a move through the
    /// deque (a fuzz input that sent thousands of segments in one
    /// nanosecond, then retransmissions in it, spent 4 s inserting them
    /// into the deque). Step 5 reads both in RACK_sent_after order.
    out_of_order: BTreeSet<SentKey>,
    /// The index is made at a SACK block, in a scoreboard of at least
    /// [`RACK_INDEX_MIN_SEGMENTS`], and kept until the cumulative ACK
    /// leaves no SACKed segment; a change to every segment (a spurious
    /// timeout's unmarking, reneging) drops it, and the next SACK block
    /// makes it again. Without SACKed segments the walk crosses few
    /// segments step 5 does not read, and keeping the index would cost
    /// every packet of a loss-free flow an entry; over a short
    /// scoreboard the walk is cheaper than making the index (with 1,000
    /// flows sharing 100 Mb/s, a B-tree index per loss cost 7% more
    /// instructions per event than the walk).
    indexed: bool,
}

impl RackRecords {
    /// The segment `was` became `rec` (`segs` holds `rec`): index its
    /// new transmission if step 5 reads it and did not read that one
    /// already. What step 5 no longer reads is left to go stale.
    fn note_change(
        &mut self,
        was: &SegmentRecord,
        rec: &SegmentRecord,
        segs: &VecDeque<SegmentRecord>,
    ) {
        let kept = read_by_step5(was) && was.last_sent_ns == rec.last_sent_ns;
        if self.indexed && read_by_step5(rec) && !kept {
            self.add((rec.last_sent_ns, rec.end), segs);
        }
    }

    /// Index a transmission step 5 reads, while `indexed` (`segs` holds
    /// its segment as it now is), where RACK_sent_after puts it (almost
    /// always at the back), and compact the index if it is due.
    fn add(&mut self, key: SentKey, segs: &VecDeque<SegmentRecord>) {
        self.insert_sorted(key);
        self.reclaim_stale(segs);
    }

    /// [`Self::add`] without the compaction. Not inlined: only a sender
    /// whose index is kept calls it, and the code every sender inlines
    /// stays small.
    #[inline(never)]
    fn insert_sorted(&mut self, key: SentKey) {
        let q = &mut self.by_send_time;
        if q.back().is_none_or(|&last| last < key) {
            q.push_back(key);
        } else {
            self.add_before_back(key);
        }
    }

    /// [`Self::insert_sorted`] for a transmission that does not sort
    /// after the back: one that ties with the back's nanosecond and has a
    /// lower end, kept in `out_of_order`; or one whose entry is already
    /// there (a segment deemed lost and sent again in the nanosecond of
    /// its last transmission: the entry, stale while the segment was
    /// lost, is live again, and a second one would give the segment
    /// two). Rare, so kept out of line.
    #[cold]
    #[inline(never)]
    fn add_before_back(&mut self, key: SentKey) {
        if self.by_send_time.binary_search(&key).is_err() {
            self.out_of_order.insert(key);
        }
    }

    /// The first entry in RACK_sent_after order, and whether it is in
    /// `out_of_order`.
    fn oldest(&self) -> Option<(SentKey, bool)> {
        match (self.by_send_time.front(), self.out_of_order.first()) {
            (Some(&d), Some(&o)) if o < d => Some((o, true)),
            (Some(&d), _) => Some((d, false)),
            (None, Some(&o)) => Some((o, true)),
            (None, None) => None,
        }
    }

    /// Take the first entry ([`Self::oldest`]) out.
    fn pop_oldest(&mut self, out_of_order: bool) {
        if out_of_order {
            self.out_of_order.pop_first();
        } else {
            self.by_send_time.pop_front();
        }
    }

    /// Compact the index if stale entries could be the majority
    /// ([`RACK_INDEX_STALE_SLACK`]): after an entry is added for a
    /// segment already there, and after a cumulative ACK takes segments
    /// away (an entry added with a new segment keeps the bound).
    fn reclaim_stale(&mut self, segs: &VecDeque<SegmentRecord>) {
        if self.len() > 2 * segs.len() + RACK_INDEX_STALE_SLACK {
            self.compact(segs);
        }
    }

    /// Drop every stale entry ([`Self::reclaim_stale`]).
    #[cold]
    #[inline(never)]
    fn compact(&mut self, segs: &VecDeque<SegmentRecord>) {
        self.by_send_time
            .retain(|&k| live_position(segs, k).is_some());
        self.out_of_order
            .retain(|&k| live_position(segs, k).is_some());
    }

    /// Entries held, live or stale.
    fn len(&self) -> usize {
        self.by_send_time.len() + self.out_of_order.len()
    }

    /// The latest transmission time among the live entries sent before
    /// `bound` (RACK.xmit_ts, RACK.end_seq), which the caller knows to
    /// include the first entry ([`Self::oldest`]); the stale entries
    /// crossed on the way back from `bound` are dropped, so that no later
    /// call crosses them (those are mostly the segments SACKed since the
    /// last call: the ones sent just before RACK.xmit_ts). Out of line:
    /// at most once an ACK, and only when a segment step 5 reads has not
    /// yet expired.
    #[inline(never)]
    fn latest_live_before(&mut self, bound: SentKey, segs: &VecDeque<SegmentRecord>) -> TimeNs {
        let q = &mut self.by_send_time;
        let sent_before = q.partition_point(|&k| k < bound);
        let mut at = sent_before;
        while at > 0 && live_position(segs, q[at - 1]).is_none() {
            at -= 1;
        }
        q.drain(at..sent_before);
        let in_order = at.checked_sub(1).map(|i| q[i]);
        let mut out_of_order = None;
        while let Some(&k) = self.out_of_order.range(..bound).next_back() {
            if live_position(segs, k).is_some() {
                out_of_order = Some(k);
                break;
            }
            self.out_of_order.remove(&k);
        }
        in_order
            .max(out_of_order)
            .expect("the first entry is live and sent before RACK.xmit_ts")
            .0
    }

    /// Stop keeping the index (see `indexed`).
    fn drop_index(&mut self) {
        self.indexed = false;
        self.by_send_time.clear();
        self.out_of_order.clear();
    }

    /// Start keeping the index (a SACK block) over a scoreboard long
    /// enough to need it.
    fn start_index(&mut self, segs: &VecDeque<SegmentRecord>) {
        if !self.indexed && segs.len() >= RACK_INDEX_MIN_SEGMENTS {
            self.indexed = true;
            self.out_of_order.clear();
            let q = &mut self.by_send_time;
            q.clear();
            q.extend(step5_keys(segs));
            q.make_contiguous().sort_unstable();
        }
    }
}

/// A segment's share of RFC 6675 SetPipe with HighRxt `high_rxt`: (bytes
/// counted once, bytes counted a second time for its retransmission).
fn pipe_terms(s: &SegmentRecord, high_rxt: u64) -> (u64, u64) {
    if s.sacked {
        return (0, 0);
    }
    let once = if s.lost { 0 } else { s.len() };
    let resent = if s.retransmitted && !s.rack_lost && s.start < high_rxt {
        s.len()
    } else {
        0
    };
    (once, resent)
}

/// Two pairs of pipe terms added.
fn plus(a: (u64, u64), b: (u64, u64)) -> (u64, u64) {
    (a.0 + b.0, a.1 + b.1)
}

/// What a cumulative ACK removed from the scoreboard.
#[derive(Clone, Copy, Debug, Default)]
pub struct AckedSummary {
    pub bytes: u64,
    pub segments: u32,
    /// Some acknowledged segment had been retransmitted (Karn's rule).
    pub any_retransmitted: bool,
}

/// What an ACK's SACK blocks changed, summed over the segments they
/// newly SACKed.
#[derive(Clone, Copy, Debug, Default)]
struct SackUpdate {
    newly_sacked_bytes: u64,
    /// Their pipe terms before ([`pipe_terms`]); SACKed, they have none.
    pipe_before: (u64, u64),
}

impl Scoreboard {
    pub fn new() -> Self {
        Self {
            // Grown with the window (amortised, per connection): 128
            // records up front were 4 KiB per connection, touched cold at
            // every connection's start.
            segs: VecDeque::new(),
            ..Default::default()
        }
    }

    pub fn clear(&mut self) {
        self.segs.clear();
        self.pipe_once_bytes = 0;
        self.pipe_resent_bytes = 0;
        self.highest_sacked_end = 0;
        self.sacked_bytes = 0;
        self.sacked_segments = 0;
        if let Some(r) = self.rack.as_deref_mut() {
            r.delivered.clear();
            r.drop_index();
        }
        if let Some(k) = self.sets.as_deref_mut() {
            k.reindex(std::iter::empty());
        }
    }

    /// An ACK is about to be applied: forget the last one's deliveries.
    pub fn begin_ack(&mut self) {
        if let Some(r) = self.rack.as_deref_mut() {
            r.delivered.clear();
        }
    }

    /// Whole segments the current ACK delivered (SACKed or cumulatively
    /// acknowledged for the first time), as they were before it; only
    /// kept once [`Self::track_for_rack`] has been called.
    pub fn delivered(&self) -> &[SegmentRecord] {
        self.rack.as_deref().map_or(&[], |r| r.delivered.as_slice())
    }

    /// Keep what RACK reads: the segments each ACK delivers, and during
    /// a loss the segments not deemed lost in transmission order.
    pub fn track_for_rack(&mut self) {
        if self.rack.is_none() {
            let mut r = RackRecords::default();
            if self.sacked_segments > 0 {
                r.start_index(&self.segs);
            }
            self.rack = Some(Box::new(r));
        }
    }

    /// RFC 8985 §6.2 step 5's marking: every unSACKed segment not already
    /// deemed lost by RACK whose latest transmission was sent before
    /// RACK's (RACK_sent_after) and whose deadline, sent + RACK.rtt +
    /// RACK.reo_wnd, is at or before now is marked lost. Returns whether any was, and the latest deadline of
    /// the others, for the reordering timer. The same as the step's walk
    /// from the first segment ([`Self::mark_rack_expired_by_scan`]), which
    /// serves while there is no SACKed segment to walk across or the
    /// scoreboard is short.
    pub fn mark_rack_expired(&mut self, step: RackStep5) -> (bool, Option<TimeNs>) {
        #[cfg(debug_assertions)]
        let by_scan = (self.segs.len() <= 64).then(|| {
            let mut sb = self.clone();
            let found = sb.mark_rack_expired_by_scan(step);
            (found, sb.segs)
        });
        let found = if self.rack.as_deref().is_some_and(|r| r.indexed) {
            self.mark_rack_expired_by_index(step)
        } else {
            self.mark_rack_expired_by_scan(step)
        };
        #[cfg(debug_assertions)]
        if let Some((scan_found, scan_segs)) = by_scan {
            assert_eq!((scan_found, &scan_segs), (found, &self.segs), "RACK step 5");
            debug_assert!(self.rack_index_is_the_scan());
        }
        found
    }

    /// [`Self::mark_rack_expired`] by the index: the segments sent before
    /// RACK.xmit_ts in transmission order (RACK_sent_after), whose
    /// deadlines rise in that order, so the expired ones come first and
    /// the last one's deadline is the latest of the rest ("timeout =
    /// max(remaining, timeout)"). Stale entries met at the front are
    /// dropped on the way.
    fn mark_rack_expired_by_index(&mut self, step: RackStep5) -> (bool, Option<TimeNs>) {
        let bound = (step.xmit_ts_ns, step.end_seq);
        let mut marked = false;
        loop {
            let Some(r) = self.rack.as_deref_mut() else {
                return (false, None);
            };
            let Some((oldest, out_of_order)) = r.oldest().filter(|&(k, _)| k < bound) else {
                // Nothing step 5 reads was sent before RACK.xmit_ts.
                return (marked, None);
            };
            let Some(i) = live_position(&self.segs, oldest) else {
                r.pop_oldest(out_of_order);
                continue;
            };
            if step.deadline(oldest.0) > step.now_ns {
                let latest = r.latest_live_before(bound, &self.segs);
                return (marked, Some(step.deadline(latest)));
            }
            r.pop_oldest(out_of_order);
            self.mark_rack_lost(i);
            marked = true;
        }
    }

    /// [`Self::mark_rack_expired`] as §6.2 step 5 writes it: a walk from
    /// the first segment.
    fn mark_rack_expired_by_scan(&mut self, step: RackStep5) -> (bool, Option<TimeNs>) {
        let mut marked = false;
        let mut latest = None;
        for i in 0..self.segs.len() {
            let s = self.segs[i];
            let sent_before = step.sent_before(&s);
            if !sent_before && !s.retransmitted {
                // First transmissions leave in sequence order: nothing
                // above this one was sent before RACK.xmit_ts either.
                break;
            }
            if s.sacked || s.rack_lost || !sent_before {
                continue;
            }
            let deadline = step.deadline(s.last_sent_ns);
            if deadline <= step.now_ns {
                self.mark_rack_lost(i);
                marked = true;
            } else {
                latest = latest.max(Some(deadline));
            }
        }
        (marked, latest)
    }

    /// RACK's index, where it is kept, holds what a scan of the segments
    /// gives.
    #[cfg(any(test, debug_assertions))]
    fn rack_index_is_the_scan(&self) -> bool {
        self.rack.as_deref().is_none_or(|r| {
            let q = &r.by_send_time;
            if !r.indexed {
                return q.is_empty() && r.out_of_order.is_empty();
            }
            let sorted = q.iter().zip(q.iter().skip(1)).all(|(a, b)| a < b);
            let bounded = r.len() <= 2 * self.segs.len() + RACK_INDEX_STALE_SLACK;
            let mut all: Vec<SentKey> = q.iter().chain(&r.out_of_order).copied().collect();
            all.sort_unstable();
            let distinct = all.windows(2).all(|w| w[0] < w[1]);
            let live: Vec<SentKey> = all
                .into_iter()
                .filter(|&k| live_position(&self.segs, k).is_some())
                .collect();
            let mut scan: Vec<SentKey> = step5_keys(&self.segs).collect();
            scan.sort_unstable();
            sorted && distinct && bounded && live == scan
        })
    }

    /// RACK.segs_sacked.
    pub fn sacked_segments(&self) -> u32 {
        self.sacked_segments
    }

    pub fn len(&self) -> usize {
        self.segs.len()
    }
    pub fn is_empty(&self) -> bool {
        self.segs.is_empty()
    }
    pub fn iter(&self) -> impl Iterator<Item = &SegmentRecord> {
        self.segs.iter()
    }
    pub fn get(&self, i: usize) -> Option<&SegmentRecord> {
        self.segs.get(i)
    }
    pub fn sacked_bytes(&self) -> u64 {
        self.sacked_bytes
    }

    /// Account for segments whose pipe terms went from `before` to `after`
    /// (sums over the segments changed, at the current HighRxt).
    fn repipe(&mut self, before: (u64, u64), after: (u64, u64)) {
        self.pipe_once_bytes = self.pipe_once_bytes - before.0 + after.0;
        self.pipe_resent_bytes = self.pipe_resent_bytes - before.1 + after.1;
    }

    /// Change the segment at index `i` with `f`, keeping pipe's terms and
    /// the lost segments' index.
    fn update(&mut self, i: usize, f: impl FnOnce(&mut SegmentRecord)) -> SegmentRecord {
        let high_rxt = self.high_rxt;
        let s = &mut self.segs[i];
        let (was, before) = (*s, pipe_terms(s, high_rxt));
        f(s);
        let (rec, after) = (*s, pipe_terms(s, high_rxt));
        self.repipe(before, after);
        if let Some(k) = self.sets.as_deref_mut() {
            k.note(i, &was, &rec);
        }
        if let Some(r) = self.rack.as_deref_mut() {
            r.note_change(&was, &rec, &self.segs);
        }
        rec
    }

    /// Record a first transmission of [start, end).
    pub fn push_new(&mut self, start: u64, end: u64, now_ns: TimeNs) {
        debug_assert!(self.segs.back().is_none_or(|s| s.end == start));
        let rec = SegmentRecord {
            start,
            end,
            sacked: false,
            lost: false,
            retransmitted: false,
            rack_lost: false,
            transmissions: 1,
            last_sent_ns: now_ns,
        };
        self.repipe((0, 0), pipe_terms(&rec, self.high_rxt));
        if let Some(r) = self.rack.as_deref_mut().filter(|r| r.indexed) {
            // An entry and a segment more: the index's bound on stale
            // entries ([`RackRecords::reclaim_stale`]) still holds.
            r.insert_sorted((now_ns, end));
        }
        self.segs.push_back(rec);
    }

    /// Index of the segment starting at `seq`.
    pub fn index_of(&self, seq: u64) -> Option<usize> {
        position_where(&self.segs, seq, |s| s.start)
    }

    /// Record a retransmission of the segment at index `i`.
    pub fn mark_retransmitted(&mut self, i: usize, now_ns: TimeNs) -> SegmentRecord {
        self.update(i, |s| {
            s.retransmitted = true;
            s.rack_lost = false;
            s.transmissions += 1;
            s.last_sent_ns = now_ns;
        })
    }

    /// Remove everything below the cumulative ACK `ack`.
    pub fn ack_to(&mut self, ack: u64) -> AckedSummary {
        let mut sum = AckedSummary::default();
        let high_rxt = self.high_rxt;
        // Pipe's terms of what is removed (less what a trimmed segment keeps).
        let (mut removed, mut kept) = ((0, 0), (0, 0));
        while let Some(front) = self.segs.front_mut() {
            if front.end <= ack {
                removed = plus(removed, pipe_terms(front, high_rxt));
                sum.bytes += front.len();
                sum.segments += 1;
                sum.any_retransmitted |= front.retransmitted;
                if front.sacked {
                    self.sacked_bytes -= front.len();
                    self.sacked_segments -= 1;
                } else if let Some(r) = self.rack.as_deref_mut() {
                    // Its index entry, if any, is stale from now on.
                    r.delivered.push(*front);
                }
                if let Some(k) = self.sets.as_deref_mut() {
                    // Out of the sets. Its position counts the segments
                    // taken away before it: the front's ordinal moves
                    // past them all after the loop.
                    k.forget(sum.segments as usize - 1, front);
                }
                self.segs.pop_front();
            } else {
                if front.start < ack {
                    // A partial acknowledgement of a segment: trim it.
                    removed = plus(removed, pipe_terms(front, high_rxt));
                    let cut = ack - front.start;
                    sum.bytes += cut;
                    sum.any_retransmitted |= front.retransmitted;
                    if front.sacked {
                        self.sacked_bytes -= cut;
                    }
                    // Its ordinal, and so its place in the sets, stays.
                    front.start = ack;
                    kept = pipe_terms(front, high_rxt);
                }
                break;
            }
        }
        self.repipe(removed, kept);
        if let Some(k) = self.sets.as_deref_mut() {
            // The next segment's ordinal is the front's.
            k.front += u64::from(sum.segments);
        }
        if let Some(r) = self.rack.as_deref_mut().filter(|r| r.indexed) {
            if self.sacked_segments == 0 {
                // No SACKed segment left for RACK's walk to cross.
                r.drop_index();
            } else {
                r.reclaim_stale(&self.segs);
            }
        }
        sum
    }

    /// RFC 6675 §5 Update() for an ACK's SACK blocks (RFC 2018): SACK
    /// every unSACKed segment wholly inside a block, block by block in
    /// the ACK's order and in sequence order within a block (the order
    /// RACK's deliveries are listed in); returns the bytes newly SACKed.
    /// A block may be anything a receiver sends (unaligned, overlapping
    /// another, below SND.UNA, beyond SND.MAX): a segment only partly
    /// inside it is not SACKed. By look-ups ([`Self::apply_sack_by_look_up`]),
    /// or by the walk over the segments each block covers on a short
    /// scoreboard ([`SACK_LOOK_UP_MIN_SEGMENTS`]).
    pub fn apply_sack(&mut self, blocks: &[SackBlock]) -> u64 {
        if self.segs.len() < SACK_LOOK_UP_MIN_SEGMENTS {
            self.apply_sack_by_walk(blocks)
        } else {
            self.apply_sack_by_look_up(blocks)
        }
    }

    /// [`Self::apply_sack`] at a cost of a search per block for the
    /// first segment starting inside it, a look-up per segment it newly
    /// SACKs among those blocks reached before ([`SegmentSets::unsacked`]),
    /// and a read of each segment it is the first block to reach: not a
    /// walk over every segment it covers, which crossed the segments
    /// earlier ACKs SACKed again at every ACK (a recovery's blocks grow
    /// by a segment an ACK: n^2 over n segments). The same as the walk
    /// ([`Self::apply_sack_by_walk`], which debug builds check it against
    /// on scoreboards of at most 64 segments).
    fn apply_sack_by_look_up(&mut self, blocks: &[SackBlock]) -> u64 {
        #[cfg(debug_assertions)]
        let by_walk = (self.segs.len() <= 64).then(|| {
            let mut sb = self.clone();
            let newly = sb.apply_sack_by_walk(blocks);
            (newly, sb.sack_observables())
        });
        self.start_rack_index_at_sack(blocks);
        let mut update = SackUpdate::default();
        for b in blocks.iter().filter(|b| b.end > b.start) {
            // The first segment starting inside the block, if it ends
            // inside it too: the first of those wholly inside.
            let from = first_starting_at_or_above(&self.segs, b.start);
            if self.segs.get(from).is_some_and(|s| s.end <= b.end) {
                self.sack_wholly_inside(from, b.end, &mut update);
            }
            self.highest_sacked_end = self.highest_sacked_end.max(b.end);
        }
        let newly = self.finish_sack_update(update);
        #[cfg(debug_assertions)]
        if let Some((walk_newly, walked)) = by_walk {
            assert_eq!(
                (walk_newly, walked),
                (newly, self.sack_observables()),
                "Update() by look-up and by the walk"
            );
            debug_assert!(self.sack_index_is_the_scan());
        }
        newly
    }

    /// [`Self::apply_sack`] as RFC 6675 §5 Update() reads: for each block,
    /// a walk over every segment it covers, SACKing the unSACKed ones
    /// wholly inside it. The reading the look-ups must give, and the way
    /// a short scoreboard takes its blocks ([`SACK_LOOK_UP_MIN_SEGMENTS`]).
    /// It keeps the unSACKed segments' set as it SACKs segments, without
    /// reaching further.
    fn apply_sack_by_walk(&mut self, blocks: &[SackBlock]) -> u64 {
        self.start_rack_index_at_sack(blocks);
        let mut update = SackUpdate::default();
        for b in blocks.iter().filter(|b| b.end > b.start) {
            let mut pos = self.segs.partition_point(|s| s.end <= b.start);
            while let Some(s) = self.segs.get(pos).filter(|s| s.start < b.end) {
                if !s.sacked && s.start >= b.start && s.end <= b.end {
                    self.sack_segment(pos, &mut update);
                }
                pos += 1;
            }
            self.highest_sacked_end = self.highest_sacked_end.max(b.end);
        }
        self.finish_sack_update(update)
    }

    /// RACK's step 5 index is made at an ACK with a SACK block above
    /// SND.UNA ([`RackRecords::indexed`]).
    fn start_rack_index_at_sack(&mut self, blocks: &[SackBlock]) {
        if let Some(r) = self.rack.as_deref_mut().filter(|r| !r.indexed) {
            let snd_una = self.segs.front().map_or(u64::MAX, |s| s.start);
            if blocks.iter().any(|b| b.end > b.start && b.end > snd_una) {
                r.start_index(&self.segs);
            }
        }
    }

    /// SACK the unSACKed segments from position `from` on that end at or
    /// below `end`, the segments wholly inside a block (`from` is the
    /// first starting inside it, and ends inside it), in sequence order:
    /// among those earlier blocks reached, by a look-up each in
    /// [`SegmentSets::unsacked`]; the rest by reading each, once, as this
    /// block is the first to reach it. The unSACKed segments it reaches
    /// below `from` join the set. Segments lie in sequence order, so the
    /// first one found ending beyond `end` ends the block's segments:
    /// where they end is never searched for.
    fn sack_wholly_inside(&mut self, from: usize, end: u64, update: &mut SackUpdate) {
        let first_unreached = self
            .sets
            .get_or_insert_with(Default::default)
            .reached_position();
        let inside = |segs: &VecDeque<SegmentRecord>, pos: usize| segs[pos].end <= end;
        let mut at = from;
        while let Some(pos) = self
            .first_reached_unsacked(at, first_unreached)
            .filter(|&pos| inside(&self.segs, pos))
        {
            self.sack_segment(pos, update);
            at = pos + 1;
        }
        let mut pos = first_unreached.max(from);
        if self.segs.get(pos).is_none_or(|s| s.end > end) {
            // The block reaches no segment no block reached before.
            return;
        }
        if let Some(k) = self.sets.as_deref_mut() {
            for joining in first_unreached..from {
                if !self.segs[joining].sacked {
                    k.unsacked.assign(k.front, joining, true);
                }
            }
        }
        while self.segs.get(pos).is_some_and(|s| s.end <= end) {
            if !self.segs[pos].sacked {
                self.sack_segment(pos, update);
            }
            pos += 1;
        }
        if let Some(k) = self.sets.as_deref_mut() {
            k.reached = k.front + pos as u64;
        }
    }

    /// The position of the first unSACKed segment a block has reached
    /// ([`SegmentSets::unsacked`]) at or after position `from` and below
    /// `below`.
    fn first_reached_unsacked(&self, from: usize, below: usize) -> Option<usize> {
        let k = self.sets.as_deref()?;
        k.first_in(&k.unsacked, from).filter(|&pos| pos < below)
    }

    /// SACK the unSACKed segment at position `pos`: Update()'s effects on
    /// it, in the order the walk made them. It is delivered (RFC 8985
    /// §6.2 steps 2-3) and no longer read by RACK's step 5 (its index
    /// entry, if any, is stale from now on); it leaves pipe (counted
    /// into `update`) and the sets of unSACKed segments.
    fn sack_segment(&mut self, pos: usize, update: &mut SackUpdate) {
        let s = &mut self.segs[pos];
        debug_assert!(!s.sacked);
        let was = *s;
        if let Some(r) = self.rack.as_deref_mut() {
            r.delivered.push(was);
        }
        update.pipe_before = plus(update.pipe_before, pipe_terms(&was, self.high_rxt));
        s.sacked = true;
        update.newly_sacked_bytes += was.len();
        self.sacked_segments += 1;
        if let Some(k) = self.sets.as_deref_mut() {
            k.note(pos, &was, s);
        }
    }

    /// Account for an ACK's newly SACKed segments; returns their bytes.
    fn finish_sack_update(&mut self, update: SackUpdate) -> u64 {
        self.sacked_bytes += update.newly_sacked_bytes;
        self.repipe(update.pipe_before, (0, 0));
        update.newly_sacked_bytes
    }

    /// Everything Update() changes, for comparing the look-ups with the
    /// walk: the segments, the SACK counts, HighSACK, pipe's terms, the
    /// ACK's deliveries, RACK's index and the lost segments' sets.
    #[cfg(any(test, debug_assertions))]
    fn sack_observables(&self) -> impl PartialEq + std::fmt::Debug {
        let rack = self.rack.as_deref().map(|r| {
            let index: Vec<SentKey> = r.by_send_time.iter().copied().collect();
            (
                r.delivered.clone(),
                r.indexed,
                index,
                r.out_of_order.clone(),
            )
        });
        // (No record is the record's default: none lost, no mark.)
        let lost = self.sets.as_deref().map_or_else(Default::default, |k| {
            let (lost, rack_lost) = (k.lost.members(k.front), k.rack_lost.members(k.front));
            (k.loss_marks, k.marked_below_seq, lost, rack_lost)
        });
        (
            self.segs.clone(),
            (self.sacked_bytes, self.sacked_segments),
            self.highest_sacked_end,
            (self.pipe_once_bytes, self.pipe_resent_bytes),
            rack,
            lost,
        )
    }

    /// RFC 6675 §4 IsLost for every unSACKed segment: lost when DupThresh
    /// discontiguous SACKed segments, or more than (DupThresh - 1) * SMSS
    /// SACKed bytes, lie above it. Marks are sticky, and IsLost holding
    /// for a segment holds for every segment below it, so this walks down
    /// from the highest SACKed segment only to the highest unSACKed
    /// segment IsLost holds for (or to the segments marked by an earlier
    /// ACK), and marks the unSACKed segments from there down to those: the
    /// same marks as the backward pass over every segment
    /// ([`Self::update_loss_marks_by_scan`]), which cost a pass over the
    /// window per ACK of a recovery.
    pub fn update_loss_marks(&mut self, dupthresh: u32, mss: u64) {
        #[cfg(debug_assertions)]
        let by_scan = (self.segs.len() <= 64).then(|| {
            let mut sb = self.clone();
            sb.update_loss_marks_by_scan(dupthresh, mss);
            sb
        });
        let is_lost =
            |segs: u32, bytes: u64| segs >= dupthresh || bytes > (dupthresh as u64 - 1) * mss;
        let marked_below = self.sets.as_deref().map_or(0, |k| k.marked_below_seq);
        let top = self
            .segs
            .partition_point(|s| s.end <= self.highest_sacked_end);
        let (mut sacked_above_segs, mut sacked_above_bytes) = (0u32, 0u64);
        let mut highest_lost = None;
        for i in (0..top).rev() {
            let s = &self.segs[i];
            if s.start < marked_below {
                break;
            }
            if s.sacked {
                sacked_above_segs += 1;
                sacked_above_bytes += s.len();
            } else if is_lost(sacked_above_segs, sacked_above_bytes) {
                highest_lost = Some(i);
                break;
            }
        }
        if let Some(highest) = highest_lost {
            let from = self.segs.partition_point(|s| s.start < marked_below);
            let k = self.sets.get_or_insert_with(Default::default);
            let mut newly_lost_bytes = 0;
            for (i, s) in self.segs.range_mut(from..=highest).enumerate() {
                if !s.sacked && !s.lost {
                    k.loss_marks += 1;
                    newly_lost_bytes += s.len();
                    let was = *s;
                    s.lost = true;
                    k.note(from + i, &was, s);
                }
            }
            k.marked_below_seq = self.segs[highest].end;
            self.pipe_once_bytes -= newly_lost_bytes;
        }
        #[cfg(debug_assertions)]
        if let Some(sb) = by_scan {
            debug_assert_eq!(sb.segs, self.segs, "IsLost by the frontier and by the scan");
        }
    }

    /// [`Self::update_loss_marks`] as one backward pass over every segment.
    #[cfg(any(test, debug_assertions))]
    fn update_loss_marks_by_scan(&mut self, dupthresh: u32, mss: u64) {
        let mut sacked_above_bytes = 0u64;
        let mut sacked_above_segs = 0u32;
        let mut newly_lost_bytes = 0;
        for (i, s) in self.segs.iter_mut().enumerate().rev() {
            if s.sacked {
                sacked_above_bytes += s.len();
                sacked_above_segs += 1;
            } else if !s.lost
                && (sacked_above_segs >= dupthresh
                    || sacked_above_bytes > (dupthresh as u64 - 1) * mss)
            {
                let k = self.sets.get_or_insert_with(Default::default);
                k.loss_marks += 1;
                newly_lost_bytes += s.len();
                let was = *s;
                s.lost = true;
                k.note(i, &was, s);
            }
        }
        self.pipe_once_bytes -= newly_lost_bytes;
    }

    /// RFC 6675 §4 IsLost for the first outstanding segment.
    pub fn first_is_lost(&self) -> bool {
        self.segs.front().is_some_and(|s| s.lost)
    }

    /// After a retransmission timeout (RFC 6675 §5.1): every unSACKed
    /// segment is considered lost.
    pub fn mark_all_lost(&mut self) {
        for (i, s) in self.segs.iter_mut().enumerate() {
            if !s.sacked && !s.lost {
                let k = self.sets.get_or_insert_with(Default::default);
                k.loss_marks += 1;
                let was = *s;
                s.lost = true;
                k.note(i, &was, s);
            }
        }
        // Nothing unSACKed is counted once now; the second counts stay.
        self.pipe_once_bytes = 0;
    }

    /// Forget every loss mark (a timeout turned out spurious).
    pub fn clear_loss_marks(&mut self) {
        for s in self.segs.iter_mut() {
            s.lost = false;
            s.rack_lost = false;
        }
        if let Some(k) = self.sets.as_deref_mut() {
            k.reindex(std::iter::empty());
        }
        if let Some(r) = self.rack.as_deref_mut() {
            r.drop_index();
        }
        self.recount_pipe();
    }

    /// Count pipe's terms afresh (after a change to every segment).
    fn recount_pipe(&mut self) {
        let (once, resent) = self.pipe_terms_by_scan();
        self.pipe_once_bytes = once;
        self.pipe_resent_bytes = resent;
    }

    /// RACK marks the segment at index `i` lost (RFC 8985 §6.2 step 5).
    pub fn mark_rack_lost(&mut self, i: usize) {
        let fresh = !self.segs[i].rack_lost;
        self.sets.get_or_insert_with(Default::default).loss_marks += u64::from(fresh);
        self.update(i, |s| {
            s.lost = true;
            s.rack_lost = true;
        });
    }

    /// Loss marks made so far (see the field).
    pub fn loss_marks(&self) -> u64 {
        self.sets.as_deref().map_or(0, |k| k.loss_marks)
    }

    /// RFC 2018 §8 allows the receiver to renege: forget all SACK state.
    pub fn clear_sacks(&mut self) {
        for s in self.segs.iter_mut() {
            s.sacked = false;
        }
        self.sacked_bytes = 0;
        self.sacked_segments = 0;
        self.highest_sacked_end = 0;
        if let Some(k) = self.sets.as_deref_mut() {
            k.reindex(self.segs.iter());
        }
        if let Some(r) = self.rack.as_deref_mut() {
            r.drop_index();
        }
        self.recount_pipe();
    }

    /// RFC 6675 §4 SetPipe: bytes believed in flight. An unSACKed segment
    /// counts once unless it is deemed lost, and once more if it was
    /// retransmitted at or below HighRxt (unless RACK found that
    /// retransmission lost). Kept up to date as segments change and as
    /// HighRxt moves, so reading it costs nothing.
    pub fn pipe(&self) -> u64 {
        let pipe = self.pipe_once_bytes + self.pipe_resent_bytes;
        // The kept value against SetPipe's scan, where a scan is cheap.
        debug_assert!(self.segs.len() > 64 || pipe == self.pipe_by_scan());
        pipe
    }

    /// RFC 6675 §4 SetPipe as written: a scan of the scoreboard.
    pub fn pipe_by_scan(&self) -> u64 {
        let (once, resent) = self.pipe_terms_by_scan();
        once + resent
    }

    /// Every segment's pipe terms, added.
    fn pipe_terms_by_scan(&self) -> (u64, u64) {
        self.segs
            .iter()
            .fold((0, 0), |sum, s| plus(sum, pipe_terms(s, self.high_rxt)))
    }

    /// RFC 6675 HighRxt.
    pub fn high_rxt(&self) -> u64 {
        self.high_rxt
    }

    /// Move HighRxt: forward one retransmission at a time (RFC 6675 §5
    /// (C.1)), back to HighACK when a recovery or a timeout begins. Only
    /// the segments between the old and the new point change their
    /// count in pipe.
    pub fn set_high_rxt(&mut self, high_rxt: u64) {
        let (low, high) = (self.high_rxt.min(high_rxt), self.high_rxt.max(high_rxt));
        if self.segs.front().is_none_or(|s| s.start >= high) {
            // Nothing outstanding starts between them (the common case:
            // HighRxt brought up to an advanced SND.UNA).
            self.high_rxt = high_rxt;
            return;
        }
        let first = self.segs.partition_point(|s| s.start < low);
        let moved: u64 = self
            .segs
            .range(first..)
            .take_while(|s| s.start < high)
            .map(|s| pipe_terms(s, u64::MAX).1)
            .sum();
        if high_rxt > self.high_rxt {
            self.pipe_resent_bytes += moved;
        } else {
            self.pipe_resent_bytes -= moved;
        }
        self.high_rxt = high_rxt;
    }

    /// RFC 6675 §4 NextSeg rule (1): the first unSACKed segment at or above
    /// HighRxt that is lost and lies below the highest SACKed sequence; or
    /// one RACK deemed lost (RFC 8985: its time-based marks need no SACK
    /// above the segment, and a lost retransmission is sent again).
    pub fn next_lost_segment(&self) -> Option<usize> {
        let found = self.first_lost(self.highest_sacked_end);
        // The kept index against the scan, where a scan is cheap.
        debug_assert!(self.segs.len() > 64 || found == self.next_lost_segment_by_scan());
        #[cfg(debug_assertions)]
        debug_assert!(self.segs.len() > 64 || self.lost_index_is_the_scan());
        found
    }

    /// NextSeg rule (1) as written (RFC 6675 §4: the first unSACKed
    /// segment above HighRxt for which IsLost holds, below the highest
    /// SACKed sequence; with RACK, RFC 8985 §6.2 step 5's marks sent
    /// whatever HighRxt): a scan from the first segment, the reading the
    /// kept sets must give.
    pub fn next_lost_segment_by_scan(&self) -> Option<usize> {
        let high_rxt = self.high_rxt;
        self.segs.iter().position(|s| {
            !s.sacked
                && (s.rack_lost
                    || (s.start >= high_rxt && s.lost && s.start < self.highest_sacked_end))
        })
    }

    /// Like [`Self::next_lost_segment`] without the "below the highest SACKed"
    /// condition: after a timeout every unSACKed segment up to snd_max is a
    /// retransmission candidate (RFC 6675 §5.1).
    pub fn next_lost_segment_any(&self) -> Option<usize> {
        let found = self.first_lost(u64::MAX);
        debug_assert!(self.segs.len() > 64 || found == self.next_lost_segment_any_by_scan());
        #[cfg(debug_assertions)]
        debug_assert!(self.segs.len() > 64 || self.lost_index_is_the_scan());
        found
    }

    /// [`Self::next_lost_segment_any`] as a scan (RFC 6675 §5.1: after a
    /// timeout, NextSeg rule (1) without its SACK bound).
    pub fn next_lost_segment_any_by_scan(&self) -> Option<usize> {
        let high_rxt = self.high_rxt;
        self.segs
            .iter()
            .position(|s| !s.sacked && (s.rack_lost || (s.start >= high_rxt && s.lost)))
    }

    /// The index of the first unSACKed segment that RACK deemed lost, or
    /// that is deemed lost and starts in [HighRxt, `below`): the lower of
    /// the two sets' first answers (segments lie in sequence order), the
    /// second looked for only from the first segment starting at or above
    /// HighRxt.
    fn first_lost(&self, below: u64) -> Option<usize> {
        let k = self.sets.as_deref()?;
        if k.lost.is_empty() {
            // Nothing lost (RACK's marks are lost segments too).
            return None;
        }
        let rack = k.first_in(&k.rack_lost, 0);
        // What the sets give is a member, at any length (the scans that
        // check that it is the first run on short scoreboards only).
        debug_assert!(rack.is_none_or(|r| in_rack_lost(&self.segs[r])));
        let from = first_starting_at_or_above(&self.segs, self.high_rxt);
        if rack.is_some_and(|r| r <= from) {
            return rack;
        }
        let lost = k
            .first_in(&k.lost, from)
            .filter(|&i| self.segs[i].start < below);
        debug_assert!(lost.is_none_or(|l| {
            let s = &self.segs[l];
            in_lost(s) && s.start >= self.high_rxt && s.start < below
        }));
        match (rack, lost) {
            (Some(r), Some(l)) => Some(r.min(l)),
            (r, l) => r.or(l),
        }
    }

    /// The lost segments' sets hold what a scan of the segments gives, and
    /// are well formed ([`OrdinalBits::is_well_formed`]).
    #[cfg(any(test, debug_assertions))]
    fn lost_index_is_the_scan(&self) -> bool {
        self.sets.as_deref().is_none_or(|k| {
            let scan = |member: fn(&SegmentRecord) -> bool| -> Vec<usize> {
                self.segs
                    .iter()
                    .enumerate()
                    .filter(|(_, s)| member(s))
                    .map(|(i, _)| i)
                    .collect()
            };
            k.lost.is_well_formed()
                && k.rack_lost.is_well_formed()
                && k.lost.members(k.front) == scan(in_lost)
                && k.rack_lost.members(k.front) == scan(in_rack_lost)
        })
    }

    /// The unSACKed segments' set holds what a scan gives: the unSACKed
    /// segments below the first no SACK block has reached, which lies
    /// within the scoreboard; and it is well formed.
    #[cfg(any(test, debug_assertions))]
    fn sack_index_is_the_scan(&self) -> bool {
        self.sets.as_deref().is_none_or(|k| {
            let reached = k.reached_position();
            let scan: Vec<usize> = (0..reached.min(self.segs.len()))
                .filter(|&i| !self.segs[i].sacked)
                .collect();
            reached <= self.segs.len()
                && k.unsacked.is_well_formed()
                && k.unsacked.members(k.front) == scan
        })
    }

    /// RFC 6675 §4 NextSeg rule (4): the segment holding the highest
    /// outstanding unSACKed sequence number.
    pub fn last_unsacked_segment(&self) -> Option<usize> {
        self.segs.iter().rposition(|s| !s.sacked)
    }

    /// Would `blocks` SACK a segment below `limit` not SACKed yet?
    pub fn would_newly_sack_below(&self, blocks: &[SackBlock], limit: u64) -> bool {
        blocks.iter().any(|b| {
            self.segs
                .iter()
                .any(|s| !s.sacked && s.start < limit && s.start >= b.start && s.end <= b.end)
        })
    }

    /// RFC 6675 §4 NextSeg rule (3): an unSACKed segment above HighRxt below
    /// the highest SACKed sequence, even if not deemed lost. Looked for
    /// from HighRxt on (segments lie in sequence order), not from the
    /// first segment.
    pub fn next_unsacked_segment(&self) -> Option<usize> {
        let from = self.segs.partition_point(|s| s.start < self.high_rxt);
        let found = self
            .segs
            .range(from..)
            .take_while(|s| s.start < self.highest_sacked_end)
            .position(|s| !s.sacked)
            .map(|k| from + k);
        debug_assert!(self.segs.len() > 64 || found == self.next_unsacked_segment_by_scan());
        found
    }

    /// [`Self::next_unsacked_segment`] as a scan from the first segment.
    pub fn next_unsacked_segment_by_scan(&self) -> Option<usize> {
        let high_rxt = self.high_rxt;
        self.segs
            .iter()
            .position(|s| s.start >= high_rxt && !s.sacked && s.start < self.highest_sacked_end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(n: u64) -> Scoreboard {
        let mut sb = Scoreboard::new();
        for i in 0..n {
            sb.push_new(i * 100, (i + 1) * 100, 0);
        }
        sb
    }

    #[test]
    fn sack_and_is_lost() {
        let mut sb = board(6);
        // Segment 0 lost; 1, 2 SACKed: not yet lost (2 segs, 200 B <= 2*100).
        sb.apply_sack(&[SackBlock {
            start: 100,
            end: 300,
        }]);
        sb.update_loss_marks(3, 100);
        assert!(!sb.first_is_lost());
        sb.apply_sack(&[SackBlock {
            start: 100,
            end: 400,
        }]);
        sb.update_loss_marks(3, 100);
        assert!(sb.first_is_lost());
        assert_eq!(sb.sacked_bytes(), 300);
        // Pipe: seg0 lost (0) + seg4, seg5 in flight.
        assert_eq!(sb.pipe(), 200);
        assert_eq!(sb.next_lost_segment(), Some(0));
        let rec = sb.mark_retransmitted(0, 5);
        assert_eq!(rec.transmissions, 2);
        // Retransmitted below HighRxt: counts once again.
        sb.set_high_rxt(100);
        assert_eq!(sb.pipe(), 300);
        assert_eq!(sb.next_lost_segment(), None);
    }

    #[test]
    fn cumulative_ack_removes_and_reports_karn() {
        let mut sb = board(4);
        sb.mark_retransmitted(1, 1);
        let s = sb.ack_to(200);
        assert_eq!(s.bytes, 200);
        assert_eq!(s.segments, 2);
        assert!(s.any_retransmitted);
        assert_eq!(sb.len(), 2);
        assert_eq!(sb.index_of(300), Some(1));
    }

    proptest::proptest! {
        /// `index_of` finds the segment that starts at `seq`, and only
        /// that, whatever the segments' lengths (its guess from the first
        /// segment's length is only a guess): as a scan of the records.
        #[test]
        fn index_of_is_the_segment_starting_there(
            lengths in proptest::collection::vec(1u64..2_000, 0..40),
            acked in 0usize..10,
            seqs in proptest::collection::vec(0u64..80_000, 1..20),
        ) {
            let mut sb = Scoreboard::new();
            let mut start = 1_000;
            for len in &lengths {
                sb.push_new(start, start + len, 0);
                start += len;
            }
            if let Some(s) = sb.get(acked.min(lengths.len().saturating_sub(1))) {
                let to = s.start;
                sb.ack_to(to);
            }
            let starts: Vec<u64> = (0..sb.len()).map(|i| sb.get(i).unwrap().start).collect();
            let probes = seqs.iter().copied().chain(starts.iter().copied());
            for seq in probes {
                let scan = starts.iter().position(|&s| s == seq);
                proptest::prop_assert_eq!(sb.index_of(seq), scan, "seq {}", seq);
            }
        }
    }

    /// NextSeg rule (1) (RFC 6675 §4, with RFC 8985 §6.2 step 5's
    /// marks) by the kept lost segments, in both forms (below the highest
    /// SACKed sequence, and after a timeout up to snd_max), is its scan
    /// from the first segment, and the kept sets are the scan's, on LONG
    /// scoreboards: hundreds to thousands of segments, where
    /// `next_lost_segment`'s debug check does not look, past the 4,096
    /// segments that give the sets a third level, with the front
    /// acknowledged thousands of times over (the sets' slots wrap), after
    /// every change a sender makes in a random order: new segments, SACK
    /// blocks, cumulative ACKs (some partial, trimming the first
    /// segment), IsLost's marks, RACK's marks (runs of them, as step 5
    /// marks), retransmissions in NextSeg's order and elsewhere, HighRxt
    /// moving forward and back, a timeout's marks, reneging and a
    /// spurious timeout's unmarking.
    #[test]
    fn lost_segments_equal_their_scans_on_long_scoreboards() {
        for seed in [21, 22, 23] {
            long_scoreboard_against_scans(seed, 12_000);
        }
    }

    /// The body of the test above: `steps` random changes from `seed`,
    /// the scoreboard drifting towards a length drawn every 1,500 steps.
    fn long_scoreboard_against_scans(seed: u64, steps: usize) {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut sb = Scoreboard::new();
        let (mut snd_una, mut snd_max) = (0u64, 0u64);
        let (mut target, mut peak, mut long_steps, mut found) = (0, 0, 0, 0);
        for step in 0..steps {
            if step % 1_500 == 0 {
                target = [80, 300, 1_500, 6_000][rng.gen_range(0..4)];
            }
            let now = step as TimeNs;
            let n = sb.len();
            let pick = |rng: &mut rand_chacha::ChaCha8Rng| rng.gen_range(0..n.max(1));
            match rng.gen_range(0..16) {
                0..=3 if n < target => {
                    // A burst of new segments, mostly full-sized.
                    let burst = if target > 1_000 { 40 } else { 8 };
                    for _ in 0..rng.gen_range(1..=burst) {
                        let len = [100, 100, 100, 37][rng.gen_range(0..4)];
                        sb.push_new(snd_max, snd_max + len, now);
                        snd_max += len;
                    }
                }
                0..=4 if n > 0 => {
                    snd_una = random_cumulative_ack(&mut rng, &sb, target);
                    sb.ack_to(snd_una);
                }
                5..=6 if n > 0 => {
                    // A SACK block over a few segments, or one wide one.
                    let a = pick(&mut rng);
                    let width = if rng.gen_bool(0.9) { 4 } else { n };
                    let b = (a + rng.gen_range(0..width)).min(n - 1);
                    let (start, end) = (sb.get(a).unwrap().start, sb.get(b).unwrap().end);
                    sb.apply_sack(&[SackBlock { start, end }]);
                }
                7 => sb.update_loss_marks(3, 100),
                8 if n > 0 => {
                    // RACK's marks: a run of segments, as step 5 marks
                    // those sent before RACK.xmit_ts.
                    let a = pick(&mut rng);
                    for i in a..n.min(a + rng.gen_range(1..20)) {
                        if !sb.get(i).unwrap().sacked {
                            sb.mark_rack_lost(i);
                        }
                    }
                }
                9..=10 if n > 0 => {
                    // A retransmission: NextSeg's (HighRxt to its end,
                    // RFC 6675 (C.1)), or of any segment.
                    let next = if rng.gen_bool(0.5) {
                        sb.next_lost_segment()
                    } else {
                        sb.next_lost_segment_any()
                    };
                    let i = next
                        .filter(|_| rng.gen_bool(0.8))
                        .unwrap_or_else(|| pick(&mut rng));
                    let rec = sb.mark_retransmitted(i, now);
                    if sb.high_rxt() < rec.end {
                        sb.set_high_rxt(rec.end);
                    }
                }
                11 => {
                    // HighRxt back to SND.UNA (a recovery or a timeout
                    // begins), or anywhere (inside segments too).
                    let to = if rng.gen_bool(0.5) {
                        snd_una
                    } else {
                        rng.gen_range(snd_una.saturating_sub(50)..=snd_max + 50)
                    };
                    sb.set_high_rxt(to);
                }
                12 if rng.gen_bool(0.1) => sb.mark_all_lost(),
                13 if rng.gen_bool(0.02) => sb.clear_sacks(),
                14 if rng.gen_bool(0.02) => sb.clear_loss_marks(),
                _ => {}
            }
            let kept = [sb.next_lost_segment(), sb.next_lost_segment_any()];
            let by_scan = [
                sb.next_lost_segment_by_scan(),
                sb.next_lost_segment_any_by_scan(),
            ];
            assert_eq!(kept, by_scan, "NextSeg rule (1) after step {step}");
            assert!(
                sb.lost_index_is_the_scan(),
                "lost segments after step {step}"
            );
            peak = peak.max(sb.len());
            if let Some(k) = sb.sets.as_deref() {
                // The capacity is the longest scoreboard's, rounded up to
                // a power of two (or 64), at most.
                let bound = peak.next_power_of_two().max(64);
                assert!(k.lost.capacity() <= bound, "capacity after step {step}");
                assert!(
                    k.rack_lost.capacity() <= bound,
                    "capacity after step {step}"
                );
            }
            long_steps += usize::from(sb.len() > 64);
            found += usize::from(kept[1].is_some());
        }
        assert!(peak > 4_096, "the sets never had a third level: {peak}");
        assert!(
            long_steps > steps / 2,
            "mostly short scoreboards: {long_steps}"
        );
        assert!(found > steps / 4, "too few lost segments found: {found}");
    }

    /// RFC 6675 Update() by the unSACKed segments' look-ups is its walk
    /// over every segment each block covers ([`Scoreboard::apply_sack_by_walk`]):
    /// two scoreboards given the same random changes, one applying SACK
    /// blocks by look-up and one by the walk, agree on every observable
    /// after every change (the bytes each ACK newly SACKs, every segment,
    /// the SACK counts, HighSACK, pipe's terms, RACK's deliveries in
    /// order and its index, the lost segments' sets), and the unSACKed
    /// segments' set is its scan. Long scoreboards (past 4,096 segments,
    /// the sets' third level) whose fronts are acknowledged thousands of
    /// times over; blocks as receivers send them (RFC 2018: the block
    /// holding the segment just received first, then the others; blocks
    /// growing by a segment an ACK, merging when a hole is filled, cut
    /// by cumulative ACKs) and as a misbehaving receiver may (unaligned,
    /// overlapping, repeated, below SND.UNA, beyond SND.MAX, reversed,
    /// empty, wide); interleaved with new segments, cumulative and
    /// partial ACKs, IsLost's, RACK's and a timeout's marks,
    /// retransmissions, HighRxt moving, reneging and a spurious
    /// timeout's unmarking; with RACK from the start, from midway, or
    /// never.
    #[test]
    fn sack_by_look_up_is_the_walk_on_long_scoreboards() {
        for (seed, rack_from) in [(31, Some(0)), (32, Some(5_000)), (33, None), (34, Some(0))] {
            sack_look_up_against_walk(seed, 12_000, rack_from);
        }
    }

    proptest::proptest! {
        /// Update() by look-up is the walk for any ACKs on a scoreboard
        /// of segments of any lengths (so that the searches' length
        /// guesses miss), with the front trimmed by a partial ACK, some
        /// segments deemed lost, with or without RACK: any blocks,
        /// bounds anywhere from below the first segment to beyond the
        /// last, each ACK compared on every observable.
        #[test]
        fn sack_by_look_up_is_the_walk_for_any_blocks(
            lengths in proptest::collection::vec(1u64..300, 0..120),
            trim in 0u64..400,
            rack in proptest::bool::ANY,
            lost_runs in proptest::collection::vec((0usize..120, 0usize..10), 0..4),
            acks in proptest::collection::vec(
                proptest::collection::vec((0u64..40_000, 0u64..40_000), 0..5),
                1..12,
            ),
        ) {
            let mut fast = Scoreboard::new();
            let mut start = 1_000;
            for len in &lengths {
                fast.push_new(start, start + len, 0);
                start += len;
            }
            fast.ack_to(1_000 + trim.min(start - 1_000));
            if rack {
                fast.track_for_rack();
            }
            for (from, run) in lost_runs {
                for i in from..(from + run).min(fast.len()) {
                    fast.mark_rack_lost(i);
                }
            }
            let mut walked = fast.clone();
            for ack in acks {
                let blocks: Vec<SackBlock> = ack
                    .iter()
                    .map(|&(a, b)| SackBlock { start: 900 + a, end: 900 + b })
                    .collect();
                fast.begin_ack();
                walked.begin_ack();
                let newly = fast.apply_sack_by_look_up(&blocks);
                proptest::prop_assert_eq!(newly, walked.apply_sack_by_walk(&blocks));
                proptest::prop_assert_eq!(fast.sack_observables(), walked.sack_observables());
                proptest::prop_assert!(fast.sack_index_is_the_scan());
            }
        }
    }

    /// One recovery over a window of n segments, timed by look-up and by
    /// the walk: segments 0, 100 and 200 are lost, the receiver gets the
    /// rest in order and each ACK carries its three latest blocks (the
    /// first growing by a segment an ACK, to n - 201). The walk's time
    /// grows as n^2, the look-ups' as n. A measurement, not a check: run with
    /// `cargo test --release -p airtcp-core --lib -- --ignored
    /// long_recovery --nocapture`.
    #[test]
    #[ignore]
    fn long_recovery_sack_cost() {
        for n in [8_000u64, 16_000, 32_000, 64_000] {
            let mut times = Vec::new();
            for by_look_up in [true, false] {
                let mut sb = Scoreboard::new();
                for i in 0..n {
                    sb.push_new(i * 1_000, (i + 1) * 1_000, 0);
                }
                let mut receiver = ReceiverRanges::default();
                let began = std::time::Instant::now();
                let mut newly = 0;
                for i in (1..n).filter(|i| ![100, 200].contains(i)) {
                    receiver.receive(i * 1_000, (i + 1) * 1_000);
                    let blocks = receiver.blocks(3);
                    sb.begin_ack();
                    newly += if by_look_up {
                        sb.apply_sack_by_look_up(&blocks)
                    } else {
                        sb.apply_sack_by_walk(&blocks)
                    };
                }
                times.push(began.elapsed());
                assert_eq!(newly, sb.sacked_bytes());
            }
            eprintln!(
                "{n} segments: by look-up {:?}, by the walk {:?}",
                times[0], times[1]
            );
        }
    }

    /// A receiver's out-of-order data, as the SACK blocks it sends
    /// (RFC 2018 §4): disjoint ranges, the one changed last first.
    #[derive(Default)]
    struct ReceiverRanges {
        ranges: Vec<(u64, u64)>,
    }

    impl ReceiverRanges {
        /// [start, end) arrives: merged with the ranges it touches, and
        /// the merged range moved first.
        fn receive(&mut self, start: u64, end: u64) {
            let (mut lo, mut hi) = (start, end);
            self.ranges.retain(|&(a, b)| {
                let touches = a <= hi && b >= lo;
                if touches {
                    (lo, hi) = (lo.min(a), hi.max(b));
                }
                !touches
            });
            self.ranges.insert(0, (lo, hi));
        }

        /// The cumulative ACK reached `ack`: the data below it is gone.
        fn ack_to(&mut self, ack: u64) {
            self.ranges.retain_mut(|r| {
                r.0 = r.0.max(ack);
                r.0 < r.1
            });
        }

        /// The blocks an ACK carries: at most `n`, the latest first.
        fn blocks(&self, n: usize) -> Vec<SackBlock> {
            let blocks = self.ranges.iter().take(n);
            blocks
                .map(|&(start, end)| SackBlock { start, end })
                .collect()
        }
    }

    /// Make the same change to both scoreboards.
    fn both(a: &mut Scoreboard, b: &mut Scoreboard, mut change: impl FnMut(&mut Scoreboard)) {
        change(a);
        change(b);
    }

    /// The body of the test above: `steps` random changes from `seed`,
    /// RACK's records kept from step `rack_from` (or never).
    fn sack_look_up_against_walk(seed: u64, steps: usize, rack_from: Option<usize>) {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let (mut fast, mut walked) = (Scoreboard::new(), Scoreboard::new());
        let mut receiver = ReceiverRanges::default();
        let (mut snd_una, mut snd_max) = (0u64, 0u64);
        let (mut peak, mut newly_segments, mut sack_steps) = (0, 0, 0);
        for step in 0..steps {
            // The length the scoreboard drifts towards: past 4,096
            // segments twice, and short between.
            let target = [6_000, 6_000, 300, 80, 1_500, 6_000, 6_000, 300][step / 1_500 % 8];
            if rack_from == Some(step) {
                fast.track_for_rack();
                walked.track_for_rack();
            }
            let now = step as TimeNs;
            let n = fast.len();
            let pick = |rng: &mut rand_chacha::ChaCha8Rng| rng.gen_range(0..n.max(1));
            let (mut blocks, mut cumulative_ack) = (Vec::new(), None);
            match rng.gen_range(0..20) {
                0..=3 if n < target => {
                    let burst = if target > 1_000 { 40 } else { 8 };
                    for _ in 0..rng.gen_range(1..=burst) {
                        let len = [100, 100, 100, 37][rng.gen_range(0..4)];
                        both(&mut fast, &mut walked, |sb| {
                            sb.push_new(snd_max, snd_max + len, now)
                        });
                        snd_max += len;
                    }
                }
                0..=4 if n > 0 => {
                    // With the receiver's blocks, as a real ACK carries
                    // them.
                    snd_una = random_cumulative_ack(&mut rng, &fast, target);
                    receiver.ack_to(snd_una);
                    cumulative_ack = Some(snd_una);
                    blocks = receiver.blocks(3);
                }
                5..=9 if n > 0 => {
                    // The receiver gets a segment: mostly the one after
                    // the end of its latest range (the block grows),
                    // else anywhere (a new block, or a hole filled).
                    let next = receiver
                        .ranges
                        .first()
                        .and_then(|&(_, end)| fast.index_of(end))
                        .filter(|_| rng.gen_bool(0.8));
                    let s = *fast.get(next.unwrap_or_else(|| pick(&mut rng))).unwrap();
                    receiver.receive(s.start, s.end);
                    blocks = receiver.blocks(rng.gen_range(1..=4));
                }
                10..=11 => {
                    // Blocks a receiver should not send: anywhere from
                    // below SND.UNA to beyond SND.MAX, unaligned,
                    // reversed, empty, overlapping, repeated, or wide.
                    for _ in 0..rng.gen_range(1..=4) {
                        let at = |rng: &mut rand_chacha::ChaCha8Rng| {
                            rng.gen_range(snd_una.saturating_sub(500)..=snd_max + 500)
                        };
                        let start = at(&mut rng);
                        let end = match rng.gen_range(0..4) {
                            0 => at(&mut rng),
                            1 => start + rng.gen_range(0..400),
                            2 => start,
                            _ => snd_max + rng.gen_range(0..200),
                        };
                        blocks.push(SackBlock { start, end });
                    }
                    if rng.gen_bool(0.2) {
                        blocks.push(blocks[0]);
                    }
                }
                12 => both(&mut fast, &mut walked, |sb| sb.update_loss_marks(3, 100)),
                13 if n > 0 => {
                    let a = pick(&mut rng);
                    let run = rng.gen_range(1..20);
                    both(&mut fast, &mut walked, |sb| {
                        for i in a..n.min(a + run) {
                            if !sb.get(i).unwrap().sacked {
                                sb.mark_rack_lost(i);
                            }
                        }
                    });
                }
                14..=15 if n > 0 => {
                    let i = fast
                        .next_lost_segment()
                        .filter(|_| rng.gen_bool(0.8))
                        .unwrap_or_else(|| pick(&mut rng));
                    both(&mut fast, &mut walked, |sb| {
                        let rec = sb.mark_retransmitted(i, now);
                        if sb.high_rxt() < rec.end {
                            sb.set_high_rxt(rec.end);
                        }
                    });
                }
                16 => {
                    let to = rng.gen_range(snd_una.saturating_sub(50)..=snd_max + 50);
                    both(&mut fast, &mut walked, |sb| sb.set_high_rxt(to));
                }
                17 if rng.gen_bool(0.1) => both(&mut fast, &mut walked, |sb| sb.mark_all_lost()),
                18 if rng.gen_bool(0.05) => {
                    // Reneging: the receiver forgot its ranges too.
                    receiver.ranges.clear();
                    both(&mut fast, &mut walked, |sb| sb.clear_sacks());
                }
                19 if rng.gen_bool(0.05) => {
                    both(&mut fast, &mut walked, |sb| sb.clear_loss_marks())
                }
                _ => {}
            }
            if !blocks.is_empty() || cumulative_ack.is_some() {
                // An ACK, as the sender takes it: its blocks, then its
                // cumulative acknowledgement.
                fast.begin_ack();
                walked.begin_ack();
                let newly = fast.apply_sack_by_look_up(&blocks);
                let walk_newly = walked.apply_sack_by_walk(&blocks);
                assert_eq!(newly, walk_newly, "newly SACKed at step {step}: {blocks:?}");
                if let Some(ack) = cumulative_ack {
                    fast.ack_to(ack);
                    walked.ack_to(ack);
                }
                newly_segments += usize::from(newly > 0);
                sack_steps += usize::from(!blocks.is_empty());
            }
            assert_eq!(
                fast.sack_observables(),
                walked.sack_observables(),
                "after step {step}: {blocks:?}"
            );
            assert!(
                fast.sack_index_is_the_scan(),
                "unSACKed set after step {step}"
            );
            assert!(fast.lost_index_is_the_scan(), "lost sets after step {step}");
            peak = peak.max(n);
        }
        assert!(peak > 4_096, "the sets never had a third level: {peak}");
        assert!(
            newly_segments > sack_steps / 10,
            "too few ACKs SACKed anything: {newly_segments} of {sack_steps}"
        );
    }

    /// A cumulative ACK for the random changes on long scoreboards: of
    /// many segments when the scoreboard is longer than its `target`
    /// length, else of one to three; sometimes inside a segment
    /// (trimming it).
    fn random_cumulative_ack(
        rng: &mut rand_chacha::ChaCha8Rng,
        sb: &Scoreboard,
        target: usize,
    ) -> u64 {
        use rand::Rng;
        let n = sb.len();
        let upto = if n > target { n - target + 1 } else { n.min(3) };
        let s = *sb.get(rng.gen_range(0..upto)).unwrap();
        if rng.gen_bool(0.3) {
            s.start + s.len() / 2
        } else {
            s.end
        }
    }

    proptest::proptest! {
        /// The set of bits by ordinal against an ordered set of
        /// positions, through insertions and removals at positions up to
        /// 20,000 (three levels), the first segment taken away (the slots
        /// wrap), growth, and a reset: the first member at or after every
        /// position probed, and the members.
        #[test]
        fn ordinal_bits_are_an_ordered_set_of_positions(
            ops in proptest::collection::vec((0u8..8, 0usize..20_000), 1..300),
            front in 0u64..1_000_000,
            probes in proptest::collection::vec(0usize..20_500, 1..10),
        ) {
            let mut bits = OrdinalBits::default();
            let mut model = std::collections::BTreeSet::new();
            let mut front = front;
            for (op, arg) in ops {
                // Small positions as often as large ones.
                let pos = if op % 2 == 0 { arg % 200 } else { arg };
                match op {
                    0..=3 => {
                        bits.assign(front, pos, true);
                        model.insert(pos);
                    }
                    4 | 5 => {
                        let pos = model.iter().nth(arg % model.len().max(1)).copied().unwrap_or(pos);
                        bits.assign(front, pos, false);
                        model.remove(&pos);
                    }
                    6 => {
                        // The first segment acknowledged: out, and every
                        // position one lower.
                        for _ in 0..=(arg % 50) {
                            bits.assign(front, 0, false);
                            front += 1;
                            model = model.into_iter().filter(|&p| p > 0).map(|p| p - 1).collect();
                        }
                    }
                    _ if arg % 10 == 0 => {
                        bits.reset(pos);
                        model.clear();
                    }
                    _ => {}
                }
                proptest::prop_assert!(bits.is_well_formed());
                let members: Vec<usize> = model.iter().copied().collect();
                proptest::prop_assert_eq!(bits.members(front), members);
                for &from in probes.iter().chain(&model) {
                    proptest::prop_assert_eq!(
                        bits.first_at_or_after(front, from),
                        model.range(from..).next().copied(),
                        "from {}", from
                    );
                }
            }
        }
    }

    /// The pipe kept up to date is RFC 6675's SetPipe scan, NextSeg's
    /// look-ups (rules (1) and (3), and rule (1)'s timeout form) are
    /// their scans from the first segment, and RACK's transmission-ordered
    /// index holds the segments a scan finds, after every
    /// change a sender makes, in a random order: new segments (some of
    /// uneven length), SACK blocks, cumulative and partial ACKs, loss
    /// marks (IsLost, a timeout's, RACK's step 5), retransmissions, HighRxt moving
    /// forward and back, reneging, and a spurious timeout's unmarking.
    /// The scan is checked for every size (`pipe` itself checks only small
    /// scoreboards in debug builds).
    #[test]
    fn every_kept_record_equals_its_scan_after_every_change() {
        random_changes_against_scans(11, Clock::EveryStep);
    }

    /// The same with a clock that often stands still, as a sender's does
    /// over the packets it sends at one ACK, and with RACK's step 5 run
    /// seldom: transmissions tie at one nanosecond, ordered by
    /// RACK_sent_after by end sequence (a retransmission sent after
    /// higher data in the same instant), a segment deemed lost and sent
    /// again in the nanosecond of its last transmission, cumulative ACKs
    /// of many segments, and many changes between two runs of step 5.
    #[test]
    fn kept_records_equal_their_scans_with_ties_and_seldom_step5() {
        for seed in [12, 13, 14] {
            random_changes_against_scans(seed, Clock::Stalling);
        }
    }

    /// How the random changes' transmission times advance.
    #[derive(Clone, Copy, PartialEq)]
    enum Clock {
        /// One nanosecond a change, RACK's step 5 at one change in 13.
        EveryStep,
        /// By 0 to 1 ns a change (mostly 0), step 5 a tenth as often.
        Stalling,
    }

    /// The body of the tests above: 20,000 random changes from `seed`,
    /// each followed by the kept records against their scans.
    fn random_changes_against_scans(seed: u64, clock: Clock) {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut sb = Scoreboard::new();
        let (mut snd_una, mut snd_max) = (0u64, 0u64);
        let mut peak = 0;
        let mut now = 0;
        let mut rack_marked = None;
        for step in 0..20_000 {
            now = match clock {
                Clock::EveryStep => step,
                Clock::Stalling => now + u64::from(rng.gen_bool(0.2)),
            };
            if step == 30 {
                // RACK's index, made over the segments already there.
                sb.track_for_rack();
            }
            let n = sb.len();
            let pick = |rng: &mut rand_chacha::ChaCha8Rng| rng.gen_range(0..n.max(1));
            match rng.gen_range(0..13) {
                0..=2 => {
                    let len = [100, 100, 100, 37][rng.gen_range(0..4)];
                    sb.push_new(snd_max, snd_max + len, now);
                    snd_max += len;
                }
                3 if n > 0 => {
                    let a = sb.get(pick(&mut rng)).unwrap().start;
                    let b = sb.get(pick(&mut rng)).unwrap().end;
                    sb.apply_sack(&[SackBlock {
                        start: a,
                        end: b.max(a),
                    }]);
                }
                4 if n > 0 => {
                    // A cumulative ACK, sometimes inside a segment; with
                    // the stalling clock, now and then of many segments
                    // (all leaving RACK's index at once).
                    let many = clock == Clock::Stalling && rng.gen_bool(0.05);
                    let upto = if many { n } else { n.min(4) };
                    let s = *sb.get(rng.gen_range(0..upto)).unwrap();
                    snd_una = if rng.gen_bool(0.3) {
                        s.start + s.len() / 2
                    } else {
                        s.end
                    };
                    sb.ack_to(snd_una);
                }
                5 => {
                    // IsLost by its frontier against the backward pass.
                    let mut passed = sb.clone();
                    passed.update_loss_marks_by_scan(3, 100);
                    sb.update_loss_marks(3, 100);
                    assert_eq!(sb.segs, passed.segs, "IsLost after step {step}");
                }
                6 if n > 0 && rng.gen_bool(0.1) => sb.mark_all_lost(),
                7 if n > 0 => {
                    let i = pick(&mut rng);
                    sb.mark_rack_lost(i);
                    rack_marked = sb.get(i).map(|s| s.start);
                }
                8 if n > 0 => {
                    // With the stalling clock, often the segment RACK
                    // deemed lost last, so that some are sent again in
                    // the nanosecond of their last transmission.
                    let again = rack_marked
                        .filter(|_| clock == Clock::Stalling && rng.gen_bool(0.5))
                        .and_then(|start| sb.index_of(start));
                    let i = again.unwrap_or_else(|| pick(&mut rng));
                    let rec = sb.mark_retransmitted(i, now);
                    if rng.gen_bool(0.8) && sb.high_rxt() < rec.end {
                        sb.set_high_rxt(rec.end);
                    }
                }
                9 => {
                    let to = if rng.gen_bool(0.5) {
                        snd_una
                    } else {
                        rng.gen_range(0..=snd_max)
                    };
                    sb.set_high_rxt(to);
                }
                10 if rng.gen_bool(0.05) => sb.clear_sacks(),
                11 if rng.gen_bool(0.05) => sb.clear_loss_marks(),
                12 if n > 0 && (clock == Clock::EveryStep || rng.gen_bool(0.1)) => {
                    // RACK's step 5 for a segment just delivered, against
                    // its walk from the first segment.
                    let s = *sb.get(pick(&mut rng)).unwrap();
                    let rack = RackStep5 {
                        xmit_ts_ns: s.last_sent_ns,
                        end_seq: s.end,
                        wait_ns: rng.gen_range(0..40),
                        now_ns: now + rng.gen_range(0..5),
                    };
                    let mut walked = sb.clone();
                    let found = sb.mark_rack_expired(rack);
                    let by_scan = walked.mark_rack_expired_by_scan(rack);
                    assert_eq!((found, &sb.segs), (by_scan, &walked.segs), "step {step}");
                }
                _ => {}
            }
            assert_eq!(sb.pipe(), sb.pipe_by_scan(), "after step {step}");
            let next_seg = |sb: &Scoreboard| {
                [
                    sb.next_lost_segment(),
                    sb.next_lost_segment_any(),
                    sb.next_unsacked_segment(),
                ]
            };
            let by_scan = [
                sb.next_lost_segment_by_scan(),
                sb.next_lost_segment_any_by_scan(),
                sb.next_unsacked_segment_by_scan(),
            ];
            assert_eq!(next_seg(&sb), by_scan, "NextSeg after step {step}");
            assert!(
                sb.rack_index_is_the_scan(),
                "RACK's index after step {step}"
            );
            peak = peak.max(sb.len());
        }
        assert!(
            peak > 100,
            "the scoreboard grew past the debug check's size"
        );
    }
}
