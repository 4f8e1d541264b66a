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
//!   drawing (offset, length) from a table of 8192 entries over a 32 KiB
//!   window;
//! - in each of 31 repetitions the implementations run in turn, and the
//!   ratio of their times is taken; the median ratio is printed (above 1:
//!   fastpath faster), with the median ratio of the baseline against
//!   itself, run twice in a repetition, as the noise.
//!
//! `cargo run --release -- [fill|copy] [MAX]`, MAX the longest fixed row
//! to time (all of them by default). One placement of each loop: the
//! short rows move with where the linker puts them (by 10-30% here).
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
//! `cargo run --release -- mix [RANGES] [ENTRIES]` times `fastpath::fill`
//! on random lengths of each range of RANGES (`257-1024,0-1024`, the
//! default `0-1024`), from a table of ENTRIES calls (2^18 by default) timed
//! once over: the random rows of `fill` repeat a table of 8192 calls, part
//! of which the branch predictor learns.
//!
//! `cargo run --release -- distance` times `copy_from_slice` alone, at 4 and
//! 16 KiB, by how far the destination lies past the source modulo the
//! 4 KiB page (the source at the start of a page): the distance at which
//! some CPUs' `rep movsb` is many times slower.

use std::hint::black_box;
use std::time::Instant;

const REPS: usize = 31;

type Fills = [(usize, usize)];
/// A copy's call: the source offset, the destination offset, the length.
type CopyCall = (usize, usize, usize);
type Copies = [CopyCall];

#[inline(never)]
fn fastpath_fill(buf: &mut [u8], calls: &Fills, value: u8) {
    for &(at, len) in calls {
        fastpath::fill(&mut buf[at..at + black_box(len)], value);
    }
}

#[inline(never)]
fn fastpath_fill_nontemporal(buf: &mut [u8], calls: &Fills, value: u8) {
    for &(at, len) in calls {
        fastpath::fill_nontemporal(&mut buf[at..at + black_box(len)], value);
    }
}

#[inline(never)]
fn slice_fill(buf: &mut [u8], calls: &Fills, value: u8) {
    for &(at, len) in calls {
        buf[at..at + black_box(len)].fill(value);
    }
}

#[inline(never)]
fn fastpath_copy(dst: &mut [u8], src: &[u8], calls: &Copies) {
    for &(from, to, len) in calls {
        let len = black_box(len);
        fastpath::copy(&mut dst[to..to + len], &src[from..from + len]);
    }
}

#[inline(never)]
fn fastpath_checksum(buf: &[u8], calls: &Fills) -> u16 {
    let mut acc = 0;
    for &(at, len) in calls {
        acc ^= fastpath::checksum(&buf[at..at + black_box(len)]);
    }
    acc
}

#[inline(never)]
fn etherparse_checksum(buf: &[u8], calls: &Fills) -> u16 {
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
fn smoltcp_checksum(buf: &[u8], calls: &Fills) -> u16 {
    let mut acc = 0;
    for &(at, len) in calls {
        acc ^= !smoltcp::wire::checksum::data(&buf[at..at + black_box(len)]);
    }
    acc
}

/// A random row's calls: a table of 8192 (offset, length) pairs, lengths
/// of 0..=`max` at offsets in the window from `base`, four times over.
fn random_calls(random: &mut Random, base: usize, max: usize) -> Vec<(usize, usize)> {
    random_table(random, base, 0, max, 8192).repeat(4)
}

/// `entries` (offset, length) pairs, lengths of `min..=max` at offsets in
/// the window from `base`.
fn random_table(
    random: &mut Random,
    base: usize,
    min: usize,
    max: usize,
    entries: usize,
) -> Vec<(usize, usize)> {
    (0..entries)
        .map(|_| {
            let len = min + random.below(max - min + 1);
            (base + random.below(WINDOW - len + 1), len)
        })
        .collect()
}

/// The `mix` mode: `fastpath::fill` on random lengths of each range
/// `MIN-MAX` of a comma-separated list, from a table of `ENTRIES` calls
/// timed once over (not four times, as the random rows of `fill` are):
/// with a table longer than the branch predictor can learn, every branch
/// on the length mispredicts as often as its outcomes are mixed.
fn mix(buf: &mut [u8], base: usize, ranges: &str, entries: usize) {
    let mut random = Random(0x9e37_79b9_7f4a_7c15);
    let value = black_box(0x5a_u8);
    for range in ranges.split(',') {
        let (min, max) = range
            .split_once('-')
            .and_then(|(min, max)| Some((min.parse().ok()?, max.parse().ok()?)))
            .filter(|&(min, max): &(usize, usize)| min <= max && max <= WINDOW)
            .expect("RANGES: MIN-MAX,... in bytes, up to 32 KiB");
        let calls = random_table(&mut random, base, min, max, entries);
        let (mut fill, mut noise) = (vec![], vec![]);
        for _ in 0..REPS {
            let ours = time(entries, || fastpath_fill(buf, &calls, value));
            let theirs = time(entries, || slice_fill(buf, &calls, value));
            let again = time(entries, || slice_fill(buf, &calls, value));
            fill.push(theirs / ours);
            noise.push(theirs / again);
        }
        println!(
            "fill random {min}..={max} ({entries} calls)  fill {:.2}x  (noise {:.2})",
            median(fill),
            median(noise)
        );
    }
}

/// The checksum rows: each implementation's result checked against
/// fastpath's first, then timed.
fn checksums(buf: &[u8], base: usize, random: &mut Random, max_len: usize) {
    let mut rows: Vec<(String, Vec<(usize, usize)>)> = Vec::new();
    for &len in CHECKSUM_SIZES.iter().filter(|&&len| len <= max_len) {
        for offset in [0, 1] {
            rows.push((
                format!("checksum {len} +{offset}"),
                vec![(base + offset, len); repeats(len)],
            ));
        }
    }
    for &max in &[64, 1500] {
        rows.push((
            format!("checksum random 0..={max}"),
            random_calls(random, base, max),
        ));
    }
    for (name, calls) in &rows {
        let expected = fastpath_checksum(buf, calls);
        assert_eq!(
            etherparse_checksum(buf, calls),
            expected,
            "{name}: etherparse"
        );
        assert_eq!(smoltcp_checksum(buf, calls), expected, "{name}: smoltcp");
        let n = calls.len();
        let (mut ether, mut smol, mut noise, mut ns) = (vec![], vec![], vec![], vec![]);
        for _ in 0..REPS {
            let ours = time(n, || {
                black_box(fastpath_checksum(buf, calls));
            });
            let e = time(n, || {
                black_box(etherparse_checksum(buf, calls));
            });
            let s = time(n, || {
                black_box(smoltcp_checksum(buf, calls));
            });
            let again = time(n, || {
                black_box(etherparse_checksum(buf, calls));
            });
            ether.push(e / ours);
            smol.push(s / ours);
            noise.push(e / again);
            ns.push(e);
        }
        println!(
            "{name:<26} etherparse {:>10.2} ns  fastpath {:.2}x etherparse  {:.2}x smoltcp  (noise {:.2})",
            median(ns),
            median(ether),
            median(smol),
            median(noise)
        );
    }
}

#[inline(never)]
fn copy_from_slice(dst: &mut [u8], src: &[u8], calls: &Copies) {
    for &(from, to, len) in calls {
        let len = black_box(len);
        dst[to..to + len].copy_from_slice(&src[from..from + len]);
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
        .map(|_| time(calls.len(), || copy_from_slice(dst, src, &calls)))
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
                    ours.push(time(calls.len(), || fastpath_copy(dst, src, &calls)));
                    theirs.push(time(calls.len(), || copy_from_slice(dst, src, &calls)));
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
    let value = black_box(0x5a_u8);
    let mut dst = vec![0u8; (64 << 20) + 8192];
    let src = vec![1u8; (64 << 20) + 8192];
    let dst_base = dst.as_ptr().align_offset(4096);
    let src_base = src.as_ptr().align_offset(4096);
    if what == "pages" {
        return pages(&mut dst, &src);
    }
    if what == "mix" {
        let ranges = std::env::args().nth(2).unwrap_or_else(|| "0-1024".into());
        let entries = std::env::args()
            .nth(3)
            .map_or(1 << 18, |n| n.parse().expect("ENTRIES: a number of calls"));
        return mix(&mut dst, dst_base, &ranges, entries);
    }
    let mut random = Random(0x9e37_79b9_7f4a_7c15);
    println!(
        "fastpath {}: × the C library, median of {REPS}",
        fastpath::active_tier()
    );
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
        let mut rows: Vec<(String, Vec<(usize, usize)>)> = FILL_SIZES
            .iter()
            .filter(|&&len| len <= max_len)
            .map(|&len| (format!("fill {len}"), vec![(dst_base, len); repeats(len)]))
            .collect();
        for &max in RANDOM_MAX {
            rows.push((
                format!("fill random 0..={max}"),
                random_calls(&mut random, dst_base, max),
            ));
        }
        for (name, calls) in &rows {
            let n = calls.len();
            let (mut fill, mut nontemporal, mut noise, mut ns) = (vec![], vec![], vec![], vec![]);
            for _ in 0..REPS {
                let ours = time(n, || fastpath_fill(&mut dst, calls, value));
                let theirs = time(n, || slice_fill(&mut dst, calls, value));
                let streamed = time(n, || fastpath_fill_nontemporal(&mut dst, calls, value));
                let again = time(n, || slice_fill(&mut dst, calls, value));
                fill.push(theirs / ours);
                nontemporal.push(theirs / streamed);
                noise.push(theirs / again);
                ns.push(theirs);
            }
            println!(
                "{name:<22} slice::fill {:>12.2} ns  fill {:.2}x  fill_nontemporal {:.2}x  (noise {:.2})",
                median(ns),
                median(fill),
                median(nontemporal),
                median(noise)
            );
        }
    }
    if what.is_empty() || what == "copy" {
        let mut rows: Vec<(String, Vec<CopyCall>)> = Vec::new();
        for &len in COPY_SIZES.iter().filter(|&&len| len <= max_len) {
            for (from, to) in [(0, 0), (1, 0), (0, 1), (14, 0), (0, 14)] {
                let call = (src_base + from, dst_base + to, len);
                rows.push((
                    format!("copy {len} src+{from} dst+{to}"),
                    vec![call; repeats(len)],
                ));
            }
        }
        for &max in RANDOM_MAX {
            let table: Vec<_> = (0..8192)
                .map(|_| {
                    let len = random.below(max + 1);
                    let from = src_base + random.below(WINDOW - len + 1);
                    (from, dst_base + random.below(WINDOW - len + 1), len)
                })
                .collect();
            rows.push((format!("copy random 0..={max}"), table.repeat(4)));
        }
        for (name, calls) in &rows {
            let n = calls.len();
            let (mut copy, mut noise, mut ns) = (vec![], vec![], vec![]);
            for _ in 0..REPS {
                let ours = time(n, || fastpath_copy(&mut dst, &src, calls));
                let theirs = time(n, || copy_from_slice(&mut dst, &src, calls));
                let again = time(n, || copy_from_slice(&mut dst, &src, calls));
                copy.push(theirs / ours);
                noise.push(theirs / again);
                ns.push(theirs);
            }
            println!(
                "{name:<26} copy_from_slice {:>12.2} ns  copy {:.2}x  (noise {:.2})",
                median(ns),
                median(copy),
                median(noise)
            );
        }
    }
}
