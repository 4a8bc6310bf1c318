//! A tiny deterministic random generator (xorshift64*), so property tests, benchmarks and the
//! differential tester replay the same sequence from the same seed on every machine and every
//! Rust version, which a dependency could not promise.

/// The generator.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed`; nearby seeds give unrelated sequences and zero is allowed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0xd1b5_4a32_d192_ed03 | 1)
    }

    /// The next 64 random bits.
    #[allow(clippy::should_implement_trait, reason = "an infinite generator, not an iterator")]
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// An index in `0..len` (`len` > 0).
    pub fn index(&mut self, len: usize) -> usize {
        (self.next() % len as u64) as usize
    }

    /// A number in `lo..=hi` (`lo` <= `hi`).
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }

    /// True `percent` times in a hundred.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    /// One of `items` (not empty).
    pub fn pick<'a, T: ?Sized>(&mut self, items: &[&'a T]) -> &'a T {
        items[self.index(items.len())]
    }

    /// An index into `weights`, each chosen in proportion to its weight (not all zero).
    pub fn weighted(&mut self, weights: &[u64]) -> usize {
        let mut roll = self.below(weights.iter().sum());
        for (i, &w) in weights.iter().enumerate() {
            if roll < w {
                return i;
            }
            roll -= w;
        }
        unreachable!("the roll is below the sum of the weights")
    }
}

#[cfg(test)]
mod tests {
    use super::Rng;

    #[test]
    fn same_seed_same_sequence() {
        let (mut a, mut b) = (Rng::new(7), Rng::new(7));
        assert!((0..100).all(|_| a.next() == b.next()));
        assert_ne!(Rng::new(0).next(), Rng::new(1).next());
        let mut r = Rng::new(3);
        assert!((0..1000).all(|_| r.below(10) < 10 && r.index(3) < 3));
        assert!((0..1000).all(|_| (2..=4).contains(&r.range(2, 4)) && r.weighted(&[0, 3, 0]) == 1));
    }
}
