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
//!   stores, and for 0-64 bytes with AVX-512 one masked store. An
//!   architecture may add stores of its own for the CPU found at run time
//!   (on x86_64, AVX-512 stores in a build without AVX-512, and AVX2 stores
//!   for 65-128 bytes in a build without AVX2): see `arch::inline`;
//! - longer fills call the [active tier](crate::active_tier)'s kernel, chosen
//!   and cached at the first call, through the crate's one dispatch macro,
//!   so that `FASTPATH_TIER` caps it as it caps every primitive: one load
//!   and one indirect call; or, with `std`, for fills below 1 KiB, the C
//!   library's `memset`, through the same pointer ([`route`]), on every CPU
//!   but those where the own kernels were measured faster there (AMD Zen 3
//!   and Zen 4, Intel Emerald Rapids: `arch::x86_64::handoff`).
//!   Non-temporal fills past their threshold keep the own kernels
//!   everywhere.
//!
//! The algorithm, and the measurements behind it, are in `arch/generic/fill.rs`,
//! where it is written once for every tier, and in the files of the tiers
//! whose vectors adjust it (`vector.rs`; AVX-512: `avx512/fill.rs`).

use crate::arch::inline::{InlinePath, fill_inline};
use crate::arch::native::Inline;
use crate::dispatch::{Choice, dispatch};

/// Fills of up to this many bytes are inline.
const INLINE_MAX: usize = <Inline as InlinePath>::MAX;

dispatch! {
    /// Fills with the active tier's kernel, or with `std` below the length
    /// of the CPU's rule the C library's `memset` ([`route`]).
    fn fill_dispatched(dst: &mut [u8], value: u8) -> ();
    kernel = fill;
    route = route::<false>;
}

dispatch! {
    /// Fills with the active tier's kernel below the non-temporal
    /// threshold, and its non-temporal kernel from it; or with `std`, below
    /// the length of the CPU's rule, the C library's `memset` ([`route`]).
    fn fill_nontemporal_dispatched(dst: &mut [u8], value: u8) -> ();
    kernel = fill_or_stream;
    route = route::<true>;
}

/// The type of a fill kernel.
#[cfg(feature = "std")]
type FillKernel = unsafe fn(&mut [u8], u8);

/// What the fills' dispatch pointer caches, given the chosen table's
/// `kernel`: the kernel itself where the CPU's rule keeps the own kernels
/// at every length (`memset_below` 0: AMD Zen 3, Zen 4 and Zen 5, Intel
/// Emerald Rapids), otherwise [`memset_or_kernel`] in front of it.
///
/// The rule is read once, when the pointer is set, and not at the call
/// site: there its load and comparison, on every fill past the inline
/// lengths, ran random 0-1024-byte fills at 0.96-0.97× `slice::fill` on
/// AMD Zen 4 (AVX-512, both call styles, two interleaved runs), the
/// kernel behind the pointer alone at 0.98-0.99× (BENCHMARKS.md, Zen 4,
/// "The hand-off's test at the call site"). On the CPUs that hand fills
/// off, `memset` is then one indirect call and one jump further away, as
/// when the Intel Xeon reported as model 0xa7 measured it ahead of the
/// kernels below 1 KiB (0.87-0.91× `slice::fill` at 129-512 bytes, the
/// kernels 0.67-0.88×; BENCHMARKS.md, "The hand-off to the C library").
#[cfg(feature = "std")]
fn route<const NONTEMPORAL: bool>(kernel: FillKernel) -> FillKernel {
    if crate::arch::generic::fill::memset_below() == 0 {
        kernel
    } else {
        memset_or_kernel::<NONTEMPORAL>
    }
}

/// Sets every byte of `dst` to `value`: below the length of the CPU's rule
/// with the C library's `memset`, from it with the active tier's kernel
/// (`fill`, or with `NONTEMPORAL` the one that streams from its
/// threshold). Both calls end the function, so both are jumps.
///
/// # Safety
///
/// None: `unsafe` for the type of a kernel.
#[cfg(feature = "std")]
unsafe fn memset_or_kernel<const NONTEMPORAL: bool>(dst: &mut [u8], value: u8) {
    if dst.len() < crate::arch::generic::fill::memset_below() {
        // SAFETY: the `dst.len()` bytes at `dst` are writable. With a length
        // the compiler cannot see, this is a call of `memset`.
        unsafe { core::ptr::write_bytes(dst.as_mut_ptr(), value, dst.len()) };
        return;
    }
    let kernels = crate::dispatch::active();
    let kernel = if NONTEMPORAL {
        kernels.fill_or_stream
    } else {
        kernels.fill
    };
    // SAFETY: the active table is one this CPU runs; its fill kernels have
    // no preconditions beyond the instruction set.
    unsafe { kernel(dst, value) }
}

/// Sets every byte of `dst` to `value`: a faster `dst.fill(value)`.
///
/// Short fills (up to 128 bytes with AVX2 or AVX-512 enabled at compile
/// time, 64 otherwise) are stored inline, without a call: with
/// AVX-512, 0-64 bytes take one masked store. A build without AVX-512 at
/// compile time uses it too on a CPU that has it, and a build without AVX2
/// stores 65-128 bytes inline with AVX2 on a CPU that has that (behind a
/// flag set at the first call). Longer fills call the active tier's
/// kernel, chosen once (see [`Tier`](crate::Tier) for how, and how
/// `FASTPATH_TIER` caps it); with `std`, on the CPUs where no measurement
/// shows that kernel faster than the C library's `memset` (all but AMD
/// Zen 3, Zen 4 and Zen 5 and Intel Emerald Rapids), fills below 1 KiB
/// call `memset`.
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
    fill_stores::<false>(dst, value);
}

/// [`fill`], or with `NONTEMPORAL` [`fill_nontemporal`]: the same inline
/// paths, then a call of the fill kernel, or of the kernel that picks
/// between the fill and the non-temporal one at the threshold.
#[inline(always)]
fn fill_stores<const NONTEMPORAL: bool>(dst: &mut [u8], value: u8) {
    let len = dst.len();
    // The shortest lengths are tested first: one branch fewer on the path
    // where it counts (a fixed 1-64 byte fill took 3 cycles, not 4).
    if len <= 64 {
        // SAFETY: the `len <= 64` bytes from the start of `dst` are writable.
        unsafe { fill_inline::<Inline, Choice>(dst.as_mut_ptr(), len, value) }
    } else if len <= INLINE_MAX {
        // SAFETY: as above, with `len <= INLINE_MAX`.
        unsafe { fill_inline::<Inline, Choice>(dst.as_mut_ptr(), len, value) }
    } else {
        // SAFETY: `len > INLINE_MAX`, and the `len` bytes are writable.
        if unsafe { Inline::try_fill_long::<Choice>(dst.as_mut_ptr(), len, value) } {
            return;
        }
        if NONTEMPORAL {
            fill_nontemporal_dispatched(dst, value);
        } else {
            fill_dispatched(dst, value);
        }
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

/// Sets every byte of `dst` to `value` with non-temporal stores where that
/// pays: for a large buffer (larger than the caches) that will not be read
/// soon.
///
/// Non-temporal stores write whole cache lines to memory without first
/// reading them into the caches, and without evicting the data the program
/// works on. For a buffer that fits in the caches that is a loss, many
/// times slower than [`fill`] (the store fence waits for memory). So a
/// buffer shorter than [`Caches::nontemporal_threshold`](crate::Caches::nontemporal_threshold)
/// (the size of the last-level cache; see [`caches`](crate::caches)) is filled
/// by [`fill`]; a longer one by the active tier's non-temporal kernel,
/// whose unaligned first and last lines are ordinary stores. (Measured on
/// Zen 4, glibc's `memset` streams buffers of 64 MiB at the speed of
/// non-temporal stores with `rep stosb`: what this adds there is the
/// guarantee, not speed.)
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
// Always inlined, as `fill` is, with the same inline code: only the kernel
// differs, `fill`'s own below 64 KiB (the lowest threshold) behind one
// comparison that is not taken. Read before the inline paths, the threshold
// made random 0-256 byte fills 0.89× as fast as `fill` (Zen 4,
// `-C target-cpu=native`); compared with 64 KiB after them, at the call
// site, it cost 256-byte fills a taken branch, 2-3 cycles (0.64-0.70×
// glibc's speed where `fill` ran at 0.87-0.90×, Zen 4 with AVX-512 masked
// off).
#[inline(always)]
pub fn fill_nontemporal(dst: &mut [u8], value: u8) {
    fill_stores::<true>(dst, value);
}

#[cfg(all(test, feature = "std"))]
mod tests {
    extern crate std;

    use crate::arch::generic::fill::{memset_below, set_memset_below};

    /// The fills handed to `memset`, whatever this CPU's rule (the rules of
    /// other CPUs hand 129-1023 bytes to it), fill exactly the bytes given:
    /// through the function the dispatch pointer caches on those CPUs, and
    /// through the public functions, whichever this CPU's pointer caches.
    /// Other tests running meanwhile see the changed length too: both of
    /// its paths fill correctly.
    #[test]
    fn fills_handed_to_memset_fill_exactly_the_bytes() {
        let _ = crate::active_tier();
        let _tests = crate::arch::generic::fill::MEMSET_BELOW_TESTS.lock();
        let rule = memset_below();
        set_memset_below(4096);
        let mut buf = std::vec![0u8; 8192];
        for len in (0..600).chain([1023, 1024, 4095, 4096, 4097]) {
            for offset in [0, 1, 14, 63] {
                for way in 0..4 {
                    buf.fill(0xee);
                    let dst = &mut buf[offset..offset + len];
                    match way {
                        0 => super::fill(dst, 0x5a),
                        1 => super::fill_nontemporal(dst, 0x5a),
                        // SAFETY: no precondition.
                        2 => unsafe { super::memset_or_kernel::<false>(dst, 0x5a) },
                        // SAFETY: as above.
                        _ => unsafe { super::memset_or_kernel::<true>(dst, 0x5a) },
                    }
                    assert!(
                        buf[offset..offset + len].iter().all(|&b| b == 0x5a),
                        "{len} at +{offset}, way {way}"
                    );
                    let mut outside = buf[..offset].iter().chain(&buf[offset + len..]);
                    assert!(outside.all(|&b| b == 0xee), "{len} at +{offset}, way {way}");
                }
            }
        }
        set_memset_below(rule);
    }
}
