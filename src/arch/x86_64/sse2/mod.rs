//! The SSE2 tier: 128-bit vectors, part of every x86_64 CPU. Every kernel
//! is the generic algorithm on `vector::Sse2Vector`.
//!
//! SSE2 is part of x86_64, so its fill stores are also the inline path of
//! [`crate::fill()`] for 0-64 bytes in a build without AVX2 or AVX-512, when
//! the CPU found at run time has no AVX-512 (or `FASTPATH_TIER` caps it).

pub(crate) mod vector;

use super::detect;

crate::arch::tier_type::tier_type! {
    /// The SSE2 tier. Holding a value proves that the CPU has SSE2.
    Sse2: crate::Tier::Sse2, "sse2",
    features: "sse2",
    runtime: detect::has(detect::SSE2),
    compile_time: cfg!(target_feature = "sse2"),
    vector: vector::Sse2Vector,
    overrides: {},
}
