//! The AVX-512 tier: 512-bit vectors and 64-bit byte masks.
//!
//! It needs exactly the subsets its kernels use: AVX-512F, AVX-512BW (byte
//! masks) and AVX-512 VNNI (`vpdpwssd`). A CPU with
//! AVX-512 but without VNNI, such as Skylake-SP, runs the AVX2 tier.

mod checksum;

crate::arch::tier_type! {
    /// The AVX-512 tier. Holding a value proves that the CPU has AVX-512F,
    /// AVX-512BW and AVX-512 VNNI.
    Avx512,
    runtime: std::is_x86_feature_detected!("avx512f")
        && std::is_x86_feature_detected!("avx512bw")
        && std::is_x86_feature_detected!("avx512vnni"),
    compile_time: cfg!(all(
        target_feature = "avx512f",
        target_feature = "avx512bw",
        target_feature = "avx512vnni"
    )),
}
