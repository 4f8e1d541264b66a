//! The SSE2 copy-and-checksum kernel: the shared vector algorithm
//! ([`vector::copy_checksum`]) on SSE2 registers: each vector is stored as
//! it is summed.

use core::mem::MaybeUninit;

use crate::arch::x86_64::vector::{self, Sse2Vector};

crate::arch::line_aligned!(
    ".text.fastpath.copy_checksum.sse2",
    /// Copies `src` into `dst` and returns the checksum of `src`, the complement
    /// of the folded sum. It copies `min(dst.len(), src.len())` bytes.
    ///
    /// # Safety
    ///
    /// The CPU must support SSE2.
    #[target_feature(enable = "sse2")]
    pub(crate) unsafe fn copy_checksum(dst: &mut [MaybeUninit<u8>], src: &[u8]) -> u16 {
        // SAFETY: SSE2 is enabled here, which the caller guarantees, and this
        // function returns the checksum.
        unsafe { vector::copy_checksum::<Sse2Vector>(dst, src, copy_checksum) }
    }
);
