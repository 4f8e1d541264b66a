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

/// Every tier this CPU has, built from its kernel directly (and the AVX-512
/// tier's kernel without VNNI, where the tier uses the VNNI one); the public
/// entry point; then the baselines, the reference first.
fn implementations() -> Vec<Implementation> {
    let tiers = Tier::ALL.into_iter().flat_map(|tier| {
        let kernel = fastpath::arch::sum_kernel(tier)
            .map(|sum| implementation(tier.name().to_owned(), Kind::Tier, Function::Sum(sum)));
        kernel.into_iter().chain(variants(tier))
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

/// The kernels a tier has besides the one it uses.
fn variants(tier: Tier) -> Option<Implementation> {
    #[cfg(target_arch = "x86_64")]
    if tier == Tier::Avx512 && fastpath::arch::x86_64::Avx512Vnni::is_available() {
        // SAFETY: `Avx512Vnni::is_available` found AVX-512F and AVX-512BW
        // along with VNNI.
        let sum: fn(&[u8]) -> u16 =
            |data| unsafe { fastpath::arch::x86_64::Avx512::new_unchecked() }.sum(data);
        return Some(implementation(
            "avx512 (no VNNI)".to_owned(),
            Kind::Tier,
            Function::Sum(sum),
        ));
    }
    let _ = tier;
    None
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
