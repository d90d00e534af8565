//! Multi-level ECN marking at a router: WMECN paper §2.1 and Fig. 1
//! (Sridharan, Durresi, Liu, Jain, "Wireless TCP Enhancements Using
//! Multi-level ECN"), after Durresi et al., SCI 2001.
//!
//! The average queue is RED's (Floyd & Jacobson 1993: EWMA with weight w_q
//! and idle ageing, computed by [`Red::update_average`]); three thresholds
//! on it, min_th < mid_th < max_th, in packets:
//!
//! * avg < min_th: no mark;
//! * min_th <= avg < max_th ("incipient congestion"): mark `10` with
//!   probability p1 = max_p1 * (avg - min_th) / (max_th - min_th);
//! * mid_th <= avg < max_th ("moderate congestion"): mark `11` with
//!   probability p2 = max_p2 * (avg - mid_th) / (max_th - mid_th). One
//!   uniform draw u decides: u < p2 gives `11`, else u < p2 + p1 gives `10`,
//!   so P(`11`) = p2 and P(`10`) = p1 exactly (the document does not say
//!   how the two overlapping tests combine; this keeps each level at its
//!   stated probability and needs p1 + p2 <= 1, checked when building);
//! * avg >= max_th: every packet is marked `11` ("all packets are marked").
//!
//! Choices the document leaves open, documented: the probabilities rise
//! linearly from 0 at the lower threshold of their region to their maximum
//! at max_th, as RED's p_b does (Fig. 1 shows ramps without numbers), and
//! they are used as they are, without RED's count-based spacing. Marks only
//! raise a packet's level (`crate::net::mecn::raise_ip_level`).
//! A packet that is not ECN-capable (`00`: UDP, ACKs, retransmissions) is
//! dropped where the random test would have marked an ECN-capable one, and
//! always at or above max_th (RFC 3168 §7's mark-or-drop equivalence).
//! Buffer overflow drops every packet, marked or not.

use super::red::{Red, RedConfig};
use super::{Admission, QueueLimit, QueueOccupancy};
use crate::net::mecn::{raise_ip_level, MecnLevel};
use crate::net::packet::{DeathCause, Packet};
use crate::sim::rng::RandomStream;
use crate::sim::TimeNs;

/// Thresholds, averaging and buffer shared by MECN and WMECN marking.
#[derive(Clone, Debug, PartialEq)]
pub struct MultiLevelConfig {
    pub limit: QueueLimit,
    pub min_th_pkts: f64,
    pub mid_th_pkts: f64,
    pub max_th_pkts: f64,
    /// EWMA weight w_q (the WMECN paper's §5.1 uses 0.002).
    pub weight: f64,
    /// Typical packet size, for ageing the average over idle periods.
    pub mean_pkt_bytes: u32,
}

impl MultiLevelConfig {
    fn averaging(&self) -> RedConfig {
        RedConfig {
            limit: self.limit,
            min_th_pkts: self.min_th_pkts,
            max_th_pkts: self.max_th_pkts,
            weight: self.weight,
            max_p: 0.0,
            gentle: false,
            ecn: true,
            wait: false,
            mean_pkt_bytes: self.mean_pkt_bytes,
        }
    }

    /// Linear ramp from 0 at `lo` to `max` at `hi`.
    pub(super) fn ramp(avg: f64, lo: f64, hi: f64, max: f64) -> f64 {
        (max * (avg - lo) / (hi - lo)).clamp(0.0, max)
    }
}

/// What the marking policy decided for an arrival.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum MarkDecision {
    None,
    /// A probabilistic mark: a non-capable packet is dropped instead.
    Random(MecnLevel),
    /// A deterministic mark (WMECN's `10` between mid_th and max_th): it
    /// carries information only; a non-capable packet passes.
    Deterministic(MecnLevel),
    /// avg >= max_th: capable packets get `11`, others are dropped.
    Forced,
}

/// The average, the counters, and admission given a decision.
#[derive(Clone, Debug)]
pub struct MultiLevelCore {
    pub cfg: MultiLevelConfig,
    /// RED's average estimator (only its average is used).
    avg_red: Red,
    /// Marks set here, by level (`10`, `11`).
    pub marks_incipient: u64,
    pub marks_moderate: u64,
}

impl MultiLevelCore {
    pub fn new(cfg: MultiLevelConfig, link_rate_bps: u64) -> Self {
        let avg_red = Red::new(cfg.averaging(), link_rate_bps);
        Self {
            cfg,
            avg_red,
            marks_incipient: 0,
            marks_moderate: 0,
        }
    }

    /// Average queue length in packets.
    pub fn avg(&self) -> f64 {
        self.avg_red.avg
    }

    /// Force the average (tests of the marking regions).
    pub fn set_avg(&mut self, avg: f64) {
        self.avg_red.avg = avg;
    }

    pub(super) fn update_average(&mut self, now_ns: TimeNs, occ: QueueOccupancy) -> f64 {
        self.avg_red.update_average(now_ns, occ);
        self.avg_red.avg
    }

    pub(super) fn apply(
        &mut self,
        decision: MarkDecision,
        occ: QueueOccupancy,
        pkt: &mut Packet,
    ) -> Admission {
        if self
            .cfg
            .limit
            .overflows(occ.len_pkts, occ.len_bytes, pkt.wire_bytes())
        {
            return Admission::Drop(DeathCause::QueueOverflow);
        }
        let capable = MecnLevel::of_ip(pkt.ecn) != MecnLevel::NotCapable;
        let level = match decision {
            MarkDecision::None => return Admission::Enqueue,
            MarkDecision::Random(l) | MarkDecision::Deterministic(l) => l,
            MarkDecision::Forced => MecnLevel::Moderate,
        };
        if !capable {
            return match decision {
                MarkDecision::Deterministic(_) => Admission::Enqueue,
                _ => Admission::Drop(DeathCause::AqmDrop),
            };
        }
        raise_ip_level(pkt, level);
        match level {
            MecnLevel::Moderate => self.marks_moderate += 1,
            _ => self.marks_incipient += 1,
        }
        Admission::EnqueueMarked
    }
}

#[derive(Clone, Debug)]
pub struct Mecn {
    pub core: MultiLevelCore,
    /// Maximum probability of `10` (reached at max_th).
    pub max_p1: f64,
    /// Maximum probability of `11` (reached at max_th).
    pub max_p2: f64,
}

impl Mecn {
    pub fn new(cfg: MultiLevelConfig, max_p1: f64, max_p2: f64, link_rate_bps: u64) -> Self {
        Self {
            core: MultiLevelCore::new(cfg, link_rate_bps),
            max_p1,
            max_p2,
        }
    }

    /// (P(`10`), P(`11`)) for an average queue of `avg` packets, below
    /// max_th (the forced region marks everything `11`).
    pub fn probabilities(&self, avg: f64) -> (f64, f64) {
        let c = &self.core.cfg;
        if avg < c.min_th_pkts || avg >= c.max_th_pkts {
            return (0.0, 0.0);
        }
        let p1 = MultiLevelConfig::ramp(avg, c.min_th_pkts, c.max_th_pkts, self.max_p1);
        let p2 = if avg >= c.mid_th_pkts {
            MultiLevelConfig::ramp(avg, c.mid_th_pkts, c.max_th_pkts, self.max_p2)
        } else {
            0.0
        };
        (p1, p2)
    }

    fn decide(&self, avg: f64, rng: &mut RandomStream) -> MarkDecision {
        let c = &self.core.cfg;
        if avg < c.min_th_pkts {
            return MarkDecision::None;
        }
        if avg >= c.max_th_pkts {
            return MarkDecision::Forced;
        }
        let (p1, p2) = self.probabilities(avg);
        let u = rng.uniform();
        if u < p2 {
            MarkDecision::Random(MecnLevel::Moderate)
        } else if u < p2 + p1 {
            MarkDecision::Random(MecnLevel::Incipient)
        } else {
            MarkDecision::None
        }
    }

    pub fn admit(
        &mut self,
        now_ns: TimeNs,
        occ: QueueOccupancy,
        pkt: &mut Packet,
        rng: &mut RandomStream,
    ) -> Admission {
        let avg = self.core.update_average(now_ns, occ);
        let d = self.decide(avg, rng);
        self.core.apply(d, occ, pkt)
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::net::packet::{Ecn, PacketKind};

    pub fn cfg() -> MultiLevelConfig {
        MultiLevelConfig {
            limit: QueueLimit::Packets(1000),
            min_th_pkts: 5.0,
            mid_th_pkts: 10.0,
            max_th_pkts: 15.0,
            weight: 0.002,
            mean_pkt_bytes: 1000,
        }
    }

    pub fn occ(len: u32) -> QueueOccupancy {
        QueueOccupancy {
            len_pkts: len,
            len_bytes: len as u64 * 1000,
            idle_since_ns: None,
        }
    }

    pub fn data(ecn: Ecn) -> Packet {
        Packet {
            kind: PacketKind::TcpData,
            ecn,
            payload_len: 960,
            ..Default::default()
        }
    }

    /// Offer `n` packets with the average held at `avg` (weight 0 keeps it);
    /// returns the fractions marked `10`, marked `11`, and dropped.
    pub fn fractions(
        mut admit: impl FnMut(&mut Packet, &mut RandomStream) -> Admission,
        n: u32,
        ecn: Ecn,
    ) -> (f64, f64, f64) {
        let mut rng = RandomStream::new(7, "mecn-test");
        let (mut m10, mut m11, mut drops) = (0u32, 0u32, 0u32);
        for _ in 0..n {
            let mut p = data(ecn);
            match admit(&mut p, &mut rng) {
                Admission::Drop(_) => drops += 1,
                _ => match MecnLevel::of_ip(p.ecn) {
                    MecnLevel::Incipient => m10 += 1,
                    MecnLevel::Moderate => m11 += 1,
                    _ => {}
                },
            }
        }
        let n = n as f64;
        (m10 as f64 / n, m11 as f64 / n, drops as f64 / n)
    }

    /// Tolerance for a fraction estimated from `n` Bernoulli trials: five
    /// standard deviations of the binomial proportion (a false failure has
    /// probability below 1e-6; the seed is fixed anyway).
    pub fn tol(p: f64, n: u32) -> f64 {
        5.0 * (p * (1.0 - p) / n as f64).sqrt() + 1e-9
    }

    /// Measured (m10, m11, drops) from `fractions` match the expected
    /// marking probabilities (p10, p11) and nothing was dropped.
    pub fn assert_marks(avg: f64, measured: (f64, f64, f64), expected: (f64, f64), n: u32) {
        let ((m10, m11, drops), (p10, p11)) = (measured, expected);
        assert_eq!(drops, 0.0, "avg {avg}: drops");
        assert!(
            (m10 - p10).abs() <= tol(p10, n),
            "avg {avg}: 10 {m10} vs {p10}"
        );
        assert!(
            (m11 - p11).abs() <= tol(p11, n),
            "avg {avg}: 11 {m11} vs {p11}"
        );
    }

    #[test]
    fn marks_match_configured_probabilities_in_each_region() {
        let n = 40_000;
        for avg in [2.0, 6.0, 8.0, 11.0, 14.0, 15.0, 30.0] {
            let mut q = Mecn::new(
                MultiLevelConfig {
                    weight: 0.0,
                    ..cfg()
                },
                0.3,
                0.4,
                10_000_000,
            );
            let (p1, p2) = if avg >= 15.0 {
                (0.0, 1.0)
            } else {
                q.probabilities(avg)
            };
            let measured = fractions(
                |p, rng| {
                    q.core.set_avg(avg);
                    q.admit(0, occ(avg as u32), p, rng)
                },
                n,
                Ecn::Ect1,
            );
            assert_marks(avg, measured, (p1, p2), n);
        }
    }

    #[test]
    fn ramps_and_regions() {
        let q = Mecn::new(cfg(), 0.3, 0.4, 10_000_000);
        assert_eq!(q.probabilities(4.9), (0.0, 0.0));
        let (p1, p2) = q.probabilities(10.0);
        assert!((p1 - 0.15).abs() < 1e-12 && p2 == 0.0);
        let (p1, p2) = q.probabilities(12.5);
        assert!((p1 - 0.225).abs() < 1e-12 && (p2 - 0.2).abs() < 1e-12);
    }

    #[test]
    fn non_capable_packets_are_dropped_where_capable_ones_are_marked() {
        let n = 40_000;
        let avg = 12.5;
        let mut q = Mecn::new(
            MultiLevelConfig {
                weight: 0.0,
                ..cfg()
            },
            0.3,
            0.4,
            10_000_000,
        );
        let (p1, p2) = q.probabilities(avg);
        let (m10, m11, drops) = fractions(
            |p, rng| {
                q.core.set_avg(avg);
                q.admit(0, occ(12), p, rng)
            },
            n,
            Ecn::NotEct,
        );
        assert_eq!((m10, m11), (0.0, 0.0));
        assert!((drops - (p1 + p2)).abs() <= tol(p1 + p2, n));
        // Forced region and overflow.
        q.core.set_avg(20.0);
        let mut rng = RandomStream::new(1, "x");
        assert_eq!(
            q.admit(0, occ(20), &mut data(Ecn::NotEct), &mut rng),
            Admission::Drop(DeathCause::AqmDrop)
        );
        let mut p = data(Ecn::Ect1);
        assert_eq!(
            q.admit(0, occ(20), &mut p, &mut rng),
            Admission::EnqueueMarked
        );
        assert_eq!(p.ecn, Ecn::Ce);
        assert_eq!(
            q.admit(0, occ(1000), &mut data(Ecn::Ect1), &mut rng),
            Admission::Drop(DeathCause::QueueOverflow)
        );
    }
}
