//! What the kernels know of the caches: the length from which
//! `fill_nontemporal`'s kernel stores non-temporally, from the last-level
//! size the architecture reads (`x86_64::cache`, with `std`) or the one
//! assumed. The public view of the caches, and the reasons for the
//! threshold, are `crate::cache`'s, which builds on this.

/// The last-level cache assumed where none was read: 4 MiB, the share of
/// one thread of a common server CPU.
pub(crate) const ASSUMED_LAST_LEVEL: usize = 4 << 20;

/// The lowest non-temporal threshold of any CPU: shorter fills never store
/// non-temporally, and `fill_nontemporal`'s kernel fills them as `fill`
/// does without reading the threshold.
pub(crate) const MIN_NONTEMPORAL_THRESHOLD: usize = 64 << 10;

/// The non-temporal threshold of a last-level cache of `last_level` bytes:
/// its size, at least [`MIN_NONTEMPORAL_THRESHOLD`], whatever a CPU reports
/// (glibc's floor is 16 KiB).
pub(crate) const fn nontemporal_threshold_of(last_level: usize) -> usize {
    if last_level < MIN_NONTEMPORAL_THRESHOLD {
        MIN_NONTEMPORAL_THRESHOLD
    } else {
        last_level
    }
}

/// The non-temporal threshold once [`nontemporal_threshold`] has computed
/// it; 0 until then.
#[cfg(feature = "std")]
static THRESHOLD: core::sync::atomic::AtomicUsize = core::sync::atomic::AtomicUsize::new(0);

/// The non-temporal threshold of this CPU's last-level cache, computed at
/// the first call: a load and a comparison after it.
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
    let threshold = nontemporal_threshold_of(last_level()).max(1);
    THRESHOLD.store(threshold, core::sync::atomic::Ordering::Relaxed);
    threshold
}

/// The size of this CPU's last-level cache: read from CPUID on x86_64,
/// assumed elsewhere.
#[cfg(feature = "std")]
fn last_level() -> usize {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        super::x86_64::cache::detected().map_or(ASSUMED_LAST_LEVEL, |levels| levels.last_level)
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    {
        ASSUMED_LAST_LEVEL
    }
}

/// The assumed last level's non-temporal threshold, the one of builds
/// without `std`.
#[cfg(not(feature = "std"))]
#[inline(always)]
pub(crate) const fn nontemporal_threshold() -> usize {
    nontemporal_threshold_of(ASSUMED_LAST_LEVEL)
}
