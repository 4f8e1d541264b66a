//! The copy primitive: fused copy-and-checksum against a copy alone and a
//! copy followed by a checksum.

use std::hint::black_box;
use std::mem::MaybeUninit;

use super::blocks::Block;
use super::bound::Bound;
use super::placement::{self, Placed};
use super::primitive::{Implementation, Kernel, Primitive, implementation, library};
use super::{DPDK_SIZES, opaque};
use crate::results::{Alignment, Kind};

pub const PRIMITIVE: Primitive = Primitive {
    name: "copy",
    command: "copy",
    implementations,
    default_sizes: SIZES,
    max_size: 1 << 30,
    alignments: &[Alignment::Aligned, Alignment::Unaligned { dst: 3 }],
    compare_with: &[TWO_PASS, COPY_ONLY],
};

/// The checksum bench's sizes, plus pages, a large TSO buffer and sizes out
/// of the caches (4 MiB from L3, 64 MiB from memory).
const SIZES: &[usize] = &{
    let mut sizes = [0; DPDK_SIZES.len() + 5];
    let extra = [4096, 16384, 262_144, 4 << 20, 64 << 20];
    let mut i = 0;
    while i < DPDK_SIZES.len() {
        sizes[i] = DPDK_SIZES[i];
        i += 1;
    }
    while i < sizes.len() {
        sizes[i] = extra[i - DPDK_SIZES.len()];
        i += 1;
    }
    // In increasing order, for the tables and the plot.
    let mut a = 0;
    while a < sizes.len() {
        let mut b = a + 1;
        while b < sizes.len() {
            if sizes[b] < sizes[a] {
                let t = sizes[a];
                sizes[a] = sizes[b];
                sizes[b] = t;
            }
            b += 1;
        }
        a += 1;
    }
    sizes
};

/// The two-pass baseline's name.
const TWO_PASS: &str = "copy_from_slice + checksum";

/// The copy-only baseline's name.
const COPY_ONLY: &str = "copy_from_slice";

/// Every kernel table this CPU runs; the public entry point; the baselines:
/// a copy followed by fastpath's checksum (two passes over the data), and a
/// copy alone; then the bound, which loads and stores the block.
fn implementations() -> Vec<Implementation> {
    let mut all = library(Function::Table, Function::Fused(fastpath::copy_checksum));
    all.extend([
        implementation(
            TWO_PASS.to_owned(),
            Kind::Baseline,
            Function::Fused(two_pass),
        ),
        implementation(
            COPY_ONLY.to_owned(),
            Kind::Baseline,
            Function::CopyOnly(copy_only),
        ),
    ]);
    all.extend(Bound::active().map(|bound| {
        implementation(
            bound.name("loads and stores"),
            Kind::Bound,
            Function::Bound(bound),
        )
    }));
    all
}

/// `copy_from_slice` (glibc's `memcpy`) then `fastpath::checksum`.
fn two_pass(dst: &mut [u8], src: &[u8]) -> u16 {
    dst.copy_from_slice(src);
    fastpath::checksum(src)
}

/// `copy_from_slice` alone: the floor that a fused copy-and-checksum aims at.
fn copy_only(dst: &mut [u8], src: &[u8]) {
    dst.copy_from_slice(src);
}

/// An implementation as a plain function pointer, so that every one pays the
/// same indirect call.
#[derive(Clone, Copy)]
enum Function {
    /// Copies and returns the checksum.
    Fused(fn(&mut [u8], &[u8]) -> u16),
    /// A kernel table, whose copy-and-checksum is a pointer to the tier's
    /// kernel: copies into possibly uninitialized memory and returns the
    /// folded sum.
    Table(&'static fastpath::arch::Kernels),
    /// Copies only.
    CopyOnly(fn(&mut [u8], &[u8])),
    /// The bound: moves the bytes, with no checksum.
    Bound(Bound),
}

impl Function {
    /// Copies and returns the checksum, if the implementation computes one.
    fn call(self, dst: &mut [u8], src: &[u8]) -> Option<u16> {
        match self {
            Function::Fused(f) => Some(f(dst, src)),
            Function::Table(k) => Some(!k.copy_sum_uninit(uninit(dst), src)),
            Function::CopyOnly(f) => {
                f(dst, src);
                None
            }
            Function::Bound(bound) => {
                bound.loops().copy(dst, src);
                None
            }
        }
    }
}

/// Views initialized bytes as possibly uninitialized ones for a tier's
/// kernel, which only writes initialized bytes.
fn uninit(bytes: &mut [u8]) -> &mut [MaybeUninit<u8>] {
    // SAFETY: `MaybeUninit<u8>` has the layout of `u8`, and the kernels
    // store only bytes read from their source.
    unsafe { &mut *(bytes as *mut [u8] as *mut [MaybeUninit<u8>]) }
}

impl Kernel for Function {
    fn check(&self, block: &mut Block<'_>) -> Result<(), String> {
        block.dst.fill(!block.src.first().copied().unwrap_or(0));
        let sum = self.call(block.dst, block.src);
        if block.dst != block.src {
            return Err("the destination differs from the source".to_owned());
        }
        let expected = fastpath::reference::checksum(block.src);
        match sum {
            Some(got) if got != expected => {
                Err(format!("checksum {got:#06x}, expected {expected:#06x}"))
            }
            _ => Ok(()),
        }
    }

    fn run(&self, block: &mut Block<'_>, iters: u64, placement: usize) {
        placement::run(self, block, iters, placement);
    }
}

impl Placed for Function {
    #[inline(always)]
    fn repeat(&self, block: &mut Block<'_>, iters: u64) {
        // In locals, so that the loops keep them in registers (see
        // `blocks::next_calls`).
        let (src, dst): (&[u8], &mut [u8]) = (block.src, &mut *block.dst);
        // The match is outside the loop: each arm is its own tight loop.
        match *self {
            Function::Fused(f) => {
                let f = black_box(f);
                for _ in 0..iters {
                    opaque::consume(f(opaque::slice_mut(&mut *dst), opaque::slice(src)));
                }
            }
            Function::Table(k) => {
                let k = black_box(k);
                for _ in 0..iters {
                    let dst = uninit(opaque::slice_mut(&mut *dst));
                    opaque::consume(k.copy_sum_uninit(dst, opaque::slice(src)));
                }
            }
            Function::CopyOnly(f) => {
                let f = black_box(f);
                for _ in 0..iters {
                    f(opaque::slice_mut(&mut *dst), opaque::slice(src));
                }
            }
            Function::Bound(bound) => {
                let bound = black_box(bound);
                for _ in 0..iters {
                    let dst = opaque::slice_mut(&mut *dst);
                    bound.loops().copy(dst, opaque::slice(src));
                }
            }
        }
    }
}
