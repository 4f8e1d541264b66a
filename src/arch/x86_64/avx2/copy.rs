//! The AVX2 copy-and-checksum kernel: the shared vector algorithm
//! ([`vector::copy_checksum`]) on AVX2 registers: each vector is stored as
//! it is summed.

use core::mem::MaybeUninit;

use crate::arch::x86_64::vector::{self, Avx2Vector};

crate::arch::line_aligned!(
    ".text.fastpath.copy_checksum.avx2",
    /// Copies `src` into `dst` and returns the checksum of `src`, the complement
    /// of the folded sum. It copies `min(dst.len(), src.len())` bytes.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(crate) unsafe fn copy_checksum(dst: &mut [MaybeUninit<u8>], src: &[u8]) -> u16 {
        // SAFETY: AVX2 is enabled here, which the caller guarantees, and this
        // function returns the checksum.
        unsafe { vector::copy_checksum::<Avx2Vector>(dst, src, copy_checksum) }
    }
);
