//! The NEON tier: 128-bit Advanced SIMD vectors.

mod checksum;
mod copy;
pub(crate) mod fill;
mod memcpy;

crate::arch::tier_type::tier_type! {
    /// The NEON tier. Holding a value proves that the CPU has NEON.
    Neon: crate::Tier::Neon, "neon",
    runtime: std::arch::is_aarch64_feature_detected!("neon"),
    compile_time: cfg!(target_feature = "neon"),
    kernels: standard,
}
