//! The checksum primitive: its implementations and how to run them.

use std::hint::black_box;

use fastpath::Tier;

use super::{Block, Implementation, Kernel, Kind, Primitive, baselines, opaque};

pub const PRIMITIVE: Primitive = Primitive {
    name: "checksum",
    active_tier: fastpath::active_tier,
    implementations,
    default_sizes: super::DPDK_SIZES,
    // The baselines with a 32-bit accumulator (DPDK's loop, smoltcp) are
    // exact up to 65 537 words of 0xffff.
    max_size: 128 * 1024,
    unaligned_dst_offset: 1,
    compare_with: &[],
};

/// Every tier this CPU has, built from its kernel directly; the public entry
/// point; then the baselines, the reference first.
fn implementations() -> Vec<Implementation> {
    let tiers = Tier::ALL.into_iter().filter_map(|tier| {
        let sum = fastpath::arch::sum_kernel(tier)?;
        Some(implementation(
            tier.name().to_owned(),
            Kind::Tier,
            Function::Sum(sum),
        ))
    });
    let dispatch = implementation(
        format!("fastpath (dispatch: {})", fastpath::active_tier()),
        Kind::Dispatch,
        Function::Checksum(fastpath::checksum),
    );
    let baselines = baselines::ALL.iter().map(|&(name, checksum)| {
        implementation(
            name.to_owned(),
            Kind::Baseline,
            Function::Checksum(checksum),
        )
    });
    tiers.chain([dispatch]).chain(baselines).collect()
}

fn implementation(name: String, kind: Kind, function: Function) -> Implementation {
    Implementation {
        name,
        kind,
        kernel: Box::new(function),
    }
}

/// A checksum implementation as a plain function pointer, so that every one
/// of them pays the same indirect call (DPDK's autotest calls
/// `rte_raw_cksum` through a `__rte_noinline` wrapper for the same reason).
#[derive(Clone, Copy)]
enum Function {
    /// Returns the checksum.
    Checksum(fn(&[u8]) -> u16),
    /// Returns the folded sum, whose complement is the checksum: a tier's
    /// kernel from `fastpath::arch::sum_kernel`.
    Sum(fn(&[u8]) -> u16),
}

impl Function {
    fn checksum(self, data: &[u8]) -> u16 {
        match self {
            Function::Checksum(checksum) => checksum(data),
            Function::Sum(sum) => !sum(data),
        }
    }
}

impl Kernel for Function {
    fn check(&self, block: &mut Block<'_>) -> Result<(), String> {
        let expected = fastpath::reference::checksum(block.src);
        let got = self.checksum(block.src);
        if got == expected {
            Ok(())
        } else {
            Err(format!("checksum {got:#06x}, expected {expected:#06x}"))
        }
    }

    fn run(&self, block: &mut Block<'_>, iters: u64) {
        // The match is outside the loop: each arm is its own tight loop.
        match *self {
            Function::Checksum(checksum) => repeat(block.src, iters, black_box(checksum)),
            Function::Sum(sum) => {
                repeat(block.src, iters, black_box(move |data: &[u8]| !sum(data)))
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
