//! The kernels, one module per architecture and tier.
//!
//! Each tier is a zero-sized type whose constructor checks the CPU feature it
//! needs, so that holding a value proves the feature and its methods are
//! safe to call: [`portable::Portable`] everywhere, `x86_64::Sse2`,
//! `x86_64::Avx2` and `x86_64::Avx512` on x86_64, `aarch64::Neon` on
//! aarch64. Tests and benchmarks use them to run every tier the machine has;
//! applications normally call the crate's top-level functions, which pick the
//! [active tier](crate::active_tier) for them.
//!
//! ```
//! use fastpath::arch::portable::Portable;
//!
//! let data = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7];
//! assert_eq!(Portable::new().sum(&data), 0xddf2);
//! #[cfg(target_arch = "x86_64")]
//! if let Some(avx2) = fastpath::arch::x86_64::Avx2::new() {
//!     assert_eq!(avx2.sum(&data), 0xddf2);
//! }
//! ```

use core::mem::MaybeUninit;

use crate::Tier;

#[cfg(target_arch = "aarch64")]
pub mod aarch64;
pub(crate) mod fill;
pub mod portable;
pub(crate) mod scalar;
#[cfg(target_arch = "x86_64")]
pub mod x86_64;

/// The checksum kernel of `tier` as a plain function, or `None` if this CPU
/// lacks the tier. The function returns the folded ones'-complement sum of
/// its input, as the tier types' `sum` methods do. For the AVX-512 tier it
/// is `x86_64::Avx512Vnni`'s where the CPU has AVX512-VNNI.
///
/// ```
/// use fastpath::Tier;
///
/// for tier in Tier::ALL {
///     if let Some(sum) = fastpath::arch::sum_kernel(tier) {
///         assert_eq!(sum(&[0x12, 0x34, 0x56]), 0x6834);
///     }
/// }
/// ```
pub fn sum_kernel(tier: Tier) -> Option<fn(&[u8]) -> u16> {
    match tier {
        Tier::Portable => Some(|data| portable::Portable::new().sum(data)),
        #[cfg(target_arch = "x86_64")]
        Tier::Sse2 => x86_64::Sse2::new().map(|_| -> fn(&[u8]) -> u16 {
            // SAFETY: `Sse2::new` returned `Some`, so the CPU has SSE2.
            |data| unsafe { x86_64::Sse2::new_unchecked() }.sum(data)
        }),
        #[cfg(target_arch = "x86_64")]
        Tier::Avx2 => x86_64::Avx2::new().map(|_| -> fn(&[u8]) -> u16 {
            // SAFETY: `Avx2::new` returned `Some`, so the CPU has AVX2.
            |data| unsafe { x86_64::Avx2::new_unchecked() }.sum(data)
        }),
        #[cfg(target_arch = "x86_64")]
        Tier::Avx512 if x86_64::Avx512Vnni::is_available() => Some(|data| {
            // SAFETY: the CPU has AVX512-VNNI and the AVX-512 subsets the
            // kernel uses, as was just checked.
            unsafe { x86_64::Avx512Vnni::new_unchecked() }.sum(data)
        }),
        #[cfg(target_arch = "x86_64")]
        Tier::Avx512 => x86_64::Avx512::new().map(|_| -> fn(&[u8]) -> u16 {
            // SAFETY: `Avx512::new` returned `Some`, so the CPU has the
            // AVX-512 subsets the kernels use.
            |data| unsafe { x86_64::Avx512::new_unchecked() }.sum(data)
        }),
        #[cfg(target_arch = "aarch64")]
        Tier::Neon => aarch64::Neon::new().map(|_| -> fn(&[u8]) -> u16 {
            // SAFETY: `Neon::new` returned `Some`, so the CPU has NEON.
            |data| unsafe { aarch64::Neon::new_unchecked() }.sum(data)
        }),
        #[allow(unreachable_patterns)]
        _ => None,
    }
}

/// A copy-and-checksum kernel: copies `src` into `dst` (of the same length;
/// it panics otherwise) and returns the folded sum of `src`.
pub type CopyKernel = fn(&mut [MaybeUninit<u8>], &[u8]) -> u16;

/// The copy-and-checksum kernel of `tier` as a plain function, or `None` if
/// this CPU lacks the tier.
///
/// ```
/// use core::mem::MaybeUninit;
/// use fastpath::Tier;
///
/// for tier in Tier::ALL {
///     if let Some(copy_sum) = fastpath::arch::copy_kernel(tier) {
///         let mut dst = [MaybeUninit::uninit(); 3];
///         assert_eq!(copy_sum(&mut dst, &[0x12, 0x34, 0x56]), 0x6834);
///     }
/// }
/// ```
pub fn copy_kernel(tier: Tier) -> Option<CopyKernel> {
    match tier {
        Tier::Portable => Some(|dst, src| portable::Portable::new().copy_sum_uninit(dst, src)),
        #[cfg(target_arch = "x86_64")]
        Tier::Sse2 => x86_64::Sse2::new().map(|_| -> CopyKernel {
            // SAFETY: `Sse2::new` returned `Some`, so the CPU has SSE2.
            |dst, src| unsafe { x86_64::Sse2::new_unchecked() }.copy_sum_uninit(dst, src)
        }),
        #[cfg(target_arch = "x86_64")]
        Tier::Avx2 => x86_64::Avx2::new().map(|_| -> CopyKernel {
            // SAFETY: `Avx2::new` returned `Some`, so the CPU has AVX2.
            |dst, src| unsafe { x86_64::Avx2::new_unchecked() }.copy_sum_uninit(dst, src)
        }),
        #[cfg(target_arch = "x86_64")]
        Tier::Avx512 if x86_64::Avx512Vnni::is_available() => Some(|dst, src| {
            // SAFETY: the CPU has AVX512-VNNI and the AVX-512 subsets the
            // kernel uses, as was just checked.
            unsafe { x86_64::Avx512Vnni::new_unchecked() }.copy_sum_uninit(dst, src)
        }),
        #[cfg(target_arch = "x86_64")]
        Tier::Avx512 => x86_64::Avx512::new().map(|_| -> CopyKernel {
            // SAFETY: `Avx512::new` returned `Some`, so the CPU has the
            // AVX-512 subsets the kernels use.
            |dst, src| unsafe { x86_64::Avx512::new_unchecked() }.copy_sum_uninit(dst, src)
        }),
        #[cfg(target_arch = "aarch64")]
        Tier::Neon => aarch64::Neon::new().map(|_| -> CopyKernel {
            // SAFETY: `Neon::new` returned `Some`, so the CPU has NEON.
            |dst, src| unsafe { aarch64::Neon::new_unchecked() }.copy_sum_uninit(dst, src)
        }),
        #[allow(unreachable_patterns)]
        _ => None,
    }
}

/// The tiers' `#[target_feature]` checksum functions themselves, for the
/// dispatch: `Some` only for a tier this CPU runs, whose function is then
/// safe to call. ([`sum_kernel`] wraps the same functions in safe ones, one
/// call deeper.) They return the checksum, not the folded sum, so that
/// [`checksum`](crate::checksum()) reaches its kernel with a jump.
pub(crate) fn raw_sum_kernel(tier: Tier) -> Option<unsafe fn(&[u8]) -> u16> {
    match tier {
        Tier::Portable => Some(portable::checksum),
        #[cfg(target_arch = "x86_64")]
        Tier::Sse2 => x86_64::Sse2::is_available().then_some(x86_64::sse2::checksum as _),
        #[cfg(target_arch = "x86_64")]
        Tier::Avx2 => x86_64::Avx2::is_available().then_some(x86_64::avx2::checksum as _),
        #[cfg(target_arch = "x86_64")]
        Tier::Avx512 if x86_64::Avx512Vnni::is_available() => Some(x86_64::avx512::checksum_vnni),
        #[cfg(target_arch = "x86_64")]
        Tier::Avx512 => x86_64::Avx512::is_available().then_some(x86_64::avx512::checksum as _),
        #[cfg(target_arch = "aarch64")]
        Tier::Neon => aarch64::Neon::is_available().then_some(aarch64::neon::checksum as _),
        #[allow(unreachable_patterns)]
        _ => None,
    }
}

/// A tier's copy-and-checksum function, callable only on a CPU that runs the
/// tier.
pub(crate) type RawCopyKernel = unsafe fn(&mut [MaybeUninit<u8>], &[u8]) -> u16;

/// The tiers' `#[target_feature]` copy-and-checksum functions, for the
/// dispatch, as [`raw_sum_kernel`]. They copy `min(dst.len(), src.len())`
/// bytes (callers check that the lengths are equal) and return the checksum
/// of `src`, not the folded sum: [`copy_checksum`](crate::copy_checksum)
/// then reaches its kernel with a jump, not with a call that complements
/// what it returns (3 of about 50 TSC cycles at 1500 bytes).
pub(crate) fn raw_copy_kernel(tier: Tier) -> Option<RawCopyKernel> {
    match tier {
        Tier::Portable => Some(portable::copy_checksum),
        #[cfg(target_arch = "x86_64")]
        Tier::Sse2 => x86_64::Sse2::is_available().then_some(x86_64::sse2::copy_checksum as _),
        #[cfg(target_arch = "x86_64")]
        Tier::Avx2 => x86_64::Avx2::is_available().then_some(x86_64::avx2::copy_checksum as _),
        #[cfg(target_arch = "x86_64")]
        Tier::Avx512 if x86_64::Avx512Vnni::is_available() => {
            Some(x86_64::avx512::copy_checksum_vnni)
        }
        #[cfg(target_arch = "x86_64")]
        Tier::Avx512 => {
            x86_64::Avx512::is_available().then_some(x86_64::avx512::copy_checksum as _)
        }
        #[cfg(target_arch = "aarch64")]
        Tier::Neon => aarch64::Neon::is_available().then_some(aarch64::neon::copy_checksum as _),
        #[allow(unreachable_patterns)]
        _ => None,
    }
}

/// A fill kernel: sets every byte of its first argument to the second.
pub type FillKernel = fn(&mut [u8], u8);

/// The fill kernel of `tier` (its `fill` method) as a plain function, or
/// `None` if this CPU lacks the tier.
///
/// ```
/// use fastpath::Tier;
///
/// for tier in Tier::ALL {
///     if let Some(fill) = fastpath::arch::fill_kernel(tier) {
///         let mut buf = [0u8; 300];
///         fill(&mut buf, 0xa5);
///         assert_eq!(buf, [0xa5; 300]);
///     }
/// }
/// ```
pub fn fill_kernel(tier: Tier) -> Option<FillKernel> {
    fill_kernels!(tier, fill)
}

/// The non-temporal fill kernel of `tier` (its `fill_nontemporal` method)
/// as a plain function, or `None` if this CPU lacks the tier.
///
/// ```
/// use fastpath::Tier;
///
/// for tier in Tier::ALL {
///     if let Some(fill) = fastpath::arch::fill_nontemporal_kernel(tier) {
///         let mut frame = vec![0xffu8; 1 << 16];
///         fill(&mut frame, 0);
///         assert!(frame.iter().all(|&b| b == 0));
///     }
/// }
/// ```
pub fn fill_nontemporal_kernel(tier: Tier) -> Option<FillKernel> {
    fill_kernels!(tier, fill_nontemporal)
}

/// The tiers' `#[target_feature]` fill functions, for the dispatch, as
/// [`raw_sum_kernel`].
pub(crate) fn raw_fill_kernel(tier: Tier) -> Option<unsafe fn(&mut [u8], u8)> {
    raw_fill_kernels!(tier, fill)
}

/// The tiers' `#[target_feature]` non-temporal fill functions, for the
/// dispatch, as [`raw_sum_kernel`].
pub(crate) fn raw_fill_nontemporal_kernel(tier: Tier) -> Option<unsafe fn(&mut [u8], u8)> {
    raw_fill_kernels!(tier, fill_nontemporal)
}

/// `Some` of a safe function calling method `$method` of `$tier`'s type, if
/// this CPU runs the tier.
macro_rules! fill_kernels {
    ($tier:expr, $method:ident) => {
        match $tier {
            Tier::Portable => Some(|dst, value| portable::Portable::new().$method(dst, value)),
            #[cfg(target_arch = "x86_64")]
            Tier::Sse2 => x86_64::Sse2::new().map(|_| -> FillKernel {
                // SAFETY: `Sse2::new` returned `Some`, so the CPU has SSE2.
                |dst, value| unsafe { x86_64::Sse2::new_unchecked() }.$method(dst, value)
            }),
            #[cfg(target_arch = "x86_64")]
            Tier::Avx2 => x86_64::Avx2::new().map(|_| -> FillKernel {
                // SAFETY: `Avx2::new` returned `Some`, so the CPU has AVX2.
                |dst, value| unsafe { x86_64::Avx2::new_unchecked() }.$method(dst, value)
            }),
            #[cfg(target_arch = "x86_64")]
            Tier::Avx512 => x86_64::Avx512::new().map(|_| -> FillKernel {
                // SAFETY: `Avx512::new` returned `Some`, so the CPU has the
                // AVX-512 subsets the kernels use.
                |dst, value| unsafe { x86_64::Avx512::new_unchecked() }.$method(dst, value)
            }),
            #[cfg(target_arch = "aarch64")]
            Tier::Neon => aarch64::Neon::new().map(|_| -> FillKernel {
                // SAFETY: `Neon::new` returned `Some`, so the CPU has NEON.
                |dst, value| unsafe { aarch64::Neon::new_unchecked() }.$method(dst, value)
            }),
            #[allow(unreachable_patterns)]
            _ => None,
        }
    };
}
use fill_kernels;

/// `Some` of the `#[target_feature]` function `$function` of `$tier`'s
/// module, if this CPU runs the tier.
macro_rules! raw_fill_kernels {
    ($tier:expr, $function:ident) => {
        match $tier {
            Tier::Portable => Some(portable::$function as _),
            #[cfg(target_arch = "x86_64")]
            Tier::Sse2 => x86_64::Sse2::is_available().then_some(x86_64::sse2::$function as _),
            #[cfg(target_arch = "x86_64")]
            Tier::Avx2 => x86_64::Avx2::is_available().then_some(x86_64::avx2::$function as _),
            #[cfg(target_arch = "x86_64")]
            Tier::Avx512 => {
                x86_64::Avx512::is_available().then_some(x86_64::avx512::$function as _)
            }
            #[cfg(target_arch = "aarch64")]
            Tier::Neon => aarch64::Neon::is_available().then_some(aarch64::neon::$function as _),
            #[allow(unreachable_patterns)]
            _ => None,
        }
    };
}
use raw_fill_kernels;

/// Defines a tier's zero-sized type: `new`, `new_unchecked`, `is_available`.
///
/// `runtime` is the detection expression used with `std`; `compile_time` the
/// `cfg!` used without it.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
macro_rules! tier_type {
    (
        $(#[$attr:meta])*
        $name:ident, runtime: $runtime:expr, compile_time: $compile_time:expr $(,)?
    ) => {
        $(#[$attr])*
        ///
        /// ```
        /// # #[cfg(target_arch = "x86_64")] use fastpath::arch::x86_64::*;
        /// # #[cfg(target_arch = "aarch64")] use fastpath::arch::aarch64::*;
        #[doc = concat!("if let Some(tier) = ", stringify!($name), "::new() {")]
        ///     // The example of RFC 1071 §3, by this tier's kernels.
        ///     let data = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7];
        ///     assert_eq!(tier.sum(&data), 0xddf2);
        ///     assert_eq!(tier.checksum(&data), 0x220d);
        /// }
        /// ```
        #[derive(Clone, Copy, Debug)]
        pub struct $name(());

        impl $name {
            /// Returns the tier if this CPU supports it.
            ///
            /// ```
            /// # #[cfg(target_arch = "x86_64")] use fastpath::arch::x86_64::*;
            /// # #[cfg(target_arch = "aarch64")] use fastpath::arch::aarch64::*;
            #[doc = concat!("let tier = ", stringify!($name), "::new();")]
            #[doc = concat!("assert_eq!(tier.is_some(), ", stringify!($name), "::is_available());")]
            /// ```
            #[inline]
            pub fn new() -> Option<Self> {
                if Self::is_available() {
                    // SAFETY: the feature was just detected.
                    Some(unsafe { Self::new_unchecked() })
                } else {
                    None
                }
            }

            /// Returns the tier without checking the CPU.
            ///
            /// # Safety
            ///
            /// The CPU must support the tier's instructions
            /// ([`is_available`](Self::is_available) returns `true`).
            ///
            /// ```
            /// # #[cfg(target_arch = "x86_64")] use fastpath::arch::x86_64::*;
            /// # #[cfg(target_arch = "aarch64")] use fastpath::arch::aarch64::*;
            #[doc = concat!("if ", stringify!($name), "::is_available() {")]
            ///     // SAFETY: the CPU was just found to support the tier.
            #[doc = concat!("    let tier = unsafe { ", stringify!($name), "::new_unchecked() };")]
            ///     assert_eq!(tier.sum(&[0x12, 0x34]), 0x1234);
            /// }
            /// ```
            #[inline]
            pub const unsafe fn new_unchecked() -> Self {
                Self(())
            }

            /// Whether this CPU supports the tier: detected at run time with
            /// `std` (the standard library caches the answer), fixed by the
            /// compile-time target features without it.
            ///
            /// ```
            /// # #[cfg(target_arch = "x86_64")] use fastpath::arch::x86_64::*;
            /// # #[cfg(target_arch = "aarch64")] use fastpath::arch::aarch64::*;
            #[doc = concat!("println!(\"", stringify!($name), ": {}\", ", stringify!($name), "::is_available());")]
            /// ```
            #[inline]
            pub fn is_available() -> bool {
                #[cfg(feature = "std")]
                {
                    $runtime
                }
                #[cfg(not(feature = "std"))]
                {
                    $compile_time
                }
            }
        }
    };
}
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub(crate) use tier_type;

/// Defines a tier's `sum` and `checksum` methods over `$kernel`, the tier's
/// (possibly `#[target_feature]`) function that returns the checksum, the
/// complement of the folded sum.
macro_rules! sum_methods {
    ($tier:ty, $kernel:path) => {
        impl $tier {
            /// The ones'-complement sum of `data` as big-endian 16-bit words,
            /// an odd final byte padded with zero, folded to 16 bits (not
            /// complemented).
            ///
            /// ```
            /// # use fastpath::arch::portable::*;
            /// # #[cfg(target_arch = "x86_64")] use fastpath::arch::x86_64::*;
            /// # #[cfg(target_arch = "aarch64")] use fastpath::arch::aarch64::*;
            #[doc = concat!("fn rfc1071_example(tier: ", stringify!($tier), ") {")]
            ///     let data = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7];
            ///     assert_eq!(tier.sum(&data), 0xddf2);
            ///     assert_eq!(tier.sum(&data[..7]), 0xdcfb); // 0xf6 padded to 0xf600
            /// }
            #[doc = concat!("# let tier: Option<", stringify!($tier), "> = ", stringify!($tier), "::new().into();")]
            /// # tier.map(rfc1071_example);
            /// ```
            #[inline]
            pub fn sum(self, data: &[u8]) -> u16 {
                // SAFETY: holding `self` proves that the CPU has the tier's
                // features, all that the tier's functions require.
                #[allow(unused_unsafe)]
                !unsafe {
                    $kernel(data)
                }
            }

            /// The RFC 1071 checksum of `data`: the ones' complement of
            /// [`sum`](Self::sum).
            ///
            /// ```
            /// # use fastpath::arch::portable::*;
            /// # #[cfg(target_arch = "x86_64")] use fastpath::arch::x86_64::*;
            /// # #[cfg(target_arch = "aarch64")] use fastpath::arch::aarch64::*;
            #[doc = concat!("fn ipv4_header(tier: ", stringify!($tier), ") {")]
            ///     let mut header = [
            ///         0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00,
            ///         0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
            ///     ];
            ///     let checksum = tier.checksum(&header);
            ///     assert_eq!(checksum, 0xb861);
            ///     header[10..12].copy_from_slice(&checksum.to_be_bytes());
            ///     assert_eq!(tier.checksum(&header), 0);
            /// }
            #[doc = concat!("# let tier: Option<", stringify!($tier), "> = ", stringify!($tier), "::new().into();")]
            /// # tier.map(ipv4_header);
            /// ```
            #[inline]
            pub fn checksum(self, data: &[u8]) -> u16 {
                // SAFETY: as in `sum`.
                #[allow(unused_unsafe)]
                unsafe {
                    $kernel(data)
                }
            }
        }
    };
}
pub(crate) use sum_methods;

/// Defines a tier's `copy_sum` and `copy_sum_uninit` methods over
/// `$kernel`, the tier's (possibly `#[target_feature]`) function that copies
/// `min(dst.len(), src.len())` bytes and returns the checksum of `src` (the
/// complement of the folded sum).
macro_rules! copy_methods {
    ($tier:ty, $kernel:path) => {
        impl $tier {
            /// Copies `src` into `dst` and returns the folded sum of `src`, as
            /// [`sum`](Self::sum) does, reading `src` once.
            ///
            /// # Panics
            ///
            /// If the two slices have different lengths, as
            /// [`copy_from_slice`](slice::copy_from_slice) does.
            ///
            /// ```
            /// # use fastpath::arch::portable::*;
            /// # #[cfg(target_arch = "x86_64")] use fastpath::arch::x86_64::*;
            /// # #[cfg(target_arch = "aarch64")] use fastpath::arch::aarch64::*;
            #[doc = concat!("fn copy(tier: ", stringify!($tier), ") {")]
            ///     let payload = [0xabu8; 1500];
            ///     let mut packet = [0u8; 1500];
            ///     assert_eq!(tier.copy_sum(&mut packet, &payload), tier.sum(&payload));
            ///     assert_eq!(packet, payload);
            /// }
            #[doc = concat!("# let tier: Option<", stringify!($tier), "> = ", stringify!($tier), "::new().into();")]
            /// # tier.map(copy);
            /// ```
            #[inline]
            pub fn copy_sum(self, dst: &mut [u8], src: &[u8]) -> u16 {
                self.copy_sum_uninit($crate::copy::as_uninit_mut(dst), src)
            }

            /// Like [`copy_sum`](Self::copy_sum), into memory that need not be
            /// initialized; every byte of `dst` is initialized on return.
            ///
            /// # Panics
            ///
            /// If the two slices have different lengths.
            ///
            /// ```
            /// use core::mem::MaybeUninit;
            /// # use fastpath::arch::portable::*;
            /// # #[cfg(target_arch = "x86_64")] use fastpath::arch::x86_64::*;
            /// # #[cfg(target_arch = "aarch64")] use fastpath::arch::aarch64::*;
            #[doc = concat!("fn copy(tier: ", stringify!($tier), ") {")]
            ///     let payload = [0xabu8; 1500];
            ///     let mut ring = [MaybeUninit::<u8>::uninit(); 1500];
            ///     assert_eq!(tier.copy_sum_uninit(&mut ring, &payload), tier.sum(&payload));
            /// }
            #[doc = concat!("# let tier: Option<", stringify!($tier), "> = ", stringify!($tier), "::new().into();")]
            /// # tier.map(copy);
            /// ```
            #[inline]
            pub fn copy_sum_uninit(
                self,
                dst: &mut [core::mem::MaybeUninit<u8>],
                src: &[u8],
            ) -> u16 {
                $crate::copy::assert_same_length(dst.len(), src.len());
                // SAFETY: holding `self` proves that the CPU has the tier's
                // features, all that the tier's functions require.
                #[allow(unused_unsafe)]
                !unsafe {
                    $kernel(dst, src)
                }
            }
        }
    };
}
pub(crate) use copy_methods;
