//! The aarch64 tier: NEON (Advanced SIMD).
//!
//! NEON is part of the base aarch64 instruction set for every CPU that runs a
//! general-purpose operating system, and Rust's aarch64 targets enable it at
//! compile time (the soft-float ones aside, which get only the portable
//! tier); the tier still checks it at run time, like every other, so that
//! holding a [`Neon`] value is the proof its methods rely on.

pub mod neon;

pub use neon::Neon;

use crate::arch::Kernels;

/// The aarch64 kernel tables, lowest first.
pub(crate) const VARIANTS: &[&Kernels] = &[&Neon::KERNELS];

/// What [`crate::fill()`] inlines into its callers on aarch64: NEON stores.
pub(crate) struct Inline;

impl crate::arch::inline::InlinePath for Inline {
    type Vector = neon::vector::NeonVector;
}
