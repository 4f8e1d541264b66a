//! The vector operations that the SSE2 and AVX2 kernels share, and the
//! kernels written once over them.

use core::arch::x86_64::*;

use crate::arch::scalar;

/// A vector register of `u32` lanes.
///
/// Implementations are `#[inline(always)]` and carry no `#[target_feature]`:
/// they are inlined into the per-tier entry points, which enable the feature.
pub(crate) trait Vector: Copy {
    /// The width of the vector in bytes.
    const BYTES: usize;

    /// All lanes zero.
    ///
    /// # Safety
    ///
    /// The CPU must support the vector's instruction set.
    unsafe fn zero() -> Self;

    /// Loads `Self::BYTES` bytes from `ptr`, which need not be aligned.
    ///
    /// # Safety
    ///
    /// The CPU must support the vector's instruction set, and `ptr` must be
    /// valid for reads of `Self::BYTES` bytes.
    unsafe fn load_unaligned(ptr: *const u8) -> Self;

    /// Adds both 16-bit halves of every 32-bit lane of `data` to the lane of
    /// `self`: a lane gains at most 2 * 0xffff.
    ///
    /// # Safety
    ///
    /// The CPU must support the vector's instruction set.
    unsafe fn add_halves(self, data: Self) -> Self;

    /// Adds the lanes of `other` (lane-wise, wrapping).
    ///
    /// # Safety
    ///
    /// The CPU must support the vector's instruction set.
    unsafe fn add(self, other: Self) -> Self;

    /// The sum of all 32-bit lanes.
    ///
    /// # Safety
    ///
    /// The CPU must support the vector's instruction set.
    unsafe fn reduce(self) -> u64;
}

/// A 128-bit SSE2 register.
#[derive(Clone, Copy)]
pub(crate) struct Sse2Vector(__m128i);

impl Vector for Sse2Vector {
    const BYTES: usize = 16;

    #[inline(always)]
    unsafe fn zero() -> Self {
        // SAFETY: the caller guarantees SSE2.
        Self(unsafe { _mm_setzero_si128() })
    }

    #[inline(always)]
    unsafe fn load_unaligned(ptr: *const u8) -> Self {
        // SAFETY: the caller guarantees SSE2 and 16 readable bytes.
        Self(unsafe { _mm_loadu_si128(ptr.cast()) })
    }

    #[inline(always)]
    unsafe fn add_halves(self, data: Self) -> Self {
        // SAFETY: the caller guarantees SSE2.
        unsafe {
            let low = _mm_and_si128(data.0, _mm_set1_epi32(0xffff));
            let high = _mm_srli_epi32::<16>(data.0);
            Self(_mm_add_epi32(self.0, _mm_add_epi32(low, high)))
        }
    }

    #[inline(always)]
    unsafe fn add(self, other: Self) -> Self {
        // SAFETY: the caller guarantees SSE2.
        Self(unsafe { _mm_add_epi32(self.0, other.0) })
    }

    #[inline(always)]
    unsafe fn reduce(self) -> u64 {
        // SAFETY: the caller guarantees SSE2.
        unsafe {
            // Widen to 64-bit lanes: even lanes by masking, odd by shifting.
            let even = _mm_and_si128(self.0, _mm_set1_epi64x(0xffff_ffff));
            let odd = _mm_srli_epi64::<32>(self.0);
            let sum = _mm_add_epi64(even, odd);
            let high = _mm_unpackhi_epi64(sum, sum);
            _mm_cvtsi128_si64(_mm_add_epi64(sum, high)) as u64
        }
    }
}

/// A 256-bit AVX2 register.
#[derive(Clone, Copy)]
pub(crate) struct Avx2Vector(__m256i);

impl Vector for Avx2Vector {
    const BYTES: usize = 32;

    #[inline(always)]
    unsafe fn zero() -> Self {
        // SAFETY: the caller guarantees AVX2.
        Self(unsafe { _mm256_setzero_si256() })
    }

    #[inline(always)]
    unsafe fn load_unaligned(ptr: *const u8) -> Self {
        // SAFETY: the caller guarantees AVX2 and 32 readable bytes.
        Self(unsafe { _mm256_loadu_si256(ptr.cast()) })
    }

    #[inline(always)]
    unsafe fn add_halves(self, data: Self) -> Self {
        // SAFETY: the caller guarantees AVX2.
        unsafe {
            let low = _mm256_and_si256(data.0, _mm256_set1_epi32(0xffff));
            let high = _mm256_srli_epi32::<16>(data.0);
            Self(_mm256_add_epi32(self.0, _mm256_add_epi32(low, high)))
        }
    }

    #[inline(always)]
    unsafe fn add(self, other: Self) -> Self {
        // SAFETY: the caller guarantees AVX2.
        Self(unsafe { _mm256_add_epi32(self.0, other.0) })
    }

    #[inline(always)]
    unsafe fn reduce(self) -> u64 {
        // SAFETY: the caller guarantees AVX2.
        unsafe {
            let even = _mm256_and_si256(self.0, _mm256_set1_epi64x(0xffff_ffff));
            let odd = _mm256_srli_epi64::<32>(self.0);
            let sum = _mm256_add_epi64(even, odd);
            let sum = _mm_add_epi64(
                _mm256_castsi256_si128(sum),
                _mm256_extracti128_si256::<1>(sum),
            );
            let high = _mm_unpackhi_epi64(sum, sum);
            _mm_cvtsi128_si64(_mm_add_epi64(sum, high)) as u64
        }
    }
}

/// Unrolled loop steps between two reductions of the accumulators. Each of
/// the four accumulators gains at most 2 * 0xffff per step, so after 4096
/// steps (plus up to three single vectors) a lane holds less than 2^29.1 and
/// the four add up to less than 2^32.
const STEPS_PER_REDUCTION: usize = 4096;

/// The native-endian sum of `data`, not folded.
///
/// # Algorithm
///
/// The same as the portable kernel's, spelled out in vector registers: each
/// 32-bit lane adds the two 16-bit words it holds (an AND, a shift and two
/// adds per vector). Four independent accumulators hide the latency of the
/// adds; up to three remaining whole vectors go into the first; the last
/// `0..BYTES` bytes go through the scalar tail, which reads exactly the bytes
/// that are left. Every vector load lies inside `data`.
///
/// # Safety
///
/// The CPU must support `V`'s instruction set.
#[inline(always)]
pub(crate) unsafe fn sum_native<V: Vector>(data: &[u8]) -> u64 {
    let step = 4 * V::BYTES;
    let mut rest = data;
    let mut total = 0u64;
    // SAFETY: the caller guarantees the instruction set; every load reads
    // `V::BYTES` bytes inside `rest`.
    unsafe {
        while rest.len() >= step {
            let steps = (rest.len() / step).min(STEPS_PER_REDUCTION);
            let (mut a0, mut a1, mut a2, mut a3) = (V::zero(), V::zero(), V::zero(), V::zero());
            let mut ptr = rest.as_ptr();
            for _ in 0..steps {
                a0 = a0.add_halves(V::load_unaligned(ptr));
                a1 = a1.add_halves(V::load_unaligned(ptr.add(V::BYTES)));
                a2 = a2.add_halves(V::load_unaligned(ptr.add(2 * V::BYTES)));
                a3 = a3.add_halves(V::load_unaligned(ptr.add(3 * V::BYTES)));
                ptr = ptr.add(step);
            }
            rest = &rest[steps * step..];
            if rest.len() < step {
                // The last block: its leftover whole vectors join `a0`.
                while rest.len() >= V::BYTES {
                    a0 = a0.add_halves(V::load_unaligned(rest.as_ptr()));
                    rest = &rest[V::BYTES..];
                }
            }
            total = scalar::add_carry(total, a0.add(a1).add(a2.add(a3)).reduce());
        }
        if rest.len() >= V::BYTES {
            let mut acc = V::zero();
            while rest.len() >= V::BYTES {
                acc = acc.add_halves(V::load_unaligned(rest.as_ptr()));
                rest = &rest[V::BYTES..];
            }
            total = scalar::add_carry(total, acc.reduce());
        }
    }
    // `rest` starts an even number of bytes into `data`.
    scalar::add_carry(total, scalar::sum_native(rest))
}
