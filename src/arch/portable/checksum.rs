//! The portable checksum kernel.
//!
//! # Algorithm
//!
//! The data is read as native-endian 32-bit words, each split into its two
//! 16-bit halves, which are added to a 32-bit accumulator: two 16-bit words
//! per step. This is the shape compilers vectorize best: the loop body
//! becomes a vector AND, a vector shift and two vector adds on whole
//! registers, with no widening shuffles (a loop that adds four 16-bit words
//! per step, or one that zero-extends 16-bit words, vectorizes to half the
//! speed). The accumulator gains at most 2 * 0xffff per step, so it is
//! emptied into a 64-bit total every 32 768 steps (128 KiB), which keeps the
//! sum exact for any length. The last 0-3 bytes go through the scalar tail.
//!
//! The result is the native-endian sum, byte-swapped to big-endian at the end
//! (see [`crate::arch::scalar`] for why that is exact).

use crate::arch::scalar;

/// Bytes summed into the 32-bit accumulator before it is emptied.
const BLOCK: usize = 4 * 32 * 1024;

/// The checksum of `data`, the complement of its folded sum: the portable
/// table's override of the generic checksum. It needs no entry to call
/// back: its accumulator is emptied as it goes.
#[inline(always)]
pub(super) fn checksum_words(data: &[u8], _entry: unsafe fn(&[u8]) -> u16) -> u16 {
    !scalar::finish_native(sum_native(data))
}

/// The sum of `data` as native-endian 16-bit words, not folded.
fn sum_native(data: &[u8]) -> u64 {
    let mut total = 0u64;
    for block in data.chunks(BLOCK) {
        let mut words = block.chunks_exact(4);
        let mut acc = 0u32;
        for word in &mut words {
            let word = u32::from_ne_bytes(word.try_into().unwrap());
            acc += (word & 0xffff) + (word >> 16);
        }
        let block_sum = u64::from(acc) + scalar::tail_native(words.remainder());
        total = scalar::add_carry(total, block_sum);
    }
    total
}
