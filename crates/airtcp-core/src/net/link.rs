//! One direction of a full-duplex point-to-point link: a FIFO queue served at
//! `rate_bps`, a channel, and a propagation delay.
//!
//! Departures are computed, not simulated: a FIFO work-conserving server
//! starts a packet at max(arrival, end of the previous transmission), so the
//! link needs no "transmission finished" event. The start times of admitted
//! packets that are still waiting are kept to measure the queue at each
//! arrival. One event per packet per hop (its arrival at the far node).

use std::collections::VecDeque;

use crate::net::channel::{Channel, ChannelVerdict};
use crate::net::packet::{DeathCause, Packet};
use crate::net::queue::{Admission, QueueDiscipline, QueueOccupancy};
use crate::net::stis::PerFlowService;
use crate::sim::rng::RandomStream;
use crate::sim::{starts_within_run, tx_time_ns, TimeNs};

/// Per link-direction counters (ground truth). In declaration order
/// (`repr(C)`): those every packet updates first, together.
#[derive(Clone, Debug, Default)]
#[repr(C)]
pub struct LinkStats {
    /// Integral of the queue length (packets waiting, not in service) over
    /// the run, in packet-ns: set by `LinkDir::finish` at the end of the run.
    pub queue_pkt_ns: u128,
    /// Time spent transmitting within the run (the run's end cuts a
    /// transmission in progress, and the packets still waiting never
    /// start): set by `LinkDir::finish` at the end of the run.
    pub busy_in_run_ns: u64,
    pub packets_offered: u64,
    pub packets_sent: u64,
    pub bytes_sent: u64,
    /// Transmission time of every admitted packet, counted at admission
    /// (possibly beyond the end of the run, which `finish` takes off).
    pub busy_ns: u64,
    pub max_queue_pkts: u32,
    pub ecn_marks: u64,
    pub drops: [u64; DeathCause::ALL.len()],
}

/// What happened to a packet offered to a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkOutcome {
    /// It will arrive at the far node at `arrival_ns`.
    Arrives {
        arrival_ns: TimeNs,
        marked: bool,
    },
    Dropped(DeathCause),
    /// Admitted, but its transmission would start after the end of the run
    /// ([`starts_within_run`]) and the channel's draw for it lost it: within
    /// the run it only waits in the queue, so its loss is nobody's (not the
    /// link's `drops`, not its flow's). The draw is taken all the same, so
    /// that every other packet keeps its own.
    LostAfterEnd,
}

impl LinkOutcome {
    /// The link admitted the packet and computed its transmission (a
    /// channel loss happens on the air, after the transmission started;
    /// other drops are refusals). The transmission may start after the
    /// end of the run.
    pub fn transmitted(self) -> bool {
        matches!(
            self,
            LinkOutcome::Arrives { .. }
                | LinkOutcome::Dropped(DeathCause::ChannelError)
                | LinkOutcome::LostAfterEnd
        )
    }
}

/// In declaration order (`repr(C)`): what `offer` reads and writes for
/// every packet comes first, so that a packet on a link that is not in
/// cache (one of 200,000 access links) costs few cache lines; the name and
/// the queue's random stream, rarely read, come last.
#[derive(Clone, Debug)]
#[repr(C)]
pub struct LinkDir {
    /// When the last admitted packet finishes transmission.
    busy_until_ns: TimeNs,
    pub rate_bps: u64,
    pub delay_ns: TimeNs,
    /// When the last admitted packet starts its transmission (captures and
    /// traces read it after `offer`).
    pub last_tx_start_ns: TimeNs,
    waiting_bytes: u64,
    pub from: u32,
    pub to: u32,
    /// STIS-style per-connection service with a shared buffer, instead of
    /// the single FIFO (`queue` is then unused).
    pub per_flow: Option<Box<PerFlowService>>,
    /// (start of transmission, wire bytes) of admitted packets not yet in
    /// service, in FIFO order.
    waiting: VecDeque<(TimeNs, u32)>,
    pub stats: LinkStats,
    pub queue: QueueDiscipline,
    pub channel: Channel,
    /// Packet-ns of waiting of every packet admitted: in the FIFO, from its
    /// admission to the start of its transmission; with per-connection
    /// service, in the shared buffer up to its departure. Either is known
    /// when the packet is admitted (possibly beyond the end of the run,
    /// which `finish` takes off).
    admitted_wait_pkt_ns: u128,
    /// The end of the run (`World::new` sets it; `TimeNs::MAX`: none): a
    /// channel loss counts only if the transmission starts by then. Read
    /// only when the channel loses a packet.
    pub run_end_ns: TimeNs,
    pub name: String,
    queue_rng: RandomStream,
}

impl LinkDir {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        name: String,
        from: u32,
        to: u32,
        rate_bps: u64,
        delay_ns: TimeNs,
        queue: QueueDiscipline,
        channel: Channel,
        queue_rng: RandomStream,
    ) -> Self {
        Self {
            name,
            from,
            to,
            rate_bps,
            delay_ns,
            queue,
            channel,
            queue_rng,
            busy_until_ns: 0,
            // Grown on first use: most link directions of a large topology
            // (access links) never hold more than a few packets, and 64
            // entries per direction were 400 MB at 100,000 flows.
            waiting: VecDeque::new(),
            waiting_bytes: 0,
            per_flow: None,
            admitted_wait_pkt_ns: 0,
            stats: LinkStats::default(),
            last_tx_start_ns: 0,
            run_end_ns: TimeNs::MAX,
        }
    }

    /// Forget packets whose transmission has started by `now_ns`. If the
    /// link is idle, all have (the last admitted ends at `busy_until_ns`):
    /// they go without being read, which with many flows spares an offer
    /// to an access link idle since its last burst a wait on memory.
    #[inline]
    fn advance(&mut self, now_ns: TimeNs) {
        if self.busy_until_ns <= now_ns {
            self.waiting.clear();
            self.waiting_bytes = 0;
            return;
        }
        while let Some(&(start, bytes)) = self.waiting.front() {
            if start > now_ns {
                break;
            }
            self.waiting.pop_front();
            self.waiting_bytes -= bytes as u64;
        }
    }

    /// Packets waiting (not in service) at `now_ns`; with per-connection
    /// service, the packets in the shared buffer (what its limit counts).
    pub fn queue_len_pkts(&mut self, now_ns: TimeNs) -> u32 {
        if let Some(pf) = self.per_flow.as_mut() {
            return pf.occupancy_pkts(now_ns);
        }
        self.advance(now_ns);
        self.waiting.len() as u32
    }

    /// Offer `pkt` at `now_ns`: queue discipline, then the channel at the
    /// packet's transmission start.
    #[inline]
    pub fn offer(&mut self, now_ns: TimeNs, pkt: &mut Packet) -> LinkOutcome {
        if self.per_flow.is_some() {
            return self.offer_per_flow(now_ns, pkt);
        }
        self.advance(now_ns);
        self.stats.packets_offered += 1;
        let idle = self.waiting.is_empty() && self.busy_until_ns <= now_ns;
        let occ = QueueOccupancy {
            len_pkts: self.waiting.len() as u32,
            len_bytes: self.waiting_bytes,
            idle_since_ns: if idle { Some(self.busy_until_ns) } else { None },
        };
        let marked = match self.queue.admit(now_ns, occ, pkt, &mut self.queue_rng) {
            Admission::Enqueue => false,
            Admission::EnqueueMarked => true,
            Admission::Drop(cause) => {
                self.stats.drops[cause.index()] += 1;
                return LinkOutcome::Dropped(cause);
            }
        };
        if marked {
            self.stats.ecn_marks += 1;
        }
        let bytes = pkt.wire_bytes();
        let start = now_ns.max(self.busy_until_ns);
        self.last_tx_start_ns = start;
        let tx = tx_time_ns(bytes, self.rate_bps);
        self.busy_until_ns = start + tx;
        if start > now_ns {
            self.waiting.push_back((start, bytes));
            self.waiting_bytes += bytes as u64;
            self.admitted_wait_pkt_ns += (start - now_ns) as u128;
            let q = self.waiting.len() as u32;
            if q > self.stats.max_queue_pkts {
                self.stats.max_queue_pkts = q;
            }
        }
        self.stats.packets_sent += 1;
        self.stats.bytes_sent += bytes as u64;
        self.stats.busy_ns += tx;
        match self.channel.transmit(start, tx, pkt) {
            ChannelVerdict::Deliver { extra_delay_ns } => LinkOutcome::Arrives {
                arrival_ns: start + tx + self.delay_ns + extra_delay_ns,
                marked,
            },
            ChannelVerdict::Lost => self.channel_loss(start),
        }
    }

    /// The channel lost the packet whose transmission starts at `start`:
    /// counted if that happens within the run.
    #[inline]
    fn channel_loss(&mut self, start: TimeNs) -> LinkOutcome {
        if !starts_within_run(start, self.run_end_ns) {
            return LinkOutcome::LostAfterEnd;
        }
        self.stats.drops[DeathCause::ChannelError.index()] += 1;
        LinkOutcome::Dropped(DeathCause::ChannelError)
    }

    /// Per-connection logical queues sharing one buffer (STIS item 2).
    fn offer_per_flow(&mut self, now_ns: TimeNs, pkt: &mut Packet) -> LinkOutcome {
        self.stats.packets_offered += 1;
        let bytes = pkt.wire_bytes();
        let pf = self.per_flow.as_mut().expect("checked by offer");
        let Some((start, end)) = pf.admit(now_ns, pkt.flow, bytes, self.rate_bps) else {
            self.stats.drops[DeathCause::QueueOverflow.index()] += 1;
            return LinkOutcome::Dropped(DeathCause::QueueOverflow);
        };
        self.last_tx_start_ns = start;
        let occupancy = pf.occupancy_pkts(now_ns);
        self.stats.max_queue_pkts = self.stats.max_queue_pkts.max(occupancy);
        // The packet occupies the shared buffer from now until its
        // transmission ends: its whole share of the occupancy integral
        // (`finish` removes what lies beyond the end of the run).
        self.admitted_wait_pkt_ns += (end - now_ns) as u128;
        self.stats.packets_sent += 1;
        self.stats.bytes_sent += bytes as u64;
        self.stats.busy_ns += end - start;
        match self.channel.transmit(start, end - start, pkt) {
            ChannelVerdict::Deliver { extra_delay_ns } => LinkOutcome::Arrives {
                arrival_ns: end + self.delay_ns + extra_delay_ns,
                marked: false,
            },
            ChannelVerdict::Lost => self.channel_loss(start),
        }
    }

    /// Close the queue-length integral and the busy time at `end_ns`, the
    /// end of the run: the waiting and the transmission time of every
    /// packet admitted, less what lies beyond it.
    ///
    /// Busy time after the end: a FIFO server starts each packet at
    /// max(admission, end of the previous transmission), so it is idle
    /// only until an admission, and every admission happens by the end
    /// of the run. From `end_ns` on, it therefore transmits without a gap
    /// until its last admitted packet finishes (`busy_until_ns`): the
    /// transmission time beyond the end is `busy_until_ns - end_ns`, if
    /// positive. Each connection's queue of a `per_flow` service is such
    /// a FIFO server, with its own last finish.
    pub fn finish(&mut self, end_ns: TimeNs) {
        let (after_end_pkt_ns, busy_after_end_ns) = match self.per_flow.as_mut() {
            Some(pf) => (pf.occupancy_ns_after(end_ns), pf.busy_ns_after(end_ns)),
            None => {
                self.advance(end_ns);
                let waiting = self
                    .waiting
                    .iter()
                    .map(|&(start, _)| (start - end_ns) as u128)
                    .sum();
                (waiting, self.busy_until_ns.saturating_sub(end_ns))
            }
        };
        self.stats.queue_pkt_ns = self.admitted_wait_pkt_ns - after_end_pkt_ns;
        self.stats.busy_in_run_ns = self.stats.busy_ns - busy_after_end_ns;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::PacketKind;
    use crate::net::queue::{DropTail, QueueLimit};

    fn link(limit: u32) -> LinkDir {
        LinkDir::new(
            "a->b".into(),
            0,
            1,
            8_000_000, // 1 byte per us
            1_000_000,
            QueueDiscipline::DropTail(DropTail::new(QueueLimit::Packets(limit))),
            Channel::perfect(),
            RandomStream::new(1, "q"),
        )
    }

    fn pkt() -> Packet {
        Packet {
            kind: PacketKind::TcpData,
            payload_len: 960,
            ..Default::default()
        } // 1000 B
    }

    #[test]
    fn back_to_back_packets_queue_and_serialise() {
        let mut l = link(2);
        let a: Vec<_> = (0..4).map(|_| l.offer(0, &mut pkt())).collect();
        assert_eq!(
            a[0],
            LinkOutcome::Arrives {
                arrival_ns: 1_000_000 + 1_000_000,
                marked: false
            }
        );
        assert_eq!(
            a[1],
            LinkOutcome::Arrives {
                arrival_ns: 2_000_000 + 1_000_000,
                marked: false
            }
        );
        assert_eq!(
            a[2],
            LinkOutcome::Arrives {
                arrival_ns: 3_000_000 + 1_000_000,
                marked: false
            }
        );
        // One in service, two waiting: the fourth overflows.
        assert_eq!(a[3], LinkOutcome::Dropped(DeathCause::QueueOverflow));
        assert_eq!(l.queue_len_pkts(1_000_000), 1);
        assert_eq!(l.queue_len_pkts(2_000_000), 0);
    }

    /// STIS item 2 (DCLOR draft, Appendix 1): packets share one buffer
    /// until their transmission ends. Two 1000 B packets of one
    /// connection at t = 0 on a 1 byte/us link leave at 1 ms and 2 ms:
    /// the buffer holds 2 packets for 1 ms, then 1 for 1 ms.
    #[test]
    fn per_flow_buffer_occupancy_is_integrated() {
        let mut l = link(10);
        l.per_flow = Some(Box::new(PerFlowService::new(QueueLimit::Packets(10))));
        l.offer(0, &mut pkt());
        l.offer(0, &mut pkt());
        assert_eq!(l.queue_len_pkts(500_000), 2);
        assert_eq!(l.queue_len_pkts(1_500_000), 1);
        l.finish(1_500_000);
        assert_eq!(l.stats.queue_pkt_ns, 2_500_000);
        // One connection's queue: busy without a gap from 0 to 1.5 ms.
        assert_eq!(l.stats.busy_in_run_ns, 1_500_000);
        l.finish(4_000_000);
        assert_eq!(l.stats.queue_pkt_ns, 3_000_000);
        assert_eq!(l.stats.busy_in_run_ns, 2_000_000);
        assert_eq!(l.stats.max_queue_pkts, 2);
    }

    #[test]
    fn utilisation_and_queue_integral() {
        let mut l = link(10);
        l.offer(0, &mut pkt());
        l.offer(0, &mut pkt());
        l.finish(4_000_000);
        assert_eq!(l.stats.busy_ns, 2_000_000);
        // One packet waited 1 ms.
        assert_eq!(l.stats.queue_pkt_ns, 1_000_000);
    }

    /// The mean queue is the time-integral of the packets waiting (not in
    /// service) over the run, divided by its length: a run that ends while
    /// packets wait counts them only up to its end, and a later offer to a
    /// link idle since its last burst finds that burst gone. Three 1000 B
    /// packets at t = 0 on a 1 byte/us link start at 0, 1 and 2 ms: two
    /// wait 1 ms, then one more 1 ms.
    #[test]
    fn queue_integral_counts_waiting_up_to_the_end_of_the_run() {
        let mut l = link(10);
        for _ in 0..3 {
            l.offer(0, &mut pkt());
        }
        l.finish(500_000);
        assert_eq!(l.stats.queue_pkt_ns, 2 * 500_000);
        // Busy only up to the end of the run: 3 ms admitted, 0.5 ms sent.
        assert_eq!(l.stats.busy_in_run_ns, 500_000);
        l.finish(1_500_000);
        assert_eq!(l.stats.queue_pkt_ns, 2 * 1_000_000 + 500_000);
        assert_eq!(l.stats.busy_in_run_ns, 1_500_000);
        // Idle from 3 ms: a packet at 5 ms waits for nothing.
        let out = l.offer(5_000_000, &mut pkt());
        assert_eq!(
            out,
            LinkOutcome::Arrives {
                arrival_ns: 5_000_000 + 1_000_000 + 1_000_000,
                marked: false
            }
        );
        assert_eq!(l.queue_len_pkts(5_000_000), 0);
        l.finish(10_000_000);
        assert_eq!(l.stats.queue_pkt_ns, 2 * 1_000_000 + 1_000_000);
        // 0-3 ms and 5-6 ms.
        assert_eq!(l.stats.busy_in_run_ns, 4_000_000);
        assert_eq!(l.stats.max_queue_pkts, 2);
    }
}
