//! The SSE2 checksum kernel: the shared vector algorithm
//! ([`vector::sum_native`](super::super::vector::sum_native)) on
//! SSE2 registers.

use super::Sse2;
use crate::arch::scalar;
use crate::arch::x86_64::vector::{Sse2Vector, piece, sum_native, sum_pieces};

crate::arch::sum_methods!(Sse2, checksum);

/// The checksum of `data`, the complement of its folded sum.
///
/// # Safety
///
/// The CPU must support SSE2.
#[target_feature(enable = "sse2")]
pub(crate) unsafe fn checksum(data: &[u8]) -> u16 {
    if data.len() > piece::<Sse2Vector>() {
        // SAFETY: this function runs on this CPU, as the caller guarantees,
        // and returns the checksum; a piece is even.
        return !scalar::finish_native(unsafe {
            sum_pieces(data, piece::<Sse2Vector>(), checksum)
        });
    }
    // SAFETY: SSE2 is enabled here, which the caller guarantees, and
    // `data` is short enough.
    !scalar::finish_native(unsafe { sum_native::<Sse2Vector>(data) })
}
