//! The NEON copy-and-checksum kernel: the checksum kernel's loop (four
//! vectors per step, `uadalp` into four accumulators, emptied into 64-bit
//! lanes every 2 MiB) with each vector stored (`st1`) as it is added, so the
//! data is read once. The 0-3 remaining whole vectors go into one more
//! accumulator and the last 0-15 bytes through the scalar copy-and-sum.
//! Every load and store is of a 16-byte chunk split off the two slices.

use core::arch::aarch64::*;
use core::mem::MaybeUninit;

use super::checksum::{STEP, STEPS_PER_REDUCTION, VECTOR};
use crate::arch::scalar;

/// Copies `src` into `dst` and returns the checksum of `src`, the complement
/// of the folded sum. It copies `min(dst.len(), src.len())` bytes.
///
/// # Safety
///
/// The CPU must support NEON.
#[target_feature(enable = "neon")]
pub(crate) unsafe fn copy_checksum(dst: &mut [MaybeUninit<u8>], src: &[u8]) -> u16 {
    let len = src.len().min(dst.len());
    let (src, dst) = (&src[..len], &mut dst[..len]);
    let (steps, src_rest) = src.as_chunks::<STEP>();
    let (dst_steps, dst_rest) = dst.as_chunks_mut::<STEP>();
    let mut total = 0u64;
    let blocks = steps
        .chunks(STEPS_PER_REDUCTION)
        .zip(dst_steps.chunks_mut(STEPS_PER_REDUCTION));
    for (block, out_block) in blocks {
        let zero = vdupq_n_u32(0);
        let (mut a0, mut a1, mut a2, mut a3) = (zero, zero, zero, zero);
        for (step, out) in block.iter().zip(out_block) {
            let (vectors, _) = step.as_chunks::<VECTOR>();
            let (outs, _) = out.as_chunks_mut::<VECTOR>();
            a0 = copy_pairs(a0, &vectors[0], &mut outs[0]);
            a1 = copy_pairs(a1, &vectors[1], &mut outs[1]);
            a2 = copy_pairs(a2, &vectors[2], &mut outs[2]);
            a3 = copy_pairs(a3, &vectors[3], &mut outs[3]);
        }
        let wide = vpaddlq_u32(a0);
        let wide = vpadalq_u32(wide, a1);
        let wide = vpadalq_u32(wide, a2);
        let wide = vpadalq_u32(wide, a3);
        total = scalar::add_carry(total, vaddvq_u64(wide));
    }

    let (vectors, src_tail) = src_rest.as_chunks::<VECTOR>();
    let (outs, dst_tail) = dst_rest.as_chunks_mut::<VECTOR>();
    // The 0-3 whole vectors, in straight-line code: as a loop, the compiler
    // turns their stores into a call to `memcpy`.
    let mut acc = vdupq_n_u32(0);
    if let ([v0, v1, ..], [o0, o1, ..]) = (vectors, &mut *outs) {
        acc = copy_pairs(acc, v0, o0);
        acc = copy_pairs(acc, v1, o1);
    }
    if let ([.., v], [.., o]) = (vectors, outs)
        && vectors.len() % 2 == 1
    {
        acc = copy_pairs(acc, v, o);
    }
    total = scalar::add_carry(total, vaddlvq_u32(acc));
    // The tail starts an even number of bytes into the data and is shorter
    // than a vector.
    total = scalar::add_carry(total, scalar::copy_sum_native(dst_tail, src_tail));
    !scalar::finish_native(total)
}

/// Stores the 16 bytes of `bytes` into `out` and adds their eight 16-bit
/// words pairwise into the 32-bit lanes of `acc` (`uadalp`).
#[inline]
#[target_feature(enable = "neon")]
fn copy_pairs(
    acc: uint32x4_t,
    bytes: &[u8; VECTOR],
    out: &mut [MaybeUninit<u8>; VECTOR],
) -> uint32x4_t {
    // SAFETY: `bytes` is valid for reads and `out` for writes of the 16
    // bytes that `vld1q_u8` and `vst1q_u8` access, at any alignment.
    let vector = unsafe {
        let vector = vld1q_u8(bytes.as_ptr());
        vst1q_u8(out.as_mut_ptr().cast(), vector);
        vector
    };
    vpadalq_u16(acc, vreinterpretq_u16_u8(vector))
}
