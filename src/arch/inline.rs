//! The short paths that [`crate::fill()`] and [`crate::copy()`] inline into
//! their callers, written once over what each architecture adds to them
//! ([`InlinePath`]): for the fill the widest vectors the build enables,
//! stored by the fill algorithm's [`fill_short`], for the copy the moves of
//! [`copy_short`], and stores (and loads) of the architecture's own that the
//! CPU found at run time allows.
//!
//! Each architecture's module has a type `Inline` that implements
//! [`InlinePath`]; `crate::fill()` names it through `arch::native`. Where
//! the architecture's own stores depend on the kernel table chosen for the
//! process (x86_64), the selection tells it its choice
//! ([`InlinePath::selected`]), and the inline path that finds no choice
//! made yet has it made through the [`Choose`] that `crate::fill()` passes
//! down: the kernels never name the dispatch, which sits above them.

#[cfg(any(feature = "std", all(target_arch = "x86_64", target_feature = "sse2")))]
use super::Kernels;
use super::generic::fill::fill_short;
use super::generic::vector::Vector;
use super::memcpy::copy_short;

/// The choice of the process's kernel table, made where it was not made
/// yet: implemented above the kernels, by the dispatch, and passed down to
/// the inline paths as a type parameter, so that the call is direct.
pub(crate) trait Choose {
    /// Chooses the kernel table, and with it what the inline paths may
    /// store ([`InlinePath::selected`]).
    // Called by x86_64's inline paths alone, so far, and not in a build
    // that enables AVX-512 at compile time, whose inline paths store with it.
    #[cfg_attr(
        not(all(
            target_arch = "x86_64",
            target_feature = "sse2",
            not(all(target_feature = "avx512f", target_feature = "avx512bw"))
        )),
        allow(dead_code)
    )]
    fn choose();
}

/// What an architecture adds to the short path that [`crate::fill()`]
/// inlines into its callers: the vector it stores, and stores of its own
/// that the CPU found at run time allows.
pub(crate) trait InlinePath {
    /// The widest vector of one repeated byte that the build enables.
    type Vector: Vector;

    /// Fills of up to this many bytes are inline: four of the inline
    /// path's vectors, but no more than 128 bytes (two AVX-512 vectors).
    ///
    /// Inlining the four AVX-512 vectors of 129-256 bytes too saved the
    /// call at those lengths, but cost the mixtures of lengths on either
    /// side of 256 bytes (random lengths of 0-1024 bytes;
    /// docs/experiments.md has the measurement). Past 128 bytes the
    /// stores, not the call, take most of the time.
    const MAX: usize = {
        let vectors = 4 * Self::Vector::BYTES;
        if vectors < 128 { vectors } else { 128 }
    };

    /// Fills the `len` bytes at `ptr` with `value` and returns `true`, if
    /// the architecture has a faster way for this length on this CPU;
    /// otherwise returns `false`, having stored nothing. Where the way
    /// depends on a choice not made yet, `C` makes it.
    ///
    /// # Safety
    ///
    /// `len` must be at most [`MAX`](Self::MAX) and `ptr` valid for writes
    /// of `len` bytes.
    #[inline(always)]
    unsafe fn try_fill_short<C: Choose>(_ptr: *mut u8, _len: usize, _value: u8) -> bool {
        false
    }

    /// As [`try_fill_short`](Self::try_fill_short), for a length beyond
    /// [`MAX`](Self::MAX), which otherwise goes to the active kernel.
    ///
    /// # Safety
    ///
    /// `len` must exceed [`MAX`](Self::MAX) and `ptr` be valid for writes
    /// of `len` bytes.
    #[inline(always)]
    unsafe fn try_fill_long<C: Choose>(_ptr: *mut u8, _len: usize, _value: u8) -> bool {
        false
    }

    /// Copies the `len` bytes at `src` to `dst` and returns `true`, if the
    /// architecture has a faster way than [`copy_short`] for this length on
    /// this CPU; otherwise returns `false`, having stored nothing. Where the
    /// way depends on a choice not made yet, `C` makes it.
    ///
    /// # Safety
    ///
    /// `len` must be at most 64, `src` valid for reads and `dst` for writes
    /// of `len` bytes, and the two must not overlap.
    #[inline(always)]
    unsafe fn try_copy_short<C: Choose>(_dst: *mut u8, _src: *const u8, _len: usize) -> bool {
        false
    }

    /// The hook of the selection: called with the table `kernels` once it
    /// is chosen for the process, so that the architecture can decide, and
    /// keep, which of its own stores the two functions above may use.
    /// Only where the choice is made at run time: elsewhere there is no
    /// selection to call it.
    #[cfg(any(feature = "std", all(target_arch = "x86_64", target_feature = "sse2")))]
    #[inline]
    fn selected(_kernels: &Kernels) {}
}

/// Fills the `len <= I::MAX` bytes at `ptr` with `value`, inline: with the
/// architecture's own stores where `I` has them for this length, otherwise
/// with the fill algorithm's short path on `I`'s vectors.
///
/// # Safety
///
/// `len` must be at most `I::MAX` and `ptr` valid for writes of `len`
/// bytes.
#[inline(always)]
pub(crate) unsafe fn fill_inline<I: InlinePath, C: Choose>(ptr: *mut u8, len: usize, value: u8) {
    // SAFETY: the caller's guarantees, passed on.
    if unsafe { I::try_fill_short::<C>(ptr, len, value) } {
        return;
    }
    // SAFETY: the build enables the inline vector's instruction set (the
    // architecture chose it by its `cfg`s), and the caller guarantees the
    // rest.
    unsafe { fill_short(I::Vector::splat(value), ptr, len) }
}

/// Copies the `len <= 64` bytes at `src` to `dst`, inline: with the
/// architecture's own moves where `I` has them for this length, otherwise
/// with the copy algorithm's short path ([`copy_short`]).
///
/// # Safety
///
/// `len` must be at most 64, `src` valid for reads and `dst` for writes of
/// `len` bytes, and the two must not overlap.
#[inline(always)]
pub(crate) unsafe fn copy_inline<I: InlinePath, C: Choose>(
    dst: *mut u8,
    src: *const u8,
    len: usize,
) {
    // SAFETY: the caller's guarantees, passed on.
    unsafe {
        if !I::try_copy_short::<C>(dst, src, len) {
            copy_short(dst, src, len);
        }
    }
}
