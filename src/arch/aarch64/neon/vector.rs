//! The NEON register, a 128-bit `uint8x16_t`: its loads and stores (`ld1`,
//! `st1`, neither with an alignment requirement).

use core::arch::aarch64::*;

use crate::arch::generic::vector::Vector;

/// A NEON register of 16 bytes.
#[derive(Clone, Copy)]
pub(crate) struct NeonVector(pub(super) uint8x16_t);

impl Vector for NeonVector {
    const BYTES: usize = 16;

    #[inline(always)]
    unsafe fn splat(value: u8) -> Self {
        // SAFETY: the caller guarantees NEON.
        Self(unsafe { vdupq_n_u8(value) })
    }

    #[inline(always)]
    unsafe fn load_unaligned(ptr: *const u8) -> Self {
        // SAFETY: the caller guarantees NEON and 16 readable bytes; `ld1`
        // has no alignment requirement.
        Self(unsafe { vld1q_u8(ptr) })
    }

    #[inline(always)]
    unsafe fn store_unaligned(self, ptr: *mut u8) {
        // SAFETY: the caller guarantees NEON and 16 writable bytes; `st1`
        // has no alignment requirement.
        unsafe { vst1q_u8(ptr, self.0) }
    }

    #[inline(always)]
    unsafe fn store_aligned(self, ptr: *mut u8) {
        // SAFETY: as in `store_unaligned`.
        unsafe { vst1q_u8(ptr, self.0) }
    }

    #[inline(always)]
    unsafe fn store16(self, ptr: *mut u8) {
        // SAFETY: as in `store_unaligned`.
        unsafe { self.store_unaligned(ptr) }
    }

    #[inline(always)]
    unsafe fn low_word(self) -> u64 {
        // SAFETY: the caller guarantees NEON.
        unsafe { vgetq_lane_u64::<0>(vreinterpretq_u64_u8(self.0)) }
    }
}
