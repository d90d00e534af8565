//! The sender's record of every segment between snd_una and snd_max: its
//! boundaries, SACK state, loss marks and retransmissions. It is the RFC 6675
//! scoreboard for SACK senders and the retransmission queue for all.

use std::collections::VecDeque;

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
    /// Keep `delivered` (RACK, RFC 8985 §6.2 steps 2-3); off otherwise.
    pub track_delivered: bool,
    /// The segments the ACK being processed SACKed or cumulatively
    /// acknowledged for the first time (cleared by `begin_ack`).
    delivered: Vec<SegmentRecord>,
    /// Loss marks ever made (a segment deemed lost, or a lost
    /// retransmission RACK marks again): a count that only grows, so that
    /// an ACK's loss detection can be told to have found a new loss
    /// (RFC 9937's SafeACK).
    loss_marks: u64,
}

/// What a cumulative ACK removed from the scoreboard.
#[derive(Clone, Copy, Debug, Default)]
pub struct AckedSummary {
    pub bytes: u64,
    pub segments: u32,
    /// Some acknowledged segment had been retransmitted (Karn's rule).
    pub any_retransmitted: bool,
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
        self.highest_sacked_end = 0;
        self.sacked_bytes = 0;
        self.sacked_segments = 0;
        self.delivered.clear();
    }

    /// An ACK is about to be applied: forget the last one's deliveries.
    pub fn begin_ack(&mut self) {
        self.delivered.clear();
    }

    /// Whole segments the current ACK delivered (SACKed or cumulatively
    /// acknowledged for the first time), as they were before it; only
    /// kept when `track_delivered` is set.
    pub fn delivered(&self) -> &[SegmentRecord] {
        &self.delivered
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

    /// Record a first transmission of [start, end).
    pub fn push_new(&mut self, start: u64, end: u64, now_ns: TimeNs) {
        debug_assert!(self.segs.back().is_none_or(|s| s.end == start));
        self.segs.push_back(SegmentRecord {
            start,
            end,
            sacked: false,
            lost: false,
            retransmitted: false,
            rack_lost: false,
            transmissions: 1,
            last_sent_ns: now_ns,
        });
    }

    /// Index of the segment starting at `seq`.
    pub fn index_of(&self, seq: u64) -> Option<usize> {
        let front = self.segs.front()?;
        if seq < front.start {
            return None;
        }
        // Segments are contiguous and never empty; most are as long as the
        // first, so try the index that gives before the binary search (one
        // record read, where the search reads several, each out of cache
        // with many flows).
        let guess = usize::try_from((seq - front.start) / front.len().max(1)).unwrap_or(usize::MAX);
        if self.segs.get(guess).is_some_and(|s| s.start == seq) {
            return Some(guess);
        }
        self.segs.binary_search_by(|s| s.start.cmp(&seq)).ok()
    }

    /// Record a retransmission of the segment at index `i`.
    pub fn mark_retransmitted(&mut self, i: usize, now_ns: TimeNs) -> SegmentRecord {
        let s = &mut self.segs[i];
        s.retransmitted = true;
        s.rack_lost = false;
        s.transmissions += 1;
        s.last_sent_ns = now_ns;
        *s
    }

    /// Remove everything below the cumulative ACK `ack`.
    pub fn ack_to(&mut self, ack: u64) -> AckedSummary {
        let mut sum = AckedSummary::default();
        while let Some(front) = self.segs.front_mut() {
            if front.end <= ack {
                sum.bytes += front.len();
                sum.segments += 1;
                sum.any_retransmitted |= front.retransmitted;
                if front.sacked {
                    self.sacked_bytes -= front.len();
                    self.sacked_segments -= 1;
                } else if self.track_delivered {
                    self.delivered.push(*front);
                }
                self.segs.pop_front();
            } else {
                if front.start < ack {
                    // A partial acknowledgement of a segment: trim it.
                    let cut = ack - front.start;
                    sum.bytes += cut;
                    sum.any_retransmitted |= front.retransmitted;
                    if front.sacked {
                        self.sacked_bytes -= cut;
                    }
                    front.start = ack;
                }
                break;
            }
        }
        sum
    }

    /// Mark segments wholly inside the SACK blocks; returns newly SACKed bytes
    /// (RFC 6675 §5 "Update()").
    pub fn apply_sack(&mut self, blocks: &[SackBlock]) -> u64 {
        let mut newly = 0;
        for b in blocks {
            if b.end <= b.start {
                continue;
            }
            let start_idx = self.segs.partition_point(|s| s.end <= b.start);
            for s in self.segs.range_mut(start_idx..) {
                if s.start >= b.end {
                    break;
                }
                if !s.sacked && s.start >= b.start && s.end <= b.end {
                    if self.track_delivered {
                        self.delivered.push(*s);
                    }
                    s.sacked = true;
                    newly += s.len();
                    self.sacked_segments += 1;
                }
            }
            if b.end > self.highest_sacked_end {
                self.highest_sacked_end = b.end;
            }
        }
        self.sacked_bytes += newly;
        newly
    }

    /// RFC 6675 §4 IsLost for every unSACKed segment: lost when DupThresh
    /// discontiguous SACKed segments, or more than (DupThresh - 1) * SMSS
    /// SACKed bytes, lie above it. One backward pass; marks are sticky.
    pub fn update_loss_marks(&mut self, dupthresh: u32, mss: u64) {
        let mut sacked_above_bytes = 0u64;
        let mut sacked_above_segs = 0u32;
        for s in self.segs.iter_mut().rev() {
            if s.sacked {
                sacked_above_bytes += s.len();
                sacked_above_segs += 1;
            } else if sacked_above_segs >= dupthresh
                || sacked_above_bytes > (dupthresh as u64 - 1) * mss
            {
                self.loss_marks += u64::from(!s.lost);
                s.lost = true;
            }
        }
    }

    /// RFC 6675 §4 IsLost for the first outstanding segment.
    pub fn first_is_lost(&self) -> bool {
        self.segs.front().is_some_and(|s| s.lost)
    }

    /// After a retransmission timeout (RFC 6675 §5.1): every unSACKed
    /// segment is considered lost.
    pub fn mark_all_lost(&mut self) {
        for s in self.segs.iter_mut() {
            if !s.sacked {
                self.loss_marks += u64::from(!s.lost);
                s.lost = true;
            }
        }
    }

    /// Forget every loss mark (a timeout turned out spurious).
    pub fn clear_loss_marks(&mut self) {
        for s in self.segs.iter_mut() {
            s.lost = false;
            s.rack_lost = false;
        }
    }

    /// RACK marks the segment at index `i` lost (RFC 8985 §6.2 step 5).
    pub fn mark_rack_lost(&mut self, i: usize) {
        let s = &mut self.segs[i];
        self.loss_marks += u64::from(!s.rack_lost);
        s.lost = true;
        s.rack_lost = true;
    }

    /// Loss marks made so far (see the field).
    pub fn loss_marks(&self) -> u64 {
        self.loss_marks
    }

    /// RFC 2018 §8 allows the receiver to renege: forget all SACK state.
    pub fn clear_sacks(&mut self) {
        for s in self.segs.iter_mut() {
            s.sacked = false;
        }
        self.sacked_bytes = 0;
        self.sacked_segments = 0;
        self.highest_sacked_end = 0;
    }

    /// RFC 6675 §4 SetPipe: bytes believed in flight. An unSACKed segment
    /// counts once unless it is deemed lost, and once more if it was
    /// retransmitted at or below HighRxt (unless RACK found that
    /// retransmission lost).
    pub fn pipe(&self, high_rxt: u64) -> u64 {
        let mut pipe = 0;
        for s in &self.segs {
            if s.sacked {
                continue;
            }
            if !s.lost {
                pipe += s.len();
            }
            if s.retransmitted && s.start < high_rxt && !s.rack_lost {
                pipe += s.len();
            }
        }
        pipe
    }

    /// RFC 6675 §4 NextSeg rule (1): the first unSACKed segment at or above
    /// HighRxt that is lost and lies below the highest SACKed sequence; or
    /// one RACK deemed lost (RFC 8985: its time-based marks need no SACK
    /// above the segment, and a lost retransmission is sent again).
    pub fn next_lost_segment(&self, high_rxt: u64) -> Option<usize> {
        self.segs.iter().position(|s| {
            !s.sacked
                && (s.rack_lost
                    || (s.start >= high_rxt && s.lost && s.start < self.highest_sacked_end))
        })
    }

    /// Like [`Self::next_lost_segment`] without the "below the highest SACKed"
    /// condition: after a timeout every unSACKed segment up to snd_max is a
    /// retransmission candidate (RFC 6675 §5.1).
    pub fn next_lost_segment_any(&self, high_rxt: u64) -> Option<usize> {
        self.segs
            .iter()
            .position(|s| !s.sacked && (s.rack_lost || (s.start >= high_rxt && s.lost)))
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
    /// the highest SACKed sequence, even if not deemed lost.
    pub fn next_unsacked_segment(&self, high_rxt: u64) -> Option<usize> {
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
        assert_eq!(sb.pipe(0), 200);
        assert_eq!(sb.next_lost_segment(0), Some(0));
        let rec = sb.mark_retransmitted(0, 5);
        assert_eq!(rec.transmissions, 2);
        // Retransmitted below HighRxt: counts once again.
        assert_eq!(sb.pipe(100), 300);
        assert_eq!(sb.next_lost_segment(100), None);
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
}
