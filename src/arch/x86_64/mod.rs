//! The x86_64 tiers: SSE2, AVX2 and AVX-512 (with and without AVX512-VNNI).
//!
//! Each tier's folder holds its type and table (`mod.rs`, one
//! `tier_type!` line) and its register (`vector.rs`); SSE2 and AVX2 run the
//! generic algorithms of `arch/generic/` for every primitive, AVX-512 has
//! its own checksum and copy-and-checksum, built on byte masks, and its
//! masked short fill. `inline` holds what
//! [`crate::fill()`] inlines into its callers on x86_64; `detect` the CPU
//! feature detection of every tier, CPUID and XGETBV in `core`, with or
//! without `std`, and the vendor; `cache` the sizes of the caches, from
//! CPUID (with `std`); [`Signature`] what CPU this is (vendor, family,
//! model, stepping), which the rules that depend on the core go by.

pub mod avx2;
pub mod avx512;
#[cfg(feature = "std")]
pub(crate) mod cache;
pub(crate) mod detect;
#[cfg(feature = "std")]
pub(crate) mod handoff;
pub(crate) mod inline;
mod signature;
pub mod sse2;

pub use avx2::Avx2;
pub use avx512::{Avx512, Avx512Vnni};
pub use signature::Signature;
pub use sse2::Sse2;

// Named by the kernels and rules that depend on the vendor.
#[cfg(feature = "std")]
pub(crate) use detect::is_amd;
pub(crate) use detect::is_amd_before_zen_5;
pub(crate) use inline::Inline;

use crate::arch::Kernels;

/// The x86_64 kernel tables, lowest first; a tier's preferred table last.
pub(crate) const VARIANTS: &[&Kernels] = &[
    &Sse2::KERNELS,
    &Avx2::KERNELS,
    &Avx512::KERNELS,
    &Avx512Vnni::KERNELS,
];
