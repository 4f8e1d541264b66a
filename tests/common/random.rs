//! The tests' one random generator: xorshift64*, seeded, so that a failure
//! reproduces from the seed and the case it prints.

/// A xorshift64* generator (Vigna, "An experimental exploration of
/// Marsaglia's xorshift generators, scrambled", 2016): small, fast, and
/// good enough for test data; not for anything that needs unpredictability.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator whose sequence `seed` determines. Any seed works: it is
    /// spread over the state's bits, which must not all be zero.
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..bound` (`bound` > 0), nearly uniform for the small
    /// bounds of the tests.
    pub fn below(&mut self, bound: usize) -> usize {
        (self.next_u64() % bound as u64) as usize
    }

    /// A random byte.
    pub fn byte(&mut self) -> u8 {
        // The high bits: xorshift64*'s best.
        (self.next_u64() >> 56) as u8
    }

    /// Fills `bytes` with random bytes, eight per step.
    pub fn fill(&mut self, bytes: &mut [u8]) {
        for chunk in bytes.chunks_mut(8) {
            let word = self.next_u64().to_le_bytes();
            chunk.copy_from_slice(&word[..chunk.len()]);
        }
    }
}

/// `len` random bytes from the generator seeded with `seed`.
pub fn random_bytes(len: usize, seed: u64) -> Vec<u8> {
    let mut bytes = vec![0; len];
    Rng::new(seed).fill(&mut bytes);
    bytes
}
