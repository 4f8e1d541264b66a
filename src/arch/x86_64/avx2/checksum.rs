//! The AVX2 checksum kernel: the shared vector algorithm
//! ([`vector::sum_native`](super::super::vector::sum_native)) on
//! AVX2 registers.

use super::Avx2;
use crate::arch::scalar;
use crate::arch::x86_64::vector::{Avx2Vector, piece, sum_native, sum_pieces};

crate::arch::sum_methods!(Avx2, checksum);

/// The checksum of `data`, the complement of its folded sum.
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn checksum(data: &[u8]) -> u16 {
    if data.len() > piece::<Avx2Vector>() {
        // SAFETY: this function runs on this CPU, as the caller guarantees,
        // and returns the checksum; a piece is even.
        return !scalar::finish_native(unsafe {
            sum_pieces(data, piece::<Avx2Vector>(), checksum)
        });
    }
    // SAFETY: AVX2 is enabled here, which the caller guarantees, and
    // `data` is short enough.
    !scalar::finish_native(unsafe { sum_native::<Avx2Vector>(data) })
}
