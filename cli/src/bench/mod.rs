//! `fastpath bench`: the perf autotest, after DPDK's `cksum_perf_autotest`.
//!
//! For every primitive, every implementation (each tier the CPU has, the
//! library's dispatching entry point, and baselines from other projects) is
//! timed on the same blocks: each block size, with its start 64-byte aligned
//! and at +1 from a 64-byte boundary.
//!
//! How a primitive is measured:
//! 1. Every implementation's result on the exact block of every row is
//!    checked against the reference first; a wrong one aborts the bench.
//! 2. Each (row, implementation) is calibrated: the iteration count that
//!    makes one sample last about [`SAMPLE_TIME`].
//! 3. Warm-up rounds, then the measured rounds: in each round every
//!    implementation takes one sample on every row, in an order rotated by one
//!    each round, so that noise from this shared machine hits them all alike.
//! 4. Each result is the median over the rounds of ticks per call.
//!
//! Without `--reps`, rounds go on until a time budget is spent, so that the
//! whole command takes about a minute however many implementations there are.
//!
//! A primitive is a [`Primitive`] in [`PRIMITIVES`]; its implementations are
//! type-erased [`Kernel`]s, each running its own monomorphic timing loop, so
//! that primitives with other signatures (copy, fill) fit the same harness.

mod baselines;
mod checksum;
mod copy;
mod fill;
mod opaque;
mod report;
mod timer;

use std::fs::File;
use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use clap::builder::PossibleValuesParser;
use fastpath::Tier;

use crate::{cpu, plot};
use timer::Timer;

/// Every primitive the bench knows, in the order `fastpath bench` runs them.
/// `fastpath info` lists their active tiers from here too.
pub const PRIMITIVES: &[Primitive] = &[checksum::PRIMITIVE, copy::PRIMITIVE, fill::PRIMITIVE];

/// The primitives also measured on rows of random lengths at random offsets
/// (without `--sizes`), by name: how the lengths are drawn and the largest.
const RANDOM_ROWS: &[(&str, &[(Lengths, usize)])] = &[(fill::PRIMITIVE.name, fill::RANDOM_ROWS)];

/// DPDK's `cksum_perf_autotest` sizes: headers, an Ethernet MTU, a jumbo
/// frame and a 64 KiB TSO/GRO super-packet, each even and odd.
pub const DPDK_SIZES: &[usize] = &[20, 21, 100, 101, 1500, 1501, 9000, 9001, 65536, 65537];

/// The largest block `--sizes` accepts (each primitive may accept less).
const MAX_SIZE: usize = 1 << 30;

/// How long one sample should last: long enough that reading the clock costs
/// nothing, short enough to fit between the interruptions of a busy machine
/// (which the median then discards).
const SAMPLE_TIME: Duration = Duration::from_micros(30);

/// The time the measured rounds of a whole `fastpath bench` take without
/// `--reps`, shared equally by the primitives; calibration, warm-up and
/// start-up add under a second.
const MEASURE_BUDGET: Duration = Duration::from_secs(55);

/// The fewest and the most rounds without `--reps`.
const MIN_REPS: u32 = 9;
const MAX_REPS: u32 = 100_001;

/// Unmeasured rounds before the measured ones.
const WARMUP_ROUNDS: u32 = 2;

/// How long the CPU is kept busy before the first measurement, to leave
/// any idle state and reach a steady clock.
const WARMUP_TIME: Duration = Duration::from_millis(200);

#[derive(clap::Args)]
pub struct Args {
    /// The primitive to measure; all of them if omitted.
    #[arg(value_parser = primitive_names())]
    primitive: Option<String>,

    /// Print one JSON object per line per measurement instead of tables.
    #[arg(long)]
    json: bool,

    /// Also draw cycles/byte against block size (unaligned blocks) as SVG.
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<PathBuf>,

    /// Rounds of samples (the median is reported) [default: as many as fit
    /// in a one-minute budget, at least 9].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_REPS)))]
    reps: Option<u32>,

    /// Comma-separated block sizes in bytes [default: each primitive's;
    /// checksum: 20,21,100,101,1500,1501,9000,9001,65536,65537].
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_size)]
    sizes: Vec<usize>,
}

fn primitive_names() -> PossibleValuesParser {
    PossibleValuesParser::new(PRIMITIVES.iter().map(|p| p.name))
}

fn parse_size(text: &str) -> Result<usize, String> {
    let size: usize = text
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a block size in bytes"))?;
    if size == 0 {
        return Err("block sizes must be at least 1 byte".to_owned());
    }
    if size > MAX_SIZE {
        return Err(format!("block sizes must be at most {MAX_SIZE} bytes"));
    }
    Ok(size)
}

/// A primitive of the library and how to bench it.
pub struct Primitive {
    /// Its name on the command line and in the output.
    pub name: &'static str,
    /// The tier the library runs for it.
    pub active_tier: fn() -> Tier,
    /// Every implementation to measure: the tiers available on this CPU, the
    /// library's entry point, then the baselines.
    pub implementations: fn() -> Vec<Implementation>,
    /// The block sizes measured without `--sizes`.
    pub default_sizes: &'static [usize],
    /// The largest block size the implementations handle exactly.
    pub max_size: usize,
    /// Where an Unaligned destination block starts past a 64-byte boundary
    /// (the source's is 1).
    pub unaligned_dst_offset: usize,
    /// The baselines the summary compares with, by name, each in a table of
    /// its own; empty: the fastest baseline of each row.
    pub compare_with: &'static [&'static str],
}

/// What an implementation is, for the summary and the JSON output.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// One tier's kernel, called directly.
    Tier,
    /// The library's public entry point, which dispatches to the active tier.
    Dispatch,
    /// Another project's implementation, or the reference.
    Baseline,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Tier => "tier",
            Kind::Dispatch => "dispatch",
            Kind::Baseline => "baseline",
        }
    }
}

/// One implementation of a primitive.
pub struct Implementation {
    pub name: String,
    pub kind: Kind,
    pub kernel: Box<dyn Kernel>,
}

/// The data one call works on; every implementation gets the same.
pub struct Block<'a> {
    /// The input: random bytes from a fixed seed.
    pub src: &'a [u8],
    /// An output of the same length and alignment, for primitives that write.
    #[allow(dead_code)] // for the copy and fill primitives
    pub dst: &'a mut [u8],
    /// For a row of random calls, the calls, each on its own part of `src`
    /// and `dst` (both then the whole region); empty otherwise.
    pub calls: &'a [Call],
}

/// One call of a row of random calls: `len` bytes at `offset` into the row's
/// region.
#[derive(Clone, Copy)]
pub struct Call {
    pub offset: u32,
    pub len: u32,
}

/// How the lengths of a row of random calls are drawn, up to the row's size.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Lengths {
    /// Uniformly in `0..=size`.
    Uniform,
    /// Log-uniformly in `1..=size`: as many calls of 1-10 bytes as of 10-100.
    LogUniform,
}

/// The calls of a random row start anywhere in the first this many bytes of
/// its region (a page, so random modulo 64 and across page boundaries).
const RANDOM_SPAN: usize = 4096;

/// Calls in a random row's table: more than one sample makes (about 26 000
/// of the shortest), so that no sample repeats a sequence the branch
/// predictor could learn. One table per row, from a fixed seed, for every
/// implementation.
const RANDOM_CALLS: usize = 1 << 16;

/// The table of a random row: offsets uniform in `0..RANDOM_SPAN`, lengths
/// drawn as `lengths` says up to `size`, so every call fits in a region of
/// `size + RANDOM_SPAN` bytes.
fn random_calls(lengths: Lengths, size: usize) -> Vec<Call> {
    let mut state: u64 = 0x2545_f491_4f6c_dd1d ^ size as u64;
    let mut next = move || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    };
    (0..RANDOM_CALLS)
        .map(|_| {
            let offset = (next() % RANDOM_SPAN as u64) as u32;
            let len = match lengths {
                Lengths::Uniform => next() % (size as u64 + 1),
                Lengths::LogUniform => {
                    let unit = (next() >> 11) as f64 / (1u64 << 53) as f64;
                    ((unit * ((size + 1) as f64).ln()).exp() as u64).clamp(1, size as u64)
                }
            };
            Call {
                offset,
                len: len as u32,
            }
        })
        .collect()
}

/// A type-erased implementation: checked once, then run in a timed loop.
pub trait Kernel {
    /// Checks the result on `block` against the reference; the error says
    /// what was expected and what came out.
    fn check(&self, block: &mut Block<'_>) -> Result<(), String>;

    /// Calls the implementation `iters` times on `block`, with its input and
    /// output hidden from the optimizer (`std::hint::black_box`).
    fn run(&self, block: &mut Block<'_>, iters: u64);

    /// Puts `block` in the state each sample starts from, before the sample
    /// is timed. By default nothing: a sample then starts from the state the
    /// previous one left, which is another implementation's, and always the
    /// same one (the rotation keeps the cyclic order).
    fn prepare(&self, _block: &mut Block<'_>) {}
}

/// Where a block starts relative to a 64-byte boundary.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Alignment {
    Aligned,
    Unaligned,
    /// Random calls: offsets and lengths from a table (see [`Block::calls`]).
    Random(Lengths),
}

impl Alignment {
    const BOTH: [Alignment; 2] = [Alignment::Aligned, Alignment::Unaligned];

    /// Bytes past a 64-byte boundary, for the source.
    fn offset(self) -> usize {
        match self {
            Alignment::Aligned | Alignment::Random(_) => 0,
            Alignment::Unaligned => 1,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Alignment::Aligned => "Aligned",
            Alignment::Unaligned => "Unaligned",
            Alignment::Random(Lengths::Uniform) => "Random uniform 0..=size",
            Alignment::Random(Lengths::LogUniform) => "Random log-uniform 1..=size",
        }
    }

    pub fn json_name(self) -> &'static str {
        match self {
            Alignment::Aligned => "aligned",
            Alignment::Unaligned => "unaligned",
            Alignment::Random(Lengths::Uniform) => "random-uniform",
            Alignment::Random(Lengths::LogUniform) => "random-log-uniform",
        }
    }
}

/// One row of the tables: a block size at an alignment.
#[derive(Clone, Copy)]
pub struct Case {
    pub alignment: Alignment,
    pub size: usize,
}

impl Case {
    /// The mean bytes per call: the size, or for random rows the mean of
    /// their lengths' distribution.
    pub fn mean_size(&self) -> f64 {
        match self.alignment {
            Alignment::Aligned | Alignment::Unaligned => self.size as f64,
            Alignment::Random(Lengths::Uniform) => self.size as f64 / 2.0,
            Alignment::Random(Lengths::LogUniform) => {
                self.size as f64 / ((self.size + 1) as f64).ln()
            }
        }
    }

    /// The row's block size, as the summary names it: the size, or for
    /// random rows the range of lengths.
    pub fn size_label(&self) -> String {
        match self.alignment {
            Alignment::Aligned | Alignment::Unaligned => self.size.to_string(),
            Alignment::Random(Lengths::Uniform) => format!("random 0..={}", self.size),
            Alignment::Random(Lengths::LogUniform) => format!("random log 1..={}", self.size),
        }
    }

    /// The bytes a buffer of this row needs past its page-aligned start,
    /// besides the offsets of fixed rows.
    fn region(&self) -> usize {
        match self.alignment {
            Alignment::Random(_) => self.size + RANDOM_SPAN,
            _ => self.size,
        }
    }
}

/// The measurement of one implementation on one case.
#[derive(Clone, Copy)]
pub struct Estimate {
    /// Median ticks per call.
    pub ticks_per_block: f64,
    /// Rounds the median was taken over.
    pub reps: u32,
}

/// Everything measured for one primitive.
pub struct PrimitiveResults {
    pub primitive: &'static str,
    /// The baselines the summary compares with ([`Primitive::compare_with`]).
    pub compare_with: &'static [&'static str],
    /// The implementations' names and kinds, in the order measured.
    pub implementations: Vec<(String, Kind)>,
    pub cases: Vec<Case>,
    /// `estimates[case][implementation]`.
    pub estimates: Vec<Vec<Estimate>>,
}

/// How rows are measured, from the command line.
struct Settings {
    /// Fixed rounds, or `None` to fill the time budget.
    reps: Option<u32>,
    /// Each primitive's share of [`MEASURE_BUDGET`].
    budget: Duration,
    /// The target length of one sample, in ticks.
    sample_ticks: f64,
}

pub fn run(args: &Args) -> Result<()> {
    let started = Instant::now();
    let primitives: Vec<&Primitive> = PRIMITIVES
        .iter()
        .filter(|p| args.primitive.as_deref().is_none_or(|name| name == p.name))
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
            .flat_map(|&size| Alignment::BOTH.map(|alignment| Case { alignment, size }))
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
    writeln!(
        notes,
        "fastpath bench: perf autotest (after DPDK's cksum_perf_autotest)"
    )?;
    writeln!(
        notes,
        "CPU:          {} ({})",
        cpu::model(),
        std::env::consts::ARCH
    )?;
    writeln!(notes, "Active tier:  {}", fastpath::active_tier())?;
    if let Ok(value) = std::env::var("FASTPATH_TIER") {
        writeln!(notes, "FASTPATH_TIER={value}")?;
    }
    writeln!(notes, "Timer:        {}", timer.describe())?;
    writeln!(
        notes,
        "Method:       median over rounds; a round takes one ~{} µs sample of every \
         implementation on every row",
        SAMPLE_TIME.as_micros()
    )?;
    writeln!(
        notes,
        "Calls:        every implementation through a function pointer, as DPDK's \
         autotest calls through a noinline wrapper: the same call overhead for all \
         (fill: tiers only; fastpath::fill is inlined and glibc's memset called, as \
         applications call them)"
    )?;
    match args.reps {
        Some(reps) => writeln!(notes, "Rounds:       {reps} (--reps)")?,
        None => writeln!(
            notes,
            "Rounds:       as many as fit in {} s (at least {MIN_REPS})",
            MEASURE_BUDGET.as_secs()
        )?,
    }
    writeln!(
        notes,
        "Blocks:       random bytes (fixed seed); Aligned = 64-byte aligned start, Unaligned = +1; \
         Random = each call on the next (offset, length) of a table from a fixed seed"
    )?;
    notes.flush()?;

    warm_up();
    let mut all_results = Vec::new();
    for primitive in primitives {
        let results = measure_primitive(primitive, &cases_of(primitive)?, &timer, &settings)?;
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

    if let Some(path) = &args.plot {
        plot::write_svg(path, &all_results, timer.unit())?;
        writeln!(notes, "\nPlot written to {}", path.display())?;
    }
    writeln!(
        notes,
        "\nfastpath bench took {:.1} s",
        started.elapsed().as_secs_f64()
    )?;
    Ok(())
}

/// Keeps the CPU busy for [`WARMUP_TIME`] with the active checksum kernel.
fn warm_up() {
    let data = random_bytes(64 * 1024);
    let start = Instant::now();
    while start.elapsed() < WARMUP_TIME {
        std::hint::black_box(fastpath::checksum(std::hint::black_box(&data)));
    }
}

/// Measures every implementation of `primitive` on every case.
///
/// Rounds are the outermost loop, over all the cases: each (case,
/// implementation) takes one sample per round, so its samples are spread over
/// the whole measuring time and a spell of noise from the other tenants of
/// the machine weighs on every row and every implementation alike, and the
/// median discards it. Within a round, the samples of one case follow each
/// other (its block stays in the cache), in an order rotated every round.
fn measure_primitive(
    primitive: &Primitive,
    cases: &[Case],
    timer: &Timer,
    settings: &Settings,
) -> Result<PrimitiveResults> {
    let implementations = (primitive.implementations)();
    let count = implementations.len();
    let mut buffers: Vec<(AlignedBuffer, AlignedBuffer)> = cases
        .iter()
        .map(|case| {
            (
                AlignedBuffer::random(case.region()),
                AlignedBuffer::zeroed(case.region()),
            )
        })
        .collect();
    let calls: Vec<Vec<Call>> = cases
        .iter()
        .map(|case| match case.alignment {
            Alignment::Random(lengths) => random_calls(lengths, case.size),
            _ => Vec::new(),
        })
        .collect();
    let mut blocks: Vec<Block<'_>> = cases
        .iter()
        .zip(&mut buffers)
        .zip(&calls)
        .map(|((case, (src, dst)), calls)| {
            let dst_offset = match case.alignment {
                Alignment::Aligned => 0,
                Alignment::Unaligned => primitive.unaligned_dst_offset,
                // The whole region, from a page boundary.
                Alignment::Random(_) => {
                    return Block {
                        src: src.block(0, case.region()),
                        dst: dst.block_mut(0, case.region()),
                        calls,
                    };
                }
            };
            Block {
                src: src.block(case.alignment.offset(), case.size),
                dst: dst.block_mut(DST_PAGE_OFFSET + dst_offset, case.size),
                calls: &[],
            }
        })
        .collect();

    for (case, block) in cases.iter().zip(&mut blocks) {
        for implementation in &implementations {
            if let Err(mismatch) = implementation.kernel.check(block) {
                bail!(
                    "{}: `{}` is wrong on a {}-byte {} block: {mismatch}",
                    primitive.name,
                    implementation.name,
                    case.size,
                    case.alignment.json_name()
                );
            }
        }
    }
    // iterations[case][implementation]
    let iterations: Vec<Vec<u64>> = blocks
        .iter_mut()
        .map(|block| {
            implementations
                .iter()
                .map(|i| calibrate(i.kernel.as_ref(), block, timer, settings.sample_ticks))
                .collect()
        })
        .collect();

    // samples[case][implementation]: ticks per call, one per round.
    let mut samples = vec![vec![Vec::new(); count]; cases.len()];
    let progress = io::stderr().is_terminal();
    let start = Instant::now();
    let mut reported = start;
    let mut reps: u32 = 0;
    for round in 0.. {
        let done = match settings.reps {
            Some(wanted) => reps >= wanted,
            // Stop on an odd count, so that the median is one of the samples.
            None => {
                reps >= MAX_REPS
                    || (reps >= MIN_REPS && reps % 2 == 1 && start.elapsed() >= settings.budget)
            }
        };
        if done {
            break;
        }
        for ((block, iterations), samples) in blocks.iter_mut().zip(&iterations).zip(&mut samples) {
            for k in 0..count {
                let index = (k + round) % count;
                let iters = iterations[index];
                implementations[index].kernel.prepare(block);
                let ticks = time(implementations[index].kernel.as_ref(), block, timer, iters);
                if round >= WARMUP_ROUNDS as usize {
                    samples[index].push(ticks as f64 / iters as f64);
                }
            }
        }
        if round >= WARMUP_ROUNDS as usize {
            reps += 1;
        }
        if progress && reported.elapsed() >= Duration::from_millis(500) {
            reported = Instant::now();
            eprint!(
                "\r\x1b[K{}: {reps} rounds in {:.0} s",
                primitive.name,
                start.elapsed().as_secs_f64()
            );
        }
    }
    if progress {
        eprint!("\r\x1b[K");
    }

    Ok(PrimitiveResults {
        primitive: primitive.name,
        compare_with: primitive.compare_with,
        implementations: implementations
            .iter()
            .map(|i| (i.name.clone(), i.kind))
            .collect(),
        cases: cases.to_vec(),
        estimates: samples
            .into_iter()
            .map(|per_case| {
                per_case
                    .into_iter()
                    .map(|mut s| Estimate {
                        ticks_per_block: median(&mut s),
                        reps,
                    })
                    .collect()
            })
            .collect(),
    })
}

/// Ticks taken by `iters` calls.
#[inline]
fn time(kernel: &dyn Kernel, block: &mut Block<'_>, timer: &Timer, iters: u64) -> u64 {
    let start = timer.now();
    kernel.run(block, iters);
    timer.now().saturating_sub(start)
}

/// Finds the iteration count that makes one sample last about `target`
/// ticks, by doubling from one call (which also warms the implementation up).
fn calibrate(kernel: &dyn Kernel, block: &mut Block<'_>, timer: &Timer, target: f64) -> u64 {
    let mut iters: u64 = 1;
    loop {
        let ticks = time(kernel, block, timer, iters) as f64;
        if ticks >= target / 2.0 || iters >= 1 << 32 {
            let ticks_per_call = (ticks / iters as f64).max(f64::MIN_POSITIVE);
            return ((target / ticks_per_call).round() as u64).max(1);
        }
        iters *= 2;
    }
}

fn median(samples: &mut [f64]) -> f64 {
    samples.sort_by(f64::total_cmp);
    let mid = samples.len() / 2;
    match samples.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => samples[mid],
        _ => (samples[mid - 1] + samples[mid]) / 2.0,
    }
}

/// A buffer with room for a block of some size at either alignment.
struct AlignedBuffer {
    bytes: Vec<u8>,
}

/// Blocks start at this boundary, plus their offset: a page, so that the
/// source and the destination sit at chosen places within their pages.
const BOUNDARY: usize = 4096;

/// Where a destination block starts within its page, less its alignment
/// offset: half a page away from the source, so that the destination's
/// addresses never match the source's in their low 12 bits, which makes a
/// CPU's loads wait for unrelated stores ("4K aliasing") and slows every
/// copy, glibc's `memcpy` included, by up to 20 times.
const DST_PAGE_OFFSET: usize = 2048;

/// The most a block starts past [`BOUNDARY`].
const MAX_OFFSET: usize = DST_PAGE_OFFSET + 64;

impl AlignedBuffer {
    fn zeroed(size: usize) -> AlignedBuffer {
        AlignedBuffer {
            bytes: vec![0; size + BOUNDARY + MAX_OFFSET],
        }
    }

    /// Random bytes from a fixed seed: the same contents for every
    /// implementation, every run.
    fn random(size: usize) -> AlignedBuffer {
        AlignedBuffer {
            bytes: random_bytes(size + BOUNDARY + MAX_OFFSET),
        }
    }

    fn start(&self, offset: usize) -> usize {
        self.bytes.as_ptr().align_offset(BOUNDARY) + offset
    }

    /// `size` bytes starting `offset` bytes past a page boundary.
    fn block(&self, offset: usize, size: usize) -> &[u8] {
        let start = self.start(offset);
        &self.bytes[start..start + size]
    }

    fn block_mut(&mut self, offset: usize, size: usize) -> &mut [u8] {
        let start = self.start(offset);
        &mut self.bytes[start..start + size]
    }
}

/// `len` bytes from xorshift64* with a fixed seed.
fn random_bytes(len: usize) -> Vec<u8> {
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut bytes = Vec::with_capacity(len + 8);
    while bytes.len() < len {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        bytes.extend_from_slice(&state.wrapping_mul(0x2545_f491_4f6c_dd1d).to_le_bytes());
    }
    bytes.truncate(len);
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), 2.5);
        assert!(median(&mut []).is_nan());
    }

    #[test]
    fn sizes_are_checked() {
        assert_eq!(parse_size(" 1500"), Ok(1500));
        assert!(parse_size("0").is_err());
        assert!(parse_size("-1").is_err());
        assert!(parse_size("1k").is_err());
        assert_eq!(parse_size(&MAX_SIZE.to_string()), Ok(MAX_SIZE));
        assert!(parse_size(&(MAX_SIZE + 1).to_string()).is_err());
    }

    #[test]
    fn random_calls_fit_their_region() {
        for (lengths, size) in [
            (Lengths::Uniform, 16),
            (Lengths::Uniform, 1024),
            (Lengths::LogUniform, 65536),
        ] {
            let calls = random_calls(lengths, size);
            assert_eq!(calls.len(), RANDOM_CALLS);
            let case = Case {
                alignment: Alignment::Random(lengths),
                size,
            };
            for call in &calls {
                assert!((call.offset as usize) < RANDOM_SPAN);
                assert!(call.len as usize <= size);
                assert!(call.offset as usize + call.len as usize <= case.region());
            }
            let lens = || calls.iter().map(|c| c.len as usize);
            let (min, max) = (lens().min().unwrap(), lens().max().unwrap());
            match lengths {
                Lengths::Uniform => assert_eq!((min, max), (0, size)),
                Lengths::LogUniform => assert!(min == 1 && max > size / 2),
            }
            // Near the distribution's mean, which the per-byte column uses.
            let mean = lens().sum::<usize>() as f64 / calls.len() as f64;
            assert!((mean / case.mean_size() - 1.0).abs() < 0.05, "{mean}");
            // The same table every time.
            let again = random_calls(lengths, size);
            assert!(
                calls
                    .iter()
                    .zip(&again)
                    .all(|(a, b)| (a.offset, a.len) == (b.offset, b.len))
            );
        }
    }

    #[test]
    fn blocks_start_where_they_should() {
        let buffer = AlignedBuffer::random(100);
        let aligned = buffer.block(Alignment::Aligned.offset(), 100);
        let unaligned = buffer.block(Alignment::Unaligned.offset(), 100);
        assert_eq!(aligned.as_ptr() as usize % BOUNDARY, 0);
        assert_eq!(unaligned.as_ptr() as usize % BOUNDARY, 1);
        let mut dst = AlignedBuffer::zeroed(100);
        let dst = dst.block_mut(DST_PAGE_OFFSET + 3, 100);
        assert_eq!(dst.as_ptr() as usize % BOUNDARY, 2048 + 3);
        assert_eq!(aligned.len(), 100);
        assert_eq!(unaligned.len(), 100);
        // The same contents every time.
        assert_eq!(random_bytes(100), random_bytes(100));
        assert_eq!(&buffer.bytes[..], &random_bytes(buffer.bytes.len())[..]);
    }
}
