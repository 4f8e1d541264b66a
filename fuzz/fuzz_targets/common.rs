//! What the fuzz targets share: data patterns and exactly-sized buffers.

#![allow(dead_code)]

use libfuzzer_sys::arbitrary::{self, Arbitrary};

/// The bytes of a buffer: the fuzzer's own, cycled to the length wanted, or
/// a constant (0xff is where accumulators overflow; 0x00 where the two
/// zeros of ones' complement arithmetic differ).
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Pattern {
    Fuzzed,
    Zeros,
    Ones,
    Byte(u8),
}

/// `len` bytes following `pattern`, from `seed` when the pattern is fuzzed.
pub fn bytes(pattern: Pattern, seed: &[u8], len: usize) -> Vec<u8> {
    match pattern {
        Pattern::Fuzzed if !seed.is_empty() => seed.iter().copied().cycle().take(len).collect(),
        Pattern::Fuzzed | Pattern::Zeros => vec![0; len],
        Pattern::Ones => vec![0xff; len],
        Pattern::Byte(b) => vec![b; len],
    }
}

/// A heap allocation of exactly `offset + data.len()` bytes with `data` at
/// its end: under AddressSanitizer a read or write past the end of the
/// returned slice is reported, and the slice starts at any alignment.
pub struct Placed {
    buffer: Vec<u8>,
    offset: usize,
}

impl Placed {
    pub fn new(data: &[u8], offset: usize, filler: u8) -> Placed {
        let mut buffer = Vec::with_capacity(offset + data.len());
        buffer.resize(offset, filler);
        buffer.extend_from_slice(data);
        debug_assert_eq!(buffer.capacity(), buffer.len());
        Placed { buffer, offset }
    }

    pub fn data(&self) -> &[u8] {
        &self.buffer[self.offset..]
    }

    pub fn data_mut(&mut self) -> &mut [u8] {
        &mut self.buffer[self.offset..]
    }

    /// The bytes before the data.
    pub fn before(&self) -> &[u8] {
        &self.buffer[..self.offset]
    }
}

/// Views bytes as possibly uninitialized ones, for the copies into
/// uninitialized memory, which only write initialized bytes.
pub fn uninit(bytes: &mut [u8]) -> &mut [core::mem::MaybeUninit<u8>] {
    // SAFETY: `MaybeUninit<u8>` has the layout of `u8`, and the copies
    // store only bytes read from a `&[u8]`.
    unsafe { &mut *(bytes as *mut [u8] as *mut [core::mem::MaybeUninit<u8>]) }
}

/// `a + b` in ones' complement arithmetic, computed by the reference: the
/// sum of the two values as big-endian words.
pub fn reference_add(a: u16, b: u16) -> u16 {
    let [a0, a1] = a.to_be_bytes();
    let [b0, b1] = b.to_be_bytes();
    fastpath::reference::sum(&[a0, a1, b0, b1])
}
