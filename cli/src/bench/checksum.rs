//! The checksum primitive: its implementations and how to run them.

use std::hint::black_box;

use super::blocks::Block;
use super::bound::Bound;
use super::placement::{self, Placed};
use super::primitive::{Implementation, Kernel, Primitive, implementation, library};
use super::{baselines, opaque};
use crate::results::{Alignment, Kind};

pub const PRIMITIVE: Primitive = Primitive {
    name: "checksum",
    command: "checksum",
    implementations,
    default_sizes: super::DPDK_SIZES,
    // The baselines with a 32-bit accumulator (DPDK's loop, smoltcp) are
    // exact up to 65 537 words of 0xffff.
    max_size: 128 * 1024,
    // The checksum writes no destination: only the source's +1 counts.
    alignments: &[Alignment::Aligned, Alignment::Unaligned { dst: 1 }],
    compare_with: &[],
};

/// Every kernel table this CPU runs; the public entry point; the baselines,
/// the reference first; then the bound, which loads the block.
fn implementations() -> Vec<Implementation> {
    let mut all = library(Function::Table, Function::Checksum(fastpath::checksum));
    all.extend(baselines::ALL.iter().map(|&(name, checksum)| {
        implementation(
            name.to_owned(),
            Kind::Baseline,
            Function::Checksum(checksum),
        )
    }));
    all.extend(
        Bound::active()
            .map(|bound| implementation(bound.name("loads"), Kind::Bound, Function::Bound(bound))),
    );
    all
}

/// A checksum implementation behind a function pointer, so that every one of
/// them pays the same indirect call (DPDK's autotest calls `rte_raw_cksum`
/// through a `__rte_noinline` wrapper for the same reason).
#[derive(Clone, Copy)]
enum Function {
    /// Returns the checksum.
    Checksum(fn(&[u8]) -> u16),
    /// A kernel table, whose checksum is a pointer to the tier's kernel.
    Table(&'static fastpath::arch::Kernels),
    /// The bound: loads the data, computes nothing.
    Bound(Bound),
}

impl Kernel for Function {
    fn check(&self, block: &mut Block<'_>) -> Result<(), String> {
        let expected = fastpath::reference::checksum(block.src);
        let got = match *self {
            Function::Checksum(checksum) => checksum(block.src),
            Function::Table(kernels) => kernels.checksum(block.src),
            // Nothing comes out of loads to check.
            Function::Bound(_) => return Ok(()),
        };
        if got == expected {
            Ok(())
        } else {
            Err(format!("checksum {got:#06x}, expected {expected:#06x}"))
        }
    }

    fn run(&self, block: &mut Block<'_>, iters: u64, placement: usize) {
        placement::run(self, block, iters, placement);
    }
}

impl Placed for Function {
    #[inline(always)]
    fn repeat(&self, block: &mut Block<'_>, iters: u64) {
        // The match is outside the loop: each arm is its own tight loop.
        match *self {
            Function::Checksum(checksum) => repeat(block.src, iters, black_box(checksum)),
            Function::Table(kernels) => {
                let kernels = black_box(kernels);
                repeat(block.src, iters, |data: &[u8]| kernels.checksum(data))
            }
            Function::Bound(bound) => {
                let bound = black_box(bound);
                for _ in 0..iters {
                    bound.loops().load(opaque::slice(block.src));
                }
            }
        }
    }
}

#[inline(always)]
fn repeat(data: &[u8], iters: u64, checksum: impl Fn(&[u8]) -> u16) {
    for _ in 0..iters {
        opaque::consume(checksum(opaque::slice(data)));
    }
}
