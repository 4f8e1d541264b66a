//! Where, with `std`, [`crate::copy()`] keeps its own kernel for copies
//! past its first hand-off length (2 KiB) rather than call the C library's
//! `memcpy`: chosen once, at selection, from the tier and CPUID (vendor,
//! family, L2 size), never by timing. The rules, and the measurements
//! behind them (BENCHMARKS.md, "The hand-off to the C library" for the
//! Intel Xeon, "Copy: glibc's `rep movsb` cliff on AMD" for Zen 3 and
//! Zen 4; glibc 2.36):
//!
//! - **The AVX-512 tier**: to 16 KiB, where its kernel ran at 1.00-1.43×
//!   `copy_from_slice`'s speed on an Intel Xeon of the Sapphire/Emerald
//!   Rapids class (ERMS, FSRM) and at 1.10-1.39× at 4-16 KiB on an AMD
//!   EPYC Zen 4, and at 0.93-0.97× from 32 KiB to 1 MiB (Intel).
//! - **The other tiers**: to 2 KiB. With AVX-512 masked off (glibc's AVX2
//!   `memcpy`, `rep movsb` from 4 KiB), the AVX2 kernel ran at
//!   1.00-1.08× at 1500-2048 bytes and at 0.76-0.90× at 4-16 KiB (Intel).
//! - **AMD family 0x19 (Zen 3, Zen 4)**, where the destination is 1-63
//!   bytes past the source modulo the 4 KiB page (a packet copied from one
//!   buffer to another at the same offset plus a header's 14 bytes, say):
//!   below the size of L2. glibc 2.36's `memcpy` moves copies from about
//!   2 KiB up to the L2 size (its `rep_movsb_stop_threshold` on AMD) with
//!   `rep movsb`, which these CPUs run 14-30× slower than the own kernel
//!   when the destination is 1-15 bytes past the source in the page, and
//!   2.2-2.5× slower at 16-31 bytes (measured at 4 KiB-256 KiB on an AMD
//!   EPYC Zen 3, with the source and destination at the start of a page
//!   and the destination at +1 and +14; at 4 KiB-512 KiB on an AMD EPYC
//!   Zen 4 with 1 MiB of L2, every distance of 0-40 bytes measured: 32 and
//!   beyond, and a misaligned destination elsewhere in the page, are at
//!   full speed). At 1 MiB and beyond, past the `rep movsb` range,
//!   `memcpy` is the faster (the kernel at 0.83-0.91×). glibc's own rule
//!   for Intel CPUs, which it applies to a distance of 1-63 bytes modulo
//!   4 GiB, is the same idea.

use crate::Tier;

/// The most bytes a destination lies past its source, modulo the page,
/// for the rule of the CPUs whose `rep movsb` is slow there.
pub(crate) const SHORT_DISTANCE: usize = 63;

/// Whether `dst` is 1 to [`SHORT_DISTANCE`] bytes past `src` modulo 4 KiB.
#[inline]
pub(crate) fn is_short_distance(dst: *const u8, src: *const u8) -> bool {
    let distance = dst.addr().wrapping_sub(src.addr()) % 4096;
    (1..=SHORT_DISTANCE).contains(&distance)
}

/// The longest copy that keeps the own kernel with `tier` on this CPU: for
/// every destination, and for one [`SHORT_DISTANCE`] bytes or less past its
/// source in the page.
pub(crate) fn own_copy_to(tier: Tier) -> (usize, usize) {
    let to = if tier == Tier::Avx512 {
        16 << 10
    } else {
        2 << 10
    };
    let near = if has_rep_movsb_cliff() {
        // Below the L2 size: glibc's `memcpy` takes `rep movsb` for
        // lengths below it, and a vector loop from it.
        crate::caches().l2.saturating_sub(1)
    } else {
        to
    };
    (to, near.max(to))
}

/// Whether the CPU runs `rep movsb` many times slower than vector moves
/// where the destination is a few bytes past the source in the page: AMD's family 0x19, the
/// Zen 3 (models 0x00-0x0f, 0x20-0x5f) and Zen 4 (0x10-0x1f, 0x60-0x7f,
/// 0xa0-0xaf) cores, both measured. Zen 5 (family 0x1a) has not been.
fn has_rep_movsb_cliff() -> bool {
    if !super::is_amd() {
        return false;
    }
    // CPUID is a safe intrinsic since Rust 1.87; `unsafe` for the crate's
    // older supported versions.
    #[allow(unused_unsafe)]
    // SAFETY: CPUID exists on every x86_64 CPU.
    let eax = unsafe { core::arch::x86_64::__cpuid(1) }.eax;
    family_model(eax).0 == 0x19
}

/// The family and model of CPUID leaf 1's EAX, with their extended fields
/// added as the vendors' manuals say.
fn family_model(eax: u32) -> (u32, u32) {
    let base_family = (eax >> 8) & 0xf;
    let base_model = (eax >> 4) & 0xf;
    let family = if base_family == 0xf {
        base_family + ((eax >> 20) & 0xff)
    } else {
        base_family
    };
    let model = if base_family == 0xf || base_family == 0x6 {
        (((eax >> 16) & 0xf) << 4) | base_model
    } else {
        base_model
    };
    (family, model)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn family_and_model_as_cpuid_gives_them() {
        // AMD EPYC 7763 (Milan, Zen 3): family 0x19, model 0x01.
        assert_eq!(family_model(0x00a0_0f11), (0x19, 0x01));
        // AMD EPYC 9654 (Genoa, Zen 4): family 0x19, model 0x11.
        assert_eq!(family_model(0x00a1_0f11), (0x19, 0x11));
        // Intel Xeon (Sapphire Rapids): family 6, model 0x8f.
        assert_eq!(family_model(0x0008_06f8), (0x6, 0x8f));
    }

    #[test]
    fn the_cliff_rule_keeps_near_copies_below_the_l2_size() {
        for tier in [Tier::Sse2, Tier::Avx2, Tier::Avx512] {
            let (to, near) = own_copy_to(tier);
            if has_rep_movsb_cliff() {
                assert_eq!(near, (crate::caches().l2 - 1).max(to), "{tier:?}");
            } else {
                assert_eq!(near, to, "{tier:?}");
            }
        }
    }

    #[test]
    fn a_short_distance_is_1_to_63_bytes_modulo_the_page() {
        let base = 0x10_0000 as *const u8;
        let at = |offset: usize| base.wrapping_add(offset);
        for (src, dst, short) in [
            (0, 0, false),
            (0, 1, true),
            (0, 14, true),
            (0, 63, true),
            (0, 64, false),
            (1, 0, false),
            (100, 114, true),
            (0, 4096 + 14, true),
            (0, 4096, false),
            (4095, 4096 + 13, true),
        ] {
            assert_eq!(is_short_distance(at(dst), at(src)), short, "{src} {dst}");
        }
    }
}
