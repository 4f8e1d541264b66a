//! The SSE2 tier: 128-bit vectors, part of every x86_64 CPU.

mod checksum;
pub(crate) use checksum::checksum;
mod copy;
pub(crate) use copy::copy_checksum;
pub(crate) mod fill;
pub(crate) use fill::{fill, fill_nontemporal};

crate::arch::tier_type! {
    /// The SSE2 tier. Holding a value proves that the CPU has SSE2.
    Sse2,
    runtime: std::is_x86_feature_detected!("sse2"),
    compile_time: cfg!(target_feature = "sse2"),
}
