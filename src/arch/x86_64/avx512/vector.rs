//! The AVX-512 register, a 512-bit `__m512i`: its loads and stores, the
//! masked store of the fill's short path (`fill.rs`), and the choice of
//! vector of the long copy.

use core::arch::x86_64::*;

use super::fill::{fill_across_page, in_one_page, low_mask};
use crate::arch::generic::copy::copy_lines;
use crate::arch::generic::vector::Vector;
use crate::arch::x86_64::avx2::vector::Avx2Vector;

/// A 512-bit AVX-512 register.
#[derive(Clone, Copy)]
pub(crate) struct Avx512Vector(__m512i);

impl Vector for Avx512Vector {
    const BYTES: usize = 64;
    const IN_ORDER: bool = true;
    const BACKWARD_NEAR: bool = true;
    const REP_STOSB: bool = true;
    // Four stores for every length of 65-256 bytes, with no branch, were
    // 1.5× faster than glibc on random lengths up to 256 but 0.75-0.90× at
    // fixed 100, 128 and 256 bytes, where two or four behind a branch are
    // 1.5×, 1.8× and 1.0×: a fixed length is the common case.
    const BRANCH_FREE_SHORT: bool = false;

    #[inline(always)]
    unsafe fn splat(value: u8) -> Self {
        // SAFETY: the caller guarantees AVX-512F.
        Self(unsafe { _mm512_set1_epi8(value as i8) })
    }

    #[inline(always)]
    unsafe fn load_unaligned(ptr: *const u8) -> Self {
        // SAFETY: the caller guarantees AVX-512F and 64 readable bytes.
        Self(unsafe { _mm512_loadu_si512(ptr.cast()) })
    }

    #[inline(always)]
    unsafe fn store_unaligned(self, ptr: *mut u8) {
        // SAFETY: the caller guarantees AVX-512F and 64 writable bytes.
        unsafe { _mm512_storeu_si512(ptr.cast(), self.0) }
    }

    #[inline(always)]
    unsafe fn store_aligned(self, ptr: *mut u8) {
        // SAFETY: the caller guarantees AVX-512F and 64 writable bytes,
        // aligned.
        unsafe { _mm512_store_si512(ptr.cast(), self.0) }
    }

    #[inline(always)]
    unsafe fn store_nontemporal(self, ptr: *mut u8) {
        // SAFETY: the caller guarantees AVX-512F and 64 writable bytes,
        // aligned, and fences before the bytes are accessed again.
        unsafe { _mm512_stream_si512(ptr.cast(), self.0) }
    }

    #[inline(always)]
    unsafe fn fence_nontemporal() {
        // SAFETY: the caller guarantees AVX-512F, and so SSE's `sfence`.
        unsafe { _mm_sfence() }
    }

    #[inline(always)]
    unsafe fn store16(self, ptr: *mut u8) {
        // SAFETY: the caller guarantees AVX-512F and 16 writable bytes.
        unsafe { _mm_storeu_si128(ptr.cast(), _mm512_castsi512_si128(self.0)) }
    }

    #[inline(always)]
    unsafe fn low_word(self) -> u64 {
        // SAFETY: the caller guarantees AVX-512F.
        unsafe { _mm_cvtsi128_si64(_mm512_castsi512_si128(self.0)) as u64 }
    }

    /// One store under a byte mask (see `fill.rs`).
    #[inline(always)]
    unsafe fn try_fill_upto_64(self, ptr: *mut u8, len: usize) -> bool {
        // SAFETY: the caller guarantees AVX-512F and BW and `len <= 64`
        // writable bytes at `ptr`. The mask selects exactly those bytes; the
        // masked-off ones are in the same page as `ptr` (the first branch)
        // or handled by `fill_across_page`.
        unsafe {
            if in_one_page(ptr) {
                _mm512_mask_storeu_epi8(ptr.cast(), low_mask(len), self.0);
            } else {
                // The byte, not the vector: a vector argument would be
                // passed through a 64-byte aligned stack slot, and every
                // function that inlines this path would realign its stack.
                fill_across_page(self.low_word() as u8, ptr, len);
            }
        }
        true
    }

    /// 64-byte vectors, except on AMD CPUs before Zen 5 where the source is
    /// not aligned to the line where the destination is, so that every
    /// 64-byte load would split a line: there the loop moves 32-byte
    /// vectors, as the AVX2 kernel does. On Zen 4, with the source at +1
    /// and the destination aligned, the 64-byte loop ran 9000-byte copies
    /// at 0.93-0.97× glibc's `memcpy` (it is then at 98-99% of its bound:
    /// the loop itself is slower) where the AVX2 kernel ran at 1.15-1.16×;
    /// loading each 64-byte vector as two halves was no cure
    /// (docs/experiments.md). Zen 5, whose loads are 64 bytes wide, keeps
    /// the 64-byte loop: with the source or the destination off the line
    /// it ran 9000-16384-byte copies at 1.26-1.67× `memcpy` where the
    /// 32-byte one ran at 1.07-1.30×, and 1500-byte ones at 0.80-0.87×
    /// rather than 0.75-0.85× (4096 bytes: 1.16-1.35× rather than
    /// 1.23-1.37×; BENCHMARKS.md, AMD EPYC Zen 5, "Copies on Zen 5").
    /// Intel CPUs keep the 64-byte loop: there, until Ice Lake, a 32-byte
    /// store takes a whole store slot, and this was not measured on one.
    ///
    /// With `std`, the CPUs that keep the 64-byte loop at every placement
    /// run [`copy_or_hand_off_own_loop`], which reads no vendor
    /// (`OWN_LOOP`): on Zen 5 that load before the loop slowed 1500-2048
    /// byte copies off the line by 1-2 TSC cycles of about 20.
    #[inline(always)]
    unsafe fn try_copy_long<const OWN_LOOP: bool>(
        dst: *mut u8,
        src: *const u8,
        len: usize,
    ) -> bool {
        let splits_lines = !(src as usize).wrapping_sub(dst as usize).is_multiple_of(64);
        // SAFETY: the caller's guarantees; AVX-512F implies AVX2, and
        // `len > 8 * 64` is more than eight 32-byte vectors.
        unsafe {
            if !OWN_LOOP && splits_lines && crate::arch::x86_64::is_amd_before_zen_5() {
                copy_lines::<Avx2Vector>(dst, src, len);
            } else {
                copy_lines::<Self>(dst, src, len);
            }
        }
        true
    }
}

crate::arch::line_aligned!(
    ".text.fastpath.avx512.copy_or_hand_off_own_loop",
    /// The AVX-512 table's `copy_or_hand_off` with the 64-byte loop at every
    /// placement, which tests no vendor: the kernel of [`crate::copy()`],
    /// with `std`, on the CPUs that keep that loop (all but AMD's before
    /// Zen 5; `arch::memcpy::route`).
    ///
    /// # Safety
    ///
    /// The CPU must support AVX-512F and AVX-512BW, `len` must be more than
    /// 64, `src` valid for reads and `dst` for writes of `len` bytes, and the
    /// two must not overlap.
    ///
    /// Copies of 65-128 bytes take one 64-byte move and two 32-byte ones
    /// rather than two 64-byte ones ([`copy_65_to_128`]).
    #[cfg(feature = "std")]
    #[target_feature(enable = "avx512f,avx512bw")]
    pub(crate) unsafe fn copy_or_hand_off_own_loop(dst: *mut u8, src: *const u8, len: usize) {
        // SAFETY: the caller's guarantees, and `64 < len <= 128` for the
        // first.
        unsafe {
            if len <= 128 {
                copy_65_to_128(dst, src, len);
            } else {
                crate::arch::generic::copy::copy_beyond_short::<Avx512Vector, true, true>(
                    dst, src, len,
                );
            }
        }
    }
);

/// Copies the `65..=128` bytes at `src` to `dst` with one 64-byte move
/// for the first 64 bytes and two 32-byte moves for the last 64, all
/// loaded then all stored, as inline assembly (the compiler merges two
/// 32-byte loads of a function that enables AVX-512 into one 64-byte
/// load).
///
/// Called as applications call, on an AMD EPYC Zen 5, two 64-byte moves
/// (the sequence of glibc's AVX-512 `memcpy`) ran 100-byte copies at
/// 0.85-0.93× `copy_from_slice` and 128-byte ones from a source at +1 or
/// +14 at 0.84-0.92×; with the last 64 bytes in two 32-byte moves, at
/// 1.11-1.50× and 1.29-1.39×, and four 32-byte moves at 1.11-1.57× and
/// 1.36-1.47×, but with the latter the unchanged 256-byte path further on
/// in the kernel ran at 0.94-0.98× from +1 or +14, with the former at
/// 1.01-1.03× (BENCHMARKS.md, AMD EPYC Zen 5, "Copies of 65-128 bytes: the
/// last 64 in 32-byte halves"). On Intel's AVX-512 CPUs glibc's own `memcpy` (its
/// EVEX variant, which glibc prefers there) moves these lengths in 32-byte
/// vectors.
///
/// # Safety
///
/// The CPU must support AVX-512F, `len` must be in `65..=128`, `src` valid
/// for reads and `dst` for writes of `len` bytes, and the two must not
/// overlap.
#[cfg(feature = "std")]
#[inline(always)]
unsafe fn copy_65_to_128(dst: *mut u8, src: *const u8, len: usize) {
    debug_assert!((65..=128).contains(&len));
    // SAFETY: `vmovdqu64` of a `zmm` register (AVX-512F) and `vmovdqu` of
    // a `ymm` one (AVX) exist on this CPU, as the caller guarantees. The
    // moves cover `0..64` and `len - 64..len`, with `64 < len <= 128`, so
    // all of `0..len`, and stay inside both buffers; all three loads come
    // before the first store, and the buffers do not overlap. Only the
    // declared registers change; `vzeroupper` leaves their upper halves
    // clean for the SSE code around.
    unsafe {
        core::arch::asm!(
            "vmovdqu64 zmm0, zmmword ptr [{src}]",
            "vmovdqu ymm1, ymmword ptr [{src} + {len} - 64]",
            "vmovdqu ymm2, ymmword ptr [{src} + {len} - 32]",
            "vmovdqu64 zmmword ptr [{dst}], zmm0",
            "vmovdqu ymmword ptr [{dst} + {len} - 64], ymm1",
            "vmovdqu ymmword ptr [{dst} + {len} - 32], ymm2",
            "vzeroupper",
            src = in(reg) src,
            dst = in(reg) dst,
            len = in(reg) len,
            out("zmm0") _,
            out("ymm1") _,
            out("ymm2") _,
            options(nostack, preserves_flags)
        );
    }
}
