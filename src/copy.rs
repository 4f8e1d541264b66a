//! The copies: a packet copy with no cliffs ([`copy`], DPDK's
//! `rte_memcpy`), and a fused copy-and-checksum, one pass that copies a
//! buffer and returns its Internet checksum, as Linux's `csum_partial_copy`
//! does.

use core::mem::MaybeUninit;

use crate::Checksum;
use crate::arch::inline::copy_inline;
use crate::arch::native::Inline;
use crate::arch::scalar;
use crate::dispatch::{Choice, dispatch};
use crate::slice::{LengthMismatch, as_uninit_mut, assert_same_length, assume_init_mut};

dispatch! {
    /// Copies the `len > 64` bytes at `src` to `dst` with the active tier's
    /// kernel, or with `std` for a long copy the C library's `memcpy`, by
    /// the tier's and the CPU's rule (`arch::x86_64::handoff`).
    ///
    /// # Safety
    ///
    /// `len` must be more than 64, `src` valid for reads and `dst` for
    /// writes of `len` bytes, and the two must not overlap.
    unsafe fn copy_long(dst: *mut u8, src: *const u8, len: usize) -> ();
    kernel = copy_or_hand_off;
    route = crate::arch::memcpy::route;
}

/// Copies of up to this many bytes are inline: a few overlapping moves, no
/// call.
const COPY_INLINE_MAX: usize = 64;

/// Copies `src` into `dst`: `dst.copy_from_slice(src)` with no call for
/// short packets and no slow path for any length or alignment.
///
/// Up to 64 bytes the copy is inline: two or four overlapping moves, or in
/// a build that enables AVX-512 one masked load and one masked store, with
/// no branch on the length; no call (a call into the C library's `memcpy`
/// costs more than the moves at these lengths). Longer copies call the active tier's kernel, chosen once
/// (see [`Tier`](crate::Tier)): vectors loaded unaligned and stored aligned
/// to the destination, never `rep movsb`, which some CPUs (AMD Zen 3 and
/// Zen 4) run many times slower when the destination is a few bytes past
/// the source in the page, as a packet moved behind a 14-byte Ethernet
/// header is. With `std`, longer copies go to the C library's `memcpy`, at
/// the hardware's limit there: from 16 KiB with the AVX-512 tier, from
/// 2 KiB with the others; but on the CPUs whose
/// `memcpy` takes `rep movsb` there and has such a cliff (AMD Zen 3 and
/// Zen 4), copies below the L2 size keep the kernel, and on AMD Zen 5,
/// where `rep movsb` from 2112 bytes is slower than the kernels up to
/// 16 KiB, copies to 16 KiB keep it with every tier.
///
/// # Panics
///
/// If `dst` and `src` have different lengths, as
/// [`copy_from_slice`](slice::copy_from_slice) does.
///
/// ```
/// let payload = *b"a payload of any length";
/// let mut packet = [0u8; 14 + 23];
/// fastpath::copy(&mut packet[14..], &payload);
/// assert_eq!(packet[14..], payload);
/// ```
// No inline path for 65-128 bytes: two AVX-512 moves behind a test of the
// selection's flag sped 100-byte copies up but slowed 256-byte ones, in
// every order of the tests tried (Zen 4, docs/experiments.md, "Copies of
// 65-128 bytes inline").
// The kernel is called from the caller's code, one indirect call. Through
// an out-of-line function that checked the lengths and jumped to it, 100
// and 256-byte copies took 2 cycles more than the kernel called directly,
// and ran at 0.79× and 0.64-0.70× glibc's speed rather than 1.26-1.38× and
// 1.00-1.17× (Zen 4, AVX2 tier against glibc's AVX2 `memcpy`).
#[inline(always)]
#[track_caller]
pub fn copy(dst: &mut [u8], src: &[u8]) {
    let len = src.len();
    assert_same_length(dst.len(), len);
    // SAFETY: `len` bytes are readable at `src` and writable at `dst`,
    // which cannot overlap (one is borrowed mutably); `copy_inline` takes
    // `len <= 64` and `copy_long` the others.
    unsafe {
        if len <= COPY_INLINE_MAX {
            copy_inline::<Inline, Choice>(dst.as_mut_ptr(), src.as_ptr(), len);
        } else {
            copy_long(dst.as_mut_ptr(), src.as_ptr(), len);
        }
    }
}

/// Copies `src` into `dst`, memory that need not be initialized (a buffer
/// from an allocator or a ring, which there is no point in zeroing first),
/// and returns `dst`, now initialized: [`copy`] into uninitialized memory.
///
/// # Panics
///
/// If `dst` and `src` have different lengths.
///
/// ```
/// use core::mem::MaybeUninit;
///
/// let mut ring = [MaybeUninit::<u8>::uninit(); 4];
/// let packet = fastpath::copy_uninit(&mut ring, &[1, 2, 3, 4]);
/// assert_eq!(packet, [1, 2, 3, 4]);
/// ```
#[inline(always)]
#[track_caller]
pub fn copy_uninit<'d>(dst: &'d mut [MaybeUninit<u8>], src: &[u8]) -> &'d mut [u8] {
    let len = src.len();
    assert_same_length(dst.len(), len);
    // SAFETY: as in `copy`.
    unsafe {
        if len <= COPY_INLINE_MAX {
            copy_inline::<Inline, Choice>(dst.as_mut_ptr().cast(), src.as_ptr(), len);
        } else {
            copy_long(dst.as_mut_ptr().cast(), src.as_ptr(), len);
        }
    }
    // SAFETY: every byte of `dst` was written: the lengths are equal.
    unsafe { assume_init_mut(dst) }
}

dispatch! {
    /// Copies and returns the checksum with the active tier's kernel.
    fn copy_checksum_kernel(dst: &mut [MaybeUninit<u8>], src: &[u8]) -> u16;
    kernel = copy_checksum;
}

/// Copies `src` into `dst` and returns the folded sum of `src`: inline for
/// short inputs, the active tier's kernel otherwise. The lengths are equal.
#[inline]
fn copy_sum(dst: &mut [MaybeUninit<u8>], src: &[u8]) -> u16 {
    if src.len() <= scalar::SHORT_MAX {
        scalar::finish_native(scalar::copy_sum_native(dst, src))
    } else {
        !copy_checksum_kernel(dst, src)
    }
}

/// Copies `src` into `dst` and returns the Internet checksum of `src`,
/// reading `src` once: exactly what `dst.copy_from_slice(src)` followed by
/// [`checksum(src)`](crate::checksum()) give, in less time.
///
/// # Panics
///
/// If `dst` and `src` have different lengths, as
/// [`copy_from_slice`](slice::copy_from_slice) does. [`try_copy_checksum`]
/// returns an error instead.
///
/// ```
/// let payload = *b"a payload of any length";
/// let mut packet = [0u8; 23];
/// let sum = fastpath::copy_checksum(&mut packet, &payload);
/// assert_eq!(packet, payload);
/// assert_eq!(sum, fastpath::checksum(&payload));
/// ```
#[inline]
#[track_caller]
pub fn copy_checksum(dst: &mut [u8], src: &[u8]) -> u16 {
    assert_same_length(dst.len(), src.len());
    if src.len() <= scalar::SHORT_MAX {
        !scalar::finish_native(scalar::copy_sum_native(as_uninit_mut(dst), src))
    } else {
        // One indirect call (a tail jump where `copy_checksum` is not
        // inlined), to the kernel, which returns the checksum itself; see
        // `copy` for what a second hop cost.
        copy_checksum_kernel(as_uninit_mut(dst), src)
    }
}

/// Like [`copy_checksum`], but returns an error if the lengths differ.
///
/// ```
/// let mut short = [0u8; 2];
/// let err = fastpath::try_copy_checksum(&mut short, b"abc").unwrap_err();
/// assert_eq!((err.dst_len(), err.src_len()), (2, 3));
/// ```
#[inline]
pub fn try_copy_checksum(dst: &mut [u8], src: &[u8]) -> Result<u16, LengthMismatch> {
    if dst.len() == src.len() {
        Ok(!copy_sum(as_uninit_mut(dst), src))
    } else {
        Err(LengthMismatch {
            dst: dst.len(),
            src: src.len(),
        })
    }
}

/// Like [`copy_checksum`], into memory that need not be initialized (a
/// buffer from an allocator or a ring, which there is no point in zeroing
/// first). Returns `dst`, now initialized, and the checksum.
///
/// # Panics
///
/// If `dst` and `src` have different lengths.
///
/// ```
/// use core::mem::MaybeUninit;
///
/// let mut buf = [MaybeUninit::<u8>::uninit(); 4];
/// let (copied, sum) = fastpath::copy_checksum_uninit(&mut buf, &[1, 2, 3, 4]);
/// assert_eq!(copied, [1, 2, 3, 4]);
/// assert_eq!(sum, fastpath::checksum(&[1, 2, 3, 4]));
/// ```
#[inline]
pub fn copy_checksum_uninit<'d>(dst: &'d mut [MaybeUninit<u8>], src: &[u8]) -> (&'d mut [u8], u16) {
    assert_same_length(dst.len(), src.len());
    let sum = copy_sum(dst, src);
    // SAFETY: `copy_sum` wrote every byte of `dst`.
    (unsafe { assume_init_mut(dst) }, !sum)
}

impl Checksum {
    /// Copies `src` into `dst` and adds the bytes of `src`, which follow
    /// those added so far, as [`update`](Checksum::update) does: the streaming
    /// form of [`copy_checksum`]. Pieces may have any length.
    ///
    /// # Panics
    ///
    /// If `dst` and `src` have different lengths.
    ///
    /// ```
    /// use fastpath::Checksum;
    ///
    /// let data = b"copied in two pieces";
    /// let mut out = [0u8; 20];
    /// let mut sum = Checksum::new();
    /// sum.update_copy(&mut out[..7], &data[..7]);
    /// sum.update_copy(&mut out[7..], &data[7..]);
    /// assert_eq!(&out, data);
    /// assert_eq!(sum.finish(), fastpath::checksum(data));
    /// ```
    #[inline]
    pub fn update_copy(&mut self, dst: &mut [u8], src: &[u8]) {
        assert_same_length(dst.len(), src.len());
        self.append(copy_sum(as_uninit_mut(dst), src), src.len() % 2 == 1);
    }

    /// Like [`update_copy`](Checksum::update_copy), into memory that need
    /// not be initialized; returns `dst`, now initialized.
    ///
    /// # Panics
    ///
    /// If `dst` and `src` have different lengths.
    ///
    /// ```
    /// use core::mem::MaybeUninit;
    /// use fastpath::Checksum;
    ///
    /// let mut ring = [MaybeUninit::<u8>::uninit(); 64];
    /// let mut sum = Checksum::new();
    /// let header = sum.update_copy_uninit(&mut ring[..3], b"hdr");
    /// assert_eq!(header, b"hdr");
    /// let payload = sum.update_copy_uninit(&mut ring[3..8], b"bytes");
    /// assert_eq!(payload, b"bytes");
    /// assert_eq!(sum.finish(), fastpath::checksum(b"hdrbytes"));
    /// ```
    #[inline]
    pub fn update_copy_uninit<'d>(
        &mut self,
        dst: &'d mut [MaybeUninit<u8>],
        src: &[u8],
    ) -> &'d mut [u8] {
        assert_same_length(dst.len(), src.len());
        self.append(copy_sum(dst, src), src.len() % 2 == 1);
        // SAFETY: `copy_sum` wrote every byte of `dst`.
        unsafe { assume_init_mut(dst) }
    }
}
