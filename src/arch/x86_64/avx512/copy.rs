//! The AVX-512 copy-and-checksum kernel.
//!
//! # Algorithm
//!
//! The checksum kernel's arithmetic ([`add_line`]: flip the words' top
//! bits, `vpmaddwd` by 1, add) on 64-byte vectors that are also stored.
//! Unlike the checksum, which reads aligned lines, the copy walks both
//! buffers from their first byte with unaligned loads and stores: the two
//! buffers have different alignments, and masked head and tail stores would
//! risk the slow fault-suppression path next to an unmapped page. So:
//!
//! - inputs shorter than 64 bytes take the scalar copy-and-sum;
//! - whole 64-byte vectors from the start are loaded, stored and summed,
//!   into four accumulators;
//! - the last `r` bytes of the even-length prefix (`0 < r < 64`) are covered
//!   by one more vector that ends where that prefix ends: it is loaded and
//!   stored whole (rewriting `64 - r` bytes with the values they already
//!   have), and summed with those `64 - r` bytes masked off in the register.
//!   It starts at an even offset, so its words are the data's words;
//! - an odd last byte is copied and added alone.
//!
//! Every load and store lies inside the two slices.

use core::arch::x86_64::*;
use core::mem::MaybeUninit;

use super::Avx512;
use super::checksum::{LINES_PER_REDUCTION, add_line, reduce};
use crate::arch::scalar;

crate::arch::copy_methods!(Avx512, |dst, src| {
    // SAFETY: the method running this holds an `Avx512`, which proves
    // AVX-512F and AVX-512BW.
    unsafe { copy_sum(dst, src) }
});

/// Copies the 64 bytes at `offset` from `from` to `to` and adds them to
/// `acc`.
///
/// # Safety
///
/// The CPU must support AVX-512F and AVX-512BW; `from` must be valid for
/// reads and `to` for writes of 64 bytes at `offset`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn copy_line(acc: __m512i, from: *const u8, to: *mut u8, offset: usize) -> __m512i {
    // SAFETY: the caller guarantees the 64 bytes at `offset` of both.
    let v = unsafe { _mm512_loadu_si512(from.add(offset).cast()) };
    // SAFETY: as above.
    unsafe { _mm512_storeu_si512(to.add(offset).cast(), v) };
    add_line(acc, v)
}

/// # Safety
///
/// The CPU must support AVX-512F and AVX-512BW.
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn copy_sum(dst: &mut [MaybeUninit<u8>], src: &[u8]) -> u16 {
    let len = src.len().min(dst.len());
    if len < 64 {
        return scalar::finish_native(scalar::copy_sum_native(dst, src));
    }
    let even = len & !1;
    let from = src.as_ptr();
    let to = dst.as_mut_ptr().cast::<u8>();
    let zero = _mm512_setzero_si512();
    let mut total = 0u64;
    let (mut a0, mut a1, mut a2, mut a3) = (zero, zero, zero, zero);
    let mut lines = 0;
    let mut offset = 0;

    // SAFETY: every `copy_line` below copies 64 bytes at an `offset` with
    // `offset + 64 <= even <= len`, inside both slices.
    unsafe {
        while even - offset >= 256 {
            if lines >= 4 * LINES_PER_REDUCTION {
                let acc = _mm512_add_epi32(_mm512_add_epi32(a0, a1), _mm512_add_epi32(a2, a3));
                total = scalar::add_carry(total, reduce(acc, lines));
                (a0, a1, a2, a3, lines) = (zero, zero, zero, zero, 0);
            }
            let steps = ((even - offset) / 256).min(LINES_PER_REDUCTION);
            for _ in 0..steps {
                a0 = copy_line(a0, from, to, offset);
                a1 = copy_line(a1, from, to, offset + 64);
                a2 = copy_line(a2, from, to, offset + 128);
                a3 = copy_line(a3, from, to, offset + 192);
                offset += 256;
            }
            lines += 4 * steps;
        }
        // Straight-line code for the last 0-3 whole vectors: as a loop, the
        // compiler turns their stores into a call to `memcpy`.
        if even - offset >= 128 {
            a1 = copy_line(a1, from, to, offset);
            a2 = copy_line(a2, from, to, offset + 64);
            offset += 128;
            lines += 2;
        }
        if even - offset >= 64 {
            a3 = copy_line(a3, from, to, offset);
            offset += 64;
            lines += 1;
        }
    }
    let rest = even - offset;
    if rest > 0 {
        // The vector that ends where the even prefix ends, its first
        // `64 - rest` bytes (already added) masked off.
        let start = even - 64;
        // SAFETY: `64 <= even <= len`, so the 64 bytes at `start` are inside
        // both slices.
        let v = unsafe { _mm512_loadu_si512(from.add(start).cast()) };
        // SAFETY: as above.
        unsafe { _mm512_storeu_si512(to.add(start).cast(), v) };
        a0 = add_line(a0, _mm512_maskz_mov_epi8(u64::MAX << (64 - rest), v));
        lines += 1;
    }
    let acc = _mm512_add_epi32(_mm512_add_epi32(a0, a1), _mm512_add_epi32(a2, a3));
    total = scalar::add_carry(total, reduce(acc, lines));
    if even < len {
        // The odd last byte: the first of its word, padded with zero.
        let last = src[even];
        dst[even].write(last);
        total = scalar::add_carry(total, u64::from(u16::from_ne_bytes([last, 0])));
    }
    scalar::finish_native(total)
}
