//! Where, with `std`, [`crate::copy()`] keeps its own kernel for copies
//! longer than eight vectors rather than call the C library's `memcpy`
//! (`arch::generic::copy::copy_beyond_short`): chosen once, at
//! selection, from the tier and CPUID (vendor, family, L2 size), never by
//! timing. The rules, and the measurements
//! behind them (glibc 2.36; BENCHMARKS.md, "Per CPU"):
//!
//! - **The AVX-512 tier**: to 16 KiB, where its kernel ran at 1.00-1.43×
//!   `copy_from_slice`'s speed on an Intel Xeon of the Sapphire/Emerald
//!   Rapids class (ERMS, FSRM), and at 0.93-0.97× from 32 KiB to 1 MiB.
//! - **The other tiers**: to 2 KiB. With AVX-512 masked off (glibc's AVX2
//!   `memcpy`, `rep movsb` from 4 KiB), the AVX2 kernel ran at
//!   1.00-1.08× at 1500-2048 bytes and at 0.76-0.90× at 4-16 KiB on that
//!   Intel Xeon.
//! - **AMD family 0x19 (Zen 3, Zen 4), every tier**: below the size of L2.
//!   From about 2 KiB up to the L2 size (its `rep_movsb_stop_threshold` on
//!   AMD), glibc 2.36's `memcpy` copies with `rep movsb`, which these CPUs
//!   run slower than the own kernels' vector loops: on an AMD EPYC Zen 4
//!   (1 MiB of L2), called as applications call, the AVX-512 kernel ran at
//!   1.01-1.36× `copy_from_slice` at 4-512 KiB and the AVX2 kernel (with
//!   glibc's AVX2 `memcpy`) at 1.02-1.19×; and where the destination lies
//!   1-15 bytes past the source modulo the 4 KiB page (a packet copied
//!   between two buffers at the same offset plus a header's 14 bytes),
//!   `rep movsb` is 15-40× slower than the kernels (2.2-2.5× at 16-31
//!   bytes), measured there and, with such buffers, on an AMD EPYC Zen 3
//!   at 4-256 KiB. At 1 MiB and beyond, past the `rep movsb` range,
//!   `memcpy` is as fast or faster (the kernel at 0.83-1.00×).
//! - **AMD Zen 5** (family 0x1a), every tier: to 16 KiB. glibc 2.36's
//!   `memcpy` copies with `rep movsb` from 2112 bytes (its
//!   `rep_movsb_threshold` with FSRM) to the L2 size; on an AMD EPYC Zen 5,
//!   called through the dispatch's pointer, the AVX-512 kernel ran 4-16 KiB
//!   at 1.16-1.85× `copy_from_slice`, and with AVX-512 masked off the AVX2
//!   kernel at 1.07-1.44× where `memcpy` behind it ran at 1.00×; at
//!   64-256 KiB the kernels ran at 0.71-1.03× `rep movsb`. Below 2112
//!   bytes `memcpy` runs a vector loop like the kernels'; behind the
//!   kernel's tests it was no faster there (1500-2048 bytes off the line
//!   0.74-0.98× against 0.76-1.02× with AVX-512) and slowed random
//!   lengths up to 1500 bytes (0.95-1.00× against 1.03-1.09×)
//!   (BENCHMARKS.md, AMD EPYC Zen 5, "Copies on Zen 5"). With no load
//!   before the AVX-512 kernel's loop below 2 KiB (the kernel the dispatch
//!   caches, `arch::memcpy::route`, and `arch::memcpy::OWN_COPY_MIN`) and
//!   the copies with the destination just past the source run backwards, the
//!   kernels ran all those rows at 1.00-1.09× (AVX2-only 0.98-1.07×;
//!   "Copies on Zen 5: no load before the loop, and backwards"). Zen 5
//!   runs `rep movsb` with the destination just past the source as fast as
//!   other copies: no cliff as on Zen 3 and Zen 4.
//!
//! And where [`crate::fill()`] keeps its own kernels past its inline
//! lengths (128 bytes) rather than call `memset`, at every length and with
//! every tier, both measured called as applications call (BENCHMARKS.md,
//! "Per CPU"):
//!
//! - **AMD Zen 5**: through the fills' dispatch pointer, the kernels ran
//!   256-byte fills at 1.29-1.53× `slice::fill` (AVX2-only: 1.03-1.31×),
//!   512-2048 bytes at 1.00-1.04× (1.00-1.15×) and 4-8 KiB at 1.67-1.81×,
//!   where glibc's `memset` takes `rep stosb`; `memset` below 1 KiB, the
//!   rule of the CPUs without one, ran 256-512-byte fills at 0.79-0.97×
//!   (0.80-1.02×), both call styles, two runs (BENCHMARKS.md, AMD EPYC
//!   Zen 5, "Fills on Zen 5: the own kernels").
//! - **AMD Zen 4**: the kernels ran at 1.00-1.07× `slice::fill` from 129
//!   bytes to 1 MiB, and `memset` behind the inline paths at 0.73-0.91× at
//!   129-1024 bytes (0.94-1.10× called directly from the call site, in
//!   both regimes: no faster than the kernels; Zen 4, "Fills handed to
//!   `memset`").
//! - **AMD Zen 3**: through the dispatch's one function pointer, the AVX2
//!   kernel ran 256-2048-byte fills at 0.93-1.28× `slice::fill`, and
//!   4-8 KiB at 1.25-1.94×, where glibc's AVX2 `memset` takes `rep stosb`
//!   (past 2 KiB); `memset` called from the call site up to 2 KiB ran
//!   256-byte fills at 0.73-0.98× (AMD EPYC Zen 3, "Fills on Zen 3: the
//!   own kernels").
//! - **Intel Emerald Rapids** (family 6, model 0xcf): behind the inline
//!   paths, `memset` ran 129-256-byte fills at 0.55-0.63× and random
//!   lengths up to 1024 bytes at 0.80-0.86× in the outside crate, where
//!   the kernels ran at 1.00-1.14× and 0.93-1.00×; in `fastpath bench`
//!   the hand-off flagged 39 rows of 256 bytes and more, at 0.61-0.97×
//!   (Intel Xeon Emerald Rapids, "Fills: the own kernels, not `memset`").
//!
//! On Emerald Rapids the kernels also fill with `rep stosb` from 32 KiB,
//! not 1 MiB ([`rep_stosb_from`]): with AVX-512 masked off, the AVX2
//! loop ran 64-256 KiB at 0.97-0.98× glibc's AVX2 `memset` (which takes
//! `rep stosb` from 2 KiB), and random log-uniform lengths up to 64 KiB at
//! 0.77-0.95×; at 8-32 KiB, inside the 48 KiB L1, at 0.99-1.05×.
//!
//! Elsewhere fills below 1 KiB go to `memset` ([`memset_below`]), through
//! the fills' dispatch pointer, which caches the kernel itself on the CPUs
//! above (`fill::route`): on the Intel Xeon measured before (reported as
//! model 0xa7), the own kernels ran at 0.67-0.88× at 129-512 bytes and
//! `memset` at 0.87-0.91×; nothing has been measured elsewhere.

use crate::Tier;

/// The longest copy that keeps the own kernel with `tier` on this CPU,
/// whose L2 cache holds `l2` bytes.
pub(crate) fn own_copy_to(tier: Tier, l2: usize) -> usize {
    let to = if tier == Tier::Avx512 {
        16 << 10
    } else {
        2 << 10
    };
    if prefers_vectors_to_rep_movsb() {
        // Below the L2 size: glibc's `memcpy` takes `rep movsb` for
        // lengths below it, and a vector loop from it.
        return l2.saturating_sub(1).max(to);
    }
    if is_zen_5(&super::Signature::read()) {
        // Every tier: glibc's `memcpy` takes `rep movsb` from 2112 bytes,
        // behind the kernels up to 16 KiB.
        return 16 << 10;
    }
    to
}

/// The length below which fills past the inline lengths go to the C
/// library's `memset`, and from which they keep the own kernels: 0 (the
/// kernels at every length) on AMD's Zen 3, Zen 4 and Zen 5 and Intel's
/// Emerald Rapids, 1 KiB elsewhere. See the module docs for the
/// measurements.
pub(crate) fn memset_below() -> usize {
    let cpu = super::Signature::read();
    let zen_3_or_4 =
        super::is_amd() && (is_zen_3(cpu.family, cpu.model) || is_zen_4(cpu.family, cpu.model));
    if zen_3_or_4 || is_zen_5(&cpu) || is_emerald_rapids(&cpu) {
        0
    } else {
        1 << 10
    }
}

/// The length from which the x86_64 fill kernels store with `rep stosb`:
/// 32 KiB on Intel's Emerald Rapids, past which its `rep stosb` is ahead
/// of the vector loops (see the module docs), and elsewhere the kernels'
/// default, 1 MiB.
pub(crate) fn rep_stosb_from() -> usize {
    if is_emerald_rapids(&super::Signature::read()) {
        return 32 << 10;
    }
    crate::arch::generic::fill::REP_STOSB_MIN
}

/// Whether a CPU is Intel's Emerald Rapids (5th generation Xeon
/// Scalable): family 6, model 0xcf.
fn is_emerald_rapids(cpu: &super::Signature) -> bool {
    &cpu.vendor == b"GenuineIntel" && cpu.family == 0x6 && cpu.model == 0xcf
}

/// Whether a family and model are one of AMD's Zen 3 cores.
fn is_zen_3(family: u32, model: u32) -> bool {
    family == 0x19 && matches!(model, 0x00..=0x0f | 0x20..=0x5f)
}

/// Whether a family and model are one of AMD's Zen 4 cores.
fn is_zen_4(family: u32, model: u32) -> bool {
    family == 0x19 && matches!(model, 0x10..=0x1f | 0x60..=0x7f | 0xa0..=0xaf)
}

/// Whether a CPU is one of AMD's Zen 5 cores: family 0x1a, models
/// 0x00-0x2f, 0x40-0x4f and 0x60-0x7f, as Linux lists them (model 0x02,
/// Turin, measured).
fn is_zen_5(cpu: &super::Signature) -> bool {
    &cpu.vendor == b"AuthenticAMD"
        && cpu.family == 0x1a
        && matches!(cpu.model, 0x00..=0x2f | 0x40..=0x4f | 0x60..=0x7f)
}

/// Whether the CPU runs glibc's `rep movsb` copies slower than vector
/// loops up to the L2 size: AMD's family 0x19, the Zen 3 (models
/// 0x00-0x0f, 0x20-0x5f) and Zen 4 (0x10-0x1f, 0x60-0x7f, 0xa0-0xaf)
/// cores, both measured. Zen 5 runs them faster from 64 KiB
/// ([`is_zen_5`]).
fn prefers_vectors_to_rep_movsb() -> bool {
    super::is_amd() && super::Signature::read().family == 0x19
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_go_to_memset_below_the_length_of_the_cpus_rule() {
        // Genoa, Raphael, Bergamo: Zen 4; Milan, Vermeer, Rembrandt: Zen 3.
        for (family, model) in [(0x19, 0x11), (0x19, 0x61), (0x19, 0xa0)] {
            assert!(is_zen_4(family, model), "{family:#x} {model:#x}");
            assert!(!is_zen_3(family, model), "{family:#x} {model:#x}");
        }
        for (family, model) in [(0x19, 0x01), (0x19, 0x21), (0x19, 0x44)] {
            assert!(is_zen_3(family, model), "{family:#x} {model:#x}");
            assert!(!is_zen_4(family, model), "{family:#x} {model:#x}");
        }
        for (family, model) in [(0x17, 0x31), (0x1a, 0x02), (0x6, 0x8f)] {
            assert!(!is_zen_3(family, model) && !is_zen_4(family, model));
        }
        let amd = |family, model| super::super::Signature {
            vendor: *b"AuthenticAMD",
            family,
            model,
            stepping: 1,
        };
        // Turin, Turin dense, Strix Point, Granite Ridge: Zen 5.
        for model in [0x02, 0x11, 0x24, 0x44] {
            assert!(is_zen_5(&amd(0x1a, model)), "{model:#x}");
        }
        for (family, model) in [(0x19, 0x11), (0x1a, 0x50), (0x1a, 0x80)] {
            assert!(!is_zen_5(&amd(family, model)), "{family:#x} {model:#x}");
        }
        let intel = |model| super::super::Signature {
            vendor: *b"GenuineIntel",
            family: 0x6,
            model,
            stepping: 2,
        };
        assert!(is_emerald_rapids(&intel(0xcf)));
        // Sapphire Rapids, Ice Lake-SP, Rocket Lake: not measured.
        for model in [0x8f, 0x6a, 0xa7] {
            assert!(!is_emerald_rapids(&intel(model)), "{model:#x}");
        }
        let cpu = super::super::Signature::read();
        let amd = super::super::is_amd();
        let zen_3_or_4 =
            amd && (is_zen_3(cpu.family, cpu.model) || is_zen_4(cpu.family, cpu.model));
        let expected = if zen_3_or_4 || is_zen_5(&cpu) || is_emerald_rapids(&cpu) {
            0
        } else {
            1024
        };
        assert_eq!(memset_below(), expected);
        assert_eq!(
            rep_stosb_from(),
            if is_emerald_rapids(&cpu) {
                32 << 10
            } else {
                1 << 20
            }
        );
    }

    #[test]
    fn amd_zen_3_and_4_keep_the_kernel_below_the_l2_size() {
        let zen_5 = is_zen_5(&super::super::Signature::read());
        for tier in [Tier::Sse2, Tier::Avx2, Tier::Avx512] {
            let to = own_copy_to(tier, 1 << 20);
            if prefers_vectors_to_rep_movsb() {
                assert_eq!(to, (1 << 20) - 1, "{tier:?}");
            } else if zen_5 {
                assert_eq!(to, 16 << 10, "{tier:?}");
            } else {
                assert_eq!(
                    to,
                    if tier == Tier::Avx512 {
                        16 << 10
                    } else {
                        2 << 10
                    }
                );
            }
        }
    }
}
