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
//! Each line is 32 native-endian 16-bit words. `vpmaddwd` multiplies
//! 16-bit words by 1 and adds them in pairs into sixteen 32-bit lanes, but
//! it reads the words as signed. So each word first has its top bit flipped
//! (`vpxord` with 0x8000), which turns the unsigned word `w` into the signed
//! `w - 32768`; the lost 32768 per word, 2^20 per line (counting the zeroed
//! words of masked lines too), is added back when the lanes are emptied.
//! Three vector operations per 64 bytes (flip, multiply-add, add), or two
//! with AVX512-VNNI, whose `vpdpwssd` multiplies, adds in pairs and
//! accumulates ([`Avx512Vnni`]'s table). Measured on Zen 4 in a loop over
//! aligned lines, 9 KiB in L1 (docs/experiments.md): 0.0155-0.0172 TSC
//! cycles per byte, and 0.0128 with `vpdpwssd` and eight accumulators (0.0144
//! with four), against 0.0122 for a loop that only loads the lines, 0.022 for
//! `vpsadbw` + `vpdpbusd` on the bytes, and 0.023 for an AND/shift/add on
//! 512-bit registers. From L2 (64 KiB) every variant runs at the speed of the
//! bare loads, 0.022.
//!
//! Because lines are aligned in memory, the words are those of even
//! *addresses*: when the slice starts at an odd address they are the data's
//! words byte-swapped, and so is their sum (RFC 1071 §2(B)), which the end
//! swaps back along with the conversion from native to big-endian order.
//!
//! The masked first and last lines start the first accumulator; eight
//! accumulators keep the adds independent, and the last 0-7 lines go to
//! distinct ones too; one horizontal sum ends the kernel. A lane moves by
//! at most 65 536 per line, so the lanes are emptied into a 64-bit total
//! every 2^11 lines of each accumulator (1 MiB), keeping the sum exact for
//! any length.

use core::arch::x86_64::*;

use super::{Avx512, Avx512Vnni};
use crate::arch::scalar;

/// Lines the checksum kernel's eight accumulators take, together, before the
/// lanes are emptied: 2^14 lines move a lane of their sum by at most 2^30.
const LINES_PER_BATCH: usize = 1 << 14;

/// What a line loses to the signed reading of its 32 words: 32 * 32768.
const BIAS_PER_LINE: u64 = 1 << 20;

/// Adds the 32 words of `line` to the sixteen 32-bit lanes of `acc`, each
/// word less 32768.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
pub(super) fn add_line(acc: __m512i, line: __m512i) -> __m512i {
    let signed = _mm512_xor_si512(line, _mm512_set1_epi16(i16::MIN));
    _mm512_add_epi32(acc, _mm512_madd_epi16(signed, _mm512_set1_epi16(1)))
}

/// How a kernel adds a line to an accumulator; the value proves that the
/// CPU can. The checksum and the copy-and-checksum kernels are written once
/// over it, for [`Avx512`] and [`Avx512Vnni`].
pub(super) trait AddLine: Copy {
    /// Adds the 32 words of `line`, each less 32768, to the lanes of `acc`.
    fn add(self, acc: __m512i, line: __m512i) -> __m512i;

    /// A vector of zeros.
    #[inline(always)]
    fn zero(self) -> __m512i {
        // SAFETY: both implementations prove AVX-512F.
        unsafe { _mm512_setzero_si512() }
    }
}

impl AddLine for Avx512 {
    #[inline(always)]
    fn add(self, acc: __m512i, line: __m512i) -> __m512i {
        // SAFETY: holding an `Avx512` proves AVX-512F and AVX-512BW.
        unsafe { add_line(acc, line) }
    }
}

impl AddLine for Avx512Vnni {
    #[inline(always)]
    fn add(self, acc: __m512i, line: __m512i) -> __m512i {
        // SAFETY: holding an `Avx512Vnni` proves AVX-512F, AVX-512BW and
        // AVX512-VNNI.
        unsafe { add_line_vnni(acc, line) }
    }
}

/// [`add_line`] with `vpdpwssd`, which multiplies, adds in pairs and
/// accumulates in one instruction. Inline assembly, because the intrinsic
/// would need AVX512-VNNI enabled in every function it is inlined into, and
/// the kernels' helpers serve both tables.
///
/// # Safety
///
/// The CPU must support AVX512-VNNI.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn add_line_vnni(acc: __m512i, line: __m512i) -> __m512i {
    let signed = _mm512_xor_si512(line, _mm512_set1_epi16(i16::MIN));
    let mut acc = acc;
    // SAFETY: the instruction reads and writes only these registers, and
    // the caller guarantees AVX512-VNNI.
    unsafe {
        core::arch::asm!(
            "vpdpwssd {acc}, {signed}, {ones}",
            acc = inout(zmm_reg) acc,
            signed = in(zmm_reg) signed,
            ones = in(zmm_reg) _mm512_set1_epi16(1),
            options(pure, nomem, nostack, preserves_flags),
        );
    }
    acc
}

/// The exact sum of the words behind `acc`, whose lanes hold the sums of
/// `lines` lines less their bias.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
pub(super) fn reduce(acc: __m512i, lines: usize) -> u64 {
    if lines <= SHORT_REDUCTION_LINES {
        return reduce_short(acc, lines);
    }
    let low = _mm512_cvtepi32_epi64(_mm512_castsi512_si256(acc));
    let high = _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64::<1>(acc));
    let signed = _mm512_reduce_add_epi64(_mm512_add_epi64(low, high));
    // The words sum to at least 0, so adding the bias back gives a value in
    // 0..2^64 even though `signed` is negative.
    (signed as u64).wrapping_add(lines as u64 * BIAS_PER_LINE)
}

/// Up to this many lines, the sum of all lanes is within 2^11 * 2^20 = 2^31
/// of zero, so the lanes can be added in 32 bits.
const SHORT_REDUCTION_LINES: usize = 1 << 11;

/// [`reduce`] for at most [`SHORT_REDUCTION_LINES`] lines: the words of a
/// line, less their bias, sum to within 2^20 of zero, so the lanes of up to
/// 2^11 lines add up in 32 bits.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn reduce_short(acc: __m512i, lines: usize) -> u64 {
    let signed = _mm512_reduce_add_epi32(acc);
    (i64::from(signed) as u64).wrapping_add(lines as u64 * BIAS_PER_LINE)
}

/// The checksum of `data`, the complement of its folded sum: the AVX-512
/// table's override of the generic checksum. It needs no entry to call
/// back: its accumulators are emptied as it goes.
///
/// # Safety
///
/// The CPU must support AVX-512F and AVX-512BW.
#[inline(always)]
pub(super) unsafe fn checksum_masked(data: &[u8], _entry: unsafe fn(&[u8]) -> u16) -> u16 {
    // SAFETY: the caller guarantees the features `Avx512` stands for.
    !sum_with(unsafe { Avx512::new_unchecked() }, data)
}

/// [`checksum_masked`] with `vpdpwssd`: the VNNI table's override.
///
/// # Safety
///
/// The CPU must support AVX-512F, AVX-512BW and AVX512-VNNI.
#[inline(always)]
pub(super) unsafe fn checksum_vnni(data: &[u8], _entry: unsafe fn(&[u8]) -> u16) -> u16 {
    // SAFETY: the caller guarantees the features `Avx512Vnni` stands for.
    !sum_with(unsafe { Avx512Vnni::new_unchecked() }, data)
}

/// The kernel, adding lines with `adder`; inlined into the functions that
/// enable its target features.
#[inline(always)]
fn sum_with<A: AddLine>(adder: A, data: &[u8]) -> u16 {
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
    // SAFETY: `adder` proves AVX-512F.
    let zero = unsafe { _mm512_setzero_si512() };

    let total = if lines == 1 {
        // SAFETY: the mask selects exactly the bytes of `data`; the line is
        // aligned, so the masked-off bytes are on the same page. `adder`
        // proves the features of the load and of `reduce`.
        unsafe {
            let line = _mm512_maskz_loadu_epi8(head_mask & tail_mask, first.cast());
            reduce(adder.add(zero, line), 1)
        }
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
        let ends = adder.add(adder.add(zero, head), tail);
        if lines == 2 {
            // SAFETY: `adder` proves the features of `reduce`.
            unsafe { reduce(ends, 2) }
        } else {
            // SAFETY: the `lines - 2` lines strictly between the first and
            // the last start `64 - lead` bytes into `data` and lie inside it.
            unsafe { sum_lines(adder, start.add(64 - lead), lines - 2, ends) }
        }
    };
    // `total` sums native-endian words of even addresses. Converting to
    // big-endian swaps the bytes; an odd start swaps them back.
    let sum = scalar::fold(total);
    if lead.is_multiple_of(2) {
        sum.to_be()
    } else {
        sum.to_le()
    }
}

/// The sum of the native-endian words of the `lines` whole 64-byte lines at
/// `ptr` and of the two lines already added to `ends`, not folded.
///
/// # Safety
///
/// `ptr` must be 64-byte aligned and valid for reads of `64 * lines` bytes.
#[inline(always)]
unsafe fn sum_lines<A: AddLine>(
    adder: A,
    mut ptr: *const u8,
    mut lines: usize,
    ends: __m512i,
) -> u64 {
    /// The aligned line `i` lines after `ptr`.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX-512F; the line must be readable.
    #[inline(always)]
    unsafe fn load(ptr: *const u8, i: usize) -> __m512i {
        // SAFETY: the caller guarantees the line and the feature.
        unsafe { _mm512_load_si512(ptr.add(64 * i).cast()) }
    }

    // SAFETY: `adder` proves AVX-512F.
    let zero = unsafe { _mm512_setzero_si512() };
    let mut total = 0u64;
    // The first batch starts from the two masked lines.
    let (mut first, mut extra_lines) = (ends, 2);
    while lines > 0 {
        let batch = lines.min(LINES_PER_BATCH);
        lines -= batch;
        let mut a = [first, zero, zero, zero, zero, zero, zero, zero];
        // SAFETY: each load reads one aligned line of the `batch` lines at
        // `ptr`, which the caller guarantees readable.
        unsafe {
            for _ in 0..batch / 8 {
                for (i, acc) in a.iter_mut().enumerate() {
                    *acc = adder.add(*acc, load(ptr, i));
                }
                ptr = ptr.add(64 * 8);
            }
            // The last 0-7 lines, each into an accumulator of its own, so
            // that no chain of dependent adds ends the kernel.
            if batch & 4 != 0 {
                for (i, acc) in a[..4].iter_mut().enumerate() {
                    *acc = adder.add(*acc, load(ptr, i));
                }
                ptr = ptr.add(64 * 4);
            }
            if batch & 2 != 0 {
                a[4] = adder.add(a[4], load(ptr, 0));
                a[5] = adder.add(a[5], load(ptr, 1));
                ptr = ptr.add(64 * 2);
            }
            if batch & 1 != 0 {
                a[6] = adder.add(a[6], load(ptr, 0));
                ptr = ptr.add(64);
            }
        }
        // SAFETY: `adder` proves AVX-512F and AVX-512BW.
        let reduced = unsafe {
            let acc = _mm512_add_epi32(
                _mm512_add_epi32(_mm512_add_epi32(a[0], a[1]), _mm512_add_epi32(a[2], a[3])),
                _mm512_add_epi32(_mm512_add_epi32(a[4], a[5]), _mm512_add_epi32(a[6], a[7])),
            );
            reduce(acc, batch + extra_lines)
        };
        total = scalar::add_carry(total, reduced);
        (first, extra_lines) = (zero, 0);
    }
    total
}
