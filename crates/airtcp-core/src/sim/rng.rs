//! Random streams. Every random component (a link direction's channel, a
//! queue's RED coin, an application's think times) draws from its own
//! ChaCha8 stream: the key is the run's master seed and the stream number is a
//! stable 64-bit hash of the component's name. Changing one flow's TCP variant
//! therefore leaves every other component's draws unchanged (common random
//! numbers for paired comparisons).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// FNV-1a, 64 bit: stable across platforms and Rust versions, unlike std's
/// `DefaultHasher`.
pub fn stable_hash(name: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.as_bytes() {
        h ^= *b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// One component's independent random stream.
#[derive(Clone, Debug)]
pub struct RandomStream {
    seed: u64,
    stream: u64,
    /// The generator, made on the first draw: most components of a large
    /// topology (the queue of an access link, a lossless channel) never draw,
    /// and a ChaCha8 state with its buffer is over 300 bytes. The sequence is
    /// the same either way.
    rng: Option<Box<ChaCha8Rng>>,
}

impl RandomStream {
    /// The stream of component `name` under master seed `seed`.
    pub fn new(seed: u64, name: &str) -> Self {
        Self {
            seed,
            stream: stable_hash(name),
            rng: None,
        }
    }

    #[inline]
    fn rng(&mut self) -> &mut ChaCha8Rng {
        let (seed, stream) = (self.seed, self.stream);
        self.rng.get_or_insert_with(|| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            rng.set_stream(stream);
            Box::new(rng)
        })
    }

    /// Uniform in [0, 1).
    #[inline]
    pub fn uniform(&mut self) -> f64 {
        self.rng().gen::<f64>()
    }

    /// True with probability `p`.
    #[inline]
    pub fn bernoulli(&mut self, p: f64) -> bool {
        p > 0.0 && (p >= 1.0 || self.uniform() < p)
    }

    /// Exponentially distributed with the given mean (same unit as the mean).
    pub fn exponential(&mut self, mean: f64) -> f64 {
        // 1 - U is in (0, 1], so the logarithm is finite.
        -mean * (1.0 - self.uniform()).ln()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_independent() {
        let mut a1 = RandomStream::new(7, "link:A->B");
        let mut a2 = RandomStream::new(7, "link:A->B");
        let mut b = RandomStream::new(7, "link:B->A");
        let xs: Vec<f64> = (0..5).map(|_| a1.uniform()).collect();
        let ys: Vec<f64> = (0..5).map(|_| a2.uniform()).collect();
        let zs: Vec<f64> = (0..5).map(|_| b.uniform()).collect();
        assert_eq!(xs, ys);
        assert_ne!(xs, zs);
    }

    #[test]
    fn exponential_mean_is_close() {
        let mut r = RandomStream::new(1, "exp");
        let n = 200_000;
        let mean = (0..n).map(|_| r.exponential(2.0)).sum::<f64>() / n as f64;
        assert!((mean - 2.0).abs() < 0.03, "mean {mean}");
    }
}
