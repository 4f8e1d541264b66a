//! The tiers' vocabulary: [`Tier`], the one table of their names, ranks and
//! widths, their parsing, and the selection policy, [`select`], a pure
//! function. A leaf: whether this CPU runs a tier is `arch`'s to say
//! ([`Tier::is_available`] is defined there), and where a kernel is chosen
//! and cached is `dispatch`, above the kernels.

use core::fmt;
use core::str::FromStr;

/// A family of kernels, named after the instruction set it needs.
///
/// The order of the variants is the order of preference, which each tier's
/// [`rank`](Tier::rank) states: a higher rank wins. [`Tier::Sse2`] and
/// [`Tier::Neon`] share a rank, and are never available on the same CPU.
///
/// # Choosing and forcing a tier
///
/// The first call to a primitive picks the best tier the CPU supports and
/// caches it: with the `std` feature, and on x86_64 without it too, since
/// CPUID and XGETBV need only `core`. A `no_std` library that depends on
/// fastpath with `default-features = false` thus runs the AVX-512 kernels on
/// an AVX-512 machine. With `std`, the environment variable `FASTPATH_TIER`
/// (`portable`, `sse2`, `avx2`, `avx512` or `neon`), read once at that moment,
/// caps the choice at the rank of the tier it names, as DPDK's
/// `--force-max-simd-bitwidth` caps the vector width: `FASTPATH_TIER=avx2`
/// on an AVX-512 machine runs the AVX2 kernels, and `FASTPATH_TIER=neon` on
/// x86_64 runs the SSE2 ones, of the same rank. An empty value counts as not set; an unknown value is
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

/// Every tier with its name, as `FASTPATH_TIER` spells it, its rank in the
/// order of preference, and the width in bits of its vectors, in the order
/// of the variants: with the enum, the one place where a tier is written.
///
/// The rank, not the width, orders the tiers: a tier whose vectors have no
/// fixed width (a scalable vector extension) has a place in the order all
/// the same. Tiers of different architectures, which no CPU has together,
/// may share a rank; `FASTPATH_TIER` then caps the one at the other.
const TIERS: [(Tier, &str, u8, u32); 5] = [
    (Tier::Portable, "portable", 0, 0),
    (Tier::Sse2, "sse2", 1, 128),
    (Tier::Neon, "neon", 1, 128),
    (Tier::Avx2, "avx2", 2, 256),
    (Tier::Avx512, "avx512", 3, 512),
];

// Each row stands at its variant's index, and no tier ranks below one
// before it, so that `Tier::ALL` lists them in the order of preference.
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

    /// The tier's place in the order of preference, from 0 for the portable
    /// tier: the selection takes the available tier of the highest rank,
    /// and `FASTPATH_TIER` caps it at the rank of the tier it names. Tiers
    /// of different architectures may share a rank (SSE2 and NEON): a cap
    /// of `neon` allows SSE2.
    ///
    /// ```
    /// use fastpath::Tier;
    ///
    /// assert!(Tier::Avx512.rank() > Tier::Avx2.rank());
    /// assert_eq!(Tier::Sse2.rank(), Tier::Neon.rank());
    /// ```
    #[must_use]
    pub const fn rank(self) -> u8 {
        TIERS[self as usize].2
    }

    /// The width in bits of the vector registers the tier's kernels use; 0
    /// for the portable tier, which leaves that to the compiler. What the
    /// tier is, not how it ranks: see [`rank`](Tier::rank).
    ///
    /// ```
    /// use fastpath::Tier;
    ///
    /// assert_eq!(Tier::Avx2.vector_bits(), 256);
    /// assert_eq!(Tier::Sse2.vector_bits(), Tier::Neon.vector_bits());
    /// ```
    #[must_use]
    pub const fn vector_bits(self) -> u32 {
        TIERS[self as usize].3
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

/// The best tier among those `available`, ranked no higher than `cap`: the
/// last of [`Tier::ALL`] of the highest rank.
///
/// This is the whole selection policy, kept free of any detection so that it
/// can be tested on every machine.
#[cfg_attr(
    not(any(feature = "std", all(target_arch = "x86_64", target_feature = "sse2"))),
    allow(dead_code)
)]
pub(crate) fn select(available: impl Fn(Tier) -> bool, cap: Option<Tier>) -> Tier {
    let max_rank = cap.map_or(u8::MAX, Tier::rank);
    Tier::ALL
        .into_iter()
        .filter(|&tier| tier.rank() <= max_rank && available(tier))
        .max_by_key(|tier| tier.rank())
        .unwrap_or(Tier::Portable)
}

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

    /// For every set of available tiers and every cap, the choice is
    /// available, ranks no higher than the cap, and no available tier
    /// within the cap ranks higher.
    #[test]
    fn select_takes_the_highest_rank_within_the_cap() {
        for set in 0..1u32 << Tier::ALL.len() {
            let available = |t: Tier| t == Tier::Portable || set >> (t as u32) & 1 == 1;
            let caps = Tier::ALL.into_iter().map(Some).chain([None]);
            for cap in caps {
                let max_rank = cap.map_or(u8::MAX, Tier::rank);
                let chosen = select(available, cap);
                assert!(available(chosen), "{set:#b} {cap:?}");
                assert!(chosen.rank() <= max_rank, "{set:#b} {cap:?}");
                assert!(
                    Tier::ALL
                        .into_iter()
                        .filter(|&t| available(t) && t.rank() <= max_rank)
                        .all(|t| t.rank() <= chosen.rank()),
                    "{set:#b} {cap:?}"
                );
            }
        }
    }
}
