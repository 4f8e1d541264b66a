//! The AVX-512 tier's table with AVX512-VNNI: the AVX-512 table (`base`),
//! with the checksum and the copy-and-checksum adding lines with
//! `vpdpwssd` (`overrides`); its other kernels are the AVX-512 table's.

use super::detect;

crate::arch::tier_type::tier_type! {
    /// The AVX-512 tier's table with AVX512-VNNI (`vpdpwssd`) for the
    /// checksum and copy-and-checksum, which the tier uses where the CPU has
    /// it. Holding a value proves that the CPU has AVX-512F, AVX-512BW and
    /// AVX512-VNNI.
    Avx512Vnni: crate::Tier::Avx512, "avx512-vnni",
    features: "avx512f,avx512bw,avx512vnni",
    runtime: detect::has(detect::AVX512F | detect::AVX512BW | detect::AVX512VNNI),
    compile_time: cfg!(all(
        target_feature = "avx512f",
        target_feature = "avx512bw",
        target_feature = "avx512vnni"
    )),
    base: crate::arch::x86_64::avx512::Avx512,
    overrides: {
        checksum: crate::arch::x86_64::avx512::checksum::checksum_vnni,
        copy_checksum: crate::arch::x86_64::avx512::copy::copy_checksum_vnni,
    },
}
