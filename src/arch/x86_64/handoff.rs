//! Where, with `std`, [`crate::copy()`] keeps its own kernel for copies
//! past its first hand-off length (2 KiB) rather than call the C library's
//! `memcpy`: chosen once, at selection, from the tier and CPUID (vendor,
//! family, model), never by timing. The rules, and the measurements behind
//! them (BENCHMARKS.md, "The hand-off to the C library"; an Intel Xeon of
//! the Sapphire/Emerald Rapids class, ERMS and FSRM, glibc 2.36):
//!
//! - **The AVX-512 tier**: to 16 KiB, where its kernel ran at 1.00-1.43×
//!   `copy_from_slice`'s speed, and at 0.93-0.97× from 32 KiB to 1 MiB.
//! - **The other tiers**: to 2 KiB. With AVX-512 masked off (glibc's AVX2
//!   `memcpy`, `rep movsb` from 4 KiB), the AVX2 kernel ran at
//!   1.00-1.08× at 1500-2048 bytes and at 0.76-0.90× at 4-16 KiB.
//! - **AMD Zen 3** (family 0x19, models 0x00-0x0f and 0x20-0x5f), to a
//!   destination that is not 64-byte aligned: to 256 KiB. glibc 2.36's
//!   `memcpy` moves those with `rep movsb`, which Zen 3 ran up to 25×
//!   slower than the own kernel (vector loads, aligned stores) when the
//!   destination was misaligned (an AMD EPYC Zen 3, AVX2). Zen 4 showed no
//!   such cliff (an AMD EPYC Zen 4 in BENCHMARKS.md's runs).

use crate::Tier;

/// The longest copy to a misaligned destination that the rule keeps for
/// the own kernel on AMD Zen 3: the end of the cliff measured (it starts at
/// 4 KiB).
pub(crate) const ZEN3_OWN_COPY_TO: usize = 256 << 10;

/// The longest copy that keeps the own kernel with `tier` on this CPU: for
/// every destination, and for one off a 64-byte boundary.
pub(crate) fn own_copy_to(tier: Tier) -> (usize, usize) {
    let to = if tier == Tier::Avx512 {
        16 << 10
    } else {
        2 << 10
    };
    let misaligned = if is_zen3() { ZEN3_OWN_COPY_TO } else { to };
    (to, misaligned.max(to))
}

/// Whether the CPU is an AMD Zen 3 (or Zen 3+): family 0x19 with a model
/// of Milan and Vermeer (0x00-0x0f, 0x20-0x2f), Rembrandt (0x40-0x4f) or
/// Cezanne (0x50-0x5f); Zen 4's are 0x10-0x1f, 0x60-0x7f and 0xa0-0xaf.
fn is_zen3() -> bool {
    if !super::is_amd() {
        return false;
    }
    // CPUID is a safe intrinsic since Rust 1.87; `unsafe` for the crate's
    // older supported versions.
    #[allow(unused_unsafe)]
    // SAFETY: CPUID exists on every x86_64 CPU.
    let eax = unsafe { core::arch::x86_64::__cpuid(1) }.eax;
    let (family, model) = family_model(eax);
    family == 0x19 && matches!(model, 0x00..=0x0f | 0x20..=0x5f)
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
}
