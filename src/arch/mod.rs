//! The kernels: one table of functions per tier, one module per architecture
//! and tier.
//!
//! A [`Kernels`] table holds a tier's function for every primitive of
//! `primitives!` (checksum, copy-and-checksum, fill, non-temporal fill,
//! copy). Each tier module
//! exports its table, and each architecture lists its tables once, in order
//! of preference (`x86_64/mod.rs`, `aarch64/mod.rs`). [`kernels`] returns the
//! table of a tier this CPU runs, [`variants`] every table it runs; the
//! crate's top-level functions run the table chosen once for the process
//! (see [`Tier`]), so that a table is the only place where a tier and a
//! primitive meet.
//!
//! A tier may have more than one table: on a CPU with AVX512-VNNI the
//! AVX-512 tier's checksum and copy-and-checksum use `vpdpwssd`, a second
//! table of [`Tier::Avx512`] that the selection prefers where the CPU has
//! it. [`variants`] lists both, so tests and benchmarks reach every kernel
//! without naming any.
//!
//! Each tier is also a zero-sized type whose constructor checks the CPU
//! feature it needs, so that holding a value proves the feature and its
//! methods are safe to call: [`portable::Portable`] everywhere,
//! `x86_64::Sse2`, `x86_64::Avx2`, `x86_64::Avx512` and `x86_64::Avx512Vnni`
//! on x86_64, `aarch64::Neon` on aarch64. The vector tiers are compiled only
//! for targets with vector registers (SSE2, NEON): on a soft-float target
//! such as `x86_64-unknown-none` the portable tier is the only one.
//!
//! ```
//! use fastpath::arch::portable::Portable;
//!
//! let data = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7];
//! assert_eq!(Portable::new().sum(&data), 0xddf2);
//! for kernels in fastpath::arch::variants() {
//!     assert_eq!(kernels.sum(&data), 0xddf2, "{}", kernels.name());
//! }
//! ```
//!
//! # Architecture
//!
//! The source tree, file by file:
//!
//! ```text
//! src/lib.rs               crate docs, re-exports; no_std
//! src/checksum.rs          the public checksum API: one-shot, streaming, combine, scatter-gather
//! src/copy.rs              copy, copy_uninit; fused copy-and-checksum: copy_checksum and its
//!                          variants
//! src/fill.rs              fill, zero, fill_nontemporal: the inline short path, then the dispatch
//! src/cache.rs             the caches (CPUID with std) and fill_nontemporal's threshold
//! src/slice.rs             slices' length check (LengthMismatch) and the uninit views; a leaf
//! src/tier.rs              Tier (names and widths in one table), parsing, the selection policy
//!                          (select, a pure function); a leaf below the kernels
//! src/dispatch.rs          above the kernels: the cached choice of a kernel table
//!                          (FASTPATH_TIER), active_tier(), the one dispatch macro
//! src/reference.rs         RFC 1071 §4.1, ported as is
//! src/packet/              protocol checksums: analyze and fix (mod.rs), ipv4, ipv6 (extension
//!                          headers), l4 (TCP, UDP, ICMP; l4/vectored.rs: split packets),
//!                          incremental (RFC 1624, NAT), partial (offload)
//! src/arch/mod.rs          Kernels, the table of a tier's functions; primitives!, the list of
//!                          primitives; kernels(tier), variants(); this architecture overview
//! src/arch/tier_type.rs    the macro that defines a tier from its line: its type, its entry
//!                          functions (generic, or the tier's overrides), its table, the
//!                          type's methods
//! src/arch/scalar.rs       add-with-carry, folding, the inline short-input paths (sum,
//!                          copy-and-sum)
//! src/arch/inline.rs       the inline path of fill(), written once over InlinePath
//! src/arch/memcpy.rs       copy()'s inline short path, and the hand-off length of long copies
//! src/arch/generic/        the algorithms, written once: vector.rs (the Vector and Sum traits
//!                          that every tier implements on its register), checksum.rs (checksum
//!                          and copy-and-checksum over Sum), output.rs (where the summed
//!                          vectors go: nowhere, or a destination), copy.rs, fill.rs (and the
//!                          length below which fills go to memset)
//! src/arch/portable/       the plain-Rust tier (vector.rs; its own checksum.rs and copy.rs, a
//!                          word loop that compilers vectorize), and the table of a target
//!                          without vector tiers
//! src/arch/x86_64/mod.rs   the list of x86_64 tables: sse2, avx2, avx512, avx512-vnni
//! src/arch/x86_64/inline.rs   what fill() inlines on x86_64 (AVX-512 stores in a build without
//!                          AVX-512)
//! src/arch/x86_64/detect.rs   the CPU features of the x86_64 tiers: CPUID and XGETBV, in core
//!                          (with or without std)
//! src/arch/x86_64/handoff.rs  where, with std, long copies keep the kernel rather than the C
//!                          library's memcpy: the rules per tier and CPU
//! src/arch/x86_64/{sse2,avx2}/   one tier each: its line (mod.rs) and its register (vector.rs)
//! src/arch/x86_64/avx512/  the same, and its overrides: checksum.rs and copy.rs (masked loads,
//!                          the copy-and-checksum), fill.rs (the masked short fill), vnni.rs
//!                          (the VNNI table: the AVX-512 table as its base, two overrides)
//! src/arch/aarch64/neon/   the NEON tier: its line, its register, its checksum.rs (pairwise
//!                          adds)
//! ```
//!
//! Beside the library, in the workspace: `cli/` (the `fastpath` binary:
//! bench, info, pcap; a thin shell over the library, its manual in
//! `cli/README.md`), `capi/` (the C interface, `capi/README.md`), `tests/`
//! (the sweeps, guard pages and properties of `docs/testing.md`; in
//! `tests/nostd-chain/` a std binary that reaches fastpath through a
//! `no_std` library), `fuzz/` (differential fuzz targets),
//! `benchmarks/` (the measured results as CSV, the script that renders
//! them into `BENCHMARKS.md`, and `benchmarks/outside/`, a crate that
//! times fastpath as an application calls it) and `.ci/` (CI).
//!
//! ## Dispatch
//!
//! The public files (`checksum.rs`, `copy.rs`, `fill.rs`) name no
//! architecture: they pick a kernel through the crate's one dispatch macro
//! (`dispatch::dispatch!`), a function pointer that starts at a detection
//! routine and is overwritten by the chosen table's `#[target_feature]`
//! function, as in memchr; short inputs are handled inline before it.
//! `primitives!` lists the primitives once; each tier is one `tier_type!`
//! line (its type, [`Tier`], table name, target features and detection,
//! vector or base table, overrides), from which come its entry functions,
//! each on a line of its own in the section
//! `.text.fastpath.<table>.<primitive>`, and its [`Kernels`] table. Each architecture lists its tables once; the
//! selection picks a tier with the policy of `tier.rs`, then that tier's
//! last table this CPU runs (so the AVX-512 tier runs its VNNI table where
//! the CPU has AVX512-VNNI, and nothing else names it). Tests, fuzz targets
//! and the bench iterate [`variants`]. Each algorithm's file opens with the
//! algorithm in words and the reasons behind its choices.
//!
//! ## What a change touches
//!
//! - **A new tier** on an existing architecture: its folder (`mod.rs` with
//!   its `tier_type!` line, `vector.rs` with its register's `Vector` and
//!   `Sum` implementations, and a file for each override, if any), its line
//!   in the architecture's list of tables (`x86_64/mod.rs`: the entry in
//!   `VARIANTS`, beside its `mod` and `use` lines), and one [`Tier`] variant
//!   with its row of name and width (`tier.rs`).
//! - **A new primitive**: one entry in `primitives!` (its arguments and the
//!   generic function it runs), that generic function in `arch/generic/`
//!   (or an override per tier), and one public function over
//!   `dispatch::dispatch!` (with, if it should have one, a method on
//!   [`Kernels`] and the tier types).

use core::iter;
use core::mem::MaybeUninit;

use crate::Tier;

#[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
pub mod aarch64;
pub(crate) mod cache;
pub(crate) mod generic;
pub(crate) mod inline;
pub(crate) mod memcpy;
pub mod portable;
pub(crate) mod scalar;
pub(crate) mod tier_type;
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
pub mod x86_64;

// The architecture this build has vector tiers for: its list of tables and
// its inline paths. Elsewhere, no tables beside the portable one.
#[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
pub(crate) use aarch64 as native;
#[cfg(not(any(
    all(target_arch = "x86_64", target_feature = "sse2"),
    all(target_arch = "aarch64", target_feature = "neon")
)))]
pub(crate) use portable::native;
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
pub(crate) use x86_64 as native;

/// Defines the kernel `$item` in a section of its own, `$section`, that
/// starts on a 64-byte boundary: the kernel's first instructions then share
/// one cache line and one fetch block, whatever the linker puts before it.
///
/// glibc starts its `memcpy` and `memset` on a 64-byte boundary; a Rust
/// function starts on a 16-byte one, wherever the code before it ends. The
/// short calls, which take 5-13 cycles, depended on that: on AMD Zen 4 the
/// same AVX-512 fill ran aligned 256-byte fills at 0.79-0.82× glibc's speed
/// starting 32 bytes into a line and at 0.97× or more starting on one, and
/// the same AVX2 copy 256 bytes at 0.81-0.86× and 1.01×
/// (docs/experiments.md). Stable Rust
/// has no attribute that aligns a function, but the assembler gives a
/// section the largest alignment asked for it, and a function alone in its
/// section starts where the section does: so the function goes into a named
/// section (`link_section`), and a line of module-level assembly asks that
/// section for 64-byte alignment (`.p2align 6`), adding no byte to it.
///
/// On x86_64 and aarch64 Linux and Android only, ELF targets whose
/// assemblers take these directives and where the vector tiers are tuned;
/// elsewhere the kernel is defined as it is.
///
/// Every name must be unique: `arch::tests::kernels_start_on_a_line` checks
/// that every table's kernels start on a 64-byte boundary.
macro_rules! line_aligned {
    ($section:expr, $item:item) => {
        #[cfg_attr(
            all(
                any(target_os = "linux", target_os = "android"),
                any(target_arch = "x86_64", target_arch = "aarch64")
            ),
            unsafe(link_section = $section)
        )]
        $item

        #[cfg(all(
            any(target_os = "linux", target_os = "android"),
            any(target_arch = "x86_64", target_arch = "aarch64")
        ))]
        core::arch::global_asm!(concat!(".pushsection ", $section, ",\"ax\"\n.p2align 6\n.popsection"));
    };
}
pub(crate) use line_aligned;

/// The list of primitives: each kernel that every tier has, with its
/// arguments and the generic function of `arch/generic/` that it runs (and
/// that function's arguments, where the entry passes itself or its siblings
/// on), once. It hands the list to `$callback`, after `$input`; from it come
/// the fields of [`Kernels`], every tier's entry functions and table
/// (`tier_type!`), and the list of `arch::tests::kernels_start_on_a_line`.
macro_rules! primitives {
    ($($callback:ident)::+ { $($input:tt)* }) => {
        $($callback)::+! {
            { $($input)* }
            /// The checksum of the input (the complement of its folded sum):
            /// the tier's `#[target_feature]` function, which
            /// [`crate::checksum()`] reaches with a jump.
            checksum(data: &[u8]) -> u16 = checksum::checksum(data, checksum);
            /// Copies `min(dst.len(), src.len())` bytes and returns the
            /// checksum of `src` (callers check that the lengths are equal).
            copy_checksum(dst: &mut [core::mem::MaybeUninit<u8>], src: &[u8]) -> u16
                = checksum::copy_checksum(dst, src, copy_checksum);
            /// Sets every byte of its first argument to the second.
            fill(dst: &mut [u8], value: u8) = fill::fill(dst, value);
            /// [`fill`](crate::arch::Kernels::fill) with non-temporal stores for the
            /// aligned lines of a long fill, then a store fence.
            fill_nontemporal(dst: &mut [u8], value: u8) = fill::fill_nontemporal(dst, value);
            /// [`fill`](crate::arch::Kernels::fill) below the non-temporal threshold,
            /// [`fill_nontemporal`](crate::arch::Kernels::fill_nontemporal) from it: the
            /// kernel of [`crate::fill_nontemporal()`].
            fill_or_stream(dst: &mut [u8], value: u8) = fill::fill_or_stream(
                dst,
                value,
                #[cold]
                #[inline(never)]
                |dst, value| $crate::arch::generic::fill::fill_from_threshold(
                    dst,
                    value,
                    // SAFETY: called by this entry only, whose caller
                    // guarantees the tier's features, on a slice.
                    |dst, value| unsafe { fill(dst, value) },
                    // SAFETY: as above.
                    |dst, value| unsafe { fill_nontemporal(dst, value) }
                )
            );
            /// Copies `min(dst.len(), src.len())` bytes of `src` into `dst`
            /// (callers check that the lengths are equal).
            copy(dst: &mut [core::mem::MaybeUninit<u8>], src: &[u8]) = copy::copy(dst, src);
            /// Copies `len > 64` bytes from the second argument to the
            /// first: the kernel of [`crate::copy()`] past its inline
            /// lengths, which with `std` hands long copies to the C
            /// library's `memcpy` by the rule the selection set
            /// (`arch::generic::copy::copy_beyond_short`).
            copy_or_hand_off(dst: *mut u8, src: *const u8, len: usize)
                = copy::copy_or_hand_off(dst, src, len);
        }
    };
}
pub(crate) use primitives;

/// Defines [`Kernels`] from the list of primitives.
macro_rules! kernels_struct {
    (
        {}
        $(
            $(#[$doc:meta])*
            $primitive:ident($($arg:ident: $type:ty),*) $(-> $ret:ty)?
                = $module:ident::$generic:ident($($call:expr),*);
        )*
    ) => {
        /// A tier's kernels: one function for every primitive, and what the
        /// tier needs of the CPU.
        ///
        /// A `&'static Kernels` is handed out only for a table this CPU runs
        /// (by [`kernels`], [`variants`], or a tier type's `kernels` method,
        /// whose value proves the CPU feature), so its methods are safe to
        /// call.
        ///
        /// ```
        /// use fastpath::Tier;
        ///
        /// let kernels = fastpath::arch::kernels(Tier::Portable).unwrap();
        /// assert_eq!(kernels.tier(), Tier::Portable);
        /// let mut copy = [0u8; 3];
        /// assert_eq!(kernels.copy_sum(&mut copy, &[0x12, 0x34, 0x56]), 0x6834);
        /// ```
        #[derive(Debug)]
        pub struct Kernels {
            /// The tier the table belongs to.
            tier: Tier,
            /// A name for the table: the tier's, or the tier's and a suffix.
            name: &'static str,
            /// Whether this CPU runs the table: enabled at compile time, or
            /// detected at run time (with `std`, and on x86_64 without it).
            is_available: fn() -> bool,
            /// Whether the build enables the table's features at compile
            /// time: the choice of a build without `std` off x86_64
            /// (`ENABLED`).
            #[cfg_attr(
                any(feature = "std", all(target_arch = "x86_64", target_feature = "sse2")),
                allow(dead_code)
            )]
            enabled: bool,
            $(
                $(#[$doc])*
                pub(crate) $primitive: unsafe fn($($type),*) $(-> $ret)?,
            )*
            /// The same functions behind safe pointers, for [`sum_kernel`]
            /// and its kin.
            plain: Plain,
        }
    };
}

primitives!(kernels_struct {});

/// A table's functions as safe function pointers: what [`Kernels`]'
/// methods do, as plain functions.
#[derive(Debug)]
struct Plain {
    sum: fn(&[u8]) -> u16,
    copy_sum: CopyKernel,
    fill: FillKernel,
    fill_nontemporal: FillKernel,
}

impl Kernels {
    /// The tier the table belongs to.
    ///
    /// ```
    /// let kernels = fastpath::arch::kernels(fastpath::active_tier()).unwrap();
    /// assert_eq!(kernels.tier(), fastpath::active_tier());
    /// ```
    #[inline]
    #[must_use]
    pub fn tier(&self) -> Tier {
        self.tier
    }

    /// The table's name: the tier's (`"avx2"`), or for a second table of a
    /// tier, the tier's and the feature that sets it apart
    /// (`"avx512-vnni"`).
    ///
    /// ```
    /// for kernels in fastpath::arch::variants() {
    ///     assert!(kernels.name().starts_with(kernels.tier().name()));
    /// }
    /// ```
    #[inline]
    #[must_use]
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Whether this CPU runs the table.
    #[inline]
    pub(crate) fn is_available(&self) -> bool {
        (self.is_available)()
    }

    /// The ones'-complement sum of `data` as big-endian 16-bit words, an
    /// odd final byte padded with zero, folded to 16 bits (not
    /// complemented).
    ///
    /// ```
    /// let data = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7];
    /// for kernels in fastpath::arch::variants() {
    ///     assert_eq!(kernels.sum(&data), 0xddf2);
    ///     assert_eq!(kernels.sum(&data[..7]), 0xdcfb); // 0xf6 padded to 0xf600
    /// }
    /// ```
    #[inline]
    #[must_use]
    pub fn sum(&self, data: &[u8]) -> u16 {
        !self.checksum(data)
    }

    /// The RFC 1071 checksum of `data`: the ones' complement of
    /// [`sum`](Self::sum).
    ///
    /// ```
    /// let header = [
    ///     0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00,
    ///     0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
    /// ];
    /// for kernels in fastpath::arch::variants() {
    ///     assert_eq!(kernels.checksum(&header), 0xb861);
    /// }
    /// ```
    #[inline]
    #[must_use]
    pub fn checksum(&self, data: &[u8]) -> u16 {
        // SAFETY: a `&Kernels` exists outside the crate only for a table
        // this CPU runs (see the type's docs), and inside it only where
        // that was checked; the function takes any slice.
        unsafe { (self.checksum)(data) }
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
    /// let payload = [0xabu8; 1500];
    /// for kernels in fastpath::arch::variants() {
    ///     let mut packet = [0u8; 1500];
    ///     assert_eq!(kernels.copy_sum(&mut packet, &payload), kernels.sum(&payload));
    ///     assert_eq!(packet, payload);
    /// }
    /// ```
    #[inline]
    pub fn copy_sum(&self, dst: &mut [u8], src: &[u8]) -> u16 {
        self.copy_sum_uninit(crate::slice::as_uninit_mut(dst), src)
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
    ///
    /// let payload = [0xabu8; 1500];
    /// for kernels in fastpath::arch::variants() {
    ///     let mut ring = [MaybeUninit::<u8>::uninit(); 1500];
    ///     assert_eq!(kernels.copy_sum_uninit(&mut ring, &payload), kernels.sum(&payload));
    /// }
    /// ```
    #[inline]
    pub fn copy_sum_uninit(&self, dst: &mut [MaybeUninit<u8>], src: &[u8]) -> u16 {
        crate::slice::assert_same_length(dst.len(), src.len());
        // SAFETY: as in `checksum`; the function takes any slices.
        !unsafe { (self.copy_checksum)(dst, src) }
    }

    /// Sets every byte of `dst` to `value`.
    ///
    /// ```
    /// for kernels in fastpath::arch::variants() {
    ///     let mut buf = [0u8; 100];
    ///     kernels.fill(&mut buf[3..97], 0xa5);
    ///     assert!(buf[3..97].iter().all(|&b| b == 0xa5));
    ///     assert_eq!((buf[2], buf[97]), (0, 0));
    /// }
    /// ```
    #[inline]
    pub fn fill(&self, dst: &mut [u8], value: u8) {
        // SAFETY: as in `checksum`; the function takes any slice.
        unsafe { (self.fill)(dst, value) }
    }

    /// Sets every byte of `dst` to `value`, storing the aligned 64-byte
    /// lines of a fill longer than eight vectors with non-temporal stores,
    /// which bypass the caches, then a store fence: see
    /// [`fastpath::fill_nontemporal`](crate::fill_nontemporal). Tiers
    /// without non-temporal stores (portable, NEON) store ordinarily.
    ///
    /// ```
    /// for kernels in fastpath::arch::variants() {
    ///     let mut frame = vec![0xffu8; 1 << 16];
    ///     kernels.fill_nontemporal(&mut frame, 0);
    ///     assert!(frame.iter().all(|&b| b == 0));
    /// }
    /// ```
    #[inline]
    pub fn fill_nontemporal(&self, dst: &mut [u8], value: u8) {
        // SAFETY: as in `checksum`; the function takes any slice.
        unsafe { (self.fill_nontemporal)(dst, value) }
    }

    /// Copies `src` into `dst`: [`fastpath::copy`](crate::copy()) with this
    /// table's kernel, at every length.
    ///
    /// # Panics
    ///
    /// If the two slices have different lengths, as
    /// [`copy_from_slice`](slice::copy_from_slice) does.
    ///
    /// ```
    /// let payload = [0xabu8; 1500];
    /// for kernels in fastpath::arch::variants() {
    ///     let mut packet = [0u8; 1500];
    ///     kernels.copy(&mut packet, &payload);
    ///     assert_eq!(packet, payload);
    /// }
    /// ```
    #[inline]
    pub fn copy(&self, dst: &mut [u8], src: &[u8]) {
        self.copy_uninit(crate::slice::as_uninit_mut(dst), src);
    }

    /// Copies `src` into `dst`, memory that need not be initialized, and
    /// returns `dst`, now initialized: [`fastpath::copy_uninit`](crate::copy_uninit)
    /// with this table's kernel.
    ///
    /// # Panics
    ///
    /// If the two slices have different lengths.
    ///
    /// ```
    /// use core::mem::MaybeUninit;
    ///
    /// for kernels in fastpath::arch::variants() {
    ///     let mut ring = [MaybeUninit::<u8>::uninit(); 100];
    ///     assert_eq!(kernels.copy_uninit(&mut ring, &[7; 100]), &[7; 100]);
    /// }
    /// ```
    #[inline]
    pub fn copy_uninit<'d>(&self, dst: &'d mut [MaybeUninit<u8>], src: &[u8]) -> &'d mut [u8] {
        crate::slice::assert_same_length(dst.len(), src.len());
        // SAFETY: as in `checksum`; the function takes any slices.
        unsafe { (self.copy)(dst, src) };
        // SAFETY: the kernel wrote every byte of `dst`, as long as `src`.
        unsafe { crate::slice::assume_init_mut(dst) }
    }
}

impl Tier {
    /// Whether this CPU runs the tier's kernels: enabled at compile time, or
    /// detected at run time (once), with `std` and, on x86_64, without it;
    /// elsewhere without `std`, decided by the compile-time target features
    /// alone.
    ///
    /// ```
    /// assert!(fastpath::Tier::Portable.is_available());
    /// ```
    // Here, beside the tables that answer it, so that `tier.rs` stays a
    // leaf.
    #[must_use]
    pub fn is_available(self) -> bool {
        kernels(self).is_some()
    }
}

/// Every table of this build, lowest first: the portable one, then the
/// architecture's in its order of preference.
pub(crate) fn all() -> impl Iterator<Item = &'static Kernels> {
    iter::once(&portable::Portable::KERNELS).chain(native::VARIANTS.iter().copied())
}

/// Every table this CPU runs, lowest first: each tier of [`Tier::ALL`] this
/// CPU has, and where a tier has two tables (AVX-512 with and without
/// VNNI), the one the tier prefers after the other.
///
/// ```
/// let here: Vec<_> = fastpath::arch::variants().collect();
/// assert_eq!(here[0].name(), "portable");
/// // The active tier's table is the last of its tier.
/// let active = fastpath::arch::kernels(fastpath::active_tier()).unwrap();
/// let last = here.iter().rev().find(|k| k.tier() == fastpath::active_tier()).unwrap();
/// assert_eq!(active.name(), last.name());
/// ```
pub fn variants() -> impl Iterator<Item = &'static Kernels> {
    all().filter(|kernels| kernels.is_available())
}

/// The table of `tier` that the tier uses on this CPU, or `None` if this
/// CPU lacks the tier: for the AVX-512 tier, the VNNI table where the CPU
/// has AVX512-VNNI.
///
/// ```
/// use fastpath::Tier;
///
/// for tier in Tier::ALL {
///     if let Some(kernels) = fastpath::arch::kernels(tier) {
///         assert_eq!(kernels.sum(&[0x12, 0x34, 0x56]), 0x6834);
///     }
/// }
/// ```
#[must_use]
pub fn kernels(tier: Tier) -> Option<&'static Kernels> {
    variants().filter(|kernels| kernels.tier == tier).last()
}

/// The table a build runs that cannot detect the CPU's features (without
/// `std`, off x86_64): the last of [`all`] whose features the build enables.
#[cfg(not(any(feature = "std", all(target_arch = "x86_64", target_feature = "sse2"))))]
pub(crate) const ENABLED: &Kernels = {
    let mut best = &portable::Portable::KERNELS;
    let mut i = 0;
    while i < native::VARIANTS.len() {
        if native::VARIANTS[i].enabled {
            best = native::VARIANTS[i];
        }
        i += 1;
    }
    best
};

/// The checksum kernel of `tier` as a plain function, or `None` if this CPU
/// lacks the tier: [`Kernels::sum`] of [`kernels`]`(tier)`.
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
#[must_use]
pub fn sum_kernel(tier: Tier) -> Option<fn(&[u8]) -> u16> {
    Some(kernels(tier)?.plain.sum)
}

/// A copy-and-checksum kernel: copies `src` into `dst` (of the same length;
/// it panics otherwise) and returns the folded sum of `src`.
pub type CopyKernel = fn(&mut [MaybeUninit<u8>], &[u8]) -> u16;

/// The copy-and-checksum kernel of `tier` as a plain function, or `None` if
/// this CPU lacks the tier: [`Kernels::copy_sum_uninit`] of
/// [`kernels`]`(tier)`.
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
#[must_use]
pub fn copy_kernel(tier: Tier) -> Option<CopyKernel> {
    Some(kernels(tier)?.plain.copy_sum)
}

/// A fill kernel: sets every byte of its first argument to the second.
pub type FillKernel = fn(&mut [u8], u8);

/// The fill kernel of `tier` as a plain function, or `None` if this CPU
/// lacks the tier: [`Kernels::fill`] of [`kernels`]`(tier)`.
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
#[must_use]
pub fn fill_kernel(tier: Tier) -> Option<FillKernel> {
    Some(kernels(tier)?.plain.fill)
}

/// The non-temporal fill kernel of `tier` as a plain function, or `None` if
/// this CPU lacks the tier: [`Kernels::fill_nontemporal`] of
/// [`kernels`]`(tier)`.
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
#[must_use]
pub fn fill_nontemporal_kernel(tier: Tier) -> Option<FillKernel> {
    Some(kernels(tier)?.plain.fill_nontemporal)
}

#[cfg(test)]
mod tests {
    /// The name and address of every entry of the table `$kernels`.
    #[cfg(all(
        any(target_os = "linux", target_os = "android"),
        any(target_arch = "x86_64", target_arch = "aarch64")
    ))]
    macro_rules! entry_addresses {
        (
            { $kernels:ident }
            $(
                $(#[$doc:meta])*
                $primitive:ident($($arg:ident: $type:ty),*) $(-> $ret:ty)?
                    = $module:ident::$generic:ident($($call:expr),*);
            )*
        ) => {
            [$((stringify!($primitive), $kernels.$primitive as usize)),*]
        };
    }

    /// Every kernel of every table starts on a 64-byte boundary, where the
    /// build can place it there ([`line_aligned`]).
    #[cfg(all(
        any(target_os = "linux", target_os = "android"),
        any(target_arch = "x86_64", target_arch = "aarch64")
    ))]
    #[test]
    fn kernels_start_on_a_line() {
        for kernels in super::all() {
            let entries = primitives!(entry_addresses { kernels });
            for (name, address) in entries {
                assert_eq!(address % 64, 0, "{} {name} at {address:#x}", kernels.name());
            }
        }
    }
}
