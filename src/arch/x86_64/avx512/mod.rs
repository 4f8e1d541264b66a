//! The AVX-512 tier: 512-bit vectors and 64-bit byte masks.
//!
//! It needs exactly the subsets its kernels use: AVX-512F and AVX-512BW (byte
//! masks, 16-bit lanes on 512 bits). Its copy and fill are the generic
//! algorithms on `vector::Avx512Vector`, whose short fill is one masked
//! store (`fill.rs`); its checksum and copy-and-checksum are its own,
//! built on byte masks (`checksum.rs`, `copy.rs`). The tier has two tables:
//! where the CPU also has AVX512-VNNI, its checksum and copy-and-checksum
//! are [`Avx512Vnni`]'s, one instruction per 64 bytes shorter (`vnni.rs`).

mod checksum;
mod copy;
pub(crate) mod fill;
pub(crate) mod vector;
mod vnni;

pub use vnni::Avx512Vnni;

use super::detect;

crate::arch::tier_type::tier_type! {
    /// The AVX-512 tier. Holding a value proves that the CPU has AVX-512F
    /// and AVX-512BW.
    Avx512: crate::Tier::Avx512, "avx512",
    features: "avx512f,avx512bw",
    runtime: detect::has(detect::AVX512F | detect::AVX512BW),
    compile_time: cfg!(all(target_feature = "avx512f", target_feature = "avx512bw")),
    vector: vector::Avx512Vector,
    overrides: {
        checksum: checksum::checksum_masked,
        copy_checksum: copy::copy_checksum_masked,
    },
}
