//! The fill algorithm (memset), written once over each tier's vector of one
//! repeated byte.
//!
//! # Algorithm
//!
//! With `W` the width of the tier's vector (16 bytes for SSE2, NEON and the
//! portable tier, 32 for AVX2, 64 for AVX-512) and `len` the length:
//!
//! - `len <= 64`: the tier's own short path ([`Splat::fill_upto_64`]): for
//!   AVX-512 one store under a byte mask; otherwise four overlapping 4-byte
//!   words for 4-16 bytes, three single bytes for 1-3 ([`fill_words`]), and
//!   four overlapping 16-byte stores at 0, `d`, `len - 16 - d` and
//!   `len - 16` for 17-64, with `d` 0 below 32 and 16 from it: two branches
//!   in all.
//! - `len <= 4W` (AVX2, AVX-512): four overlapping vectors at 0, `d`,
//!   `len - W - d` and `len - W`, with `d` 0 below `2W` and `W` from it: no
//!   branch ([`fill_short`]); AVX-512 instead stores two vectors or four
//!   behind a branch (see below).
//! - `len <= 8W`: the first four vectors and the last four, in address order.
//! - `len <= 16W`, except non-temporally: the first eight and the last eight.
//! - longer: an unaligned 64-byte line at the start, whole aligned lines four
//!   vectors at a time, the four vectors of aligned lines ending at the last
//!   line boundary, and an unaligned line at the end ([`fill_lines`]). On
//!   x86_64, fills of [`REP_STOSB_MIN`] bytes and more are one `rep stosb`.
//!
//! Every store writes only bytes of the destination: overlapping stores
//! write some bytes twice rather than step outside it, so no path touches a
//! byte it should not, whatever the length and alignment (the AVX-512 masked
//! store writes only its selected bytes). The non-temporal variant
//! ([`fill_nontemporal_with`]) is the same with the aligned lines stored
//! non-temporally and a store fence after them.
//!
//! # Optimisations and the measurements behind them
//!
//! Measured with `fastpath bench fill` on the development machine (AMD EPYC
//! Zen 4, 2.6 GHz TSC, glibc 2.36, whose `memset` there is
//! `__memset_avx512_unaligned_erms`, or `__memset_avx2_unaligned_erms` with
//! AVX-512 masked off by `GLIBC_TUNABLES`), in TSC cycles per call, medians
//! of interleaved rounds; BENCHMARKS.md has the tables and the commands.
//!
//! - *The lengths up to `4W` are inlined* into the caller (see
//!   [`crate::fill()`]): no call, no PLT jump, no broadcast of the value per
//!   call. That is where the gain over glibc is: 3× for 1-64 bytes with
//!   AVX-512 enabled at compile time, and the gain stops where stores, not
//!   calls, take the time (from about 128 bytes, Zen 4 stores 32 bytes per
//!   cycle).
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
//!   and only if the buffer does not start or end on a boundary. The aligned
//!   blocks are placed so that one overlap (the remainder of a block) absorbs
//!   every length with no branch on it: aligned 1024 and 2048 bytes went
//!   from 0.89-0.95× glibc (a block and a line stored twice) to 1.01-1.03×.
//! - *`rep stosb` from [`REP_STOSB_MIN`] bytes* (x86_64): from 64 KiB to
//!   8 MiB it and the vector loop run at the same speed (within 5%), below
//!   64 KiB its start-up costs (1.2× slower than the loop at 4 KiB), and
//!   beyond the last-level cache it is about 2× faster than the loop (0.08
//!   against 0.15 cycles per byte at 64 MiB), because the CPU then writes
//!   whole lines to memory without reading them first. glibc switches at
//!   2 KiB; the loop is as fast up to the threshold and faster at 4 KiB.
//! - *Non-temporal stores are opt-in*: they write lines to memory without
//!   reading them or keeping them in the caches, which is the right thing
//!   for a buffer far larger than the caches that nobody reads soon, and
//!   10-100× slower than cached stores for one that fits (a 512-byte
//!   non-temporal fill took 1 100 cycles against 13): the fence waits for
//!   the lines to reach memory.

/// A vector register holding one byte in every lane, and the stores the fill
/// algorithm needs.
///
/// Implementations are `#[inline(always)]` and carry no `#[target_feature]`:
/// they are inlined into the per-tier entry points, which enable the
/// feature, or into [`crate::fill()`] when the build enables it.
pub(crate) trait Splat: Copy {
    /// The width of the vector in bytes: a power of two from 16 to 64.
    const BYTES: usize;

    /// Whether fills of [`REP_STOSB_MIN`] bytes or more use `rep stosb`.
    #[cfg(target_arch = "x86_64")]
    const REP_STOSB: bool = false;

    /// Whether [`fill_short`] stores four vectors for every length from
    /// `BYTES + 1` to `4 * BYTES`, with no branch, rather than two or four
    /// behind a branch on the length: fewer mispredictions on random lengths,
    /// more stores at fixed ones.
    const BRANCH_FREE_SHORT: bool = true;

    /// The vector with `value` in every byte.
    ///
    /// # Safety
    ///
    /// The CPU must support the vector's instruction set.
    unsafe fn splat(value: u8) -> Self;

    /// Stores the vector at `ptr`, which need not be aligned.
    ///
    /// # Safety
    ///
    /// The CPU must support the vector's instruction set, and `ptr` must be
    /// valid for writes of `Self::BYTES` bytes.
    unsafe fn store(self, ptr: *mut u8);

    /// Stores the vector at `ptr`, aligned to `Self::BYTES`.
    ///
    /// # Safety
    ///
    /// As [`store`](Self::store), and `ptr` must be aligned to `Self::BYTES`.
    unsafe fn store_aligned(self, ptr: *mut u8);

    /// Stores the vector at `ptr`, aligned to `Self::BYTES`, bypassing the
    /// caches where the instruction set can; [`fence_nontemporal`] must
    /// follow before any other access to those bytes. By default, an
    /// ordinary aligned store.
    ///
    /// # Safety
    ///
    /// As [`store_aligned`](Self::store_aligned).
    ///
    /// [`fence_nontemporal`]: Self::fence_nontemporal
    #[inline(always)]
    unsafe fn store_nontemporal(self, ptr: *mut u8) {
        // SAFETY: the caller's guarantees are those of `store_aligned`.
        unsafe { self.store_aligned(ptr) }
    }

    /// Orders the non-temporal stores made so far before every later memory
    /// access. By default, nothing (ordinary stores need no fence).
    ///
    /// # Safety
    ///
    /// The CPU must support the vector's instruction set.
    #[inline(always)]
    unsafe fn fence_nontemporal() {}

    /// Stores the vector's first 16 bytes at `ptr`, which need not be
    /// aligned.
    ///
    /// # Safety
    ///
    /// The CPU must support the vector's instruction set, and `ptr` must be
    /// valid for writes of 16 bytes.
    unsafe fn store16(self, ptr: *mut u8);

    /// The vector's first 8 bytes, as a word.
    ///
    /// # Safety
    ///
    /// The CPU must support the vector's instruction set.
    unsafe fn low_word(self) -> u64;

    /// Fills the `len <= 64` bytes at `ptr` with the byte in every lane of
    /// `self`. By default: up to 16 bytes with [`fill_words`], and
    /// 17-64 as four overlapping 16-byte stores at 0, `d`, `len - 16 - d`
    /// and `len - 16`, `d` 0 below 32 and 16 from it, with no branch between
    /// two stores and four.
    ///
    /// # Safety
    ///
    /// The CPU must support the vector's instruction set, `len` must be at
    /// most 64, and `ptr` must be valid for writes of `len` bytes.
    #[inline(always)]
    unsafe fn fill_upto_64(self, ptr: *mut u8, len: usize) {
        debug_assert!(len <= 64);
        // SAFETY: the caller's guarantees; the four stores start at 0,
        // `d <= len - 16 - d` and `len - 16`, and cover `0..16` or `0..32`
        // and `len - 32..len` (or `len - 16..len`).
        unsafe {
            if len <= 16 {
                fill_words(ptr, len, self.low_word());
            } else {
                let d = len / 32 * 16;
                self.store16(ptr);
                self.store16(ptr.add(d));
                self.store16(ptr.add(len - 16 - d));
                self.store16(ptr.add(len - 16));
            }
        }
    }
}

/// Fills of this many bytes (1 MiB) and more are one `rep stosb` on x86_64:
/// where the buffer outgrows the caches, the CPU then streams whole lines to
/// memory without reading them, 2× faster than vector stores at 64 MiB here;
/// below, the vector loop is as fast or faster (see the module docs).
#[cfg(target_arch = "x86_64")]
pub(crate) const REP_STOSB_MIN: usize = 1 << 20;

/// The width of a cache line, which the loop aligns its stores to.
const LINE: usize = 64;

/// Fills the `len` bytes at `ptr` with `value`: the whole algorithm.
///
/// # Safety
///
/// The CPU must support `V`'s instruction set, and `ptr` must be valid for
/// writes of `len` bytes.
#[inline(always)]
pub(crate) unsafe fn fill_with<V: Splat>(ptr: *mut u8, len: usize, value: u8) {
    // SAFETY: the caller's guarantees, passed on.
    unsafe {
        let v = V::splat(value);
        if len <= 4 * V::BYTES {
            fill_short(v, ptr, len);
        } else {
            #[cfg(target_arch = "x86_64")]
            if V::REP_STOSB && len >= REP_STOSB_MIN {
                return rep_stosb(ptr, len, value);
            }
            fill_lines(v, ptr, len, false);
        }
    }
}

/// [`fill_with`] with the aligned lines of fills longer than `4W` stored
/// non-temporally, then fenced; no `rep stosb`.
///
/// # Safety
///
/// As [`fill_with`].
#[inline(always)]
pub(crate) unsafe fn fill_nontemporal_with<V: Splat>(ptr: *mut u8, len: usize, value: u8) {
    // SAFETY: the caller's guarantees, passed on.
    unsafe {
        let v = V::splat(value);
        if len <= 4 * V::BYTES {
            fill_short(v, ptr, len);
        } else {
            fill_lines(v, ptr, len, true);
        }
    }
}

/// Fills the `len <= 4 * V::BYTES` bytes at `ptr` with the byte in every
/// lane of `v`, without a loop: the tier's path up to 64 bytes, then
/// four overlapping vectors (or two, behind a branch, without
/// `BRANCH_FREE_SHORT`).
///
/// # Safety
///
/// The CPU must support `V`'s instruction set, `len` must be at most
/// `4 * V::BYTES`, and `ptr` must be valid for writes of `len` bytes.
#[inline(always)]
pub(crate) unsafe fn fill_short<V: Splat>(v: V, ptr: *mut u8, len: usize) {
    let w = V::BYTES;
    debug_assert!(len <= 4 * w);
    // SAFETY: up to 64 bytes, the caller's guarantees passed on; beyond
    // (so `w >= 32`), every store lies in `ptr..ptr + len`: the vectors start at 0,
    // `w`, `len - 2w` and `len - w`, each with `len` at least their end; in
    // the branch-free form at 0, `d`, `len - w - d` and `len - w`, with `d`
    // 0 below `2w` (two vectors, each stored twice), `w` from `2w` and `2w`
    // at `4w`, so that they cover `0..2w` or `0..4w` and end at `len`.
    unsafe {
        if len <= 64 {
            v.fill_upto_64(ptr, len);
        } else if V::BRANCH_FREE_SHORT {
            let d = len / (2 * w) * w;
            v.store(ptr);
            v.store(ptr.add(d));
            v.store(ptr.add(len - w - d));
            v.store(ptr.add(len - w));
        } else if len <= 2 * w {
            v.store(ptr);
            v.store(ptr.add(len - w));
        } else {
            v.store(ptr);
            v.store(ptr.add(w));
            v.store(ptr.add(len - 2 * w));
            v.store(ptr.add(len - w));
        }
    }
}

/// Fills the `len > 4 * V::BYTES` bytes at `ptr` with the byte of `v`.
///
/// Up to eight vectors: the first four and the last four, overlapping, in
/// address order. Up to sixteen, except non-temporally: the first eight and
/// the last eight, likewise, with no branch on the length and no loop (here,
/// against the loop below: 513-1024 bytes with AVX-512 took glibc's
/// `memset` 1.27× as long at 1024 bytes from +1, not 1.13×, and 0.92× on
/// random lengths of 0-1024 bytes, not 0.89×; the AVX2 kernel at 512 bytes
/// 1.00× glibc's AVX-512 `memset`, not 0.81×). Longer: an unaligned line for
/// the bytes before the first
/// line boundary at or after `ptr`, if there are any; the whole 64-byte lines
/// from there to the last boundary at or before the end, aligned, in blocks
/// of four vectors: one block at the first boundary, then as many as it
/// takes to end exactly at the last boundary, the second overlapping the
/// first by what the span lacks of a multiple of `4W` (no branch on that
/// remainder); then an unaligned line for the bytes after the last
/// boundary, if any. At most two stores split a cache line, and an aligned
/// buffer whose length is a multiple of `4W` gets one store per vector.
///
/// # Safety
///
/// The CPU must support `V`'s instruction set, `len` must exceed
/// `4 * V::BYTES` (so at least 64 bytes), and `ptr` must be valid for writes
/// of `len` bytes.
#[inline(always)]
unsafe fn fill_lines<V: Splat>(v: V, ptr: *mut u8, len: usize, nontemporal: bool) {
    let w = V::BYTES;
    const { assert!(V::BYTES >= 16 && V::BYTES <= LINE && LINE.is_multiple_of(V::BYTES)) };
    debug_assert!(len > 4 * w);
    // SAFETY: up to `8w`, the vectors start at `0..4w` and `len - 4w..len`;
    // up to `16w`, at `0..8w` and `len - 8w..len`, with `len > 8w`.
    // Beyond, `len > 8w >= 4w + 64`. `first` and `last` are the first line
    // boundary at or after `ptr` and the last at or before `end`, so
    // `last - first >= len - 126`, a multiple of 64: at least `4w` (for
    // `w = 16`, `len >= 129` gives at least 3 and so 64). The first block
    // covers `first..first + 4w`; the others start at `p`, from
    // `last - k * 4w` with `k = (span - 1) / 4w`, which is in
    // `first..=first + 4w`, up to `last`, all aligned.
    // The lines at `ptr` and `end - 64` cover `ptr..first` and `last..end`
    // (each less than 64 bytes) and lie inside `ptr..end`. The
    // non-temporal stores are fenced before the last line, which may
    // overlap them.
    unsafe {
        let end = ptr.add(len);
        if len <= 8 * w {
            return store_ends::<V, 4>(v, ptr, end);
        }
        if !nontemporal && len <= 16 * w {
            return store_ends::<V, 8>(v, ptr, end);
        }
        let first = ptr.add((LINE - ptr as usize % LINE) % LINE);
        let last = end.sub(end as usize % LINE);
        if first != ptr {
            for i in 0..LINE / w {
                v.store(ptr.add(i * w));
            }
        }
        let span = last as usize - first as usize;
        let mut p = last.sub((span - 1) / (4 * w) * (4 * w));
        if nontemporal {
            for i in 0..4 {
                v.store_nontemporal(first.add(i * w));
            }
            while p < last {
                for i in 0..4 {
                    v.store_nontemporal(p.add(i * w));
                }
                p = p.add(4 * w);
            }
            V::fence_nontemporal();
        } else {
            for i in 0..4 {
                v.store_aligned(first.add(i * w));
            }
            while p < last {
                for i in 0..4 {
                    v.store_aligned(p.add(i * w));
                }
                p = p.add(4 * w);
            }
        }
        if last != end {
            for i in 0..LINE / w {
                v.store(end.sub(LINE - i * w));
            }
        }
    }
}

/// Stores the first `N` vectors from `ptr` and the last `N` before `end`, in
/// address order.
///
/// # Safety
///
/// The CPU must support `V`'s instruction set, and `ptr..end` must be
/// writable and at least `N` vectors long.
#[inline(always)]
unsafe fn store_ends<V: Splat, const N: usize>(v: V, ptr: *mut u8, end: *mut u8) {
    let w = V::BYTES;
    // SAFETY: the vectors lie in `ptr..ptr + N * w` and `end - N * w..end`,
    // inside `ptr..end` as the caller guarantees.
    unsafe {
        let last = end.sub(N * w);
        for i in 0..N {
            v.store(ptr.add(i * w));
        }
        for i in 0..N {
            v.store(last.add(i * w));
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

/// Defines a SIMD tier's `fill` and `fill_nontemporal` methods over the
/// module's `#[target_feature]` functions `fill` and `fill_nontemporal`,
/// which holding the tier makes safe to call.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
macro_rules! fill_methods {
    ($tier:ident) => {
        impl $tier {
            /// Sets every byte of `dst` to `value` with this tier's kernel.
            ///
            /// ```
            /// # #[cfg(target_arch = "x86_64")] use fastpath::arch::x86_64::*;
            /// # #[cfg(target_arch = "aarch64")] use fastpath::arch::aarch64::*;
            #[doc = concat!("if let Some(tier) = ", stringify!($tier), "::new() {")]
            ///     let mut buf = [0u8; 100];
            ///     tier.fill(&mut buf[3..97], 0xa5);
            ///     assert!(buf[3..97].iter().all(|&b| b == 0xa5));
            ///     assert_eq!((buf[2], buf[97]), (0, 0));
            /// }
            /// ```
            #[inline]
            pub fn fill(self, dst: &mut [u8], value: u8) {
                // SAFETY: holding `self` proves that the CPU runs the tier.
                unsafe { fill(dst, value) }
            }

            /// Sets every byte of `dst` to `value` with this tier's kernel,
            /// storing the aligned 64-byte lines of a fill longer than four
            /// vectors with non-temporal stores, which bypass the caches,
            /// then a store fence: see
            /// [`fastpath::fill_nontemporal`](crate::fill_nontemporal).
            ///
            /// ```
            /// # #[cfg(target_arch = "x86_64")] use fastpath::arch::x86_64::*;
            /// # #[cfg(target_arch = "aarch64")] use fastpath::arch::aarch64::*;
            #[doc = concat!("if let Some(tier) = ", stringify!($tier), "::new() {")]
            ///     let mut frame = vec![0xffu8; 1 << 16];
            ///     tier.fill_nontemporal(&mut frame, 0);
            ///     assert!(frame.iter().all(|&b| b == 0));
            /// }
            /// ```
            #[inline]
            pub fn fill_nontemporal(self, dst: &mut [u8], value: u8) {
                // SAFETY: holding `self` proves that the CPU runs the tier.
                unsafe { fill_nontemporal(dst, value) }
            }
        }
    };
}
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub(crate) use fill_methods;
