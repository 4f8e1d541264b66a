//! The AVX2 checksum kernel: the shared vector algorithm
//! ([`vector::checksum`]) on AVX2 registers.

use crate::arch::x86_64::vector::{self, Avx2Vector};

crate::arch::line_aligned!(
    ".text.fastpath.checksum.avx2",
    /// The checksum of `data`, the complement of its folded sum.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(crate) unsafe fn checksum(data: &[u8]) -> u16 {
        // SAFETY: AVX2 is enabled here, which the caller guarantees, and this
        // function returns the checksum.
        unsafe { vector::checksum::<Avx2Vector>(data, checksum) }
    }
);
