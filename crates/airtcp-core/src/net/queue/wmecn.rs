//! WMECN marking at a router: §3.1 and Fig. 2 of Sridharan, Durresi, Liu,
//! Jain, "Wireless TCP Enhancements Using Multi-level ECN".
//!
//! On RED's average queue with min_th < mid_th < max_th (packets):
//!
//! * avg < min_th: no mark;
//! * min_th <= avg < mid_th: mark `10` with probability
//!   p = P_max * (avg - min_th) / (mid_th - min_th);
//! * mid_th <= avg < max_th: mark `11` with probability
//!   p = P_max * (avg - mid_th) / (max_th - mid_th), and every packet not
//!   marked `11` is marked `10` deterministically ("so that all packets that
//!   reach the router after mid_th get some kind of mark for sure");
//! * avg >= max_th: every packet is marked `11`.
//!
//! "With a maximum of probability of P_max" is read as a RED-style linear
//! ramp reaching P_max at the upper threshold of each region (Fig. 2 has no
//! numbers). A packet that is not ECN-capable is dropped where the random
//! test marks (the probabilistic `10` and `11`) and at or above max_th; the
//! deterministic `10` only carries information, so a non-capable packet
//! passes it ([`NotEctPolicy::RandomMarks`], the default). The document is
//! silent on such packets; [`NotEctPolicy::EveryMark`] is the other
//! reading: dropped wherever an ECN-capable packet would be marked, the
//! deterministic `10` included. Buffer overflow drops every packet. See
//! `mecn.rs` for the shared averaging and admission.

use super::mecn::{MarkDecision, MultiLevelConfig, MultiLevelCore};
use super::{Admission, QueueOccupancy};
use crate::net::mecn::MecnLevel;
use crate::net::packet::Packet;
use crate::sim::rng::RandomStream;
use crate::sim::TimeNs;

/// Which WMECN marks a packet that is not ECN-capable (`00`) receives as a
/// drop (the document says nothing of such packets).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum NotEctPolicy {
    /// The random marks (`10` below mid_th, `11` above) and everything at
    /// or above max_th; the deterministic `10` lets it pass.
    #[default]
    RandomMarks,
    /// Every mark, the deterministic `10` between mid_th and max_th
    /// included (RFC 3168 §7's mark-or-drop applied to every mark).
    EveryMark,
}

#[derive(Clone, Debug)]
pub struct Wmecn {
    pub core: MultiLevelCore,
    /// P_max of both regions.
    pub max_p: f64,
    /// What a packet that is not ECN-capable gets where others are marked.
    pub not_ect: NotEctPolicy,
}

impl Wmecn {
    pub fn new(cfg: MultiLevelConfig, max_p: f64, link_rate_bps: u64) -> Self {
        Self {
            core: MultiLevelCore::new(cfg, link_rate_bps),
            max_p,
            not_ect: NotEctPolicy::default(),
        }
    }

    /// The same queue with `policy` for packets that are not ECN-capable.
    pub fn with_not_ect(self, policy: NotEctPolicy) -> Self {
        Self {
            not_ect: policy,
            ..self
        }
    }

    /// (P(`10`), P(`11`)) for an average of `avg` packets.
    pub fn probabilities(&self, avg: f64) -> (f64, f64) {
        let c = &self.core.cfg;
        if avg < c.min_th_pkts {
            (0.0, 0.0)
        } else if avg < c.mid_th_pkts {
            let p = MultiLevelConfig::ramp(avg, c.min_th_pkts, c.mid_th_pkts, self.max_p);
            (p, 0.0)
        } else if avg < c.max_th_pkts {
            let p = MultiLevelConfig::ramp(avg, c.mid_th_pkts, c.max_th_pkts, self.max_p);
            (1.0 - p, p)
        } else {
            (0.0, 1.0)
        }
    }

    fn decide(&self, avg: f64, rng: &mut RandomStream) -> MarkDecision {
        let c = &self.core.cfg;
        if avg < c.min_th_pkts {
            MarkDecision::None
        } else if avg < c.mid_th_pkts {
            let p = MultiLevelConfig::ramp(avg, c.min_th_pkts, c.mid_th_pkts, self.max_p);
            if rng.uniform() < p {
                MarkDecision::Random(MecnLevel::Incipient)
            } else {
                MarkDecision::None
            }
        } else if avg < c.max_th_pkts {
            let p = MultiLevelConfig::ramp(avg, c.mid_th_pkts, c.max_th_pkts, self.max_p);
            if rng.uniform() < p {
                MarkDecision::Random(MecnLevel::Moderate)
            } else {
                MarkDecision::Deterministic(MecnLevel::Incipient)
            }
        } else {
            MarkDecision::Forced
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
        let d = match self.decide(avg, rng) {
            // Under `EveryMark` the deterministic `10` drops a packet that
            // is not ECN-capable, as a random mark does; a capable packet
            // is marked `10` either way.
            MarkDecision::Deterministic(level) if self.not_ect == NotEctPolicy::EveryMark => {
                MarkDecision::Random(level)
            }
            d => d,
        };
        self.core.apply(d, occ, pkt)
    }
}

#[cfg(test)]
mod tests {
    use super::super::mecn::tests::{assert_marks, cfg, fractions, occ, tol};
    use super::*;
    use crate::net::packet::Ecn;

    fn q() -> Wmecn {
        Wmecn::new(
            MultiLevelConfig {
                weight: 0.0,
                ..cfg()
            },
            0.3,
            10_000_000,
        )
    }

    #[test]
    fn marks_match_fig2_in_each_region() {
        // min 5, mid 10, max 15, P_max 0.3.
        let n = 40_000;
        for (avg, p10, p11) in [
            (2.0, 0.0, 0.0),
            (5.0, 0.0, 0.0),
            (7.5, 0.15, 0.0),
            (9.99, 0.2994, 0.0),
            (10.0, 1.0, 0.0),
            (12.5, 0.85, 0.15),
            (14.0, 0.76, 0.24),
            (15.0, 0.0, 1.0),
            (40.0, 0.0, 1.0),
        ] {
            let mut w = q();
            let (e10, e11) = w.probabilities(avg);
            assert!((e10 - p10).abs() < 1e-9 && (e11 - p11).abs() < 1e-9);
            let measured = fractions(
                |p, rng| {
                    w.core.set_avg(avg);
                    w.admit(0, occ(avg as u32), p, rng)
                },
                n,
                Ecn::Ect1,
            );
            assert_marks(avg, measured, (p10, p11), n);
        }
    }

    #[test]
    fn non_capable_dropped_only_by_the_random_tests() {
        let n = 40_000;
        for (avg, p_drop) in [(7.5, 0.15), (12.5, 0.15), (20.0, 1.0)] {
            let mut w = q();
            let (m10, m11, drops) = fractions(
                |p, rng| {
                    w.core.set_avg(avg);
                    w.admit(0, occ(avg as u32), p, rng)
                },
                n,
                Ecn::NotEct,
            );
            assert_eq!((m10, m11), (0.0, 0.0));
            assert!(
                (drops - p_drop).abs() <= tol(p_drop, n),
                "avg {avg}: {drops}"
            );
        }
    }

    #[test]
    fn average_follows_red() {
        let mut w = Wmecn::new(cfg(), 0.1, 10_000_000);
        let mut rng = RandomStream::new(1, "w");
        w.admit(
            0,
            occ(10),
            &mut super::super::mecn::tests::data(Ecn::Ect1),
            &mut rng,
        );
        assert!((w.core.avg() - 0.02).abs() < 1e-12);
    }
}
