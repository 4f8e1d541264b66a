//! The data caches as CPUID describes them: leaf 4 on Intel, leaf
//! 0x8000001D on AMD (the two have the same layout), read once with `std`.
//! The public view of them is [`crate::caches()`]; the kernels read the
//! non-temporal threshold that `arch::cache` derives from them.

use std::sync::OnceLock;

/// The sizes of the data caches of one core, in bytes, and how many
/// hardware threads share the last level, as CPUID reports them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Levels {
    /// The level 1 data cache.
    pub(crate) l1d: usize,
    /// The level 2 cache.
    pub(crate) l2: usize,
    /// The last-level cache (L3, or L2 where there is none).
    pub(crate) last_level: usize,
    /// How many hardware threads share the last-level cache.
    pub(crate) last_level_threads: usize,
}

/// The caches of this CPU, read at the first call, or `None` where CPUID
/// does not describe them.
pub(crate) fn detected() -> Option<Levels> {
    static LEVELS: OnceLock<Option<Levels>> = OnceLock::new();
    *LEVELS.get_or_init(read)
}

/// The caches as CPUID describes them, or `None` where it does not.
// CPUID is a safe intrinsic since Rust 1.87; `unsafe` for the crate's
// older supported versions.
#[allow(unused_unsafe)]
fn read() -> Option<Levels> {
    use core::arch::x86_64::__cpuid_count;

    let leaf = if super::detect::is_amd() {
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
    let mut levels = Levels {
        l1d: 0,
        l2: 0,
        last_level: 0,
        last_level_threads: 1,
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
            1 => levels.l1d = size,
            2 => levels.l2 = size,
            _ => {}
        }
        if level >= 2 && size >= levels.last_level {
            levels.last_level = size;
            levels.last_level_threads = threads;
        }
    }
    (levels.last_level > 0).then_some(levels)
}
