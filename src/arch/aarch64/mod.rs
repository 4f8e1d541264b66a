//! The aarch64 tier: NEON (Advanced SIMD).
//!
//! NEON is part of the base aarch64 instruction set for every CPU that runs a
//! general-purpose operating system, and Rust's aarch64 targets enable it at
//! compile time; the tier still checks it at run time, like every other, so
//! that holding a [`Neon`] value is the proof its methods rely on.

pub mod neon;

pub use neon::Neon;
