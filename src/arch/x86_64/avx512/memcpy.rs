//! The AVX-512 copy kernel: the shared algorithm (`arch/memcpy.rs`) on
//! 64-byte registers, so every aligned store is a whole cache line.

use core::arch::x86_64::*;

use crate::arch::memcpy::{Chunk, copy_kernel};

copy_kernel!(Avx512Vector, "avx512f,avx512bw");

/// A 512-bit AVX-512 register.
#[derive(Clone, Copy)]
struct Avx512Vector(__m512i);

impl Chunk for Avx512Vector {
    const BYTES: usize = 64;
    const IN_ORDER: bool = true;

    #[inline(always)]
    unsafe fn load(ptr: *const u8) -> Self {
        // SAFETY: the caller guarantees AVX-512F and 64 readable bytes.
        Self(unsafe { _mm512_loadu_si512(ptr.cast()) })
    }

    #[inline(always)]
    unsafe fn store(self, ptr: *mut u8) {
        // SAFETY: the caller guarantees AVX-512F and 64 writable bytes.
        unsafe { _mm512_storeu_si512(ptr.cast(), self.0) }
    }

    #[inline(always)]
    unsafe fn store_aligned(self, ptr: *mut u8) {
        // SAFETY: the caller guarantees AVX-512F and 64 writable bytes,
        // aligned.
        unsafe { _mm512_store_si512(ptr.cast(), self.0) }
    }
}
