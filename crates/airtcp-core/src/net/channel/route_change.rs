//! Reordering through route changes (DCLOR draft, Appendix 1 item 5): per
//! connection a two-state Markov chain, one state per route; each packet
//! switches the route with a given probability, and the second route adds a
//! fixed extra delay, so a packet on the shorter route can overtake one
//! sent earlier on the longer route.

use crate::sim::rng::RandomStream;
use crate::sim::TimeNs;

#[derive(Clone, Debug)]
pub struct RouteChange {
    pub switch_probability: f64,
    pub extra_delay_ns: TimeNs,
    /// Per flow: on the longer route?
    on_long_route: Vec<bool>,
}

impl RouteChange {
    pub fn new(switch_probability: f64, extra_delay_ns: TimeNs) -> Self {
        Self {
            switch_probability,
            extra_delay_ns,
            on_long_route: Vec::new(),
        }
    }

    /// Extra delay for a packet of `flow`.
    pub fn delay_for(&mut self, flow: u32, rng: &mut RandomStream) -> TimeNs {
        let i = flow as usize;
        if self.on_long_route.len() <= i {
            self.on_long_route.resize(i + 1, false);
        }
        if rng.uniform() < self.switch_probability {
            self.on_long_route[i] = !self.on_long_route[i];
        }
        if self.on_long_route[i] {
            self.extra_delay_ns
        } else {
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn switches_with_the_given_probability() {
        let mut rc = RouteChange::new(0.12, 20_000_000);
        let mut rng = RandomStream::new(1, "rc");
        let delays: Vec<TimeNs> = (0..100_000).map(|_| rc.delay_for(0, &mut rng)).collect();
        let switches = delays.windows(2).filter(|w| w[0] != w[1]).count() as f64 / 100_000.0;
        assert!((switches - 0.12).abs() < 0.005, "{switches}");
        assert!(delays.iter().all(|&d| d == 0 || d == 20_000_000));
    }
}
