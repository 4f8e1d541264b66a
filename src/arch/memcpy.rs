//! The short path of the packet copy, which [`crate::copy()`] inlines into
//! its callers, and the rule by which long copies go to the C library: the
//! rest of the copy algorithm is written once over each tier's vector in
//! `arch/generic/copy.rs`.

#[cfg(feature = "std")]
use core::sync::atomic::{AtomicUsize, Ordering};

/// Copies the `len <= 64` bytes at `src` to `dst` without a loop or a call.
///
/// # Safety
///
/// `len` must be at most 64, `src` valid for reads and `dst` for writes of
/// `len` bytes, and the two must not overlap.
#[inline(always)]
pub(crate) unsafe fn copy_short(dst: *mut u8, src: *const u8, len: usize) {
    debug_assert!(len <= 64);
    /// Loads the `N` bytes at `src + offset`.
    ///
    /// # Safety
    ///
    /// `offset + N` must be at most `len`.
    #[inline(always)]
    unsafe fn load<const N: usize>(src: *const u8, offset: usize) -> [u8; N] {
        // SAFETY: the caller guarantees that the `N` bytes at `offset` are
        // inside the source; the read needs no alignment.
        unsafe { src.add(offset).cast::<[u8; N]>().read_unaligned() }
    }
    /// Stores `bytes` at `dst + offset`.
    ///
    /// # Safety
    ///
    /// `offset + N` must be at most `len`.
    #[inline(always)]
    unsafe fn store<const N: usize>(dst: *mut u8, offset: usize, bytes: [u8; N]) {
        // SAFETY: the caller guarantees that the `N` bytes at `offset` are
        // inside the destination; the write needs no alignment.
        unsafe { dst.add(offset).cast::<[u8; N]>().write_unaligned(bytes) }
    }
    /// Moves the `N` bytes at the `K` offsets: every load before the first
    /// store, as the C library's `memcpy` orders them. On Zen 4 a few
    /// pairs of pages, the source and the destination at the same offset
    /// in each, run a short copy several times slower than the others
    /// (`benchmarks/outside`'s `pages` mode); with each load beside its
    /// store, the slowest of 256 such pairs ran copies of 1 and 33 bytes at
    /// 0.68-0.70× `copy_from_slice`, with the loads first at 0.75-0.80×,
    /// the median pair unchanged (BENCHMARKS.md, Zen 4, "Short copies by
    /// pair of pages").
    ///
    /// # Safety
    ///
    /// Each offset plus `N` must be at most `len`.
    #[inline(always)]
    unsafe fn move_all<const N: usize, const K: usize>(
        dst: *mut u8,
        src: *const u8,
        at: [usize; K],
    ) {
        // SAFETY: the caller's guarantee, for each offset.
        unsafe {
            let bytes = loaded(at.map(|offset| load::<N>(src, offset)));
            for (offset, bytes) in at.into_iter().zip(bytes) {
                store::<N>(dst, offset, bytes);
            }
        }
    }
    /// The values loaded, passed through an empty `asm!` on x86_64 when
    /// they are four vectors of 16 bytes, so that every store depends on
    /// every load: without it the compiler, knowing that the buffers do not
    /// overlap, pairs each 16-byte load with its store.
    #[inline(always)]
    fn loaded<const N: usize, const K: usize>(bytes: [[u8; N]; K]) -> [[u8; N]; K] {
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        if N == 16 && K == 4 {
            use core::arch::x86_64::__m128i;
            // SAFETY: `N` is 16, so each value is the 16 bytes of an
            // `__m128i`, which has no invalid bit patterns.
            let mut v = bytes.map(|v| unsafe { core::mem::transmute_copy::<[u8; N], __m128i>(&v) });
            // SAFETY: an empty template, which reads and writes nothing;
            // `sse2`, which the `xmm` registers need, is enabled; `K` is 4.
            unsafe {
                core::arch::asm!(
                    "/* {a} {b} {c} {d} */",
                    a = inout(xmm_reg) v[0],
                    b = inout(xmm_reg) v[1],
                    c = inout(xmm_reg) v[2],
                    d = inout(xmm_reg) v[3],
                    options(pure, nomem, nostack, preserves_flags)
                );
            }
            // SAFETY: as above, `N` is 16.
            return v.map(|v| unsafe { core::mem::transmute_copy::<__m128i, [u8; N]>(&v) });
        }
        bytes
    }
    // SAFETY: every move lies in `0..len`: for 17-64 bytes, 16 bytes at 0,
    // `d`, `len - 16 - d` and `len - 16`, with `d` 0 below 32 bytes and 16
    // from 32, which cover `0..16` or `0..32` and as many bytes that end at
    // `len`, so all of them; for 8-16, 8 bytes at 0 and `len - 8`, and for
    // 4-7, 4 bytes at 0 and `len - 4`, which overlap or meet; for 1-3, the
    // first, middle and last bytes.
    //
    // Two moves of 8 bytes at 8-16, as the C library's `memcpy` does, not
    // four of 4: with the destination 1 byte past the source in the page,
    // the four loads waited on the last copy's four stores (4K aliasing),
    // and 8 and 16-byte copies ran at 1.36-1.58× and 1.44-1.68×
    // `copy_from_slice`, with the two at 2.00-2.37× and 2.02-2.37× (AMD
    // EPYC Zen 5, BENCHMARKS.md, "Short copies: two moves of 8 bytes").
    //
    // 17-64 bytes are tested first: behind a test `len >= 8` that the
    // shorter lengths of the same call site also take, both ways, 32 and
    // 64-byte copies ran at 1.20-1.26× `copy_from_slice`, behind the one
    // test at 1.50-1.53×; random lengths of 0-64 bytes at 1.97-2.22× and
    // 1.87-1.99×, 1-byte copies at 1.60-2.55× and 1.52-2.29× (`fastpath
    // bench copy`, two runs of each in both regimes, Zen 5; BENCHMARKS.md,
    // "Short copies: 17-64 bytes tested first"). 0-16 bytes then split at
    // 4, so that 1-3 bytes take three tests, not four.
    unsafe {
        if len > 16 {
            let d = usize::from(len >= 32) * 16;
            move_all::<16, 4>(dst, src, [0, d, len - 16 - d, len - 16]);
        } else if len >= 4 {
            if len >= 8 {
                move_all::<8, 2>(dst, src, [0, len - 8]);
            } else {
                move_all::<4, 2>(dst, src, [0, len - 4]);
            }
        } else if len > 0 {
            let (first, middle, last) = (
                load::<1>(src, 0),
                load::<1>(src, len / 2),
                load::<1>(src, len - 1),
            );
            store::<1>(dst, 0, first);
            store::<1>(dst, len / 2, middle);
            store::<1>(dst, len - 1, last);
        }
    }
}

/// The longest copy that `generic::copy::copy_beyond_short` with `HAND_OFF` keeps on
/// the own kernel: every length until the selection sets the rule of the
/// chosen tier and CPU ([`set_own_copy_to`]).
#[cfg(feature = "std")]
static OWN_COPY_TO: AtomicUsize = AtomicUsize::new(usize::MAX);

/// The longest copy that keeps the own kernel rather than go to the C
/// library's `memcpy`.
#[cfg(feature = "std")]
#[inline(always)]
pub(crate) fn own_copy_to() -> usize {
    OWN_COPY_TO.load(Ordering::Relaxed)
}

/// The shortest copy that any rule hands to `memcpy` is longer than this:
/// copies up to it keep the own kernel, and the AVX-512 kernel that
/// [`route`] picks does not read the rule for them. On an AMD
/// EPYC Zen 5, a load before the copy's loop cost 1-2 TSC cycles of the
/// 20-24 that a 1500-byte copy with the source off the line takes: the
/// kernel's loop in assembly ran it at 1.15× glibc's `memcpy`, with the
/// kernel's tests and its two loads before it (this length, and the
/// vendor's, `arch::x86_64::avx512::vector`) at 0.96-1.04×
/// (docs/experiments.md, "No load before the copy's loop").
#[cfg(feature = "std")]
pub(crate) const OWN_COPY_MIN: usize = 2 << 10;

/// Sets [`own_copy_to`]: the selection's hook, with the rule of the tier
/// it chose (`arch::x86_64::handoff`), at least [`OWN_COPY_MIN`].
#[cfg(feature = "std")]
pub(crate) fn set_own_copy_to(len: usize) {
    OWN_COPY_TO.store(len.max(OWN_COPY_MIN), Ordering::Relaxed);
}

/// The type of the copy kernel past the inline lengths.
#[cfg(feature = "std")]
type CopyKernel = unsafe fn(*mut u8, *const u8, usize);

/// What the copy's dispatch pointer caches, given the chosen table's
/// `kernel`: with the AVX-512 tier, on the CPUs that keep its 64-byte loop
/// at every placement (all but AMD's before Zen 5), the kernel that does
/// not test the vendor on every copy that splits lines
/// (`arch::x86_64::avx512::vector`); otherwise the kernel itself.
#[cfg(feature = "std")]
pub(crate) fn route(kernel: CopyKernel) -> CopyKernel {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    if crate::dispatch::active().tier() == crate::Tier::Avx512
        && !crate::arch::x86_64::is_amd_before_zen_5()
    {
        return crate::arch::x86_64::avx512::vector::copy_or_hand_off_own_loop;
    }
    kernel
}

#[cfg(all(test, feature = "std"))]
mod tests {
    /// The route keeps the table's kernel except with the AVX-512 tier on a
    /// CPU that keeps its 64-byte loop at every placement.
    #[test]
    fn route_swaps_only_the_avx512_kernel() {
        let kernel = crate::dispatch::active().copy_or_hand_off;
        let routed = super::route(kernel);
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        {
            let own_loop = crate::dispatch::active().tier() == crate::Tier::Avx512
                && !crate::arch::x86_64::is_amd_before_zen_5();
            let expected: super::CopyKernel = if own_loop {
                crate::arch::x86_64::avx512::vector::copy_or_hand_off_own_loop
            } else {
                kernel
            };
            assert!(core::ptr::fn_addr_eq(routed, expected));
        }
        #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
        assert!(core::ptr::fn_addr_eq(routed, kernel));
    }
}
