//! The timing harness: warm-up, calibration, the rounds of samples and
//! their medians.

use std::io::{self, IsTerminal};
use std::time::{Duration, Instant};

use anyhow::{Result, bail};

use super::blocks::{AlignedBuffer, Block, Call, random_bytes, random_calls, upcoming_calls};
use super::placement::PLACEMENTS;
use super::primitive::{Kernel, Primitive};
use super::timer::Timer;
use crate::results::{Alignment, Case, Estimate, PrimitiveResults};

/// How long one sample should last: long enough that reading the clock costs
/// nothing, short enough to fit between the interruptions of a busy machine
/// (which the median then discards).
pub const SAMPLE_TIME: Duration = Duration::from_micros(30);

/// The time the measured rounds of a whole `fastpath bench` take without
/// `--reps`, shared equally by the primitives; calibration, warm-up and
/// start-up add under a second.
pub const MEASURE_BUDGET: Duration = Duration::from_secs(55);

/// The fewest and the most rounds without `--reps`.
pub const MIN_REPS: u32 = 9;
pub const MAX_REPS: u32 = 100_001;

/// Unmeasured rounds before the measured ones: one for each copy of the
/// timing loops.
const WARMUP_ROUNDS: u32 = PLACEMENTS as u32;

/// How long the CPU is kept busy before the first measurement, to leave
/// any idle state and reach a steady clock.
const WARMUP_TIME: Duration = Duration::from_millis(200);

/// How rows are measured, from the command line.
pub struct Settings {
    /// Fixed rounds, or `None` to fill the time budget.
    pub reps: Option<u32>,
    /// Each primitive's share of [`MEASURE_BUDGET`].
    pub budget: Duration,
    /// The target length of one sample, in ticks.
    pub sample_ticks: f64,
}

/// Keeps the CPU busy for [`WARMUP_TIME`] with the active checksum kernel.
pub fn warm_up() {
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
/// other (its block stays in the cache), in an order shuffled every round
/// ([`order`]).
/// Round `r` runs every implementation from the copy `r` (modulo
/// [`PLACEMENTS`]) of its timing loop, so that its median is over the
/// loop's placements in the code (`placement`).
pub fn measure_primitive(
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
            if let Alignment::Random(_) = case.alignment {
                // The whole region, from a page boundary.
                return Block {
                    src: src.block(0, case.region()),
                    dst: dst.block_mut(0, case.region()),
                    calls,
                    next: 0,
                };
            }
            Block {
                src: src.block(case.alignment.src_offset(), case.size),
                dst: dst.block_mut(case.alignment.dst_page_offset(), case.size),
                calls: &[],
                next: 0,
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
            for index in order(count, round) {
                let iters = iterations[index];
                implementations[index].kernel.prepare(block);
                touch_calls(block, iters);
                let kernel = implementations[index].kernel.as_ref();
                // The copies of the timing loop in turn, every implementation
                // from the same one in a round (`placement`).
                let ticks = time(kernel, block, timer, iters, round % PLACEMENTS);
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

/// The order of the `count` implementations in round `round`: a shuffle,
/// the same in every run, so that each implementation follows each of the
/// others about as often. A sample leaves state behind (dirty lines in the
/// caches, the predictors) that weighs on the next: with the order only
/// rotated, each implementation always followed the same one, and on an
/// AMD EPYC Zen 5 the dispatch's 64 MiB copies with the destination just
/// past the source, which call the same `memcpy` as the baseline, ran at
/// 0.92-0.95× it in every measurement, following a tier's kernel where the
/// baseline followed that `memcpy`.
fn order(count: usize, round: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..count).collect();
    // SplitMix64, seeded by the round.
    let mut state = (round as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let mut next = || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    for i in (1..count).rev() {
        let j = (next() % (i as u64 + 1)) as usize;
        order.swap(i, j);
    }
    order
}

/// Reads the `iters` calls of `block`'s table that the next sample makes, if
/// it is a random row, so that the sample finds them in the caches: the
/// table is the bench's, not the implementation's, and an application's
/// lengths come from the packet it has in hand. Left to the sample, they
/// came from memory after the 64 MiB row of the same round, as fast as the
/// prefetchers could stream them: random 0-64 byte fills called as
/// applications call measured 1.60-1.69× glibc's `memset` with that row
/// in the round and 2.38-2.43× without it (AMD Zen 4,
/// `-C target-cpu=native`), and 1.49× in the outside crate with a table of
/// 16 MiB, 2.18× with one of 4 MiB.
fn touch_calls(block: &Block<'_>, iters: u64) {
    let any = upcoming_calls(block)
        .take(usize::try_from(iters).unwrap_or(usize::MAX))
        .fold(0, |any, call| any ^ call.len);
    std::hint::black_box(any);
}

/// Ticks taken by `iters` calls, from the copy `placement` of the timing
/// loop.
#[inline]
fn time(
    kernel: &dyn Kernel,
    block: &mut Block<'_>,
    timer: &Timer,
    iters: u64,
    placement: usize,
) -> u64 {
    let start = timer.now();
    kernel.run(block, iters, placement);
    timer.now().saturating_sub(start)
}

/// Finds the iteration count that makes one sample last about `target`
/// ticks, by doubling from one call (which also warms the implementation up).
fn calibrate(kernel: &dyn Kernel, block: &mut Block<'_>, timer: &Timer, target: f64) -> u64 {
    let mut iters: u64 = 1;
    loop {
        let ticks = time(kernel, block, timer, iters, 0) as f64;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_round_runs_every_implementation_once() {
        let mut firsts = std::collections::BTreeSet::new();
        for round in 0..64 {
            let mut order = order(8, round);
            firsts.insert(order[0]);
            order.sort_unstable();
            assert_eq!(order, (0..8).collect::<Vec<_>>());
        }
        // Shuffled: more than one implementation goes first.
        assert!(firsts.len() > 4, "{firsts:?}");
    }

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), 2.5);
        assert!(median(&mut []).is_nan());
    }
}
