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
//! - **AMD family 0x19 (Zen 3, Zen 4)**, to a destination that is not
//!   64-byte aligned: below the size of L2. glibc 2.36's `memcpy` moves
//!   such copies with `rep movsb` from about 2 KiB up to the L2 size (its
//!   `rep_movsb_stop_threshold` on AMD), and these CPUs run `rep movsb` to
//!   a misaligned destination 14-25× slower than the own kernel (vector
//!   loads, aligned stores): measured at 4 KiB-256 KiB on an AMD EPYC Zen 3
//!   and at 4 KiB-512 KiB on an AMD EPYC Zen 4 (1 MiB of L2), where at
//!   1 MiB and beyond, past the `rep movsb` range, `memcpy` is the faster
//!   (the kernel at 0.83-0.91×).

use crate::Tier;

/// The longest copy that keeps the own kernel with `tier` on this CPU: for
/// every destination, and for one off a 64-byte boundary.
pub(crate) fn own_copy_to(tier: Tier) -> (usize, usize) {
    let to = if tier == Tier::Avx512 {
        16 << 10
    } else {
        2 << 10
    };
    let misaligned = if has_rep_movsb_cliff() {
        // Below the L2 size: glibc's `memcpy` takes `rep movsb` for
        // lengths below it, and a vector loop from it.
        crate::caches().l2.saturating_sub(1)
    } else {
        to
    };
    (to, misaligned.max(to))
}

/// Whether the CPU runs `rep movsb` to a destination off a 64-byte
/// boundary many times slower than vector stores: AMD's family 0x19, the
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
    fn the_cliff_rule_keeps_misaligned_copies_below_the_l2_size() {
        for tier in [Tier::Sse2, Tier::Avx2, Tier::Avx512] {
            let (to, misaligned) = own_copy_to(tier);
            if has_rep_movsb_cliff() {
                assert_eq!(misaligned, (crate::caches().l2 - 1).max(to), "{tier:?}");
            } else {
                assert_eq!(misaligned, to, "{tier:?}");
            }
        }
    }
}
