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
        last_level: 4 << 20,
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
        // At least 64 KiB, whatever a CPU reports (glibc's floor is 16 KiB).
        if self.last_level < MIN_NONTEMPORAL_THRESHOLD {
            MIN_NONTEMPORAL_THRESHOLD
        } else {
            self.last_level
        }
    }
}

/// The caches of this CPU: see [`Caches`]. Read once, then cached.
///
/// ```
/// assert_eq!(fastpath::caches(), fastpath::caches());
/// ```
#[must_use]
pub fn caches() -> Caches {
    imp::caches()
}

/// The lowest non-temporal threshold of any CPU: shorter fills never store
/// non-temporally, and `fill_nontemporal`'s kernel fills them as `fill`
/// does without reading the threshold.
pub(crate) const MIN_NONTEMPORAL_THRESHOLD: usize = 64 << 10;

/// The non-temporal threshold once [`nontemporal_threshold`] has computed
/// it; 0 until then.
#[cfg(feature = "std")]
static THRESHOLD: core::sync::atomic::AtomicUsize = core::sync::atomic::AtomicUsize::new(0);

/// [`Caches::nontemporal_threshold`] of [`caches`], computed at the first
/// call: a load and a comparison after it.
#[cfg(feature = "std")]
#[inline]
pub(crate) fn nontemporal_threshold() -> usize {
    match THRESHOLD.load(core::sync::atomic::Ordering::Relaxed) {
        0 => compute_nontemporal_threshold(),
        threshold => threshold,
    }
}

/// Computes the threshold of [`nontemporal_threshold`] and keeps it.
#[cfg(feature = "std")]
#[cold]
#[inline(never)]
fn compute_nontemporal_threshold() -> usize {
    let threshold = caches().nontemporal_threshold().max(1);
    THRESHOLD.store(threshold, core::sync::atomic::Ordering::Relaxed);
    threshold
}

/// [`Caches::ASSUMED`]' non-temporal threshold, the one of builds without
/// `std`.
#[cfg(not(feature = "std"))]
#[inline(always)]
pub(crate) const fn nontemporal_threshold() -> usize {
    Caches::ASSUMED.nontemporal_threshold()
}

#[cfg(all(feature = "std", target_arch = "x86_64", target_feature = "sse2"))]
mod imp {
    use std::sync::OnceLock;

    use super::Caches;

    /// The caches, found at the first call.
    pub(super) fn caches() -> Caches {
        static CACHES: OnceLock<Caches> = OnceLock::new();
        *CACHES.get_or_init(|| detect().unwrap_or(Caches::ASSUMED))
    }

    /// The caches as CPUID describes them (leaf 4 on Intel, 0x8000001D on
    /// AMD, which have the same layout), or `None` where it does not.
    // CPUID is a safe intrinsic since Rust 1.87; `unsafe` for the crate's
    // older supported versions.
    #[allow(unused_unsafe)]
    fn detect() -> Option<Caches> {
        use core::arch::x86_64::__cpuid_count;

        let leaf = if crate::arch::x86_64::is_amd() {
            0x8000_001d
        } else {
            4
        };
        // SAFETY: CPUID exists on every x86_64 CPU; the highest leaf of the
        // range is checked first.
        let max = unsafe { __cpuid_count(leaf & 0x8000_0000, 0) }.eax;
        if max < leaf {
            return None;
        }
        let mut caches = Caches {
            l1d: 0,
            l2: 0,
            last_level: 0,
            last_level_threads: 1,
            detected: true,
        };
        for index in 0..16 {
            // SAFETY: as above, for a leaf the CPU has.
            let r = unsafe { __cpuid_count(leaf, index) };
            let kind = r.eax & 0x1f;
            if kind == 0 {
                break;
            }
            // Instruction caches (2) do not hold the data stored.
            if kind == 2 {
                continue;
            }
            let level = (r.eax >> 5) & 0x7;
            let threads = ((r.eax >> 14) & 0xfff) as usize + 1;
            let ways = (r.ebx >> 22) as usize + 1;
            let partitions = ((r.ebx >> 12) & 0x3ff) as usize + 1;
            let line = (r.ebx & 0xfff) as usize + 1;
            let sets = r.ecx as usize + 1;
            let size = ways * partitions * line * sets;
            match level {
                1 => caches.l1d = size,
                2 => caches.l2 = size,
                _ => {}
            }
            if level >= 2 && size >= caches.last_level {
                caches.last_level = size;
                caches.last_level_threads = threads;
            }
        }
        (caches.last_level > 0).then_some(caches)
    }
}

#[cfg(not(all(feature = "std", target_arch = "x86_64", target_feature = "sse2")))]
mod imp {
    use super::Caches;

    pub(super) fn caches() -> Caches {
        Caches::ASSUMED
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The threshold is computed once, and is that of the caches found.
    #[test]
    fn threshold() {
        let threshold = nontemporal_threshold();
        assert_eq!(threshold, caches().nontemporal_threshold().max(1));
        assert_eq!(nontemporal_threshold(), threshold);
    }
}
