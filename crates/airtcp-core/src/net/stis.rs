//! The building blocks of the STIS path model of the DCLOR draft
//! (draft-swami-tsvwg-tcp-dclor-00, Appendix 1): a bottleneck whose buffer
//! is shared in bytes while each connection has its own logical queue
//! served at the link rate (item 2), and prolonged per-connection packet
//! stalling driven by a per-second Markov draw (item 4). Reordering by
//! route changes (item 5) is the `route_change` channel; the fixed network
//! delay (item 3) is the link's propagation delay.

use std::collections::VecDeque;

use crate::net::queue::QueueLimit;
use crate::sim::rng::RandomStream;
use crate::sim::{tx_time_ns, TimeNs};

#[derive(Clone, Debug, Default)]
struct FlowServer {
    busy_until_ns: TimeNs,
    /// (departure time, bytes) of this flow's packets still in the buffer.
    in_buffer: VecDeque<(TimeNs, u32)>,
}

/// Item 1–2: one shared byte buffer; per connection a logical FIFO served
/// at the outgoing rate ("the departure time of a new packet is computed by
/// adding the link delay (packet-size / outgoing-link-speed) of the new
/// packet to the queuing delay of all packets ahead of it" in its queue). A
/// packet that would overflow the shared buffer is dropped.
#[derive(Clone, Debug)]
pub struct PerFlowService {
    pub limit: QueueLimit,
    flows: Vec<FlowServer>,
    buffered_bytes: u64,
    buffered_pkts: u32,
}

impl PerFlowService {
    pub fn new(limit: QueueLimit) -> Self {
        Self {
            limit,
            flows: Vec::new(),
            buffered_bytes: 0,
            buffered_pkts: 0,
        }
    }

    /// Forget packets that left by `now_ns`.
    fn advance(&mut self, now_ns: TimeNs) {
        for f in &mut self.flows {
            while let Some(&(dep, bytes)) = f.in_buffer.front() {
                if dep > now_ns {
                    break;
                }
                f.in_buffer.pop_front();
                self.buffered_bytes -= bytes as u64;
                self.buffered_pkts -= 1;
            }
        }
    }

    /// Packets in the buffer (waiting or being sent) at `now_ns`.
    pub fn occupancy_pkts(&mut self, now_ns: TimeNs) -> u32 {
        self.advance(now_ns);
        self.buffered_pkts
    }

    /// Packet-nanoseconds that the packets still buffered at `end_ns`
    /// will spend in the buffer after it.
    pub fn occupancy_ns_after(&mut self, end_ns: TimeNs) -> u128 {
        self.advance(end_ns);
        self.flows
            .iter()
            .flat_map(|f| f.in_buffer.iter())
            .map(|&(dep, _)| (dep - end_ns) as u128)
            .sum()
    }

    /// Transmission time that the connections' queues will spend after
    /// `end_ns` (each a FIFO server, busy without a gap from `end_ns` to
    /// its last packet's departure, see `LinkDir::finish`).
    pub fn busy_ns_after(&self, end_ns: TimeNs) -> TimeNs {
        self.flows
            .iter()
            .map(|f| f.busy_until_ns.saturating_sub(end_ns))
            .sum()
    }

    /// Admit a packet of flow `flow`: Some((start, end of transmission)),
    /// or None if the shared buffer is full.
    pub fn admit(
        &mut self,
        now_ns: TimeNs,
        flow: u32,
        bytes: u32,
        rate_bps: u64,
    ) -> Option<(TimeNs, TimeNs)> {
        self.advance(now_ns);
        if self
            .limit
            .overflows(self.buffered_pkts, self.buffered_bytes, bytes)
        {
            return None;
        }
        let i = flow as usize;
        if self.flows.len() <= i {
            self.flows.resize_with(i + 1, FlowServer::default);
        }
        let f = &mut self.flows[i];
        let start = now_ns.max(f.busy_until_ns);
        let end = start + tx_time_ns(bytes, rate_bps);
        f.busy_until_ns = end;
        f.in_buffer.push_back((end, bytes));
        self.buffered_bytes += bytes as u64;
        self.buffered_pkts += 1;
        Some((start, end))
    }
}

/// Item 4 parameters: every `period` a draw r per connection; r < p1 enters
/// a stall of d1, p1 <= r < p1 + p2 a stall of d2 (the Markov chain of the
/// draft's Figure 6: from state 1, p1 to state 2, p2 to state 3, back to
/// state 1 after the stall).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StallConfig {
    pub period_ns: TimeNs,
    pub p1: f64,
    pub d1_ns: TimeNs,
    pub p2: f64,
    pub d2_ns: TimeNs,
}

#[derive(Clone, Debug)]
struct FlowStall {
    rng: RandomStream,
    next_draw_ns: TimeNs,
    stall: Option<(TimeNs, TimeNs)>,
}

/// Per-connection stalling on a link (both directions): "each packet
/// arriving in the time interval T and T+D is treated as if it arrived at
/// time T+D". The process runs on time, whether or not there is traffic:
/// each connection draws once per period from its own stream.
#[derive(Clone, Debug)]
pub struct StallProcess {
    pub cfg: StallConfig,
    seed: u64,
    name: String,
    flows: Vec<Option<FlowStall>>,
    pub stalls_entered: u64,
}

impl StallProcess {
    pub fn new(cfg: StallConfig, seed: u64, name: String) -> Self {
        Self {
            cfg,
            seed,
            name,
            flows: Vec::new(),
            stalls_entered: 0,
        }
    }

    /// When a packet of `flow` arriving at `now_ns` may proceed: Some(T+D)
    /// during a stall, None otherwise.
    pub fn release_time(&mut self, now_ns: TimeNs, flow: u32) -> Option<TimeNs> {
        let i = flow as usize;
        if self.flows.len() <= i {
            self.flows.resize(i + 1, None);
        }
        let st = self.flows[i].get_or_insert_with(|| FlowStall {
            rng: RandomStream::new(self.seed, &format!("stall:{}:flow{i}", self.name)),
            next_draw_ns: 0,
            stall: None,
        });
        let c = self.cfg;
        while st.next_draw_ns <= now_ns {
            // One draw per period, consumed even during a stall, so the
            // realisation depends on time only.
            let r = st.rng.uniform();
            let t = st.next_draw_ns;
            let in_stall = st.stall.is_some_and(|(_, end)| t < end);
            if !in_stall {
                let d = if r < c.p1 {
                    Some(c.d1_ns)
                } else if r < c.p1 + c.p2 {
                    Some(c.d2_ns)
                } else {
                    None
                };
                if let Some(d) = d {
                    st.stall = Some((t, t + d));
                    self.stalls_entered += 1;
                }
            }
            st.next_draw_ns += c.period_ns.max(1);
        }
        match st.stall {
            Some((start, end)) if now_ns >= start && now_ns < end => Some(end),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{NS_PER_MS, NS_PER_S};

    #[test]
    fn per_flow_queues_share_the_buffer_but_not_the_rate() {
        // 50 kb/s: a 625-byte packet takes 100 ms.
        let mut q = PerFlowService::new(QueueLimit::Bytes(2000));
        assert_eq!(q.admit(0, 0, 625, 50_000), Some((0, 100 * NS_PER_MS)));
        assert_eq!(
            q.admit(0, 0, 625, 50_000),
            Some((100 * NS_PER_MS, 200 * NS_PER_MS))
        );
        // Another connection is served at the full rate in parallel.
        assert_eq!(q.admit(0, 1, 625, 50_000), Some((0, 100 * NS_PER_MS)));
        // 1875 B buffered: a fourth packet overflows the shared buffer.
        assert_eq!(q.admit(0, 2, 625, 50_000), None);
        // After the first two left, there is room again.
        assert!(q.admit(100 * NS_PER_MS, 2, 625, 50_000).is_some());
    }

    #[test]
    fn stall_delays_every_arrival_to_its_end_and_follows_time() {
        let cfg = StallConfig {
            period_ns: NS_PER_S,
            p1: 0.05,
            d1_ns: 5 * NS_PER_S,
            p2: 0.005,
            d2_ns: 8 * NS_PER_S,
        };
        let mut a = StallProcess::new(cfg, 1, "x".into());
        let mut b = StallProcess::new(cfg, 1, "x".into());
        // Find the first stall by probing every 10 ms.
        let mut first = None;
        for k in 0..100_000u64 {
            let t = k * 10 * NS_PER_MS;
            if let Some(end) = a.release_time(t, 0) {
                first = Some((t, end));
                break;
            }
        }
        let (t, end) = first.expect("a stall within 1000 s");
        assert!(end - t == 5 * NS_PER_S || end - t == 8 * NS_PER_S);
        // Every arrival inside [T, T+D) is released at T+D, whenever it is
        // asked (b sees the same stall without the earlier queries).
        assert_eq!(b.release_time(end - 1, 0), Some(end));
        assert_eq!(b.release_time(t + 1, 0), Some(end));
        assert_eq!(b.release_time(end, 0), None);
        // Stall frequency: about (p1 + p2) per second over a long horizon.
        let mut c = StallProcess::new(cfg, 7, "y".into());
        let _ = c.release_time(100_000 * NS_PER_S, 0);
        let rate = c.stalls_entered as f64 / 100_000.0;
        // Draws during a stall are skipped: expected rate p/(1 + p*E[D]).
        let p = 0.055;
        let mean_d = (0.05 * 5.0 + 0.005 * 8.0) / p;
        let expected = p / (1.0 + p * mean_d);
        assert!((rate - expected).abs() < 0.005, "{rate} vs {expected}");
    }
}
