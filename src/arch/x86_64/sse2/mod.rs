//! The SSE2 tier: 128-bit vectors, part of every x86_64 CPU.

mod checksum;
mod copy;
pub(crate) mod fill;
mod memcpy;

use super::detect;

crate::arch::tier_type::tier_type! {
    /// The SSE2 tier. Holding a value proves that the CPU has SSE2.
    Sse2: crate::Tier::Sse2, "sse2",
    runtime: detect::has(detect::SSE2),
    compile_time: cfg!(target_feature = "sse2"),
    kernels: standard,
}
