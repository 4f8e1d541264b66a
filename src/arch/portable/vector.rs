//! The portable tier's "vector": 16 bytes of plain Rust, which compilers
//! move and store with one vector instruction where the target has 16-byte
//! vectors (SSE2, NEON) and as words elsewhere.

use crate::arch::generic::fill::splat_word;
use crate::arch::generic::vector::Vector;

/// Sixteen bytes moved and stored together: two 64-bit words.
#[derive(Clone, Copy)]
pub(crate) struct PortableVector([u64; 2]);

impl Vector for PortableVector {
    const BYTES: usize = 16;

    #[inline(always)]
    unsafe fn splat(value: u8) -> Self {
        Self([splat_word(value); 2])
    }

    #[inline(always)]
    unsafe fn load_unaligned(ptr: *const u8) -> Self {
        // SAFETY: the caller guarantees 16 readable bytes at `ptr`.
        Self(unsafe { ptr.cast::<[u64; 2]>().read_unaligned() })
    }

    #[inline(always)]
    unsafe fn store_unaligned(self, ptr: *mut u8) {
        // SAFETY: the caller guarantees 16 writable bytes at `ptr`.
        unsafe { ptr.cast::<[u64; 2]>().write_unaligned(self.0) }
    }

    #[inline(always)]
    unsafe fn store_aligned(self, ptr: *mut u8) {
        // SAFETY: the caller guarantees 16 writable bytes at `ptr`, aligned
        // to 16 and so to the 8 of `[u64; 2]`.
        unsafe { ptr.cast::<[u64; 2]>().write(self.0) }
    }

    #[inline(always)]
    unsafe fn store16(self, ptr: *mut u8) {
        // SAFETY: as in `store_unaligned`.
        unsafe { self.store_unaligned(ptr) }
    }

    #[inline(always)]
    unsafe fn low_word(self) -> u64 {
        self.0[0]
    }
}
