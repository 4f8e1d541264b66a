//! The portable fill kernel: the shared algorithm ([`crate::arch::fill`]) on
//! pairs of 64-bit words, 16 bytes per store.
//!
//! Plain Rust with no intrinsics: a 16-byte store of two equal words, which
//! compilers emit as one vector store where the target has 16-byte vectors
//! (SSE2, NEON) and as two word stores elsewhere. It is the fallback for
//! targets without a hand-written tier, and a reference point in the bench;
//! no measurement tuned it beyond the shared algorithm's.

use crate::arch::fill::{Splat, fill_kernels, splat_word};

fill_kernels!(Words);

/// Two 64-bit words holding one repeated byte: a 16-byte "vector".
#[derive(Clone, Copy)]
pub(crate) struct Words(u64);

impl Splat for Words {
    const BYTES: usize = 16;

    #[inline(always)]
    unsafe fn splat(value: u8) -> Self {
        Words(splat_word(value))
    }

    #[inline(always)]
    unsafe fn store(self, ptr: *mut u8) {
        // SAFETY: the caller guarantees 16 writable bytes at `ptr`.
        unsafe { ptr.cast::<[u64; 2]>().write_unaligned([self.0; 2]) }
    }

    #[inline(always)]
    unsafe fn store_aligned(self, ptr: *mut u8) {
        // SAFETY: the caller guarantees 16 writable bytes at `ptr`, aligned
        // to 16 and so to the 8 of `[u64; 2]`.
        unsafe { ptr.cast::<[u64; 2]>().write([self.0; 2]) }
    }

    #[inline(always)]
    unsafe fn store16(self, ptr: *mut u8) {
        // SAFETY: as in `store`.
        unsafe { self.store(ptr) }
    }

    #[inline(always)]
    unsafe fn low_word(self) -> u64 {
        self.0
    }
}
