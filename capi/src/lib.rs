//! The C interface of fastpath: `libfastpath.so`, `libfastpath.a` and
//! `include/fastpath.h` (written from this file by cbindgen).
//!
//! Every 16-bit checksum crosses the interface as it is stored in a packet
//! (network byte order), as DPDK's and Linux's checksums do: the value a
//! function returns is written into the header field as a `uint16_t`,
//! unconverted, and the values it takes are read from one the same way.
//! No function panics on any input its preconditions allow; those that can
//! fail on the bytes of a packet return an [`fp_error`] code.
//!
//! One rule for pointers: a null pointer with a length of 0 is an empty
//! buffer, in every function. The functions that return an [`fp_error`]
//! return `FP_ERR_NULL` for a null pointer with a length above 0, and for
//! a null output they need. The others, which return a checksum or
//! nothing as DPDK's do, have no error to return: every pointer they take
//! must be valid for its length (a header pointer for its header), as in
//! DPDK.

#![allow(non_camel_case_types)]

use core::ffi::{c_char, c_int, c_void};
use core::mem::MaybeUninit;

use fp::Checksum;
use fp::packet::{Error, incremental, l4, partial};

/// The header's version, FP_VERSION_MAJOR.FP_VERSION_MINOR.FP_VERSION_PATCH,
/// for the preprocessor; `fp_version()` gives the library's, at run time.
pub const FP_VERSION_MAJOR: u32 = 0;
/// The header's minor version.
pub const FP_VERSION_MINOR: u32 = 1;
/// The header's patch version.
pub const FP_VERSION_PATCH: u32 = 0;

/// The `ol_flags` bit of DPDK's `RTE_MBUF_F_TX_TCP_SEG` (TCP segmentation
/// offload): given to `fp_ipv4_phdr_cksum` or `fp_ipv6_phdr_cksum`, the
/// pseudo-header sum leaves out the length, as the NIC adds each segment's.
pub const FP_TX_TCP_SEG: u64 = 0x0004_0000_0000_0000;

/// The error codes of the functions that parse a packet: 0 for success,
/// negative for an error. `fp_strerror` describes each.
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum fp_error {
    /// Success.
    FP_OK = 0,
    /// The bytes end before a header, a field or the data a header declares.
    FP_ERR_TRUNCATED = -1,
    /// The IP version is not 4 or 6, or not the one the function takes.
    FP_ERR_VERSION = -2,
    /// An IPv4 IHL below 5.
    FP_ERR_HEADER_LENGTH = -3,
    /// Lengths that don't fit: a total length shorter than the header, a
    /// UDP length below 8 or past the IP payload, and the like.
    FP_ERR_LENGTH = -4,
    /// The first fragment of a fragmented packet: its checksum covers data
    /// in the other fragments.
    FP_ERR_FIRST_FRAGMENT = -5,
    /// A fragment other than the first: no upper-layer header.
    FP_ERR_LATER_FRAGMENT = -6,
    /// An upper layer whose checksum is not known (not TCP, UDP, ICMPv4 over
    /// IPv4 or ICMPv6 over IPv6).
    FP_ERR_PROTOCOL = -7,
    /// An IPv6 routing header with segments left, of a type whose final
    /// destination is unknown.
    FP_ERR_ROUTING_TYPE = -8,
    /// An offset or a field outside the buffer, or overlapping what it may
    /// not.
    FP_ERR_OUT_OF_BOUNDS = -9,
    /// A null pointer where bytes or a result were needed.
    FP_ERR_NULL = -10,
    /// An error of a newer version of the library than this interface
    /// names.
    FP_ERR_OTHER = -11,
    /// `fp_partial_write_seed` on UDP-Lite whose checksum coverage ends
    /// before the datagram: a device sums to the end of the packet, so
    /// offload cannot complete it. Compute it with `fp_l4_write_checksum`.
    FP_ERR_PARTIAL_COVERAGE = -12,
}

impl From<Error> for fp_error {
    fn from(error: Error) -> fp_error {
        match error {
            Error::Truncated => fp_error::FP_ERR_TRUNCATED,
            Error::Version(_) => fp_error::FP_ERR_VERSION,
            Error::HeaderLength(_) => fp_error::FP_ERR_HEADER_LENGTH,
            Error::Length => fp_error::FP_ERR_LENGTH,
            Error::FirstFragment => fp_error::FP_ERR_FIRST_FRAGMENT,
            Error::LaterFragment => fp_error::FP_ERR_LATER_FRAGMENT,
            Error::Protocol(_) => fp_error::FP_ERR_PROTOCOL,
            Error::RoutingType(_) => fp_error::FP_ERR_ROUTING_TYPE,
            // Split headers arise only from the vectored functions without
            // `std`, neither of which this interface has.
            Error::OutOfBounds | Error::SplitHeaders => fp_error::FP_ERR_OUT_OF_BOUNDS,
            Error::PartialCoverage => fp_error::FP_ERR_PARTIAL_COVERAGE,
            _ => fp_error::FP_ERR_OTHER,
        }
    }
}

/// The state of a checksum computed piece by piece: `fp_csum_init`, then
/// `fp_csum_update` with each piece in order (of any length, odd ones
/// included), then `fp_csum_finish`. Its fields are private; copy it freely.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct fp_csum {
    /// The folded sum so far, as big-endian words: private.
    sum: u16,
    /// 1 if an odd number of bytes has been added: private.
    odd: u16,
}

impl fp_csum {
    fn get(&self) -> Checksum {
        Checksum::from_parts(self.sum, self.odd != 0)
    }

    fn set(&mut self, state: Checksum) {
        self.sum = state.sum();
        self.odd = u16::from(state.is_odd());
    }
}

/// An I/O vector, as `struct iovec` of `<sys/uio.h>`.
#[repr(C)]
pub struct iovec {
    /// The start of the bytes.
    pub iov_base: *mut c_void,
    /// Their number.
    pub iov_len: usize,
}

/// `len` bytes at `ptr` as a slice; empty for a length of 0 whatever the
/// pointer.
///
/// # Safety
///
/// Unless `len` is 0, `ptr` must be valid for reads of `len` bytes for `'a`,
/// and not written meanwhile.
unsafe fn bytes<'a>(ptr: *const c_void, len: usize) -> &'a [u8] {
    if len == 0 {
        return &[];
    }
    // SAFETY: the caller guarantees `len` readable bytes at `ptr`.
    unsafe { core::slice::from_raw_parts(ptr.cast(), len) }
}

/// [`bytes`] for the functions that return an `fp_error`: `FP_ERR_NULL`
/// for a null pointer with a length above 0.
///
/// # Safety
///
/// As [`bytes`], for a pointer that is not null.
unsafe fn checked<'a>(ptr: *const c_void, len: usize) -> Result<&'a [u8], c_int> {
    if ptr.is_null() && len != 0 {
        return Err(fp_error::FP_ERR_NULL as c_int);
    }
    // SAFETY: the caller's guarantees.
    Ok(unsafe { bytes(ptr, len) })
}

/// [`bytes_mut`] for the functions that return an `fp_error`, as
/// [`checked`].
///
/// # Safety
///
/// As [`bytes_mut`], for a pointer that is not null.
unsafe fn checked_mut<'a>(ptr: *mut c_void, len: usize) -> Result<&'a mut [u8], c_int> {
    if ptr.is_null() && len != 0 {
        return Err(fp_error::FP_ERR_NULL as c_int);
    }
    // SAFETY: the caller's guarantees.
    Ok(unsafe { bytes_mut(ptr, len) })
}

/// `len` bytes at `ptr` as a mutable slice; empty for a length of 0.
///
/// # Safety
///
/// Unless `len` is 0, `ptr` must be valid for reads and writes of `len`
/// initialized bytes for `'a`, and accessed by nothing else meanwhile.
unsafe fn bytes_mut<'a>(ptr: *mut c_void, len: usize) -> &'a mut [u8] {
    if len == 0 {
        return &mut [];
    }
    // SAFETY: the caller's guarantees.
    unsafe { core::slice::from_raw_parts_mut(ptr.cast(), len) }
}

/// `len` bytes at `ptr`, perhaps uninitialized, as a slice to write; empty
/// for a length of 0.
///
/// # Safety
///
/// Unless `len` is 0, `ptr` must be valid for writes of `len` bytes for
/// `'a`, and accessed by nothing else meanwhile.
unsafe fn uninit_mut<'a>(ptr: *mut c_void, len: usize) -> &'a mut [MaybeUninit<u8>] {
    if len == 0 {
        return &mut [];
    }
    // SAFETY: the caller's guarantees; `MaybeUninit<u8>` may be
    // uninitialized.
    unsafe { core::slice::from_raw_parts_mut(ptr.cast(), len) }
}

/// A checksum as the library computes it (the big-endian words' value) as
/// it is stored: network byte order.
fn stored(value: u16) -> u16 {
    value.to_be()
}

/// The value of a checksum stored in a packet.
fn value(stored: u16) -> u16 {
    u16::from_be(stored)
}

/// The ones'-complement sum of `bytes`, folded, not complemented, as
/// big-endian words.
///
/// The complement of [`fp::checksum`], whose inline path for short inputs
/// passes no state through memory: a `Checksum` here cost 19 cycles a call
/// at 100 bytes.
fn sum(bytes: &[u8]) -> u16 {
    !fp::checksum(bytes)
}

/// The Internet checksum (RFC 1071) of the `len` bytes at `buf`: the ones'
/// complement of their ones'-complement sum, in network byte order, ready
/// to store in a header's checksum field (whose bytes must be zero in the
/// buffer). Over bytes that hold their correct checksum it is 0; over none,
/// 0xffff.
///
/// # Safety
///
/// `buf` must be valid for reads of `len` bytes (or `len` 0).
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fp_checksum(buf: *const c_void, len: usize) -> u16 {
    // SAFETY: the caller's guarantee.
    stored(fp::checksum(unsafe { bytes(buf, len) }))
}

/// The ones'-complement sum of the `len` bytes at `buf`, folded to 16 bits
/// and not complemented, in network byte order: DPDK's `rte_raw_cksum`,
/// value for value (0 only for bytes that are all zero).
///
/// # Safety
///
/// `buf` must be valid for reads of `len` bytes (or `len` 0).
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fp_raw_cksum(buf: *const c_void, len: usize) -> u16 {
    // SAFETY: the caller's guarantee.
    stored(sum(unsafe { bytes(buf, len) }))
}

/// Starts a checksum over no bytes.
///
/// # Safety
///
/// `state` must be valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fp_csum_init(state: *mut fp_csum) {
    // SAFETY: the caller's guarantee.
    unsafe { state.write(fp_csum { sum: 0, odd: 0 }) }
}

/// Adds the `len` bytes at `buf`, which follow those added so far.
///
/// # Safety
///
/// `state` must point to a state started by `fp_csum_init`, and `buf` be
/// valid for reads of `len` bytes (or `len` 0).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fp_csum_update(state: *mut fp_csum, buf: *const c_void, len: usize) {
    // SAFETY: the caller's guarantees.
    let (state, data) = unsafe { (&mut *state, bytes(buf, len)) };
    let mut sum = state.get();
    sum.update(data);
    state.set(sum);
}

/// Copies the `len` bytes at `src` to `dst` and adds them, as
/// `fp_csum_update` would: a copy and a checksum in one pass.
///
/// # Safety
///
/// `state` must point to a started state, `src` be valid for reads and
/// `dst` for writes of `len` bytes (or `len` 0), and the two must not
/// overlap.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fp_csum_update_copy(
    state: *mut fp_csum,
    dst: *mut c_void,
    src: *const c_void,
    len: usize,
) {
    // SAFETY: the caller's guarantees; `src` and `dst` don't overlap.
    let (state, dst, src) = unsafe { (&mut *state, uninit_mut(dst, len), bytes(src, len)) };
    let mut sum = state.get();
    sum.update_copy_uninit(dst, src);
    state.set(sum);
}

/// Appends the bytes that `next` has summed to those of `state`, as if they
/// had been added to `state` after its own: the pieces of a buffer summed
/// apart (by two threads, say), of any lengths.
///
/// # Safety
///
/// Both must point to started states.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fp_csum_combine(state: *mut fp_csum, next: *const fp_csum) {
    // SAFETY: the caller's guarantees.
    let (state, next) = unsafe { (&mut *state, &*next) };
    let mut sum = state.get();
    sum.combine(&next.get());
    state.set(sum);
}

/// The Internet checksum of every byte added so far, in network byte
/// order. The state is unchanged: more bytes may follow.
///
/// # Safety
///
/// `state` must point to a started state.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fp_csum_finish(state: *const fp_csum) -> u16 {
    // SAFETY: the caller's guarantee.
    stored(unsafe { &*state }.get().finish())
}

/// The folded sum, not complemented, of every byte added so far, in network
/// byte order: what `fp_raw_cksum` gives for all of them at once.
///
/// # Safety
///
/// `state` must point to a started state.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fp_csum_raw(state: *const fp_csum) -> u16 {
    // SAFETY: the caller's guarantee.
    stored(unsafe { &*state }.get().sum())
}

/// The Internet checksum of the bytes of `iovcnt` I/O vectors, one after
/// the other (segments of any length, odd ones included), in network byte
/// order.
///
/// # Safety
///
/// `iov` must point to `iovcnt` vectors (or `iovcnt` be 0), each valid for
/// reads of its bytes.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fp_checksum_iov(iov: *const iovec, iovcnt: usize) -> u16 {
    let mut sum = Checksum::new();
    for i in 0..iovcnt {
        // SAFETY: the caller guarantees `iovcnt` vectors and their bytes.
        let data = unsafe {
            let v = &*iov.add(i);
            bytes(v.iov_base, v.iov_len)
        };
        sum.update(data);
    }
    stored(sum.finish())
}

/// The folded sum, not complemented, of the `len` bytes from offset `off`
/// of the bytes of `iovcnt` I/O vectors taken one after the other, stored
/// in `*cksum` in network byte order: DPDK's `rte_raw_cksum_mbuf` over an
/// array of segments rather than a chain of mbufs. Returns 0, or -1 (and
/// stores nothing) if `off + len` is past the last byte, or a pointer it
/// needs is null (`cksum`, `iov` with `iovcnt` above 0, a vector's base
/// with a length above 0).
///
/// Segments of any length are summed exactly, odd ones included (DPDK
/// 22.11 drops the carries of a segment that starts at an odd offset of the
/// data: there, the two may differ).
///
/// # Safety
///
/// `iov` must point to `iovcnt` vectors (or `iovcnt` be 0), each valid for
/// reads of its bytes, and `cksum` be valid for writes.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fp_raw_cksum_iov(
    iov: *const iovec,
    iovcnt: usize,
    off: usize,
    len: usize,
    cksum: *mut u16,
) -> c_int {
    let Some(end) = off.checked_add(len) else {
        return -1;
    };
    if cksum.is_null() || (iov.is_null() && iovcnt != 0) {
        return -1;
    }
    let mut sum = Checksum::new();
    let mut at = 0usize;
    for i in 0..iovcnt {
        if at >= end {
            break;
        }
        // SAFETY: the caller guarantees `iovcnt` vectors and their bytes;
        // `iov` is not null.
        let data = match unsafe {
            let v = &*iov.add(i);
            checked(v.iov_base, v.iov_len)
        } {
            Ok(data) => data,
            Err(_) => return -1,
        };
        let from = off.saturating_sub(at).min(data.len());
        let to = (end - at).min(data.len());
        sum.update(&data[from..to.max(from)]);
        at += data.len();
    }
    if at < end {
        return -1;
    }
    // SAFETY: the caller guarantees that `cksum` is writable.
    unsafe { cksum.write(stored(sum.sum())) };
    0
}

/// Copies the `len` bytes at `src` to `dst` and returns their Internet
/// checksum, in network byte order: Linux's `csum_partial_copy`, complemented,
/// in one pass over the bytes.
///
/// # Safety
///
/// `src` must be valid for reads and `dst` for writes of `len` bytes (or
/// `len` 0), and the two must not overlap.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fp_copy_checksum(dst: *mut c_void, src: *const c_void, len: usize) -> u16 {
    // SAFETY: the caller's guarantees; they don't overlap.
    let (dst, src) = unsafe { (uninit_mut(dst, len), bytes(src, len)) };
    stored(fp::copy_checksum_uninit(dst, src).1)
}

/// Copies the `len` bytes at `src` to `dst`: `memcpy`, without the slow
/// paths some C libraries have for a misaligned destination (DPDK's
/// `rte_memcpy`).
///
/// # Safety
///
/// `src` must be valid for reads and `dst` for writes of `len` bytes (or
/// `len` 0), and the two must not overlap.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fp_copy(dst: *mut c_void, src: *const c_void, len: usize) {
    // SAFETY: the caller's guarantees; they don't overlap.
    let (dst, src) = unsafe { (uninit_mut(dst, len), bytes(src, len)) };
    let _ = fp::copy_uninit(dst, src);
}

/// Sets the `len` bytes at `dst` to `value`: `memset`.
///
/// # Safety
///
/// `dst` must be valid for writes of `len` bytes (or `len` 0).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fp_fill(dst: *mut c_void, value: u8, len: usize) {
    // SAFETY: the caller's guarantee. The bytes may be uninitialized: the
    // fill only writes them.
    fp::fill(unsafe { bytes_mut(dst, len) }, value);
}

/// Sets the `len` bytes at `dst` to `value`, with non-temporal stores where
/// the buffer outgrows the last-level cache (and ordinary ones below), then
/// a store fence: for a large buffer nobody reads soon.
///
/// # Safety
///
/// `dst` must be valid for writes of `len` bytes (or `len` 0).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fp_fill_nontemporal(dst: *mut c_void, value: u8, len: usize) {
    // SAFETY: as in `fp_fill`.
    fp::fill_nontemporal(unsafe { bytes_mut(dst, len) }, value);
}

/// The library's version, "MAJOR.MINOR.PATCH", a static string: the
/// version of the library the program runs with, which may be newer than
/// the header's `FP_VERSION_*` it was built with.
#[must_use]
#[unsafe(no_mangle)]
pub extern "C" fn fp_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

/// The name of the kernels' tier chosen for this process: "portable",
/// "sse2", "neon", "avx2" or "avx512" (chosen at the first call of any
/// function, from the CPU and the `FASTPATH_TIER` environment variable). A
/// static string.
#[must_use]
#[unsafe(no_mangle)]
pub extern "C" fn fp_active_tier() -> *const c_char {
    // Each tier's `Tier::name`, as a C string, made once: no list of names
    // of the interface's own.
    static NAMES: std::sync::OnceLock<Vec<(fp::Tier, std::ffi::CString)>> =
        std::sync::OnceLock::new();
    let names = NAMES.get_or_init(|| {
        fp::Tier::ALL
            .into_iter()
            // A tier's name holds no NUL byte.
            .map(|tier| {
                (
                    tier,
                    std::ffi::CString::new(tier.name()).unwrap_or_default(),
                )
            })
            .collect()
    });
    let tier = fp::active_tier();
    names
        .iter()
        .find(|(t, _)| *t == tier)
        .map_or(c"unknown".as_ptr(), |(_, name)| name.as_ptr())
}

/// A description of an `fp_error` code, as a static string.
#[must_use]
#[unsafe(no_mangle)]
pub extern "C" fn fp_strerror(error: c_int) -> *const c_char {
    let text: &'static core::ffi::CStr = match error {
        0 => c"success",
        -1 => c"truncated",
        -2 => c"IP version is not the one expected",
        -3 => c"IPv4 header length (IHL) is below 5",
        -4 => c"lengths that don't fit",
        -5 => c"first fragment: needs reassembly",
        -6 => c"non-first fragment: no upper-layer header",
        -7 => c"no known checksum for this protocol",
        -8 => c"final destination unknown for this routing header type",
        -9 => c"offset or field outside the buffer",
        -10 => c"null pointer",
        -11 => c"an error this interface does not name",
        -12 => c"UDP-Lite coverage ends before the datagram: offload would sum past it",
        _ => c"unknown error",
    };
    text.as_ptr()
}

// DPDK 22.11's checksums of `rte_ip.h`, value for value.

/// The IPv4 header length from its IHL, as `rte_ipv4_hdr_len`.
///
/// # Safety
///
/// `header` must be valid for reads of 1 byte.
unsafe fn ipv4_hdr_len(header: *const u8) -> usize {
    // SAFETY: the caller's guarantee.
    usize::from(unsafe { header.read() } & 0x0f) * 4
}

/// The big-endian 16-bit word at `ptr + at`.
///
/// # Safety
///
/// `ptr + at` must be valid for reads of 2 bytes.
unsafe fn be16_at(ptr: *const u8, at: usize) -> u16 {
    // SAFETY: the caller's guarantee.
    u16::from_be_bytes(unsafe { ptr.add(at).cast::<[u8; 2]>().read() })
}

/// The checksum of an IPv4 header, whose length its IHL gives, in network
/// byte order: `rte_ipv4_cksum`. The checksum field must be zero (or the
/// result is 0 when it holds the right one).
///
/// # Safety
///
/// `ipv4_hdr` must be valid for reads of the header's length (IHL × 4
/// bytes, at most 60).
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fp_ipv4_cksum(ipv4_hdr: *const c_void) -> u16 {
    // SAFETY: the caller guarantees the header's bytes.
    let header = unsafe { bytes(ipv4_hdr, ipv4_hdr_len(ipv4_hdr.cast())) };
    stored(!sum(header))
}

/// The sum of the IPv4 pseudo-header (addresses, protocol, and the length
/// Total Length − IHL × 4, or 0 if `ol_flags` has `FP_TX_TCP_SEG`), folded,
/// not complemented, in network byte order: `rte_ipv4_phdr_cksum`, the seed
/// a NIC completes for checksum offload.
///
/// # Safety
///
/// `ipv4_hdr` must be valid for reads of 20 bytes.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fp_ipv4_phdr_cksum(ipv4_hdr: *const c_void, ol_flags: u64) -> u16 {
    // SAFETY: the caller guarantees 20 bytes.
    stored(unsafe { ipv4_phdr(ipv4_hdr.cast(), ol_flags) })
}

/// [`fp_ipv4_phdr_cksum`], as the big-endian words' value.
///
/// # Safety
///
/// `header` must be valid for reads of 20 bytes.
unsafe fn ipv4_phdr(header: *const u8, ol_flags: u64) -> u16 {
    // SAFETY: the caller guarantees 20 bytes.
    let (fixed, hdr_len) = unsafe { (&*header.cast::<[u8; 20]>(), ipv4_hdr_len(header)) };
    let length = if ol_flags & FP_TX_TCP_SEG != 0 {
        0
    } else {
        u16::from_be_bytes([fixed[2], fixed[3]]).wrapping_sub(hdr_len as u16)
    };
    let mut sum = Checksum::new();
    sum.update(&fixed[12..20]);
    sum.add_u16(u16::from(fixed[9]));
    sum.add_u16(length);
    sum.sum()
}

/// The sum of the IPv6 pseudo-header (addresses, Payload Length or 0 if
/// `ol_flags` has `FP_TX_TCP_SEG`, and Next Header), folded, not
/// complemented, in network byte order: `rte_ipv6_phdr_cksum`.
///
/// # Safety
///
/// `ipv6_hdr` must be valid for reads of 40 bytes.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fp_ipv6_phdr_cksum(ipv6_hdr: *const c_void, ol_flags: u64) -> u16 {
    // SAFETY: the caller guarantees 40 bytes.
    stored(unsafe { ipv6_phdr(ipv6_hdr.cast(), ol_flags) })
}

/// [`fp_ipv6_phdr_cksum`], as the big-endian words' value.
///
/// # Safety
///
/// `header` must be valid for reads of 40 bytes.
unsafe fn ipv6_phdr(header: *const u8, ol_flags: u64) -> u16 {
    // SAFETY: the caller guarantees 40 bytes.
    let fixed = unsafe { &*header.cast::<[u8; 40]>() };
    let mut sum = Checksum::new();
    sum.update(&fixed[8..40]);
    if ol_flags & FP_TX_TCP_SEG == 0 {
        sum.update(&fixed[4..6]);
    }
    sum.add_u16(u16::from(fixed[6]));
    sum.sum()
}

/// The upper layer's sum and the pseudo-header's, added as DPDK adds them
/// (`__rte_ipv4_udptcp_cksum`): folded once, so 0xffff for a correct
/// checksum.
fn add_folded(data: u16, pseudo: u16) -> u16 {
    let total = u32::from(data) + u32::from(pseudo);
    ((total >> 16) + (total & 0xffff)) as u16
}

/// The complemented checksum with UDP's rule: a result of 0 is sent as
/// 0xffff (RFC 768), as DPDK applies it.
fn complement_udptcp(sum: u16, protocol: u8) -> u16 {
    match !sum {
        0 if protocol == 17 => 0xffff,
        checksum => checksum,
    }
}

/// `__rte_ipv4_udptcp_cksum`, as the big-endian words' value.
///
/// # Safety
///
/// As [`fp_ipv4_udptcp_cksum`].
unsafe fn ipv4_udptcp(header: *const u8, l4: *const u8) -> u16 {
    // SAFETY: the caller guarantees the header's 20 bytes.
    let (hdr_len, total) = unsafe { (ipv4_hdr_len(header), usize::from(be16_at(header, 2))) };
    if total < hdr_len {
        return 0;
    }
    // SAFETY: the caller guarantees `total - hdr_len` bytes at `l4`, and
    // the header's 20 bytes.
    unsafe { add_folded(sum(bytes(l4.cast(), total - hdr_len)), ipv4_phdr(header, 0)) }
}

/// `__rte_ipv6_udptcp_cksum`, as the big-endian words' value.
///
/// # Safety
///
/// As [`fp_ipv6_udptcp_cksum`].
unsafe fn ipv6_udptcp(header: *const u8, l4: *const u8) -> u16 {
    // SAFETY: the caller guarantees the header's 40 bytes, and Payload
    // Length bytes at `l4`.
    unsafe {
        let payload = usize::from(be16_at(header, 4));
        add_folded(sum(bytes(l4.cast(), payload)), ipv6_phdr(header, 0))
    }
}

/// The TCP or UDP checksum of a packet over IPv4, in network byte order:
/// `rte_ipv4_udptcp_cksum`. The upper layer is the Total Length − IHL × 4
/// bytes at `l4_hdr`, whose checksum field must be zero; for UDP a result
/// of 0 is returned as 0xffff. A Total Length shorter than the header gives
/// 0xffff, as in DPDK.
///
/// # Safety
///
/// `ipv4_hdr` must be valid for reads of its IHL × 4 bytes (at least 20),
/// and `l4_hdr` of the upper layer's.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fp_ipv4_udptcp_cksum(
    ipv4_hdr: *const c_void,
    l4_hdr: *const c_void,
) -> u16 {
    let header = ipv4_hdr.cast::<u8>();
    // SAFETY: the caller's guarantees; the protocol is byte 9 of the 20.
    unsafe {
        stored(complement_udptcp(
            ipv4_udptcp(header, l4_hdr.cast()),
            header.add(9).read(),
        ))
    }
}

/// The TCP or UDP checksum of a packet over IPv6 without extension headers,
/// in network byte order: `rte_ipv6_udptcp_cksum`. The upper layer is the
/// Payload Length bytes at `l4_hdr`, whose checksum field must be zero; for
/// UDP a result of 0 is returned as 0xffff.
///
/// # Safety
///
/// `ipv6_hdr` must be valid for reads of 40 bytes, and `l4_hdr` of the
/// Payload Length's.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fp_ipv6_udptcp_cksum(
    ipv6_hdr: *const c_void,
    l4_hdr: *const c_void,
) -> u16 {
    let header = ipv6_hdr.cast::<u8>();
    // SAFETY: the caller's guarantees; Next Header is byte 6 of the 40.
    unsafe {
        stored(complement_udptcp(
            ipv6_udptcp(header, l4_hdr.cast()),
            header.add(6).read(),
        ))
    }
}

/// 0 if the TCP or UDP checksum of a packet over IPv4 is correct, else -1:
/// `rte_ipv4_udptcp_cksum_verify`. As there, a UDP checksum of 0 (none) is
/// for the caller to look for first: it gives -1 here unless the sum
/// happens to be right.
///
/// # Safety
///
/// As `fp_ipv4_udptcp_cksum`.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fp_ipv4_udptcp_cksum_verify(
    ipv4_hdr: *const c_void,
    l4_hdr: *const c_void,
) -> c_int {
    // SAFETY: the caller's guarantees.
    if unsafe { ipv4_udptcp(ipv4_hdr.cast(), l4_hdr.cast()) } == 0xffff {
        0
    } else {
        -1
    }
}

/// 0 if the TCP or UDP checksum of a packet over IPv6 is correct, else -1:
/// `rte_ipv6_udptcp_cksum_verify`, with the same caveat for a UDP checksum
/// of 0.
///
/// # Safety
///
/// As `fp_ipv6_udptcp_cksum`.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fp_ipv6_udptcp_cksum_verify(
    ipv6_hdr: *const c_void,
    l4_hdr: *const c_void,
) -> c_int {
    // SAFETY: the caller's guarantees.
    if unsafe { ipv6_udptcp(ipv6_hdr.cast(), l4_hdr.cast()) } == 0xffff {
        0
    } else {
        -1
    }
}

// The protocol functions of `fastpath::packet`: whole packets from the IP
// header, with their lengths, parsed (options, extension headers,
// fragments) and checked.

/// The result of a function that fails with an `fp_error`, as a C int.
fn code<T>(result: Result<T, Error>, ok: impl FnOnce(T) -> c_int) -> c_int {
    match result {
        Ok(value) => ok(value),
        Err(error) => fp_error::from(error) as c_int,
    }
}

/// Stores `value` in `*out` unless `out` is null.
///
/// # Safety
///
/// `out` must be null or valid for writes.
unsafe fn put(out: *mut u16, value: u16) {
    if !out.is_null() {
        // SAFETY: the caller's guarantee.
        unsafe { out.write(value) }
    }
}

/// Computes the checksum of the upper layer (TCP, UDP, ICMPv4 or ICMPv6) of
/// the IPv4 or IPv6 packet of `len` bytes at `packet` (from its IP header:
/// options, extension headers and fragments are parsed) and stores it in
/// `*cksum`, in network byte order, as it belongs in the checksum field
/// (UDP's 0 sent as 0xffff). Returns 0 or an `fp_error` (and stores
/// nothing).
///
/// # Safety
///
/// `packet` must be null or valid for reads of `len` bytes (or `len` 0),
/// and `cksum` null or valid for writes: a null `cksum`, or a null `packet`
/// with `len` above 0, gives `FP_ERR_NULL`.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fp_l4_checksum(
    packet: *const c_void,
    len: usize,
    cksum: *mut u16,
) -> c_int {
    if cksum.is_null() {
        return fp_error::FP_ERR_NULL as c_int;
    }
    // SAFETY: the caller's guarantees.
    let packet = match unsafe { checked(packet, len) } {
        Ok(packet) => packet,
        Err(code) => return code,
    };
    code(l4::checksum(packet), |value| {
        // SAFETY: `cksum` is not null, and writable as the caller
        // guarantees.
        unsafe { cksum.write(stored(value)) };
        0
    })
}

/// Verifies the upper layer's checksum of the packet of `len` bytes at
/// `packet`: 1 if it is correct (or a UDP-over-IPv4 checksum of 0, "none"),
/// 0 if not, or a negative `fp_error`.
///
/// # Safety
///
/// `packet` must be null or valid for reads of `len` bytes (or `len` 0):
/// null with `len` above 0 gives `FP_ERR_NULL`.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fp_l4_verify(packet: *const c_void, len: usize) -> c_int {
    // SAFETY: the caller's guarantee.
    match unsafe { checked(packet, len) } {
        Ok(packet) => code(l4::verify(packet), c_int::from),
        Err(code) => code,
    }
}

/// Computes the upper layer's checksum of the packet of `len` bytes at
/// `packet` and writes it into its field; stores it in `*cksum` too unless
/// `cksum` is null. Returns 0 or an `fp_error` (and writes nothing).
///
/// # Safety
///
/// `packet` must be null or valid for reads and writes of `len` bytes (or
/// `len` 0; null with `len` above 0 gives `FP_ERR_NULL`), and `cksum` null
/// or valid for writes.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fp_l4_write_checksum(
    packet: *mut c_void,
    len: usize,
    cksum: *mut u16,
) -> c_int {
    // SAFETY: the caller's guarantees.
    let packet = match unsafe { checked_mut(packet, len) } {
        Ok(packet) => packet,
        Err(code) => return code,
    };
    code(l4::write_checksum(packet), |value| {
        // SAFETY: the caller's guarantee.
        unsafe { put(cksum, stored(value)) };
        0
    })
}

/// Verifies the upper layer's checksum from the sum a NIC computed
/// (Linux's `CHECKSUM_COMPLETE`): `headers` holds the packet from its IP
/// header at least to the end of the checksum field (`len` bytes), and
/// `sum` is the folded ones'-complement sum, in network byte order, of the
/// bytes the checksum covers (the upper layer's header to the end of the IP
/// payload, no padding). 1 if correct, 0 if not, or a negative `fp_error`.
///
/// # Safety
///
/// `headers` must be null or valid for reads of `len` bytes (or `len` 0):
/// null with `len` above 0 gives `FP_ERR_NULL`.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fp_l4_verify_complete(
    headers: *const c_void,
    len: usize,
    sum: u16,
) -> c_int {
    // SAFETY: the caller's guarantee.
    match unsafe { checked(headers, len) } {
        Ok(headers) => code(l4::verify_complete(headers, value(sum)), c_int::from),
        Err(code) => code,
    }
}

/// Completes a checksum left to the device (Linux's `CHECKSUM_PARTIAL`):
/// sums the bytes of the packet of `len` bytes at `packet` from
/// `csum_start` to its end, the seed in the field included, and stores the
/// complement at `csum_start + csum_offset` (0 sent as 0xffff). Returns 0,
/// or `FP_ERR_OUT_OF_BOUNDS` (writing nothing) if the field is not inside
/// the packet.
///
/// The sum runs to the end of the `len` bytes, as a device's does: pass the
/// packet without padding. A checksum that stops before the end of the
/// packet (UDP-Lite with a partial coverage) cannot be completed this way;
/// `fp_partial_write_seed` refuses to seed one.
///
/// # Safety
///
/// `packet` must be null or valid for reads and writes of `len` bytes (or
/// `len` 0): null with `len` above 0 gives `FP_ERR_NULL`.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fp_partial_complete(
    packet: *mut c_void,
    len: usize,
    csum_start: usize,
    csum_offset: usize,
) -> c_int {
    // SAFETY: the caller's guarantee.
    match unsafe { checked_mut(packet, len) } {
        Ok(packet) => code(partial::complete(packet, csum_start, csum_offset), |_| 0),
        Err(code) => code,
    }
}

/// Prepares the IPv4 or IPv6 packet of `len` bytes at `packet` for checksum
/// offload: stores in its upper layer's checksum field the pseudo-header
/// sum, not complemented (0 for ICMPv4), and in `*csum_start` and
/// `*csum_offset` where the checksummed data starts and where the field is
/// from there, for `fp_partial_complete` or the device. With
/// `FP_TX_TCP_SEG` in `ol_flags` the seed leaves out the length, as
/// segmentation offload expects.
///
/// Returns 0 or an `fp_error`, and then writes nothing: as
/// `fp_l4_checksum`, except that the data after the upper-layer header need
/// not be there; `FP_ERR_PARTIAL_COVERAGE` for UDP-Lite whose coverage ends
/// before the datagram (a device sums to the end of the packet);
/// `FP_ERR_NULL` if `packet` (with `len` above 0), `csum_start` or
/// `csum_offset` is null.
///
/// # Safety
///
/// `packet` must be valid for reads and writes of `len` bytes (or `len`
/// 0), `csum_start` and `csum_offset` null or valid for writes.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fp_partial_write_seed(
    packet: *mut c_void,
    len: usize,
    ol_flags: u64,
    csum_start: *mut usize,
    csum_offset: *mut usize,
) -> c_int {
    if (packet.is_null() && len != 0) || csum_start.is_null() || csum_offset.is_null() {
        return fp_error::FP_ERR_NULL as c_int;
    }
    let length = if ol_flags & FP_TX_TCP_SEG != 0 {
        partial::SeedLength::Omitted
    } else {
        partial::SeedLength::Included
    };
    // SAFETY: the caller's guarantee.
    let packet = unsafe { bytes_mut(packet, len) };
    code(partial::write_seed(packet, length), |offload| {
        // SAFETY: both checked not null above; the caller guarantees they
        // are valid for writes.
        unsafe {
            csum_start.write(offload.csum_start);
            csum_offset.write(offload.csum_offset);
        }
        0
    })
}

/// Which address, and port, a rewrite changes.
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum fp_endpoint {
    /// The source address and port (source NAT, masquerading).
    FP_SOURCE = 0,
    /// The destination address and port (destination NAT, port forwarding).
    FP_DESTINATION = 1,
}

impl From<fp_endpoint> for incremental::Endpoint {
    fn from(endpoint: fp_endpoint) -> incremental::Endpoint {
        match endpoint {
            fp_endpoint::FP_SOURCE => incremental::Endpoint::Source,
            fp_endpoint::FP_DESTINATION => incremental::Endpoint::Destination,
        }
    }
}

/// The port at `port`, in network byte order, if `port` is not null.
///
/// # Safety
///
/// `port` must be null or valid for reads.
unsafe fn port_at(port: *const u16) -> Option<u16> {
    // SAFETY: the caller's guarantee.
    (!port.is_null()).then(|| value(unsafe { port.read_unaligned() }))
}

/// `incremental::rewrite_ipv4` or `rewrite_ipv6`, for an `N`-byte address.
type Rewrite<const N: usize> =
    fn(&mut [u8], incremental::Endpoint, [u8; N], Option<u16>) -> Result<(), Error>;

/// The rewrite of an `N`-byte address, by `rewrite`, for
/// `fp_ipv4_rewrite` and `fp_ipv6_rewrite`.
///
/// # Safety
///
/// As `fp_ipv4_rewrite`, with `N` bytes at `address`.
unsafe fn rewrite<const N: usize>(
    packet: *mut c_void,
    len: usize,
    endpoint: fp_endpoint,
    address: *const c_void,
    port: *const u16,
    rewrite: Rewrite<N>,
) -> c_int {
    if address.is_null() {
        return fp_error::FP_ERR_NULL as c_int;
    }
    // SAFETY: the caller's guarantees.
    let packet = match unsafe { checked_mut(packet, len) } {
        Ok(packet) => packet,
        Err(code) => return code,
    };
    // SAFETY: `address` is not null, and valid for reads of its bytes, and
    // `port` null or valid for reads, as the caller guarantees.
    let (address, port) = unsafe { (address.cast::<[u8; N]>().read_unaligned(), port_at(port)) };
    code(rewrite(packet, endpoint.into(), address, port), |()| 0)
}

/// Rewrites the source or destination address of the IPv4 packet of `len`
/// bytes at `packet` to the 4 bytes at `address` (network byte order, as in
/// the header), and the port to `*port` (network byte order) unless `port`
/// is null, updating the header checksum and the TCP, UDP or UDP-Lite
/// checksum incrementally (RFC 1624), as a NAT does: a checksum that was
/// right stays right, one that was wrong stays wrong by the same amount.
/// Returns 0, or an `fp_error` and writes nothing: a malformed header, a
/// TCP or UDP header cut short, lengths that don't fit, or a port to set
/// where the packet has none (a later fragment, another protocol).
///
/// # Safety
///
/// `packet` must be null or valid for reads and writes of `len` bytes (or
/// `len` 0), `address` null or valid for reads of 4 bytes, `port` null or
/// valid for reads; a null `packet` with `len` above 0, or a null
/// `address`, gives `FP_ERR_NULL`.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fp_ipv4_rewrite(
    packet: *mut c_void,
    len: usize,
    endpoint: fp_endpoint,
    address: *const c_void,
    port: *const u16,
) -> c_int {
    // SAFETY: the caller's guarantees, passed on.
    unsafe {
        rewrite(packet, len, endpoint, address, port, |p, e, a, q| {
            incremental::rewrite_ipv4(p, e, a.into(), q)
        })
    }
}

/// Rewrites the source or destination address of the IPv6 packet of `len`
/// bytes at `packet` to the 16 bytes at `address`, and the port unless
/// `port` is null, as `fp_ipv4_rewrite` does, updating the TCP, UDP,
/// UDP-Lite or ICMPv6 checksum (a destination that is not the final one,
/// behind a routing header with segments left, is in the pseudo-header
/// only through the prefix an RPL source route takes from it). Returns 0
/// or an `fp_error` (`FP_ERR_ROUTING_TYPE` for a routing header of an
/// unknown type), and then writes nothing.
///
/// # Safety
///
/// As `fp_ipv4_rewrite`, with 16 bytes at `address`.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fp_ipv6_rewrite(
    packet: *mut c_void,
    len: usize,
    endpoint: fp_endpoint,
    address: *const c_void,
    port: *const u16,
) -> c_int {
    // SAFETY: the caller's guarantees, passed on.
    unsafe {
        rewrite(packet, len, endpoint, address, port, |p, e, a, q| {
            incremental::rewrite_ipv6(p, e, a.into(), q)
        })
    }
}

/// Verifies the upper layer's checksum of the packet made of the bytes of
/// `iovcnt` I/O vectors taken one after the other, however it is split
/// (inside a header too): what `fp_l4_verify` says of their concatenation,
/// with no copy of the data. 1 if it is correct, 0 if not, or a negative
/// `fp_error`.
///
/// # Safety
///
/// `iov` must be null or point to `iovcnt` vectors (or `iovcnt` be 0), each
/// null or valid for reads of its bytes: a null `iov` with `iovcnt` above
/// 0, or a null base with a length above 0, gives `FP_ERR_NULL`.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fp_l4_verify_iov(iov: *const iovec, iovcnt: usize) -> c_int {
    if iov.is_null() && iovcnt != 0 {
        return fp_error::FP_ERR_NULL as c_int;
    }
    let vectors: &[iovec] = if iovcnt == 0 {
        &[]
    } else {
        // SAFETY: `iov` is not null, and points to `iovcnt` vectors, as the
        // caller guarantees.
        unsafe { core::slice::from_raw_parts(iov, iovcnt) }
    };
    if vectors
        .iter()
        .any(|v| v.iov_base.is_null() && v.iov_len != 0)
    {
        return fp_error::FP_ERR_NULL as c_int;
    }
    // SAFETY: each vector's base is valid for its length, or the length is
    // 0, as the caller guarantees and the check above leaves.
    let segments = vectors
        .iter()
        .map(|v| unsafe { bytes(v.iov_base, v.iov_len) });
    code(l4::verify_vectored(segments), c_int::from)
}

/// A checksum updated for a 16-bit word of the data changed from
/// `old_value` to `new_value` (RFC 1624, eqn. 3), all three in network
/// byte order as read from the packet: the TTL and protocol word, a port.
#[must_use]
#[unsafe(no_mangle)]
pub extern "C" fn fp_csum_update16(cksum: u16, old_value: u16, new_value: u16) -> u16 {
    stored(incremental::update16(
        value(cksum),
        value(old_value),
        value(new_value),
    ))
}

/// As `fp_csum_update16` for a 32-bit value changed (an IPv4 address), the
/// three in network byte order.
#[must_use]
#[unsafe(no_mangle)]
pub extern "C" fn fp_csum_update32(cksum: u16, old_value: u32, new_value: u32) -> u16 {
    stored(incremental::update32(
        value(cksum),
        old_value.to_ne_bytes(),
        new_value.to_ne_bytes(),
    ))
}

/// As `fp_csum_update16` for 16 bytes changed (an IPv6 address), from the
/// 16 bytes at `old_value` to those at `new_value`.
///
/// # Safety
///
/// `old_value` and `new_value` must be valid for reads of 16 bytes.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fp_csum_update128(
    cksum: u16,
    old_value: *const c_void,
    new_value: *const c_void,
) -> u16 {
    // SAFETY: the caller guarantees 16 readable bytes at each.
    let (old, new) = unsafe {
        (
            old_value.cast::<[u8; 16]>().read(),
            new_value.cast::<[u8; 16]>().read(),
        )
    };
    stored(incremental::update128(value(cksum), old, new))
}

/// Replaces the `new_len` bytes at offset `at` of the `len` bytes at
/// `packet` with those at `new_bytes`, and updates the checksum field at
/// offset `field` to match (RFC 1624: any offset, odd ones included, and
/// any length), with no protocol rule. Stores the new checksum in `*cksum`
/// unless it is null. Returns 0, or `FP_ERR_OUT_OF_BOUNDS` (writing
/// nothing) if the bytes or the field are not inside the packet, or
/// overlap.
///
/// # Safety
///
/// `packet` must be valid for reads and writes of `len` bytes, `new_bytes`
/// for reads of `new_len` (either length may be 0), not inside `packet`,
/// and `cksum` null or valid for writes; `packet` or `new_bytes` null with
/// its length above 0 gives `FP_ERR_NULL`.
#[must_use]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fp_csum_replace(
    packet: *mut c_void,
    len: usize,
    at: usize,
    new_bytes: *const c_void,
    new_len: usize,
    field: usize,
    cksum: *mut u16,
) -> c_int {
    // SAFETY: the caller's guarantees; the two don't overlap.
    let (packet, new) = match unsafe { (checked_mut(packet, len), checked(new_bytes, new_len)) } {
        (Ok(packet), Ok(new)) => (packet, new),
        (Err(code), _) | (_, Err(code)) => return code,
    };
    code(incremental::replace(packet, at, new, field), |value| {
        // SAFETY: the caller's guarantee.
        unsafe { put(cksum, stored(value)) };
        0
    })
}

#[cfg(test)]
mod tests {
    use core::ptr::{null, null_mut};

    use super::*;

    const NULL: c_int = fp_error::FP_ERR_NULL as c_int;

    /// The header's version is the crate's, and so is `fp_version()`'s.
    #[test]
    fn the_version_is_the_crates() {
        let version = format!("{FP_VERSION_MAJOR}.{FP_VERSION_MINOR}.{FP_VERSION_PATCH}");
        assert_eq!(version, env!("CARGO_PKG_VERSION"));
        // SAFETY: fp_version returns a static NUL-terminated string.
        let text = unsafe { core::ffi::CStr::from_ptr(fp_version()) };
        assert_eq!(text.to_str(), Ok(env!("CARGO_PKG_VERSION")));
    }

    /// `fp_active_tier()` names the library's active tier, as `Tier::name`
    /// spells it, and the same string at every call.
    #[test]
    fn the_tier_name_is_the_librarys() {
        // SAFETY: fp_active_tier returns a static NUL-terminated string.
        let text = unsafe { core::ffi::CStr::from_ptr(fp_active_tier()) };
        assert_eq!(text.to_str(), Ok(fp::active_tier().name()));
        assert_eq!(fp_active_tier(), fp_active_tier());
    }

    /// An IPv4 packet carrying UDP with its checksum right.
    fn udp_packet() -> Vec<u8> {
        let mut packet = vec![
            0x45, 0, 0, 32, 0, 0, 0, 0, 64, 17, 0, 0, 192, 0, 2, 1, 198, 51, 100, 7, // IPv4
            0x04, 0xd2, 0x16, 0x2e, 0, 12, 0, 0, b'd', b'a', b't', b'a', // UDP
        ];
        fp::packet::fix(&mut packet, fp::packet::ProtocolSet::ALL).unwrap();
        packet
    }

    /// Every function that returns an `fp_error` (or DPDK's -1) says so for
    /// a null pointer with a length above 0, or a null output it needs,
    /// and writes nothing.
    #[test]
    fn a_null_pointer_with_a_length_is_an_error_where_one_can_be_returned() {
        let packet = udp_packet();
        let (mut out, mut start, mut offset) = (0x1234u16, 7usize, 7usize);
        // SAFETY: every pointer is null or valid for its length.
        unsafe {
            assert_eq!(fp_l4_checksum(null(), 5, &mut out), NULL);
            assert_eq!(
                fp_l4_checksum(packet.as_ptr().cast(), packet.len(), null_mut()),
                NULL
            );
            assert_eq!(fp_l4_verify(null(), 5), NULL);
            assert_eq!(fp_l4_write_checksum(null_mut(), 5, &mut out), NULL);
            assert_eq!(fp_l4_verify_complete(null(), 5, 0), NULL);
            assert_eq!(fp_partial_complete(null_mut(), 5, 0, 0), NULL);
            assert_eq!(
                fp_partial_write_seed(null_mut(), 5, 0, &mut start, &mut offset),
                NULL
            );
            let mut copy = packet.clone();
            let field = packet.len() - 6;
            assert_eq!(
                fp_csum_replace(null_mut(), 5, 0, copy.as_ptr().cast(), 2, 0, &mut out),
                NULL
            );
            assert_eq!(
                fp_csum_replace(
                    copy.as_mut_ptr().cast(),
                    copy.len(),
                    0,
                    null(),
                    2,
                    field,
                    &mut out
                ),
                NULL
            );
            let segments = [iovec {
                iov_base: null_mut(),
                iov_len: 5,
            }];
            assert_eq!(fp_raw_cksum_iov(null(), 1, 0, 0, &mut out), -1);
            assert_eq!(fp_raw_cksum_iov(segments.as_ptr(), 1, 0, 5, &mut out), -1);
            assert_eq!(fp_raw_cksum_iov(segments.as_ptr(), 0, 0, 0, null_mut()), -1);
            assert_eq!((out, start, offset), (0x1234, 7, 7));
            assert_eq!(copy, packet);
        }
    }

    /// The NAT rewrites give what the Rust functions give, byte for byte,
    /// and the same errors.
    #[test]
    fn rewrites_are_the_rust_ones() {
        let packet = udp_packet();
        let address = [203u8, 0, 113, 7];
        let port = 40000u16.to_be();
        for endpoint in [fp_endpoint::FP_SOURCE, fp_endpoint::FP_DESTINATION] {
            for with_port in [false, true] {
                let mut ours = packet.clone();
                let mut theirs = packet.clone();
                let port = if with_port {
                    &port as *const u16
                } else {
                    null()
                };
                // SAFETY: the buffers and the address are valid.
                let code = unsafe {
                    fp_ipv4_rewrite(
                        ours.as_mut_ptr().cast(),
                        ours.len(),
                        endpoint,
                        address.as_ptr().cast(),
                        port,
                    )
                };
                let expected = incremental::rewrite_ipv4(
                    &mut theirs,
                    endpoint.into(),
                    address.into(),
                    with_port.then_some(40000),
                );
                assert_eq!(
                    (code, &ours),
                    (if expected.is_ok() { 0 } else { -1 }, &theirs)
                );
                assert_eq!(l4::verify(&ours), Ok(true));
            }
        }
        // An error writes nothing: a packet cut inside its UDP header.
        let mut cut = packet[..24].to_vec();
        // SAFETY: as above.
        let code = unsafe {
            fp_ipv4_rewrite(
                cut.as_mut_ptr().cast(),
                cut.len(),
                fp_endpoint::FP_SOURCE,
                address.as_ptr().cast(),
                null(),
            )
        };
        assert_eq!(code, fp_error::FP_ERR_TRUNCATED as c_int);
        assert_eq!(cut, packet[..24]);
        // IPv6: UDP from [::1]:1024 to [::2]:53, then fd00::9:5353.
        let mut v6 = vec![0u8; 52];
        v6[0] = 0x60;
        v6[5] = 12;
        v6[6] = 17;
        v6[23] = 1;
        v6[39] = 2;
        v6[40..52].copy_from_slice(&[
            0x04, 0x00, 0x00, 0x35, 0x00, 0x0c, 0, 0, b'p', b'i', b'n', b'g',
        ]);
        l4::write_checksum(&mut v6).unwrap();
        let mut new = [0u8; 16];
        new[..2].copy_from_slice(&[0xfd, 0x00]);
        new[15] = 9;
        let mut theirs = v6.clone();
        incremental::rewrite_ipv6(
            &mut theirs,
            incremental::Endpoint::Destination,
            new.into(),
            Some(5353),
        )
        .unwrap();
        let port = 5353u16.to_be();
        // SAFETY: as above.
        let code = unsafe {
            fp_ipv6_rewrite(
                v6.as_mut_ptr().cast(),
                v6.len(),
                fp_endpoint::FP_DESTINATION,
                new.as_ptr().cast(),
                &port,
            )
        };
        assert_eq!((code, &v6), (0, &theirs));
        // SAFETY: null pointers, which the functions check.
        unsafe {
            assert_eq!(
                fp_ipv4_rewrite(
                    v6.as_mut_ptr().cast(),
                    v6.len(),
                    fp_endpoint::FP_SOURCE,
                    null(),
                    null()
                ),
                NULL
            );
            assert_eq!(
                fp_ipv6_rewrite(
                    null_mut(),
                    5,
                    fp_endpoint::FP_SOURCE,
                    new.as_ptr().cast(),
                    null()
                ),
                NULL
            );
        }
    }

    /// `fp_l4_verify_iov` says what `fp_l4_verify` says of the whole packet,
    /// however it is split, and what `l4::verify_vectored` says.
    #[test]
    fn verify_iov_is_verify_of_the_whole() {
        let good = udp_packet();
        let mut bad = good.clone();
        bad[30] ^= 1;
        for packet in [&good, &bad] {
            // SAFETY: the packet's bytes.
            let whole = unsafe { fp_l4_verify(packet.as_ptr().cast(), packet.len()) };
            for a in 0..=packet.len() {
                for b in a..=packet.len() {
                    let pieces = [&packet[..a], &packet[a..b], &packet[b..]];
                    let iov = pieces.map(|p| iovec {
                        iov_base: p.as_ptr().cast_mut().cast(),
                        iov_len: p.len(),
                    });
                    // SAFETY: three vectors over the packet.
                    let split = unsafe { fp_l4_verify_iov(iov.as_ptr(), iov.len()) };
                    assert_eq!(split, whole, "split at {a} and {b}");
                    assert_eq!(code(l4::verify_vectored(pieces), c_int::from), whole);
                }
            }
        }
        let holes = [iovec {
            iov_base: null_mut(),
            iov_len: 3,
        }];
        // SAFETY: null pointers, which the function checks.
        unsafe {
            assert_eq!(fp_l4_verify_iov(null(), 2), NULL);
            assert_eq!(fp_l4_verify_iov(holes.as_ptr(), 1), NULL);
            assert_eq!(
                fp_l4_verify_iov(null(), 0),
                fp_error::FP_ERR_TRUNCATED as c_int
            );
        }
    }

    /// A null pointer with a length of 0 is an empty buffer in every
    /// function that takes a pointer and a length.
    #[test]
    fn a_null_pointer_with_length_0_is_an_empty_buffer_everywhere() {
        let truncated = fp_error::FP_ERR_TRUNCATED as c_int;
        let (mut out, mut start, mut offset) = (0u16, 0usize, 0usize);
        let mut state = fp_csum { sum: 0, odd: 0 };
        // SAFETY: every pointer is null with a length of 0, or valid.
        unsafe {
            assert_eq!(fp_checksum(null(), 0), stored(0xffff));
            assert_eq!(fp_raw_cksum(null(), 0), 0);
            fp_csum_init(&mut state);
            fp_csum_update(&mut state, null(), 0);
            fp_csum_update_copy(&mut state, null_mut(), null(), 0);
            assert_eq!(fp_csum_finish(&state), stored(0xffff));
            assert_eq!(fp_checksum_iov(null(), 0), stored(0xffff));
            assert_eq!(fp_raw_cksum_iov(null(), 0, 0, 0, &mut out), 0);
            assert_eq!(fp_copy_checksum(null_mut(), null(), 0), stored(0xffff));
            fp_copy(null_mut(), null(), 0);
            fp_fill(null_mut(), 0xff, 0);
            fp_fill_nontemporal(null_mut(), 0xff, 0);
            assert_eq!(fp_l4_checksum(null(), 0, &mut out), truncated);
            assert_eq!(fp_l4_verify(null(), 0), truncated);
            assert_eq!(fp_l4_write_checksum(null_mut(), 0, null_mut()), truncated);
            assert_eq!(fp_l4_verify_complete(null(), 0, 0), truncated);
            assert!(fp_partial_complete(null_mut(), 0, 0, 0) < 0);
            assert_eq!(
                fp_partial_write_seed(null_mut(), 0, 0, &mut start, &mut offset),
                truncated
            );
            let mut packet = udp_packet();
            let field = packet.len() - 6;
            assert_eq!(
                fp_csum_replace(
                    packet.as_mut_ptr().cast(),
                    packet.len(),
                    0,
                    null(),
                    0,
                    field,
                    &mut out
                ),
                0
            );
        }
    }
}
