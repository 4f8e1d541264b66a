//! The NEON fill kernel: the shared algorithm ([`crate::arch::fill`]) on
//! 16-byte vectors.
//!
//! Up to 16 bytes, four overlapping 4-byte words (or three bytes below 4);
//! 17-64 bytes, four overlapping `st1` of a `dup` vector at computed
//! offsets; 65-256 bytes, four vectors at the start, aligned lines from 129
//! bytes, and four vectors at the end; beyond, aligned 64-byte lines, four
//! vectors per step, and an unaligned line at the end.
//! aarch64's non-temporal store (`stnp`) is a hint with no intrinsic, so
//! `fill_nontemporal` stores ordinarily here.
//!
//! NEON is part of every aarch64 target, so these stores are also the inline
//! path of [`crate::fill()`] for 0-64 bytes there.
//!
//! # Measurements
//!
//! None on aarch64 hardware yet: the kernel is tested under qemu user-mode
//! emulation, whose timings say nothing about a real core. The shape is that
//! of the x86_64 kernels; glibc's aarch64 `memset` also zeroes large
//! buffers with `dc zva`, a possible next step once there is a core to
//! measure on.

use core::arch::aarch64::*;

use crate::arch::fill::{Splat, fill_kernels};

fill_kernels!(NeonSplat, "neon");

/// A NEON register with one byte in all 16 lanes.
#[derive(Clone, Copy)]
pub(crate) struct NeonSplat(uint8x16_t);

impl Splat for NeonSplat {
    const BYTES: usize = 16;

    #[inline(always)]
    unsafe fn splat(value: u8) -> Self {
        // SAFETY: the caller guarantees NEON.
        Self(unsafe { vdupq_n_u8(value) })
    }

    #[inline(always)]
    unsafe fn store(self, ptr: *mut u8) {
        // SAFETY: the caller guarantees NEON and 16 writable bytes; `st1`
        // has no alignment requirement.
        unsafe { vst1q_u8(ptr, self.0) }
    }

    #[inline(always)]
    unsafe fn store_aligned(self, ptr: *mut u8) {
        // SAFETY: as in `store`.
        unsafe { vst1q_u8(ptr, self.0) }
    }

    #[inline(always)]
    unsafe fn store16(self, ptr: *mut u8) {
        // SAFETY: as in `store`.
        unsafe { self.store(ptr) }
    }

    #[inline(always)]
    unsafe fn low_word(self) -> u64 {
        // SAFETY: the caller guarantees NEON.
        unsafe { vgetq_lane_u64::<0>(vreinterpretq_u64_u8(self.0)) }
    }
}
