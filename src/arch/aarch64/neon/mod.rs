//! The NEON tier: 128-bit Advanced SIMD vectors. Its copy and fill are the
//! generic algorithms on `vector::NeonVector`; its checksum and
//! copy-and-checksum are its own, on pairwise adds (`checksum.rs`).
//! aarch64's non-temporal store (`stnp`) is a hint with no intrinsic, so
//! `fill_nontemporal` stores ordinarily here.

mod checksum;
pub(crate) mod vector;

crate::arch::tier_type::tier_type! {
    /// The NEON tier. Holding a value proves that the CPU has NEON.
    Neon: crate::Tier::Neon, "neon",
    features: "neon",
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
    vector: vector::NeonVector,
    overrides: {
        checksum: checksum::checksum_pairwise,
        copy_checksum: checksum::copy_checksum_pairwise,
    },
}
