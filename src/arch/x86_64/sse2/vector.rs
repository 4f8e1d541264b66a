//! The SSE2 register, a 128-bit `__m128i`: its loads, stores and sums.

use core::arch::x86_64::*;

use crate::arch::generic::vector::{Sum, Vector};

/// A 128-bit SSE2 register.
#[derive(Clone, Copy)]
pub(crate) struct Sse2Vector(__m128i);

impl Vector for Sse2Vector {
    const BYTES: usize = 16;
    const IN_ORDER: bool = true;
    const BACKWARD_NEAR: bool = true;
    const REP_STOSB: bool = true;

    /// The byte spread over a word by a multiply, then over the vector:
    /// one multiply and two vector instructions, where `_mm_set1_epi8`
    /// takes four (`movd`, `punpcklbw`, `pshuflw`, `pshufd`), and the short
    /// fills of up to 16 bytes store the word with no vector at all.
    /// Called as applications call (the value not a constant), with
    /// AVX-512 masked off, 31-64-byte fills of the default build's inline
    /// path ran at 1.22-1.57× glibc's `memset` with the four, 1.50-1.70×
    /// with the multiply, and natively 1-64-byte ones (which take the
    /// masked AVX-512 store) at 1.47-1.50× and 1.99-2.23× (AMD EPYC Zen 5,
    /// BENCHMARKS.md, "Short fills: the value spread by a multiply, and two
    /// words").
    #[inline(always)]
    unsafe fn splat(value: u8) -> Self {
        // SAFETY: the caller guarantees SSE2.
        Self(unsafe { _mm_set1_epi64x(crate::arch::generic::fill::splat_word(value) as i64) })
    }

    #[inline(always)]
    unsafe fn load_unaligned(ptr: *const u8) -> Self {
        // SAFETY: the caller guarantees SSE2 and 16 readable bytes.
        Self(unsafe { _mm_loadu_si128(ptr.cast()) })
    }

    #[inline(always)]
    unsafe fn store_unaligned(self, ptr: *mut u8) {
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
        // SAFETY: as in `store_unaligned`.
        unsafe { self.store_unaligned(ptr) }
    }

    #[inline(always)]
    unsafe fn low_word(self) -> u64 {
        // SAFETY: the caller guarantees SSE2.
        unsafe { _mm_cvtsi128_si64(self.0) as u64 }
    }
}

impl Sum for Sse2Vector {
    #[inline(always)]
    unsafe fn zero() -> Self {
        // SAFETY: the caller guarantees SSE2.
        Self(unsafe { _mm_setzero_si128() })
    }

    #[inline(always)]
    unsafe fn add_words(self, data: Self) -> Self {
        // SAFETY: the caller guarantees SSE2.
        unsafe {
            let signed = _mm_xor_si128(data.0, _mm_set1_epi16(i16::MIN));
            Self(_mm_add_epi32(
                self.0,
                _mm_madd_epi16(signed, _mm_set1_epi16(1)),
            ))
        }
    }

    #[inline(always)]
    unsafe fn add(self, other: Self) -> Self {
        // SAFETY: the caller guarantees SSE2.
        Self(unsafe { _mm_add_epi32(self.0, other.0) })
    }

    #[inline(always)]
    unsafe fn reduce(self) -> i64 {
        // SAFETY: the caller guarantees SSE2.
        unsafe {
            // Sign-extend to 64-bit lanes by interleaving with the signs.
            let sign = _mm_srai_epi32::<31>(self.0);
            let sum = _mm_add_epi64(
                _mm_unpacklo_epi32(self.0, sign),
                _mm_unpackhi_epi32(self.0, sign),
            );
            _mm_cvtsi128_si64(_mm_add_epi64(sum, _mm_unpackhi_epi64(sum, sum)))
        }
    }
}
