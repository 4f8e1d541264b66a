//! `fastpath info`: what the library sees on this machine and what it chose.

use std::io::{self, Write};

use anyhow::Result;
use fastpath::Tier;

use crate::cpu;

#[derive(clap::Args)]
pub struct Args {
    /// Print only the names of the tiers this CPU runs, one a line, in
    /// fastpath's order of preference (the lowest first), whatever
    /// FASTPATH_TIER says: for scripts that run something once per tier.
    #[arg(long)]
    tiers: bool,
}

pub fn run(args: &Args) -> Result<()> {
    let mut out = io::stdout().lock();
    if args.tiers {
        for tier in Tier::ALL.into_iter().filter(|tier| tier.is_available()) {
            writeln!(out, "{tier}")?;
        }
        return Ok(());
    }
    writeln!(
        out,
        "fastpath {} on {}",
        env!("CARGO_PKG_VERSION"),
        std::env::consts::ARCH
    )?;
    writeln!(out, "CPU: {}", cpu::model())?;

    writeln!(out, "\nCPU features:")?;
    let features = cpu::features();
    if features.is_empty() {
        writeln!(out, "  (none that fastpath uses on this architecture)")?;
    }
    for (name, present) in features {
        writeln!(out, "  {name:<12}{}", yes_no(present))?;
    }

    writeln!(out, "\nTiers:")?;
    for tier in Tier::ALL {
        let width = match tier.vector_bits() {
            0 => "compiler-vectorized".to_owned(),
            bits => format!("{bits}-bit{}", kernel_note(tier)),
        };
        writeln!(
            out,
            "  {:<10}available: {:<5}({width})",
            tier.name(),
            yes_no(tier.is_available())
        )?;
    }

    let caches = fastpath::caches();
    writeln!(
        out,
        "\nCaches ({}):",
        if caches.detected {
            "read from the CPU"
        } else {
            "assumed: the CPU did not report them"
        }
    )?;
    writeln!(
        out,
        "  L1d {} KiB, L2 {} KiB, last level {} KiB shared by {} threads",
        caches.l1d >> 10,
        caches.l2 >> 10,
        caches.last_level >> 10,
        caches.last_level_threads
    )?;
    writeln!(
        out,
        "  fill_nontemporal: non-temporal stores from {} KiB (the size of the last level)",
        caches.nontemporal_threshold() >> 10
    )?;

    writeln!(out, "\nFASTPATH_TIER: {}", tier_override())?;

    // Every primitive dispatches through the same tier selection.
    writeln!(out, "\nActive tier: {}", fastpath::active_tier())?;
    Ok(())
}

/// The kernel table a tier runs, where its name says more than the tier's
/// (the AVX-512 tier with VNNI).
fn kernel_note(tier: Tier) -> String {
    match fastpath::arch::kernels(tier) {
        Some(kernels) if kernels.name() != tier.name() => format!("; kernels {}", kernels.name()),
        _ => String::new(),
    }
}

fn yes_no(yes: bool) -> &'static str {
    if yes { "yes" } else { "no" }
}

/// The value of `FASTPATH_TIER` and what the library makes of it. The
/// library itself reports an invalid value on stderr when it first reads it.
fn tier_override() -> String {
    match std::env::var_os("FASTPATH_TIER") {
        None => "not set (the best available tier is chosen)".to_owned(),
        Some(value) if value.to_str().is_some_and(|v| v.trim().is_empty()) => {
            format!("{value:?} (empty: as if not set, the best available tier is chosen)")
        }
        Some(value) => match value.to_str().map(str::parse::<Tier>) {
            Some(Ok(tier)) => format!("{value:?} (no tier ranked above {tier} is chosen)"),
            Some(Err(err)) => format!("{value:?} (ignored: {err})"),
            None => format!("{value:?} (ignored: not UTF-8)"),
        },
    }
}
