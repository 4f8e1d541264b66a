//! `fastpath bench --check`: the rows where a fastpath entry point is slower
//! than the code it replaces, beyond noise.
//!
//! Each entry point (the `Dispatch` implementations) is compared on every
//! row with the baseline its primitive names first (`compare_with`), or
//! with the fastest baseline where it names none: the checksum against the
//! fastest other implementation, the copy-and-checksum against a copy then a
//! checksum, the copy against `copy_from_slice`, the fills against
//! `slice::fill`. A row below [`FLOOR`] is measured again, alone with its
//! primitive's implementations, after every primitive was measured, up to
//! [`MEASUREMENTS`] times in all, then in processes of its own with the
//! address space not randomized, the stack at two places
//! ([`STACK_MOVES`], `bench::in_a_fresh_process`); only a row below it
//! every time is reported, with its ratio in each measurement.

use std::io::{self, Write};

use crate::results::{Alignment, Case, Kind, PrimitiveResults};

/// The lowest ratio (baseline's time ÷ fastpath's) that passes: the noise of
/// this kind of measurement, 3%.
pub const FLOOR: f64 = 0.97;

/// How many times, at most, a row is measured before it is reported: once
/// with every row, then alone, until it passes. The noise of a shared
/// machine comes in spells that can last a minute and slow one
/// implementation more than another (on the Zen 4 VM, a 100-byte
/// `fastpath::copy` took 4.9 cycles and glibc's `memcpy` 5.6 in quiet
/// spells, 7.7-9.7 and 6.3-6.6 in busy ones, in the same build), so a row
/// is reported only if it fails in every one.
pub const MEASUREMENTS: usize = 4;

/// How far the stack is moved down in each process of its own that
/// measures the failing rows again, in bytes: a row is reported only if it
/// fails at both places. Where a short row's loop keeps a value on the
/// stack, the slot it reloads from can share the page offset of the
/// destination, and the load then waits for the store before it (4K
/// aliasing): a slow row in every measurement of one process, and a
/// different one in the next, as the stack moved. With the address space
/// not randomized, one place of the stack would give the same verdict
/// every time; at a second place, half a page and a line away, that slot
/// no longer aliases. (AMD Zen 5: 64-byte fills of a loop that reloaded
/// the fill's byte from the stack ran at 1.09-1.85× glibc's `memset` over
/// 256 places of the stack; BENCHMARKS.md, Zen 5, "Short fills: the stack
/// and the destination".)
pub const STACK_MOVES: [usize; 2] = [0, 2048 + 64];

/// The environment variable that moves the stack of a process of its own
/// ([`STACK_MOVES`]); nothing reads it.
pub const STACK_MOVE_VARIABLE: &str = "FASTPATH_BENCH_STACK_MOVE";

/// The time budget of a measurement again, at most.
pub const REMEASURE_BUDGET: std::time::Duration = std::time::Duration::from_secs(6);

/// A row where an entry point is slower than its baseline.
pub struct Failure {
    pub primitive: &'static str,
    pub implementation: String,
    pub baseline: String,
    pub case: Case,
    /// The baseline's time ÷ the entry point's, in each measurement.
    pub ratios: Vec<f64>,
}

impl Failure {
    /// Whether `other` is the same entry point on the same row.
    pub fn same_row(&self, other: &Failure) -> bool {
        self.primitive == other.primitive
            && self.implementation == other.implementation
            && self.case.size == other.case.size
            && self.case.alignment == other.case.alignment
    }
}

/// The rows of `results` where an entry point runs below [`FLOOR`] times its
/// baseline's speed.
pub fn failures(results: &PrimitiveResults) -> Vec<Failure> {
    below(results, FLOOR)
}

/// The rows of `results` where an entry point runs below `floor` times its
/// baseline's speed: with an infinite floor, every entry point's row.
pub fn below(results: &PrimitiveResults, floor: f64) -> Vec<Failure> {
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
            if ratio < floor {
                failures.push(Failure {
                    primitive: results.primitive,
                    implementation: name.clone(),
                    baseline: results.implementations[baseline].0.clone(),
                    case: *case,
                    ratios: vec![ratio],
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
         speed in every measurement:",
        failures.len()
    )?;
    for failure in failures {
        let row = match failure.case.alignment {
            Alignment::Random(_) => failure.case.size_label(),
            alignment => format!("{} {}", alignment.label(), failure.case.size),
        };
        let ratios: Vec<String> = failure.ratios.iter().map(|r| format!("{r:.2}×")).collect();
        writeln!(
            out,
            "  {}: {}, {row}: {} {}",
            failure.primitive,
            failure.implementation,
            ratios.join(", "),
            failure.baseline,
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::Estimate;

    fn results(
        times: &[(&str, Kind, f64)],
        compare_with: &'static [&'static str],
    ) -> PrimitiveResults {
        PrimitiveResults {
            primitive: "fill",
            compare_with,
            implementations: times.iter().map(|&(n, k, _)| (n.to_owned(), k)).collect(),
            cases: vec![Case {
                alignment: Alignment::Unaligned { dst: 1 },
                size: 4096,
            }],
            estimates: vec![
                times
                    .iter()
                    .map(|&(_, _, ticks_per_block)| Estimate {
                        ticks_per_block,
                        reps: 9,
                    })
                    .collect(),
            ],
        }
    }

    #[test]
    fn slower_entry_points_fail_against_the_named_baseline() {
        let results = results(
            &[
                ("avx2", Kind::Tier, 500.0),
                ("fastpath::fill", Kind::Dispatch, 100.0),
                ("fastpath::fill_nontemporal", Kind::Dispatch, 104.0),
                ("faster other", Kind::Baseline, 50.0),
                ("memset", Kind::Baseline, 100.0),
            ],
            &["memset"],
        );
        let failures = failures(&results);
        // Tiers are not judged; 100 / 104 is below the floor, 100 / 100 not.
        assert_eq!(failures.len(), 1);
        assert_eq!(failures[0].implementation, "fastpath::fill_nontemporal");
        assert_eq!(failures[0].baseline, "memset");
        let mut text = Vec::new();
        report(&mut text, &failures).unwrap();
        let text = String::from_utf8(text).unwrap();
        assert!(text.contains("1 rows"), "{text}");
        assert!(
            text.contains("fill: fastpath::fill_nontemporal, Unaligned 4096: 0.96× memset"),
            "{text}"
        );
    }

    #[test]
    fn every_measurement_is_reported() {
        let results = results(
            &[
                ("fastpath::fill", Kind::Dispatch, 110.0),
                ("memset", Kind::Baseline, 100.0),
            ],
            &["memset"],
        );
        let mut failures = failures(&results);
        let again = self::failures(&results).remove(0);
        assert!(failures[0].same_row(&again));
        failures[0].ratios.push(0.95);
        let mut text = Vec::new();
        report(&mut text, &failures).unwrap();
        let text = String::from_utf8(text).unwrap();
        assert!(text.contains("in every measurement"), "{text}");
        assert!(
            text.contains("fill: fastpath::fill, Unaligned 4096: 0.91×, 0.95× memset"),
            "{text}"
        );
    }

    #[test]
    fn without_a_named_baseline_the_fastest_one_counts() {
        let results = results(
            &[
                ("fastpath", Kind::Dispatch, 100.0),
                ("slow", Kind::Baseline, 300.0),
                ("fast", Kind::Baseline, 98.0),
                // Faster than all, and no baseline.
                ("bound", Kind::Bound, 50.0),
            ],
            &[],
        );
        assert!(failures(&results).is_empty());
        let results = self::results(
            &[
                ("fastpath", Kind::Dispatch, 100.0),
                ("fast", Kind::Baseline, 90.0),
            ],
            &[],
        );
        let failures = failures(&results);
        assert_eq!(failures.len(), 1);
        assert_eq!(failures[0].baseline, "fast");
    }
}
