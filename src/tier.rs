//! Which kernel runs: the tiers, their detection, the `FASTPATH_TIER` cap and
//! the one place where a kernel is chosen and cached.

use core::fmt;
use core::str::FromStr;

/// A family of kernels, named after the instruction set it needs.
///
/// The order of the variants is the order of preference on one architecture:
/// a wider vector unit wins. [`Tier::Sse2`] and [`Tier::Neon`] are both
/// 128 bits wide and never available on the same CPU.
///
/// # Choosing and forcing a tier
///
/// With the `std` feature, the first call to a primitive picks the best tier
/// the CPU supports and caches it. The environment variable `FASTPATH_TIER`
/// (`portable`, `sse2`, `avx2`, `avx512` or `neon`), read once at that moment,
/// caps the choice at the vector width of the tier it names, as DPDK's
/// `--force-max-simd-bitwidth` does: `FASTPATH_TIER=avx2` on an AVX-512
/// machine runs the AVX2 kernels, and `FASTPATH_TIER=neon` on x86_64 runs the
/// 128-bit SSE2 ones. An unknown value is reported on stderr and ignored.
///
/// Without `std`, the tier is fixed at compile time by the target features
/// the crate is built with (`-C target-cpu=...` or `-C target-feature=...`).
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
    pub const ALL: [Tier; 5] = [
        Tier::Portable,
        Tier::Sse2,
        Tier::Neon,
        Tier::Avx2,
        Tier::Avx512,
    ];

    /// The tier's name, as `FASTPATH_TIER` spells it.
    ///
    /// ```
    /// use fastpath::Tier;
    ///
    /// assert_eq!(Tier::Avx512.name(), "avx512");
    /// assert_eq!(Tier::Avx512.to_string(), "avx512");
    /// ```
    pub const fn name(self) -> &'static str {
        match self {
            Tier::Portable => "portable",
            Tier::Sse2 => "sse2",
            Tier::Neon => "neon",
            Tier::Avx2 => "avx2",
            Tier::Avx512 => "avx512",
        }
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
    pub const fn vector_bits(self) -> u32 {
        match self {
            Tier::Portable => 0,
            Tier::Sse2 | Tier::Neon => 128,
            Tier::Avx2 => 256,
            Tier::Avx512 => 512,
        }
    }

    /// Whether this CPU runs the tier's kernels: detected at run time (once)
    /// with `std`, decided by the compile-time target features without it.
    ///
    /// ```
    /// assert!(fastpath::Tier::Portable.is_available());
    /// ```
    pub fn is_available(self) -> bool {
        #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
        use crate::arch;
        match self {
            Tier::Portable => true,
            #[cfg(target_arch = "x86_64")]
            Tier::Sse2 => arch::x86_64::Sse2::is_available(),
            #[cfg(target_arch = "x86_64")]
            Tier::Avx2 => arch::x86_64::Avx2::is_available(),
            #[cfg(target_arch = "x86_64")]
            Tier::Avx512 => arch::x86_64::Avx512::is_available(),
            #[cfg(target_arch = "aarch64")]
            Tier::Neon => arch::aarch64::Neon::is_available(),
            #[allow(unreachable_patterns)]
            _ => false,
        }
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
        f.write_str("unknown tier: expected one of portable, sse2, avx2, avx512, neon")
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
/// With `std`, the first call detects the CPU's features and reads
/// `FASTPATH_TIER`; the answer is cached for the life of the process. Without
/// `std`, it is the best tier enabled at compile time.
///
/// ```
/// println!("fastpath runs its {} kernels", fastpath::active_tier());
/// ```
#[inline]
pub fn active_tier() -> Tier {
    imp::active_tier()
}

#[cfg(feature = "std")]
mod imp {
    use super::{Tier, select};
    use core::sync::atomic::{AtomicU8, Ordering};

    /// 0 until the first call; then 1 + the index of the chosen tier in
    /// [`Tier::ALL`].
    static CHOSEN: AtomicU8 = AtomicU8::new(0);

    pub(super) fn active_tier() -> Tier {
        match CHOSEN.load(Ordering::Relaxed) {
            0 => detect(),
            n => Tier::ALL[usize::from(n - 1)],
        }
    }

    #[cold]
    fn detect() -> Tier {
        let cap = match std::env::var("FASTPATH_TIER") {
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
        };
        let tier = select(Tier::is_available, cap);
        let index = Tier::ALL.iter().position(|&t| t == tier).unwrap_or(0);
        // Racing threads compute the same answer; the one stored last wins
        // and equals the others.
        CHOSEN.store(index as u8 + 1, Ordering::Relaxed);
        tier
    }
}

#[cfg(not(feature = "std"))]
mod imp {
    use super::{Tier, select};

    pub(super) fn active_tier() -> Tier {
        select(Tier::is_available, None)
    }
}

/// Declares a function `$name` that runs the active tier's kernel for one
/// primitive, chosen once and cached in a function pointer.
///
/// With `std`, the pointer starts at a `detect` function which looks up the
/// active tier, stores the kernel of that tier in the pointer and calls it;
/// every later call is one load and one indirect call, straight into the
/// tier's `#[target_feature]` function. Without `std`, the tier is a
/// compile-time constant and the call is direct.
///
/// `$kernel` maps a [`Tier`] to `Option<unsafe fn(...) -> ...>`: `Some`
/// only for a tier this CPU runs, whose function is then safe to call with
/// any arguments; the portable kernel must be `Some` for every build.
macro_rules! dispatch {
    (
        $(#[$attr:meta])*
        $vis:vis fn $name:ident($($arg:ident: $ty:ty),*) -> $ret:ty;
        kernel = $kernel:path;
    ) => {
        $(#[$attr])*
        $vis fn $name($($arg: $ty),*) -> $ret {
            type Kernel = unsafe fn($($ty),*) -> $ret;

            #[cfg(feature = "std")]
            {
                use core::sync::atomic::{AtomicPtr, Ordering};

                fn detect($($arg: $ty),*) -> $ret {
                    let kernel: Kernel = $kernel($crate::active_tier())
                        .expect("the active tier is available");
                    FN.store(kernel as *mut (), Ordering::Relaxed);
                    // SAFETY: `$kernel` returned the function for a tier
                    // this CPU runs.
                    unsafe { kernel($($arg),*) }
                }

                static FN: AtomicPtr<()> = AtomicPtr::new(detect as *mut ());

                let ptr = FN.load(Ordering::Relaxed);
                // SAFETY: `FN` only ever holds `detect` or a value of type
                // `Kernel` cast to a pointer, so it is a valid function
                // pointer of type `Kernel`.
                let kernel = unsafe { core::mem::transmute::<*mut (), Kernel>(ptr) };
                // SAFETY: a kernel is stored only after `$kernel` returned it
                // for the active tier, which this CPU runs; `detect` is safe.
                unsafe { kernel($($arg),*) }
            }
            #[cfg(not(feature = "std"))]
            {
                let kernel: Kernel = match $kernel($crate::active_tier()) {
                    Some(kernel) => kernel,
                    None => unreachable!("the active tier is available"),
                };
                // SAFETY: `$kernel` returned the function for a tier this
                // build runs.
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
}
