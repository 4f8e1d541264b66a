//! `fill`, `zero` and `fill_nontemporal`: a memset for the sizes of packet
//! processing.
//!
//! In Rust, `slice::fill` and `ptr::write_bytes` with a length known only at
//! run time are a call into the C library's `memset`, whose fixed costs (the
//! call, the PLT jump, the broadcast of the value, the size checks) outweigh
//! the stores for the headers, descriptors and metadata of packet
//! processing. [`fill`] stores short lengths inline instead, and sends the
//! others to one out-of-line kernel chosen once:
//!
//! - up to 128 bytes (64 without AVX2 enabled at compile time), inline at
//!   the call site, with the widest vectors the build enables: overlapping
//!   stores, and for 0-64 bytes with AVX-512 one masked store;
//! - in a build without AVX-512 (the default `x86_64` target), 0-128 bytes
//!   on a CPU that has AVX-512BW and BMI2 still take the AVX-512 stores
//!   inline (the masked one up to 64 bytes), as inline assembly behind one
//!   test of a flag cached at the first call: no call at all (see
//!   `arch::x86_64::avx512::fill`);
//! - longer fills call the [active tier](crate::active_tier)'s kernel, chosen
//!   and cached at the first call, through the crate's one dispatch macro,
//!   so that `FASTPATH_TIER` caps it as it caps every primitive.
//!
//! The algorithm, and the measurements behind it, are in each kernel's file
//! and in `arch/fill.rs`, where it is written once for every tier.

use crate::arch;
use crate::arch::fill::{Splat, fill_short};
use crate::tier::dispatch;

dispatch! {
    /// Fills with the active tier's kernel.
    fn fill_dispatched(dst: &mut [u8], value: u8) -> ();
    kernel = arch::raw_fill_kernel;
}

dispatch! {
    /// Fills with the active tier's non-temporal kernel.
    fn fill_nontemporal_dispatched(dst: &mut [u8], value: u8) -> ();
    kernel = arch::raw_fill_nontemporal_kernel;
}

/// The vector the inline path stores: the widest that the build enables.
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "avx512f",
    target_feature = "avx512bw"
))]
type Inline = arch::x86_64::avx512::fill::Avx512Splat;
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "avx2",
    not(all(target_feature = "avx512f", target_feature = "avx512bw"))
))]
type Inline = arch::x86_64::avx2::fill::Avx2Splat;
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "sse2",
    not(target_feature = "avx2")
))]
type Inline = arch::x86_64::sse2::fill::Sse2Splat;
#[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
type Inline = arch::aarch64::neon::fill::NeonSplat;
#[cfg(not(any(
    all(target_arch = "x86_64", target_feature = "sse2"),
    all(target_arch = "aarch64", target_feature = "neon")
)))]
type Inline = arch::portable::fill::Words;

/// Fills of up to this many bytes are inline: four of the [`Inline`]
/// vectors, but no more than 128 bytes (two AVX-512 vectors).
///
/// Inlining the four AVX-512 vectors of 129-256 bytes too saved the call at
/// those lengths (at 256 bytes, 1.25× glibc's speed rather than 1.11×
/// aligned, 1.11× rather than 1.00× at +1), but cost the mixtures of lengths
/// on either side of 256 bytes: random lengths of 0-1024 bytes ran at
/// 0.92-0.94× glibc's `memset` in the default build, against 0.97-0.98× with
/// the boundary at 128 (medians of five interleaved runs, two builds each
/// way; BENCHMARKS.md). Past 128 bytes the stores, not the call, take most
/// of the time.
const INLINE_MAX: usize = if 4 * Inline::BYTES < 128 {
    4 * Inline::BYTES
} else {
    128
};

/// Sets every byte of `dst` to `value`: a faster `dst.fill(value)`.
///
/// Short fills (up to 128 bytes with AVX2 or AVX-512 enabled at compile
/// time, 64 otherwise) are stored inline, without a call: with
/// AVX-512, 0-64 bytes take one masked store. A build without AVX-512 at
/// compile time uses it too on a CPU that has it (behind a flag set at the
/// first call). Longer fills call the active tier's kernel, chosen once:
/// see [`Tier`](crate::Tier) for how, and how `FASTPATH_TIER` caps it.
///
/// ```
/// let mut header = [0xffu8; 20];
/// fastpath::fill(&mut header[4..], 0);
/// assert_eq!(header[..4], [0xff; 4]);
/// assert_eq!(header[4..], [0; 16]);
/// ```
// Always inlined: left to its heuristics, the compiler stopped inlining
// `fill` once a 65-256 byte path was added, and the 1-64 byte fills fell
// from 3.0× glibc's speed to 1.3×.
#[inline(always)]
pub fn fill(dst: &mut [u8], value: u8) {
    let len = dst.len();
    // The shortest lengths are tested first: one branch fewer on the path
    // where it counts (a fixed 1-64 byte fill took 3 cycles, not 4).
    if len <= 64 {
        // SAFETY: the `len <= 64` bytes from the start of `dst` are writable.
        unsafe { fill_inline(dst.as_mut_ptr(), len, value) }
    } else if len <= INLINE_MAX {
        // SAFETY: as above, with `len <= INLINE_MAX`.
        unsafe { fill_inline(dst.as_mut_ptr(), len, value) }
    } else {
        #[cfg(all(
            feature = "std",
            target_arch = "x86_64",
            not(all(target_feature = "avx512f", target_feature = "avx512bw"))
        ))]
        // SAFETY: the `len` bytes from the start of `dst` are writable.
        if len <= 128 && unsafe { masked::try_fill_vectors(dst.as_mut_ptr(), len, value) } {
            return;
        }
        fill_dispatched(dst, value);
    }
}

/// Sets every byte of `dst` to zero: [`fill`] with 0.
///
/// ```
/// let mut buf = [1u8; 5];
/// fastpath::zero(&mut buf);
/// assert_eq!(buf, [0; 5]);
/// ```
#[inline(always)]
pub fn zero(dst: &mut [u8]) {
    fill(dst, 0);
}

/// Sets every byte of `dst` to `value` with non-temporal stores: for a large
/// buffer (many times the size of the caches) that will not be read soon.
///
/// Non-temporal stores write whole cache lines to memory without first
/// reading them into the caches, and without evicting the data the program
/// works on. For a buffer that fits in the caches that is a loss: it is then
/// 5-100× slower than [`fill`] (the store fence waits for memory), so this
/// is opt-in, never chosen by `fill`. The unaligned first and last lines,
/// and fills of up to eight vectors (128-512 bytes), use ordinary stores.
/// (Measured on Zen 4 at 64 MiB, it runs at the speed of glibc's `memset`,
/// whose `rep stosb` already streams buffers that large to memory: what it
/// adds there is a guarantee, not speed.)
///
/// # Ordering
///
/// Non-temporal stores are weakly ordered: other cores may see them after
/// later ordinary stores. This function ends with a store fence (`sfence`)
/// after its non-temporal stores, so that when it returns they are ordered
/// before every later store, as ordinary stores are: the caller needs no
/// fence of its own, and may, for example, publish the buffer to another
/// thread with a `Release` store. Tiers without non-temporal stores (the
/// portable and NEON kernels) store ordinarily.
///
/// ```
/// let mut frame = vec![0xffu8; 1 << 20];
/// fastpath::fill_nontemporal(&mut frame, 0);
/// assert!(frame.iter().all(|&b| b == 0));
/// ```
pub fn fill_nontemporal(dst: &mut [u8], value: u8) {
    fill_nontemporal_dispatched(dst, value);
}

/// Fills the `len <= INLINE_MAX` bytes at `ptr` with `value`, inline.
///
/// # Safety
///
/// `len` must be at most [`INLINE_MAX`] and `ptr` valid for writes of `len`
/// bytes.
#[inline(always)]
unsafe fn fill_inline(ptr: *mut u8, len: usize, value: u8) {
    #[cfg(all(
        feature = "std",
        target_arch = "x86_64",
        not(all(target_feature = "avx512f", target_feature = "avx512bw"))
    ))]
    // SAFETY: the caller's guarantees, passed on.
    if unsafe { masked::try_fill(ptr, len, value) } {
        return;
    }
    // SAFETY: the build enables `Inline`'s instruction set (the `cfg`s that
    // choose it), and the caller guarantees the rest.
    unsafe { fill_short(Inline::splat(value), ptr, len) }
}

/// The AVX-512 stores for 0-128 bytes, inline, where the build does not
/// enable AVX-512 but the CPU has it: behind a flag set at the first call.
#[cfg(all(
    feature = "std",
    target_arch = "x86_64",
    not(all(target_feature = "avx512f", target_feature = "avx512bw"))
))]
mod masked {
    use core::sync::atomic::{AtomicU8, Ordering};

    use crate::Tier;
    use crate::arch::x86_64::avx512::fill::{fill_masked_asm, fill_vectors_asm, in_one_page};

    const UNKNOWN: u8 = 0;
    const ON: u8 = 1;
    const OFF: u8 = 2;

    /// Whether the active tier is AVX-512 and the CPU has BMI2 too: `ON` or
    /// `OFF`, `UNKNOWN` before the first fill.
    static STATE: AtomicU8 = AtomicU8::new(UNKNOWN);

    /// Fills the `len` bytes at `ptr` with `value` and returns `true` if the
    /// masked store can do it: `len` at most 64, the flag on, and the 64
    /// bytes from `ptr` in one page. Otherwise, returns `false`, having
    /// stored nothing.
    ///
    /// # Safety
    ///
    /// `ptr` must be valid for writes of `len` bytes.
    #[inline(always)]
    pub(super) unsafe fn try_fill(ptr: *mut u8, len: usize, value: u8) -> bool {
        if len > 64 {
            return false;
        }
        let state = STATE.load(Ordering::Relaxed);
        if state == ON && in_one_page(ptr) {
            // SAFETY: `ON` means the CPU has AVX-512F, AVX-512BW and BMI2;
            // the length and page were just checked, the caller guarantees
            // that the bytes are writable.
            unsafe { fill_masked_asm(ptr, len, value) };
            return true;
        }
        if state == UNKNOWN {
            detect();
        }
        false
    }

    /// Fills the `len` bytes at `ptr` with `value` and returns `true` if the
    /// flag is on, with two 64-byte stores; otherwise returns `false`,
    /// having stored nothing.
    ///
    /// # Safety
    ///
    /// `len` must be in `65..=128`, and `ptr` valid for writes of `len`
    /// bytes.
    #[inline(always)]
    pub(super) unsafe fn try_fill_vectors(ptr: *mut u8, len: usize, value: u8) -> bool {
        match STATE.load(Ordering::Relaxed) {
            ON => {
                // SAFETY: `ON` means the CPU has AVX-512F and AVX-512BW; the
                // caller guarantees the length and the bytes.
                unsafe { fill_vectors_asm(ptr, len, value) };
                true
            }
            UNKNOWN => {
                detect();
                false
            }
            _ => false,
        }
    }

    /// Sets the flag: on if the active tier (after `FASTPATH_TIER`) is
    /// AVX-512 and the CPU has BMI2, for `bzhi`.
    #[cold]
    #[inline(never)]
    fn detect() {
        let on = crate::active_tier() == Tier::Avx512 && std::is_x86_feature_detected!("bmi2");
        STATE.store(if on { ON } else { OFF }, Ordering::Relaxed);
    }
}
