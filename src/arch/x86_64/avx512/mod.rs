//! The AVX-512 tier: 512-bit vectors and 64-bit byte masks.
//!
//! It needs exactly the subsets its kernels use: AVX-512F and AVX-512BW (byte
//! masks, 16-bit lanes on 512 bits). The tier has two tables: where the CPU
//! also has AVX512-VNNI, its checksum and copy-and-checksum are
//! [`Avx512Vnni`]'s, one instruction per 64 bytes shorter, and its fills the
//! same as [`Avx512`]'s.

mod checksum;
mod copy;
pub(crate) mod fill;
mod memcpy;

use super::detect;

crate::arch::tier_type::tier_type! {
    /// The AVX-512 tier. Holding a value proves that the CPU has AVX-512F
    /// and AVX-512BW.
    Avx512: crate::Tier::Avx512, "avx512",
    runtime: detect::has(detect::AVX512F | detect::AVX512BW),
    compile_time: cfg!(all(target_feature = "avx512f", target_feature = "avx512bw")),
    kernels: standard,
}

crate::arch::tier_type::tier_type! {
    /// The AVX-512 tier's table with AVX512-VNNI (`vpdpwssd`) for the
    /// checksum and copy-and-checksum, which the tier uses where the CPU has
    /// it. Holding a value proves that the CPU has AVX-512F, AVX-512BW and
    /// AVX512-VNNI.
    Avx512Vnni: crate::Tier::Avx512, "avx512-vnni",
    runtime: detect::has(detect::AVX512F | detect::AVX512BW | detect::AVX512VNNI),
    compile_time: cfg!(all(
        target_feature = "avx512f",
        target_feature = "avx512bw",
        target_feature = "avx512vnni"
    )),
    kernels: {
        checksum: checksum::checksum_vnni,
        copy_checksum: copy::copy_checksum_vnni,
        fill: fill::fill,
        fill_nontemporal: fill::fill_nontemporal,
        fill_or_stream: fill::fill_or_stream,
        copy: memcpy::copy,
        copy_or_hand_off: memcpy::copy_or_hand_off,
    },
}
