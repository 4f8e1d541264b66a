//! The x86_64 tiers: SSE2, AVX2 and AVX-512 (with and without AVX512-VNNI).
//!
//! SSE2 and AVX2 share their checksum and copy algorithms, written once over
//! a small vector trait (the private module `vector`); AVX-512 has kernels of
//! its own, built on byte masks. Every tier's fill is the shared fill
//! algorithm (`arch/fill.rs`) on its vectors. `inline` holds what
//! [`crate::fill()`] inlines into its callers on x86_64.

pub mod avx2;
pub mod avx512;
pub(crate) mod inline;
pub mod sse2;
mod vector;

pub use avx2::Avx2;
pub use avx512::{Avx512, Avx512Vnni};
pub use sse2::Sse2;

pub(crate) use inline::Inline;

use crate::arch::Kernels;

/// The x86_64 kernel tables, lowest first; a tier's preferred table last.
pub(crate) const VARIANTS: &[&Kernels] = &[
    &Sse2::KERNELS,
    &Avx2::KERNELS,
    &Avx512::KERNELS,
    &Avx512Vnni::KERNELS,
];
