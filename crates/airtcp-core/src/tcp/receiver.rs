//! The TCP data receiver, sans-I/O: cumulative ACKs, delayed ACKs (RFC 5681
//! §4.2, RFC 1122 §4.2.3.2), immediate ACKs for out-of-order and
//! gap-filling segments, SACK blocks (RFC 2018) with optional D-SACK
//! (RFC 2883), timestamp echo (RFC 7323
//! §4.3), ECN echo (RFC 3168 §6.1.3) and multi-level ECN echo (WMECN
//! paper §2.2, `crate::tcp::mecn`).

use crate::net::packet::{flags, Ecn, Packet, PacketKind, SackBlock, DEFAULT_TTL, MAX_SACK_BLOCKS};
use crate::sim::TimeNs;
use crate::tcp::mecn::{self, MecnLevel};

#[derive(Clone, Debug, PartialEq)]
pub struct ReceiverConfig {
    pub flow: u32,
    pub epoch: u32,
    /// The receiver's node (source of its ACKs) and the data sender's.
    pub src: u32,
    pub dst: u32,
    /// Advertised receive window in bytes (the application reads at once,
    /// so it stays constant).
    pub rwnd_bytes: u64,
    pub sack: bool,
    /// RFC 2883 D-SACK: the first SACK block of the ACK a wholly duplicate
    /// segment triggers reports that segment (with `sack`).
    pub dsack: bool,
    pub timestamps: bool,
    pub ecn: bool,
    /// Multi-level ECN: each ACK echoes, in bits 8 and 9, the highest level
    /// carried by the data segments it is the first ACK after (per ACK, not
    /// held until CWR: the WMECN source's filtering context wants one
    /// feedback per ACK, §3.2).
    pub mecn: bool,
    /// Delayed ACKs: ACK every `delack_segments`-th full-sized segment or
    /// after `delack_timeout_ns`; None = ACK every segment.
    pub delack_timeout_ns: Option<TimeNs>,
    pub delack_segments: u32,
    /// Full-sized segment length, for the delayed-ACK count.
    pub mss: u32,
}

#[derive(Clone, Debug, Default)]
pub struct ReceiverStats {
    /// Bytes delivered in order to the application (goodput numerator).
    pub delivered_bytes: u64,
    /// Payload bytes that arrived at least twice.
    pub duplicate_bytes: u64,
    /// All payload bytes that arrived, duplicates included.
    pub received_bytes: u64,
    pub segments_received: u64,
    pub acks_sent: u64,
    /// ACKs sent with the acknowledgment number of the ACK sent before
    /// (RFC 5681 §2's duplicate ACK, as the receiver emits it).
    pub duplicate_acks: u64,
    pub ce_marked_segments: u64,
}

impl ReceiverStats {
    /// Add a closed connection's counters to these totals (see
    /// `SenderStats::add`).
    pub fn add(&mut self, other: &ReceiverStats) {
        let ReceiverStats {
            delivered_bytes,
            duplicate_bytes,
            received_bytes,
            segments_received,
            acks_sent,
            duplicate_acks,
            ce_marked_segments,
        } = other;
        self.delivered_bytes += delivered_bytes;
        self.duplicate_bytes += duplicate_bytes;
        self.received_bytes += received_bytes;
        self.segments_received += segments_received;
        self.acks_sent += acks_sent;
        self.duplicate_acks += duplicate_acks;
        self.ce_marked_segments += ce_marked_segments;
    }
}

pub struct TcpReceiver {
    pub cfg: ReceiverConfig,
    pub rcv_nxt: u64,
    /// Out-of-order data above rcv_nxt: disjoint, sorted [start, end).
    ooo: Vec<(u64, u64)>,
    /// Starts of recently received out-of-order segments, most recent
    /// first (RFC 2018 §4 block order).
    recent: [u64; MAX_SACK_BLOCKS],
    recent_len: usize,
    /// A duplicate segment to report in the next ACK's first block.
    dsack_block: Option<SackBlock>,
    unacked_segments: u32,
    pub delack_deadline: Option<TimeNs>,
    /// RFC 7323 TS.Recent and Last.ACK.sent.
    ts_recent: u64,
    last_ack_sent: u64,
    /// RFC 3168 §6.1.3: send ECE until a CWR arrives.
    ece: bool,
    /// Highest MECN level since the last ACK.
    mecn_level: MecnLevel,
    pub stats: ReceiverStats,
}

impl TcpReceiver {
    pub fn new(cfg: ReceiverConfig) -> Self {
        Self {
            cfg,
            rcv_nxt: 0,
            ooo: Vec::new(),
            recent: [0; MAX_SACK_BLOCKS],
            recent_len: 0,
            dsack_block: None,
            unacked_segments: 0,
            delack_deadline: None,
            ts_recent: 0,
            last_ack_sent: 0,
            ece: false,
            mecn_level: MecnLevel::NotCapable,
            stats: ReceiverStats::default(),
        }
    }

    pub fn next_deadline(&self) -> Option<TimeNs> {
        self.delack_deadline
    }

    /// Delayed-ACK timer.
    pub fn on_timer(&mut self, now_ns: TimeNs, out: &mut Vec<Packet>) {
        if self.delack_deadline.is_some_and(|d| d <= now_ns) {
            self.send_ack(now_ns, out);
        }
    }

    /// Process a segment from the data sender.
    pub fn on_packet(&mut self, now_ns: TimeNs, pkt: &Packet, out: &mut Vec<Packet>) {
        if pkt.has_flag(flags::SYN) {
            if pkt.has_ts {
                self.ts_recent = pkt.ts_val;
            }
            self.send_syn_ack(now_ns, out);
            return;
        }
        self.stats.segments_received += 1;
        // RFC 3168 §6.1.3: CWR stops the echo; a CE mark (re)starts it.
        if pkt.has_flag(flags::CWR) {
            self.ece = false;
        }
        if self.cfg.mecn {
            self.mecn_level = self.mecn_level.max(MecnLevel::of_ip(pkt.ecn));
        }
        if pkt.ecn == Ecn::Ce {
            self.stats.ce_marked_segments += 1;
            // RFC 3168 §6.1.5: "SHOULD ignore the ECN field on arriving
            // data packets that are outside of the receiver's current
            // window" (a copy of data already received, say).
            let in_window = pkt.end_seq() > self.rcv_nxt
                && pkt.seq < self.rcv_nxt.saturating_add(self.cfg.rwnd_bytes);
            if self.cfg.ecn && in_window {
                self.ece = true;
            }
        }
        // RFC 7323 §4.3: update TS.Recent if the segment covers Last.ACK.sent.
        if pkt.has_ts && pkt.seq <= self.last_ack_sent && pkt.ts_val >= self.ts_recent {
            self.ts_recent = pkt.ts_val;
        }
        let (start, end) = (pkt.seq, pkt.end_seq());
        self.stats.received_bytes += pkt.payload_len as u64;
        if end <= self.rcv_nxt {
            // Entirely old: a duplicate. ACK at once (RFC 9293 §3.10.7.4).
            self.stats.duplicate_bytes += pkt.payload_len as u64;
            self.note_duplicate(start, end);
            self.send_ack(now_ns, out);
            return;
        }
        let had_gap = !self.ooo.is_empty();
        if start <= self.rcv_nxt {
            self.stats.duplicate_bytes += self.rcv_nxt - start;
            self.advance(end);
            if had_gap {
                // RFC 5681 §4.2: ACK at once when a segment fills a gap.
                self.send_ack(now_ns, out);
            } else {
                self.ack_in_order(now_ns, pkt, out);
            }
        } else {
            if self.ooo.iter().any(|&(s, e)| s <= start && end <= e) {
                self.note_duplicate(start, end);
            }
            self.insert_out_of_order(start, end);
            // RFC 5681 §4.2: an out-of-order segment is ACKed at once.
            self.send_ack(now_ns, out);
        }
    }

    fn ack_in_order(&mut self, now_ns: TimeNs, pkt: &Packet, out: &mut Vec<Packet>) {
        match self.cfg.delack_timeout_ns {
            None => self.send_ack(now_ns, out),
            Some(timeout) => {
                if pkt.payload_len >= self.cfg.mss {
                    self.unacked_segments += 1;
                }
                // While echoing ECE (RFC 3168 §6.1.3), ACK at once: the RFC
                // allows delaying, but the echo then waits for a second
                // segment or the timer while the sender's window may be
                // small (docs/tcp-conformance.md, RFC 3168 rows).
                if self.unacked_segments >= self.cfg.delack_segments || self.ece {
                    self.send_ack(now_ns, out);
                } else if self.delack_deadline.is_none() {
                    self.delack_deadline = Some(now_ns + timeout);
                }
            }
        }
    }

    /// Deliver in-order data up to `end` and everything contiguous after it.
    fn advance(&mut self, end: u64) {
        let (seg_lo, seg_hi) = (self.rcv_nxt, end);
        let mut new_nxt = end.max(self.rcv_nxt);
        let mut dup = 0;
        let mut keep = 0;
        for i in 0..self.ooo.len() {
            let (s, e) = self.ooo[i];
            if s <= new_nxt {
                // Bytes of the new segment already held out of order.
                dup += e.min(seg_hi).saturating_sub(s.max(seg_lo));
                new_nxt = new_nxt.max(e);
            } else {
                self.ooo[keep] = (s, e);
                keep += 1;
            }
        }
        self.ooo.truncate(keep);
        self.stats.duplicate_bytes += dup;
        self.stats.delivered_bytes += new_nxt - self.rcv_nxt;
        self.rcv_nxt = new_nxt;
    }

    fn insert_out_of_order(&mut self, start: u64, end: u64) {
        // Count bytes already held as duplicates, then merge.
        let mut dup = 0;
        for &(s, e) in &self.ooo {
            let lo = s.max(start);
            let hi = e.min(end);
            if hi > lo {
                dup += hi - lo;
            }
        }
        self.stats.duplicate_bytes += dup;
        let mut ns = start;
        let mut ne = end;
        self.ooo.retain(|&(s, e)| {
            if e < ns || s > ne {
                true
            } else {
                ns = ns.min(s);
                ne = ne.max(e);
                false
            }
        });
        let pos = self.ooo.partition_point(|&(s, _)| s < ns);
        self.ooo.insert(pos, (ns, ne));
        // RFC 2018 §4: the block holding this segment goes first.
        let mut recent = [start; MAX_SACK_BLOCKS];
        let mut n = 1;
        for &r in &self.recent[..self.recent_len] {
            if n < MAX_SACK_BLOCKS && !(r >= ns && r < ne) {
                recent[n] = r;
                n += 1;
            }
        }
        self.recent = recent;
        self.recent_len = n;
    }

    /// RFC 2883 §4: report [start, end), which arrived before, in the next
    /// ACK's first block.
    fn note_duplicate(&mut self, start: u64, end: u64) {
        if self.cfg.dsack && self.cfg.sack {
            self.dsack_block = Some(SackBlock { start, end });
        }
    }

    /// SACK blocks for the next ACK: a D-SACK block first (RFC 2883 §4),
    /// then most recent first (RFC 2018 §4).
    fn sack_blocks(&self, blocks: &mut [SackBlock; MAX_SACK_BLOCKS]) -> u8 {
        let max = if self.cfg.timestamps {
            3
        } else {
            MAX_SACK_BLOCKS
        };
        let mut n = 0;
        if let Some(d) = self.dsack_block {
            blocks[0] = d;
            n = 1;
        }
        for &r in &self.recent[..self.recent_len] {
            if n == max {
                break;
            }
            if let Some(&(s, e)) = self.ooo.iter().find(|&&(s, e)| r >= s && r < e) {
                if !blocks[self.dsack_block.is_some() as usize..n]
                    .iter()
                    .any(|b| b.start == s)
                {
                    blocks[n] = SackBlock { start: s, end: e };
                    n += 1;
                }
            }
        }
        n as u8
    }

    fn ack_packet(&self, now_ns: TimeNs) -> Packet {
        let mut p = Packet {
            kind: PacketKind::TcpAck,
            flow: self.cfg.flow,
            epoch: self.cfg.epoch,
            src: self.cfg.src,
            dst: self.cfg.dst,
            ttl: DEFAULT_TTL,
            flags: flags::ACK,
            ack: self.rcv_nxt,
            wnd: self.cfg.rwnd_bytes,
            has_ts: self.cfg.timestamps,
            ts_val: now_ns,
            ts_ecr: self.ts_recent,
            sent_ns: now_ns,
            ..Default::default()
        };
        if self.ece {
            p.flags |= flags::ECE;
        }
        if self.cfg.mecn {
            mecn::set_echo(&mut p, self.mecn_level);
        }
        if self.cfg.sack {
            p.sack_count = self.sack_blocks(&mut p.sack);
        }
        p
    }

    fn send_ack(&mut self, now_ns: TimeNs, out: &mut Vec<Packet>) {
        let p = self.ack_packet(now_ns);
        if self.stats.acks_sent > 0 && p.ack == self.last_ack_sent {
            self.stats.duplicate_acks += 1;
        }
        self.last_ack_sent = self.rcv_nxt;
        self.dsack_block = None;
        self.mecn_level = MecnLevel::NotCapable;
        self.unacked_segments = 0;
        self.delack_deadline = None;
        self.stats.acks_sent += 1;
        out.push(p);
    }

    fn send_syn_ack(&mut self, now_ns: TimeNs, out: &mut Vec<Packet>) {
        let mut p = self.ack_packet(now_ns);
        p.flags = flags::SYN | flags::ACK | if self.cfg.ecn { flags::ECE } else { 0 };
        p.sack_count = 0;
        self.stats.acks_sent += 1;
        out.push(p);
    }

    /// Has the receiver got the byte at `seq` (in order or out of order)?
    pub fn holds(&self, seq: u64) -> bool {
        seq < self.rcv_nxt || self.ooo.iter().any(|&(s, e)| seq >= s && seq < e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rx(sack: bool, delack: Option<TimeNs>) -> TcpReceiver {
        TcpReceiver::new(ReceiverConfig {
            flow: 0,
            epoch: 0,
            src: 1,
            dst: 0,
            rwnd_bytes: 1 << 20,
            sack,
            dsack: false,
            timestamps: false,
            ecn: true,
            mecn: false,
            delack_timeout_ns: delack,
            delack_segments: 2,
            mss: 100,
        })
    }

    fn seg(seq: u64) -> Packet {
        Packet {
            kind: PacketKind::TcpData,
            seq,
            payload_len: 100,
            flags: flags::ACK,
            ..Default::default()
        }
    }

    #[test]
    fn sack_blocks_most_recent_first() {
        let mut r = rx(true, None);
        let mut out = Vec::new();
        for s in [0, 200, 400, 300, 700] {
            r.on_packet(0, &seg(s), &mut out);
        }
        let last = out.last().unwrap();
        assert_eq!(last.ack, 100);
        assert_eq!(
            last.sack_blocks(),
            &[
                SackBlock {
                    start: 700,
                    end: 800
                },
                SackBlock {
                    start: 200,
                    end: 500
                }
            ]
        );
        // Fill the gap: immediate cumulative ACK, one block remains.
        r.on_packet(0, &seg(100), &mut out);
        let last = out.last().unwrap();
        assert_eq!(last.ack, 500);
        assert_eq!(
            last.sack_blocks(),
            &[SackBlock {
                start: 700,
                end: 800
            }]
        );
        assert_eq!(r.stats.delivered_bytes, 500);
    }

    #[test]
    fn delayed_ack_every_second_segment_or_timer() {
        let mut r = rx(false, Some(200_000_000));
        let mut out = Vec::new();
        r.on_packet(0, &seg(0), &mut out);
        assert!(out.is_empty());
        assert_eq!(r.next_deadline(), Some(200_000_000));
        r.on_packet(10, &seg(100), &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].ack, 200);
        r.on_packet(20, &seg(200), &mut out);
        assert_eq!(out.len(), 1);
        r.on_timer(200_000_020, &mut out);
        assert_eq!(out.len(), 2);
        assert_eq!(out[1].ack, 300);
    }

    #[test]
    fn duplicates_counted_and_ece_until_cwr() {
        let mut r = rx(false, None);
        let mut out = Vec::new();
        let mut ce = seg(0);
        ce.ecn = Ecn::Ce;
        r.on_packet(0, &ce, &mut out);
        r.on_packet(0, &seg(0), &mut out);
        assert_eq!(r.stats.duplicate_bytes, 100);
        assert!(out[1].has_flag(flags::ECE));
        let mut cwr = seg(100);
        cwr.flags |= flags::CWR;
        r.on_packet(0, &cwr, &mut out);
        assert!(!out[2].has_flag(flags::ECE));
    }

    /// RFC 5681 §4.2: "A TCP receiver SHOULD send an immediate duplicate ACK
    /// when an out-of-order segment arrives"; the ACK that fills the gap is
    /// not a duplicate. §2's definition counts an ACK that repeats the
    /// previous acknowledgment number.
    #[test]
    fn duplicate_acks_are_counted_as_sent() {
        let mut r = rx(false, None);
        let mut out = Vec::new();
        for s in [0, 200, 300, 400] {
            r.on_packet(0, &seg(s), &mut out);
        }
        let acks: Vec<u64> = out.iter().map(|p| p.ack).collect();
        assert_eq!(acks, vec![100, 100, 100, 100]);
        assert_eq!(r.stats.duplicate_acks, 3);
        r.on_packet(0, &seg(100), &mut out);
        assert_eq!(out.last().unwrap().ack, 500);
        assert_eq!(r.stats.duplicate_acks, 3);
    }
}
