//! The SSE2 checksum kernel: the shared vector algorithm
//! ([`vector::sum_native`](super::super::vector::sum_native)) on
//! SSE2 registers.

use super::Sse2;
use crate::arch::scalar;
use crate::arch::x86_64::vector::{Sse2Vector, sum_native};

crate::arch::sum_methods!(Sse2, checksum);

/// The checksum of `data`, the complement of its folded sum.
///
/// # Safety
///
/// The CPU must support SSE2.
#[target_feature(enable = "sse2")]
pub(crate) unsafe fn checksum(data: &[u8]) -> u16 {
    // SAFETY: SSE2 is enabled here, which the caller guarantees.
    !scalar::finish_native(unsafe { sum_native::<Sse2Vector>(data) })
}
