//! `fastpath bench`: the perf autotest, after DPDK's `cksum_perf_autotest`.
//!
//! For every primitive, every implementation (each tier the CPU has, the
//! library's dispatching entry point, and baselines from other projects) is
//! timed on the same blocks: each block size, at each of the primitive's
//! placements (its start 64-byte aligned and at +1 from a 64-byte boundary;
//! for the plain copy, the source and the destination at offsets of their
//! own).
//! So is the active tier's bound ([`bound`]), a loop that only moves the
//! bytes, against which every implementation's efficiency is stated.
//!
//! How a primitive is measured:
//! 1. Every implementation's result on the exact block of every row is
//!    checked against the reference first; a wrong one aborts the bench.
//! 2. Each (row, implementation) is calibrated: the iteration count that
//!    makes one sample last about [`SAMPLE_TIME`].
//! 3. Warm-up rounds, then the measured rounds: in each round every
//!    implementation takes one sample on every row, in an order shuffled
//!    each round, so that noise from this shared machine, and the state one
//!    sample leaves for the next, hit them all alike,
//!    and from the next copy of its timing loop ([`placement`]), so that no
//!    result depends on where one loop landed in the code.
//! 4. Each result is the median over the rounds of ticks per call.
//!
//! Without `--reps`, rounds go on until a time budget is spent, so that the
//! whole command takes about a minute however many implementations there are.
//!
//! A primitive is a [`Primitive`] in [`PRIMITIVES`]; its implementations are
//! type-erased [`Kernel`](primitive::Kernel)s, each running its own
//! monomorphic timing loop, so that primitives with other signatures (copy,
//! fill) fit the same harness.
//!
//! The modules: [`args`], the command line; [`primitive`], what is measured;
//! [`blocks`], the data the calls work on; [`bound`], the hardware's bound;
//! [`harness`], the timing; [`placement`], the copies of the timing loops; [`report`], the output; and one module per
//! primitive.

mod args;
mod baselines;
mod blocks;
mod bound;
mod check;
mod checksum;
mod copy;
mod fill;
mod harness;
mod memcpy;
mod opaque;
mod placement;
mod primitive;
mod report;
mod timer;

use std::fs::File;
use std::io::{self, Write};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result, bail};

use crate::plot;
use crate::results::{Alignment, Case, Lengths, PrimitiveResults};
pub use args::Args;
use harness::{MEASURE_BUDGET, SAMPLE_TIME, Settings};
use primitive::Primitive;
use timer::Timer;

/// Every primitive the bench knows, in the order `fastpath bench` runs them.
const PRIMITIVES: &[Primitive] = &[
    checksum::PRIMITIVE,
    copy::PRIMITIVE,
    memcpy::PRIMITIVE,
    fill::PRIMITIVE,
    fill::OUTSIDE,
];

/// The primitives also measured on rows of random lengths at random offsets
/// (without `--sizes`), by name: how the lengths are drawn and the largest.
const RANDOM_ROWS: &[(&str, &[(Lengths, usize)])] = &[
    (memcpy::PRIMITIVE.name, memcpy::RANDOM_ROWS),
    (fill::PRIMITIVE.name, fill::RANDOM_ROWS),
    (fill::OUTSIDE.name, fill::OUTSIDE_RANDOM_ROWS),
];

/// DPDK's `cksum_perf_autotest` sizes: headers, an Ethernet MTU, a jumbo
/// frame and a 64 KiB TSO/GRO super-packet, each even and odd.
pub const DPDK_SIZES: &[usize] = &[20, 21, 100, 101, 1500, 1501, 9000, 9001, 65536, 65537];

/// Measures the primitives that `args` selects and prints the results;
/// with `--check`, the exit status says whether every entry point kept up
/// with its baseline.
pub fn run(args: &Args) -> Result<ExitCode> {
    if let Some(rows) = &args.rows {
        return measure_rows(rows, args.reps);
    }
    let started = Instant::now();
    let primitives: Vec<&Primitive> = PRIMITIVES
        .iter()
        .filter(|p| {
            args.primitive
                .as_deref()
                .is_none_or(|name| name == p.command)
        })
        .collect();
    let cases_of = |primitive: &Primitive| -> Result<Vec<Case>> {
        let sizes = if args.sizes.is_empty() {
            primitive.default_sizes
        } else {
            &args.sizes[..]
        };
        if let Some(size) = sizes.iter().find(|&&size| size > primitive.max_size) {
            bail!(
                "{}: block sizes must be at most {} bytes (got {size}), where its baselines \
                 stop being exact",
                primitive.name,
                primitive.max_size
            );
        }
        let random = RANDOM_ROWS
            .iter()
            .filter(|(name, _)| *name == primitive.name && args.sizes.is_empty())
            .flat_map(|(_, rows)| rows.iter())
            .map(|&(lengths, size)| Case {
                alignment: Alignment::Random(lengths),
                size,
            });
        Ok(sizes
            .iter()
            .flat_map(|&size| {
                primitive
                    .alignments
                    .iter()
                    .map(move |&alignment| Case { alignment, size })
            })
            .chain(random)
            .collect())
    };
    for primitive in &primitives {
        cases_of(primitive)?;
    }
    if let Some(path) = &args.plot {
        // Fail now rather than after a minute of measuring.
        File::create(path)
            .with_context(|| format!("cannot write the plot to {}", path.display()))?;
    }

    // The tables go to stdout; with --json, stdout holds only JSON lines and
    // the human-readable lines go to stderr.
    let mut out = io::stdout().lock();
    let mut notes: Box<dyn Write> = if args.json {
        Box::new(io::stderr())
    } else {
        Box::new(io::stdout())
    };

    let timer = Timer::new();
    let settings = Settings {
        reps: args.reps,
        budget: MEASURE_BUDGET / primitives.len() as u32,
        sample_ticks: timer.ticks(SAMPLE_TIME),
    };
    report::header(&mut notes, &timer, args.reps)?;
    notes.flush()?;

    harness::warm_up();
    let mut all_results = Vec::new();
    for &primitive in &primitives {
        let results =
            harness::measure_primitive(primitive, &cases_of(primitive)?, &timer, &settings)?;
        if args.json {
            report::json_lines(&mut out, &results, &timer)?;
        } else {
            writeln!(out)?;
            report::tables(&mut out, &results, &timer)?;
            report::summary(&mut out, &results, &timer)?;
        }
        out.flush()?;
        all_results.push(results);
    }
    let failures = if args.check {
        recheck(&primitives, &all_results, &timer, &settings)?
    } else {
        Vec::new()
    };

    if let Some(path) = &args.plot {
        plot::write_svg(path, &all_results, timer.unit())?;
        writeln!(notes, "\nPlot written to {}", path.display())?;
    }
    if args.check {
        check::report(&mut notes, &failures)?;
    }
    writeln!(
        notes,
        "\nfastpath bench took {:.1} s",
        started.elapsed().as_secs_f64()
    )?;
    Ok(if failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The rows where an entry point is slower than its baseline in
/// `results`, each measured again, up to [`check::MEASUREMENTS`] times in
/// all, with its primitive's implementations: those below the floor every
/// time. The measurements again come after every primitive's, a minute or
/// more after the first, so that a spell of load from the machine's other
/// tenants, which slows some implementations more than others, does not
/// decide them all.
fn recheck(
    primitives: &[&Primitive],
    results: &[PrimitiveResults],
    timer: &Timer,
    settings: &Settings,
) -> Result<Vec<check::Failure>> {
    let mut failures: Vec<check::Failure> = results.iter().flat_map(check::failures).collect();
    let settings = Settings {
        budget: settings.budget.min(check::REMEASURE_BUDGET),
        ..*settings
    };
    for _ in 1..check::MEASUREMENTS {
        let mut still = Vec::new();
        for primitive in primitives {
            let mut cases: Vec<Case> = failures
                .iter()
                .filter(|f| f.primitive == primitive.name)
                .map(|f| f.case)
                .collect();
            cases.dedup_by(|a, b| a.size == b.size && a.alignment == b.alignment);
            if cases.is_empty() {
                continue;
            }
            let again = harness::measure_primitive(primitive, &cases, timer, &settings)?;
            still.extend(check::failures(&again).into_iter().filter_map(|mut f| {
                let before = failures.iter().find(|b| b.same_row(&f))?;
                f.ratios.splice(0..0, before.ratios.iter().copied());
                Some(f)
            }));
        }
        failures = still;
        if failures.is_empty() {
            break;
        }
    }
    for stack_move in check::STACK_MOVES {
        if failures.is_empty() {
            break;
        }
        failures = in_a_fresh_process(failures, settings.reps, stack_move)?;
    }
    Ok(failures)
}

/// The failures that fail again when their rows are measured in a process
/// of their own, started with its address space not randomized (as
/// `setarch -R` starts one) and its stack `stack_move` bytes lower (by an
/// environment variable of that size, which the process does not read):
/// where the code, the stack and the heap land moves short rows by up to
/// 10%, so a verdict that holds there too is one on the code, not on one
/// layout. Each keeps the new measurement's ratio last.
fn in_a_fresh_process(
    failures: Vec<check::Failure>,
    reps: Option<u32>,
    stack_move: usize,
) -> Result<Vec<check::Failure>> {
    let rows: Vec<String> = failures
        .iter()
        .map(|f| {
            let index = PRIMITIVES
                .iter()
                .position(|p| p.name == f.primitive)
                .unwrap_or(0);
            format!("{index}:{}:{}", f.case.alignment.json_name(), f.case.size)
        })
        .collect();
    let mut command = std::process::Command::new(std::env::current_exe()?);
    command.args(["bench", "--rows", &rows.join(";")]);
    if let Some(reps) = reps {
        command.args(["--reps", &reps.to_string()]);
    }
    if stack_move > 0 {
        // `NAME=` and the terminating NUL take the rest.
        let padding = stack_move.saturating_sub(check::STACK_MOVE_VARIABLE.len() + 2);
        command.env(check::STACK_MOVE_VARIABLE, "x".repeat(padding));
    }
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        // SAFETY: `personality` only sets a flag of the process about to
        // exec, and allocates nothing; a failure leaves the address space
        // randomized, and the rows are measured all the same.
        unsafe {
            command.pre_exec(|| {
                libc::personality(libc::ADDR_NO_RANDOMIZE as libc::c_ulong);
                Ok(())
            });
        }
    }
    let output = command
        .stderr(std::process::Stdio::inherit())
        .output()
        .context("measuring the failing rows again in a process of their own")?;
    if !output.status.success() {
        bail!(
            "the measurement in a process of its own failed ({})",
            output.status
        );
    }
    let again = String::from_utf8_lossy(&output.stdout);
    Ok(failures
        .into_iter()
        .filter_map(|mut failure| {
            let index = PRIMITIVES
                .iter()
                .position(|p| p.name == failure.primitive)?;
            let row = format!(
                "{index}\t{}\t{}\t{}\t",
                failure.implementation,
                failure.case.alignment.json_name(),
                failure.case.size
            );
            let ratio: f64 = again
                .lines()
                .find_map(|line| line.strip_prefix(&row)?.parse().ok())?;
            failure.ratios.push(ratio);
            (ratio < check::FLOOR).then_some(failure)
        })
        .collect())
}

/// `fastpath bench --rows ROWS`: measures only the rows `ROWS` names
/// (`INDEX:ALIGNMENT:SIZE`, `;` between them: a primitive's index in
/// [`PRIMITIVES`], the alignment's JSON name and the block size), and
/// prints one line per entry point and row, its speed × its baseline's:
/// `INDEX\tIMPLEMENTATION\tALIGNMENT\tSIZE\tRATIO`.
fn measure_rows(rows: &str, reps: Option<u32>) -> Result<ExitCode> {
    let mut cases: Vec<Vec<Case>> = vec![Vec::new(); PRIMITIVES.len()];
    for row in rows.split(';').filter(|row| !row.is_empty()) {
        let mut fields = row.split(':');
        let (Some(index), Some(alignment), Some(size), None) =
            (fields.next(), fields.next(), fields.next(), fields.next())
        else {
            bail!("--rows: `{row}` is not INDEX:ALIGNMENT:SIZE");
        };
        let index: usize = index.parse().context("--rows: the primitive's index")?;
        let size: usize = size.parse().context("--rows: the block size")?;
        let primitive = PRIMITIVES.get(index).context("--rows: no such primitive")?;
        let random =
            [Lengths::Uniform, Lengths::LogUniform, Lengths::Window].map(Alignment::Random);
        let alignment = primitive
            .alignments
            .iter()
            .chain(&random)
            .find(|a| a.json_name() == alignment)
            .with_context(|| format!("--rows: no alignment `{alignment}` in {}", primitive.name))?;
        cases[index].push(Case {
            alignment: *alignment,
            size,
        });
    }
    let timer = Timer::new();
    let settings = Settings {
        reps,
        budget: check::REMEASURE_BUDGET,
        sample_ticks: timer.ticks(SAMPLE_TIME),
    };
    harness::warm_up();
    let mut out = io::stdout().lock();
    for (index, cases) in cases.iter().enumerate() {
        if cases.is_empty() {
            continue;
        }
        let results = harness::measure_primitive(&PRIMITIVES[index], cases, &timer, &settings)?;
        for row in check::below(&results, f64::INFINITY) {
            let ratio = row.ratios.last().copied().unwrap_or(0.0);
            writeln!(
                out,
                "{index}\t{}\t{}\t{}\t{ratio}",
                row.implementation,
                row.case.alignment.json_name(),
                row.case.size
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
