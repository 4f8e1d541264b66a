//! Helpers shared by the integration tests: deterministic data, the kernels
//! of every tier this machine runs, and buffers fenced by guard pages.

#![allow(dead_code)]

use std::mem::MaybeUninit;

use fastpath::Tier;
use fastpath::arch::Kernels;

/// Deterministic pseudo-random bytes (xorshift64*), so failures reproduce.
pub fn random_bytes(len: usize, seed: u64) -> Vec<u8> {
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..len)
        .map(|_| {
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            (state.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 56) as u8
        })
        .collect()
}

/// The tiers the tests construct directly: all of them, or, if
/// `FASTPATH_TIER` is set, those ranked no higher than the cap it sets on
/// the dispatch. A run under a tool that cannot execute the wider instructions
/// (valgrind: no AVX-512) then never reaches them, not even through the
/// directly constructed tiers. Whether this CPU runs a tier is still checked
/// by whoever constructs it.
pub fn tiers() -> impl Iterator<Item = Tier> {
    let cap = std::env::var("FASTPATH_TIER")
        .ok()
        .and_then(|value| value.parse::<Tier>().ok())
        .map_or(u8::MAX, Tier::rank);
    Tier::ALL.into_iter().filter(move |tier| tier.rank() <= cap)
}

/// The kernel tables this machine runs whose tiers [`tiers`] allows: every
/// table of every tier, so on a CPU with AVX512-VNNI both AVX-512 tables.
pub fn variants() -> impl Iterator<Item = &'static Kernels> {
    fastpath::arch::variants().filter(|kernels| tiers().any(|tier| tier == kernels.tier()))
}

/// A folded-sum kernel.
pub type SumKernel = &'static dyn Fn(&[u8]) -> u16;

/// The checksum kernel (folded sum) of every table of [`variants`], named,
/// plus the public entry point.
pub fn sum_kernels() -> Vec<(String, SumKernel)> {
    let mut kernels: Vec<(String, SumKernel)> = variants()
        .map(|kernels| -> (String, SumKernel) {
            (
                kernels.name().to_string(),
                Box::leak(Box::new(|data: &[u8]| kernels.sum(data))),
            )
        })
        .collect();
    kernels.push((name(None), &|data| !fastpath::checksum(data)));
    kernels
}

/// A copy-and-checksum kernel: copies and returns the folded sum.
pub type CopyKernel = &'static dyn Fn(&mut [MaybeUninit<u8>], &[u8]) -> u16;

/// The copy-and-checksum kernel of every table of [`variants`], named,
/// plus the public entry point (`fastpath::copy_checksum_uninit`).
pub fn copy_kernels() -> Vec<(String, CopyKernel)> {
    let mut kernels: Vec<(String, CopyKernel)> = variants()
        .map(|kernels| -> (String, CopyKernel) {
            let kernel =
                |dst: &mut [MaybeUninit<u8>], src: &[u8]| kernels.copy_sum_uninit(dst, src);
            (kernels.name().to_string(), Box::leak(Box::new(kernel)))
        })
        .collect();
    kernels.push((name(None), &|dst, src| {
        !fastpath::copy_checksum_uninit(dst, src).1
    }));
    kernels
}

pub fn name(tier: Option<Tier>) -> String {
    match tier {
        Some(tier) => tier.to_string(),
        None => format!("fastpath::checksum (dispatch: {})", fastpath::active_tier()),
    }
}

/// Three pages, the first and the last inaccessible: data placed at the end
/// of the middle page is right before a guard page, and data placed at its
/// start is right after one.
#[cfg(unix)]
pub struct GuardedPage {
    base: *mut u8,
    page: usize,
}

#[cfg(unix)]
impl GuardedPage {
    pub fn new() -> GuardedPage {
        // SAFETY: plain libc calls; the results are checked.
        unsafe {
            let page = libc::sysconf(libc::_SC_PAGESIZE) as usize;
            let base = libc::mmap(
                core::ptr::null_mut(),
                3 * page,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            );
            assert_ne!(base, libc::MAP_FAILED, "mmap failed");
            let base = base.cast::<u8>();
            assert_eq!(libc::mprotect(base.cast(), page, libc::PROT_NONE), 0);
            assert_eq!(
                libc::mprotect(base.add(2 * page).cast(), page, libc::PROT_NONE),
                0
            );
            GuardedPage { base, page }
        }
    }

    /// The accessible page.
    pub fn page_mut(&mut self) -> &mut [u8] {
        // SAFETY: the middle page is mapped read-write and owned by `self`.
        unsafe { core::slice::from_raw_parts_mut(self.base.add(self.page), self.page) }
    }

    /// `len` bytes of the accessible page ending `gap` bytes before the guard
    /// page that follows it.
    pub fn before_guard(&mut self, len: usize, gap: usize) -> &mut [u8] {
        let page = self.page;
        &mut self.page_mut()[page - gap - len..page - gap]
    }

    /// `len` bytes of the accessible page starting `gap` bytes after the guard
    /// page that precedes it.
    pub fn after_guard(&mut self, len: usize, gap: usize) -> &mut [u8] {
        &mut self.page_mut()[gap..gap + len]
    }

    /// [`after_guard`](Self::after_guard) if `after`, otherwise
    /// [`before_guard`](Self::before_guard).
    pub fn next_to_guard(&mut self, after: bool, len: usize, gap: usize) -> &mut [u8] {
        if after {
            self.after_guard(len, gap)
        } else {
            self.before_guard(len, gap)
        }
    }
}

#[cfg(unix)]
impl Drop for GuardedPage {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the mapping made in `new`.
        unsafe {
            libc::munmap(self.base.cast(), 3 * self.page);
        }
    }
}
