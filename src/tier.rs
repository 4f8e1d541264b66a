//! Which kernel runs: the tiers, their detection, the `FASTPATH_TIER` cap and
//! the one place where a kernel is chosen and cached.
//!
//! The choice is made at run time with `std`, and without it on x86_64 with
//! SSE2, whose detection needs only `core` (`arch::x86_64::detect`): the
//! builds of `cfg(any(feature = "std", all(target_arch = "x86_64",
//! target_feature = "sse2")))`, the condition written below wherever the two
//! ways part. Elsewhere without `std` the table is `arch::ENABLED`, fixed at
//! compile time.

use core::fmt;
use core::str::FromStr;

use crate::arch::Kernels;

/// A family of kernels, named after the instruction set it needs.
///
/// The order of the variants is the order of preference on one architecture:
/// a wider vector unit wins. [`Tier::Sse2`] and [`Tier::Neon`] are both
/// 128 bits wide and never available on the same CPU.
///
/// # Choosing and forcing a tier
///
/// The first call to a primitive picks the best tier the CPU supports and
/// caches it: with the `std` feature, and on x86_64 without it too, since
/// CPUID and XGETBV need only `core`. A `no_std` library that depends on
/// fastpath with `default-features = false` thus runs the AVX-512 kernels on
/// an AVX-512 machine. With `std`, the environment variable `FASTPATH_TIER`
/// (`portable`, `sse2`, `avx2`, `avx512` or `neon`), read once at that moment,
/// caps the choice at the vector width of the tier it names, as DPDK's
/// `--force-max-simd-bitwidth` does: `FASTPATH_TIER=avx2` on an AVX-512
/// machine runs the AVX2 kernels, and `FASTPATH_TIER=neon` on x86_64 runs the
/// 128-bit SSE2 ones. An empty value counts as not set; an unknown value is
/// reported on stderr and ignored.
///
/// Without `std`, `FASTPATH_TIER` is not read (there is no environment), and
/// off x86_64 (aarch64, 32-bit targets) or on an x86_64 target built
/// without SSE2 (`x86_64-unknown-none`, whose code must not touch the vector
/// registers) the tier is fixed at compile time by the target features the
/// crate is built with (`-C target-cpu=...` or `-C target-feature=...`):
/// NEON on aarch64 targets that have it, the portable tier on soft-float
/// ones.
///
/// ```
/// use fastpath::Tier;
///
/// let tier = fastpath::active_tier();
/// assert!(tier.is_available());
/// assert_eq!("avx2".parse::<Tier>(), Ok(Tier::Avx2));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Tier {
    /// Plain Rust that compilers vectorize for the target they build for.
    /// Available everywhere.
    Portable,
    /// 128-bit SSE2 kernels (x86_64).
    Sse2,
    /// 128-bit NEON kernels (aarch64).
    Neon,
    /// 256-bit AVX2 kernels (x86_64).
    Avx2,
    /// 512-bit AVX-512 kernels (x86_64), which need AVX-512F and AVX-512BW.
    Avx512,
}

/// Every tier with its name, as `FASTPATH_TIER` spells it, and the width in
/// bits of its vectors, in the order of the variants: with the enum, the one
/// place where a tier is written.
const TIERS: [(Tier, &str, u32); 5] = [
    (Tier::Portable, "portable", 0),
    (Tier::Sse2, "sse2", 128),
    (Tier::Neon, "neon", 128),
    (Tier::Avx2, "avx2", 256),
    (Tier::Avx512, "avx512", 512),
];

// Each row stands at its variant's index, and a wider tier comes later.
const _: () = {
    let mut i = 0;
    while i < TIERS.len() {
        assert!(TIERS[i].0 as usize == i);
        assert!(i == 0 || TIERS[i - 1].2 <= TIERS[i].2);
        i += 1;
    }
};

impl Tier {
    /// Every tier, in order of preference from the lowest.
    ///
    /// ```
    /// use fastpath::Tier;
    ///
    /// let here: Vec<Tier> = Tier::ALL.into_iter().filter(|t| t.is_available()).collect();
    /// assert_eq!(here[0], Tier::Portable);
    /// assert!(here.contains(&fastpath::active_tier()));
    /// ```
    pub const ALL: [Tier; TIERS.len()] = {
        let mut all = [Tier::Portable; TIERS.len()];
        let mut i = 0;
        while i < TIERS.len() {
            all[i] = TIERS[i].0;
            i += 1;
        }
        all
    };

    /// The tier's name, as `FASTPATH_TIER` spells it.
    ///
    /// ```
    /// use fastpath::Tier;
    ///
    /// assert_eq!(Tier::Avx512.name(), "avx512");
    /// assert_eq!(Tier::Avx512.to_string(), "avx512");
    /// ```
    #[must_use]
    pub const fn name(self) -> &'static str {
        TIERS[self as usize].1
    }

    /// The width in bits of the vector registers the tier's kernels use; 0
    /// for the portable tier, which leaves that to the compiler.
    ///
    /// `FASTPATH_TIER` caps the choice at this width: a cap of `neon` allows
    /// SSE2, as wide.
    ///
    /// ```
    /// use fastpath::Tier;
    ///
    /// assert_eq!(Tier::Avx2.vector_bits(), 256);
    /// assert_eq!(Tier::Sse2.vector_bits(), Tier::Neon.vector_bits());
    /// ```
    #[must_use]
    pub const fn vector_bits(self) -> u32 {
        TIERS[self as usize].2
    }

    /// Whether this CPU runs the tier's kernels: enabled at compile time, or
    /// detected at run time (once), with `std` and, on x86_64, without it;
    /// elsewhere without `std`, decided by the compile-time target features
    /// alone.
    ///
    /// ```
    /// assert!(fastpath::Tier::Portable.is_available());
    /// ```
    #[must_use]
    pub fn is_available(self) -> bool {
        crate::arch::kernels(self).is_some()
    }
}

impl fmt::Display for Tier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The error of parsing a [`Tier`] from a name that is not one.
///
/// ```
/// let err = "avx3".parse::<fastpath::Tier>().unwrap_err();
/// assert!(err.to_string().starts_with("unknown tier"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseTierError(());

impl fmt::Display for ParseTierError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("unknown tier: expected one of")?;
        for (i, tier) in Tier::ALL.iter().enumerate() {
            f.write_str(if i == 0 { " " } else { ", " })?;
            f.write_str(tier.name())?;
        }
        Ok(())
    }
}

#[cfg(feature = "std")]
impl std::error::Error for ParseTierError {}

impl FromStr for Tier {
    type Err = ParseTierError;

    /// Parses a tier name, ignoring ASCII case and surrounding white space.
    fn from_str(s: &str) -> Result<Tier, ParseTierError> {
        let s = s.trim();
        Tier::ALL
            .into_iter()
            .find(|tier| tier.name().eq_ignore_ascii_case(s))
            .ok_or(ParseTierError(()))
    }
}

/// The best tier among those `available`, no wider than `cap`.
///
/// This is the whole selection policy, kept free of any detection so that it
/// can be tested on every machine.
#[cfg_attr(
    not(any(feature = "std", all(target_arch = "x86_64", target_feature = "sse2"))),
    allow(dead_code)
)]
pub(crate) fn select(available: impl Fn(Tier) -> bool, cap: Option<Tier>) -> Tier {
    let max_bits = cap.map_or(u32::MAX, Tier::vector_bits);
    Tier::ALL
        .into_iter()
        .rev()
        .find(|&tier| tier.vector_bits() <= max_bits && available(tier))
        .unwrap_or(Tier::Portable)
}

/// The tier whose kernels this process runs.
///
/// The first call detects the CPU's features and, with `std`, reads
/// `FASTPATH_TIER`; the answer is cached for the life of the process.
/// Without `std`, the detection is made on x86_64 alone; elsewhere the tier
/// is the best one enabled at compile time (see [`Tier`]).
///
/// ```
/// println!("fastpath runs its {} kernels", fastpath::active_tier());
/// ```
#[inline]
#[must_use]
pub fn active_tier() -> Tier {
    active().tier()
}

/// The kernel table this process runs: chosen once at run time with `std`
/// or on x86_64, at compile time elsewhere.
#[inline]
pub(crate) fn active() -> &'static Kernels {
    #[cfg(any(feature = "std", all(target_arch = "x86_64", target_feature = "sse2")))]
    {
        selection::active()
    }
    #[cfg(not(any(feature = "std", all(target_arch = "x86_64", target_feature = "sse2"))))]
    {
        crate::arch::ENABLED
    }
}

/// The choice of a kernel table, made once and cached: with `std`, and
/// without it on x86_64 (with SSE2), whose detection needs only `core`.
#[cfg(any(feature = "std", all(target_arch = "x86_64", target_feature = "sse2")))]
pub(crate) mod selection {
    #[cfg(feature = "std")]
    use core::sync::atomic::AtomicUsize;
    use core::sync::atomic::{AtomicU8, Ordering};

    use super::{Tier, select};
    use crate::arch::fill::InlinePath;
    use crate::arch::{self, Kernels};

    /// The state before the first choice.
    pub(crate) const UNSELECTED: u8 = 0;

    /// 1 + the index in [`arch::all`] of the chosen table, [`UNSELECTED`]
    /// before the first choice.
    static TABLE: AtomicU8 = AtomicU8::new(UNSELECTED);

    /// The value of [`own_stores`] when the architecture's inline paths may
    /// use their own stores with the chosen table
    /// ([`InlinePath::own_stores`]): on x86_64, AVX-512 stores.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(crate) const ON: u8 = 1;

    /// The value of [`own_stores`] when they may not.
    pub(crate) const OFF: u8 = 2;

    /// The value of [`own_stores`] when the inline paths may use AVX2
    /// stores, and not AVX-512 ones (x86_64).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(crate) const AVX2: u8 = 3;

    /// [`ON`], [`OFF`] or [`AVX2`], set with [`TABLE`]; [`UNSELECTED`]
    /// before.
    static OWN_STORES: AtomicU8 = AtomicU8::new(UNSELECTED);

    /// Whether the inline paths may use their own stores: [`ON`], [`OFF`],
    /// [`AVX2`], or [`UNSELECTED`] before the first choice. Kept beside the table so
    /// that the inline paths test it with one load and one comparison.
    #[inline(always)]
    // Read by x86_64's inline fill alone, so far, and not in a build that
    // enables AVX-512 at compile time, whose inline paths store with it.
    #[cfg_attr(
        any(
            not(target_arch = "x86_64"),
            all(target_feature = "avx512f", target_feature = "avx512bw")
        ),
        allow(dead_code)
    )]
    pub(crate) fn own_stores() -> u8 {
        OWN_STORES.load(Ordering::Relaxed)
    }

    /// The longest copy past `copy`'s first hand-off length that takes the
    /// own kernel, by the tier's and the CPU's rule
    /// (`arch::x86_64::handoff`); 0 before the first choice, so that the
    /// first such copy takes the kernel, whose dispatch chooses. With `std`
    /// only: without it there is no C library to hand copies to.
    #[cfg(feature = "std")]
    static OWN_COPY_TO: AtomicUsize = AtomicUsize::new(0);

    /// Whether a copy of `len` bytes, past `copy`'s first hand-off length,
    /// takes the own kernel rather than the C library's `memcpy`: before
    /// the first choice, and where the rules keep it.
    #[cfg(feature = "std")]
    #[inline]
    pub(crate) fn own_copy(len: usize) -> bool {
        let to = OWN_COPY_TO.load(Ordering::Relaxed);
        to == 0 || len <= to
    }

    /// The chosen table, chosen now if it was not yet.
    #[inline]
    pub(crate) fn active() -> &'static Kernels {
        match TABLE.load(Ordering::Relaxed) {
            UNSELECTED => choose(),
            n => arch::all()
                .nth(usize::from(n) - 1)
                .unwrap_or_else(|| choose()),
        }
    }

    /// Chooses the table: the tier [`select`] picks from those this CPU
    /// runs, capped by `FASTPATH_TIER` with `std`, and that tier's preferred
    /// table. Caches and returns it.
    #[cold]
    #[inline(never)]
    pub(crate) fn choose() -> &'static Kernels {
        let tier = select(Tier::is_available, cap());
        let (index, kernels) = arch::all()
            .enumerate()
            .filter(|(_, kernels)| kernels.tier() == tier && kernels.is_available())
            .last()
            .unwrap_or((0, &arch::portable::Portable::KERNELS));
        let own_stores = arch::native::Inline::own_stores(kernels);
        // Racing threads compute the same answers; the ones stored last win
        // and equal the others.
        TABLE.store(index as u8 + 1, Ordering::Relaxed);
        OWN_STORES.store(own_stores, Ordering::Relaxed);
        #[cfg(feature = "std")]
        {
            #[cfg(target_arch = "x86_64")]
            let own_copy_to = arch::x86_64::handoff::own_copy_to(tier);
            // No measurement elsewhere: the kernels to the x86_64 default.
            #[cfg(not(target_arch = "x86_64"))]
            let own_copy_to = 16 << 10;
            OWN_COPY_TO.store(own_copy_to, Ordering::Relaxed);
        }
        kernels
    }

    /// The cap that `FASTPATH_TIER` sets, if any.
    #[cfg(feature = "std")]
    fn cap() -> Option<Tier> {
        match std::env::var("FASTPATH_TIER") {
            // Set but empty, as `FASTPATH_TIER= cmd` leaves it: not set.
            Ok(value) if value.trim().is_empty() => None,
            Ok(value) => match value.parse::<Tier>() {
                Ok(tier) => Some(tier),
                Err(err) => {
                    std::eprintln!("fastpath: ignoring FASTPATH_TIER={value:?}: {err}");
                    None
                }
            },
            Err(std::env::VarError::NotPresent) => None,
            Err(std::env::VarError::NotUnicode(value)) => {
                std::eprintln!("fastpath: ignoring FASTPATH_TIER={value:?}: not UTF-8");
                None
            }
        }
    }

    /// No cap without `std`: there is no environment to read.
    #[cfg(not(feature = "std"))]
    fn cap() -> Option<Tier> {
        None
    }
}

/// Declares a function `$name` that runs the active table's kernel `$field`
/// for one primitive, chosen once and cached in a function pointer.
///
/// Where the choice is made at run time (with `std`, and on x86_64 without
/// it), the pointer starts at a `detect` function which looks up the active
/// table, stores its kernel in the pointer and calls it; every later call is
/// one load and one indirect call, straight into the tier's
/// `#[target_feature]` function. Elsewhere the table is a compile-time
/// constant and the call is direct.
macro_rules! dispatch {
    (
        $(#[$attr:meta])*
        $vis:vis fn $name:ident($($arg:ident: $ty:ty),*) -> $ret:ty;
        kernel = $field:ident;
    ) => {
        $(#[$attr])*
        $vis fn $name($($arg: $ty),*) -> $ret {
            type Kernel = unsafe fn($($ty),*) -> $ret;

            #[cfg(any(feature = "std", all(target_arch = "x86_64", target_feature = "sse2")))]
            {
                use core::sync::atomic::{AtomicPtr, Ordering};

                fn detect($($arg: $ty),*) -> $ret {
                    let kernel: Kernel = $crate::tier::active().$field;
                    FN.store(kernel as *mut (), Ordering::Relaxed);
                    // SAFETY: the active table is one this CPU runs, and its
                    // kernels take any arguments of their types.
                    unsafe { kernel($($arg),*) }
                }

                static FN: AtomicPtr<()> = AtomicPtr::new(detect as *mut ());

                let ptr = FN.load(Ordering::Relaxed);
                // SAFETY: `FN` only ever holds `detect` or a value of type
                // `Kernel` cast to a pointer, so it is a valid function
                // pointer of type `Kernel`.
                let kernel = unsafe { core::mem::transmute::<*mut (), Kernel>(ptr) };
                // SAFETY: a kernel is stored only after it was read from the
                // active table, which this CPU runs; `detect` is safe.
                unsafe { kernel($($arg),*) }
            }
            #[cfg(not(any(feature = "std", all(target_arch = "x86_64", target_feature = "sse2"))))]
            {
                let kernel: Kernel = $crate::arch::ENABLED.$field;
                // SAFETY: the table of a build that chooses at compile time
                // is one whose features the build enables.
                unsafe { kernel($($arg),*) }
            }
        }
    };
}
pub(crate) use dispatch;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse() {
        for tier in Tier::ALL {
            assert_eq!(tier.name().parse::<Tier>(), Ok(tier));
            assert_eq!(tier.name().to_uppercase().parse::<Tier>(), Ok(tier));
        }
        assert_eq!(" avx2\n".parse::<Tier>(), Ok(Tier::Avx2));
        assert!("avx3".parse::<Tier>().is_err());
        assert!("".parse::<Tier>().is_err());
    }

    #[test]
    fn select_policy() {
        let x86 = |t: Tier| matches!(t, Tier::Portable | Tier::Sse2 | Tier::Avx2 | Tier::Avx512);
        let arm = |t: Tier| matches!(t, Tier::Portable | Tier::Neon);
        let old_x86 = |t: Tier| matches!(t, Tier::Portable | Tier::Sse2);
        assert_eq!(select(x86, None), Tier::Avx512);
        assert_eq!(select(x86, Some(Tier::Avx512)), Tier::Avx512);
        assert_eq!(select(x86, Some(Tier::Avx2)), Tier::Avx2);
        assert_eq!(select(x86, Some(Tier::Sse2)), Tier::Sse2);
        assert_eq!(select(x86, Some(Tier::Neon)), Tier::Sse2);
        assert_eq!(select(x86, Some(Tier::Portable)), Tier::Portable);
        assert_eq!(select(arm, None), Tier::Neon);
        assert_eq!(select(arm, Some(Tier::Avx512)), Tier::Neon);
        assert_eq!(select(arm, Some(Tier::Sse2)), Tier::Neon);
        assert_eq!(select(arm, Some(Tier::Portable)), Tier::Portable);
        assert_eq!(select(old_x86, Some(Tier::Avx512)), Tier::Sse2);
        assert_eq!(select(|t| t == Tier::Portable, None), Tier::Portable);
    }

    #[test]
    fn active_is_available() {
        assert!(active_tier().is_available());
        assert_eq!(active_tier(), active_tier());
    }

    /// The inline fill's own stores follow the active tier (and
    /// `FASTPATH_TIER`): AVX-512 stores with the AVX-512 tier and BMI2,
    /// AVX2 stores with the AVX2 tier (or AVX-512 without BMI2), none below.
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    #[test]
    fn own_stores_follow_the_tier() {
        use crate::arch::x86_64::detect;

        let tier = active_tier();
        let expected = match tier {
            Tier::Avx512 if detect::has(detect::BMI2) => selection::ON,
            Tier::Avx512 | Tier::Avx2 => selection::AVX2,
            _ => selection::OFF,
        };
        assert_eq!(selection::own_stores(), expected, "{tier:?}");
    }

    /// The copies past `copy`'s first hand-off length take the own kernel
    /// up to the rule's length, and then `memcpy`.
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    #[test]
    fn long_copies_keep_the_own_kernel_only_by_the_rules() {
        let to = crate::arch::x86_64::handoff::own_copy_to(active_tier());
        assert!(to >= 2 << 10);
        assert!(selection::own_copy(to));
        assert!(!selection::own_copy(to + 1));
    }
}
