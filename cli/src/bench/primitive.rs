//! What the bench measures: a primitive of the library, its implementations,
//! and the type-erased [`Kernel`] through which the harness checks and times
//! each of them, so that primitives with other signatures (copy, fill) fit
//! the same harness.

use fastpath::arch::Kernels;

use super::blocks::Block;
use crate::results::{Alignment, Kind};

/// A primitive of the library and how to bench it.
pub struct Primitive {
    /// Its name in the output.
    pub name: &'static str,
    /// The name that selects it on the command line (`fastpath bench
    /// NAME`); primitives measured together share one.
    pub command: &'static str,
    /// Every implementation to measure: the tiers available on this CPU, the
    /// library's entry point, the baselines, then the bound (where there is
    /// one).
    pub implementations: fn() -> Vec<Implementation>,
    /// The block sizes measured without `--sizes`.
    pub default_sizes: &'static [usize],
    /// The largest block size the implementations handle exactly.
    pub max_size: usize,
    /// Where the blocks of the rows of fixed sizes start: each size is
    /// measured at each of these placements, in this order.
    pub alignments: &'static [Alignment],
    /// The baselines the summary compares with, by name, each in a table of
    /// its own; empty: the fastest baseline of each row.
    pub compare_with: &'static [&'static str],
}

/// One implementation of a primitive.
pub struct Implementation {
    pub name: String,
    pub kind: Kind,
    pub kernel: Box<dyn Kernel>,
}

/// The implementation named `name` that runs `kernel`.
pub fn implementation(name: String, kind: Kind, kernel: impl Kernel + 'static) -> Implementation {
    Implementation {
        name,
        kind,
        kernel: Box::new(kernel),
    }
}

/// The implementations of the library that a primitive's list starts with:
/// one per kernel table this CPU runs (`fastpath::arch::variants`: each
/// tier, and the AVX-512 tier's two tables where the CPU has VNNI), running
/// `table(kernels)`; then the public entry point, named after the active
/// tier, running `entry_point`.
pub fn library<K: Kernel + 'static>(
    table: impl Fn(&'static Kernels) -> K,
    entry_point: K,
) -> Vec<Implementation> {
    let tables = fastpath::arch::variants()
        .map(|kernels| implementation(kernels.name().to_owned(), Kind::Tier, table(kernels)));
    let dispatch = implementation(
        format!("fastpath (dispatch: {})", fastpath::active_tier()),
        Kind::Dispatch,
        entry_point,
    );
    tables.chain([dispatch]).collect()
}

/// A type-erased implementation: checked once, then run in a timed loop.
pub trait Kernel {
    /// Checks the result on `block` against the reference; the error says
    /// what was expected and what came out.
    fn check(&self, block: &mut Block<'_>) -> Result<(), String>;

    /// Calls the implementation `iters` times on `block`, with its input and
    /// output hidden from the optimizer (`std::hint::black_box`), from the
    /// copy `placement` of its timing loop ([`placement`](super::placement)).
    fn run(&self, block: &mut Block<'_>, iters: u64, placement: usize);

    /// Puts `block` in the state each sample starts from, before the sample
    /// is timed. By default nothing: a sample then starts from the state the
    /// previous one left, which is another implementation's, and always the
    /// same one (the rotation keeps the cyclic order).
    fn prepare(&self, _block: &mut Block<'_>) {}
}
