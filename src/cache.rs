//! The caches of the CPU, as far as fastpath needs them: where non-temporal
//! stores start to pay.

/// The data caches fastpath found on this CPU, or assumed.
///
/// With `std`, on x86_64, they are read once from CPUID (leaf 4 on Intel,
/// leaf 0x8000001D on AMD: size, and how many hardware threads share each
/// level). Elsewhere, without `std`, or where the CPU does not report them,
/// they are [`Caches::ASSUMED`].
///
/// ```
/// let caches = fastpath::caches();
/// assert!(caches.last_level > 0 && caches.last_level_threads > 0);
/// println!("{} KiB of L2, {} KiB shared by {} threads", caches.l2 >> 10,
///          caches.last_level >> 10, caches.last_level_threads);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Caches {
    /// The level 1 data cache of one core, in bytes.
    pub l1d: usize,
    /// The level 2 cache of one core, in bytes.
    pub l2: usize,
    /// The last-level cache (L3, or L2 where there is none), in bytes.
    pub last_level: usize,
    /// How many hardware threads share the last-level cache.
    pub last_level_threads: usize,
    /// Whether the sizes were read from the CPU, rather than assumed.
    pub detected: bool,
}

impl Caches {
    /// The caches assumed where none were detected: 32 KiB of L1, 1 MiB of
    /// L2, and 4 MiB of a last-level cache for each thread, the share of
    /// one thread of a common server CPU.
    ///
    /// ```
    /// assert_eq!(fastpath::Caches::ASSUMED.nontemporal_threshold(), 4 << 20);
    /// ```
    pub const ASSUMED: Caches = Caches {
        l1d: 32 << 10,
        l2: 1 << 20,
        last_level: crate::arch::cache::ASSUMED_LAST_LEVEL,
        last_level_threads: 1,
        detected: false,
    };

    /// The length from which [`fill_nontemporal`](crate::fill_nontemporal)
    /// stores non-temporally: the size of the last-level cache, at least
    /// 64 KiB. A shorter buffer can stay in the caches, where ordinary
    /// stores are faster, and where the reader of the filled buffer finds
    /// it.
    ///
    /// glibc starts at 3/4 of one thread's share of the cache; on Zen 4 (32
    /// MiB of L3 shared by two threads), non-temporal stores from that
    /// share (12 MiB) ran a 16 MiB fill at 0.65× the speed of ordinary
    /// stores, and were as fast from 32 MiB on (`fastpath bench fill`,
    /// docs/experiments.md).
    ///
    /// ```
    /// let caches = fastpath::caches();
    /// assert!(caches.nontemporal_threshold() >= 64 << 10);
    /// ```
    #[must_use]
    pub const fn nontemporal_threshold(&self) -> usize {
        // At least 64 KiB, whatever a CPU reports: the kernels' rule.
        crate::arch::cache::nontemporal_threshold_of(self.last_level)
    }
}

/// The caches of this CPU: see [`Caches`]. Read once, then cached.
///
/// ```
/// assert_eq!(fastpath::caches(), fastpath::caches());
/// ```
#[must_use]
pub fn caches() -> Caches {
    #[cfg(all(feature = "std", target_arch = "x86_64", target_feature = "sse2"))]
    if let Some(levels) = crate::arch::x86_64::cache::detected() {
        return Caches {
            l1d: levels.l1d,
            l2: levels.l2,
            last_level: levels.last_level,
            last_level_threads: levels.last_level_threads,
            detected: true,
        };
    }
    Caches::ASSUMED
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The kernels' threshold is computed once, and is that of the caches
    /// found.
    #[test]
    fn threshold() {
        use crate::arch::cache::nontemporal_threshold;

        let threshold = nontemporal_threshold();
        assert_eq!(threshold, caches().nontemporal_threshold().max(1));
        assert_eq!(nontemporal_threshold(), threshold);
    }
}
