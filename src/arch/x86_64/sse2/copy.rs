//! The SSE2 copy-and-checksum kernel: the shared vector algorithm
//! ([`vector::copy_sum_native`](super::super::vector::copy_sum_native)) on
//! SSE2 registers: each vector is stored as it is summed.

use core::mem::MaybeUninit;

use super::Sse2;
use crate::arch::scalar;
use crate::arch::x86_64::vector::{Sse2Vector, copy_sum_native, copy_sum_pieces, piece};

crate::arch::copy_methods!(Sse2, copy_checksum);

/// Copies `src` into `dst` and returns the checksum of `src`, the complement
/// of the folded sum. It copies `min(dst.len(), src.len())` bytes.
///
/// # Safety
///
/// The CPU must support SSE2.
#[target_feature(enable = "sse2")]
pub(crate) unsafe fn copy_checksum(dst: &mut [MaybeUninit<u8>], src: &[u8]) -> u16 {
    let len = src.len().min(dst.len());
    let (dst, src) = (&mut dst[..len], &src[..len]);
    if len > piece::<Sse2Vector>() {
        // SAFETY: this function runs on this CPU, as the caller guarantees,
        // and returns the checksum; a piece is even.
        let total = unsafe { copy_sum_pieces(dst, src, piece::<Sse2Vector>(), copy_checksum) };
        return !scalar::finish_native(total);
    }
    // SAFETY: SSE2 is enabled here, which the caller guarantees, and
    // `src` is short enough.
    !scalar::finish_native(unsafe { copy_sum_native::<Sse2Vector>(dst, src) })
}
