//! The fill algorithm (memset), written once over each tier's [`Vector`]
//! holding one repeated byte: the kernels `fill`, `fill_nontemporal` and
//! `fill_or_stream` of every tier.
//!
//! # Algorithm
//!
//! With `W` the width of the tier's vector (16 bytes for SSE2, NEON and the
//! portable tier, 32 for AVX2, 64 for AVX-512) and `len` the length:
//!
//! - `len <= 64`: the tier's own short path ([`Vector::try_fill_upto_64`]), if any: for
//!   AVX-512 one store under a byte mask; otherwise four overlapping 4-byte
//!   words for 4-16 bytes, three single bytes for 1-3 ([`fill_words`]), and
//!   four overlapping 16-byte stores in address order at 0, `d`,
//!   `len - 16 - d` and `len - 16` for 17-64, with `d` half of `len - 16`
//!   up to 16: two branches in all.
//! - `len <= 4W` (AVX2, AVX-512): four overlapping vectors in address
//!   order, at 0, `W`, `len - 2W` and `len - W`: no branch with AVX2,
//!   whose `W` is 32 ([`fill_short`]); AVX-512 stores two vectors or four
//!   behind a branch (see below).
//! - `len <= 1024` with AVX-512 ([`BLOCKS_MAX`], 16 lines), every length
//!   with narrower vectors, `len <= 8W` non-temporally: in address order,
//!   four vectors at the start, from `8W` on blocks of four aligned
//!   vectors, and four vectors that end at the end ([`fill_blocks`]), as
//!   glibc does.
//! - longer: an unaligned 64-byte line at the start, whole aligned lines four
//!   vectors at a time, then with AVX-512 the lines short of a block one by
//!   one, and with narrower vectors (non-temporal stores only) a last block
//!   that ends at the last line boundary, and an unaligned line at the end
//!   ([`fill_lines`]).
//! - In the x86_64 tiers (not the portable one), fills of [`REP_STOSB_MIN`]
//!   bytes and more are one `rep stosb` (not non-temporally), or from the
//!   lower threshold of the CPU's rule ([`rep_stosb_from`]).
//!
//! Every store writes only bytes of the destination: overlapping stores
//! write some bytes twice rather than step outside it, so no path touches a
//! byte it should not, whatever the length and alignment (the AVX-512 masked
//! store writes only its selected bytes). The non-temporal variant
//! ([`fill_with`] with `NONTEMPORAL`) is the same with the aligned lines stored
//! non-temporally and a store fence after them.
//!
//! # Optimisations and the measurements behind them
//!
//! Measured with `fastpath bench fill` on the development machine (AMD EPYC
//! Zen 4, 2.6 GHz TSC, glibc 2.36, whose `memset` there is
//! `__memset_avx512_unaligned_erms`, or `__memset_avx2_unaligned_erms` with
//! AVX-512 masked off by `GLIBC_TUNABLES`), in TSC cycles per call, medians
//! of interleaved rounds; docs/experiments.md has the measurements of the
//! choices.
//!
//! - *The lengths up to `4W`, at most 128 bytes, are inlined* into the
//!   caller (`arch::inline`, and [`crate::fill()`]): no call, no PLT jump,
//!   no broadcast of the value per call. That is where the gain over glibc
//!   is: 3× for 1-64 bytes with AVX-512 enabled at compile time, and the
//!   gain stops where stores, not calls, take the time (from about 128
//!   bytes, Zen 4 stores 32 bytes per cycle).
//! - *Few branches on the length* below `4W`: random lengths make every
//!   branch on the length a misprediction in two or three (the bench's
//!   random rows draw them from a table longer than a predictor can learn).
//!   With glibc's AVX2 `memset` as the baseline, the ladder of two stores of
//!   8, 4, 2 or 1 bytes and a branch between two and four vectors gave 1.19×
//!   on random 0-16 and 0-64 bytes and 0.96× at a fixed 64; the four words
//!   and four vectors with computed offsets give 2.3×, 2.0× and 2.0×. The
//!   same on AVX-512 costs fixed lengths too much (see its kernel), so there
//!   the branch stays.
//! - *Stores in address order*: the first four vectors then the last four
//!   for 257-512 bytes (AVX-512) took 12.7 cycles, like glibc; interleaving
//!   them (first, last, second, ...) 17.6, as the store queue then cannot
//!   merge neighbouring stores into whole lines.
//! - *Aligned lines in the loop, two unaligned lines in all*: a 64-byte store
//!   at +1 from a line boundary writes two lines, twice the store slots of an
//!   aligned one, so only the first and the last line are stored unaligned,
//!   and only if the buffer does not start or end on a boundary. With
//!   AVX-512 the lines short of a whole block of four are stored one by one,
//!   not by a last block that overlaps the one before it: 1500 bytes went
//!   from 0.96-0.98× glibc (two lines stored twice) to 1.03-1.04× (the
//!   narrower tiers overlap: see [`fill_lines`]); earlier, storing a block
//!   and a line twice had cost aligned 1024 and 2048 bytes 5-11%.
//! - *`rep stosb` from [`REP_STOSB_MIN`] bytes* (x86_64): from 64 KiB to
//!   8 MiB it and the vector loop run at the same speed (within 5%), below
//!   64 KiB its start-up costs (1.2× slower than the loop at 4 KiB), and
//!   beyond the last-level cache it is about 2× faster than the loop (0.08
//!   against 0.15 cycles per byte at 64 MiB), because the CPU then writes
//!   whole lines to memory without reading them first. glibc switches at
//!   2 KiB; the loop is as fast up to the threshold and faster at 4 KiB.
//!   These are Zen 4's figures; on Intel's Emerald Rapids `rep stosb` is
//!   ahead from 64 KiB, past its L1, and the threshold there is 32 KiB
//!   (`arch::x86_64::handoff`).
//! - *Non-temporal stores are opt-in*: they write lines to memory without
//!   reading them or keeping them in the caches, which is the right thing
//!   for a buffer far larger than the caches that nobody reads soon, and
//!   many times slower than cached stores for one that fits (with the
//!   AVX-512 tier, 0.05× glibc's speed at 1024 bytes and 0.21× at 64 KiB,
//!   where `fill` runs at 1.02× and 0.98×): the fence waits for the lines to
//!   reach memory.

use super::vector::Vector;

/// Fills of this many bytes (1 MiB) and more are one `rep stosb` in the
/// x86_64 tiers, unless the CPU's rule sets a lower threshold
/// ([`set_rep_stosb_from`]): where the buffer outgrows the caches, the CPU
/// then streams whole lines to memory without reading them, 2× faster than
/// vector stores at 64 MiB on Zen 4; below, the vector loop is as fast or
/// faster there (see the module docs).
#[cfg(target_arch = "x86_64")]
pub(crate) const REP_STOSB_MIN: usize = 1 << 20;

/// The lowest threshold a CPU's rule may set: fills below it never test
/// the threshold, so that the AVX2 and SSE2 kernels store them by blocks
/// behind one comparison with a constant, as before the rule.
#[cfg(target_arch = "x86_64")]
const REP_STOSB_LOWEST: usize = 16 << 10;

/// The threshold in force: [`REP_STOSB_MIN`] until the selection sets the
/// CPU's ([`set_rep_stosb_from`]).
#[cfg(target_arch = "x86_64")]
static REP_STOSB_FROM: core::sync::atomic::AtomicUsize =
    core::sync::atomic::AtomicUsize::new(REP_STOSB_MIN);

/// Sets the length from which the x86_64 tiers fill with `rep stosb`: the
/// selection's hook, with the CPU's rule (`arch::x86_64::handoff`), raised
/// to [`REP_STOSB_LOWEST`] if below it. With `std`, which reads the rules;
/// without it the threshold stays [`REP_STOSB_MIN`].
#[cfg(all(target_arch = "x86_64", feature = "std"))]
pub(crate) fn set_rep_stosb_from(len: usize) {
    REP_STOSB_FROM.store(
        len.max(REP_STOSB_LOWEST),
        core::sync::atomic::Ordering::Relaxed,
    );
}

/// The length from which the x86_64 tiers fill with `rep stosb`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn rep_stosb_from() -> usize {
    REP_STOSB_FROM.load(core::sync::atomic::Ordering::Relaxed)
}

/// Fills past the inline lengths and shorter than this go to the C
/// library's `memset`, longer ones to the active tier's kernel: 0 (every
/// one to the kernel) until the selection sets the CPU's rule
/// ([`set_memset_below`]; `arch::x86_64::handoff::memset_below`). The
/// fills' dispatch pointer reads it once, after the selection, to choose
/// what it caches (`fill::route`): the kernel where it is 0.
#[cfg(feature = "std")]
static MEMSET_BELOW: core::sync::atomic::AtomicUsize = core::sync::atomic::AtomicUsize::new(0);

/// The length from which fills past the inline lengths keep the active
/// tier's kernel rather than call `memset`.
#[cfg(feature = "std")]
#[inline(always)]
pub(crate) fn memset_below() -> usize {
    MEMSET_BELOW.load(core::sync::atomic::Ordering::Relaxed)
}

/// Sets [`memset_below`]: the selection's hook, with the CPU's rule.
#[cfg(feature = "std")]
pub(crate) fn set_memset_below(len: usize) {
    MEMSET_BELOW.store(len, core::sync::atomic::Ordering::Relaxed);
}

/// Held by the tests that read or change [`memset_below`], which run in
/// threads of one process.
#[cfg(all(test, feature = "std"))]
pub(crate) static MEMSET_BELOW_TESTS: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The width of a cache line, which the loop aligns its stores to.
const LINE: usize = 64;

/// The longest fill (16 lines) that AVX-512 stores by [`fill_blocks`];
/// longer fills go line by line ([`fill_lines`]), 5% faster from 2 KiB on.
/// Narrower vectors store every fill by blocks ([`blocks_max`]).
const BLOCKS_MAX: usize = 16 * LINE;

/// The longest fill that [`fill_with`] stores by [`fill_blocks`].
///
/// With vectors of 32 bytes or fewer, every fill below the `rep stosb`
/// threshold: their blocks are one or two lines, and [`fill_lines`] stores
/// a line twice where their count is odd (2 of 50 stores at 1500 bytes);
/// with AVX2 on Zen 4, aligned 1500-byte fills went from 0.96× glibc's AVX2
/// `memset` to 1.00×, which also stores four vectors at each end and
/// aligned blocks between. Before, AVX2 switched paths at 512 bytes, and
/// random lengths up to 1 KiB ran at 0.80-0.86× glibc's speed where one path
/// runs at 0.98×: on a random length, the branch between the two paths
/// mispredicts. Non-temporally, blocks only up to `8W`: the loop of
/// [`fill_lines`] stores whole lines non-temporally.
#[inline(always)]
const fn blocks_max<V: Vector, const NONTEMPORAL: bool>() -> usize {
    if NONTEMPORAL {
        return 8 * V::BYTES;
    }
    if 4 * V::BYTES > 2 * LINE {
        return BLOCKS_MAX;
    }
    #[cfg(target_arch = "x86_64")]
    if V::REP_STOSB {
        return REP_STOSB_LOWEST - 1;
    }
    usize::MAX
}

/// Fills the `len` bytes at `ptr` with `value`: the whole algorithm. With
/// `NONTEMPORAL`, the aligned lines of fills longer than `8W` are stored
/// non-temporally, then fenced, and there is no `rep stosb`.
///
/// # Safety
///
/// The CPU must support `V`'s instruction set, and `ptr` must be valid for
/// writes of `len` bytes.
#[inline(always)]
pub(crate) unsafe fn fill_with<V: Vector, const NONTEMPORAL: bool>(
    ptr: *mut u8,
    len: usize,
    value: u8,
) {
    // SAFETY: the caller's guarantees, passed on; `fill_split` calls the
    // closure with `len > 4 * V::BYTES` only.
    unsafe {
        fill_split::<V>(ptr, len, value, |v, ptr, len, value| {
            fill_long::<V, NONTEMPORAL>(v, ptr, len, value)
        })
    }
}

/// [`fill_with`]'s paths up to `4W` bytes, and `long` for longer fills,
/// with the vector, the pointer, the length and the value: [`fill_long`],
/// or for [`fill_or_stream`] the test of the non-temporal threshold, then
/// `fill_long`, so that the shorter paths do not pay for the test.
///
/// # Safety
///
/// As [`fill_with`], and `long` must fill its `len` bytes at its pointer
/// with its value when `len > 4 * V::BYTES`, given a pointer and a length
/// that meet [`fill_with`]'s conditions.
#[inline(always)]
unsafe fn fill_split<V: Vector>(
    ptr: *mut u8,
    len: usize,
    value: u8,
    long: impl FnOnce(V, *mut u8, usize, u8),
) {
    // SAFETY: the caller's guarantees, passed on.
    unsafe {
        let v = V::splat(value);
        let w = V::BYTES;
        // The lengths callers send here most, those just past the inline
        // paths of `fastpath::fill` (more than 128 bytes), are tested first
        // and reach their stores through no taken branch, as in glibc's
        // `memset`: with four vectors of at most 128 bytes the longer
        // paths come first, with AVX-512 the four vectors of 129-256 bytes.
        // A taken branch more cost 256-byte fills 2-3 cycles, 0.64-0.70×
        // glibc's speed against 0.87-0.90× (AVX2 regime on Zen 4,
        // docs/experiments.md).
        if 4 * w <= 128 {
            if len > 4 * w {
                long(v, ptr, len, value);
            } else {
                fill_short(v, ptr, len);
            }
        } else if len <= 4 * w {
            if !V::BRANCH_FREE_SHORT && len > 2 * w {
                for offset in [0, w, len - 2 * w, len - w] {
                    v.store_unaligned(ptr.add(offset));
                }
                end_of_path();
            } else {
                fill_short(v, ptr, len);
            }
        } else {
            long(v, ptr, len, value);
        }
    }
}

/// Keeps the compiler from ending the path it is called on with a jump to
/// another that ends with the same stores (the four vectors that end a
/// fill): an empty assembly block, which the stores before it must
/// precede, so that the two paths no longer share their last instructions.
/// The jump was a taken branch on the paths of the commonest lengths:
/// without it, aligned 256-byte fills took 7.5-7.9 TSC cycles rather than
/// 9.6-9.8 with AVX-512, and random 0-256 byte fills ran at 1.07-1.08×
/// glibc's speed rather than 0.98× with AVX2 (Zen 4).
#[inline(always)]
fn end_of_path() {
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    // SAFETY: an empty template.
    unsafe {
        core::arch::asm!("", options(nostack, preserves_flags));
    }
}

/// [`fill_with`] for `len > 4 * V::BYTES`.
///
/// # Safety
///
/// As [`fill_with`], and `len` must be more than `4 * V::BYTES`.
#[inline(always)]
unsafe fn fill_long<V: Vector, const NONTEMPORAL: bool>(v: V, ptr: *mut u8, len: usize, value: u8) {
    // SAFETY: the caller's guarantees, passed on.
    unsafe {
        if len <= const { blocks_max::<V, NONTEMPORAL>() } {
            fill_blocks(v, ptr, len);
        } else {
            #[cfg(target_arch = "x86_64")]
            if V::REP_STOSB && !NONTEMPORAL {
                if len >= rep_stosb_from() {
                    return rep_stosb(ptr, len, value);
                }
                // Below the threshold, the narrower vectors' blocks.
                if 4 * V::BYTES <= 2 * LINE {
                    return fill_blocks(v, ptr, len);
                }
            }
            #[cfg(not(target_arch = "x86_64"))]
            let _ = value;
            fill_lines(v, ptr, len, NONTEMPORAL);
        }
    }
}

/// Sets every byte of `dst` to `value`: the fill kernel on `V`.
///
/// # Safety
///
/// The CPU must support `V`'s instruction set.
#[inline(always)]
pub(crate) unsafe fn fill<V: Vector>(dst: &mut [u8], value: u8) {
    // SAFETY: the caller guarantees the instruction set; the pointer and
    // length are those of `dst`, which is writable.
    unsafe { fill_with::<V, false>(dst.as_mut_ptr(), dst.len(), value) }
}

/// [`fill`] with the aligned lines of a long fill stored non-temporally,
/// then fenced: the kernel of `Kernels::fill_nontemporal`.
///
/// # Safety
///
/// The CPU must support `V`'s instruction set.
#[inline(always)]
pub(crate) unsafe fn fill_nontemporal<V: Vector>(dst: &mut [u8], value: u8) {
    // SAFETY: as in `fill`.
    unsafe { fill_with::<V, true>(dst.as_mut_ptr(), dst.len(), value) }
}

/// The kernel of `fastpath::fill_nontemporal`: [`fill`] below the
/// non-temporal threshold, and from 64 KiB, the lowest threshold,
/// `from_threshold`, the tier's [`fill_from_threshold`]. Up to `4W` bytes,
/// and with AVX-512 up to its blocks' 1 KiB, it is `fill`; longer, below
/// 64 KiB, `fill` with one comparison more, not taken, and no load. Tested
/// first, the comparison cost random 0-256 byte fills called as
/// applications call 3-4% (0.95-0.96× glibc's `memset` where `fill` ran at
/// 0.99×, AMD Zen 4 with AVX-512): the path of 129-256 bytes then spanned
/// two 64-byte lines of code rather than one. Tested first past 256 bytes,
/// it kept random 0-1024 byte fills at 0.95-0.96× where `fill` passed
/// 0.97× (`-C target-cpu=native`).
///
/// # Safety
///
/// The CPU must support `V`'s instruction set, and `from_threshold` must
/// fill its first argument with its second.
#[inline(always)]
pub(crate) unsafe fn fill_or_stream<V: Vector>(
    dst: &mut [u8],
    value: u8,
    from_threshold: impl Fn(&mut [u8], u8),
) {
    let (ptr, len) = (dst.as_mut_ptr(), dst.len());
    // SAFETY: as in `fill`; the closure runs on `dst`'s pointer and length
    // only, past `4 * V::BYTES`, where `dst` is no longer used.
    unsafe {
        fill_split::<V>(ptr, len, value, |v, ptr, len, value| {
            use crate::arch::cache::MIN_NONTEMPORAL_THRESHOLD;
            let blocks_max = const { blocks_max::<V, false>() };
            // With AVX-512, whose blocks stop at 1 KiB, below the lowest
            // threshold, the blocks come first, as in `fill_long`: then
            // only fills longer than they take the test.
            if blocks_max < MIN_NONTEMPORAL_THRESHOLD && len <= blocks_max {
                return fill_blocks(v, ptr, len);
            }
            if len >= MIN_NONTEMPORAL_THRESHOLD {
                return from_threshold(core::slice::from_raw_parts_mut(ptr, len), value);
            }
            fill_long::<V, false>(v, ptr, len, value)
        })
    }
}

/// [`fill_or_stream`] from 64 KiB: the tier's entry of [`fill_nontemporal`]
/// from the threshold, of [`fill`] below it. The tier's entry passes it in
/// a closure that is cold and never inlined, so that below 64 KiB the
/// comparison that leads there is not taken and falls through to the fill
/// (a taken branch costs a 256-byte fill more than the call costs a fill of
/// 64 KiB), and that enables the tier's features, as the entries do.
#[inline(always)]
pub(crate) fn fill_from_threshold(
    dst: &mut [u8],
    value: u8,
    fill_entry: impl Fn(&mut [u8], u8),
    nontemporal_entry: impl Fn(&mut [u8], u8),
) {
    if dst.len() >= crate::arch::cache::nontemporal_threshold() {
        nontemporal_entry(dst, value);
    } else {
        fill_entry(dst, value);
    }
}

/// Fills the `len <= 64` bytes at `ptr` with the byte in every lane of
/// `v`: the tier's own way where it has one
/// ([`Vector::try_fill_upto_64`]); otherwise up to 16 bytes with
/// [`fill_words`], and 17-64 as four overlapping 16-byte stores at 0, `d`,
/// `len - 16 - d` and `len - 16`, with no branch between two stores and
/// four.
///
/// With `d` half of `len - 16`, at most 16, the stores are in address
/// order at every length. With `d` 0 below 32, 16 from 32 and 32 at 64 (at
/// 64 bytes the order 0, 32, 16, 48), fills of 32 and 64 bytes from +1
/// past a line boundary ran at 0.93-1.07× and 0.77-0.86× glibc's AVX2
/// `memset`, in address order at 1.03-1.56× and 0.94-1.50× (AMD Zen 3,
/// the default build's inline path, both of the bench's styles, two runs
/// of each; BENCHMARKS.md, Zen 3, "Short fills: the stores in address
/// order").
///
/// 17-64 bytes are tested first, so that the compiler lays their stores
/// on the path that falls through from the test: behind `len <= 16` they
/// took one more taken branch, and with the AVX2 tier on AMD Zen 5
/// (AVX-512 masked off) fills of 32 and 63 bytes ran at 1.25-1.45× glibc's
/// AVX2 `memset` (median 1.26×) in the bench's own rows; tested first, at
/// 1.52-2.12× (median 2.04×), and called as applications call at
/// 1.49-1.80× (before 1.29-1.93×), eight processes of each build in turn
/// (BENCHMARKS.md, Zen 5, "Short fills: 17-64 bytes tested first").
///
/// # Safety
///
/// The CPU must support `V`'s instruction set, `len` must be at most 64,
/// and `ptr` must be valid for writes of `len` bytes.
#[inline(always)]
unsafe fn fill_upto_64<V: Vector>(v: V, ptr: *mut u8, len: usize) {
    debug_assert!(len <= 64);
    // SAFETY: the caller's guarantees; for 17-64 bytes the four stores
    // start at 0, `d`, `len - 16 - d` and `len - 16`, in that order, all
    // in `0..=len - 16` as `2d <= len - 16`. No gap between them: `d <= 16`,
    // and `(len - 16 - d) - d <= 16` since either `2d >= len - 17`, or
    // `d = 16` and `len <= 64`; so they cover `0..len`.
    unsafe {
        if v.try_fill_upto_64(ptr, len) {
            return;
        }
        if len > 16 {
            let d = ((len - 16) / 2).min(16);
            v.store16(ptr);
            v.store16(ptr.add(d));
            v.store16(ptr.add(len - 16 - d));
            v.store16(ptr.add(len - 16));
        } else {
            fill_words(ptr, len, v.low_word());
        }
    }
}

/// Fills the `len <= 4 * V::BYTES` bytes at `ptr` with the byte in every
/// lane of `v`, without a loop: the tier's path up to 64 bytes, then
/// four overlapping vectors in address order (or, without
/// `BRANCH_FREE_SHORT`, two up to `2W`, behind a branch).
///
/// # Safety
///
/// The CPU must support `V`'s instruction set, `len` must be at most
/// `4 * V::BYTES`, and `ptr` must be valid for writes of `len` bytes.
#[inline(always)]
pub(crate) unsafe fn fill_short<V: Vector>(v: V, ptr: *mut u8, len: usize) {
    let w = V::BYTES;
    debug_assert!(len <= 4 * w);
    // With no branch between two vectors and four, 65 bytes must be more
    // than two: vectors of at most 32 bytes.
    const { assert!(!V::BRANCH_FREE_SHORT || V::BYTES <= 32) };
    // SAFETY: up to 64 bytes, the caller's guarantees passed on; beyond,
    // every store lies in `ptr..ptr + len`: two vectors at 0 and `len - w`
    // for `len <= 2w`; otherwise (always, for `BRANCH_FREE_SHORT`, whose
    // vectors are at most 32 bytes, so `len > 64 >= 2w`) four at 0, `w`,
    // `len - 2w` and `len - w`, with `2w <= len <= 4w`, which cover `0..2w`
    // and `len - 2w..len`, so all of `0..len`.
    unsafe {
        if len <= 64 {
            fill_upto_64(v, ptr, len);
        } else if !V::BRANCH_FREE_SHORT && len <= 2 * w {
            v.store_unaligned(ptr);
            v.store_unaligned(ptr.add(len - w));
        } else {
            // In address order: at 128 bytes from +1 past a line boundary,
            // the AVX2 stores in the order 0, 64, 32, 96 ran at 0.80-0.95×
            // glibc's `memset` (AMD Zen 3, `arch::x86_64::inline`).
            v.store_unaligned(ptr);
            v.store_unaligned(ptr.add(w));
            v.store_unaligned(ptr.add(len - 2 * w));
            v.store_unaligned(ptr.add(len - w));
        }
    }
}

/// Fills the `len > 8 * V::BYTES` bytes at `ptr` with the byte of `v`: an
/// unaligned line for the bytes before the first line boundary at or after
/// `ptr`, if there are any; the whole 64-byte lines from there to the last
/// boundary at or before the end, aligned, in blocks of four vectors; then
/// an unaligned line for the bytes after the last boundary, if any. At most
/// two stores split a cache line.
///
/// The lines short of a whole block are stored one at a time with AVX-512,
/// whose blocks are four lines: 1500 bytes went from 0.96-0.98× glibc's
/// speed (a last block overlapping the one before by two lines) to
/// 1.03-1.04×. With narrower vectors, which come here only to store
/// non-temporally, blocks of one line (SSE2, NEON) leave
/// none, and blocks of two (AVX2) at most one, which the second block
/// absorbs by overlapping the first, with no branch on it: there, a loop
/// over the lines left mispredicted on random lengths (random 0-1024 bytes
/// with the AVX2 tier fell from 0.78-0.82× glibc's AVX2 `memset` to
/// 0.69-0.73×) and saved at most two 32-byte stores.
///
/// # Safety
///
/// The CPU must support `V`'s instruction set, `len` must exceed
/// `8 * V::BYTES` (so 128 bytes), and `ptr` must be valid for writes of
/// `len` bytes.
#[inline(always)]
unsafe fn fill_lines<V: Vector>(v: V, ptr: *mut u8, len: usize, nontemporal: bool) {
    let w = V::BYTES;
    const { assert!(V::BYTES >= 16 && V::BYTES <= LINE && LINE.is_multiple_of(V::BYTES)) };
    debug_assert!(len > 8 * w);
    // SAFETY: `len > 8w >= 128`. `first` and `last` are the first line
    // boundary at or after `ptr` and the last at or before `end`, so
    // `ptr <= first <= last <= end`, a whole number of lines apart, with
    // `first - ptr` and `end - last` under 64, and
    // `span = last - first >= len - 126`: at least `4w` (for `w = 16`,
    // `len >= 129` gives at least 3 bytes, so a line). One at a time, the
    // blocks cover `first..blocks_end` and the single lines
    // `blocks_end..last`. Otherwise, the first block covers
    // `first..first + 4w` and the others start at `p`, from
    // `last - k * 4w` with `k = (span - 1) / 4w`, which is in
    // `first..=first + 4w`, up to `last`. All are aligned and inside
    // `first..last`. The lines at `ptr` and `end - 64` cover `ptr..first`
    // and `last..end`, and lie inside `ptr..end` as `len >= 64`. The
    // non-temporal stores are fenced before the last line, which may overlap
    // them.
    unsafe {
        let end = ptr.add(len);
        let first = ptr.add((LINE - ptr as usize % LINE) % LINE);
        let last = end.sub(end as usize % LINE);
        if first != ptr {
            for i in 0..LINE / w {
                v.store_unaligned(ptr.add(i * w));
            }
        }
        let span = last as usize - first as usize;
        let lines_one_by_one = 4 * w > 2 * LINE;
        let (mut p, blocks_end) = if lines_one_by_one {
            (first, last.sub(span % (4 * w)))
        } else {
            for i in 0..4 {
                store_line_part(v, first.add(i * w), nontemporal);
            }
            (last.sub((span - 1) / (4 * w) * (4 * w)), last)
        };
        while p < blocks_end {
            for i in 0..4 {
                store_line_part(v, p.add(i * w), nontemporal);
            }
            p = p.add(4 * w);
        }
        if lines_one_by_one {
            while p < last {
                for i in 0..LINE / w {
                    store_line_part(v, p.add(i * w), nontemporal);
                }
                p = p.add(LINE);
            }
        }
        if nontemporal {
            V::fence_nontemporal();
        }
        if last != end {
            for i in 0..LINE / w {
                v.store_unaligned(end.sub(LINE - i * w));
            }
        }
    }
}

/// Stores `v` at `ptr`, aligned, non-temporally if `nontemporal`.
///
/// # Safety
///
/// As [`Vector::store_aligned`].
#[inline(always)]
unsafe fn store_line_part<V: Vector>(v: V, ptr: *mut u8, nontemporal: bool) {
    // SAFETY: the caller's guarantees, those of both stores.
    unsafe {
        if nontemporal {
            v.store_nontemporal(ptr);
        } else {
            v.store_aligned(ptr);
        }
    }
}

/// Fills the `len > 4 * V::BYTES` bytes at `ptr` with the byte of `v`, in
/// address order: four unaligned vectors at `ptr`; beyond
/// eight vectors, blocks of four aligned vectors, the first at the last
/// multiple of `W` at or before `ptr + 4W`, each stored if it starts
/// before `len - 4W`; and four unaligned vectors that end at `ptr + len`.
/// Up to eight vectors, the commonest case, the last four follow the first
/// with no taken branch.
///
/// The blocks are aligned to the vector, as glibc aligns them, not to the
/// line: an aligned vector never splits a line, and the first block then
/// overlaps the first four vectors by less than `W` bytes rather than less
/// than 64, a block fewer in one fill in eight on average with AVX2 (the
/// same stores with AVX-512, whose vector is the line). Random lengths of
/// 257-1024 bytes at random offsets went from 0.94-0.95× glibc's AVX2
/// `memset` to 0.95-0.96× (medians of 12 processes, two runs, AMD Zen 4,
/// AVX2-only; BENCHMARKS.md, Zen 4, "Random fills outside, by process").
///
/// No byte is stored more than twice. The first eight vectors and the last
/// eight, which this replaced for 9-16 vectors, store a 600-byte fill as
/// 1024 bytes: measured against glibc's AVX-512 `memset`, which stores
/// these lengths in this order, they ran at 0.67-0.80× its speed at 600 and
/// 700 bytes where this runs at 1.01-1.05× (`fastpath bench fill`,
/// interleaved runs of each build; docs/experiments.md).
///
/// # Safety
///
/// The CPU must support `V`'s instruction set, `len` must be more than
/// `4 * V::BYTES`, and `ptr` must be valid for writes of `len` bytes.
#[inline(always)]
unsafe fn fill_blocks<V: Vector>(v: V, ptr: *mut u8, len: usize) {
    let w = V::BYTES;
    debug_assert!(len > 4 * w);
    // SAFETY: the first four vectors cover `0..4w` and the last four
    // `len - 4w..len`, inside `0..len` as `len > 4w`, and together all of it
    // up to `8w`. Beyond, the blocks start at offsets `4w - ptr % w` (in
    // `3w + 1..=4w`, so after 0) plus multiples of `4w`, so aligned to
    // `w`, the first
    // covering up to `4w` or further and each the next `4w` bytes; a block
    // is stored only if it starts before `len - 4w`, so every block ends
    // before `len` (the first by `8w < len`), and they cover everything up
    // to `len - 4w`.
    unsafe {
        for i in 0..4 {
            v.store_unaligned(ptr.add(i * w));
        }
        let last = ptr.add(len - 4 * w);
        if len <= 8 * w {
            for i in 0..4 {
                v.store_unaligned(last.add(i * w));
            }
            end_of_path();
            return;
        }
        let mut block = 4 * w - ptr as usize % w;
        loop {
            for i in 0..4 {
                v.store_aligned(ptr.add(block + i * w));
            }
            block += 4 * w;
            if block >= len - 4 * w {
                break;
            }
        }
        for i in 0..4 {
            v.store_unaligned(last.add(i * w));
        }
    }
}

/// Fills the `len <= 16` bytes at `ptr` with the byte repeated in `word`,
/// with two branches and no loop: 4-16 bytes as four overlapping 4-byte
/// words, 1-3 bytes as three single bytes.
///
/// The words start at 0, `d`, `len - 4 - d` and `len - 4`, where `d` is 0
/// below 8 bytes, 4 from 8 and 8 at 16: they cover `0..4` or `0..8` and
/// `len - 8..len` (or `len - 4..len`), so every byte. The bytes are the first,
/// the middle and the last. A ladder of two stores of 8, 4, 2 or 1 bytes
/// needs four branches, which mispredict on random lengths.
///
/// # Safety
///
/// `len` must be at most 16, and `ptr` valid for writes of `len` bytes.
#[inline(always)]
pub(crate) unsafe fn fill_words(ptr: *mut u8, len: usize, word: u64) {
    debug_assert!(len <= 16);
    // SAFETY: every store lies in `ptr..ptr + len`: with `len >= 4` the
    // words start at 0, `d <= len - 4`, `len - 4 - d >= 0` and `len - 4`;
    // the bytes at 0, `len / 2` and `len - 1`, all below `len >= 1`.
    unsafe {
        if len >= 4 {
            let d = len / 8 * 4;
            let word = word as u32;
            ptr.cast::<u32>().write_unaligned(word);
            ptr.add(d).cast::<u32>().write_unaligned(word);
            ptr.add(len - 4 - d).cast::<u32>().write_unaligned(word);
            ptr.add(len - 4).cast::<u32>().write_unaligned(word);
        } else if len > 0 {
            ptr.write(word as u8);
            ptr.add(len / 2).write(word as u8);
            ptr.add(len - 1).write(word as u8);
        }
    }
}

/// `value` in every byte of a `u64`.
#[inline(always)]
pub(crate) const fn splat_word(value: u8) -> u64 {
    u64::from_ne_bytes([value; 8])
}

/// Fills the `len` bytes at `ptr` with `value` with `rep stosb`.
///
/// # Safety
///
/// `ptr` must be valid for writes of `len` bytes.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn rep_stosb(ptr: *mut u8, len: usize, value: u8) {
    // SAFETY: `rep stosb` stores `al` into the `rcx` bytes from `rdi`
    // upwards (the direction flag is clear on entry to an `asm!` block), all
    // writable as the caller guarantees; it changes only `rdi` and `rcx`,
    // declared as clobbered, and no flags.
    unsafe {
        core::arch::asm!(
            "rep stosb",
            inout("rdi") ptr => _,
            inout("rcx") len => _,
            in("al") value,
            options(nostack, preserves_flags)
        );
    }
}
