//! The AVX2 copy kernel: the shared algorithm (`arch/memcpy.rs`) on
//! AVX2 registers.

use crate::arch::memcpy::copy_kernel;
use crate::arch::x86_64::vector::Avx2Vector;

copy_kernel!(Avx2Vector, "avx2");
