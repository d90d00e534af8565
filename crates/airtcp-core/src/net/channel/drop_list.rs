//! Deterministic losses: drop the n-th packets (1-based, counting only the
//! packets the channel's filter applies to). For scripted exchanges in tests
//! and for reproducing a document's worked example exactly.

#[derive(Clone, Debug)]
pub struct DropList {
    /// Sorted 1-based indices of the packets to drop.
    pub indices: Vec<u64>,
    seen: u64,
    next: usize,
}

impl DropList {
    pub fn new(mut indices: Vec<u64>) -> Self {
        indices.sort_unstable();
        indices.dedup();
        Self {
            indices,
            seen: 0,
            next: 0,
        }
    }

    #[inline]
    pub fn is_lost(&mut self) -> bool {
        self.seen += 1;
        if self.indices.get(self.next) == Some(&self.seen) {
            self.next += 1;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drops_exactly_the_listed_packets() {
        let mut d = DropList::new(vec![4, 2]);
        let lost: Vec<bool> = (0..5).map(|_| d.is_lost()).collect();
        assert_eq!(lost, vec![false, true, false, true, false]);
    }
}
