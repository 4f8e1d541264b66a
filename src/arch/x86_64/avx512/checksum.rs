//! The AVX-512 checksum kernel.
//!
//! # Algorithm
//!
//! The kernel reads the data as the aligned 64-byte lines that hold it. The
//! first and the last line are loaded with a byte mask that zeroes (and does
//! not read) the bytes outside the slice, so an unaligned start or an odd
//! length costs one mask each and no scalar code. An aligned line never
//! crosses a page, so a masked-off byte is never on an unmapped page and the
//! masked loads never take the slow fault-suppression path.
//!
//! A big-endian 16-bit word `256 * even + odd` (the bytes at even and odd
//! addresses) sums over the data to `255 * Σ even + Σ all`. Per line, one
//! `vpsadbw` against zero adds all 64 bytes into eight 64-bit lanes, and one
//! `vpdpbusd` (VNNI) against the byte weights `1, 0, 1, 0, ...` adds the even
//! bytes into sixteen 32-bit lanes: two vector operations per 64 bytes,
//! issued to different execution ports. The byte form of the dot product is
//! used because the data bytes are its unsigned operand; the 16-bit forms
//! (`vpmaddwd`, `vpdpwssd`) treat the words as signed.
//!
//! Because lines are aligned in memory, "even" means an even *address*: when
//! the slice starts at an odd address its words are the byte-swapped ones,
//! and so is the result (RFC 1071 §2(B)), which is swapped back at the end.
//!
//! Four pairs of accumulators hide the latency of `vpdpbusd`. A 32-bit lane
//! gains at most 2 * 255 per line, so the lanes are emptied into a 64-bit
//! total every 2^20 lines of each accumulator (256 MiB), keeping the sum
//! exact for any length.

use core::arch::x86_64::*;

use super::Avx512;
use crate::arch::scalar;

impl Avx512 {
    /// The ones'-complement sum of `data` as big-endian 16-bit words, an odd
    /// final byte padded with zero, folded to 16 bits (not complemented).
    #[inline]
    pub fn sum(self, data: &[u8]) -> u16 {
        // SAFETY: holding `self` proves that the CPU has AVX-512F, AVX-512BW
        // and AVX-512 VNNI.
        unsafe { sum(data) }
    }

    /// The RFC 1071 checksum of `data`: the ones' complement of
    /// [`sum`](Self::sum).
    #[inline]
    pub fn checksum(self, data: &[u8]) -> u16 {
        !self.sum(data)
    }
}

/// Lines each accumulator takes before the 32-bit lanes are emptied.
const LINES_PER_REDUCTION: usize = 1 << 20;

/// The sums of one group of lines: all bytes (64-bit lanes, from `vpsadbw`)
/// and the even-address bytes (32-bit lanes, from `vpdpbusd`).
#[derive(Clone, Copy)]
struct Sums {
    all: __m512i,
    even: __m512i,
}

// The methods carry the kernel's target features, so they are safe to call
// from it and inline into it.
impl Sums {
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    fn zero() -> Sums {
        let zero = _mm512_setzero_si512();
        Sums { all: zero, even: zero }
    }

    /// Adds one line.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    fn add(self, line: __m512i) -> Sums {
        let weights = _mm512_set1_epi32(0x0001_0001);
        Sums {
            all: _mm512_add_epi64(self.all, _mm512_sad_epu8(line, _mm512_setzero_si512())),
            even: _mm512_dpbusd_epi32(self.even, line, weights),
        }
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    fn merge(self, other: Sums) -> Sums {
        Sums {
            all: _mm512_add_epi64(self.all, other.all),
            even: _mm512_add_epi32(self.even, other.even),
        }
    }

    /// `Σ all + 255 * Σ even` over every lane: the big-endian sum of the
    /// address-aligned words, not folded. The `even` lanes must be below
    /// 2^31.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    fn reduce(self) -> u64 {
        let low = _mm512_and_si512(self.even, _mm512_set1_epi64(0xffff_ffff));
        let even = _mm512_add_epi64(low, _mm512_srli_epi64::<32>(self.even));
        let weighted = _mm512_sub_epi64(_mm512_slli_epi64::<8>(even), even);
        _mm512_reduce_add_epi64(_mm512_add_epi64(self.all, weighted)) as u64
    }
}

/// # Safety
///
/// The CPU must support AVX-512F, AVX-512BW and AVX-512 VNNI.
#[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
unsafe fn sum(data: &[u8]) -> u16 {
    let Some(last_byte) = data.len().checked_sub(1) else {
        return 0;
    };
    let start = data.as_ptr();
    let lead = start as usize % 64;
    // The aligned line holding the first byte: outside the slice when `lead`
    // is not 0, so only masked loads use it, and only with in-slice bytes.
    let first = start.wrapping_sub(lead);
    let head_mask = u64::MAX << lead;
    let tail_mask = u64::MAX >> (63 - (lead + last_byte) % 64);
    let lines = (lead + last_byte) / 64 + 1;

    let total = if lines == 1 {
        // SAFETY: the mask selects exactly the bytes of `data`; the line is
        // aligned, so the masked-off bytes are on the same page.
        let line = unsafe { _mm512_maskz_loadu_epi8(head_mask & tail_mask, first.cast()) };
        Sums::zero().add(line).reduce()
    } else {
        // SAFETY: as above, with the head and tail masks selecting the bytes
        // of `data` in the first and the last line.
        let (head, tail) = unsafe {
            let last = first.wrapping_add(64 * (lines - 1));
            (
                _mm512_maskz_loadu_epi8(head_mask, first.cast()),
                _mm512_maskz_loadu_epi8(tail_mask, last.cast()),
            )
        };
        // SAFETY: the lines strictly between the first and the last lie
        // inside `data`: `64 - lead` bytes into it and `lines - 2` of them.
        let middle = unsafe { start.add(64 - lead) };
        let mut total = Sums::zero().add(head).add(tail).reduce();
        // SAFETY: `middle` is aligned and the `lines - 2` lines after it are
        // inside `data`.
        total = scalar::add_carry(total, unsafe { sum_lines(middle, lines - 2) });
        total
    };
    let sum = scalar::fold(total);
    if lead % 2 == 0 { sum } else { sum.swap_bytes() }
}

/// The big-endian sum of the `lines` whole 64-byte lines at `ptr`, not folded.
///
/// # Safety
///
/// The CPU must support AVX-512F, AVX-512BW and AVX-512 VNNI; `ptr` must be
/// 64-byte aligned and valid for reads of `64 * lines` bytes.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
unsafe fn sum_lines(mut ptr: *const u8, mut lines: usize) -> u64 {
    let mut total = 0u64;
    while lines > 0 {
        let batch = lines.min(4 * LINES_PER_REDUCTION);
        lines -= batch;
        let (mut s0, mut s1, mut s2, mut s3) = (Sums::zero(), Sums::zero(), Sums::zero(), Sums::zero());
        // SAFETY (loads): each reads one aligned line of the `batch` lines
        // at `ptr`, which the caller guarantees readable.
        unsafe {
            for _ in 0..batch / 4 {
                s0 = s0.add(_mm512_load_si512(ptr.cast()));
                s1 = s1.add(_mm512_load_si512(ptr.add(64).cast()));
                s2 = s2.add(_mm512_load_si512(ptr.add(128).cast()));
                s3 = s3.add(_mm512_load_si512(ptr.add(192).cast()));
                ptr = ptr.add(256);
            }
            for _ in 0..batch % 4 {
                s0 = s0.add(_mm512_load_si512(ptr.cast()));
                ptr = ptr.add(64);
            }
        }
        total = scalar::add_carry(total, s0.merge(s1).merge(s2.merge(s3)).reduce());
    }
    total
}
