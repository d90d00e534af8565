//! Random Early Detection: Floyd and Jacobson, "Random Early Detection
//! Gateways for Congestion Avoidance", IEEE/ACM ToN 1(4), 1993, with the
//! "gentle" extension and RFC 3168 ECN marking. Arithmetic follows the paper
//! (Fig. 2) as ns-2's `REDQueue` implements it.

use super::{Admission, QueueLimit, QueueOccupancy};
use crate::net::packet::{DeathCause, Ecn, Packet};
use crate::sim::rng::RandomStream;
use crate::sim::{tx_time_ns, TimeNs};

#[derive(Clone, Debug, PartialEq)]
pub struct RedConfig {
    /// Hard limit: arrivals beyond it are tail-dropped.
    pub limit: QueueLimit,
    /// Thresholds on the average queue, in packets.
    pub min_th_pkts: f64,
    pub max_th_pkts: f64,
    /// EWMA weight w_q of the average queue estimate.
    pub weight: f64,
    /// Marking probability at max_th.
    pub max_p: f64,
    /// Gentle RED: probability rises from max_p to 1 between max_th and
    /// 2 * max_th instead of jumping to 1 at max_th.
    pub gentle: bool,
    /// Mark ECN-capable packets (set CE) instead of dropping them early.
    pub ecn: bool,
    /// ns-2's `wait_` (`REDQueue::modify_p`, true by default in every ns-2
    /// release): no early mark or drop while count * p_b < 1, then
    /// p_a = p_b / (2 - count * p_b), so marks are spaced between 1/p_b and
    /// 2/p_b packets apart. Off: Floyd & Jacobson 1993's Fig. 2,
    /// p_a = p_b / (1 - count * p_b), spacing between 1 and 1/p_b.
    pub wait: bool,
    /// Typical packet size, for ageing the average over idle periods.
    pub mean_pkt_bytes: u32,
}

#[derive(Clone, Debug)]
pub struct Red {
    pub cfg: RedConfig,
    /// Average queue length in packets.
    pub avg: f64,
    /// Packets since the last mark or drop (-1 when avg < min_th), the
    /// paper's `count`.
    count: i64,
    /// Transmission time of a typical packet on this link, for idle ageing.
    typical_tx_ns: TimeNs,
}

impl Red {
    pub fn new(cfg: RedConfig, link_rate_bps: u64) -> Self {
        let typical_tx_ns = tx_time_ns(cfg.mean_pkt_bytes, link_rate_bps).max(1);
        Self {
            cfg,
            avg: 0.0,
            count: -1,
            typical_tx_ns,
        }
    }

    /// Update the average with the instantaneous queue `q` at an arrival.
    /// After an idle period of length `idle`, the average decays as if
    /// `m = idle / typical_tx` packets had arrived to an empty queue
    /// (Floyd & Jacobson 1993 §4, Fig. 2).
    pub fn update_average(&mut self, now_ns: TimeNs, occ: QueueOccupancy) {
        let w = self.cfg.weight;
        if let Some(idle_since) = occ.idle_since_ns {
            let m = now_ns.saturating_sub(idle_since) / self.typical_tx_ns;
            self.avg *= (1.0 - w).powf(m as f64);
        }
        self.avg = (1.0 - w) * self.avg + w * occ.len_pkts as f64;
    }

    /// Early-marking probability p_b for the current average, or None when
    /// the average is in the forced-drop region.
    fn base_probability(&self) -> Option<f64> {
        let c = &self.cfg;
        if self.avg < c.max_th_pkts {
            Some(c.max_p * (self.avg - c.min_th_pkts) / (c.max_th_pkts - c.min_th_pkts))
        } else if c.gentle && self.avg < 2.0 * c.max_th_pkts {
            Some(c.max_p + (1.0 - c.max_p) * (self.avg - c.max_th_pkts) / c.max_th_pkts)
        } else {
            None
        }
    }

    pub fn admit(
        &mut self,
        now_ns: TimeNs,
        occ: QueueOccupancy,
        pkt: &mut Packet,
        rng: &mut RandomStream,
    ) -> Admission {
        self.update_average(now_ns, occ);
        let early = if self.avg < self.cfg.min_th_pkts {
            self.count = -1;
            None
        } else {
            self.count += 1;
            match self.base_probability() {
                Some(pb) => {
                    // Uniformly spaced marks: p_a = p_b / (1 - count * p_b),
                    // or with ns-2's `wait_` p_b / (2 - count * p_b) once
                    // count * p_b reaches 1.
                    let spaced = self.count as f64 * pb;
                    let pa = if self.cfg.wait {
                        if spaced < 1.0 {
                            0.0
                        } else if spaced < 2.0 {
                            (pb / (2.0 - spaced)).min(1.0)
                        } else {
                            1.0
                        }
                    } else if spaced >= 1.0 {
                        1.0
                    } else {
                        (pb / (1.0 - spaced)).min(1.0)
                    };
                    if rng.uniform() < pa {
                        self.count = 0;
                        Some(false)
                    } else {
                        None
                    }
                }
                None => {
                    self.count = 0;
                    Some(true)
                }
            }
        };
        let overflow = self
            .cfg
            .limit
            .overflows(occ.len_pkts, occ.len_bytes, pkt.wire_bytes());
        match early {
            // RFC 3168 §7: an ECN-capable packet is marked rather than
            // dropped, unless the queue is full or the average is in the
            // forced region.
            Some(false) if self.cfg.ecn && pkt.ecn.is_ect() && !overflow => {
                pkt.ecn = Ecn::Ce;
                Admission::EnqueueMarked
            }
            Some(false) if self.cfg.ecn && pkt.ecn == Ecn::Ce && !overflow => {
                Admission::EnqueueMarked
            }
            Some(_) => Admission::Drop(DeathCause::AqmDrop),
            None if overflow => Admission::Drop(DeathCause::QueueOverflow),
            None => Admission::Enqueue,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::PacketKind;

    fn cfg() -> RedConfig {
        RedConfig {
            limit: QueueLimit::Packets(100),
            min_th_pkts: 5.0,
            max_th_pkts: 15.0,
            weight: 0.002,
            max_p: 0.1,
            gentle: false,
            ecn: true,
            wait: false,
            mean_pkt_bytes: 1000,
        }
    }

    #[test]
    fn average_is_ewma() {
        let mut r = Red::new(cfg(), 10_000_000);
        let occ = QueueOccupancy {
            len_pkts: 10,
            len_bytes: 10_000,
            idle_since_ns: None,
        };
        r.update_average(0, occ);
        assert!((r.avg - 0.02).abs() < 1e-12);
        r.update_average(0, occ);
        assert!((r.avg - (0.998 * 0.02 + 0.02)).abs() < 1e-12);
    }

    #[test]
    fn idle_period_decays_average() {
        let mut r = Red::new(cfg(), 8_000_000); // 1000 B -> 1 ms
        r.avg = 10.0;
        let occ = QueueOccupancy {
            len_pkts: 0,
            len_bytes: 0,
            idle_since_ns: Some(0),
        };
        r.update_average(100_000_000, occ); // 100 typical packets idle
        let expected = 10.0 * 0.998f64.powi(100) * 0.998;
        assert!((r.avg - expected).abs() < 1e-9, "{} vs {}", r.avg, expected);
    }

    #[test]
    fn marks_ect_and_drops_non_ect_in_forced_region() {
        let mut r = Red::new(cfg(), 10_000_000);
        r.avg = 20.0;
        let mut rng = RandomStream::new(1, "red");
        let occ = QueueOccupancy {
            len_pkts: 20,
            len_bytes: 20_000,
            idle_since_ns: None,
        };
        let mut p = Packet {
            kind: PacketKind::TcpData,
            ecn: Ecn::Ect0,
            payload_len: 960,
            ..Default::default()
        };
        // Forced region (avg >= max_th, not gentle): dropped even if ECT.
        assert_eq!(
            r.admit(0, occ, &mut p, &mut rng),
            Admission::Drop(DeathCause::AqmDrop)
        );
    }

    /// ns-2's `wait_` (queue/red.cc, `REDQueue::modify_p`; `Queue/RED set
    /// wait_ true` in ns-default.tcl): "if (count1 * p < 1.0) p = 0.0; else
    /// if (count1 * p < 2.0) p /= (2.0 - count1 * p); else p = 1.0", where
    /// count1 is the number of arrivals since the last mark. Packet by
    /// packet against a copy of the queue's random stream (one draw per
    /// arrival): with p_b = 0.05 no mark comes before the 20th arrival
    /// after the last one, and one always comes by the 40th.
    #[test]
    fn wait_spaces_marks_between_1_and_2_over_p_b() {
        let mut r = Red::new(
            RedConfig {
                weight: 0.0,
                wait: true,
                ..cfg()
            },
            10_000_000,
        );
        let mut rng = RandomStream::new(7, "red-wait");
        let mut mirror = rng.clone();
        let occ = QueueOccupancy {
            len_pkts: 10,
            len_bytes: 10_000,
            idle_since_ns: None,
        };
        let pb = 0.05;
        // F&J's count: -1 until the average passes min_th, then arrivals
        // since the last mark (0 at the first arrival above min_th).
        let mut count: i64 = -1;
        let mut gaps = Vec::new();
        for i in 0..4000 {
            r.avg = 10.0;
            count += 1;
            let c = count as f64 * pb;
            let pa = if c < 1.0 {
                0.0
            } else if c < 2.0 {
                pb / (2.0 - c)
            } else {
                1.0
            };
            let expect_mark = mirror.uniform() < pa;
            let mut p = Packet {
                kind: PacketKind::TcpData,
                ecn: Ecn::Ect0,
                payload_len: 960,
                ..Default::default()
            };
            let marked = r.admit(0, occ, &mut p, &mut rng) == Admission::EnqueueMarked;
            assert_eq!(marked, expect_mark, "arrival {i}, count {count}");
            if marked {
                gaps.push(count);
                count = 0;
            }
        }
        assert!(gaps.len() > 100);
        // After a mark, the next one is the 20th to 40th arrival.
        assert!(gaps[1..].iter().all(|g| (20..=40).contains(g)), "{gaps:?}");
    }

    #[test]
    fn early_region_marks_with_uniform_spacing() {
        // avg held mid-way: p_b = 0.05. With count incremented before
        // p_a = p_b / (1 - count p_b), P(gap > k) = (1 - (k+1) p_b) / (1 - p_b):
        // the gap is uniform on {1, ..., 1/p_b - 1} = {1..19}, mean 10.
        let mut r = Red::new(
            RedConfig {
                weight: 0.0,
                ..cfg()
            },
            10_000_000,
        );
        let mut rng = RandomStream::new(3, "red");
        let occ = QueueOccupancy {
            len_pkts: 10,
            len_bytes: 10_000,
            idle_since_ns: None,
        };
        let mut marks = 0;
        let n = 100_000;
        for _ in 0..n {
            r.avg = 10.0;
            let mut p = Packet {
                kind: PacketKind::TcpData,
                ecn: Ecn::Ect0,
                payload_len: 960,
                ..Default::default()
            };
            if r.admit(0, occ, &mut p, &mut rng) == Admission::EnqueueMarked {
                assert_eq!(p.ecn, Ecn::Ce);
                marks += 1;
            }
        }
        let gap = n as f64 / marks as f64;
        assert!((gap - 10.0).abs() < 0.2, "mean gap {gap}");
    }
}
