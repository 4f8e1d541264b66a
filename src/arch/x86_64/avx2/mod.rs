//! The AVX2 tier: 256-bit vectors.

mod checksum;
mod copy;
pub(crate) mod fill;
mod memcpy;

use super::detect;

crate::arch::tier_type::tier_type! {
    /// The AVX2 tier. Holding a value proves that the CPU has AVX2.
    Avx2: crate::Tier::Avx2, "avx2",
    runtime: detect::has(detect::AVX2),
    compile_time: cfg!(target_feature = "avx2"),
    kernels: standard,
}
