//! # fastpath
//!
//! The data path of packet processing: the Internet checksum of RFC 1071 at
//! the speed of the hardware, on any byte slice, at any alignment and length.
//!
//! ```
//! // The example of RFC 1071 §3: the words sum to 0xddf2, so the checksum is
//! // its ones' complement.
//! let data = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7];
//! assert_eq!(fastpath::checksum(&data), 0x220d);
//!
//! // The same, in pieces of any length.
//! let mut sum = fastpath::Checksum::new();
//! sum.update(&data[..3]);
//! sum.update(&data[3..]);
//! assert_eq!(sum.finish(), 0x220d);
//! ```
//!
//! [`packet`] builds the protocol checksums on it: IPv4 headers; TCP, UDP,
//! ICMPv4 and ICMPv6 over IPv4 and IPv6 with their pseudo-headers;
//! incremental updates (RFC 1624); the partial checksums of checksum offload.
//!
//! ## Kernels and tiers
//!
//! Every primitive has a portable kernel, written so that compilers vectorize
//! it, and hand-written kernels for SSE2, AVX2 and AVX-512 on x86_64 and NEON
//! on aarch64. The best kernel the CPU supports is chosen once, at the first
//! call, and cached: with the `std` feature (on by default), and on x86_64
//! without it too (CPUID and XGETBV need only `core`). With `std`, the
//! environment variable `FASTPATH_TIER` caps that choice (see [`Tier`]).
//! Without `std` elsewhere (aarch64, or an x86_64 target without SSE2 such
//! as `x86_64-unknown-none`), the kernel is chosen at compile time from the
//! enabled target features.
//! [`active_tier`] names the kernel in use, and each tier is a type in
//! [`arch`] that can be constructed directly once its CPU feature is proven.
//!
//! ## Memory safety
//!
//! No kernel reads a byte outside the slice it is given: every vector load
//! lies inside the slice, except the AVX-512 checksum's masked loads of the
//! aligned lines that hold it, which do not read the bytes they mask off.
//! The test suite checks this with inaccessible guard pages on both sides of
//! the data.
#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(feature = "std")]
extern crate std;

pub mod arch;
mod cache;
mod checksum;
mod copy;
mod dispatch;
mod fill;
pub mod packet;
pub mod reference;
mod slice;
mod tier;

pub use cache::{Caches, caches};
#[cfg(feature = "std")]
pub use checksum::checksum_io_slices;
pub use checksum::{Checksum, checksum, checksum_vectored};
pub use copy::{copy, copy_checksum, copy_checksum_uninit, copy_uninit, try_copy_checksum};
pub use dispatch::active_tier;
pub use fill::{fill, fill_nontemporal, zero};
pub use slice::LengthMismatch;
pub use tier::{ParseTierError, Tier};

/// The README's examples, run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
