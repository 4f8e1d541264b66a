//! The x86_64 tiers: SSE2, AVX2 and AVX-512.
//!
//! SSE2 and AVX2 share their algorithms, written once over a small vector
//! trait (the private module `vector`); AVX-512 has kernels of its own, built
//! on masked loads.

pub mod avx2;
pub mod avx512;
pub mod sse2;
mod vector;

pub use avx2::Avx2;
pub use avx512::{Avx512, Avx512Vnni};
pub use sse2::Sse2;
