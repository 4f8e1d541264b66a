//! The AVX-512 fill's own short path: one masked store for 0-64 bytes
//! ([`Avx512Vector`](super::vector::Avx512Vector)'s `try_fill_upto_64`), on the
//! shared fill algorithm (`arch/generic/fill.rs`), and the same store as
//! inline assembly for `arch::x86_64::inline`.
//!
//! # Algorithm
//!
//! Up to 64 bytes, one `vmovdqu8` under a byte mask with the low `len` bits
//! set: no branch on the length at all. 65-128 bytes, two overlapping
//! 64-byte vectors; 129-256, four; 257-1024, four at the start, aligned
//! blocks of four from 513 bytes, and four at the end; beyond, aligned
//! 64-byte lines four at a time and `rep stosb` from 1 MiB, as the shared
//! algorithm does. Non-temporal lines are
//! `vmovntdq` of whole lines, then `sfence`.
//!
//! # The masked store and the page boundary
//!
//! A masked store writes none of its masked-off bytes, and takes no fault on
//! them either; but when its 64 bytes cross into another page the CPU
//! checks that page too, in microcode. Measured on Zen 4, for a 5-byte fill:
//! 2.4 TSC cycles inside a page, 50-68 cycles when the 64 bytes cross into
//! the next page although it is mapped and present (20-28×), and 650-980
//! cycles when that page is inaccessible or not yet faulted in (270-400×).
//! So the 64-byte store is used only when its 64 bytes lie in one 4 KiB
//! page, which one comparison of the address checks, true for 63 of every 64
//! start addresses. Otherwise two masked stores cover the data through the
//! two aligned 64-byte lines it spans, each inside one page, the second
//! stored only if the data reaches into it ([`fill_across_page`]): 1.4-2.8
//! cycles in the same measurement.
//!
//! The mask is `bzhi(!0, len)` where BMI2 is enabled at compile time, and
//! otherwise a byte comparison of the lane indices with the length, which
//! gives the mask register directly and needs neither BMI2 nor a shift.
//!
//! # Measurements (TSC cycles per call, Zen 4 at about 1.4 core cycles per
//! TSC cycle, glibc 2.36's `__memset_avx512_unaligned_erms`)
//!
//! - Inline in a build with AVX-512 enabled, the masked store fills any of
//!   1-64 bytes in 2.1 cycles (3 core cycles, in a loop) against glibc's 6.3
//!   (9), which runs the same masked store behind a call, a PLT jump, a
//!   broadcast and two comparisons; 1.6 at a 64-byte aligned start. Random
//!   lengths of 0-64 bytes: 2.9 against 8.3, because the mask has no branch
//!   to mispredict where glibc's two vector sizes have one.
//! - A 64-byte store costs two of Zen 4's 32-byte store slots, masked or not
//!   and whatever the mask, even an empty one (1.5 cycles per store against
//!   0.8 for a 32-byte one, in a loop of stores). So 65-256 bytes take plain
//!   overlapping stores, two or four behind a branch: four stores for every
//!   length, with no branch (`BRANCH_FREE_SHORT`), were 1.5× faster than
//!   glibc on random lengths of 0-256 bytes where the branch gave 1.1× (both
//!   with 129-256 bytes inline, as they no longer are), but 0.75-0.90× at
//!   fixed 100, 128 and 256 bytes where the branch gives 1.5×, 1.8× and
//!   1.0×. Masking the second to fourth vectors instead of overlapping them
//!   measured 2× slower at 65-128 bytes.
//! - Beyond 256 bytes the stores are the work: a 64-byte store that splits a
//!   cache line takes twice the slots of an aligned one, and four 64-byte
//!   stores of 129-256 bytes took as long inline as in glibc (1.0×): those
//!   lengths call the fill kernel (see `INLINE_MAX` in `src/fill.rs`).
//!
//! # Runtime dispatch without a call
//!
//! In a build without AVX-512 at compile time, [`crate::fill()`] still uses
//! the masked store for 0-64 bytes on a CPU that has it, inline, through
//! `fill_masked_asm`: the same four instructions as inline assembly (which
//! the compiler accepts in a function without the target feature), behind a
//! test of a flag cached at the first call; and, in a build without AVX2
//! either, the two plain stores for 65-128 bytes (`fill_vectors_asm`).
//! Against glibc, 3.0-3.6× at 1-64 bytes and 1.5-2.2× at 100-128, as fast as
//! with AVX-512 enabled at compile time; through the dispatch pointer (an
//! indirect call to the fill kernel) it was 1.3-1.5× at 1-64 bytes, and through
//! a direct call to a `#[target_feature]` function behind the same flag 1.5×
//! (measured in a separate harness), and 65-256 bytes 0.9-1.0× through the
//! dispatch.

use core::arch::x86_64::*;

/// The smallest page size of x86_64: the unit within which masked-off bytes
/// of a masked store are known to be mapped like the bytes stored.
const PAGE: usize = 4096;

/// A mask of the low `len <= 64` bits, in a mask register.
///
/// # Safety
///
/// The CPU must support AVX-512F and AVX-512BW, and `len` be at most 64.
#[inline(always)]
pub(super) unsafe fn low_mask(len: usize) -> __mmask64 {
    debug_assert!(len <= 64);
    #[cfg(target_feature = "bmi2")]
    {
        // SAFETY: BMI2 is enabled for the whole build.
        unsafe { _bzhi_u64(u64::MAX, len as u32) }
    }
    #[cfg(not(target_feature = "bmi2"))]
    {
        /// The index of every byte lane.
        const LANES: [u8; 64] = {
            let mut lanes = [0; 64];
            let mut i = 0;
            while i < 64 {
                lanes[i] = i as u8;
                i += 1;
            }
            lanes
        };
        // SAFETY: the caller guarantees AVX-512F and BW; `LANES` is 64
        // readable bytes.
        unsafe {
            let lanes = _mm512_loadu_si512(LANES.as_ptr().cast());
            _mm512_cmplt_epu8_mask(lanes, _mm512_set1_epi8(len as i8))
        }
    }
}

/// Fills the `len <= 64` bytes at `ptr` with `value`, where the 64 bytes
/// from `ptr` cross a page boundary, with masked stores to the aligned lines
/// they span: the bytes masked off in a line are in the same page as the
/// bytes stored.
///
/// # Safety
///
/// The CPU must support AVX-512F and AVX-512BW, `len` must be at most 64,
/// `ptr` valid for writes of `len` bytes and not 64-byte aligned.
#[cold]
#[inline(never)]
#[target_feature(enable = "avx512f,avx512bw")]
pub(super) unsafe fn fill_across_page(value: u8, ptr: *mut u8, len: usize) {
    let offset = ptr as usize % 64;
    debug_assert!(offset != 0 && len <= 64);
    // SAFETY: the caller guarantees AVX-512F and BW.
    let (v, mask) = unsafe { (_mm512_set1_epi8(value as i8), low_mask(len)) };
    // The data's bits within the two lines; `offset` is 1..=63.
    let (first, second) = (mask << offset, mask >> (64 - offset));
    let line = ptr.wrapping_sub(offset);
    // SAFETY: `first` selects the bytes of the data in the aligned line
    // holding `ptr`, `second` those in the next line, stored only if there
    // are any: the lines are aligned, so each lies in one page, the page of
    // the bytes stored.
    unsafe {
        _mm512_mask_storeu_epi8(line.cast(), first, v);
        if second != 0 {
            _mm512_mask_storeu_epi8(line.wrapping_add(64).cast(), second, v);
        }
    }
}

/// Whether the 64 bytes from `ptr` lie in one page, so that a masked store
/// there never touches another page: the condition of the masked store in
/// `Avx512Vector::try_fill_upto_64` and `fill_masked_asm`.
#[inline(always)]
pub(crate) fn in_one_page(ptr: *const u8) -> bool {
    ptr as usize % PAGE <= PAGE - 64
}

/// Fills the `65..=128` bytes at `ptr` with the byte repeated in `word`
/// with two overlapping 64-byte stores, as inline assembly, as
/// [`fill_masked_asm`] does for up to 64.
///
/// # Safety
///
/// The CPU must support AVX-512F and AVX-512BW; `len` must be in
/// `65..=128` and `ptr` valid for writes of `len` bytes.
#[inline(always)]
pub(crate) unsafe fn fill_vectors_asm(ptr: *mut u8, len: usize, word: u64) {
    debug_assert!((65..=128).contains(&len));
    // SAFETY: `vpbroadcastq` and `vmovdqu64` (AVX-512F) exist on this CPU,
    // as the caller guarantees. The stores start at 0 and
    // `len - 64`, so they cover `ptr..ptr + len` and stay inside it. Only
    // `zmm16` changes, declared.
    unsafe {
        core::arch::asm!(
            "vpbroadcastq zmm16, {word}",
            "vmovdqu64 zmmword ptr [{ptr}], zmm16",
            "vmovdqu64 zmmword ptr [{ptr} + {len} - 64], zmm16",
            ptr = in(reg) ptr,
            len = in(reg) len,
            word = in(reg) word,
            out("zmm16") _,
            options(nostack, preserves_flags)
        );
    }
}

/// Fills the `len <= 64` bytes at `ptr` with the byte repeated in `word`
/// ([`splat_word`](crate::arch::generic::fill::splat_word)) with one masked
/// 64-byte store, as inline assembly, so that it can be inlined into code
/// compiled without AVX-512 (a `#[target_feature]` function cannot be).
///
/// It uses `zmm16` and `k1`, declared clobbered: `zmm16`-`zmm31` are
/// outside the state that `vzeroupper` manages, so writing them leaves no
/// dirty upper halves behind for legacy SSE code to pay for.
///
/// The vector is broadcast from the word, not from the byte: the words of
/// the stores of 1-16 bytes that take no masked store (a fill across a
/// page) need the word too, and with both live across a caller's loop, and
/// the loop's call of the kernel for longer fills, the loop kept the byte
/// on the stack and loaded it back before every store. In the processes
/// where that slot of the stack lies at the page offset of the destination,
/// the load waits for the store before it ("4K aliasing"): with the address
/// space not randomized and the stack moved by 0-4080 bytes in steps of 16,
/// 64-byte fills called as applications call ran below 0.85× their median
/// of 1.85× glibc's `memset` (down to 1.09×) at 25-28 of the 256 places;
/// from the word at 0-2 places (down to 1.22×), the median 1.87× (AMD
/// Zen 5; BENCHMARKS.md, Zen 5, "Short fills: the stack and the
/// destination").
///
/// # Safety
///
/// The CPU must support AVX-512F, AVX-512BW and BMI2; `len` must be at most
/// 64, `ptr` valid for writes of `len` bytes, and [`in_one_page`]`(ptr)`.
#[cfg(not(all(target_feature = "avx512f", target_feature = "avx512bw")))]
#[inline(always)]
pub(crate) unsafe fn fill_masked_asm(ptr: *mut u8, len: usize, word: u64) {
    debug_assert!(len <= 64 && in_one_page(ptr));
    // SAFETY: `vpbroadcastq` (AVX-512F), `bzhi` (BMI2), `kmovq` and
    // `vmovdqu8` (AVX-512BW) exist on this CPU, as the caller guarantees.
    // The mask has the low `len` bits set, so the store writes exactly the
    // `len` bytes at `ptr`; the masked-off bytes are in the same page. Only
    // the declared registers and the flags (not preserved) change.
    unsafe {
        core::arch::asm!(
            "vpbroadcastq zmm16, {word}",
            "bzhi {mask}, {ones}, {len}",
            "kmovq k1, {mask}",
            "vmovdqu8 zmmword ptr [{ptr}]{{k1}}, zmm16",
            ptr = in(reg) ptr,
            len = in(reg) len,
            word = in(reg) word,
            ones = in(reg) u64::MAX,
            mask = out(reg) _,
            out("zmm16") _,
            out("k1") _,
            options(nostack)
        );
    }
}

/// [`fill_masked_asm`] in a build that enables AVX-512, with the mask
/// computed by the compiler (with `bzhi` where the build enables BMI2):
/// `zmm16`, outside the state `vzeroupper` manages, rather than the
/// register the compiler would keep the value in across the loop of a
/// caller, which made it clear the upper halves (`vzeroupper`) and reload
/// the value before every call of a kernel.
///
/// # Safety
///
/// `len` must be at most 64, `ptr` valid for writes of `len` bytes, and
/// [`in_one_page`]`(ptr)`.
#[cfg(all(target_feature = "avx512f", target_feature = "avx512bw"))]
#[inline(always)]
pub(crate) unsafe fn fill_masked_compiled(ptr: *mut u8, len: usize, value: u8) {
    debug_assert!(len <= 64 && in_one_page(ptr));
    #[cfg(target_feature = "bmi2")]
    // SAFETY: the build enables BMI2.
    let mask = unsafe { core::arch::x86_64::_bzhi_u64(u64::MAX, len as u32) };
    #[cfg(not(target_feature = "bmi2"))]
    let mask = u64::MAX.checked_shr(64 - len as u32).unwrap_or(0);
    // SAFETY: the build enables AVX-512F and AVX-512BW, which have
    // `vpbroadcastb`, `kmovq` and `vmovdqu8`. The mask has the low `len`
    // bits set, so the store writes exactly the `len` bytes at `ptr`; the
    // masked-off bytes are in the same page. Only the declared registers
    // change.
    unsafe {
        core::arch::asm!(
            "vpbroadcastb zmm16, {value:e}",
            "kmovq k1, {mask}",
            "vmovdqu8 zmmword ptr [{ptr}]{{k1}}, zmm16",
            ptr = in(reg) ptr,
            mask = in(reg) mask,
            value = in(reg) u32::from(value),
            out("zmm16") _,
            out("k1") _,
            options(nostack, preserves_flags)
        );
    }
}
