//! Where, with `std`, [`crate::copy()`] keeps its own kernel for lengths it
//! otherwise hands to the C library's `memcpy` (those over 16 KiB): chosen
//! once, at selection, from CPUID (vendor, family, model), never by
//! timing.
//!
//! One rule, and the measurement behind it (BENCHMARKS.md, "The hand-off
//! to the C library"): on **AMD Zen 3** (family 0x19, models 0x00-0x0f and
//! 0x20-0x5f), copies of up to 256 KiB to a destination that is not
//! 64-byte aligned. glibc 2.36's `memcpy` moves those with `rep movsb`,
//! which Zen 3 ran up to 25× slower than the own kernel (vector loads,
//! aligned stores) when the destination was misaligned (an AMD EPYC Zen 3,
//! AVX2). Zen 4 showed no such cliff (an AMD EPYC Zen 4 in BENCHMARKS.md's
//! runs), nor the Intel Xeon of the Sapphire/Emerald Rapids class where
//! `memcpy` ran as fast as the own kernel or faster from 1500 bytes on.

/// The longest copy to a misaligned destination that the rule keeps for
/// the own kernel on the CPUs it names: the end of the cliff measured
/// (it starts at 4 KiB, below the lengths `copy` hands off).
pub(crate) const ZEN3_OWN_COPY_TO: usize = 256 << 10;

/// Whether this CPU's rule keeps copies of up to [`ZEN3_OWN_COPY_TO`]
/// bytes to a misaligned destination for the own kernel.
pub(crate) fn keeps_own_copy() -> bool {
    is_zen3()
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
