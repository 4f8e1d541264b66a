//! The AVX-512 tier: 512-bit vectors and 64-bit byte masks.
//!
//! It needs exactly the subsets its kernels use: AVX-512F and AVX-512BW (byte
//! masks, 16-bit lanes on 512 bits). Where the CPU also has AVX512-VNNI, the
//! tier's checksum and copy-and-checksum are [`Avx512Vnni`]'s, one
//! instruction per 64 bytes shorter.

mod checksum;
pub(crate) use checksum::{checksum, checksum_vnni};
mod copy;
pub(crate) use copy::{copy_checksum, copy_checksum_vnni};
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

crate::arch::tier_type! {
    /// The AVX-512 tier's checksum and copy-and-checksum kernels with
    /// AVX512-VNNI (`vpdpwssd`), which the tier uses where the CPU has it. Holding a value proves that the CPU
    /// has AVX-512F, AVX-512BW and AVX512-VNNI.
    Avx512Vnni,
    runtime: std::is_x86_feature_detected!("avx512f")
        && std::is_x86_feature_detected!("avx512bw")
        && std::is_x86_feature_detected!("avx512vnni"),
    compile_time: cfg!(all(
        target_feature = "avx512f",
        target_feature = "avx512bw",
        target_feature = "avx512vnni"
    )),
}
