//! The NEON checksum and copy-and-checksum kernels: the NEON table's
//! overrides of the generic ones, a loop of pairwise adds that both share.
//!
//! # Algorithm
//!
//! The data is read as native-endian 16-bit words counted from the first
//! byte of the slice, 16 bytes (eight words) per vector load; `ld1` has no
//! alignment requirement, so an odd address costs nothing special. One
//! instruction does all the arithmetic for a vector: `uadalp`
//! (`vpadalq_u16`, unsigned add and accumulate long pairwise) adds each pair
//! of adjacent 16-bit words into one 32-bit lane of an accumulator. Where
//! the SSE2 kernel needs three operations to add a vector's words into
//! 32-bit lanes (a flip of their top bits, `pmaddwd`, an add), NEON widens
//! as it adds.
//!
//! Each step loads four vectors (64 bytes) into four independent
//! accumulators, so that four `uadalp` are in flight at once and the loop is
//! bound by their throughput, not by the latency of one accumulator. The
//! loop hands each vector to an [`Output`]: nowhere for the checksum, a
//! store for the copy-and-checksum, so the data is read once.
//!
//! # Why the sum is exact for any length
//!
//! A `uadalp` adds at most 2 * 0xffff = 0x1fffe to a 32-bit lane. The loop
//! therefore runs in blocks of at most 32 768 steps (2 MiB): a lane then
//! holds at most 32 768 * 0x1fffe = 0xffff_0000, which fits (a `const`
//! assertion below checks the arithmetic). At the end of a block the 32-bit
//! lanes are emptied into 64-bit ones by `uadalp` on 32-bit lanes
//! (`vpadalq_u32`): each 64-bit lane takes two lanes of each of the four
//! accumulators, less than 2^35, and the two 64-bit lanes add up to less than
//! 2^36. That block sum joins a 64-bit total with an end-around carry
//! ([`scalar::add_carry`]), which is exact modulo 2^64 - 1 (a multiple of
//! 0xffff) however many blocks there are.
//!
//! After the blocks, the 0-3 remaining whole vectors go into one more
//! accumulator (a lane gains at most 3 * 0x1fffe there), in straight-line
//! code (as a loop, the compiler turns the copy's stores into a call to
//! `memcpy`), and the last 0-15 bytes, which start an even number of bytes
//! into the slice, go through the scalar tail ([`Output::finish`]). The
//! native-endian total is folded and byte-swapped to big-endian at the end
//! (see [`scalar`] for why that is exact).
//!
//! # Memory safety
//!
//! Every load reads a `&[u8; 16]` obtained by splitting the slice into whole
//! chunks, so no byte outside the slice is ever read; every store writes the
//! 16 bytes of the destination at the same offset, which is as long; the
//! tail is read by safe scalar code.
//!
//! # Measurements
//!
//! None on aarch64 hardware yet: the kernel is tested under qemu user-mode
//! emulation, whose timings say nothing about a real core. The unroll by four
//! follows the x86_64 kernels and the published latencies of `uadalp` (more
//! than one cycle on every Arm core), not a measurement.

use core::arch::aarch64::*;

use core::mem::MaybeUninit;

use super::vector::NeonVector;
use crate::arch::generic::output::{CopyTo, Output, SumOnly};
use crate::arch::generic::vector::Vector;
use crate::arch::scalar;

/// The bytes of one vector.
const VECTOR: usize = NeonVector::BYTES;

/// The bytes of one unrolled step: one vector for each of four accumulators.
const STEP: usize = 4 * VECTOR;

/// Steps between two emptyings of the 32-bit accumulators.
const STEPS_PER_REDUCTION: usize = 1 << 15;

// A step adds at most 2 * 0xffff to every 32-bit lane of each accumulator, so
// a whole block must fit in a lane.
const _: () = assert!(STEPS_PER_REDUCTION as u64 * 2 * 0xffff <= u32::MAX as u64);

/// The checksum of `data`, the complement of its folded sum. It needs no
/// entry to call back: its accumulators are emptied as it goes.
///
/// # Safety
///
/// The CPU must support NEON.
#[inline(always)]
pub(super) unsafe fn checksum_pairwise(data: &[u8], _entry: unsafe fn(&[u8]) -> u16) -> u16 {
    // SAFETY: the caller guarantees NEON.
    !scalar::finish_native(unsafe { sum_into(data, SumOnly) })
}

/// Copies `src` into `dst` and returns the checksum of `src`, the
/// complement of the folded sum: the checksum's loop with each vector
/// stored (`st1`) as it is added, so the data is read once. It copies
/// `min(dst.len(), src.len())` bytes.
///
/// # Safety
///
/// The CPU must support NEON.
#[inline(always)]
pub(super) unsafe fn copy_checksum_pairwise(
    dst: &mut [MaybeUninit<u8>],
    src: &[u8],
    _entry: unsafe fn(&mut [MaybeUninit<u8>], &[u8]) -> u16,
) -> u16 {
    let len = src.len().min(dst.len());
    // SAFETY: the caller guarantees NEON.
    !scalar::finish_native(unsafe { sum_into(&src[..len], CopyTo(&mut dst[..len])) })
}

/// The native-endian sum of `data`, not folded, each vector also handed to
/// `out`: the kernel's loop (see the module docs).
#[inline]
#[target_feature(enable = "neon")]
fn sum_into<O: Output>(data: &[u8], mut out: O) -> u64 {
    let (steps, rest) = data.as_chunks::<STEP>();
    let mut total = 0u64;
    let mut offset = 0;
    for block in steps.chunks(STEPS_PER_REDUCTION) {
        let zero = vdupq_n_u32(0);
        let (mut a0, mut a1, mut a2, mut a3) = (zero, zero, zero, zero);
        for step in block {
            let (vectors, _) = step.as_chunks::<VECTOR>();
            let (v0, v1) = (load(&vectors[0]), load(&vectors[1]));
            let (v2, v3) = (load(&vectors[2]), load(&vectors[3]));
            // SAFETY: NEON is enabled here; the four vectors are the 64
            // bytes at `offset`, inside the data.
            unsafe {
                out.put(offset, v0);
                out.put(offset + VECTOR, v1);
                out.put(offset + 2 * VECTOR, v2);
                out.put(offset + 3 * VECTOR, v3);
            }
            a0 = add_pairs(a0, v0);
            a1 = add_pairs(a1, v1);
            a2 = add_pairs(a2, v2);
            a3 = add_pairs(a3, v3);
            offset += STEP;
        }
        // Each lane is at most 0xffff_0000: empty the lanes pairwise into
        // 64-bit lanes before the next block.
        let wide = vpaddlq_u32(a0);
        let wide = vpadalq_u32(wide, a1);
        let wide = vpadalq_u32(wide, a2);
        let wide = vpadalq_u32(wide, a3);
        total = scalar::add_carry(total, vaddvq_u64(wide));
    }

    let (vectors, tail) = rest.as_chunks::<VECTOR>();
    let mut acc = vdupq_n_u32(0);
    if let [first, second, ..] = vectors {
        let (v0, v1) = (load(first), load(second));
        // SAFETY: NEON is enabled here; the two vectors are the 32 bytes at
        // `offset`, inside the data.
        unsafe {
            out.put(offset, v0);
            out.put(offset + VECTOR, v1);
        }
        acc = add_pairs(add_pairs(acc, v0), v1);
        offset += 2 * VECTOR;
    }
    if let [.., last] = vectors
        && vectors.len() % 2 == 1
    {
        let v = load(last);
        // SAFETY: NEON is enabled here; the vector is the 16 bytes at
        // `offset`, inside the data.
        unsafe { out.put(offset, v) };
        acc = add_pairs(acc, v);
        offset += VECTOR;
    }
    total = scalar::add_carry(total, vaddlvq_u32(acc));

    // `tail` starts `offset` bytes into `data`, an even number, and is
    // shorter than a vector: a short input for the scalar sum.
    scalar::add_carry(total, out.finish(offset, tail))
}

/// Loads the 16 bytes of `bytes`.
#[inline]
#[target_feature(enable = "neon")]
fn load(bytes: &[u8; VECTOR]) -> NeonVector {
    // SAFETY: `bytes` is valid for reads of the 16 bytes that `vld1q_u8`
    // loads, at any alignment; NEON is enabled here.
    NeonVector(unsafe { vld1q_u8(bytes.as_ptr()) })
}

/// Adds the eight native-endian 16-bit words of `vector` pairwise into the
/// four 32-bit lanes of `acc` (`uadalp`): a lane gains at most 2 * 0xffff.
#[inline]
#[target_feature(enable = "neon")]
fn add_pairs(acc: uint32x4_t, vector: NeonVector) -> uint32x4_t {
    vpadalq_u16(acc, vreinterpretq_u16_u8(vector.0))
}
