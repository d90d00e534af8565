//! Independent packet losses with a fixed packet error rate.

use crate::sim::rng::RandomStream;

#[derive(Clone, Debug)]
pub struct Bernoulli {
    /// Packet error rate in [0, 1].
    pub per: f64,
}

impl Bernoulli {
    #[inline]
    pub fn is_lost(&self, rng: &mut RandomStream) -> bool {
        // Always draw, so the k-th packet sees the k-th coin whatever the rate.
        rng.uniform() < self.per
    }
}
