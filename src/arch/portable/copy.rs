//! The portable copy-and-checksum kernel.
//!
//! The checksum kernel's loop (two 16-bit words per 32-bit step, emptied
//! every 128 KiB) with each 32-bit word stored as it is summed, so the data
//! is read once. The last 0-3 bytes go through the scalar copy-and-sum.

use core::mem::MaybeUninit;

use super::Portable;
use crate::arch::scalar;

/// Bytes summed into the 32-bit accumulator before it is emptied.
const BLOCK: usize = 4 * 32 * 1024;

crate::arch::copy_methods!(Portable, |dst, src| scalar::finish_native(copy_sum_native(
    dst, src
)));

/// Copies `src` into `dst` (of the same length) and returns the sum of `src`
/// as native-endian 16-bit words, not folded.
fn copy_sum_native(dst: &mut [MaybeUninit<u8>], src: &[u8]) -> u64 {
    let mut total = 0u64;
    for (dst, src) in dst.chunks_mut(BLOCK).zip(src.chunks(BLOCK)) {
        let (src_words, src_rest) = src.as_chunks::<4>();
        let (dst_words, dst_rest) = dst.as_chunks_mut::<4>();
        let mut acc = 0u32;
        for (out, word) in dst_words.iter_mut().zip(src_words) {
            *out = word.map(MaybeUninit::new);
            let word = u32::from_ne_bytes(*word);
            acc += (word & 0xffff) + (word >> 16);
        }
        let block_sum = u64::from(acc) + scalar::copy_sum_native(dst_rest, src_rest);
        total = scalar::add_carry(total, block_sum);
    }
    total
}
