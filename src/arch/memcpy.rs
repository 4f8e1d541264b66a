//! The short path of the packet copy, which [`crate::copy()`] inlines into
//! its callers, and the rule by which long copies go to the C library: the
//! rest of the copy algorithm is written once over each tier's vector in
//! `arch/generic/copy.rs`.

#[cfg(feature = "std")]
use core::sync::atomic::{AtomicUsize, Ordering};

/// Copies the `len <= 64` bytes at `src` to `dst` without a loop or a call.
///
/// # Safety
///
/// `len` must be at most 64, `src` valid for reads and `dst` for writes of
/// `len` bytes, and the two must not overlap.
#[inline(always)]
pub(crate) unsafe fn copy_short(dst: *mut u8, src: *const u8, len: usize) {
    debug_assert!(len <= 64);
    /// Moves the `N` bytes at `offset`.
    ///
    /// # Safety
    ///
    /// `offset + N` must be at most `len`.
    #[inline(always)]
    unsafe fn move_at<const N: usize>(dst: *mut u8, src: *const u8, offset: usize) {
        // SAFETY: the caller guarantees that the `N` bytes at `offset` are
        // inside both buffers; neither access needs alignment.
        unsafe {
            let bytes = src.add(offset).cast::<[u8; N]>().read_unaligned();
            dst.add(offset).cast::<[u8; N]>().write_unaligned(bytes);
        }
    }
    // SAFETY: every move lies in `0..len`: for 17-64 bytes, 16 bytes at 0,
    // `d`, `len - 16 - d` and `len - 16`, with `d` 0 below 32 bytes and 16
    // from 32, which cover `0..16` or `0..32` and as many bytes that end at
    // `len`, so all of them; for 4-16, 4 bytes likewise with `d` 0 below 8,
    // 4 from 8 and 8 at 16; for 1-3, the first, middle and last bytes.
    unsafe {
        if len > 16 {
            let d = usize::from(len >= 32) * 16;
            move_at::<16>(dst, src, 0);
            move_at::<16>(dst, src, d);
            move_at::<16>(dst, src, len - 16 - d);
            move_at::<16>(dst, src, len - 16);
        } else if len >= 4 {
            let d = len / 8 * 4;
            move_at::<4>(dst, src, 0);
            move_at::<4>(dst, src, d);
            move_at::<4>(dst, src, len - 4 - d);
            move_at::<4>(dst, src, len - 4);
        } else if len > 0 {
            move_at::<1>(dst, src, 0);
            move_at::<1>(dst, src, len / 2);
            move_at::<1>(dst, src, len - 1);
        }
    }
}

/// The longest copy that `generic::copy::copy_beyond_short` with `HAND_OFF` keeps on
/// the own kernel: every length until the selection sets the rule of the
/// chosen tier and CPU ([`set_own_copy_to`]).
#[cfg(feature = "std")]
static OWN_COPY_TO: AtomicUsize = AtomicUsize::new(usize::MAX);

/// The longest copy that keeps the own kernel rather than go to the C
/// library's `memcpy`.
#[cfg(feature = "std")]
#[inline(always)]
pub(crate) fn own_copy_to() -> usize {
    OWN_COPY_TO.load(Ordering::Relaxed)
}

/// Sets [`own_copy_to`]: the selection's hook, with the rule of the tier
/// it chose (`arch::x86_64::handoff`).
#[cfg(feature = "std")]
pub(crate) fn set_own_copy_to(len: usize) {
    OWN_COPY_TO.store(len, Ordering::Relaxed);
}
