//! The SSE2 copy kernel: the shared algorithm (`arch/memcpy.rs`) on
//! SSE2 registers.

use crate::arch::memcpy::copy_kernel;
use crate::arch::x86_64::vector::Sse2Vector;

copy_kernel!(Sse2Vector, "sse2");
