//! The plain copy, `fastpath::copy`, against `copy_from_slice` (glibc's
//! `memcpy`): `fastpath bench copy` measures it after the fused
//! copy-and-checksum, as the `memcpy` section.
//!
//! `fastpath::copy` is called as an application calls it, so its short path
//! is inlined into the timing loop, as `copy_from_slice` is; each tier's
//! kernel is called through its table (and so is the bound, which makes
//! the dispatch rows of short blocks look faster than the bound: more than
//! 100% efficient). Every size is copied aligned, then with one of the two
//! blocks at +1 or at +14 from a 64-byte boundary (an IP header behind an
//! Ethernet header) and the other aligned: the rows `src+S dst+D`, since a
//! copy may handle a misaligned source and a misaligned destination
//! differently. The rows `dst D past src` put the destination 1 or 14
//! bytes past the source modulo the page (the others keep them half a page
//! apart): where AMD Zen 3's and Zen 4's `rep movsb`, which glibc's
//! `memcpy` runs from about 2 KiB to the L2 size, is many times slower.
//! Random rows copy the next (offset, length) of a table drawn
//! once, from the same offset of the source and the destination regions, as
//! the fill bench does (see `fill.rs`).

use std::hint::black_box;

use fastpath::arch::Kernels;

use super::blocks::{Block, next_calls, warm_up_calls};
use super::bound::Bound;
use super::opaque;
use super::placement::{self, Placed};
use super::primitive::{Implementation, Kernel, Primitive, implementation, library};
use crate::results::{Alignment, Kind, Lengths};

pub const PRIMITIVE: Primitive = Primitive {
    name: "memcpy",
    command: "copy",
    implementations,
    default_sizes: SIZES,
    max_size: 1 << 30,
    alignments: &[
        Alignment::Aligned,
        Alignment::Offsets { src: 1, dst: 0 },
        Alignment::Offsets { src: 0, dst: 1 },
        Alignment::Offsets { src: 14, dst: 0 },
        Alignment::Offsets { src: 0, dst: 14 },
        Alignment::Near { dst: 1 },
        Alignment::Near { dst: 14 },
    ],
    compare_with: &[COPY_FROM_SLICE],
};

/// Short lengths on either side of the inline path's steps, packet sizes,
/// pages, and sizes out of L2 (256 KiB), out of L3 (4 MiB) and out of every
/// cache (64 MiB).
const SIZES: &[usize] = &[
    1,
    8,
    16,
    32,
    64,
    100,
    256,
    1500,
    2048,
    4096,
    9000,
    16384,
    65536,
    262_144,
    4 << 20,
    64 << 20,
];

/// The random rows: lengths uniform up to a header, a small packet, an
/// Ethernet MTU and a jumbo frame, over a page; and up to a header and up
/// to 1 KiB over a window of 32 KiB, as the buffers of an application
/// spread them (`Lengths::Window`).
pub const RANDOM_ROWS: &[(Lengths, usize)] = &[
    (Lengths::Uniform, 64),
    (Lengths::Uniform, 256),
    (Lengths::Uniform, 1500),
    (Lengths::Uniform, 9000),
    (Lengths::Window, 64),
    (Lengths::Window, 1024),
];

/// The baseline's name.
const COPY_FROM_SLICE: &str = "copy_from_slice";

/// Calls of a random row that are checked before timing.
const CHECKED_CALLS: usize = 4096;

/// Every kernel table this CPU runs; the public entry point;
/// `copy_from_slice`; then the bound, which loads and stores the block.
fn implementations() -> Vec<Implementation> {
    let mut all = library(Function::Table, Function::Copy);
    all.push(implementation(
        COPY_FROM_SLICE.to_owned(),
        Kind::Baseline,
        Function::CopyFromSlice,
    ));
    all.extend(Bound::active().map(|bound| {
        implementation(
            bound.name("loads and stores"),
            Kind::Bound,
            Function::Bound(bound),
        )
    }));
    all
}

/// A copy implementation.
#[derive(Clone, Copy)]
enum Function {
    /// A kernel table's copy, through the table.
    Table(&'static Kernels),
    /// `fastpath::copy`, inlined.
    Copy,
    /// `copy_from_slice`: glibc's `memcpy`.
    CopyFromSlice,
    /// The bound, through its function pointer.
    Bound(Bound),
}

impl Function {
    fn call(self, dst: &mut [u8], src: &[u8]) {
        match self {
            Function::Table(kernels) => kernels.copy(dst, src),
            Function::Copy => fastpath::copy(dst, src),
            Function::CopyFromSlice => dst.copy_from_slice(src),
            Function::Bound(bound) => bound.loops().copy(dst, src),
        }
    }
}

impl Kernel for Function {
    fn check(&self, block: &mut Block<'_>) -> Result<(), String> {
        if block.calls.is_empty() {
            block.dst.fill(!block.src.first().copied().unwrap_or(0));
            self.call(block.dst, block.src);
            return if block.dst == block.src {
                Ok(())
            } else {
                Err("the destination differs from the source".to_owned())
            };
        }
        // The first calls of the table; the destination region is set to
        // the complement of the source first, so that a byte not copied
        // shows.
        for call in block.calls.iter().take(CHECKED_CALLS) {
            let range = call.offset as usize..(call.offset + call.len) as usize;
            let from = call.src_offset as usize;
            for (d, s) in block.dst.iter_mut().zip(block.src) {
                *d = !*s;
            }
            self.call(
                &mut block.dst[range.clone()],
                &block.src[from..from + call.len as usize],
            );
            for (i, (&d, &s)) in block.dst.iter().zip(block.src).enumerate() {
                let expected = if range.contains(&i) {
                    block.src[from + i - range.start]
                } else {
                    !s
                };
                if d != expected {
                    return Err(format!(
                        "copying {} bytes from offset {from} to offset {}: byte {i} is \
                         {d:#04x}, expected {expected:#04x}",
                        call.len, call.offset
                    ));
                }
            }
        }
        Ok(())
    }

    /// On a fixed row, one untimed call of the same implementation, so that
    /// each sample starts where that implementation's previous call left
    /// the blocks, as the fills called as applications call them do (see
    /// `fill.rs`): not where the implementation before it in the round
    /// left them, which past the caches decides by its dirty lines. On a
    /// random row, the calls of [`warm_up_calls`], untimed, likewise.
    fn prepare(&self, block: &mut Block<'_>) {
        if block.calls.is_empty() {
            self.call(block.dst, block.src);
        } else {
            let calls = warm_up_calls(block);
            self.repeat(block, calls);
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
            Function::Table(kernels) => {
                let kernels = black_box(kernels);
                repeat(block, iters, |dst, src| kernels.copy(dst, src));
            }
            Function::Copy => repeat(block, iters, fastpath::copy),
            Function::CopyFromSlice => repeat(block, iters, |dst, src| dst.copy_from_slice(src)),
            Function::Bound(bound) => {
                let bound = black_box(bound);
                repeat(block, iters, |dst, src| bound.loops().copy(dst, src));
            }
        }
    }
}

/// Calls `copy` `iters` times: on the block, or on the next calls of the
/// block's table ([`next_calls`]).
#[inline(always)]
fn repeat(block: &mut Block<'_>, iters: u64, mut copy: impl FnMut(&mut [u8], &[u8])) {
    if block.calls.is_empty() {
        // In locals, kept in registers (see `next_calls`).
        let (src, dst): (&[u8], &mut [u8]) = (block.src, &mut *block.dst);
        for _ in 0..iters {
            copy(opaque::slice_mut(&mut *dst), opaque::slice(src));
        }
        return;
    }
    next_calls(block, iters, |src, dst, call| {
        let (to, from, len) = (
            call.offset as usize,
            call.src_offset as usize,
            call.len as usize,
        );
        copy(
            opaque::slice_mut(&mut dst[to..to + len]),
            opaque::slice(&src[from..from + len]),
        );
    });
}
