//! `fastpath info`: what the library sees on this machine and what it chose.

use std::io::{self, Write};

use anyhow::Result;
use fastpath::Tier;

use crate::{bench, cpu};

pub fn run() -> Result<()> {
    let mut out = io::stdout().lock();
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

    writeln!(out, "\nFASTPATH_TIER: {}", tier_override())?;

    writeln!(out, "\nActive tier by primitive:")?;
    for primitive in bench::PRIMITIVES {
        writeln!(out, "  {:<10}{}", primitive.name, (primitive.active_tier)())?;
    }
    Ok(())
}

/// Which kernels a tier runs, where it has a choice.
fn kernel_note(tier: Tier) -> &'static str {
    #[cfg(target_arch = "x86_64")]
    if tier == Tier::Avx512 && fastpath::arch::x86_64::Avx512Vnni::is_available() {
        return "; checksum and copy with VNNI";
    }
    let _ = tier;
    ""
}

fn yes_no(yes: bool) -> &'static str {
    if yes { "yes" } else { "no" }
}

/// The value of `FASTPATH_TIER` and what the library makes of it. The
/// library itself reports an invalid value on stderr when it first reads it.
fn tier_override() -> String {
    match std::env::var_os("FASTPATH_TIER") {
        None => "not set (the best available tier is chosen)".to_owned(),
        Some(value) => match value.to_str().map(str::parse::<Tier>) {
            Some(Ok(tier)) => format!("{value:?} (no tier wider than {tier} is chosen)"),
            Some(Err(err)) => format!("{value:?} (ignored: {err})"),
            None => format!("{value:?} (ignored: not UTF-8)"),
        },
    }
}
