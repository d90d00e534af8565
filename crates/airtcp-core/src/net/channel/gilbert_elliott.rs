//! Continuous-time two-state Gilbert–Elliott channel. The state alternates
//! between good and bad with exponentially distributed sojourns; the state
//! evolves with time, independently of the traffic: sojourns are drawn from
//! their own stream and the process is advanced to each packet's transmission
//! time, so two runs with different traffic see the same fades.
//!
//! Which state decides a packet's fate is a parameter ([`LossRule`]): the
//! state when its transmission starts, or the worst state during its
//! transmission (as ns-2's two-state error model effectively did: a packet
//! is corrupted if any of its bits is sent in the bad state).

use crate::sim::rng::RandomStream;
use crate::sim::{s_to_ns, TimeNs};

/// Which channel state a packet's loss probability comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum LossRule {
    /// The state at the start of the transmission.
    #[default]
    AtStart,
    /// Bad if the channel is bad at any time during the transmission.
    AnyBadDuringTransmission,
}

/// The state the fading process starts in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum InitialState {
    /// Drawn from the stationary distribution (default).
    #[default]
    Stationary,
    Good,
    Bad,
}

#[derive(Clone, Debug)]
pub struct GilbertElliott {
    pub mean_good_ns: TimeNs,
    pub mean_bad_ns: TimeNs,
    pub loss_good: f64,
    pub loss_bad: f64,
    pub loss_rule: LossRule,
    bad: bool,
    next_switch_ns: TimeNs,
    /// Sojourn draws only: independent of how many packets are sent.
    fading_rng: RandomStream,
}

impl GilbertElliott {
    /// Start in `initial` (by default the stationary distribution: bad with
    /// probability mean_bad / (mean_good + mean_bad)); by memorylessness the
    /// first sojourn is a fresh exponential draw.
    pub fn new(
        mean_good_ns: TimeNs,
        mean_bad_ns: TimeNs,
        loss_good: f64,
        loss_bad: f64,
        mut fading_rng: RandomStream,
    ) -> Self {
        Self::with_options(
            mean_good_ns,
            mean_bad_ns,
            loss_good,
            loss_bad,
            LossRule::AtStart,
            InitialState::Stationary,
            &mut fading_rng,
        )
    }

    /// Like [`Self::new`] with an explicit loss rule and initial state.
    pub fn with_options(
        mean_good_ns: TimeNs,
        mean_bad_ns: TimeNs,
        loss_good: f64,
        loss_bad: f64,
        loss_rule: LossRule,
        initial: InitialState,
        fading_rng: &mut RandomStream,
    ) -> Self {
        // Always draw the stationary coin so the stream's use does not
        // depend on the option.
        let p_bad = mean_bad_ns as f64 / (mean_good_ns + mean_bad_ns) as f64;
        let coin_bad = fading_rng.uniform() < p_bad;
        let bad = match initial {
            InitialState::Stationary => coin_bad,
            InitialState::Good => false,
            InitialState::Bad => true,
        };
        let mean = if bad { mean_bad_ns } else { mean_good_ns };
        let first = s_to_ns(fading_rng.exponential(mean as f64 / 1e9)).max(1);
        Self {
            mean_good_ns,
            mean_bad_ns,
            loss_good,
            loss_bad,
            loss_rule,
            bad,
            next_switch_ns: first,
            fading_rng: fading_rng.clone(),
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

    /// Whether the channel is bad at any time in [start, end).
    pub fn any_bad_during(&mut self, start_ns: TimeNs, end_ns: TimeNs) -> bool {
        self.is_bad_at(start_ns) || self.next_switch_ns < end_ns
    }

    /// Fate of a packet transmitted during [start, end).
    #[inline]
    pub fn is_lost(
        &mut self,
        start_ns: TimeNs,
        end_ns: TimeNs,
        loss_rng: &mut RandomStream,
    ) -> bool {
        let bad = match self.loss_rule {
            LossRule::AtStart => self.is_bad_at(start_ns),
            LossRule::AnyBadDuringTransmission => self.any_bad_during(start_ns, end_ns),
        };
        let p = if bad { self.loss_bad } else { self.loss_good };
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
    fn loss_during_transmission_and_initial_state() {
        let mut rng = RandomStream::new(3, "ge");
        let mut ge = GilbertElliott::with_options(
            80 * NS_PER_MS,
            20 * NS_PER_MS,
            0.0,
            1.0,
            LossRule::AnyBadDuringTransmission,
            InitialState::Good,
            &mut rng,
        );
        assert!(!ge.is_bad_at(0));
        let switch = ge.next_switch_ns;
        // A packet that starts good but overlaps the switch to bad is lost.
        let mut coins = RandomStream::new(1, "coins");
        assert!(ge.is_lost(switch - 10, switch + 10, &mut coins));
        let mut rng = RandomStream::new(3, "ge");
        let mut at_start = GilbertElliott::with_options(
            80 * NS_PER_MS,
            20 * NS_PER_MS,
            0.0,
            1.0,
            LossRule::AtStart,
            InitialState::Good,
            &mut rng,
        );
        assert!(!at_start.is_lost(switch - 10, switch + 10, &mut coins));
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
