//! The AVX2 register, a 256-bit `__m256i`: its loads, stores and sums.

use core::arch::x86_64::*;

use crate::arch::generic::vector::{Sum, Vector};

/// A 256-bit AVX2 register.
#[derive(Clone, Copy)]
pub(crate) struct Avx2Vector(__m256i);

impl Vector for Avx2Vector {
    const BYTES: usize = 32;
    const IN_ORDER: bool = true;
    const BACKWARD_NEAR: bool = true;
    const REP_STOSB: bool = true;

    #[inline(always)]
    unsafe fn splat(value: u8) -> Self {
        // SAFETY: the caller guarantees AVX2.
        Self(unsafe { _mm256_set1_epi8(value as i8) })
    }

    #[inline(always)]
    unsafe fn load_unaligned(ptr: *const u8) -> Self {
        // SAFETY: the caller guarantees AVX2 and 32 readable bytes.
        Self(unsafe { _mm256_loadu_si256(ptr.cast()) })
    }

    #[inline(always)]
    unsafe fn store_unaligned(self, ptr: *mut u8) {
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

impl Sum for Avx2Vector {
    #[inline(always)]
    unsafe fn zero() -> Self {
        // SAFETY: the caller guarantees AVX2.
        Self(unsafe { _mm256_setzero_si256() })
    }

    #[inline(always)]
    unsafe fn add_words(self, data: Self) -> Self {
        // SAFETY: the caller guarantees AVX2.
        unsafe {
            let signed = _mm256_xor_si256(data.0, _mm256_set1_epi16(i16::MIN));
            Self(_mm256_add_epi32(
                self.0,
                _mm256_madd_epi16(signed, _mm256_set1_epi16(1)),
            ))
        }
    }

    #[inline(always)]
    unsafe fn add(self, other: Self) -> Self {
        // SAFETY: the caller guarantees AVX2.
        Self(unsafe { _mm256_add_epi32(self.0, other.0) })
    }

    #[inline(always)]
    unsafe fn reduce(self) -> i64 {
        // SAFETY: the caller guarantees AVX2.
        unsafe {
            let low = _mm256_cvtepi32_epi64(_mm256_castsi256_si128(self.0));
            let high = _mm256_cvtepi32_epi64(_mm256_extracti128_si256::<1>(self.0));
            let sum = _mm256_add_epi64(low, high);
            let sum = _mm_add_epi64(
                _mm256_castsi256_si128(sum),
                _mm256_extracti128_si256::<1>(sum),
            );
            _mm_cvtsi128_si64(_mm_add_epi64(sum, _mm_unpackhi_epi64(sum, sum)))
        }
    }
}
