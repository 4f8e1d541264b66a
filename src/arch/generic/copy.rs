//! The packet copy (memcpy), written once over each tier's [`Vector`]: the
//! kernels `copy` and `copy_or_hand_off` of every tier.
//!
//! # Algorithm
//!
//! With `W` the width of the tier's vector and `len` the length:
//!
//! - `len <= 64`: [`copy_short`] (in `arch/memcpy.rs`, as
//!   [`crate::copy()`] inlines it into its callers): for 17-64 bytes four overlapping 16-byte moves at computed
//!   offsets, for 4-16 four overlapping 4-byte words likewise, for 1-3 three
//!   single bytes: two branches in all, as the fill's short path (random
//!   lengths mispredict every branch on the length).
//!   All four loads come before the first store, and the buffers never
//!   overlap, so the overlapping moves write some bytes twice with the
//!   same value.
//! - `len <= 8W`: two, four or eight overlapping vectors, half from the
//!   start and half ending at the end, with no loop: all loaded, then all
//!   stored. (The AVX-512 kernel that the copy's dispatch caches moves the
//!   last 64 of 65-128 bytes as two 32-byte vectors instead:
//!   `avx512::vector::copy_65_to_128`.)
//! - longer: the first vector unaligned, then from the first `W`-aligned
//!   address of the destination on, blocks of four vectors loaded unaligned
//!   and stored aligned (a store never splits a cache line, a load may),
//!   and the last four vectors unaligned, ending at the end; the first
//!   vector, loaded before the loop, is stored after it.
//! - longer, with the destination 0-255 bytes past the source modulo the
//!   4 KiB page: the same from the end ([`copy_lines_backward`]), as
//!   glibc's `memcpy` does. Forward, each block's loads would share their
//!   page offsets with the stores just before them, and wait for them (4K
//!   aliasing): on an AMD EPYC Zen 5, with the destination 1 or 14 bytes
//!   past the source, the AVX2 kernel ran 1500-2048-byte copies at
//!   0.89-0.92× glibc's `memcpy` forward and at 1.00-1.01× backward, the
//!   AVX-512 one at 0.86-1.02× and 1.03-1.09× (docs/experiments.md,
//!   "Backwards, the destination just past the source"). Up to 16 KiB
//!   ([`BACKWARD_MAX`]); with the x86_64 tiers only
//!   (`Vector::BACKWARD_NEAR`).
//!
//! No `rep movsb`: where the destination lies a few bytes past the source
//! in the page it is many times slower than the vector loop on some x86_64
//! CPUs (AMD Zen 3 and Zen 4), which is the cliff this copy exists to
//! avoid. Every load and store lies inside
//! the two buffers.

use core::sync::atomic::{Ordering, compiler_fence};

use crate::arch::memcpy::copy_short;
#[cfg(feature = "std")]
use crate::arch::memcpy::{OWN_COPY_MIN, own_copy_to};

use super::vector::Vector;

/// Copies `src` into `dst`, `min(dst.len(), src.len())` bytes: the copy
/// kernel on `V`, at every length.
///
/// # Safety
///
/// The CPU must support `V`'s instruction set.
#[inline(always)]
pub(crate) unsafe fn copy<V: Vector>(dst: &mut [core::mem::MaybeUninit<u8>], src: &[u8]) {
    let len = dst.len().min(src.len());
    // SAFETY: the caller guarantees the instruction set; the `len` bytes
    // are inside both slices, which cannot overlap (one is borrowed
    // mutably).
    unsafe { copy_with::<V>(dst.as_mut_ptr().cast(), src.as_ptr(), len) }
}

/// Copies the `len > 64` bytes at `src` to `dst`: the copy kernel on `V`,
/// or with `std` for a long copy the C library's `memcpy`, by the rule the
/// selection set: the kernel of [`crate::copy()`] past its inline lengths.
///
/// # Safety
///
/// The CPU must support `V`'s instruction set, `len` must be more than 64,
/// `src` valid for reads and `dst` for writes of `len` bytes, and the two
/// must not overlap.
#[inline(always)]
pub(crate) unsafe fn copy_or_hand_off<V: Vector>(dst: *mut u8, src: *const u8, len: usize) {
    // SAFETY: the caller's guarantees.
    unsafe { copy_beyond_short::<V, true, false>(dst, src, len) }
}

/// Copies the `len` bytes at `src` to `dst`: the whole algorithm.
///
/// # Safety
///
/// The CPU must support `V`'s instruction set, `src` must be valid for
/// reads and `dst` for writes of `len` bytes, and the two must not overlap.
#[inline(always)]
pub(crate) unsafe fn copy_with<V: Vector>(dst: *mut u8, src: *const u8, len: usize) {
    // SAFETY: the caller's guarantees, and `copy_beyond_short`'s bound on
    // `len` or `copy_short`'s.
    unsafe {
        // The lengths up to 64 come last: `fastpath::copy` and
        // `copy_uninit` copy them inline, so the kernel sees them only
        // when called directly, and 65-128 bytes (AVX-512) go through no
        // taken branch, as in glibc's `memcpy` (docs/experiments.md).
        if len > 64 {
            copy_beyond_short::<V, false, false>(dst, src, len);
        } else {
            copy_short(dst, src, len);
        }
    }
}

/// Copies the `len > 64` bytes at `src` to `dst`. With `HAND_OFF` (and
/// `std`), a copy longer than eight vectors and than [`own_copy_to`]
/// bytes goes to the C library's `memcpy`; the test costs nothing below
/// eight vectors. With `OWN_LOOP` (the AVX-512 kernel that the dispatch
/// caches on the CPUs that keep its 64-byte loop, `arch::memcpy::route`),
/// a long copy takes the loop on `V` at every placement
/// ([`Vector::try_copy_long`]) and reads the hand-off length only past
/// [`OWN_COPY_MIN`]: no load comes before its loop below 2 KiB. The other
/// kernels test the length once: a test against the constant first ran
/// random lengths up to 9000 bytes, which straddle it, at 0.98-0.99×
/// `copy_from_slice` with AVX2 on an AMD EPYC Zen 5, rather than
/// 1.02-1.03×, and its load had cost the AVX2 kernel nothing measurable.
///
/// # Safety
///
/// The CPU must support `V`'s instruction set, `len` must be more than 64,
/// `src` valid for reads and `dst` for writes of `len` bytes, and the two
/// must not overlap.
#[inline(always)]
pub(crate) unsafe fn copy_beyond_short<V: Vector, const HAND_OFF: bool, const OWN_LOOP: bool>(
    dst: *mut u8,
    src: *const u8,
    len: usize,
) {
    // SAFETY: the caller guarantees it; the compiler then drops the paths
    // of shorter lengths of the tiers whose vectors are narrower than 64
    // bytes.
    unsafe { core::hint::assert_unchecked(len > 64) };
    let w = V::BYTES;
    // SAFETY: with `len > 64 >= w`: the vectors from the start and those
    // that end at `len` are `k` each with `k * w <= len` (`len > k * w` by
    // each branch's bound, halved), so they lie inside both buffers and,
    // together, cover `0..len`; beyond `8w`, `try_copy_long`'s and `copy_lines`'s conditions, or
    // `copy_nonoverlapping`'s, which are the caller's.
    unsafe {
        if len <= 2 * w {
            // All the loads, then all the stores: interleaved, the AVX2
            // kernel ran 129-256 bytes at 0.83x glibc's memcpy, rather than
            // 1.25-1.35x (docs/experiments.md).
            let (first, last) = (V::load_unaligned(src), V::load_unaligned(src.add(len - w)));
            first.store_unaligned(dst);
            last.store_unaligned(dst.add(len - w));
        } else if len <= 4 * w {
            let head = [0, 1].map(|i| V::load_unaligned(src.add(i * w)));
            let tail = [2, 1].map(|i| V::load_unaligned(src.add(len - i * w)));
            for (i, v) in head.into_iter().enumerate() {
                v.store_unaligned(dst.add(i * w));
            }
            for (i, v) in tail.into_iter().enumerate() {
                v.store_unaligned(dst.add(len - (2 - i) * w));
            }
        } else if len <= 8 * w {
            let head = [0, 1, 2, 3].map(|i| V::load_unaligned(src.add(i * w)));
            let tail = [4, 3, 2, 1].map(|i| V::load_unaligned(src.add(len - i * w)));
            for (i, v) in head.into_iter().enumerate() {
                v.store_unaligned(dst.add(i * w));
            }
            for (i, v) in tail.into_iter().enumerate() {
                v.store_unaligned(dst.add(len - (4 - i) * w));
            }
        } else {
            // With `OWN_LOOP`, the rule is read only past the shortest
            // length any rule hands off: no load before the loop below it.
            #[cfg(feature = "std")]
            if HAND_OFF && (!OWN_LOOP || len > OWN_COPY_MIN) && len > own_copy_to() {
                return core::ptr::copy_nonoverlapping(src, dst, len);
            }
            if !V::try_copy_long::<OWN_LOOP>(dst, src, len) {
                copy_lines::<V>(dst, src, len);
            }
        }
    }
}

/// Copies the `len` bytes at `src` to `dst` with vectors `V`, `len` more
/// than eight of them: the first vector unaligned, then from the first
/// `W`-aligned address of the destination on, blocks of four vectors loaded
/// unaligned and stored aligned, the last four vectors unaligned, and
/// then the first vector, loaded before the loop.
///
/// # Safety
///
/// The CPU must support `V`'s instruction set, `len` must be more than
/// `8 * V::BYTES`, `src` valid for reads and `dst` for writes of `len`
/// bytes, and the two must not overlap.
#[inline(always)]
pub(crate) unsafe fn copy_lines<V: Vector>(dst: *mut u8, src: *const u8, len: usize) {
    let w = V::BYTES;
    debug_assert!(len > 8 * w);
    /// Moves the vector at `offset`, storing it aligned if `ALIGNED`.
    ///
    /// # Safety
    ///
    /// The `W` bytes at `offset` must be inside both buffers, and with
    /// `ALIGNED` `dst + offset` aligned to `W`.
    #[inline(always)]
    unsafe fn move_at<V: Vector, const ALIGNED: bool>(dst: *mut u8, src: *const u8, offset: usize) {
        // SAFETY: the caller's guarantees.
        unsafe {
            let v = V::load_unaligned(src.add(offset));
            if ALIGNED {
                v.store_aligned(dst.add(offset));
            } else {
                v.store_unaligned(dst.add(offset));
            }
        }
    }
    if V::BACKWARD_NEAR
        && len <= BACKWARD_MAX
        && (dst as usize).wrapping_sub(src as usize) % 4096 < 256
    {
        // SAFETY: the caller's guarantees.
        unsafe { copy_lines_backward::<V>(dst, src, len) };
        return;
    }
    // SAFETY: `offset` starts at the first multiple of `w` after `dst` (in
    // `1..=w` bytes, so the first vector covers what comes before it), and
    // a block is stored only if it starts before `len - 4w`, so it ends
    // before `len`; the last four vectors cover `len - 4w..len`, everything
    // the blocks left, and all lie inside both buffers as `len > 8w`.
    unsafe {
        let first = V::load_unaligned(src);
        let mut offset = w - dst as usize % w;
        while offset < len - 4 * w {
            if V::IN_ORDER {
                let v = [0, 1, 2, 3].map(|i| V::load_unaligned(src.add(offset + i * w)));
                for (i, v) in v.into_iter().enumerate() {
                    v.store_aligned(dst.add(offset + i * w));
                    compiler_fence(Ordering::SeqCst);
                }
            } else {
                for i in 0..4 {
                    move_at::<V, true>(dst, src, offset + i * w);
                }
            }
            offset = opaque(offset + 4 * w);
        }
        for i in 0..4 {
            move_at::<V, false>(dst, src, len - (4 - i) * w);
        }
        // The first vector last, as glibc's `memcpy` stores it: the last
        // store of a copy is then not at the end, where the next copy's
        // first load of a source just before its destination in the page
        // would wait for it (a false dependence on the address modulo
        // 4 KiB).
        first.store_unaligned(dst);
    }
}

/// The longest copy that [`copy_lines`] runs from the end where the
/// destination lies just past the source in the page: there the source
/// and the destination fit in L1 together. On an AMD EPYC Zen 5, from the
/// end, the kernels ran such copies of 64-256 KiB, which L2 holds, at
/// 0.55-0.80× glibc's `memcpy`, where forward they ran at 0.86-1.03×; at
/// 16 KiB at 1.72-1.75× rather than 1.50-1.57×.
pub(crate) const BACKWARD_MAX: usize = 16 << 10;

/// [`copy_lines`] from the end: the first four vectors and the last one
/// loaded, then from the last `W`-aligned block of four vectors of the
/// destination that ends before the last byte down to the first, blocks of
/// four loaded unaligned and stored aligned, then the five vectors loaded
/// first.
///
/// # Safety
///
/// As [`copy_lines`].
#[inline(always)]
unsafe fn copy_lines_backward<V: Vector>(dst: *mut u8, src: *const u8, len: usize) {
    let w = V::BYTES;
    // SAFETY: the first four vectors and the last lie inside both buffers
    // as `len > 8w`. `offset` starts at the last multiple of `w` (from
    // `dst`) at or below `len - 4w - 1`, so each block stored ends before
    // `len`, and from `len - 5w` on, so the last vector covers the rest; a
    // block is stored only at an `offset > 0`, and the last one stored
    // starts at most `4w` in, which the first four vectors cover.
    unsafe {
        // Named one by one: as arrays (`map`), the compiler left a call
        // and a realigned stack frame in the AVX-512 kernel.
        let (h0, h1) = (V::load_unaligned(src), V::load_unaligned(src.add(w)));
        let (h2, h3) = (
            V::load_unaligned(src.add(2 * w)),
            V::load_unaligned(src.add(3 * w)),
        );
        let last = V::load_unaligned(src.add(len - w));
        let mut offset = (dst as usize + len - 4 * w - 1) / w * w - dst as usize;
        loop {
            let v3 = V::load_unaligned(src.add(offset + 3 * w));
            let v2 = V::load_unaligned(src.add(offset + 2 * w));
            let v1 = V::load_unaligned(src.add(offset + w));
            let v0 = V::load_unaligned(src.add(offset));
            v3.store_aligned(dst.add(offset + 3 * w));
            compiler_fence(Ordering::SeqCst);
            v2.store_aligned(dst.add(offset + 2 * w));
            compiler_fence(Ordering::SeqCst);
            v1.store_aligned(dst.add(offset + w));
            compiler_fence(Ordering::SeqCst);
            v0.store_aligned(dst.add(offset));
            if offset <= 4 * w {
                break;
            }
            offset = opaque(offset - 4 * w);
        }
        h0.store_unaligned(dst);
        h1.store_unaligned(dst.add(w));
        h2.store_unaligned(dst.add(2 * w));
        h3.store_unaligned(dst.add(3 * w));
        last.store_unaligned(dst.add(len - w));
    }
}

/// `x`, which the compiler can no longer follow: the loop's offset passes
/// through it, so that the compiler cannot recognize the loop as a copy and
/// replace it with a call to `memcpy`, the function this copy replaces (it
/// did, for every tier).
#[inline(always)]
fn opaque(x: usize) -> usize {
    #[cfg(any(
        target_arch = "x86_64",
        target_arch = "x86",
        target_arch = "aarch64",
        target_arch = "arm",
        target_arch = "riscv64",
        target_arch = "riscv32",
        target_arch = "s390x",
        target_arch = "powerpc64",
        target_arch = "loongarch64"
    ))]
    {
        let mut x = x;
        // SAFETY: an empty template: the value stays in its register.
        unsafe {
            core::arch::asm!("/* {0} */", inout(reg) x, options(pure, nomem, nostack, preserves_flags));
        }
        return x;
    }
    // Where `asm!` is not available: through memory, slower but as opaque.
    #[allow(unreachable_code)]
    core::hint::black_box(x)
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec::Vec;

    #[cfg(feature = "std")]
    use crate::arch::memcpy::own_copy_to;

    /// Every table's `copy_or_hand_off`, and the AVX-512 one the dispatch
    /// caches on some CPUs, copies every length past the inline ones, at
    /// every offset of the source and the destination in a line and with
    /// the destination 0-255 bytes past the source modulo the page (copied
    /// backwards) or further, and, with `std`, the lengths on either side
    /// of the selection's hand-off length; and nothing outside the
    /// destination.
    #[test]
    fn copy_or_hand_off_copies_exactly_the_bytes() {
        // The selection sets the hand-off length.
        let _ = crate::active_tier();
        #[cfg(feature = "std")]
        let hand_off = own_copy_to().min(4 << 20);
        #[cfg(not(feature = "std"))]
        let hand_off = 4096;
        let mut lens: Vec<usize> = (65..=1100).collect();
        lens.extend([2047, 2048, 2049, 4096, 9000, 16384, 16385]);
        lens.extend([hand_off - 1, hand_off, hand_off + 1, hand_off + 4097]);
        let max = lens.iter().copied().max().unwrap_or(0) + 128;
        let src: Vec<u8> = (0..max + 4096).map(|i| (i * 7 + i / 251) as u8).collect();
        let mut dst = std::vec![0u8; max];
        type Kernel = unsafe fn(*mut u8, *const u8, usize);
        #[cfg_attr(not(feature = "std"), allow(unused_mut))]
        let mut kernels: Vec<(&str, Kernel)> = crate::arch::all()
            .filter(|kernels| kernels.is_available())
            .map(|kernels| (kernels.name(), kernels.copy_or_hand_off))
            .collect();
        // The AVX-512 kernel that the copy's dispatch caches on the CPUs
        // that keep its 64-byte loop at every placement.
        #[cfg(all(feature = "std", target_arch = "x86_64", target_feature = "sse2"))]
        if crate::arch::x86_64::Avx512::is_available() {
            kernels.push((
                "avx512 (own loop)",
                crate::arch::x86_64::avx512::vector::copy_or_hand_off_own_loop,
            ));
        }
        for (name, kernel) in kernels {
            for &len in &lens {
                let mut offsets: Vec<(usize, usize)> = if len <= 1100 {
                    std::vec![(0, 0), (1, 0), (0, 1), (14, 0), (0, 14), (63, 33)]
                } else {
                    std::vec![(0, 0), (1, 0), (0, 14)]
                };
                // The destination `past` bytes past the source modulo the
                // page: the source offset that puts it there.
                for to in [0, 1, 14] {
                    for past in [0, 1, 14, 63, 255, 256, 1000] {
                        let dst_at = dst.as_ptr() as usize + to;
                        let from = dst_at.wrapping_sub(src.as_ptr() as usize + past) % 4096;
                        offsets.push((from, to));
                    }
                }
                for (from, to) in offsets {
                    let window = &mut dst[..to + len + 64];
                    window.fill(0xee);
                    // SAFETY: the kernel is one this CPU runs; `len > 64`
                    // bytes from `from` and `to` lie inside the two
                    // vectors, which do not overlap.
                    unsafe { kernel(window.as_mut_ptr().add(to), src.as_ptr().add(from), len) };
                    assert_eq!(
                        window[to..to + len],
                        src[from..from + len],
                        "{name}: {len} bytes, src+{from} dst+{to}"
                    );
                    let outside = window[..to].iter().chain(&window[to + len..]);
                    assert!(
                        outside.into_iter().all(|&b| b == 0xee),
                        "{name}: {len} bytes, src+{from} dst+{to}: a byte outside"
                    );
                }
            }
        }
    }
}
