//! Slices' lengths and views, for the public functions and the kernels
//! alike: the length check of the copies (with its error, [`LengthMismatch`])
//! and the views between initialized and possibly uninitialized bytes. A
//! leaf: it imports nothing of the crate.

use core::fmt;
use core::mem::MaybeUninit;

/// The error of [`try_copy_checksum`](crate::try_copy_checksum): the two slices differ in length.
///
/// ```
/// let mut dst = [0u8; 4];
/// let err = fastpath::try_copy_checksum(&mut dst, b"too long").unwrap_err();
/// assert_eq!((err.dst_len(), err.src_len()), (4, 8));
/// assert_eq!(
///     err.to_string(),
///     "source slice length (8) does not match destination slice length (4)"
/// );
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LengthMismatch {
    pub(crate) dst: usize,
    pub(crate) src: usize,
}

impl LengthMismatch {
    /// The length of the destination.
    #[must_use]
    pub const fn dst_len(&self) -> usize {
        self.dst
    }

    /// The length of the source.
    #[must_use]
    pub const fn src_len(&self) -> usize {
        self.src
    }
}

impl fmt::Display for LengthMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "source slice length ({}) does not match destination slice length ({})",
            self.src, self.dst
        )
    }
}

#[cfg(feature = "std")]
impl std::error::Error for LengthMismatch {}

/// Panics, as `copy_from_slice` does, if the lengths differ.
#[inline]
#[track_caller]
pub(crate) fn assert_same_length(dst: usize, src: usize) {
    if dst != src {
        length_mismatch(dst, src);
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn length_mismatch(dst: usize, src: usize) -> ! {
    panic!("{}", LengthMismatch { dst, src })
}

/// Views initialized bytes as possibly uninitialized ones, for the kernels,
/// which write into either.
#[inline]
pub(crate) fn as_uninit_mut(bytes: &mut [u8]) -> &mut [MaybeUninit<u8>] {
    // SAFETY: `MaybeUninit<u8>` has the layout of `u8`. The view could be
    // used to write uninitialized bytes into `bytes`; the crate's kernels
    // never do, they only store bytes read from a `&[u8]`.
    unsafe { &mut *(bytes as *mut [u8] as *mut [MaybeUninit<u8>]) }
}

/// # Safety
///
/// Every byte of `bytes` must be initialized.
#[inline]
pub(crate) unsafe fn assume_init_mut(bytes: &mut [MaybeUninit<u8>]) -> &mut [u8] {
    // SAFETY: the caller guarantees that the bytes are initialized, and
    // `MaybeUninit<u8>` has the layout of `u8`.
    unsafe { &mut *(bytes as *mut [MaybeUninit<u8>] as *mut [u8]) }
}
