//! The AVX2 tier: 256-bit vectors.

mod checksum;
pub(crate) use checksum::checksum;
mod copy;
pub(crate) use copy::copy_checksum;
pub(crate) mod fill;
pub(crate) use fill::{fill, fill_nontemporal};

crate::arch::tier_type! {
    /// The AVX2 tier. Holding a value proves that the CPU has AVX2.
    Avx2,
    runtime: std::is_x86_feature_detected!("avx2"),
    compile_time: cfg!(target_feature = "avx2"),
}
