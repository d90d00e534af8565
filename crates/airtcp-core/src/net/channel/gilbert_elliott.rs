//! Continuous-time two-state Gilbert–Elliott channel. The state alternates
//! between good and bad with exponentially distributed sojourns; the state
//! evolves with time, independently of the traffic: sojourns are drawn from
//! their own stream and the process is advanced to each packet's transmission
//! time, so two runs with different traffic see the same fades.

use crate::sim::rng::RandomStream;
use crate::sim::{s_to_ns, TimeNs};

#[derive(Clone, Debug)]
pub struct GilbertElliott {
    pub mean_good_ns: TimeNs,
    pub mean_bad_ns: TimeNs,
    pub loss_good: f64,
    pub loss_bad: f64,
    bad: bool,
    next_switch_ns: TimeNs,
    /// Sojourn draws only: independent of how many packets are sent.
    fading_rng: RandomStream,
}

impl GilbertElliott {
    /// Start in the stationary distribution: bad with probability
    /// mean_bad / (mean_good + mean_bad); by memorylessness the first
    /// sojourn is a fresh exponential draw.
    pub fn new(
        mean_good_ns: TimeNs,
        mean_bad_ns: TimeNs,
        loss_good: f64,
        loss_bad: f64,
        mut fading_rng: RandomStream,
    ) -> Self {
        let p_bad = mean_bad_ns as f64 / (mean_good_ns + mean_bad_ns) as f64;
        let bad = fading_rng.uniform() < p_bad;
        let mean = if bad { mean_bad_ns } else { mean_good_ns };
        let first = s_to_ns(fading_rng.exponential(mean as f64 / 1e9)).max(1);
        Self {
            mean_good_ns,
            mean_bad_ns,
            loss_good,
            loss_bad,
            bad,
            next_switch_ns: first,
            fading_rng,
        }
    }

    /// Advance the fading process to `t_ns` and return whether it is bad.
    pub fn is_bad_at(&mut self, t_ns: TimeNs) -> bool {
        while t_ns >= self.next_switch_ns {
            self.bad = !self.bad;
            let mean = if self.bad {
                self.mean_bad_ns
            } else {
                self.mean_good_ns
            };
            let d = s_to_ns(self.fading_rng.exponential(mean as f64 / 1e9)).max(1);
            self.next_switch_ns += d;
        }
        self.bad
    }

    #[inline]
    pub fn is_lost(&mut self, t_ns: TimeNs, loss_rng: &mut RandomStream) -> bool {
        let p = if self.is_bad_at(t_ns) {
            self.loss_bad
        } else {
            self.loss_good
        };
        loss_rng.uniform() < p
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::NS_PER_MS;

    #[test]
    fn fraction_of_time_bad_matches_means() {
        let mut ge = GilbertElliott::new(
            800 * NS_PER_MS,
            200 * NS_PER_MS,
            0.0,
            1.0,
            RandomStream::new(5, "ge"),
        );
        let step = NS_PER_MS;
        let n = 2_000_000u64; // 2000 s sampled each ms
        let bad = (0..n).filter(|i| ge.is_bad_at(i * step)).count();
        let frac = bad as f64 / n as f64;
        assert!((frac - 0.2).abs() < 0.02, "bad fraction {frac}");
    }

    #[test]
    fn fades_do_not_depend_on_query_pattern() {
        let mk = || {
            GilbertElliott::new(
                80 * NS_PER_MS,
                20 * NS_PER_MS,
                0.0,
                1.0,
                RandomStream::new(9, "ge"),
            )
        };
        let (mut a, mut b) = (mk(), mk());
        // a is queried every ms, b only every 7 ms: states agree where both look.
        let mut states_a = Vec::new();
        for t in 0..10_000u64 {
            states_a.push(a.is_bad_at(t * NS_PER_MS));
        }
        for t in (0..10_000u64).step_by(7) {
            assert_eq!(b.is_bad_at(t * NS_PER_MS), states_a[t as usize]);
        }
    }
}
