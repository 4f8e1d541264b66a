//! The SSE2 checksum kernel: the shared vector algorithm
//! ([`vector::checksum`]) on SSE2 registers.

use crate::arch::x86_64::vector::{self, Sse2Vector};

crate::arch::line_aligned!(
    ".text.fastpath.checksum.sse2",
    /// The checksum of `data`, the complement of its folded sum.
    ///
    /// # Safety
    ///
    /// The CPU must support SSE2.
    #[target_feature(enable = "sse2")]
    pub(crate) unsafe fn checksum(data: &[u8]) -> u16 {
        // SAFETY: SSE2 is enabled here, which the caller guarantees, and this
        // function returns the checksum.
        unsafe { vector::checksum::<Sse2Vector>(data, checksum) }
    }
);
