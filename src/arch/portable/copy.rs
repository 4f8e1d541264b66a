//! The portable copy-and-checksum kernel.
//!
//! The checksum kernel's loop (two 16-bit words per 32-bit step, emptied
//! every 128 KiB) with each 32-bit word stored as it is summed, so the data
//! is read once. The last 0-3 bytes go through the scalar copy-and-sum.

use core::mem::MaybeUninit;

use crate::arch::scalar;

/// Bytes summed into the 32-bit accumulator before it is emptied.
const BLOCK: usize = 4 * 32 * 1024;

/// Copies `src` into `dst` and returns the checksum of `src` (the
/// complement of the folded sum): the portable table's override of the
/// generic copy-and-checksum. It copies `min(dst.len(), src.len())` bytes,
/// and needs no entry to call back.
#[inline(always)]
pub(super) fn copy_checksum_words(
    dst: &mut [MaybeUninit<u8>],
    src: &[u8],
    _entry: unsafe fn(&mut [MaybeUninit<u8>], &[u8]) -> u16,
) -> u16 {
    !scalar::finish_native(copy_sum_native(dst, src))
}

/// Copies `src` into `dst` (of the same length) and returns the sum of `src`
/// as native-endian 16-bit words, not folded.
fn copy_sum_native(dst: &mut [MaybeUninit<u8>], src: &[u8]) -> u64 {
    let len = src.len().min(dst.len());
    let words = len / 4;
    let mut total = 0u64;
    let mut done = 0;
    while done < words {
        let block = (words - done).min(BLOCK / 4);
        // SAFETY: the `block` words at word `done` are inside both slices.
        let acc = unsafe {
            copy_sum_words(
                dst.as_mut_ptr().add(4 * done).cast(),
                src.as_ptr().add(4 * done),
                block,
            )
        };
        total = scalar::add_carry(total, u64::from(acc));
        done += block;
    }
    let tail = scalar::copy_sum_native(&mut dst[4 * words..len], &src[4 * words..len]);
    scalar::add_carry(total, tail)
}

/// Copies `words` 32-bit words from `src` to `dst` and returns the sum of
/// their 16-bit halves (at most 32 768 words, so it cannot overflow).
///
/// The buffers are raw pointers on purpose: with two slices, which cannot
/// overlap, the compiler splits the loop into a call to `memcpy` and a
/// second pass for the sum, which reads the data twice; with pointers that
/// might overlap, that split would be wrong, so the loop stays fused.
///
/// # Safety
///
/// `src` must be valid for reads and `dst` for writes of `4 * words` bytes.
#[inline(never)]
unsafe fn copy_sum_words(dst: *mut u8, src: *const u8, words: usize) -> u32 {
    let mut acc = 0u32;
    for i in 0..words {
        // SAFETY: word `i` is inside both buffers, which the caller
        // guarantees; neither needs alignment.
        let word = unsafe {
            let word = src.add(4 * i).cast::<u32>().read_unaligned();
            dst.add(4 * i).cast::<u32>().write_unaligned(word);
            word
        };
        acc += (word & 0xffff) + (word >> 16);
    }
    acc
}
