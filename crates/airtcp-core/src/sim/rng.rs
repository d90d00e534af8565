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
    stable_hash_of_parts(&[name])
}

/// [`stable_hash`] of the concatenation of `parts`, without making it
/// (FNV-1a reads the bytes in order, so the parts give the same hash).
pub fn stable_hash_of_parts(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in parts.iter().flat_map(|p| p.as_bytes()) {
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
        Self::named(seed, &[name])
    }

    /// The stream of the component named by the concatenation of `parts`
    /// (e.g. `["app:", flow]`), the same as [`Self::new`] of it: a large
    /// topology names hundreds of thousands of streams, and building each
    /// name was a string allocation apiece.
    pub fn named(seed: u64, parts: &[&str]) -> Self {
        Self {
            seed,
            stream: stable_hash_of_parts(parts),
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

    /// A stream named in parts is the stream of the whole name: results
    /// pinned before `named` existed stay the same.
    #[test]
    fn a_name_in_parts_is_the_same_stream() {
        // FNV-1a 64's published test vectors (draft-eastlake-fnv, "a" and
        // "foobar").
        assert_eq!(stable_hash("a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(stable_hash_of_parts(&["foo", "bar"]), 0x8594_4171_f739_67e8);
        let mut whole = RandomStream::new(7, "queue:s1->R1");
        let mut parts = RandomStream::named(7, &["queue:", "s1->R1"]);
        let mut other = RandomStream::named(7, &["queue:", "s1->R2"]);
        let xs: Vec<f64> = (0..5).map(|_| whole.uniform()).collect();
        assert_eq!(xs, (0..5).map(|_| parts.uniform()).collect::<Vec<_>>());
        assert_ne!(xs, (0..5).map(|_| other.uniform()).collect::<Vec<_>>());
    }

    #[test]
    fn exponential_mean_is_close() {
        let mut r = RandomStream::new(1, "exp");
        let n = 200_000;
        let mean = (0..n).map(|_| r.exponential(2.0)).sum::<f64>() / n as f64;
        assert!((mean - 2.0).abs() < 0.03, "mean {mean}");
    }
}
