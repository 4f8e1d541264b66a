//! The AVX-512 tier: 512-bit vectors and 64-bit byte masks.
//!
//! It needs exactly the subsets its kernels use: AVX-512F and AVX-512BW (byte
//! masks, 16-bit lanes on 512 bits).

mod checksum;
pub(crate) use checksum::sum;
mod copy;
pub(crate) use copy::copy_sum;
pub(crate) mod fill;
pub(crate) use fill::{fill, fill_nontemporal};

crate::arch::tier_type! {
    /// The AVX-512 tier. Holding a value proves that the CPU has AVX-512F
    /// and AVX-512BW.
    Avx512,
    runtime: std::is_x86_feature_detected!("avx512f")
        && std::is_x86_feature_detected!("avx512bw"),
    compile_time: cfg!(all(target_feature = "avx512f", target_feature = "avx512bw")),
}
