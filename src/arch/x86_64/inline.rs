//! What [`crate::fill()`] inlines into its callers on x86_64.
//!
//! The inline path stores the widest vectors the build enables: AVX-512,
//! AVX2 or SSE2 (part of every x86_64 CPU). In a build without AVX-512, on a
//! CPU whose selected tier is AVX-512 and which has BMI2, 0-64 bytes still
//! take the masked AVX-512 store inline, and in a build without AVX2 either
//! (the default `x86_64` target) 65-128 bytes two plain AVX-512 stores, as
//! inline assembly behind one test of the selection's cached state: no call
//! at all (see [`super::avx512::fill`] for why, and what it measured).

use crate::arch::fill::InlinePath;

/// The x86_64 inline path.
pub(crate) struct Inline;

impl InlinePath for Inline {
    #[cfg(all(target_feature = "avx512f", target_feature = "avx512bw"))]
    type Vector = super::avx512::fill::Avx512Splat;
    #[cfg(all(
        target_feature = "avx2",
        not(all(target_feature = "avx512f", target_feature = "avx512bw"))
    ))]
    type Vector = super::avx2::fill::Avx2Splat;
    #[cfg(not(target_feature = "avx2"))]
    type Vector = super::sse2::fill::Sse2Splat;

    #[cfg(all(
        feature = "std",
        not(all(target_feature = "avx512f", target_feature = "avx512bw"))
    ))]
    #[inline(always)]
    unsafe fn try_fill_short(ptr: *mut u8, len: usize, value: u8) -> bool {
        // SAFETY: the caller's guarantees, passed on.
        unsafe { masked::try_fill(ptr, len, value) }
    }

    #[cfg(all(
        feature = "std",
        not(all(target_feature = "avx512f", target_feature = "avx512bw"))
    ))]
    #[inline(always)]
    unsafe fn try_fill_long(ptr: *mut u8, len: usize, value: u8) -> bool {
        // SAFETY: the caller guarantees `len` writable bytes at `ptr`, and
        // `len` beyond the inline bound, so at least 65.
        len <= 128 && unsafe { masked::try_fill_vectors(ptr, len, value) }
    }

    /// The AVX-512 stores need the AVX-512 tier selected (so the CPU has
    /// AVX-512F and AVX-512BW, and `FASTPATH_TIER` allows them) and BMI2,
    /// for `bzhi`.
    #[cfg(feature = "std")]
    fn allows_own_stores(kernels: &crate::arch::Kernels) -> bool {
        kernels.tier() == crate::Tier::Avx512 && std::is_x86_feature_detected!("bmi2")
    }
}

/// The AVX-512 stores for 0-128 bytes, inline, where the build does not
/// enable AVX-512 but the CPU has it: behind the flag that the selection
/// caches with its choice.
#[cfg(all(
    feature = "std",
    not(all(target_feature = "avx512f", target_feature = "avx512bw"))
))]
mod masked {
    use crate::arch::x86_64::avx512::fill::{fill_masked_asm, fill_vectors_asm, in_one_page};
    use crate::tier::selection;

    /// Fills the `len` bytes at `ptr` with `value` and returns `true` if the
    /// masked store can do it: `len` at most 64, the flag on, and the 64
    /// bytes from `ptr` in one page. Otherwise, returns `false`, having
    /// stored nothing.
    ///
    /// # Safety
    ///
    /// `ptr` must be valid for writes of `len` bytes.
    #[inline(always)]
    pub(super) unsafe fn try_fill(ptr: *mut u8, len: usize, value: u8) -> bool {
        if len > 64 {
            return false;
        }
        let state = selection::own_stores();
        if state == selection::ON && in_one_page(ptr) {
            // SAFETY: `ON` means the CPU has AVX-512F, AVX-512BW and BMI2
            // (`allows_own_stores`); the length and page were just checked,
            // the caller guarantees that the bytes are writable.
            unsafe { fill_masked_asm(ptr, len, value) };
            return true;
        }
        if state == selection::UNSELECTED {
            selection::choose();
        }
        false
    }

    /// Fills the `len` bytes at `ptr` with `value` and returns `true` if the
    /// flag is on, with two 64-byte stores; otherwise returns `false`,
    /// having stored nothing.
    ///
    /// # Safety
    ///
    /// `len` must be in `65..=128`, and `ptr` valid for writes of `len`
    /// bytes.
    #[inline(always)]
    pub(super) unsafe fn try_fill_vectors(ptr: *mut u8, len: usize, value: u8) -> bool {
        match selection::own_stores() {
            selection::ON => {
                // SAFETY: `ON` means the CPU has AVX-512F and AVX-512BW; the
                // caller guarantees the length and the bytes.
                unsafe { fill_vectors_asm(ptr, len, value) };
                true
            }
            selection::UNSELECTED => {
                selection::choose();
                false
            }
            _ => false,
        }
    }
}
