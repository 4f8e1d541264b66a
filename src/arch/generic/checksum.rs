//! The checksum and the copy-and-checksum, written once over a vector of
//! 32-bit lanes that sums 16-bit words ([`Sum`]): the kernels of the SSE2
//! and AVX2 tiers.

use core::mem::MaybeUninit;

use super::output::{CopyTo, Output, SumOnly};
use super::vector::Sum;
use crate::arch::scalar;

/// Unrolled loop steps in one call of [`sum_native_into`]. A lane moves by
/// at most 65 536 per vector, so after 4096 steps (plus up to three single
/// vectors) each of the four accumulators is within 2^28.1 of zero and their
/// sum fits in 32 signed bits.
const STEPS_PER_REDUCTION: usize = 4096;

/// The longest input that [`sum_native`] and [`copy_sum_native`] take: 4096
/// unrolled steps (256 KiB for SSE2, 512 KiB for AVX2). The kernels hand
/// longer inputs to [`sum_pieces`] and [`copy_sum_pieces`], which call them
/// again a piece at a time. The loop then never empties its accumulators:
/// one that did kept more values live than the caller-saved registers hold,
/// and every call of the copy kernels saved and restored four registers.
const fn piece<V: Sum>() -> usize {
    STEPS_PER_REDUCTION * 4 * V::BYTES
}

/// The checksum of `data` (the complement of its folded sum), by `V`'s
/// kernel; inputs longer than [`piece`] go a piece at a time through
/// `entry`, the tier's entry function that calls this.
///
/// # Safety
///
/// The CPU must support `V`'s instruction set, and `entry` must be safe to
/// call on it and return the checksum of its input.
#[inline(always)]
pub(crate) unsafe fn checksum<V: Sum>(data: &[u8], entry: unsafe fn(&[u8]) -> u16) -> u16 {
    if data.len() > piece::<V>() {
        // SAFETY: the caller guarantees `entry`; a piece is even.
        return !scalar::finish_native(unsafe { sum_pieces(data, piece::<V>(), entry) });
    }
    if data.len() >= ALIGN_FROM && !(data.as_ptr() as usize).is_multiple_of(V::BYTES) {
        // SAFETY: the caller guarantees `entry`.
        return unsafe { checksum_aligned(data, V::BYTES, entry) };
    }
    // SAFETY: the caller guarantees the instruction set, and `data` is short
    // enough.
    !scalar::finish_native(unsafe { sum_native::<V>(data) })
}

/// Inputs from this many bytes on whose start is not aligned to the vector
/// go through [`checksum_aligned`]: with AVX2 on Zen 4, 9000 bytes at +1
/// from a line boundary took 10% longer than aligned ones, half of their
/// 32-byte loads splitting a cache line; the bytes before the first aligned
/// address cost more than that saves below 4 KiB.
const ALIGN_FROM: usize = 4096;

/// The checksum of `data`, more than [`ALIGN_FROM`] bytes: the bytes before
/// the first address aligned to `align`, then the rest by `entry`, whose
/// loads are then all aligned. Out of line, so that the kernel keeps one
/// copy of its loop, laid out as before (a second copy cost 1500 and 2048
/// bytes 3%).
///
/// # Safety
///
/// `entry` must be safe to call on this CPU, and return the checksum of its
/// input (big-endian, complemented).
#[inline(never)]
unsafe fn checksum_aligned(data: &[u8], align: usize, entry: unsafe fn(&[u8]) -> u16) -> u16 {
    let (head, body) = data.split_at(data.as_ptr().align_offset(align));
    // SAFETY: the caller guarantees `entry`.
    let body_sum = !unsafe { entry(body) };
    // After an odd head, the body's bytes pair into words one byte later
    // than `entry` paired them: its sum, byte-swapped (RFC 1071 §2(B)).
    let body_sum = if head.len() % 2 == 1 {
        body_sum.swap_bytes()
    } else {
        body_sum
    };
    !scalar::add16(scalar::sum(head), body_sum)
}

/// Copies `src` into `dst` and returns the checksum of `src`, by `V`'s
/// kernel, as [`checksum`] does; it copies `min(dst.len(), src.len())`
/// bytes.
///
/// # Safety
///
/// As [`checksum`], for an `entry` that copies its second argument into
/// its first.
#[inline(always)]
pub(crate) unsafe fn copy_checksum<V: Sum>(
    dst: &mut [MaybeUninit<u8>],
    src: &[u8],
    entry: unsafe fn(&mut [MaybeUninit<u8>], &[u8]) -> u16,
) -> u16 {
    let len = src.len().min(dst.len());
    let (dst, src) = (&mut dst[..len], &src[..len]);
    if len > piece::<V>() {
        // SAFETY: the caller guarantees `entry`; a piece is even.
        let total = unsafe { copy_sum_pieces(dst, src, piece::<V>(), entry) };
        return !scalar::finish_native(total);
    }
    // SAFETY: the caller guarantees the instruction set, and `src` is short
    // enough.
    !scalar::finish_native(unsafe { copy_sum_native::<V>(dst, src) })
}

/// The native-endian sum of `data`, not folded: the folded sums of `entry`
/// on pieces of `piece` bytes (the last one shorter), added.
///
/// # Safety
///
/// `entry` must be safe to call on this CPU, and return the checksum of its
/// input (big-endian, complemented); `piece` must be even.
#[cold]
#[inline(never)]
unsafe fn sum_pieces(data: &[u8], piece: usize, entry: unsafe fn(&[u8]) -> u16) -> u64 {
    data.chunks(piece).fold(0, |total, chunk| {
        // SAFETY: the caller guarantees `entry`. A piece is an even number
        // of bytes long, so each starts at an even offset, where its sum adds
        // to the total as it is.
        let sum = u16::from_be(!unsafe { entry(chunk) });
        scalar::add_carry(total, u64::from(sum))
    })
}

/// [`sum_pieces`] for a copy-and-checksum `entry`: copies `src` into `dst`,
/// of the same length, a piece at a time. The AVX-512 copy kernel uses it
/// too.
///
/// # Safety
///
/// As [`sum_pieces`], for an `entry` that copies its second argument into
/// its first.
#[cold]
#[inline(never)]
pub(crate) unsafe fn copy_sum_pieces(
    dst: &mut [MaybeUninit<u8>],
    src: &[u8],
    piece: usize,
    entry: unsafe fn(&mut [MaybeUninit<u8>], &[u8]) -> u16,
) -> u64 {
    let pieces = dst.chunks_mut(piece).zip(src.chunks(piece));
    pieces.fold(0, |total, (out, chunk)| {
        // SAFETY: as in `sum_pieces`.
        let sum = u16::from_be(!unsafe { entry(out, chunk) });
        scalar::add_carry(total, u64::from(sum))
    })
}

/// The exact sum of the words behind `acc`, which holds `vectors` vectors of
/// words each less 32768.
///
/// # Safety
///
/// The CPU must support `V`'s instruction set.
#[inline(always)]
unsafe fn unbias<V: Sum>(acc: V, vectors: usize) -> u64 {
    // SAFETY: the caller guarantees the instruction set.
    let signed = unsafe { acc.reduce() };
    // The words sum to at least 0, so adding the bias back lands in
    // 0..2^64 even though `signed` may be negative.
    (signed as u64).wrapping_add((vectors * V::BYTES / 2) as u64 * 32768)
}

/// The native-endian sum of `data`, not folded.
///
/// # Safety
///
/// The CPU must support `V`'s instruction set, and `data` must be at most
/// [`piece`] bytes long.
#[inline(always)]
unsafe fn sum_native<V: Sum>(data: &[u8]) -> u64 {
    // SAFETY: the caller guarantees the instruction set.
    unsafe { sum_native_into::<V, _>(data, SumOnly) }
}

/// Copies `src` into `dst`, which has the same length, and returns the
/// native-endian sum of `src`, not folded.
///
/// # Safety
///
/// The CPU must support `V`'s instruction set, and `src` must be at most
/// [`piece`] bytes long.
#[inline(always)]
unsafe fn copy_sum_native<V: Sum>(dst: &mut [MaybeUninit<u8>], src: &[u8]) -> u64 {
    debug_assert_eq!(dst.len(), src.len());
    // SAFETY: the caller guarantees the instruction set.
    unsafe { sum_native_into::<V, _>(&src[..dst.len().min(src.len())], CopyTo(dst)) }
}

/// The native-endian sum of `data`, not folded, each vector also handed to
/// `out`.
///
/// # Algorithm
///
/// Each vector is read as 16-bit words, whose top bits are flipped (`pxor`
/// with 0x8000) so that `pmaddwd` by 1, which reads words as signed, adds
/// them in pairs into 32-bit lanes as `w - 32768`; the 32768s are added back
/// at the end. Three operations per vector (flip, multiply-add, add), where
/// an AND, a shift and two adds of the 16-bit halves took four: measured
/// on Zen 4 at 0.022 TSC cycles per byte for AVX2 on 9 KiB in L1, against
/// 0.032.
/// Four independent accumulators hide the latency; the 0-3 whole vectors
/// after the last step go into the second, third and fourth; the last
/// `0..BYTES` bytes go through the scalar tail, which reads exactly the
/// bytes that are left. Every vector load lies inside `data`.
///
/// # Safety
///
/// The CPU must support `V`'s instruction set, and `data` must be at most
/// [`piece`] bytes long.
#[inline(always)]
unsafe fn sum_native_into<V: Sum, O: Output>(data: &[u8], mut out: O) -> u64 {
    debug_assert!(data.len() <= piece::<V>());
    let step = 4 * V::BYTES;
    let steps = data.len() / step;
    let mut rest = &data[steps * step..];
    // SAFETY: the caller guarantees the instruction set; every load reads
    // `V::BYTES` bytes inside `data`; at most `STEPS_PER_REDUCTION` steps
    // and one more vector for each of three accumulators are added, which
    // the lanes hold.
    let total = unsafe {
        let (mut a0, mut a1, mut a2, mut a3) = (V::zero(), V::zero(), V::zero(), V::zero());
        let mut offset = 0;
        for _ in 0..steps {
            let ptr = data.as_ptr().add(offset);
            let (v0, v1) = (V::load_unaligned(ptr), V::load_unaligned(ptr.add(V::BYTES)));
            let v2 = V::load_unaligned(ptr.add(2 * V::BYTES));
            let v3 = V::load_unaligned(ptr.add(3 * V::BYTES));
            out.put(offset, v0);
            out.put(offset + V::BYTES, v1);
            out.put(offset + 2 * V::BYTES, v2);
            out.put(offset + 3 * V::BYTES, v3);
            a0 = a0.add_words(v0);
            a1 = a1.add_words(v1);
            a2 = a2.add_words(v2);
            a3 = a3.add_words(v3);
            offset += step;
        }
        let mut vectors = 4 * steps;
        // The 0-3 whole vectors left, in straight-line code: as a loop, the
        // compiler turns their stores into a call to `memcpy`.
        if rest.len() >= 2 * V::BYTES {
            let (v0, v1) = (
                V::load_unaligned(rest.as_ptr()),
                V::load_unaligned(rest.as_ptr().add(V::BYTES)),
            );
            out.put(offset, v0);
            out.put(offset + V::BYTES, v1);
            a1 = a1.add_words(v0);
            a2 = a2.add_words(v1);
            rest = &rest[2 * V::BYTES..];
            offset += 2 * V::BYTES;
            vectors += 2;
        }
        if rest.len() >= V::BYTES {
            let v = V::load_unaligned(rest.as_ptr());
            out.put(offset, v);
            a3 = a3.add_words(v);
            rest = &rest[V::BYTES..];
            vectors += 1;
        }
        unbias(a0.add(a1).add(a2.add(a3)), vectors)
    };
    // `rest` starts an even number of bytes into `data`.
    scalar::add_carry(total, out.finish(data.len() - rest.len(), rest))
}
