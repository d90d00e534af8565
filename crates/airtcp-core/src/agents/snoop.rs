//! The Snoop agent (H. Balakrishnan, S. Seshan, R. H. Katz, "Improving
//! TCP/IP performance over wireless networks", MobiCom '95), placed on the
//! node before the wireless hop (the base station): data flows through it
//! towards the mobile host, ACKs come back through it.
//!
//! What it does, following the paper's two routines (its `snoop_data` and
//! `snoop_ack` flowcharts):
//!
//! * **Data from the fixed host** (`snoop_data`): a new segment in the normal
//!   sequence is cached and forwarded. An out-of-sequence segment that was
//!   cached before is a sender retransmission: it is forwarded and marked
//!   "retransmitted by the sender" (the duplicate ACKs for it then go to the
//!   sender). An out-of-sequence segment not cached before (lost upstream or
//!   reordered) is cached, marked the same way, and forwarded. Segments
//!   already acknowledged by the mobile host are forwarded untouched (the
//!   paper drops them and regenerates the ACK; the ns-2 reference, like us,
//!   forwards them, and the receiver ACKs the duplicate itself).
//! * **ACKs from the mobile host** (`snoop_ack`): a new ACK cleans the
//!   cache, gives a local RTT sample, and is forwarded. A duplicate ACK for a
//!   segment that is cached and was not retransmitted by the sender is a
//!   wireless loss: the **first** one triggers a local retransmission and is
//!   suppressed, and the agent expects one duplicate ACK per segment it
//!   forwarded after the lost one, suppressing those too ("estimate number
//!   of expected duplicate ACKs, based on # of packets sent after missing
//!   one"). Duplicate ACKs beyond that count, or for segments not cached or
//!   retransmitted by the sender, are forwarded: the sender must see them.
//!   ACKs older than the last one seen are forwarded (as ns-2 does; the
//!   paper drops them, which changes nothing for a Reno sender).
//! * **Local retransmission timer**: per connection, on the oldest
//!   unacknowledged cached segment, with timeout `srtt + max(4 rttvar,
//!   min_timeout)` from a smoothed estimate of the **local** round trip
//!   (agent -> mobile host -> agent) as the paper prescribes. Our choice of
//!   estimator: RFC 6298's gains (alpha = 1/8, beta = 1/4) on samples taken
//!   when a new ACK cleans a segment that was sent once (Karn's rule), and
//!   `initial_timeout` before the first sample. When it fires and the oldest
//!   segment is still the one the mobile host waits for, the segment is
//!   retransmitted locally, at most `max_local_rxmits` times per segment
//!   (ns-2 allows 2).
//!
//! **Duplicate segments** (our choice, not in the paper): a receiver answers
//! a duplicate segment (a spurious local or sender retransmission) with an
//! ACK identical to a duplicate ACK. Taken as a loss report, it would make
//! the agent resend the in-flight head segment, whose copy is again a
//! duplicate: a cascade. A duplicate ACK is therefore taken as a loss report
//! only if the head segment was forwarded at least the smallest local RTT
//! sample ago (a duplicate ACK caused by a segment forwarded after the head
//! cannot arrive sooner); earlier ones are forwarded as `echo_dupacks`.
//! ns-2's snoop.cc avoids the cascade differently, by ignoring the first
//! duplicate ACK (`RTX_THRESH`), which contradicts the paper's "first
//! duplicate ACK" rule.
//!
//! Simplifications, documented: local retransmissions join the link's FIFO
//! queue (the paper sends them "at high priority"; a FIFO queue means every
//! segment forwarded before the retransmission reaches the mobile host
//! before it, which is exactly the expected duplicate-ACK count). Sequence
//! numbers are byte offsets that never wrap. State is per flow index and
//! connection epoch, looked up by flow id in a map. The armed local timers
//! are also kept ordered by expiry, so that the agent's deadline and the
//! flows due at a timer are found without visiting every flow it holds.

use std::collections::{btree_map::Entry, BTreeMap, VecDeque};

use super::{AgentOutput, AgentVerdict, FlowTimers, Ingress, NodeAgent};
use crate::metrics::{col, Column};
use crate::net::packet::{flags, Packet, PacketKind, DEFAULT_TTL};
use crate::sim::{TimeNs, NS_PER_MS, NS_PER_S};

/// Cached segments per connection beyond which new ones are forwarded
/// uncached (ns-2's `SNOOP_MAXWIND` plays the same role).
pub const MAX_CACHED_PER_FLOW: usize = 1024;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SnoopConfig {
    /// Local timeout before the first local RTT sample (RFC 6298's 1 s).
    pub initial_timeout_ns: TimeNs,
    /// Smallest margin of the local timeout over the smoothed local RTT
    /// (RFC 6298's clock-granularity term G): on a path of constant delay
    /// the variance goes to zero and srtt alone would expire just as the
    /// ACK arrives.
    pub min_timeout_ns: TimeNs,
    /// Local retransmissions per segment (ns-2's `SNOOP_MAX_RXMIT`).
    pub max_local_rxmits: u8,
}

impl Default for SnoopConfig {
    fn default() -> Self {
        Self {
            initial_timeout_ns: NS_PER_S,
            min_timeout_ns: 20 * NS_PER_MS,
            max_local_rxmits: 2,
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Cached {
    pkt: Packet,
    /// When the agent last forwarded it (original or local retransmission).
    sent_ns: TimeNs,
    local_rxmits: u8,
    /// Retransmitted by the sender (or first seen out of sequence): its
    /// duplicate ACKs belong to the sender.
    sender_rxmit: bool,
}

#[derive(Clone, Debug, Default)]
struct FlowState {
    epoch: u32,
    /// Cached unacknowledged segments, in sequence order.
    cache: VecDeque<Cached>,
    /// One past the highest sequence number forwarded.
    last_seen_end: u64,
    last_ack: Option<u64>,
    /// Duplicate ACKs still expected (and to suppress) for the current loss.
    exp_dupacks: Option<u32>,
    srtt_ns: Option<f64>,
    rttvar_ns: f64,
    /// Smallest local RTT sample: no duplicate ACK caused by a later
    /// segment can arrive sooner after the segment it reports lost.
    min_rtt_ns: Option<TimeNs>,
    timer: Option<TimeNs>,
}

#[derive(Clone, Debug, Default)]
pub struct Snoop {
    pub cfg: SnoopConfig,
    /// Per flow the node has seen, by flow index: memory in the flows seen,
    /// not in the scenario's number of flows (one table per agent), and
    /// visited in index order as a vector would be.
    flows: BTreeMap<u32, FlowState>,
    /// Every flow's armed local timer, in expiry order.
    timers: FlowTimers,
    /// Local retransmissions triggered by a duplicate ACK.
    pub local_retransmissions: u64,
    /// Local retransmissions triggered by the local timer.
    pub timeout_retransmissions: u64,
    pub dupacks_suppressed: u64,
    /// Duplicate ACKs whose segment was cached (a local repair is possible).
    pub cache_hits: u64,
    /// Duplicate ACKs whose segment was not cached or was retransmitted by
    /// the sender (forwarded to the sender).
    pub cache_misses: u64,
    /// "Duplicate" ACKs that answer a duplicate segment rather than report a
    /// loss (forwarded; see the module doc).
    pub echo_dupacks: u64,
}

impl Snoop {
    pub fn new(cfg: SnoopConfig) -> Self {
        Self {
            cfg,
            ..Default::default()
        }
    }

    /// The flow's state for `pkt`'s epoch, created or reset as needed;
    /// None for a packet of an older connection.
    fn state<'a>(
        flows: &'a mut BTreeMap<u32, FlowState>,
        pkt: &Packet,
    ) -> Option<&'a mut FlowState> {
        let fresh = || FlowState {
            epoch: pkt.epoch,
            last_seen_end: pkt.seq,
            ..Default::default()
        };
        match flows.entry(pkt.flow) {
            Entry::Vacant(v) => Some(v.insert(fresh())),
            Entry::Occupied(o) => {
                let s = o.into_mut();
                if s.epoch > pkt.epoch {
                    return None;
                }
                if s.epoch < pkt.epoch {
                    *s = fresh();
                }
                Some(s)
            }
        }
    }

    /// When `flow`'s local timer expires, if it is armed.
    fn timer_of(&self, flow: u32) -> Option<TimeNs> {
        self.flows.get(&flow).and_then(|st| st.timer)
    }

    /// Current local timeout of `flow` (tests, diagnostics).
    pub fn local_timeout_ns(&self, flow: u32) -> Option<TimeNs> {
        Some(timeout_ns(&self.cfg, self.flows.get(&flow)?))
    }

    fn on_data(&mut self, now: TimeNs, pkt: &Packet) {
        let Some(st) = Self::state(&mut self.flows, pkt) else {
            return;
        };
        if st.last_ack.is_some_and(|a| pkt.end_seq() <= a) {
            return; // already at the mobile host: forward, do not cache
        }
        let entry = Cached {
            pkt: *pkt,
            sent_ns: now,
            local_rxmits: 0,
            sender_rxmit: false,
        };
        let in_sequence = pkt.seq >= st.last_seen_end;
        if in_sequence {
            // New segment in the normal sequence.
            if st.cache.len() < MAX_CACHED_PER_FLOW {
                st.cache.push_back(entry);
            }
            st.last_seen_end = pkt.end_seq();
        } else {
            match st.cache.binary_search_by_key(&pkt.seq, |c| c.pkt.seq) {
                Ok(i) => {
                    // Cached before: a sender retransmission.
                    let c = &mut st.cache[i];
                    c.pkt = *pkt;
                    c.sender_rxmit = true;
                    c.local_rxmits = 0;
                    c.sent_ns = now;
                }
                Err(i) if st.cache.len() < MAX_CACHED_PER_FLOW => {
                    // Lost upstream earlier, or reordered.
                    st.cache.insert(
                        i,
                        Cached {
                            sender_rxmit: true,
                            ..entry
                        },
                    );
                }
                Err(_) => {}
            }
        }
        // An out-of-sequence segment restarts the timer (ns-2's SNOOP_TAIL):
        // it may have become the awaited one just now.
        if (st.timer.is_none() || !in_sequence) && !st.cache.is_empty() {
            st.timer = Some(now + timeout_ns(&self.cfg, st));
        }
    }

    /// Returns the verdict for the ACK.
    fn on_ack(&mut self, now: TimeNs, pkt: &Packet, out: &mut AgentOutput) -> AgentVerdict {
        let fi = pkt.flow;
        let Some(st) = Self::state(&mut self.flows, pkt) else {
            return AgentVerdict::Pass;
        };
        let ack = pkt.ack;
        match st.last_ack {
            Some(last) if ack < last => AgentVerdict::Pass,
            Some(last) if ack == last => {
                let dup = pkt.payload_len == 0 && !pkt.has_flag(flags::SYN | flags::FIN);
                if !dup {
                    return AgentVerdict::Pass;
                }
                self.on_dupack(now, fi, ack, out)
            }
            _ => {
                // A new ACK: clean the cache, sample the local RTT.
                let mut sample = None;
                while let Some(c) = st.cache.front() {
                    if c.pkt.end_seq() > ack {
                        break;
                    }
                    if c.local_rxmits == 0 && !c.sender_rxmit {
                        sample = Some(now.saturating_sub(c.sent_ns));
                    }
                    st.cache.pop_front();
                }
                if let Some(r) = sample {
                    st.min_rtt_ns = Some(st.min_rtt_ns.map_or(r, |m| m.min(r)));
                    let r = r as f64;
                    match st.srtt_ns {
                        None => {
                            st.srtt_ns = Some(r);
                            st.rttvar_ns = r / 2.0;
                        }
                        Some(s) => {
                            st.rttvar_ns = 0.75 * st.rttvar_ns + 0.25 * (s - r).abs();
                            st.srtt_ns = Some(0.875 * s + 0.125 * r);
                        }
                    }
                }
                st.last_ack = Some(ack);
                st.exp_dupacks = None;
                st.timer = None;
                if !st.cache.is_empty() {
                    st.timer = Some(now + timeout_ns(&self.cfg, st));
                }
                AgentVerdict::Pass
            }
        }
    }

    fn on_dupack(&mut self, now: TimeNs, fi: u32, ack: u64, out: &mut AgentOutput) -> AgentVerdict {
        let max = self.cfg.max_local_rxmits;
        let st = self.flows.get_mut(&fi).expect("looked up by on_ack");
        let timeout = timeout_ns(&self.cfg, st);
        let cached = st
            .cache
            .front()
            .is_some_and(|c| c.pkt.seq <= ack && ack < c.pkt.end_seq() && !c.sender_rxmit);
        if !cached {
            self.cache_misses += 1;
            return AgentVerdict::Pass;
        }
        match st.exp_dupacks {
            Some(0) => AgentVerdict::Pass,
            Some(n) => {
                st.exp_dupacks = Some(n - 1);
                self.dupacks_suppressed += 1;
                AgentVerdict::Drop
            }
            None => {
                let head = st.cache.front().unwrap();
                if st.min_rtt_ns.is_some_and(|m| now < head.sent_ns + m) {
                    // Too soon to be caused by a segment sent after the
                    // head: the receiver's answer to a duplicate segment.
                    self.echo_dupacks += 1;
                    return AgentVerdict::Pass;
                }
                self.cache_hits += 1;
                // One duplicate ACK per segment forwarded after the lost one;
                // this is the first of them.
                st.exp_dupacks = Some((st.cache.len() as u32).saturating_sub(2));
                let head = st.cache.front_mut().unwrap();
                if head.local_rxmits >= max {
                    return AgentVerdict::Pass;
                }
                head.local_rxmits += 1;
                head.sent_ns = now;
                out.inject.push(retransmission(&head.pkt));
                st.timer = Some(now + timeout);
                self.local_retransmissions += 1;
                self.dupacks_suppressed += 1;
                AgentVerdict::Drop
            }
        }
    }
}

/// The flow's local retransmission timeout: the initial one until a local
/// RTT sample, then srtt + max(4 rttvar, `min_timeout`).
fn timeout_ns(cfg: &SnoopConfig, st: &FlowState) -> TimeNs {
    match st.srtt_ns {
        None => cfg.initial_timeout_ns,
        Some(srtt) => (srtt + (4.0 * st.rttvar_ns).max(cfg.min_timeout_ns as f64)) as TimeNs,
    }
}

fn retransmission(p: &Packet) -> Packet {
    Packet {
        is_retransmission: true,
        ttl: DEFAULT_TTL,
        ..*p
    }
}

impl NodeAgent for Snoop {
    fn name(&self) -> &'static str {
        "snoop"
    }

    fn on_packet(
        &mut self,
        now_ns: TimeNs,
        pkt: &mut Packet,
        ingress: Ingress,
        _egress: Option<u32>,
        out: &mut AgentOutput,
    ) -> AgentVerdict {
        if ingress == Ingress::Local {
            return AgentVerdict::Pass;
        }
        let flow = pkt.flow;
        let armed = self.timer_of(flow);
        let verdict = match pkt.kind {
            PacketKind::TcpData if pkt.payload_len > 0 => {
                self.on_data(now_ns, pkt);
                AgentVerdict::Pass
            }
            PacketKind::TcpAck if pkt.has_flag(flags::ACK) => self.on_ack(now_ns, pkt, out),
            _ => return AgentVerdict::Pass,
        };
        self.timers.moved(flow, armed, self.timer_of(flow));
        verdict
    }

    fn deadline(&self) -> Option<TimeNs> {
        self.timers.earliest()
    }

    fn on_timer(&mut self, now_ns: TimeNs, out: &mut AgentOutput) {
        let max = self.cfg.max_local_rxmits;
        let due = self.timers.take_due(now_ns);
        for &flow in &due {
            let st = self.flows.get_mut(&flow).expect("an armed timer's flow");
            let timeout = timeout_ns(&self.cfg, st);
            st.timer = None;
            let last_ack = st.last_ack;
            let Some(head) = st.cache.front_mut() else {
                continue;
            };
            // Only the segment the mobile host is waiting for is resent.
            let awaited = last_ack.is_none_or(|a| head.pkt.seq <= a && a < head.pkt.end_seq());
            if awaited && head.local_rxmits < max {
                head.local_rxmits += 1;
                head.sent_ns = now_ns;
                out.inject.push(retransmission(&head.pkt));
                st.timer = Some(now_ns + timeout);
                self.timers.moved(flow, None, st.timer);
                self.timeout_retransmissions += 1;
            }
        }
        self.timers.recycle(due);
    }

    fn counters(&self) -> Vec<(Column<'static>, u64)> {
        vec![
            (col("local_retransmissions", "segments", "Cached segments retransmitted on a duplicate ACK."), self.local_retransmissions),
            (col("timeout_retransmissions", "segments", "Cached segments retransmitted by the local timer."), self.timeout_retransmissions),
            (col("dupacks_suppressed", "ACKs", "Duplicate ACKs held back from the sender."), self.dupacks_suppressed),
            (col("cache_hits", "ACKs", "Duplicate ACKs whose segment was cached (a local repair was possible)."), self.cache_hits),
            (col("cache_misses", "ACKs", "Duplicate ACKs whose segment was not cached or was retransmitted by the sender (forwarded to it)."), self.cache_misses),
            (col("echo_dupacks", "ACKs", "\"Duplicate\" ACKs answering a duplicate segment rather than reporting a loss (forwarded)."), self.echo_dupacks),
        ]
    }
}

#[cfg(test)]
mod tests {
    //! The G-Snoop document's description of Snoop (Leung & Yeung §2.D,
    //! after Balakrishnan et al.), the baseline of the G-Snoop
    //! reproduction; each test quotes the rule it checks and drives the
    //! agent packet by packet.
    use super::*;
    use crate::net::packet::testing;

    const MSS: u64 = 1000;

    fn data(i: u64) -> Packet {
        testing::data(i * MSS, MSS as u32)
    }

    fn ack(next: u64) -> Packet {
        testing::ack(next * MSS)
    }

    fn feed(s: &mut Snoop, t: TimeNs, mut p: Packet, out: &mut AgentOutput) -> AgentVerdict {
        s.on_packet(t, &mut p, Ingress::Link(0), None, out)
    }

    /// Memory in the connections seen: state for one connection of flow
    /// index 4,000,000,000 is one record. A table indexed by flow asked for
    /// a slot per index below it, per agent (20,000 G-Snoop gateway pairs
    /// on 20,000 flows needed 22 GB and were killed); this one would ask
    /// for hundreds of GB and abort.
    #[test]
    fn state_is_kept_for_the_flows_seen_not_for_every_flow_index() {
        let mut s = Snoop::new(SnoopConfig::default());
        let mut out = AgentOutput::default();
        let flow = 4_000_000_000;
        feed(&mut s, 0, Packet { flow, ..data(0) }, &mut out);
        assert_eq!(
            s.local_timeout_ns(flow),
            Some(SnoopConfig::default().initial_timeout_ns)
        );
        assert_eq!(s.local_timeout_ns(0), None);
    }

    /// §2.D: "A snoop agent monitors every packet that passes through the
    /// TCP connection and maintains a cache of TCP packets sent across the
    /// wireless link that have not yet been acknowledged by the mobile
    /// receiver. A packet loss is detected by the arrival of a small number
    /// of duplicate ACKs from the receiver ... The snoop agent retransmits
    /// the lost packet if it has it cached and suppresses the duplicate
    /// ACKs." The small number is the Snoop paper's one: the first
    /// duplicate ACK; then one per segment forwarded after the lost one.
    #[test]
    fn first_dupack_retransmits_and_expected_dupacks_are_suppressed() {
        let mut s = Snoop::new(SnoopConfig::default());
        let mut out = AgentOutput::default();
        for i in 0..8 {
            assert_eq!(feed(&mut s, i, data(i), &mut out), AgentVerdict::Pass);
        }
        // Segment 2 is lost on the wireless hop: ACKs 1, 2, then dupacks
        // for segments 3..7 (five of them).
        assert_eq!(feed(&mut s, 100, ack(1), &mut out), AgentVerdict::Pass);
        assert_eq!(feed(&mut s, 101, ack(2), &mut out), AgentVerdict::Pass);
        assert!(out.inject.is_empty());
        assert_eq!(feed(&mut s, 102, ack(2), &mut out), AgentVerdict::Drop);
        assert_eq!(out.inject.len(), 1);
        let r = out.inject[0];
        assert_eq!(
            (r.kind, r.seq, r.payload_len),
            (PacketKind::TcpData, 2 * MSS, MSS as u32)
        );
        assert_eq!(
            (r.src, r.dst),
            (data(2).src, data(2).dst),
            "towards the receiver"
        );
        assert!(r.is_retransmission);
        // The cache: segments 2..7 (0 and 1 were cleaned by the ACKs).
        let cached =
            |s: &Snoop| -> Vec<u64> { s.flows[&0].cache.iter().map(|c| c.pkt.seq / MSS).collect() };
        assert_eq!(cached(&s), vec![2, 3, 4, 5, 6, 7]);
        for t in 103..107 {
            assert_eq!(feed(&mut s, t, ack(2), &mut out), AgentVerdict::Drop);
        }
        // A sixth is beyond the count: the sender must see it.
        assert_eq!(feed(&mut s, 107, ack(2), &mut out), AgentVerdict::Pass);
        assert_eq!(out.inject.len(), 1);
        assert_eq!((s.local_retransmissions, s.dupacks_suppressed), (1, 5));
        // The repair's ACK cleans the cache.
        assert_eq!(feed(&mut s, 110, ack(8), &mut out), AgentVerdict::Pass);
        assert!(s.flows[&0].cache.is_empty());
        assert_eq!(s.deadline(), None);
    }

    /// §2.D: "The snoop agent retransmits the lost packet if it has it
    /// cached": a segment lost before the agent is not cached, and one the
    /// sender retransmitted is the sender's to recover, so their duplicate
    /// ACKs go to the sender and nothing is resent.
    #[test]
    fn dupacks_for_sender_retransmissions_or_uncached_segments_pass() {
        let mut s = Snoop::new(SnoopConfig::default());
        let mut out = AgentOutput::default();
        for i in [0, 1, 3, 4, 5] {
            feed(&mut s, i, data(i), &mut out);
        }
        feed(&mut s, 10, ack(2), &mut out);
        // Segment 2 never reached the agent (lost upstream): not cached.
        assert_eq!(feed(&mut s, 11, ack(2), &mut out), AgentVerdict::Pass);
        // The sender's retransmission of 2 is cached as sender-retransmitted.
        feed(&mut s, 12, data(2), &mut out);
        assert_eq!(feed(&mut s, 13, ack(2), &mut out), AgentVerdict::Pass);
        assert!(out.inject.is_empty());
        assert_eq!((s.cache_hits, s.cache_misses), (0, 2));
    }

    /// §2.D: a loss is also detected "by a local timeout". The timeout is
    /// srtt + max(4 rttvar, min_timeout) of the local round trip; at most
    /// `max_local_rxmits` (2) local retransmissions per segment.
    #[test]
    fn local_timer_follows_smoothed_local_rtt_and_resends_the_awaited_segment() {
        let mut s = Snoop::new(SnoopConfig::default());
        let mut out = AgentOutput::default();
        let ms = NS_PER_MS;
        feed(&mut s, 0, data(0), &mut out);
        assert_eq!(s.deadline(), Some(NS_PER_S), "initial timeout");
        feed(&mut s, 40 * ms, ack(1), &mut out);
        // First sample 40 ms: srtt 40, rttvar 20 -> 120 ms.
        assert_eq!(s.local_timeout_ns(0), Some(120 * ms));
        assert_eq!(s.deadline(), None);
        feed(&mut s, 50 * ms, data(1), &mut out);
        assert_eq!(s.deadline(), Some(170 * ms));
        s.on_timer(169 * ms, &mut out);
        assert!(out.inject.is_empty(), "not before the timeout");
        s.on_timer(170 * ms, &mut out);
        assert_eq!(out.inject.len(), 1);
        assert_eq!(out.inject[0].seq, MSS);
        assert!(out.inject[0].is_retransmission);
        assert_eq!(s.timeout_retransmissions, 1);
        assert_eq!(s.deadline(), Some(290 * ms));
        s.on_timer(290 * ms, &mut out);
        assert_eq!(out.inject.len(), 2);
        // At most max_local_rxmits per segment.
        assert_eq!(s.deadline(), Some(410 * ms));
        s.on_timer(410 * ms, &mut out);
        assert_eq!(out.inject.len(), 2);
        assert_eq!(s.deadline(), None);
        // The ACK of a retransmitted segment gives no sample (Karn).
        feed(&mut s, 420 * ms, ack(2), &mut out);
        assert_eq!(s.local_timeout_ns(0), Some(120 * ms));
    }

    /// Document silent: a receiver answers a duplicate segment with an ACK
    /// like a duplicate ACK. One that comes sooner than the smallest local
    /// RTT after the head segment was sent cannot report its loss: it is
    /// forwarded and nothing is resent.
    #[test]
    fn a_dupack_sooner_than_the_min_local_rtt_after_the_head_is_an_echo() {
        let mut s = Snoop::new(SnoopConfig::default());
        let mut out = AgentOutput::default();
        let ms = NS_PER_MS;
        feed(&mut s, 0, data(0), &mut out);
        feed(&mut s, 40 * ms, ack(1), &mut out); // min local RTT 40 ms
        feed(&mut s, 50 * ms, data(1), &mut out);
        feed(&mut s, 51 * ms, data(2), &mut out);
        // A duplicate ACK 30 ms after segment 1 left cannot report its loss.
        assert_eq!(feed(&mut s, 80 * ms, ack(1), &mut out), AgentVerdict::Pass);
        assert!(out.inject.is_empty());
        assert_eq!((s.echo_dupacks, s.cache_hits), (1, 0));
        // One arriving 40 ms or more after it can.
        assert_eq!(feed(&mut s, 91 * ms, ack(1), &mut out), AgentVerdict::Drop);
        assert_eq!(out.inject.len(), 1);
        assert_eq!(s.cache_hits, 1);
    }

    /// §2.D "or by a local timeout": the timer runs for the segment the
    /// receiver waits for; an out-of-sequence segment (the sender's
    /// retransmission of one lost before the agent) restarts it, as ns-2's
    /// snoop.cc does.
    #[test]
    fn an_out_of_sequence_segment_restarts_the_local_timer() {
        let mut s = Snoop::new(SnoopConfig::default());
        let mut out = AgentOutput::default();
        let ms = NS_PER_MS;
        feed(&mut s, 0, data(0), &mut out);
        feed(&mut s, 40 * ms, ack(1), &mut out);
        feed(&mut s, 50 * ms, data(2), &mut out); // segment 1 lost upstream
        assert_eq!(s.deadline(), Some(170 * ms));
        feed(&mut s, 160 * ms, data(1), &mut out); // the sender's retransmission
        assert_eq!(s.deadline(), Some(280 * ms));
    }

    /// Segment `i` of connection `flow`, epoch 1.
    fn data_of(flow: u32, i: u64) -> Packet {
        Packet { flow, ..data(i) }
    }

    fn ack_of(flow: u32, next: u64) -> Packet {
        Packet { flow, ..ack(next) }
    }

    /// Snoop paper: the local retransmission timer is per connection, so
    /// the agent next needs its timer at the earliest timer armed among all
    /// its connections, whatever happens to the others: a cleaned cache
    /// stops a connection's timer, a new segment re-arms it, a sender
    /// retransmission (out of sequence) restarts it later, a new connection
    /// epoch starts without one, and a timer that fired re-arms. Twenty
    /// connections, armed in an order unlike their flow order.
    #[test]
    fn the_deadline_is_the_earliest_timer_among_many_connections() {
        let mut s = Snoop::new(SnoopConfig::default());
        let mut out = AgentOutput::default();
        let ms = NS_PER_MS;
        const N: u64 = 20;
        // The k-th connection to send is flow 7k mod 20, at k ms: its
        // timer expires at 1 s + k ms (the initial timeout).
        let kth = |k: u64| (k * 7 % N) as u32;
        for k in 0..N {
            feed(&mut s, k * ms, data_of(kth(k), 0), &mut out);
        }
        assert_eq!(s.deadline(), Some(NS_PER_S));
        // The earliest is stopped: its cache is cleaned (local RTT 30 ms,
        // so its timeout becomes 30 + max(4 x 15, 20) = 90 ms).
        feed(&mut s, 30 * ms, ack_of(kth(0), 1), &mut out);
        assert_eq!(s.deadline(), Some(NS_PER_S + ms));
        // Re-armed earlier than every other: a new segment at 40 ms.
        feed(&mut s, 40 * ms, data_of(kth(0), 1), &mut out);
        assert_eq!(s.deadline(), Some(130 * ms));
        // The earliest moves later: the sender retransmits segment 1 at
        // 120 ms (out of sequence), which restarts the timer.
        feed(&mut s, 50 * ms, data_of(kth(0), 2), &mut out);
        assert_eq!(
            s.deadline(),
            Some(130 * ms),
            "an in-sequence segment keeps it"
        );
        feed(&mut s, 120 * ms, data_of(kth(0), 1), &mut out);
        assert_eq!(s.deadline(), Some(210 * ms));
        // Stopped again: everything is acknowledged.
        feed(&mut s, 130 * ms, ack_of(kth(0), 3), &mut out);
        assert_eq!(s.deadline(), Some(NS_PER_S + ms));
        // A new connection of the now earliest flow starts without a timer.
        let fresh = Packet {
            epoch: 2,
            ..ack_of(kth(1), 1)
        };
        feed(&mut s, 200 * ms, fresh, &mut out);
        assert_eq!(s.deadline(), Some(NS_PER_S + 2 * ms));
        // The earliest fires: a local retransmission, re-armed 1 s later.
        s.on_timer(NS_PER_S + 2 * ms, &mut out);
        assert_eq!(out.inject.len(), 1);
        assert_eq!(out.inject[0].flow, kth(2));
        assert_eq!(s.deadline(), Some(NS_PER_S + 3 * ms));
        // Every remaining first timer fires in turn, then the re-armed ones.
        for k in 3..N {
            assert_eq!(s.deadline(), Some(NS_PER_S + k * ms));
            s.on_timer(NS_PER_S + k * ms, &mut out);
        }
        assert_eq!(s.deadline(), Some(2 * NS_PER_S + 2 * ms));
        assert_eq!(s.timeout_retransmissions, N - 2);
    }

    /// The connections whose timers are due when the timer runs are each
    /// handled once, in flow order (the order a walk over the connections
    /// by flow index meets them, which fixes the order of the local
    /// retransmissions, hence of the packets' uids), not in expiry order;
    /// connections not yet due wait.
    #[test]
    fn due_timers_are_handled_in_flow_order() {
        let mut s = Snoop::new(SnoopConfig::default());
        let mut out = AgentOutput::default();
        let ms = NS_PER_MS;
        // Due at 1.000 s, 1.010 s and 1.050 s.
        feed(&mut s, 0, data_of(9, 0), &mut out);
        feed(&mut s, 10 * ms, data_of(3, 0), &mut out);
        feed(&mut s, 50 * ms, data_of(5, 0), &mut out);
        s.on_timer(NS_PER_S + 20 * ms, &mut out);
        let flows = |out: &AgentOutput| out.inject.iter().map(|p| p.flow).collect::<Vec<_>>();
        assert_eq!(flows(&out), vec![3, 9]);
        assert_eq!(s.deadline(), Some(NS_PER_S + 50 * ms));
        s.on_timer(NS_PER_S + 50 * ms, &mut out);
        assert_eq!(flows(&out), vec![3, 9, 5]);
        // 3 and 9 re-armed at 1.02 s for the initial 1 s.
        assert_eq!(s.deadline(), Some(2 * NS_PER_S + 20 * ms));
        s.on_timer(2 * NS_PER_S + 20 * ms, &mut out);
        assert_eq!(flows(&out), vec![3, 9, 5, 3, 9]);
    }

    #[test]
    fn a_new_connection_epoch_resets_the_state() {
        let mut s = Snoop::new(SnoopConfig::default());
        let mut out = AgentOutput::default();
        feed(&mut s, 0, data(0), &mut out);
        feed(&mut s, 1, data(1), &mut out);
        let mut d = data(0);
        d.epoch = 2;
        feed(&mut s, 2, d, &mut out);
        assert_eq!(s.flows[&0].cache.len(), 1);
        // Packets of the old connection are ignored.
        feed(&mut s, 3, data(5), &mut out);
        assert_eq!(s.flows[&0].cache.len(), 1);
    }
}
