//! The SSE2 fill kernel: the shared algorithm ([`crate::arch::fill`]) on
//! 16-byte vectors.
//!
//! Up to 16 bytes it stores four overlapping 4-byte words (or three bytes
//! below 4), taken from the vector's low half (`movq`, no multiply to spread
//! the byte); 17-64 bytes, four overlapping vectors at computed offsets, with
//! no branch between two and four; 65-256 bytes, four vectors at the start,
//! aligned lines from 129 bytes, and four vectors at the end; beyond,
//! aligned 64-byte lines (four `movdqa`) and `rep stosb` from 1 MiB. Non-temporal lines are
//! four `movntdq`, then `sfence`.
//!
//! SSE2 is part of x86_64, so these stores are also the inline path of
//! [`crate::fill()`] for 0-64 bytes in a build without AVX2 or AVX-512, when
//! the CPU found at run time has no AVX-512 (or `FASTPATH_TIER` caps it):
//! against glibc's AVX2 `memset`, 1.8-3.2× at fixed lengths of 1-64 bytes
//! and 1.9-2.2× on random lengths up to 16 and 64 (see
//! [`crate::arch::fill`] for what the branch-free stores changed).

use core::arch::x86_64::*;

use crate::arch::fill::{Splat, fill_kernels};

fill_kernels!(Sse2Splat, "sse2");

/// An SSE2 register with one byte in all 16 lanes.
#[derive(Clone, Copy)]
pub(crate) struct Sse2Splat(__m128i);

impl Splat for Sse2Splat {
    const BYTES: usize = 16;
    const REP_STOSB: bool = true;

    #[inline(always)]
    unsafe fn splat(value: u8) -> Self {
        // SAFETY: the caller guarantees SSE2.
        Self(unsafe { _mm_set1_epi8(value as i8) })
    }

    #[inline(always)]
    unsafe fn store(self, ptr: *mut u8) {
        // SAFETY: the caller guarantees SSE2 and 16 writable bytes.
        unsafe { _mm_storeu_si128(ptr.cast(), self.0) }
    }

    #[inline(always)]
    unsafe fn store_aligned(self, ptr: *mut u8) {
        // SAFETY: the caller guarantees SSE2 and 16 writable bytes, aligned.
        unsafe { _mm_store_si128(ptr.cast(), self.0) }
    }

    #[inline(always)]
    unsafe fn store_nontemporal(self, ptr: *mut u8) {
        // SAFETY: the caller guarantees SSE2 and 16 writable bytes, aligned,
        // and fences before the bytes are accessed again.
        unsafe { _mm_stream_si128(ptr.cast(), self.0) }
    }

    #[inline(always)]
    unsafe fn fence_nontemporal() {
        // SAFETY: the caller guarantees SSE2 (which includes `sfence`).
        unsafe { _mm_sfence() }
    }

    #[inline(always)]
    unsafe fn store16(self, ptr: *mut u8) {
        // SAFETY: as in `store`.
        unsafe { self.store(ptr) }
    }

    #[inline(always)]
    unsafe fn low_word(self) -> u64 {
        // SAFETY: the caller guarantees SSE2.
        unsafe { _mm_cvtsi128_si64(self.0) as u64 }
    }
}
