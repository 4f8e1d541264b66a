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
pub(crate) unsafe fn copy_sum(dst: &mut [MaybeUninit<u8>], src: &[u8]) -> u16 {
    let len = src.len().min(dst.len());
    if len < 64 {
        scalar::finish_native(scalar::copy_sum_native(dst, src))
    } else if len < ALIGNED_FROM {
        // SAFETY: AVX-512F and BW are enabled here; `len >= 64`.
        unsafe { copy_sum_unaligned(dst, src) }
    } else {
        // SAFETY: as above, and `len >= 128`.
        unsafe { copy_sum_aligned(dst, src) }
    }
}

/// From this length on, the stores are aligned.
const ALIGNED_FROM: usize = 512;

/// Copy-and-checksum of at least 128 bytes with aligned stores.
///
/// The first vector is copied whole with an unaligned store; from the first
/// 64-byte boundary of `dst` on, every store is aligned (loads from `src`
/// stay unaligned: a split load costs less than a split store); one last
/// unaligned vector ends the copy, overlapping the one before. The bytes
/// that two vectors share are stored twice, with the same value, and summed
/// once: the head vector keeps its first `head` bytes, the last vector its
/// last `rest`.
///
/// The aligned vectors start `head` bytes into the data: when `head` is odd
/// their 16-bit words straddle the data's words, and what they sum is the
/// byte-swapped sum of those bytes, which is 256 times it modulo 0xffff
/// (RFC 1071 §2(B)). Rather than keep three sums, the kernel byte-swaps the
/// words of the head and last vectors whenever their parity differs from
/// the aligned vectors' (one `vpshufb`), sums everything in the aligned
/// vectors' terms, and multiplies the total by 256 once at the end when
/// `head` is odd: a rotation by 8 bits of the 64-bit total, which is exact
/// modulo 2^64 - 1, a multiple of 0xffff.
///
/// # Safety
///
/// The CPU must support AVX-512F and AVX-512BW, and `src` must be at least
/// 128 bytes long.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn copy_sum_aligned(dst: &mut [MaybeUninit<u8>], src: &[u8]) -> u16 {
    let len = src.len().min(dst.len());
    debug_assert!(len >= ALIGNED_FROM);
    let from = src.as_ptr();
    let to = dst.as_mut_ptr().cast::<u8>();
    let head = to.align_offset(64);
    let odd_head = head % 2 == 1;
    let zero = _mm512_setzero_si512();
    let swap_words = _mm512_set_epi64(
        0x0e0f_0c0d_0a0b_0809,
        0x0607_0405_0203_0001,
        0x0e0f_0c0d_0a0b_0809,
        0x0607_0405_0203_0001,
        0x0e0f_0c0d_0a0b_0809,
        0x0607_0405_0203_0001,
        0x0e0f_0c0d_0a0b_0809,
        0x0607_0405_0203_0001,
    );
    // In the aligned vectors' terms: swapped when its parity differs.
    let in_aligned_terms = |v: __m512i, odd: bool| {
        if odd != odd_head {
            _mm512_shuffle_epi8(v, swap_words)
        } else {
            v
        }
    };
    let mut total = 0u64;
    let (mut a0, mut a1, mut a2, mut a3) = (zero, zero, zero, zero);
    let mut lines = 0;

    // SAFETY: `len >= 128 > 64`, so the first 64 bytes are inside both.
    let first = unsafe { _mm512_loadu_si512(from.cast()) };
    // SAFETY: as above.
    unsafe { _mm512_storeu_si512(to.cast(), first) };
    if head > 0 {
        let kept = _mm512_maskz_mov_epi8(!(u64::MAX << head), first);
        a0 = add_line(a0, in_aligned_terms(kept, false));
        lines += 1;
    }

    let mut offset = head;
    // SAFETY: every vector below is the 64 bytes at an `offset` with
    // `offset + 64 <= len`, inside both slices; `to + offset` is 64-byte
    // aligned.
    unsafe {
        while len - offset >= 256 {
            if lines >= 4 * LINES_PER_REDUCTION {
                let acc = _mm512_add_epi32(_mm512_add_epi32(a0, a1), _mm512_add_epi32(a2, a3));
                total = scalar::add_carry(total, reduce(acc, lines));
                (a0, a1, a2, a3, lines) = (zero, zero, zero, zero, 0);
            }
            let steps = ((len - offset) / 256).min(LINES_PER_REDUCTION);
            for _ in 0..steps {
                a0 = copy_line_aligned(a0, from, to, offset);
                a1 = copy_line_aligned(a1, from, to, offset + 64);
                a2 = copy_line_aligned(a2, from, to, offset + 128);
                a3 = copy_line_aligned(a3, from, to, offset + 192);
                offset += 256;
            }
            lines += 4 * steps;
        }
        // Straight-line code for the last 0-3 whole vectors: as a loop, the
        // compiler turns their stores into a call to `memcpy`.
        if len - offset >= 128 {
            a1 = copy_line_aligned(a1, from, to, offset);
            a2 = copy_line_aligned(a2, from, to, offset + 64);
            offset += 128;
            lines += 2;
        }
        if len - offset >= 64 {
            a3 = copy_line_aligned(a3, from, to, offset);
            offset += 64;
            lines += 1;
        }
    }
    let rest = len - offset;
    if rest > 0 {
        let start = len - 64;
        // SAFETY: `len >= 64`, so the 64 bytes at `start` are inside both.
        let last = unsafe { _mm512_loadu_si512(from.add(start).cast()) };
        // SAFETY: as above.
        unsafe { _mm512_storeu_si512(to.add(start).cast(), last) };
        let kept = _mm512_maskz_mov_epi8(u64::MAX << (64 - rest), last);
        a0 = add_line(a0, in_aligned_terms(kept, start % 2 == 1));
        lines += 1;
    }
    let acc = _mm512_add_epi32(_mm512_add_epi32(a0, a1), _mm512_add_epi32(a2, a3));
    total = scalar::add_carry(total, reduce(acc, lines));
    if odd_head {
        total = total.rotate_left(8);
    }
    scalar::finish_native(total)
}

/// Copies the 64 bytes at `offset` from `from` to `to`, where the store is
/// aligned, and adds them to `acc`.
///
/// # Safety
///
/// The CPU must support AVX-512F and AVX-512BW; `from` must be valid for
/// reads and `to` for writes of 64 bytes at `offset`, and `to + offset` must
/// be 64-byte aligned.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn copy_line_aligned(acc: __m512i, from: *const u8, to: *mut u8, offset: usize) -> __m512i {
    // SAFETY: the caller guarantees the 64 bytes at `offset` of both.
    let v = unsafe { _mm512_loadu_si512(from.add(offset).cast()) };
    // SAFETY: as above, and the alignment.
    unsafe { _mm512_store_si512(to.add(offset).cast(), v) };
    add_line(acc, v)
}

/// Copy-and-checksum of 64 to 127 bytes: unaligned vectors from the start
/// and one that ends where the even-length prefix ends.
///
/// # Safety
///
/// The CPU must support AVX-512F and AVX-512BW, and `src` must be at least
/// 64 bytes long.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn copy_sum_unaligned(dst: &mut [MaybeUninit<u8>], src: &[u8]) -> u16 {
    let len = src.len().min(dst.len());
    debug_assert!(len >= 64);
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
