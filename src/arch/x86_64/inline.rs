//! What [`crate::fill()`] and [`crate::copy()`] inline into their callers
//! on x86_64.
//!
//! The inline path stores the widest vectors the build enables: AVX-512,
//! AVX2 or SSE2 (part of every x86_64 CPU). In a build without AVX-512, on a
//! CPU whose selected tier is AVX-512 and which has BMI2, 0-64 bytes still
//! take the masked AVX-512 store inline, and in a build without AVX2 either
//! (the default `x86_64` target) 65-128 bytes two plain AVX-512 stores, as
//! inline assembly behind one test of a flag, [`own_stores`], which the
//! selection sets through its hook ([`InlinePath::selected`]): no call at
//! all (see [`super::avx512::fill`] for why, and what it measured). On a
//! CPU whose selected tier is AVX2 (or AVX-512 without BMI2), that build
//! stores 65-128 bytes inline with four AVX2 stores the same way: on Zen 4
//! with AVX-512 masked off, 100 and 128-byte fills went from 0.73-0.83× the
//! speed of glibc's AVX2 `memset` (a call to the kernel) to 1.22-1.66×, and
//! random 0-256 byte fills from 0.88-0.94× to 0.96-1.01×.
//!
//! A build that enables AVX-512 stores the fills inline with the same
//! assembly, in `zmm16`, without the flag, broadcasting the value from a
//! general register on every call. With the value in a register the
//! compiler chooses (one of `zmm0`-`zmm15`), broadcast once before a
//! caller's loop, every call of the kernel past 128 bytes was preceded by a
//! `vzeroupper` and followed by a reload of the value; broadcast from an
//! `xmm` register the loop keeps, it was followed by a reload of that
//! register. In three interleaved runs of each (`fastpath bench fill`,
//! `-C target-cpu=native`, Zen 4), called as applications call, random
//! fills of up to 1024 bytes ran at 0.98-0.99× `slice::fill` from the
//! general register and 0.97× from the kept `xmm` register
//! (`fill_nontemporal` 0.97-0.98× and 0.96×), and random 0-64 byte fills at
//! 2.21-2.23× and 2.38-2.56×: the long mix is the one short of its target
//! of 0.97× (BENCHMARKS.md, Zen 4, "Built with `-C target-cpu=native`").
//!
//! In a build that enables AVX-512, the copy of 0-64 bytes is one masked
//! load and one masked store, both pointers checked to lie 64 bytes from
//! the end of their page at least, as the fill's store is. Not behind the
//! flag in other builds: on Zen 4 the masked moves ran fixed lengths
//! 0.97-1.17× as fast as the overlapping ones with the AVX-512 tier, but
//! the flag's tests slowed the copies of the AVX2 tier (AVX-512 masked
//! off) from 1.11-2.16× `copy_from_slice` to 0.83-1.50×. The fill keeps
//! the flag: its tests cost the AVX2 tier's short fills as much, but
//! without them the AVX-512 tier fills random lengths of 0-64 bytes with
//! branches where the masked store has none, at half the speed
//! (BENCHMARKS.md, Zen 4, "Short copies and fills inline").

use core::sync::atomic::{AtomicU8, Ordering};

use crate::arch::Kernels;
#[cfg(not(all(target_feature = "avx512f", target_feature = "avx512bw")))]
use crate::arch::inline::Choose;
use crate::arch::inline::InlinePath;

/// The value of [`own_stores`] before the selection's first choice.
pub(crate) const UNSELECTED: u8 = 0;

/// The value of [`own_stores`] when the inline paths may use AVX-512
/// stores with the chosen table.
pub(crate) const ON: u8 = 1;

/// The value of [`own_stores`] when they may not.
pub(crate) const OFF: u8 = 2;

/// The value of [`own_stores`] when the inline paths may use AVX2 stores,
/// and not AVX-512 ones.
pub(crate) const AVX2: u8 = 3;

/// [`ON`], [`OFF`] or [`AVX2`], set by the selection's hook
/// ([`InlinePath::selected`]) with its choice; [`UNSELECTED`] before.
static OWN_STORES: AtomicU8 = AtomicU8::new(UNSELECTED);

/// Which of their own stores the inline paths may use: [`ON`], [`OFF`],
/// [`AVX2`], or [`UNSELECTED`] before the first choice. One load, so that
/// the inline paths test it with one load and one comparison.
#[inline(always)]
// Not read in a build that enables AVX-512 at compile time, whose inline
// paths store with it.
#[cfg_attr(
    all(target_feature = "avx512f", target_feature = "avx512bw"),
    allow(dead_code)
)]
pub(crate) fn own_stores() -> u8 {
    OWN_STORES.load(Ordering::Relaxed)
}

/// The x86_64 inline path.
pub(crate) struct Inline;

impl InlinePath for Inline {
    #[cfg(all(target_feature = "avx512f", target_feature = "avx512bw"))]
    type Vector = super::avx512::vector::Avx512Vector;
    #[cfg(all(
        target_feature = "avx2",
        not(all(target_feature = "avx512f", target_feature = "avx512bw"))
    ))]
    type Vector = super::avx2::vector::Avx2Vector;
    #[cfg(not(target_feature = "avx2"))]
    type Vector = super::sse2::vector::Sse2Vector;

    #[cfg(not(all(target_feature = "avx512f", target_feature = "avx512bw")))]
    #[inline(always)]
    unsafe fn try_fill_short<C: Choose>(ptr: *mut u8, len: usize, value: u8) -> bool {
        // SAFETY: the caller's guarantees, passed on.
        unsafe { masked::try_fill::<C>(ptr, len, value) }
    }

    #[cfg(all(target_feature = "avx512f", target_feature = "avx512bw"))]
    #[inline(always)]
    unsafe fn try_fill_short<C: crate::arch::inline::Choose>(
        ptr: *mut u8,
        len: usize,
        value: u8,
    ) -> bool {
        use super::avx512::fill::{fill_masked_compiled, fill_vectors_asm, in_one_page};
        use super::sse2::vector::Sse2Vector;
        use crate::arch::generic::vector::Vector;
        // SAFETY: the build enables AVX-512F and AVX-512BW (and so SSE2);
        // the caller guarantees `len <= 128` writable bytes at `ptr`, and
        // the masked store's page is checked first.
        unsafe {
            if len > 64 {
                fill_vectors_asm(ptr, len, crate::arch::generic::fill::splat_word(value));
            } else if in_one_page(ptr) {
                fill_masked_compiled(ptr, len, value);
            } else {
                // 16-byte stores, which leave the upper halves clean.
                crate::arch::generic::fill::fill_short(Sse2Vector::splat(value), ptr, len);
            }
        }
        true
    }

    #[cfg(not(all(target_feature = "avx512f", target_feature = "avx512bw")))]
    #[inline(always)]
    unsafe fn try_fill_long<C: Choose>(ptr: *mut u8, len: usize, value: u8) -> bool {
        // SAFETY: the caller guarantees `len` writable bytes at `ptr`, and
        // `len` beyond the inline bound, so at least 65.
        len <= 128 && unsafe { masked::try_fill_vectors::<C>(ptr, len, value) }
    }

    #[cfg(all(target_feature = "avx512f", target_feature = "avx512bw"))]
    #[inline(always)]
    unsafe fn try_copy_short<C: crate::arch::inline::Choose>(
        dst: *mut u8,
        src: *const u8,
        len: usize,
    ) -> bool {
        use super::avx512::fill::in_one_page;
        if !(in_one_page(src) && in_one_page(dst)) {
            return false;
        }
        // SAFETY: the build enables AVX-512F and AVX-512BW; the caller
        // guarantees `len <= 64` bytes readable at `src` and writable at
        // `dst`; the masks select exactly those bytes, and the masked-off
        // ones lie in the same pages (just checked), so neither access
        // touches another page.
        unsafe { copy_masked(dst, src, len) };
        true
    }

    /// Keeps which stores the inline paths may use with `kernels`.
    fn selected(kernels: &Kernels) {
        OWN_STORES.store(own_stores_with(kernels), Ordering::Relaxed);
    }
}

/// Which stores the inline paths may use with `kernels` chosen: the AVX-512
/// stores need the AVX-512 tier selected (so the CPU has AVX-512F and
/// AVX-512BW, and `FASTPATH_TIER` allows them) and BMI2, for `bzhi`; the
/// AVX2 stores the AVX2 tier or the AVX-512 one (whose CPUs have AVX2).
fn own_stores_with(kernels: &Kernels) -> u8 {
    use super::detect::{self, BMI2};
    match kernels.tier() {
        crate::Tier::Avx512 if detect::has(BMI2) => ON,
        crate::Tier::Avx512 | crate::Tier::Avx2 if detect::has(detect::AVX2) => AVX2,
        _ => OFF,
    }
}

/// The AVX-512 stores for 0-128 bytes, inline, where the build does not
/// enable AVX-512 but the CPU has it: behind the flag that the selection
/// sets with its choice ([`own_stores`]).
#[cfg(not(all(target_feature = "avx512f", target_feature = "avx512bw")))]
mod masked {
    use super::{AVX2, Choose, ON, UNSELECTED, own_stores};
    use crate::arch::generic::fill::splat_word;
    use crate::arch::x86_64::avx512::fill::{fill_masked_asm, fill_vectors_asm, in_one_page};

    /// Has `C` make the choice not made yet. Cold, so that the branches of
    /// the inline paths that lead here are weighed as rarely taken, and the
    /// stores stay on the fall-through path: the compiler weighs a branch
    /// by the function it calls, and a trait's method, `C::choose`, does
    /// not say whether it is cold. Inlined all the same, so that what
    /// remains is `C`'s own cold call.
    #[cold]
    #[inline(always)]
    fn choose<C: Choose>() {
        C::choose();
    }

    /// Fills the `65..=128` bytes at `ptr` with `value` with four
    /// overlapping 32-byte AVX2 stores in address order, at 0, 32,
    /// `len - 64` and `len - 32`, as the AVX2 kernel does, but inline: no
    /// call. At 128 bytes from +1 past a line boundary, the stores in the
    /// order 0, 64, 32, 96 ran fills called as applications call them at
    /// 0.80-0.95× `slice::fill`, in address order at 1.22-1.34× (AMD Zen 3;
    /// BENCHMARKS.md, Zen 3, "Short fills: the stores in address order").
    ///
    /// A build without AVX enabled keeps no values in the upper halves of
    /// the vector registers, and the caller's own AVX code, if any, sees the
    /// assembly clobber every vector register (`clobber_abi("C")`, as a
    /// call would), so the `vzeroupper` at the end, which keeps later SSE
    /// code from paying for dirty upper halves (on Intel), loses nothing.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2; `len` must be in `65..=128` and `ptr`
    /// valid for writes of `len` bytes.
    #[inline(always)]
    unsafe fn fill_vectors_avx2_asm(ptr: *mut u8, len: usize, value: u8) {
        debug_assert!((65..=128).contains(&len));
        // SAFETY: `vmovq`, `vpbroadcastq` and `vmovdqu` of a `ymm` register
        // (AVX2, AVX) exist on this CPU, as the caller
        // guarantees. With `64 < len <= 128`, the stores at 0 and 32 cover
        // `0..64`, those at `len - 64 >= 1` and `len - 32` cover
        // `len - 64..len`, so together `0..len`, and all stay inside it.
        unsafe {
            core::arch::asm!(
                "vmovq xmm0, {word}",
                "vpbroadcastq ymm0, xmm0",
                "vmovdqu ymmword ptr [{ptr}], ymm0",
                "vmovdqu ymmword ptr [{ptr} + 32], ymm0",
                "vmovdqu ymmword ptr [{end} - 64], ymm0",
                "vmovdqu ymmword ptr [{end} - 32], ymm0",
                "vzeroupper",
                ptr = in(reg) ptr,
                end = in(reg) ptr.wrapping_add(len),
                word = in(reg) splat_word(value),
                clobber_abi("C"),
                options(nostack, preserves_flags)
            );
        }
    }

    /// Fills the `len` bytes at `ptr` with `value` and returns `true` if the
    /// masked store can do it: `len` at most 64, the flag on, and the 64
    /// bytes from `ptr` in one page. Otherwise, returns `false`, having
    /// stored nothing, and if no choice was made yet, has `C` make it.
    ///
    /// # Safety
    ///
    /// `ptr` must be valid for writes of `len` bytes.
    #[inline(always)]
    pub(super) unsafe fn try_fill<C: Choose>(ptr: *mut u8, len: usize, value: u8) -> bool {
        if len > 64 {
            return false;
        }
        let state = own_stores();
        if state == ON && in_one_page(ptr) {
            // SAFETY: `ON` means the CPU has AVX-512F, AVX-512BW and BMI2
            // (`own_stores_with`); the length and page were just checked,
            // the caller guarantees that the bytes are writable.
            unsafe { fill_masked_asm(ptr, len, splat_word(value)) };
            return true;
        }
        if state == UNSELECTED {
            choose::<C>();
        }
        false
    }

    /// Fills the `len` bytes at `ptr` with `value` and returns `true` if the
    /// flag allows AVX-512 stores (two of 64 bytes) or AVX2 ones (four of
    /// 32); otherwise returns `false`, having stored nothing, and if no
    /// choice was made yet, has `C` make it.
    ///
    /// # Safety
    ///
    /// `len` must be in `65..=128`, and `ptr` valid for writes of `len`
    /// bytes.
    #[inline(always)]
    pub(super) unsafe fn try_fill_vectors<C: Choose>(ptr: *mut u8, len: usize, value: u8) -> bool {
        match own_stores() {
            ON => {
                // SAFETY: `ON` means the CPU has AVX-512F and AVX-512BW; the
                // caller guarantees the length and the bytes.
                unsafe { fill_vectors_asm(ptr, len, splat_word(value)) };
                true
            }
            AVX2 => {
                // SAFETY: `AVX2` means the CPU has AVX2; the caller
                // guarantees the length and the bytes.
                unsafe { fill_vectors_avx2_asm(ptr, len, value) };
                true
            }
            UNSELECTED => {
                choose::<C>();
                false
            }
            _ => false,
        }
    }
}

/// Copies the `len <= 64` bytes at `src` to `dst` with one masked 64-byte
/// load and one masked store, in a build that enables AVX-512: no branch on
/// the length.
///
/// # Safety
///
/// `len` must be at most 64, `src` valid for reads and `dst` for writes of
/// `len` bytes, and the 64 bytes from each in one page.
#[cfg(all(target_feature = "avx512f", target_feature = "avx512bw"))]
#[inline(always)]
unsafe fn copy_masked(dst: *mut u8, src: *const u8, len: usize) {
    use core::arch::x86_64::{_mm512_mask_storeu_epi8, _mm512_maskz_loadu_epi8};
    debug_assert!(len <= 64);
    // The low `len` bits: `bzhi` where BMI2 is enabled.
    let mask = u64::MAX.checked_shr(64 - len as u32).unwrap_or(0);
    // SAFETY: the build enables AVX-512F and AVX-512BW. The mask selects
    // exactly the `len` bytes at each pointer, which the caller guarantees;
    // masked-off bytes are neither read nor written, and lie in the same
    // page as the others.
    unsafe {
        let v = _mm512_maskz_loadu_epi8(mask, src.cast());
        _mm512_mask_storeu_epi8(dst.cast(), mask, v);
    }
}
