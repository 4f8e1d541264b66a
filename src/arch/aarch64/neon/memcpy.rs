//! The NEON copy kernel: the shared algorithm (`arch/memcpy.rs`) on NEON
//! registers (`ld1`, `st1`).

use core::arch::aarch64::*;

use super::checksum::NeonVector;
use crate::arch::memcpy::{Chunk, copy_kernel};

copy_kernel!(NeonVector, "neon");

impl Chunk for NeonVector {
    const BYTES: usize = 16;

    #[inline(always)]
    unsafe fn load(ptr: *const u8) -> Self {
        // SAFETY: the caller guarantees NEON and 16 readable bytes; `ld1`
        // has no alignment requirement.
        NeonVector(unsafe { vld1q_u8(ptr) })
    }

    #[inline(always)]
    unsafe fn store(self, ptr: *mut u8) {
        // SAFETY: the caller guarantees NEON and 16 writable bytes.
        unsafe { vst1q_u8(ptr, self.0) }
    }

    #[inline(always)]
    unsafe fn store_aligned(self, ptr: *mut u8) {
        // SAFETY: as in `store`.
        unsafe { self.store(ptr) }
    }
}
