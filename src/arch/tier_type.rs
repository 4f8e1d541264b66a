//! The one macro that defines a tier from its line: its type, its kernel
//! table, its entry functions and the type's methods.

/// Defines a tier from its line. It generates:
///
/// - the tier's zero-sized type `$name`, whose values prove that the CPU
///   runs the tier: `new()`, `unsafe new_unchecked()` and `is_available()`,
///   which is `compile_time` (a `cfg!` of the target features the build
///   enables) or `runtime` (the architecture's detection at run time, cached:
///   in `core` on x86_64, through `std` on aarch64, `false` where it has
///   none), as `std`'s detection macros do. The portable tier, always
///   available, writes its type by hand and uses the `@kernels` form below;
/// - the tier's entry functions, one per primitive of
///   [`primitives!`](crate::arch::primitives): each enables the tier's
///   target features (`features`), sits on a line of its own in the section
///   `.text.fastpath.<table>.<primitive>` ([`line_aligned!`](crate::arch::line_aligned)),
///   and runs the generic algorithm of `arch/generic/` on the tier's
///   `vector`, or where the tier names one in `overrides`, its own function
///   (which takes the same arguments as the generic one). A second table
///   of a tier names, in place of a vector, the `base` table whose entries
///   it shares, and has entries of its own for its overrides alone (the
///   AVX-512 tier's VNNI table);
/// - `$name::KERNELS`, the tier's [`Kernels`](crate::arch::Kernels) table:
///   the tier `$tier`, the table's name, the entry functions, and the
///   table's safe functions for `arch::sum_kernel` and its kin;
/// - the type's methods, each the table's method of the same name:
///   `kernels`, `sum`, `checksum`, `copy_sum`, `copy_sum_uninit`, `fill`,
///   `fill_nontemporal`.
macro_rules! tier_type {
    (
        $(#[$attr:meta])*
        $name:ident: $tier:expr, $table:literal,
        features: $features:literal,
        runtime: $runtime:expr,
        compile_time: $compile_time:expr,
        $source:ident: $source_type:ty,
        overrides: { $($primitive:ident: $override:path),* $(,)? } $(,)?
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

            /// Whether this CPU supports the tier: enabled at compile time
            /// (`-C target-cpu=...`), or detected at run time, once, and
            /// cached. On x86_64 the detection reads CPUID and XGETBV, with or
            /// without `std`; on aarch64 it needs `std`, and without it only
            /// the compile-time target features count (NEON is one of them
            /// on every target that has the tier).
            ///
            /// ```
            /// # #[cfg(target_arch = "x86_64")] use fastpath::arch::x86_64::*;
            /// # #[cfg(target_arch = "aarch64")] use fastpath::arch::aarch64::*;
            #[doc = concat!("println!(\"", stringify!($name), ": {}\", ", stringify!($name), "::is_available());")]
            /// ```
            #[inline]
            pub fn is_available() -> bool {
                $compile_time || $runtime
            }
        }

        $crate::arch::tier_type::tier_type! {
            @kernels $name: $tier, $table,
            is_available: $name::is_available,
            enabled: $compile_time,
            features: [$features],
            $source: $source_type,
            overrides: { $($primitive: $override),* },
        }
    };

    (
        @kernels $name:ident: $tier:expr, $table:literal,
        is_available: $is_available:expr,
        enabled: $enabled:expr,
        features: [$($features:literal)?],
        $source:ident: $source_type:ty,
        overrides: { $($primitive:ident: $override:path),* $(,)? } $(,)?
    ) => {
        $crate::arch::tier_type::tier_type! {
            @entries ($) $name: $tier, $table,
            is_available: $is_available,
            enabled: $enabled,
            features: [$($features)?],
            source: [$source $source_type],
            overrides: { $($primitive: $override),* },
        }

        impl $name {
            /// The tier's kernel table.
            ///
            /// ```
            /// # use fastpath::arch::portable::*;
            /// # #[cfg(target_arch = "x86_64")] use fastpath::arch::x86_64::*;
            /// # #[cfg(target_arch = "aarch64")] use fastpath::arch::aarch64::*;
            #[doc = concat!("fn table(tier: ", stringify!($name), ") {")]
            #[doc = concat!("    assert_eq!(tier.kernels().name(), \"", $table, "\");")]
            /// }
            #[doc = concat!("# let tier: Option<", stringify!($name), "> = ", stringify!($name), "::new().into();")]
            /// # tier.map(table);
            /// ```
            #[inline]
            pub fn kernels(self) -> &'static $crate::arch::Kernels {
                // Holding `self` proves that the CPU runs the table.
                &Self::KERNELS
            }

            /// The ones'-complement sum of `data` as big-endian 16-bit words,
            /// an odd final byte padded with zero, folded to 16 bits (not
            /// complemented).
            ///
            /// ```
            /// # use fastpath::arch::portable::*;
            /// # #[cfg(target_arch = "x86_64")] use fastpath::arch::x86_64::*;
            /// # #[cfg(target_arch = "aarch64")] use fastpath::arch::aarch64::*;
            #[doc = concat!("fn rfc1071_example(tier: ", stringify!($name), ") {")]
            ///     let data = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7];
            ///     assert_eq!(tier.sum(&data), 0xddf2);
            ///     assert_eq!(tier.sum(&data[..7]), 0xdcfb); // 0xf6 padded to 0xf600
            /// }
            #[doc = concat!("# let tier: Option<", stringify!($name), "> = ", stringify!($name), "::new().into();")]
            /// # tier.map(rfc1071_example);
            /// ```
            #[inline]
            pub fn sum(self, data: &[u8]) -> u16 {
                self.kernels().sum(data)
            }

            /// The RFC 1071 checksum of `data`: the ones' complement of
            /// [`sum`](Self::sum).
            ///
            /// ```
            /// # use fastpath::arch::portable::*;
            /// # #[cfg(target_arch = "x86_64")] use fastpath::arch::x86_64::*;
            /// # #[cfg(target_arch = "aarch64")] use fastpath::arch::aarch64::*;
            #[doc = concat!("fn ipv4_header(tier: ", stringify!($name), ") {")]
            ///     let mut header = [
            ///         0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00,
            ///         0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
            ///     ];
            ///     let checksum = tier.checksum(&header);
            ///     assert_eq!(checksum, 0xb861);
            ///     header[10..12].copy_from_slice(&checksum.to_be_bytes());
            ///     assert_eq!(tier.checksum(&header), 0);
            /// }
            #[doc = concat!("# let tier: Option<", stringify!($name), "> = ", stringify!($name), "::new().into();")]
            /// # tier.map(ipv4_header);
            /// ```
            #[inline]
            pub fn checksum(self, data: &[u8]) -> u16 {
                self.kernels().checksum(data)
            }

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
            #[doc = concat!("fn copy(tier: ", stringify!($name), ") {")]
            ///     let payload = [0xabu8; 1500];
            ///     let mut packet = [0u8; 1500];
            ///     assert_eq!(tier.copy_sum(&mut packet, &payload), tier.sum(&payload));
            ///     assert_eq!(packet, payload);
            /// }
            #[doc = concat!("# let tier: Option<", stringify!($name), "> = ", stringify!($name), "::new().into();")]
            /// # tier.map(copy);
            /// ```
            #[inline]
            pub fn copy_sum(self, dst: &mut [u8], src: &[u8]) -> u16 {
                self.kernels().copy_sum(dst, src)
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
            #[doc = concat!("fn copy(tier: ", stringify!($name), ") {")]
            ///     let payload = [0xabu8; 1500];
            ///     let mut ring = [MaybeUninit::<u8>::uninit(); 1500];
            ///     assert_eq!(tier.copy_sum_uninit(&mut ring, &payload), tier.sum(&payload));
            /// }
            #[doc = concat!("# let tier: Option<", stringify!($name), "> = ", stringify!($name), "::new().into();")]
            /// # tier.map(copy);
            /// ```
            #[inline]
            pub fn copy_sum_uninit(self, dst: &mut [core::mem::MaybeUninit<u8>], src: &[u8]) -> u16 {
                self.kernels().copy_sum_uninit(dst, src)
            }

            /// Sets every byte of `dst` to `value` with this tier's kernel.
            ///
            /// ```
            /// # use fastpath::arch::portable::*;
            /// # #[cfg(target_arch = "x86_64")] use fastpath::arch::x86_64::*;
            /// # #[cfg(target_arch = "aarch64")] use fastpath::arch::aarch64::*;
            #[doc = concat!("fn fill(tier: ", stringify!($name), ") {")]
            ///     let mut buf = [0u8; 100];
            ///     tier.fill(&mut buf[3..97], 0xa5);
            ///     assert!(buf[3..97].iter().all(|&b| b == 0xa5));
            ///     assert_eq!((buf[2], buf[97]), (0, 0));
            /// }
            #[doc = concat!("# let tier: Option<", stringify!($name), "> = ", stringify!($name), "::new().into();")]
            /// # tier.map(fill);
            /// ```
            #[inline]
            pub fn fill(self, dst: &mut [u8], value: u8) {
                self.kernels().fill(dst, value)
            }

            /// Sets every byte of `dst` to `value` with this tier's kernel,
            /// storing the aligned 64-byte lines of a fill longer than eight
            /// vectors with non-temporal stores, which bypass the caches,
            /// then a store fence: see
            /// [`fastpath::fill_nontemporal`](crate::fill_nontemporal). The
            /// portable and NEON tiers store ordinarily.
            ///
            /// ```
            /// # use fastpath::arch::portable::*;
            /// # #[cfg(target_arch = "x86_64")] use fastpath::arch::x86_64::*;
            /// # #[cfg(target_arch = "aarch64")] use fastpath::arch::aarch64::*;
            #[doc = concat!("fn fill(tier: ", stringify!($name), ") {")]
            ///     let mut frame = vec![0xffu8; 1 << 16];
            ///     tier.fill_nontemporal(&mut frame, 0);
            ///     assert!(frame.iter().all(|&b| b == 0));
            /// }
            #[doc = concat!("# let tier: Option<", stringify!($name), "> = ", stringify!($name), "::new().into();")]
            /// # tier.map(fill);
            /// ```
            #[inline]
            pub fn fill_nontemporal(self, dst: &mut [u8], value: u8) {
                self.kernels().fill_nontemporal(dst, value)
            }
        }
    };

    // The entry functions and the table, in a module of their own, which
    // sees the tier module's items. `$d` is a `$`, for the patterns of
    // `pick`.
    (
        @entries ($d:tt) $name:ident: $tier:expr, $table:literal,
        is_available: $is_available:expr,
        enabled: $enabled:expr,
        features: [$($features:literal)?],
        source: $source:tt,
        overrides: { $($primitive:ident: $override:path),* $(,)? } $(,)?
    ) => {
        /// The tier's entry functions and its table.
        mod entries {
            #[allow(unused_imports)]
            use super::*;

            /// The function an entry runs: the tier's override of the
            /// primitive if it has one, otherwise the generic algorithm.
            macro_rules! pick {
                $(($primitive, $d generic:expr) => { $override };)*
                ($d other:ident, $d generic:expr) => { $d generic };
            }

            /// `$yes` for a primitive the tier overrides, `$no` for the
            /// others: a tier on a `base` table has entries of its own only
            /// for its overrides.
            #[allow(unused_macros)]
            macro_rules! overridden {
                $(($primitive, { $d($d yes:tt)* }, { $d($d no:tt)* }) => { $d($d yes)* };)*
                ($d other:ident, { $d($d yes:tt)* }, { $d($d no:tt)* }) => { $d($d no)* };
            }

            $crate::arch::primitives!(crate::arch::tier_type::tier_entries {
                $table, [$($features)?], $source
            });

            $crate::arch::primitives!(crate::arch::tier_type::tier_table {
                $name, $tier, $table, $is_available, $enabled, $source
            });
        }
    };
}
pub(crate) use tier_type;

/// The entry functions of a tier, one per primitive (see [`tier_type!`]),
/// each through `pick`, which the caller defines.
macro_rules! tier_entries {
    (
        { $table:literal, $features:tt, $source:tt }
        $(
            $(#[$doc:meta])*
            $primitive:ident($($arg:ident: $type:ty),*) $(-> $ret:ty)?
                = $module:ident::$generic:ident($($call:expr),*);
        )*
    ) => {
        $(
            $crate::arch::tier_type::tier_entry! {
                $table, $features, $source,
                $(#[$doc])*
                $primitive($($arg: $type),*) $(-> $ret)? = $module::$generic($($call),*);
            }
        )*
    };
}
pub(crate) use tier_entries;

/// One entry function of a tier (see [`tier_entries!`]): on the tier's
/// vector, or on a `base` table for an override only.
macro_rules! tier_entry {
    (
        $table:literal, $features:tt, [vector $vector:ty],
        $(#[$doc:meta])*
        $primitive:ident($($arg:ident: $type:ty),*) $(-> $ret:ty)?
            = $module:ident::$generic:ident($($call:expr),*);
    ) => {
        $crate::arch::tier_type::tier_entry! {
            @fn $table, $features, $vector,
            $(#[$doc])*
            $primitive($($arg: $type),*) $(-> $ret)? = $module::$generic($($call),*);
        }
    };
    (
        $table:literal, $features:tt, [base $base:ty],
        $(#[$doc:meta])*
        $primitive:ident($($arg:ident: $type:ty),*) $(-> $ret:ty)?
            = $module:ident::$generic:ident($($call:expr),*);
    ) => {
        overridden!($primitive, {
            $crate::arch::tier_type::tier_entry! {
                @fn $table, $features, (),
                $(#[$doc])*
                $primitive($($arg: $type),*) $(-> $ret)? = $module::$generic($($call),*);
            }
        }, {});
    };
    (
        @fn         $table:literal, [$($features:literal)?], $vector:ty,
        $(#[$doc:meta])*
        $primitive:ident($($arg:ident: $type:ty),*) $(-> $ret:ty)?
            = $module:ident::$generic:ident($($call:expr),*);
    ) => {
        $crate::arch::line_aligned!(
            concat!(".text.fastpath.", $table, ".", stringify!($primitive)),
            $(#[$doc])*
            ///
            /// # Safety
            ///
            /// The CPU must support the tier's target features, and the
            /// arguments must meet the conditions of the table's field.
            $(#[target_feature(enable = $features)])?
            // The portable tier's overrides are safe functions.
            #[allow(unused_unsafe)]
            pub(crate) unsafe fn $primitive($($arg: $type),*) $(-> $ret)? {
                // SAFETY: the tier's features are enabled here and the
                // arguments meet the kernel's conditions, as the caller
                // guarantees.
                unsafe {
                    pick!(
                        $primitive,
                        $crate::arch::generic::$module::$generic::<$vector>
                    )($($call),*)
                }
            }
        );
    };
}
pub(crate) use tier_entry;

/// The kernel table of a tier, from its entry functions (see
/// [`tier_type!`]).
macro_rules! tier_table {
    (
        { $name:ident, $tier:expr, $table:literal, $is_available:expr, $enabled:expr, $source:tt }
        $(
            $(#[$doc:meta])*
            $primitive:ident($($arg:ident: $type:ty),*) $(-> $ret:ty)?
                = $module:ident::$generic:ident($($call:expr),*);
        )*
    ) => {
        impl $name {
            /// The tier's kernel table.
            pub(crate) const KERNELS: $crate::arch::Kernels = $crate::arch::Kernels {
                tier: $tier,
                name: $table,
                is_available: $is_available,
                enabled: $enabled,
                $($primitive: $crate::arch::tier_type::tier_field!($source, $primitive),)*
                // Safe functions that call the table's kernels: they are
                // reached only through a `&Kernels`, which exists only for a
                // table this CPU runs.
                plain: $crate::arch::Plain {
                    sum: |data| $name::KERNELS.sum(data),
                    copy_sum: |dst, src| $name::KERNELS.copy_sum_uninit(dst, src),
                    fill: |dst, value| $name::KERNELS.fill(dst, value),
                    fill_nontemporal: |dst, value| $name::KERNELS.fill_nontemporal(dst, value),
                },
            };
        }
    };
}
pub(crate) use tier_table;

/// A field of a tier's table (see [`tier_table!`]): the tier's entry, or
/// for a tier on a `base` table and a primitive it does not override, the
/// base table's.
macro_rules! tier_field {
    ([vector $vector:ty], $primitive:ident) => {
        $primitive
    };
    ([base $base:ty], $primitive:ident) => {
        overridden!($primitive, { $primitive }, { <$base>::KERNELS.$primitive })
    };
}
pub(crate) use tier_field;
