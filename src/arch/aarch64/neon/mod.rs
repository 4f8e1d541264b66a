//! The NEON tier: 128-bit Advanced SIMD vectors.

mod checksum;
pub(crate) use checksum::checksum;
mod copy;
pub(crate) use copy::copy_checksum;
pub(crate) mod fill;
pub(crate) use fill::{fill, fill_nontemporal};

crate::arch::tier_type! {
    /// The NEON tier. Holding a value proves that the CPU has NEON.
    Neon,
    runtime: std::arch::is_aarch64_feature_detected!("neon"),
    compile_time: cfg!(target_feature = "neon"),
}
