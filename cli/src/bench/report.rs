//! The bench's output: the header, DPDK-style tables, the summary against
//! the fastest baseline, and JSON lines; with each implementation's
//! efficiency against the bound, where there is one.

use std::io::{self, Write};

use super::bound::Bound;
use super::harness::{MEASURE_BUDGET, MIN_REPS, SAMPLE_TIME};
use super::placement::{PAD, PLACEMENTS};
use super::timer::Timer;
use crate::cpu;
use crate::results::{Alignment, Estimate, Kind, PrimitiveResults};

/// The lines before the measurements: the machine, the active tier, the
/// timer, how the implementations are called and measured, and the bound;
/// `reps` is `--reps`.
pub fn header(out: &mut impl Write, timer: &Timer, reps: Option<u32>) -> io::Result<()> {
    writeln!(
        out,
        "fastpath bench: perf autotest (after DPDK's cksum_perf_autotest)"
    )?;
    writeln!(
        out,
        "CPU:          {} ({})",
        cpu::model(),
        std::env::consts::ARCH
    )?;
    writeln!(out, "Active tier:  {}", fastpath::active_tier())?;
    if let Ok(value) = std::env::var("FASTPATH_TIER") {
        writeln!(out, "FASTPATH_TIER={value}")?;
    }
    writeln!(out, "Timer:        {}", timer.describe())?;
    writeln!(
        out,
        "Method:       median over rounds; a round takes one ~{} µs sample of every \
         implementation on every row, in an order shuffled every round",
        SAMPLE_TIME.as_micros()
    )?;
    writeln!(
        out,
        "Calls:        every implementation through a function pointer, as DPDK's \
         autotest calls through a noinline wrapper: the same call overhead for all \
         (fill: tiers only; fastpath::fill is inlined and glibc's memset called, as \
         applications call them)"
    )?;
    match reps {
        Some(reps) => writeln!(out, "Rounds:       {reps} (--reps)")?,
        None => writeln!(
            out,
            "Rounds:       as many as fit in {} s (at least {MIN_REPS})",
            MEASURE_BUDGET.as_secs()
        )?,
    }
    writeln!(
        out,
        "Placements:   every timing loop in {PLACEMENTS} copies, each {PAD} bytes further into \
         the code than the one before; the rounds take them in turn, so a median is over \
         the loop's placements, not one"
    )?;
    writeln!(
        out,
        "Blocks:       random bytes (fixed seed); Aligned = 64-byte aligned start, Unaligned = +1; \
         src+S dst+D = the source and the destination at +S and +D; Random = each call on the \
         next (offset, length) of a table from a fixed seed"
    )?;
    match Bound::active() {
        Some(bound) => writeln!(
            out,
            "Bound:        {}: a loop of unrolled vector loads (checksum), stores (fill) or \
             loads and stores (copy, memcpy) of the same blocks, in assembly; \
             Efficiency = the bound's time ÷ the implementation's",
            bound.describe()
        ),
        None => writeln!(out, "Bound:        none on this architecture"),
    }
}

/// One table per implementation, in the format of DPDK's
/// `cksum_perf_autotest`.
pub fn tables(out: &mut impl Write, results: &PrimitiveResults, timer: &Timer) -> io::Result<()> {
    let unit = timer.unit();
    let per_block = format!("{unit}/block");
    let per_byte = format!("{unit}/byte");
    if let Some(estimate) = results.estimates.first().and_then(|row| row.first()) {
        writeln!(
            out,
            "{}: median of {} rounds per row\n",
            results.primitive, estimate.reps
        )?;
    }
    for (index, (name, kind)) in results.implementations.iter().enumerate() {
        let suffix = match kind {
            Kind::Baseline => " (baseline)",
            Kind::Bound => " (bound)",
            Kind::Tier | Kind::Dispatch => "",
        };
        writeln!(out, "{}: {name}{suffix}", results.primitive)?;
        // The bound's own table has no efficiency: 100% by definition.
        let efficient = results.bound().is_some_and(|bound| bound != index);
        let mut headers = vec!["Alignment", "Block size", &per_block, &per_byte];
        if efficient {
            headers.push("Efficiency");
        }
        let rows: Vec<Vec<String>> = results
            .cases
            .iter()
            .zip(&results.estimates)
            .map(|(case, estimates)| {
                let ticks = estimates[index].ticks_per_block;
                let mut row = vec![
                    case.alignment.label(),
                    case.size.to_string(),
                    format!("{ticks:.1}"),
                    format!("{:.3}", ticks / case.mean_size()),
                ];
                row.extend(results.efficiency(estimates, index).map(percent));
                row
            })
            .collect();
        table(out, &headers, &rows)?;
        writeln!(out)?;
    }
    Ok(())
}

/// Per block size (unaligned blocks): the fastest baseline, and how many
/// times faster than it each tier and the dispatching entry point are, with
/// the entry point's efficiency.
pub fn summary(out: &mut impl Write, results: &PrimitiveResults, timer: &Timer) -> io::Result<()> {
    let baselines: Vec<usize> = indices(results, |kind| kind == Kind::Baseline);
    let ours: Vec<usize> = indices(results, |kind| matches!(kind, Kind::Tier | Kind::Dispatch));
    if baselines.is_empty() || ours.is_empty() {
        return Ok(());
    }
    if results.compare_with.is_empty() {
        return summary_against(
            out,
            results,
            timer,
            &ours,
            "fastest baseline",
            |estimates| {
                baselines
                    .iter()
                    .copied()
                    .min_by(|&a, &b| {
                        estimates[a]
                            .ticks_per_block
                            .total_cmp(&estimates[b].ticks_per_block)
                    })
                    .expect("at least one baseline")
            },
        );
    }
    for (k, name) in results.compare_with.iter().enumerate() {
        let Some(index) = results.implementations.iter().position(|(n, _)| n == name) else {
            continue;
        };
        if k > 0 {
            writeln!(out)?;
        }
        summary_against(out, results, timer, &ours, name, |_| index)?;
    }
    Ok(())
}

/// The summary table of `ours` against the baseline that `pick` chooses for
/// each row (from the row's estimates).
fn summary_against(
    out: &mut impl Write,
    results: &PrimitiveResults,
    timer: &Timer,
    ours: &[usize],
    label: &str,
    pick: impl Fn(&[Estimate]) -> usize,
) -> io::Result<()> {
    writeln!(
        out,
        "{} summary, unaligned and random rows: × {label}\n  \
         = the {label}'s {}/block ÷ the implementation's (above 1: fastpath is faster)",
        results.primitive,
        timer.unit()
    )?;
    if results.bound().is_some() {
        writeln!(
            out,
            "  (n%) = the entry point's efficiency: the bound's {}/block ÷ its own",
            timer.unit()
        )?;
    }
    let mut headers = vec![
        "Block size".to_owned(),
        if results.compare_with.is_empty() {
            "Fastest baseline"
        } else {
            "Baseline"
        }
        .to_owned(),
        format!("{}/block", timer.unit()),
    ];
    headers.extend(ours.iter().map(|&i| results.implementations[i].0.clone()));
    let rows: Vec<Vec<String>> = results
        .cases
        .iter()
        .zip(&results.estimates)
        .filter(|(case, _)| case.alignment != Alignment::Aligned)
        .map(|(case, estimates)| {
            let baseline = pick(estimates);
            let best = estimates[baseline].ticks_per_block;
            let mut row = vec![
                case.size_label(),
                results.implementations[baseline].0.clone(),
                format!("{best:.1}"),
            ];
            row.extend(ours.iter().map(|&i| {
                let ratio = format!("{:.2}×", best / estimates[i].ticks_per_block);
                match results.efficiency(estimates, i) {
                    Some(efficiency) if results.implementations[i].1 == Kind::Dispatch => {
                        format!("{ratio} ({})", percent(efficiency))
                    }
                    _ => ratio,
                }
            }));
            row
        })
        .collect();
    let headers: Vec<&str> = headers.iter().map(String::as_str).collect();
    table(out, &headers, &rows)
}

/// An efficiency as a whole percentage: `0.874` is `87%`.
fn percent(efficiency: f64) -> String {
    format!("{:.0}%", 100.0 * efficiency)
}

fn indices(results: &PrimitiveResults, keep: impl Fn(Kind) -> bool) -> Vec<usize> {
    (0..results.implementations.len())
        .filter(|&i| keep(results.implementations[i].1))
        .collect()
}

/// One JSON object per line per measurement; `efficiency` is null for the
/// bound itself, and without a bound. `compare_with` names the baselines
/// the summary compares with, each in a table of its own (empty: the
/// fastest baseline of each row), so that the lines alone give the summary
/// (`benchmarks/render.py import`).
pub fn json_lines(
    out: &mut impl Write,
    results: &PrimitiveResults,
    timer: &Timer,
) -> io::Result<()> {
    for (case, estimates) in results.cases.iter().zip(&results.estimates) {
        for (index, ((name, kind), estimate)) in
            results.implementations.iter().zip(estimates).enumerate()
        {
            let line = serde_json::json!({
                "primitive": results.primitive,
                "impl": name,
                "kind": kind.as_str(),
                "alignment": case.alignment.json_name(),
                "size": case.size,
                "cycles_per_block": estimate.ticks_per_block,
                "cycles_per_byte": estimate.ticks_per_block / case.mean_size(),
                "reps": estimate.reps,
                "unit": timer.json_unit(),
                "efficiency": results.efficiency(estimates, index),
                "compare_with": results.compare_with,
            });
            writeln!(out, "{line}")?;
        }
    }
    Ok(())
}

/// Left-aligned columns, two spaces apart, as DPDK prints them.
fn table(out: &mut impl Write, headers: &[&str], rows: &[Vec<String>]) -> io::Result<()> {
    let width = |column: usize| {
        rows.iter()
            .map(|row| row[column].chars().count())
            .chain([headers[column].chars().count()])
            .max()
            .unwrap_or(0)
    };
    let widths: Vec<usize> = (0..headers.len()).map(width).collect();
    let mut line = |cells: &mut dyn Iterator<Item = &str>| -> io::Result<()> {
        let mut text = String::new();
        for (cell, width) in cells.zip(&widths) {
            text.push_str(cell);
            let pad = width.saturating_sub(cell.chars().count()) + 2;
            text.extend(std::iter::repeat_n(' ', pad));
        }
        writeln!(out, "{}", text.trim_end())
    };
    line(&mut headers.iter().copied())?;
    for row in rows {
        line(&mut row.iter().map(String::as_str))?;
    }
    Ok(())
}
