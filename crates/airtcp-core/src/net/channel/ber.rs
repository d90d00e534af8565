//! Independent bit errors: a packet of n bits is corrupted with probability
//! 1 - (1 - BER)^n, so larger packets are lost more often.

use crate::sim::rng::RandomStream;

#[derive(Clone, Debug)]
pub struct BitErrorRate {
    pub ber: f64,
    /// ln(1 - BER), cached.
    ln_keep_bit: f64,
}

impl BitErrorRate {
    pub fn new(ber: f64) -> Self {
        Self {
            ber,
            ln_keep_bit: (-ber).ln_1p(),
        }
    }

    /// Probability that a packet of `bytes` has at least one bit error.
    pub fn packet_error_probability(&self, bytes: u32) -> f64 {
        -((bytes as f64 * 8.0) * self.ln_keep_bit).exp_m1()
    }

    #[inline]
    pub fn is_lost(&self, bytes: u32, rng: &mut RandomStream) -> bool {
        rng.uniform() < self.packet_error_probability(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probability_grows_with_size() {
        let m = BitErrorRate::new(1e-5);
        let p40 = m.packet_error_probability(40);
        let p1500 = m.packet_error_probability(1500);
        assert!((p1500 - (1.0 - (1.0f64 - 1e-5).powi(12000))).abs() < 1e-12);
        assert!((p40 - (1.0 - (1.0f64 - 1e-5).powi(320))).abs() < 1e-12);
        assert!(p1500 > p40);
    }
}
