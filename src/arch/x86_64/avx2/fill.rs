//! The AVX2 fill kernel: the shared algorithm ([`crate::arch::fill`]) on
//! 32-byte vectors.
//!
//! Up to 16 bytes it stores four overlapping 4-byte words (or three bytes
//! below 4); 17-64 bytes, four overlapping 16-byte halves of the vector at
//! computed offsets; 65-128 bytes, four overlapping vectors at computed
//! offsets, with no branch between two and four; 129-512 bytes, four
//! vectors at the start, aligned blocks of four from 257 bytes, and four at
//! the end; beyond, aligned 64-byte lines (two lines, four `vmovdqa`, per
//! step) and `rep stosb` from 1 MiB.
//! Non-temporal lines are `vmovntdq`, then `sfence`.
//!
//! In a build with AVX2 enabled at compile time (and not AVX-512), these
//! stores are also the inline path of [`crate::fill()`] for 0-128 bytes
//! (for 0-64, when the CPU found at run time has no AVX-512, or
//! `FASTPATH_TIER` caps it).
//!
//! Branches on the length mispredict on random lengths, which AVX-512's
//! single masked store avoids; AVX2's masked stores work on 32-bit lanes
//! only (`vpmaskmovd`), which cannot express a byte length, and are slow on
//! AMD cores, so the short path keeps as few branches as overlapping stores
//! allow (two up to 64 bytes, see `arch/fill.rs`).

use core::arch::x86_64::*;

use crate::arch::fill::{Splat, fill_kernels};

fill_kernels!(Avx2Splat, "avx2");

/// An AVX2 register with one byte in all 32 lanes.
#[derive(Clone, Copy)]
pub(crate) struct Avx2Splat(__m256i);

impl Splat for Avx2Splat {
    const BYTES: usize = 32;
    const REP_STOSB: bool = true;

    #[inline(always)]
    unsafe fn splat(value: u8) -> Self {
        // SAFETY: the caller guarantees AVX2.
        Self(unsafe { _mm256_set1_epi8(value as i8) })
    }

    #[inline(always)]
    unsafe fn store(self, ptr: *mut u8) {
        // SAFETY: the caller guarantees AVX2 and 32 writable bytes.
        unsafe { _mm256_storeu_si256(ptr.cast(), self.0) }
    }

    #[inline(always)]
    unsafe fn store_aligned(self, ptr: *mut u8) {
        // SAFETY: the caller guarantees AVX2 and 32 writable bytes, aligned.
        unsafe { _mm256_store_si256(ptr.cast(), self.0) }
    }

    #[inline(always)]
    unsafe fn store_nontemporal(self, ptr: *mut u8) {
        // SAFETY: the caller guarantees AVX2 and 32 writable bytes, aligned,
        // and fences before the bytes are accessed again.
        unsafe { _mm256_stream_si256(ptr.cast(), self.0) }
    }

    #[inline(always)]
    unsafe fn fence_nontemporal() {
        // SAFETY: the caller guarantees AVX2, and so SSE's `sfence`.
        unsafe { _mm_sfence() }
    }

    #[inline(always)]
    unsafe fn store16(self, ptr: *mut u8) {
        // SAFETY: the caller guarantees AVX2 and 16 writable bytes.
        unsafe { _mm_storeu_si128(ptr.cast(), _mm256_castsi256_si128(self.0)) }
    }

    #[inline(always)]
    unsafe fn low_word(self) -> u64 {
        // SAFETY: the caller guarantees AVX2.
        unsafe { _mm_cvtsi128_si64(_mm256_castsi256_si128(self.0)) as u64 }
    }
}
