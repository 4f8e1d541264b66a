//! `fastpath bench --check`: the rows where a fastpath entry point is slower
//! than the code it replaces, beyond noise.
//!
//! Each entry point (the `Dispatch` implementations) is compared on every
//! row with the baseline its primitive names first (`compare_with`), or
//! with the fastest baseline where it names none: the checksum against the
//! fastest other implementation, the copy-and-checksum against a copy then a
//! checksum, the copy against `copy_from_slice`, the fills against
//! `slice::fill`. A row below [`FLOOR`] is measured again, alone with its
//! primitive's implementations; only a row that fails twice is reported.

use std::io::{self, Write};

use crate::results::{Alignment, Case, Kind, PrimitiveResults};

/// The lowest ratio (baseline's time ÷ fastpath's) that passes: the noise of
/// this kind of measurement, 3%.
pub const FLOOR: f64 = 0.97;

/// A row where an entry point is slower than its baseline.
pub struct Failure {
    pub primitive: &'static str,
    pub implementation: String,
    pub baseline: String,
    pub case: Case,
    /// The baseline's time ÷ the entry point's.
    pub ratio: f64,
}

/// The rows of `results` where an entry point runs below [`FLOOR`] times its
/// baseline's speed.
pub fn failures(results: &PrimitiveResults) -> Vec<Failure> {
    let named = results
        .compare_with
        .first()
        .and_then(|name| results.implementations.iter().position(|(n, _)| n == name));
    let baselines: Vec<usize> = (0..results.implementations.len())
        .filter(|&i| results.implementations[i].1 == Kind::Baseline)
        .collect();
    let mut failures = Vec::new();
    for (case, estimates) in results.cases.iter().zip(&results.estimates) {
        let baseline = named.or_else(|| {
            baselines.iter().copied().min_by(|&a, &b| {
                estimates[a]
                    .ticks_per_block
                    .total_cmp(&estimates[b].ticks_per_block)
            })
        });
        let Some(baseline) = baseline else { continue };
        for (i, (name, kind)) in results.implementations.iter().enumerate() {
            if *kind != Kind::Dispatch {
                continue;
            }
            let ratio = estimates[baseline].ticks_per_block / estimates[i].ticks_per_block;
            if ratio < FLOOR {
                failures.push(Failure {
                    primitive: results.primitive,
                    implementation: name.clone(),
                    baseline: results.implementations[baseline].0.clone(),
                    case: *case,
                    ratio,
                });
            }
        }
    }
    failures
}

/// Prints the verdict: every failure, or that there is none.
pub fn report(out: &mut impl Write, failures: &[Failure]) -> io::Result<()> {
    writeln!(out)?;
    if failures.is_empty() {
        writeln!(
            out,
            "bench --check: every fastpath entry point ran at least {FLOOR}× its baseline's speed \
             on every row"
        )?;
        return Ok(());
    }
    writeln!(
        out,
        "bench --check: {} rows where a fastpath entry point ran below {FLOOR}× its baseline's \
         speed, twice:",
        failures.len()
    )?;
    for failure in failures {
        let row = match failure.case.alignment {
            Alignment::Random(_) => failure.case.size_label(),
            alignment => format!("{} {}", alignment.label(), failure.case.size),
        };
        writeln!(
            out,
            "  {}: {}, {row}: {:.2}× {}",
            failure.primitive, failure.implementation, failure.ratio, failure.baseline,
        )?;
    }
    Ok(())
}
