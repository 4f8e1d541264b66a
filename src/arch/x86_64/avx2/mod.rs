//! The AVX2 tier: 256-bit vectors. Every kernel is the generic algorithm on
//! `vector::Avx2Vector`.
//!
//! Branches on the length mispredict on random lengths, which AVX-512's
//! single masked store avoids; AVX2's masked stores work on 32-bit lanes
//! only (`vpmaskmovd`), which cannot express a byte length, and are slow on
//! AMD cores, so the fill's short path keeps as few branches as overlapping
//! stores allow (two up to 64 bytes, see `arch/generic/fill.rs`).

pub(crate) mod vector;

use super::detect;

crate::arch::tier_type::tier_type! {
    /// The AVX2 tier. Holding a value proves that the CPU has AVX2.
    Avx2: crate::Tier::Avx2, "avx2",
    features: "avx2",
    runtime: detect::has(detect::AVX2),
    compile_time: cfg!(target_feature = "avx2"),
    vector: vector::Avx2Vector,
    overrides: {},
}
