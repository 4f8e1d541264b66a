//! The SSE2 checksum kernel: the shared vector algorithm
//! ([`vector::sum_native`](super::super::vector::sum_native)) on
//! SSE2 registers.

use super::Sse2;
use crate::arch::scalar;
use crate::arch::x86_64::vector::{Sse2Vector, sum_native};

impl Sse2 {
    /// The ones'-complement sum of `data` as big-endian 16-bit words, an odd
    /// final byte padded with zero, folded to 16 bits (not complemented).
    #[inline]
    pub fn sum(self, data: &[u8]) -> u16 {
        // SAFETY: holding `self` proves that the CPU has SSE2.
        unsafe { sum(data) }
    }

    /// The RFC 1071 checksum of `data`: the ones' complement of
    /// [`sum`](Self::sum).
    #[inline]
    pub fn checksum(self, data: &[u8]) -> u16 {
        !self.sum(data)
    }
}

/// # Safety
///
/// The CPU must support SSE2.
#[target_feature(enable = "sse2")]
pub(crate) unsafe fn sum(data: &[u8]) -> u16 {
    // SAFETY: SSE2 is enabled here, which the caller guarantees.
    scalar::finish_native(unsafe { sum_native::<Sse2Vector>(data) })
}
