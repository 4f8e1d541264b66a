//! `fastpath::fill`, `fastpath::fill_nontemporal` and `fastpath::copy`
//! timed as an application calls them, from a crate that depends on
//! fastpath like any user, against `slice::fill` and `copy_from_slice` (the
//! C library's `memset` and `memcpy`):
//!
//! - the fill value a run-time value, the length passed through
//!   `black_box` on every call;
//! - the destination left as the previous call left it (dirty in the
//!   caches), never read or flushed between calls;
//! - fixed rows at a page-aligned base, copies also at the (source,
//!   destination) offsets (1, 0), (0, 1), (14, 0) and (0, 14); random rows
//!   drawing (offset, length) over a 32 KiB window from a table of 2^18
//!   calls, each timing the next 8192 (read once before), so that no
//!   timing repeats a sequence of lengths the branch predictor has seen;
//! - in each of 31 repetitions the implementations run in turn, and the
//!   ratio of their times is taken; the median ratio is printed (above 1:
//!   fastpath faster), with the median ratio of the baseline against
//!   itself, run twice in a repetition, as the noise, and the ratio to
//!   the same loop with one byte stored (copies: moved) in place of the
//!   call, `one store` (`one move`): the loop's own work, so the most that
//!   an inline path can gain over the call in this loop;
//! - every timing loop in four copies, 16 bytes of `nop`s apart from a
//!   64-byte boundary (so at each 16-byte step of a line, whatever 16-byte
//!   boundary the linker starts each copy's function on), which the
//!   repetitions take in turn, every implementation alike: a median is
//!   over the loop's placements, not one;
//! - all of it in five processes, one after the other (`PROCESSES` in the
//!   environment sets how many), each placing the buffers and the
//!   libraries anew; printed, each row's median over the processes, the
//!   lowest and the highest.
//!
//! `cargo run --release -- [fill|copy] [MAX]`, MAX the longest fixed row
//! to time (all of them by default).
//!
//! The placements: the same loop, byte for byte, runs a short row at a
//! different speed from each offset in a 64-byte line. In two builds of
//! one loop calling `fastpath::copy` on 100 bytes (AMD EPYC Zen 5, AVX2
//! tier), the ratio to `copy_from_slice` was 0.87-0.89× in one and
//! 1.13-1.20× in the other, the library unchanged.
//!
//! The random tables: with a table of 8192 calls timed four times over,
//! the predictor learns part of the sequence, and a loop timed right after
//! itself ran it up to 1.4× faster than after the others; copies that
//! call `memcpy` past 64 bytes (`copy_from_slice` itself, behind
//! `fastpath::copy`'s inline path) measured 0.86-0.91× `copy_from_slice`
//! on random lengths up to 1024 bytes there (Zen 5, AVX2-only), and
//! `copy_from_slice` took 1.6-2.0 ns a call on random lengths up to 64
//! bytes, 7.5-9 ns on calls it had not seen. Each timing takes the next
//! calls of the table, so the implementations of a repetition time
//! different stretches of it, and each one most of the table over a run.
//!
//! `cargo run --release -- checksum` times `fastpath::checksum` against
//! etherparse's `Sum16BitWords` and smoltcp's `checksum::data`, the
//! fastest Rust peers at short lengths: the length through `black_box` on
//! every call, each result folded into one that is kept, fixed rows at a
//! page-aligned base and at +1, random rows as above.
//!
//! `cargo run --release -- pages` times the short copies of the fixed
//! rows (source and destination at the start of a page) with the
//! destination in each of 256 pages in turn: on AMD Zen 4 a few pairs of
//! pages run a copy of the same bytes several times slower than the
//! others, for fastpath and the C library alike, so that one fixed row
//! measures one pair. Prints, per length, the median ratio over the
//! pairs, the lowest, and how many pairs fall below 0.97× and 1.3×.
//!
//! `cargo run --release -- mix [RANGES]` times `fastpath::fill` on random
//! lengths of each range of RANGES (`257-1024,0-1024`; `0-1024` by
//! default), as the random rows are.
//!
//! `cargo run --release -- distance` times `copy_from_slice` alone, at 4 and
//! 16 KiB, by how far the destination lies past the source modulo the
//! 4 KiB page (the source at the start of a page): the distance at which
//! some CPUs' `rep movsb` is many times slower.

use std::hint::black_box;
use std::time::Instant;

const REPS: usize = 31;

type Fill = (usize, usize);
type Fills = [Fill];
/// A copy's call: the source offset, the destination offset, the length.
type CopyCall = (usize, usize, usize);
type Copies = [CopyCall];

/// Copies of each timing loop, 16 bytes of `nop`s apart.
const PLACEMENTS: usize = 4;

/// Calls the timing loop `$f` from its copy for repetition `$rep`.
macro_rules! placed {
    ($rep:expr, $f:ident($($arg:expr),* $(,)?)) => {
        match $rep % PLACEMENTS {
            0 => $f::<0>($($arg),*),
            1 => $f::<16>($($arg),*),
            2 => $f::<32>($($arg),*),
            _ => $f::<48>($($arg),*),
        }
    };
}

/// `nop`s to the next 64-byte boundary, then `P` bytes of one-byte `nop`s,
/// inline: they move the loop after them.
#[inline(always)]
fn pad<const P: usize>() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `nop`s, which do nothing.
    unsafe {
        std::arch::asm!(
            ".p2align 6",
            ".rept {n}", "nop", ".endr",
            n = const P,
            options(nomem, nostack, preserves_flags)
        );
    }
}

#[inline(never)]
fn fastpath_fill<const P: usize>(buf: &mut [u8], calls: &Fills, value: u8) {
    pad::<P>();
    for &(at, len) in calls {
        fastpath::fill(&mut buf[at..at + black_box(len)], value);
    }
}

#[inline(never)]
fn fastpath_fill_nontemporal<const P: usize>(buf: &mut [u8], calls: &Fills, value: u8) {
    pad::<P>();
    for &(at, len) in calls {
        fastpath::fill_nontemporal(&mut buf[at..at + black_box(len)], value);
    }
}

#[inline(never)]
fn slice_fill<const P: usize>(buf: &mut [u8], calls: &Fills, value: u8) {
    pad::<P>();
    for &(at, len) in calls {
        buf[at..at + black_box(len)].fill(value);
    }
}

/// The loop's own work with one byte stored in place of the fill: the
/// table read, the length through `black_box`, the bounds checks. The
/// most an inline fill can gain over a call of `memset` in this loop.
#[inline(never)]
fn one_store<const P: usize>(buf: &mut [u8], calls: &Fills, value: u8) {
    pad::<P>();
    for &(at, len) in calls {
        if let Some(first) = buf[at..at + black_box(len)].first_mut() {
            *first = value;
        }
    }
}

/// The copy loop's own work with one byte moved in place of the copy.
#[inline(never)]
fn one_move<const P: usize>(dst: &mut [u8], src: &[u8], calls: &Copies) {
    pad::<P>();
    for &(from, to, len) in calls {
        let len = black_box(len);
        let (dst, src) = (&mut dst[to..to + len], &src[from..from + len]);
        if let (Some(d), Some(s)) = (dst.first_mut(), src.first()) {
            *d = *s;
        }
    }
}

#[inline(never)]
fn fastpath_copy<const P: usize>(dst: &mut [u8], src: &[u8], calls: &Copies) {
    pad::<P>();
    for &(from, to, len) in calls {
        let len = black_box(len);
        fastpath::copy(&mut dst[to..to + len], &src[from..from + len]);
    }
}

#[inline(never)]
fn copy_from_slice<const P: usize>(dst: &mut [u8], src: &[u8], calls: &Copies) {
    pad::<P>();
    for &(from, to, len) in calls {
        let len = black_box(len);
        dst[to..to + len].copy_from_slice(&src[from..from + len]);
    }
}

#[inline(never)]
fn fastpath_checksum<const P: usize>(buf: &[u8], calls: &Fills) -> u16 {
    pad::<P>();
    let mut acc = 0;
    for &(at, len) in calls {
        acc ^= fastpath::checksum(&buf[at..at + black_box(len)]);
    }
    acc
}

#[inline(never)]
fn etherparse_checksum<const P: usize>(buf: &[u8], calls: &Fills) -> u16 {
    pad::<P>();
    let mut acc = 0;
    for &(at, len) in calls {
        let data = &buf[at..at + black_box(len)];
        acc ^= u16::from_be(
            etherparse::checksum::Sum16BitWords::new()
                .add_slice(data)
                .ones_complement(),
        );
    }
    acc
}

#[inline(never)]
fn smoltcp_checksum<const P: usize>(buf: &[u8], calls: &Fills) -> u16 {
    pad::<P>();
    let mut acc = 0;
    for &(at, len) in calls {
        acc ^= !smoltcp::wire::checksum::data(&buf[at..at + black_box(len)]);
    }
    acc
}

/// Calls in a random row's table, and in one timing of it.
const RANDOM_CALLS: usize = 1 << 18;
const SAMPLE: usize = 8192;

/// A row: its calls, timed `sample` at a time from where the last timing
/// stopped (all of them each time, in a fixed row).
struct Row<T> {
    name: String,
    calls: Vec<T>,
    sample: usize,
    next: usize,
}

impl<T: Copy> Row<T> {
    /// `count` times the same call.
    fn fixed(name: String, call: T, count: usize) -> Self {
        Row {
            name,
            calls: vec![call; count],
            sample: count,
            next: 0,
        }
    }

    /// A table of random calls, timed [`SAMPLE`] at a time.
    fn random(name: String, calls: Vec<T>) -> Self {
        Row {
            name,
            calls,
            sample: SAMPLE,
            next: 0,
        }
    }

    /// Nanoseconds a call of `run` on the calls of the next timing, which
    /// are read once before, so that it finds them in the caches (an
    /// application's lengths come from the packet it has in hand), not
    /// streamed from memory.
    fn time(&mut self, run: impl FnOnce(&[T])) -> f64 {
        let at = self.next;
        self.next = (at + self.sample) % self.calls.len();
        let calls = &self.calls[at..at + self.sample];
        for &call in calls {
            black_box(call);
        }
        time(calls.len(), || run(calls))
    }
}

/// A random row's table: [`RANDOM_CALLS`] (offset, length) pairs, lengths
/// of `min..=max` at offsets in the window from `base`.
fn random_fills(random: &mut Random, base: usize, min: usize, max: usize) -> Vec<Fill> {
    (0..RANDOM_CALLS)
        .map(|_| {
            let len = min + random.below(max - min + 1);
            (base + random.below(WINDOW - len + 1), len)
        })
        .collect()
}

/// The `mix` mode: the random rows of `fill` on the ranges `MIN-MAX` of a
/// comma-separated list.
fn mix(buf: &mut [u8], base: usize, ranges: &str) {
    let mut random = Random(0x9e37_79b9_7f4a_7c15);
    let rows = ranges
        .split(',')
        .map(|range| {
            let (min, max) = range
                .split_once('-')
                .and_then(|(min, max)| Some((min.parse().ok()?, max.parse().ok()?)))
                .filter(|&(min, max): &(usize, usize)| min <= max && max <= WINDOW)
                .expect("RANGES: MIN-MAX,... in bytes, up to 32 KiB");
            Row::random(
                format!("fill random {min}..={max}"),
                random_fills(&mut random, base, min, max),
            )
        })
        .collect();
    fills(buf, rows);
}

/// The fill rows.
fn fills(buf: &mut [u8], rows: Vec<Row<Fill>>) {
    let value = black_box(0x5a_u8);
    for mut row in rows {
        let (mut fill, mut nontemporal, mut noise, mut ns) = (vec![], vec![], vec![], vec![]);
        let mut bound = vec![];
        for rep in 0..REPS {
            let ours = row.time(|calls| placed!(rep, fastpath_fill(buf, calls, value)));
            let theirs = row.time(|calls| placed!(rep, slice_fill(buf, calls, value)));
            let streamed =
                row.time(|calls| placed!(rep, fastpath_fill_nontemporal(buf, calls, value)));
            let again = row.time(|calls| placed!(rep, slice_fill(buf, calls, value)));
            let one = row.time(|calls| placed!(rep, one_store(buf, calls, value)));
            fill.push(theirs / ours);
            bound.push(theirs / one);
            nontemporal.push(theirs / streamed);
            noise.push(theirs / again);
            ns.push(theirs);
        }
        report(
            &row.name,
            &[
                ("slice::fill ns", median(ns)),
                ("fill", median(fill)),
                ("fill_nontemporal", median(nontemporal)),
                ("noise", median(noise)),
                ("one store", median(bound)),
            ],
        );
    }
}

/// The copy rows.
fn copies(dst: &mut [u8], src: &[u8], rows: Vec<Row<CopyCall>>) {
    for mut row in rows {
        let (mut copy, mut noise, mut ns, mut bound) = (vec![], vec![], vec![], vec![]);
        for rep in 0..REPS {
            let ours = row.time(|calls| placed!(rep, fastpath_copy(dst, src, calls)));
            let theirs = row.time(|calls| placed!(rep, copy_from_slice(dst, src, calls)));
            let again = row.time(|calls| placed!(rep, copy_from_slice(dst, src, calls)));
            let one = row.time(|calls| placed!(rep, one_move(dst, src, calls)));
            copy.push(theirs / ours);
            bound.push(theirs / one);
            noise.push(theirs / again);
            ns.push(theirs);
        }
        report(
            &row.name,
            &[
                ("copy_from_slice ns", median(ns)),
                ("copy", median(copy)),
                ("noise", median(noise)),
                ("one move", median(bound)),
            ],
        );
    }
}

/// The checksum rows: each implementation's result checked against
/// fastpath's first, then timed.
fn checksums(buf: &[u8], base: usize, random: &mut Random, max_len: usize) {
    let mut rows = Vec::new();
    for &len in CHECKSUM_SIZES.iter().filter(|&&len| len <= max_len) {
        for offset in [0, 1] {
            rows.push(Row::fixed(
                format!("checksum {len} +{offset}"),
                (base + offset, len),
                repeats(len),
            ));
        }
    }
    for &max in &[64, 1500] {
        rows.push(Row::random(
            format!("checksum random 0..={max}"),
            random_fills(random, base, 0, max),
        ));
    }
    for mut row in rows {
        let calls = &row.calls;
        let expected = fastpath_checksum::<0>(buf, calls);
        let name = &row.name;
        assert_eq!(
            etherparse_checksum::<0>(buf, calls),
            expected,
            "{name}: etherparse"
        );
        assert_eq!(
            smoltcp_checksum::<0>(buf, calls),
            expected,
            "{name}: smoltcp"
        );
        let (mut ether, mut smol, mut noise, mut ns) = (vec![], vec![], vec![], vec![]);
        for rep in 0..REPS {
            let ours = row.time(|calls| {
                black_box(placed!(rep, fastpath_checksum(buf, calls)));
            });
            let e = row.time(|calls| {
                black_box(placed!(rep, etherparse_checksum(buf, calls)));
            });
            let s = row.time(|calls| {
                black_box(placed!(rep, smoltcp_checksum(buf, calls)));
            });
            let again = row.time(|calls| {
                black_box(placed!(rep, etherparse_checksum(buf, calls)));
            });
            ether.push(e / ours);
            smol.push(s / ours);
            noise.push(e / again);
            ns.push(e);
        }
        report(
            &row.name,
            &[
                ("etherparse ns", median(ns)),
                ("fastpath × etherparse", median(ether)),
                ("× smoltcp", median(smol)),
                ("noise", median(noise)),
            ],
        );
    }
}

/// A row's name and its columns: each a label and its values, one a
/// process.
type Measured = (String, Vec<(String, Vec<f64>)>);

/// Set in the processes that [`processes`] starts.
const CHILD: &str = "FASTPATH_OUTSIDE_CHILD";

/// The processes a measurement takes, one after the other (`PROCESSES`
/// in the environment, 5 by default).
fn process_count() -> usize {
    std::env::var("PROCESSES")
        .ok()
        .and_then(|n| n.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or(5)
}

/// A row's medians, in a process that [`processes`] started: one line
/// that it reads, `row`, the name, then labels and values, tab-separated.
fn report(name: &str, columns: &[(&str, f64)]) {
    let mut line = format!("row\t{name}");
    for (label, value) in columns {
        line += &format!("\t{label}\t{value}");
    }
    println!("{line}");
}

/// Runs this program's measurement (its arguments) in [`process_count`] processes,
/// one after the other, and prints each row's medians: their median over
/// the processes, the lowest and the highest. A process places the
/// buffers, the stack and the libraries anew, and on some CPUs that alone
/// moves a short row: on an AMD EPYC Zen 5, one process in eight ran a
/// fixed 33-byte `fastpath::copy` at 2.66 ns a call, the others at
/// 1.15-1.26 ns, the same binary on the same addresses modulo 4 KiB
/// (the AVX2 tier); `copy_from_slice` moved between 1.36 and 1.91 ns.
fn processes() {
    let count = process_count();
    println!(
        "fastpath {}: × the C library; in each of {count} processes the median of {REPS} \
         repetitions; here the median over the processes (lowest-highest)",
        fastpath::active_tier()
    );
    // Each row's name and columns, each column's label and values, one
    // value a process.
    let mut rows: Vec<Measured> = Vec::new();
    for _ in 0..count {
        let output = std::process::Command::new(std::env::current_exe().expect("this program"))
            .args(std::env::args_os().skip(1))
            .env(CHILD, "1")
            .stderr(std::process::Stdio::inherit())
            .output()
            .expect("a process of this program");
        assert!(output.status.success(), "a measurement process failed");
        let text = String::from_utf8(output.stdout).expect("UTF-8 rows");
        let lines = text.lines().filter_map(|line| line.strip_prefix("row\t"));
        for (i, line) in lines.enumerate() {
            let mut fields = line.split('\t');
            let name = fields.next().unwrap_or_default();
            if rows.len() <= i {
                rows.push((name.to_owned(), Vec::new()));
            }
            let columns = &mut rows[i].1;
            let values: Vec<&str> = fields.collect();
            for (j, pair) in values.chunks(2).enumerate() {
                let value: f64 = pair[1].parse().expect("a number");
                if columns.len() <= j {
                    columns.push((pair[0].to_owned(), Vec::new()));
                }
                columns[j].1.push(value);
            }
        }
    }
    for (name, columns) in rows {
        let mut line = format!("{name:<26}");
        for (label, values) in columns {
            let (low, high) = values
                .iter()
                .fold((f64::INFINITY, 0.0_f64), |(l, h), &v| (l.min(v), h.max(v)));
            let mid = median(values);
            if let Some(label) = label.strip_suffix(" ns") {
                line += &format!("  {label} {mid:>9.2} ns");
            } else if count == 1 {
                line += &format!("  {label} {mid:.2}x");
            } else {
                line += &format!("  {label} {mid:.2}x ({low:.2}-{high:.2})");
            }
        }
        println!("{line}");
    }
}

/// Nanoseconds a call.
fn time(calls: usize, run: impl FnOnce()) -> f64 {
    let start = Instant::now();
    run();
    start.elapsed().as_nanos() as f64 / calls as f64
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// xorshift64.
struct Random(u64);

impl Random {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// Calls of a fixed row: enough for about 2 MiB of stores, 16 at least.
fn repeats(len: usize) -> usize {
    ((2 << 20) / len.max(64)).clamp(16, 32768)
}

const FILL_SIZES: &[usize] = &[
    1,
    7,
    16,
    32,
    63,
    64,
    65,
    100,
    128,
    129,
    192,
    256,
    512,
    1024,
    1500,
    2048,
    4096,
    16384,
    65536,
    1 << 20,
    64 << 20,
];
const COPY_SIZES: &[usize] = &[
    1,
    16,
    33,
    64,
    100,
    128,
    256,
    512,
    1500,
    2048,
    4096,
    16384,
    32768,
    65536,
    262_144,
    512 << 10,
    1 << 20,
    2 << 20,
    4 << 20,
    64 << 20,
];
const CHECKSUM_SIZES: &[usize] = &[20, 40, 64, 100, 576, 1500, 9000];
const RANDOM_MAX: &[usize] = &[64, 256, 1024];
const WINDOW: usize = 32 << 10;

/// The best time of 15 rounds of 50 copies of `len` bytes from the start
/// of a page to `distance` bytes into another, in nanoseconds a copy.
fn memcpy_at_distance(dst: &mut [u8], src: &[u8], len: usize, distance: usize) -> f64 {
    let (dst_base, src_base) = (
        dst.as_ptr().align_offset(4096),
        src.as_ptr().align_offset(4096),
    );
    let calls = [(src_base, dst_base + distance, len); 50];
    (0..15)
        .map(|_| time(calls.len(), || copy_from_slice::<0>(dst, src, &calls)))
        .fold(f64::INFINITY, f64::min)
}

fn distances() {
    let mut dst = vec![0u8; (64 << 10) + 8192];
    let src = vec![1u8; (64 << 10) + 8192];
    println!("copy_from_slice by (dst - src) mod 4096, best of 15 rounds of 50 copies, ns");
    for len in [4096, 16384] {
        let row: Vec<String> = (0..=40)
            .chain([48, 56, 62, 63, 64, 65, 1025, 2049, 4064, 4080, 4095])
            .map(|distance| {
                format!(
                    "{distance}:{:.0}",
                    memcpy_at_distance(&mut dst, &src, len, distance)
                )
            })
            .collect();
        println!("{len} B  {}", row.join(" "));
    }
}

/// The `pages` mode: each short copy length with the destination in each
/// of 256 pages, the source in one.
fn pages(dst: &mut [u8], src: &[u8]) {
    let (dst_base, src_base) = (
        dst.as_ptr().align_offset(4096),
        src.as_ptr().align_offset(4096),
    );
    println!("copy × copy_from_slice, the destination in each of 256 pages, median of 15 a page");
    for len in [1, 16, 33, 64, 100] {
        let mut ratios: Vec<f64> = (0..256)
            .map(|page| {
                let calls = vec![(src_base, dst_base + page * 4096, len); 16384];
                let (mut ours, mut theirs) = (vec![], vec![]);
                for _ in 0..15 {
                    ours.push(time(calls.len(), || fastpath_copy::<0>(dst, src, &calls)));
                    theirs.push(time(calls.len(), || copy_from_slice::<0>(dst, src, &calls)));
                }
                median(theirs) / median(ours)
            })
            .collect();
        ratios.sort_by(f64::total_cmp);
        let below = |limit: f64| ratios.iter().filter(|&&r| r < limit).count();
        println!(
            "copy {len:<4} median {:.2}x  lowest {:.2}x  pages below 0.97x: {:>3}  below 1.3x: {:>3}",
            ratios[ratios.len() / 2],
            ratios[0],
            below(0.97),
            below(1.3)
        );
    }
}

fn main() {
    let what = std::env::args().nth(1).unwrap_or_default();
    // The `mix` mode's second argument is its ranges.
    let max_len: usize = match std::env::args().nth(2) {
        Some(max) if what != "mix" => max.parse().expect("MAX: a length in bytes"),
        _ => usize::MAX,
    };
    if what == "distance" {
        return distances();
    }
    if what != "pages" && std::env::var_os(CHILD).is_none() {
        return processes();
    }
    let mut dst = vec![0u8; (64 << 20) + 8192];
    let src = vec![1u8; (64 << 20) + 8192];
    let dst_base = dst.as_ptr().align_offset(4096);
    let src_base = src.as_ptr().align_offset(4096);
    if what == "pages" {
        return pages(&mut dst, &src);
    }
    if what == "mix" {
        let ranges = std::env::args().nth(2).unwrap_or_else(|| "0-1024".into());
        return mix(&mut dst, dst_base, &ranges);
    }
    let mut random = Random(0x9e37_79b9_7f4a_7c15);
    if what.is_empty() || what == "checksum" {
        let data: Vec<u8> = (0..src.len().min(1 << 20))
            .map(|i| (i as u32).wrapping_mul(2_654_435_761).to_le_bytes()[2])
            .collect();
        checksums(
            &data,
            data.as_ptr().align_offset(4096),
            &mut random,
            max_len,
        );
    }
    if what.is_empty() || what == "fill" {
        let mut rows: Vec<_> = FILL_SIZES
            .iter()
            .filter(|&&len| len <= max_len)
            .map(|&len| Row::fixed(format!("fill {len}"), (dst_base, len), repeats(len)))
            .collect();
        for &max in RANDOM_MAX {
            rows.push(Row::random(
                format!("fill random 0..={max}"),
                random_fills(&mut random, dst_base, 0, max),
            ));
        }
        fills(&mut dst, rows);
    }
    if what.is_empty() || what == "copy" {
        let mut rows = Vec::new();
        for &len in COPY_SIZES.iter().filter(|&&len| len <= max_len) {
            for (from, to) in [(0, 0), (1, 0), (0, 1), (14, 0), (0, 14)] {
                rows.push(Row::fixed(
                    format!("copy {len} src+{from} dst+{to}"),
                    (src_base + from, dst_base + to, len),
                    repeats(len),
                ));
            }
        }
        for &max in RANDOM_MAX {
            let table = (0..RANDOM_CALLS)
                .map(|_| {
                    let len = random.below(max + 1);
                    let from = src_base + random.below(WINDOW - len + 1);
                    (from, dst_base + random.below(WINDOW - len + 1), len)
                })
                .collect();
            rows.push(Row::random(format!("copy random 0..={max}"), table));
        }
        copies(&mut dst, &src, rows);
    }
}
