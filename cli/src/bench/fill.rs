//! The fill primitive: `fastpath::fill` against glibc's `memset`.
//!
//! The baseline is `slice::fill` on a slice whose length the compiler does
//! not know, which is how Rust code reaches `memset`: a call through the
//! PLT into glibc's variant for the CPU (`__memset_avx512_unaligned_erms` on
//! the development machine). `fastpath::fill` and `fastpath::fill_nontemporal`
//! are called as an application calls them, so `fill` is inlined into the
//! timing loop as it is into its callers: measuring that is the point. Each
//! tier's kernel is called through a function pointer.
//!
//! Two kinds of rows:
//! - fixed lengths (every call fills the same block), Aligned and Unaligned
//!   (+1), where the branch predictor learns the length;
//! - random rows: each call fills the next (offset, length) of a table drawn
//!   once from a fixed seed, the same for every implementation: lengths
//!   uniform in 0..=N or log-uniform in 1..=N, offsets uniform over a page
//!   (so random alignment, and as many page crossings as chance gives).
//!   Each sample goes on where the one before stopped, so the predictor
//!   never sees a sequence again soon enough to learn it
//!   ([`next_calls`]): these rows separate branchy code from branch-free
//!   code.
//!
//! Before each sample the destination is read once, line by line, so that
//! every sample starts with it in the caches, clean ([`Kernel::prepare`]):
//! the rounds keep the implementations' cyclic order, so each would
//! otherwise start where the same neighbour left the buffer, and after
//! non-temporal stores, which leave it in memory only, glibc's `rep stosb`
//! kept it there and measured 3× slower at 1 MiB than after cached stores.
//!
//! In the timing loop the destination's address and length pass through an
//! empty `asm!` block, in registers ([`opaque`](super::opaque)), so the
//! compiler can neither see the length nor drop or merge the stores.
//! `std::hint::black_box` does the same through memory, a store and a
//! reload per call, which was as long as an inlined fill of 64 bytes (about
//! 2 cycles) and so halved the measured speed-ups. The value is a constant,
//! as it is for callers (`zero`, `fill(.., 0xff)`): hiding it with
//! `black_box` left it in memory, to be reloaded and broadcast again every
//! call, because the barrier may write memory.

use std::hint::black_box;

use fastpath::Tier;
use fastpath::arch::FillKernel;

use super::blocks::{Block, next_calls, warm_up_calls};
use super::bound::Bound;
use super::opaque::slice_mut as opaque;
use super::placement::{self, Placed};
use super::primitive::{Implementation, Kernel, Primitive, implementation};
use crate::results::{Alignment, Kind, Lengths};

pub const PRIMITIVE: Primitive = Primitive {
    name: "fill",
    command: "fill",
    implementations,
    default_sizes: SIZES,
    max_size: 1 << 30,
    // The destination, the only block a fill touches, at +1.
    alignments: &[Alignment::Aligned, Alignment::Unaligned { dst: 1 }],
    compare_with: &[MEMSET],
};

/// The fixed lengths: every small length where a memset changes strategy,
/// packet sizes, pages, and sizes out of L2 (1 MiB) and out of every cache
/// (64 MiB).
const SIZES: &[usize] = &[
    1,
    2,
    3,
    4,
    7,
    8,
    15,
    16,
    31,
    32,
    63,
    64,
    100,
    128,
    256,
    512,
    1024,
    1500,
    2048,
    4096,
    8192,
    65536,
    1 << 20,
    64 << 20,
];

/// The fills timed as an application calls them, beside the rows above:
/// the value a run-time value, the destination left as the same
/// implementation's call before left it (never read between calls), and the random rows over a window
/// of 32 KiB (`Lengths::Window`). Their own primitive, so that `--check`
/// compares each entry point with `memset` called the same way.
pub const OUTSIDE: Primitive = Primitive {
    name: "fill, as applications call it",
    implementations: outside_implementations,
    ..PRIMITIVE
};

/// The random rows of [`OUTSIDE`].
pub const OUTSIDE_RANDOM_ROWS: &[(Lengths, usize)] = &[
    (Lengths::Window, 64),
    (Lengths::Window, 256),
    (Lengths::Window, 1024),
];

/// The random rows: how lengths are drawn, and the largest.
pub const RANDOM_ROWS: &[(Lengths, usize)] = &[
    (Lengths::Uniform, 16),
    (Lengths::Uniform, 64),
    (Lengths::Uniform, 256),
    (Lengths::Uniform, 1024),
    (Lengths::LogUniform, 65536),
];

/// The baseline's name.
const MEMSET: &str = "slice::fill (glibc memset)";

/// The byte every implementation stores.
const VALUE: u8 = 0x5a;

/// Calls of a random row that are checked before timing.
const CHECKED_CALLS: usize = 4096;

/// Every tier this CPU has, through its kernel; the public entry points;
/// glibc; then the bound, which stores the block with cached stores: the
/// bound of `fill_nontemporal` too, which stores as `fill` does up to the
/// blocks it streams (and there may beat it, out of the caches).
fn implementations() -> Vec<Implementation> {
    let tiers = Tier::ALL.into_iter().filter_map(|tier| {
        let kernel = fastpath::arch::fill_kernel(tier)?;
        Some(implementation(
            tier.name().to_owned(),
            Kind::Tier,
            Function::Tier(kernel),
        ))
    });
    let tier = fastpath::active_tier();
    let entry_points = [
        implementation(
            format!("fastpath::fill (dispatch: {tier})"),
            Kind::Dispatch,
            Function::Fill,
        ),
        implementation(
            format!("fastpath::fill_nontemporal (dispatch: {tier})"),
            Kind::Dispatch,
            Function::NonTemporal,
        ),
    ];
    let baseline = implementation(MEMSET.to_owned(), Kind::Baseline, Function::Memset);
    let bound = Bound::active()
        .map(|bound| implementation(bound.name("stores"), Kind::Bound, Function::Bound(bound)));
    tiers
        .chain(entry_points)
        .chain([baseline])
        .chain(bound)
        .collect()
}

/// The implementations of [`OUTSIDE`]: the public entry points and
/// `slice::fill`, called as applications call them.
fn outside_implementations() -> Vec<Implementation> {
    let tier = fastpath::active_tier();
    vec![
        implementation(
            format!("fastpath::fill (dispatch: {tier})"),
            Kind::Dispatch,
            Outside(Function::Fill),
        ),
        implementation(
            format!("fastpath::fill_nontemporal (dispatch: {tier})"),
            Kind::Dispatch,
            Outside(Function::NonTemporal),
        ),
        implementation(MEMSET.to_owned(), Kind::Baseline, Outside(Function::Memset)),
    ]
}

/// A fill implementation called as applications call it: the value hidden
/// from the optimizer, the destination never prepared.
#[derive(Clone, Copy)]
struct Outside(Function);

impl Kernel for Outside {
    fn check(&self, block: &mut Block<'_>) -> Result<(), String> {
        self.0.check(block)
    }

    /// On a fixed row, one untimed call of the same implementation, so that
    /// each sample starts where that implementation's previous call left
    /// the destination, as in an application that calls it over and over,
    /// not where the implementation before it in the round left it. At
    /// 64 MiB, past every cache, that neighbour decided the row (Zen 4,
    /// both regimes, cycles a byte): after `fill_nontemporal`, whose stores
    /// leave the caches empty of the block, glibc's `memset` ran
    /// 0.0957-0.0972 and `fastpath::fill`, the same `rep stosb`, after
    /// `memset`'s dirty lines 0.0989-0.0991, and `fill_nontemporal` after
    /// `fill`'s 0.0997-0.1008; each after its own call, `memset` ran
    /// 0.102-0.108, `fill` 0.100-0.109 and `fill_nontemporal` 0.097-0.098.
    /// On a random row, the calls of [`warm_up_calls`] of the same
    /// implementation, untimed, for the same reason: the window and the
    /// table then start each sample in the caches, as that implementation's
    /// previous calls leave them, not as the 64 MiB row before it in the
    /// round leaves them.
    fn prepare(&self, block: &mut Block<'_>) {
        if block.calls.is_empty() {
            self.0.call(block.dst, black_box(VALUE));
        } else {
            let calls = warm_up_calls(block);
            self.repeat(block, calls);
        }
    }

    fn run(&self, block: &mut Block<'_>, iters: u64, placement: usize) {
        placement::run(self, block, iters, placement);
    }
}

impl Placed for Outside {
    #[inline(always)]
    fn repeat(&self, block: &mut Block<'_>, iters: u64) {
        // A value the compiler cannot see, in a register, as a caller's
        // argument is.
        self.0.repeat_with(block, iters, black_box(VALUE));
    }
}

/// A fill implementation.
#[derive(Clone, Copy)]
enum Function {
    /// A tier's kernel, through a function pointer.
    Tier(FillKernel),
    /// `fastpath::fill`, inlined.
    Fill,
    /// `fastpath::fill_nontemporal`.
    NonTemporal,
    /// `slice::fill`: glibc's `memset`.
    Memset,
    /// The bound, through its function pointer.
    Bound(Bound),
}

impl Function {
    fn call(self, dst: &mut [u8], value: u8) {
        match self {
            Function::Tier(fill) => fill(dst, value),
            Function::Fill => fastpath::fill(dst, value),
            Function::NonTemporal => fastpath::fill_nontemporal(dst, value),
            Function::Memset => dst.fill(value),
            Function::Bound(bound) => bound.loops().store(dst, value),
        }
    }
}

/// Calls `$call` on a slice `$dst` `iters` times: on the block, or on the
/// next calls of the block's table ([`next_calls`]). A macro, so that each
/// loop has the call written in it: passed to a function as a closure or a
/// function item, `fastpath::fill` (always inlined) stayed in a function of
/// its own once the timing loop was compiled in several copies
/// ([`placement`]), and the bench timed a call the applications do not make.
macro_rules! repeat {
    ($block:expr, $iters:expr, |$dst:ident| $call:expr) => {{
        let block: &mut Block<'_> = $block;
        let iters: u64 = $iters;
        if block.calls.is_empty() {
            // In a local, kept in registers (see `next_calls`).
            let dst: &mut [u8] = &mut *block.dst;
            for _ in 0..iters {
                let $dst = opaque(&mut *dst);
                $call;
            }
        } else {
            next_calls(block, iters, |_, dst, call| {
                let start = call.offset as usize;
                let $dst = opaque(&mut dst[start..start + call.len as usize]);
                $call;
            });
        }
    }};
}

impl Kernel for Function {
    fn check(&self, block: &mut Block<'_>) -> Result<(), String> {
        if block.calls.is_empty() {
            block.dst.fill(!VALUE);
            self.call(block.dst, VALUE);
            return match block.dst.iter().position(|&b| b != VALUE) {
                Some(i) => Err(format!(
                    "byte {i} is {:#04x}, expected {VALUE:#04x}",
                    block.dst[i]
                )),
                None => Ok(()),
            };
        }
        // The first calls of the table, each with up to 64 bytes around it,
        // which must stay as they were.
        let region = &mut *block.dst;
        for call in block.calls.iter().take(CHECKED_CALLS) {
            let (start, end) = (call.offset as usize, (call.offset + call.len) as usize);
            let around = start.saturating_sub(64)..(end + 64).min(region.len());
            region[around.clone()].fill(!VALUE);
            self.call(&mut region[start..end], VALUE);
            for i in around {
                let expected = if (start..end).contains(&i) {
                    VALUE
                } else {
                    !VALUE
                };
                if region[i] != expected {
                    return Err(format!(
                        "filling {} bytes at offset {start}: byte {i} is {:#04x}, \
                         expected {expected:#04x}",
                        call.len, region[i]
                    ));
                }
            }
        }
        Ok(())
    }

    /// Reads one byte of every cache line of the destination, so that every
    /// sample starts with it in the caches (as far as they hold it), clean
    /// (see the module docs).
    fn prepare(&self, block: &mut Block<'_>) {
        let mut any = 0u8;
        for line in block.dst.chunks(64) {
            any |= line[0];
        }
        black_box(any);
    }

    fn run(&self, block: &mut Block<'_>, iters: u64, placement: usize) {
        placement::run(self, block, iters, placement);
    }
}

impl Placed for Function {
    #[inline(always)]
    fn repeat(&self, block: &mut Block<'_>, iters: u64) {
        self.repeat_with(block, iters, VALUE);
    }
}

impl Function {
    /// The timing loop of [`Placed::repeat`], storing `value`.
    #[inline(always)]
    fn repeat_with(&self, block: &mut Block<'_>, iters: u64, value: u8) {
        // The match is outside the loop: each arm is its own tight loop.
        match *self {
            Function::Tier(fill) => {
                let fill = black_box(fill);
                repeat!(block, iters, |dst| fill(dst, value));
            }
            Function::Fill => repeat!(block, iters, |dst| fastpath::fill(dst, value)),
            Function::NonTemporal => {
                repeat!(block, iters, |dst| fastpath::fill_nontemporal(dst, value));
            }
            Function::Memset => repeat!(block, iters, |dst| dst.fill(value)),
            Function::Bound(bound) => {
                let bound = black_box(bound);
                repeat!(block, iters, |dst| bound.loops().store(dst, value));
            }
        }
    }
}
