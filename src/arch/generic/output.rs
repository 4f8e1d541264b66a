//! Where the vectors of the data go besides the sum: nowhere (the checksum)
//! or into a destination buffer (copy-and-checksum). The checksum loops
//! (`generic/checksum.rs`, NEON's own) are written once over it: the
//! copy-and-checksum kernel is the checksum loop with an output that
//! stores.

use core::mem::MaybeUninit;

use super::vector::Vector;
use crate::arch::scalar;

/// Where the vectors of the data go besides the sum.
pub(crate) trait Output {
    /// Stores the vector `v` read at `offset` bytes into the data.
    ///
    /// # Safety
    ///
    /// The CPU must support `V`'s instruction set and `offset + V::BYTES`
    /// must not exceed the length of the data.
    unsafe fn put<V: Vector>(&mut self, offset: usize, v: V);

    /// Handles the last bytes, `rest`, which start `offset` bytes into the
    /// data (an even number): returns their sum as [`scalar::sum_native`]
    /// does.
    fn finish(&mut self, offset: usize, rest: &[u8]) -> u64;
}

/// The checksum: the vectors go nowhere.
pub(crate) struct SumOnly;

impl Output for SumOnly {
    #[inline(always)]
    unsafe fn put<V: Vector>(&mut self, _offset: usize, _v: V) {}

    #[inline(always)]
    fn finish(&mut self, _offset: usize, rest: &[u8]) -> u64 {
        scalar::sum_native(rest)
    }
}

/// Copy-and-checksum: the vectors are stored into a buffer as long as the
/// data.
pub(crate) struct CopyTo<'a>(pub(crate) &'a mut [MaybeUninit<u8>]);

impl Output for CopyTo<'_> {
    #[inline(always)]
    unsafe fn put<V: Vector>(&mut self, offset: usize, v: V) {
        // SAFETY: the buffer is as long as the data, so the caller's bound
        // on `offset` keeps the store inside it; the caller guarantees the
        // instruction set.
        unsafe { v.store_unaligned(self.0.as_mut_ptr().add(offset).cast()) }
    }

    #[inline(always)]
    fn finish(&mut self, offset: usize, rest: &[u8]) -> u64 {
        scalar::copy_sum_native(&mut self.0[offset..], rest)
    }
}
