//! The portable copy kernel: the shared algorithm (`arch/memcpy.rs`) on
//! 16-byte arrays, which compilers move with one vector load and store
//! where the target has 16-byte vectors (SSE2, NEON) and as words elsewhere.

use crate::arch::memcpy::{Chunk, copy_kernel};

copy_kernel!(Bytes);

/// Sixteen bytes moved together.
#[derive(Clone, Copy)]
struct Bytes([u8; 16]);

impl Chunk for Bytes {
    const BYTES: usize = 16;

    #[inline(always)]
    unsafe fn load(ptr: *const u8) -> Self {
        // SAFETY: the caller guarantees 16 readable bytes at `ptr`.
        Bytes(unsafe { ptr.cast::<[u8; 16]>().read_unaligned() })
    }

    #[inline(always)]
    unsafe fn store(self, ptr: *mut u8) {
        // SAFETY: the caller guarantees 16 writable bytes at `ptr`.
        unsafe { ptr.cast::<[u8; 16]>().write_unaligned(self.0) }
    }

    #[inline(always)]
    unsafe fn store_aligned(self, ptr: *mut u8) {
        // SAFETY: as in `store`.
        unsafe { self.store(ptr) }
    }
}
