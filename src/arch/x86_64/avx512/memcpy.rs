//! The AVX-512 copy kernel: the shared algorithm (`arch/memcpy.rs`) on
//! 64-byte registers, so every aligned store is a whole cache line.
//!
//! Except on AMD CPUs for copies longer than eight vectors whose source is
//! not aligned to the line where the destination is, so that every 64-byte
//! load would split a line: there the loop moves 32-byte vectors, as the
//! AVX2 kernel does. On Zen 4, with the source at +1 and the destination
//! aligned, the 64-byte loop ran 9000-byte copies at 0.93-0.97× glibc's
//! `memcpy` (it is then at 98-99% of its bound: the loop itself is slower)
//! where the AVX2 kernel ran at 1.15-1.16×; loading each 64-byte vector as
//! two halves was no cure (docs/experiments.md). Intel CPUs keep
//! the 64-byte loop: there, until Ice Lake, a 32-byte store takes a whole
//! store slot, and this was not measured on one.

use core::arch::x86_64::*;

use crate::arch::memcpy::{Chunk, copy_kernel, copy_lines};
use crate::arch::x86_64::vector::Avx2Vector;

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

    #[inline(always)]
    unsafe fn copy_long(dst: *mut u8, src: *const u8, len: usize) {
        let splits_lines = !(src as usize).wrapping_sub(dst as usize).is_multiple_of(64);
        // SAFETY: the caller's guarantees; AVX-512F implies AVX2, and
        // `len > 8 * 64` is more than eight 32-byte vectors.
        unsafe {
            if splits_lines && crate::arch::x86_64::is_amd() {
                copy_lines::<Avx2Vector>(dst, src, len);
            } else {
                copy_lines::<Self>(dst, src, len);
            }
        }
    }
}
