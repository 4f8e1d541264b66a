//! The x86_64 tiers: SSE2, AVX2 and AVX-512 (with and without AVX512-VNNI).
//!
//! SSE2 and AVX2 share their checksum and copy algorithms, written once over
//! a small vector trait (the private module `vector`); AVX-512 has kernels of
//! its own, built on byte masks. Every tier's fill is the shared fill
//! algorithm (`arch/fill.rs`) on its vectors. `inline` holds what
//! [`crate::fill()`] inlines into its callers on x86_64; `detect` the CPU
//! feature detection of every tier, CPUID and XGETBV in `core`, with or
//! without `std`.

pub mod avx2;
pub mod avx512;
pub(crate) mod detect;
#[cfg(feature = "std")]
pub(crate) mod handoff;
pub(crate) mod inline;
pub mod sse2;
mod vector;

pub use avx2::Avx2;
pub use avx512::{Avx512, Avx512Vnni};
pub use sse2::Sse2;

pub(crate) use inline::Inline;

use crate::arch::Kernels;

/// Whether the CPU is AMD's (or Hygon's, its licensee): read with CPUID at
/// the first call, then from a cached flag, with or without `std`.
#[inline]
pub(crate) fn is_amd() -> bool {
    use core::sync::atomic::{AtomicU8, Ordering};

    /// 0 until known, then 1 for AMD and 2 for any other vendor.
    static VENDOR: AtomicU8 = AtomicU8::new(0);

    /// Reads the vendor and caches it.
    #[cold]
    #[inline(never)]
    // CPUID is a safe intrinsic since Rust 1.87; `unsafe` for the crate's
    // older supported versions.
    #[allow(unused_unsafe)]
    fn detect() -> bool {
        // SAFETY: CPUID exists on every x86_64 CPU.
        let ebx = unsafe { core::arch::x86_64::__cpuid(0) }.ebx;
        let amd = ebx == u32::from_le_bytes(*b"Auth") || ebx == u32::from_le_bytes(*b"Hygo");
        VENDOR.store(if amd { 1 } else { 2 }, Ordering::Relaxed);
        amd
    }

    match VENDOR.load(Ordering::Relaxed) {
        0 => detect(),
        vendor => vendor == 1,
    }
}

/// The x86_64 kernel tables, lowest first; a tier's preferred table last.
pub(crate) const VARIANTS: &[&Kernels] = &[
    &Sse2::KERNELS,
    &Avx2::KERNELS,
    &Avx512::KERNELS,
    &Avx512Vnni::KERNELS,
];
