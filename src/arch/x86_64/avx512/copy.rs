//! The AVX-512 copy-and-checksum kernel.
//!
//! # Algorithm
//!
//! The checksum kernel's arithmetic ([`add_line`](super::checksum::add_line): flip the words' top
//! bits, `vpmaddwd` by 1, add; or, with AVX512-VNNI, `vpdpwssd` for the
//! last two) on 64-byte vectors that are also stored.
//! Unlike the checksum, which reads aligned lines, the copy never masks a
//! load or a store: the two buffers have different alignments, and masked
//! head and tail stores would risk the slow fault-suppression path next to
//! an unmapped page. Instead the first and last vectors overlap their
//! neighbours, and the bytes they share are masked off in the register.
//! Inputs shorter than 64 bytes take the scalar copy-and-sum; from 512 bytes
//! on, the stores are aligned ([`copy_sum_aligned`]: with the destination at
//! +3, that took the kernel from 0.037 to 0.033 TSC cycles per byte at 4
//! KiB, within 1.2× of glibc's `memcpy`). Between the two:
//!
//! - whole 64-byte vectors from the start are loaded, stored and summed,
//!   into four accumulators ([`copy_lines`], shared with the aligned path);
//! - the last `r` bytes of the even-length prefix (`0 < r < 64`) are covered
//!   by one more vector that ends where that prefix ends: it is loaded and
//!   stored whole (rewriting `64 - r` bytes with the values they already
//!   have), and summed with those `64 - r` bytes masked off in the register.
//!   It starts at an even offset, so its words are the data's words;
//! - an odd last byte is copied and added alone.
//!
//! Every load and store lies inside the two slices.
//!
//! The accumulators are emptied once, at the end: inputs longer than 512
//! KiB go through the kernel a piece at a time ([`PIECE`]), which is what
//! keeps the lanes from overflowing.

use core::arch::x86_64::*;
use core::mem::MaybeUninit;

use super::checksum::{AddLine, reduce};
use super::{Avx512, Avx512Vnni};
use crate::arch::generic::checksum as generic;
use crate::arch::scalar;

/// Copies `src` into `dst` and returns the checksum of `src`, the
/// complement of the folded sum: the AVX-512 table's override of the
/// generic copy-and-checksum. It copies `min(dst.len(), src.len())` bytes;
/// inputs longer than [`PIECE`] go through `entry`, the entry function that
/// calls this, a piece at a time.
///
/// # Safety
///
/// The CPU must support AVX-512F and AVX-512BW, and `entry` must be this
/// kernel's entry function.
#[inline(always)]
pub(super) unsafe fn copy_checksum_masked(
    dst: &mut [MaybeUninit<u8>],
    src: &[u8],
    entry: unsafe fn(&mut [MaybeUninit<u8>], &[u8]) -> u16,
) -> u16 {
    // SAFETY: the caller guarantees the features of `Avx512`.
    let adder = unsafe { Avx512::new_unchecked() };
    // SAFETY: as above, and the caller guarantees that `entry` returns the
    // checksum.
    !scalar::finish_native(unsafe { copy_sum_with(adder, dst, src, entry) })
}

/// [`copy_checksum_masked`] with `vpdpwssd`: the VNNI table's override.
///
/// # Safety
///
/// The CPU must support AVX-512F, AVX-512BW and AVX512-VNNI, and `entry`
/// must be this kernel's entry function.
#[inline(always)]
pub(super) unsafe fn copy_checksum_vnni(
    dst: &mut [MaybeUninit<u8>],
    src: &[u8],
    entry: unsafe fn(&mut [MaybeUninit<u8>], &[u8]) -> u16,
) -> u16 {
    // SAFETY: the caller guarantees the features of `Avx512Vnni`.
    let adder = unsafe { Avx512Vnni::new_unchecked() };
    // SAFETY: as above.
    !scalar::finish_native(unsafe { copy_sum_with(adder, dst, src, entry) })
}

/// The kernel, adding lines with `adder`, returning the native-endian sum,
/// not folded.
///
/// Inputs longer than [`PIECE`] go through the kernel a piece at a time, out
/// of line ([`generic::copy_sum_pieces`], as for SSE2 and AVX2), so that no
/// lane of the accumulators can overflow within a call and the loop need not
/// empty them. A loop that did
/// kept more values live than the caller-saved registers hold: saving and
/// restoring the others took about 3 of 48 TSC cycles at 1500 bytes.
///
/// # Safety
///
/// The CPU must support AVX-512F and AVX-512BW, and `entry` must be the
/// kernel's entry point for `adder`, which returns the checksum.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn copy_sum_with<A: AddLine>(
    adder: A,
    dst: &mut [MaybeUninit<u8>],
    src: &[u8],
    entry: unsafe fn(&mut [MaybeUninit<u8>], &[u8]) -> u16,
) -> u64 {
    let len = src.len().min(dst.len());
    if len < 64 {
        return scalar::copy_sum_native(dst, src);
    }
    if len < ALIGNED_FROM {
        // SAFETY: the caller guarantees the features; `len >= 64`.
        return unsafe { copy_sum_unaligned(adder, dst, src) };
    }
    if len > PIECE {
        // SAFETY: `adder` proves the features of `entry`, which the caller
        // guarantees returns the checksum; `PIECE` is even.
        return unsafe { generic::copy_sum_pieces(&mut dst[..len], &src[..len], PIECE, entry) };
    }
    // SAFETY: as above; `512 <= len <= PIECE`.
    unsafe { copy_sum_aligned(adder, dst, src) }
}

/// The longest input one call of [`copy_sum_aligned`] takes from
/// [`copy_sum_with`]: at most 8194 vectors (8192 whole ones, the first and
/// the last), about 2050 in each accumulator. A vector adds at most
/// 2^16 to a lane either way, less its bias, so each lane stays within
/// 2^28, and the sum of the four within 2^30: 32 signed bits hold it.
const PIECE: usize = 512 * 1024;

/// From this length on, the stores are aligned.
const ALIGNED_FROM: usize = 512;

/// Copy-and-sum of 64 to 511 bytes: unaligned vectors from the start,
/// then one that ends where the even-length prefix ends, then an odd last
/// byte alone. Returns the native-endian sum, not folded.
///
/// # Safety
///
/// The CPU must support AVX-512F and AVX-512BW, and `src` must be at least
/// 64 bytes long.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn copy_sum_unaligned<A: AddLine>(adder: A, dst: &mut [MaybeUninit<u8>], src: &[u8]) -> u64 {
    let len = src.len().min(dst.len());
    debug_assert!(len >= 64);
    let even = len & !1;
    let (from, to) = (src.as_ptr(), dst.as_mut_ptr().cast::<u8>());
    let mut sums = Sums::new(adder);
    // SAFETY: `even <= len`, the length of both slices.
    let offset = unsafe { copy_lines::<A, false>(&mut sums, from, to, 0, even) };
    let rest = even - offset;
    if rest > 0 {
        // SAFETY: `64 <= even <= len`: the 64 bytes that end at `even` are
        // inside both slices.
        let last = unsafe { copy_vector::<false>(from, to, even - 64) };
        sums.add(_mm512_maskz_mov_epi8(u64::MAX << (64 - rest), last));
    }
    let mut total = sums.finish();
    if even < len {
        // The odd last byte: the first of its word, padded with zero.
        let last = src[even];
        dst[even].write(last);
        total = scalar::add_carry(total, u64::from(u16::from_ne_bytes([last, 0])));
    }
    total
}

/// Copy-and-sum of at least 512 bytes with aligned stores; returns the
/// native-endian sum, not folded.
///
/// The first vector is copied whole with an unaligned store; from the first
/// 64-byte boundary of `dst` on, every store is aligned (loads from `src`
/// stay unaligned: a split load costs less than a split store); one last
/// unaligned vector ends the copy, overlapping the one before. The bytes
/// that two vectors share are stored twice, with the same value, and summed
/// once: the first vector keeps its first `head` bytes, the last its last
/// `rest`.
///
/// The aligned vectors start `head` bytes into the data: when `head` is odd
/// their 16-bit words straddle the data's words, and what they sum is the
/// byte-swapped sum of those bytes, which is 256 times it modulo 0xffff
/// (RFC 1071 §2(B)). Rather than keep three sums, the kernel byte-swaps the
/// words of the first and last vectors whenever their parity differs from
/// the aligned vectors' (one `vpshufb`), sums everything in the aligned
/// vectors' terms, and multiplies the total by 256 once at the end when
/// `head` is odd: a rotation by 8 bits of the 64-bit total, which is exact
/// modulo 2^64 - 1, a multiple of 0xffff.
///
/// # Safety
///
/// The CPU must support AVX-512F and AVX-512BW, and `src` must be 128 to
/// `PIECE` bytes long (so that no
/// lane overflows).
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn copy_sum_aligned<A: AddLine>(adder: A, dst: &mut [MaybeUninit<u8>], src: &[u8]) -> u64 {
    let len = src.len().min(dst.len());
    debug_assert!(len >= 128);
    let (from, to) = (src.as_ptr(), dst.as_mut_ptr().cast::<u8>());
    let head = to.align_offset(64);
    let odd_head = head % 2 == 1;
    let swap_words = _mm512_set1_epi64(0x0e0f_0c0d_0a0b_0809);
    let swap_words = _mm512_unpacklo_epi64(_mm512_set1_epi64(0x0607_0405_0203_0001), swap_words);
    // A vector that starts at an `odd` offset, in the aligned vectors' terms.
    let in_aligned_terms = |v: __m512i, odd: bool| {
        if odd != odd_head {
            _mm512_shuffle_epi8(v, swap_words)
        } else {
            v
        }
    };
    let mut sums = Sums::new(adder);
    // SAFETY: `len >= 128`: the first 64 bytes are inside both slices.
    let first = unsafe { copy_vector::<false>(from, to, 0) };
    if head > 0 {
        sums.add(in_aligned_terms(
            _mm512_maskz_mov_epi8(!(u64::MAX << head), first),
            false,
        ));
    }
    // SAFETY: `head < 64 < len`, and `to + head` is 64-byte aligned.
    let offset = unsafe { copy_lines::<A, true>(&mut sums, from, to, head, len) };
    let rest = len - offset;
    if rest > 0 {
        let start = len - 64;
        // SAFETY: the 64 bytes that end at `len` are inside both slices.
        let last = unsafe { copy_vector::<false>(from, to, start) };
        let kept = _mm512_maskz_mov_epi8(u64::MAX << (64 - rest), last);
        sums.add(in_aligned_terms(kept, start % 2 == 1));
    }
    let total = sums.finish();
    if odd_head {
        total.rotate_left(8)
    } else {
        total
    }
}

/// Four accumulators of lines added by `adder` and the lines in them; the
/// callers add few enough lines that no lane overflows (see [`PIECE`]).
struct Sums<A: AddLine> {
    adder: A,
    a0: __m512i,
    a1: __m512i,
    a2: __m512i,
    a3: __m512i,
    lines: usize,
}

impl<A: AddLine> Sums<A> {
    /// Empty accumulators.
    #[inline(always)]
    fn new(adder: A) -> Self {
        let zero = adder.zero();
        Sums {
            adder,
            a0: zero,
            a1: zero,
            a2: zero,
            a3: zero,
            lines: 0,
        }
    }

    /// Adds one line (into the first accumulator).
    #[inline(always)]
    fn add(&mut self, line: __m512i) {
        self.a0 = self.adder.add(self.a0, line);
        self.lines += 1;
    }

    /// The native-endian sum of every line added, not folded.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    fn finish(self) -> u64 {
        let acc = _mm512_add_epi32(
            _mm512_add_epi32(self.a0, self.a1),
            _mm512_add_epi32(self.a2, self.a3),
        );
        reduce(acc, self.lines)
    }
}

/// Copies and adds the whole vectors at `offset`, `offset + 64`, ... that
/// end by `end`, four at a time into the four accumulators; returns the
/// offset after the last. With `ALIGNED`, the stores are aligned.
///
/// # Safety
///
/// The CPU must support AVX-512F and AVX-512BW; `from` must be valid for
/// reads and `to` for writes of `end` bytes; with `ALIGNED`, `to + offset`
/// must be 64-byte aligned.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn copy_lines<A: AddLine, const ALIGNED: bool>(
    sums: &mut Sums<A>,
    from: *const u8,
    to: *mut u8,
    mut offset: usize,
    end: usize,
) -> usize {
    // SAFETY: every vector copied is the 64 bytes at an `offset` with
    // `offset + 64 <= end`, inside both buffers, and as aligned as `to +
    // offset` was at the start.
    unsafe {
        let steps = (end - offset) / 256;
        for _ in 0..steps {
            sums.a0 = sums
                .adder
                .add(sums.a0, copy_vector::<ALIGNED>(from, to, offset));
            sums.a1 = sums
                .adder
                .add(sums.a1, copy_vector::<ALIGNED>(from, to, offset + 64));
            sums.a2 = sums
                .adder
                .add(sums.a2, copy_vector::<ALIGNED>(from, to, offset + 128));
            sums.a3 = sums
                .adder
                .add(sums.a3, copy_vector::<ALIGNED>(from, to, offset + 192));
            offset += 256;
        }
        sums.lines += 4 * steps;
        // Straight-line code for the last 0-3 whole vectors: as a loop, the
        // compiler turns their stores into a call to `memcpy`.
        if end - offset >= 128 {
            sums.a1 = sums
                .adder
                .add(sums.a1, copy_vector::<ALIGNED>(from, to, offset));
            sums.a2 = sums
                .adder
                .add(sums.a2, copy_vector::<ALIGNED>(from, to, offset + 64));
            offset += 128;
            sums.lines += 2;
        }
        if end - offset >= 64 {
            sums.a3 = sums
                .adder
                .add(sums.a3, copy_vector::<ALIGNED>(from, to, offset));
            offset += 64;
            sums.lines += 1;
        }
    }
    offset
}

/// Copies the 64 bytes at `offset` from `from` to `to` and returns them.
/// With `ALIGNED`, the store is aligned.
///
/// # Safety
///
/// The CPU must support AVX-512F; `from` must be valid for reads and `to`
/// for writes of 64 bytes at `offset`; with `ALIGNED`, `to + offset` must be
/// 64-byte aligned.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn copy_vector<const ALIGNED: bool>(from: *const u8, to: *mut u8, offset: usize) -> __m512i {
    // SAFETY: the caller guarantees the 64 bytes at `offset` of both, and
    // the alignment of the aligned store.
    unsafe {
        let v = _mm512_loadu_si512(from.add(offset).cast());
        if ALIGNED {
            _mm512_store_si512(to.add(offset).cast(), v);
        } else {
            _mm512_storeu_si512(to.add(offset).cast(), v);
        }
        v
    }
}
