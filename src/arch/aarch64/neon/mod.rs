//! The NEON tier: 128-bit Advanced SIMD vectors.

mod checksum;
mod copy;
pub(crate) mod fill;
mod memcpy;

crate::arch::tier_type::tier_type! {
    /// The NEON tier. Holding a value proves that the CPU has NEON.
    Neon: crate::Tier::Neon, "neon",
    // Without `std`, no detection: the compile-time features alone.
    runtime: {
        #[cfg(feature = "std")]
        {
            std::arch::is_aarch64_feature_detected!("neon")
        }
        #[cfg(not(feature = "std"))]
        {
            false
        }
    },
    compile_time: cfg!(target_feature = "neon"),
    kernels: standard,
}
