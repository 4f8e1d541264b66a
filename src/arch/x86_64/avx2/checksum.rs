//! The AVX2 checksum kernel: the shared vector algorithm
//! ([`vector::sum_native`](super::super::vector::sum_native)) on
//! AVX2 registers.

use super::Avx2;
use crate::arch::scalar;
use crate::arch::x86_64::vector::{Avx2Vector, sum_native};

crate::arch::sum_methods!(Avx2, checksum);

/// The checksum of `data`, the complement of its folded sum.
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn checksum(data: &[u8]) -> u16 {
    // SAFETY: AVX2 is enabled here, which the caller guarantees.
    !scalar::finish_native(unsafe { sum_native::<Avx2Vector>(data) })
}
