//! The NEON copy-and-checksum kernel: the checksum kernel's loop
//! ([`super::checksum`]) with each vector stored (`st1`) as it is added, so
//! the data is read once.

use core::mem::MaybeUninit;

use super::checksum::sum_into;
use crate::arch::output::CopyTo;
use crate::arch::scalar;

crate::arch::line_aligned!(
    ".text.fastpath.copy_checksum.neon",
    /// Copies `src` into `dst` and returns the checksum of `src`, the complement
    /// of the folded sum. It copies `min(dst.len(), src.len())` bytes.
    ///
    /// # Safety
    ///
    /// The CPU must support NEON.
    #[target_feature(enable = "neon")]
    pub(crate) unsafe fn copy_checksum(dst: &mut [MaybeUninit<u8>], src: &[u8]) -> u16 {
        let len = src.len().min(dst.len());
        !scalar::finish_native(sum_into(&src[..len], CopyTo(&mut dst[..len])))
    }
);
