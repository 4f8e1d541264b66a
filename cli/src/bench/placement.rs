//! Each timing loop in several copies at different places in the code, so
//! that no result depends on where the linker happened to put one loop.
//!
//! The same loop, byte for byte, can run at very different speeds depending
//! on where it starts relative to a 64-byte line: with the inline paths of
//! `fastpath::fill` in it, a fixed 100-byte fill measured 0.83× glibc's
//! `memset` from one offset and 1.55× from another, in builds whose only
//! difference was 16 bytes of padding before the loop (AMD Zen 4); in the
//! same builds, the same kernel called through its pointer ranged from 0.83×
//! to 1.01× at 256 bytes. Code of the library that a change did not touch
//! then moved from fast to slow, because an unrelated change moved the
//! bench's own loop.
//!
//! So every implementation's timing loop is compiled [`PLACEMENTS`] times,
//! each copy behind [`PAD`] more bytes of `nop`s than the one before, and
//! the `nop`s start on a 64-byte boundary, so that the copies put the loop
//! at each of the four 16-byte steps of a line. The boundary is needed: the
//! linker starts each copy's function on any 16-byte boundary, and with
//! the `nop`s alone the four copies of the `memcpy` loop put its 16-byte
//! moves at 58, 10, 10 and 42 bytes into a line in one build, and at 58,
//! 42, 58 and 26 in the next, which changed only the CLI's code: 16-byte
//! `fastpath::copy`s went from 2.94-2.98× `copy_from_slice` to 1.79-1.84×,
//! and 32 and 64-byte ones from 1.44-1.49× to 1.17-1.25× (AMD EPYC Zen 5,
//! `fastpath bench --rows`, three processes of each build in turn). With
//! the boundary (moves at 42, 58, 10 and 26): 2.33-2.38× and 1.47-1.50×.
//! The rounds take the copies in turn (see `harness`), every
//! implementation alike, baselines included, and the median over the
//! rounds is then that of the loop over its placements, not of one
//! placement.

use super::blocks::Block;

/// How many copies of each timing loop there are: one per 16-byte offset in
/// a 64-byte line.
pub const PLACEMENTS: usize = 4;

/// The bytes of padding between one copy and the next.
pub const PAD: usize = 16;

/// An implementation's timing loop, compiled once for each placement.
pub trait Placed {
    /// The timing loop: calls the implementation `iters` times on `block`.
    /// Implementations are `#[inline(always)]`, so that each caller below
    /// has its own copy of the loop.
    fn repeat(&self, block: &mut Block<'_>, iters: u64);
}

/// Runs `kernel`'s timing loop from the copy `placement` (modulo
/// [`PLACEMENTS`]).
pub fn run<K: Placed>(kernel: &K, block: &mut Block<'_>, iters: u64, placement: usize) {
    match placement % PLACEMENTS {
        0 => run_at::<K, 0>(kernel, block, iters),
        1 => run_at::<K, 1>(kernel, block, iters),
        2 => run_at::<K, 2>(kernel, block, iters),
        _ => run_at::<K, 3>(kernel, block, iters),
    }
}

/// The copy `P` of `kernel`'s timing loop: `P * PAD` bytes of `nop`s, run
/// once per sample, then the loop.
#[inline(never)]
fn run_at<K: Placed, const P: usize>(kernel: &K, block: &mut Block<'_>, iters: u64) {
    pad::<P>();
    kernel.repeat(block, iters);
}

/// `nop`s to the next 64-byte boundary, then `P * PAD` bytes of `nop`s,
/// inline: they move every instruction after them, and so the loop. (The
/// boundary inside the function makes the assembler align the function's
/// section, and so the function, to 64 bytes as well.)
#[inline(always)]
fn pad<const P: usize>() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: one-byte `nop`s, which do nothing.
    unsafe {
        core::arch::asm!(
            ".p2align 6",
            ".rept {n}", "nop", ".endr",
            n = const P * PAD,
            options(nomem, nostack, preserves_flags)
        );
    }
    #[cfg(target_arch = "aarch64")]
    // SAFETY: four-byte `nop`s, which do nothing.
    unsafe {
        core::arch::asm!(
            ".p2align 6",
            ".rept {n}", "nop", ".endr",
            n = const P * PAD / 4,
            options(nomem, nostack, preserves_flags)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Count(std::cell::Cell<u64>);

    impl Placed for Count {
        fn repeat(&self, _block: &mut Block<'_>, iters: u64) {
            self.0.set(self.0.get() + iters);
        }
    }

    #[test]
    fn every_placement_runs_the_loop() {
        let count = Count(std::cell::Cell::new(0));
        let mut src = [0u8; 4];
        let mut dst = [0u8; 4];
        let mut block = Block {
            src: &mut src,
            dst: &mut dst,
            calls: &[],
            next: 0,
        };
        for placement in 0..2 * PLACEMENTS {
            run(&count, &mut block, 3, placement);
        }
        assert_eq!(count.0.get(), 3 * 2 * PLACEMENTS as u64);
    }
}
