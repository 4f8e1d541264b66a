//! Every fill kernel of every tier this machine runs, the non-temporal ones,
//! and the public entry points, against a plain loop.

mod common;

use common::random_bytes;
use fastpath::Tier;
use fastpath::arch::{FillKernel, fill_kernel, fill_nontemporal_kernel};

/// Every implementation to test, with its name: each available tier's
/// kernel and non-temporal kernel, then the public `fill`,
/// `fill_nontemporal` and `zero` (which ignores the value: the tests call
/// it with 0 only).
fn kernels() -> Vec<(String, FillKernel)> {
    let mut kernels = Vec::new();
    for tier in Tier::ALL {
        if let Some(fill) = fill_kernel(tier) {
            kernels.push((format!("{tier}"), fill));
        }
        if let Some(fill) = fill_nontemporal_kernel(tier) {
            kernels.push((format!("{tier} (non-temporal)"), fill));
        }
    }
    let tier = fastpath::active_tier();
    kernels.push((format!("fastpath::fill (dispatch: {tier})"), fastpath::fill));
    kernels.push((
        format!("fastpath::fill_nontemporal (dispatch: {tier})"),
        fastpath::fill_nontemporal,
    ));
    kernels.push(("fastpath::zero".to_owned(), |dst, _| fastpath::zero(dst)));
    kernels
}

/// The values each kernel is tested with: `zero` only with 0.
fn values(name: &str) -> &'static [u8] {
    if name == "fastpath::zero" {
        &[0]
    } else {
        &[0xa5, 0x00, 0xff]
    }
}

/// Fills `buffer[start..start + len]` with `fill`, then checks the whole
/// buffer against `original` with that range set to `value` by a plain loop:
/// the range is filled and every byte around it (canaries) is untouched.
fn check(
    name: &str,
    fill: FillKernel,
    buffer: &mut [u8],
    original: &[u8],
    start: usize,
    len: usize,
    value: u8,
) {
    buffer.copy_from_slice(original);
    fill(&mut buffer[start..start + len], value);
    let mut expected = original.to_vec();
    for byte in &mut expected[start..start + len] {
        *byte = value;
    }
    if buffer != &expected[..] {
        let first = (0..buffer.len())
            .find(|&i| buffer[i] != expected[i])
            .unwrap();
        panic!(
            "{name}: fill of {len} bytes at offset {start} with {value:#04x}: byte {first} \
             ({} relative to the start) is {:#04x}, expected {:#04x}",
            first as isize - start as isize,
            buffer[first],
            expected[first]
        );
    }
}

/// Every length 0..=1300 at every offset 0..=63 from a 64-byte boundary, with
/// 64 canary bytes before and after: past 16 AVX-512 vectors (1024 bytes),
/// where the loop over lines starts, by enough lines for every count of
/// lines left over after its blocks of four.
#[test]
fn every_length_and_offset() {
    const MARGIN: usize = 64;
    const MAX: usize = 1300;
    // A 64-byte aligned start, so that offsets are offsets from a boundary.
    let mut storage = vec![0u8; 2 * MARGIN + 64 + MAX + 64];
    let base = storage.as_ptr().align_offset(64);
    let buffer = &mut storage[base..base + 2 * MARGIN + 64 + MAX];
    // Random canaries: a byte equal to the value by chance is still checked.
    let original = random_bytes(buffer.len(), 1);
    for (name, fill) in kernels() {
        for &value in values(&name) {
            for offset in 0..64 {
                for len in 0..=MAX {
                    check(&name, fill, buffer, &original, MARGIN + offset, len, value);
                }
            }
        }
    }
}

/// Lengths up to several MiB, around the switch to `rep stosb` (1 MiB) and
/// past the caches, at offsets 0, 1 and 33, with canaries.
#[test]
fn large_lengths() {
    const MARGIN: usize = 64;
    let lengths = [
        4095,
        4096,
        65_537,
        (1 << 20) - 1,
        1 << 20,
        (1 << 20) + 1,
        (3 << 20) + 17,
        (8 << 20) + 5,
    ];
    let max = lengths.iter().max().unwrap();
    let mut storage = vec![0u8; 2 * MARGIN + 64 + max + 64];
    let base = storage.as_ptr().align_offset(64);
    let buffer = &mut storage[base..base + 2 * MARGIN + 64 + max];
    let original = random_bytes(buffer.len(), 2);
    for (name, fill) in kernels() {
        for &len in &lengths {
            for offset in [0, 1, 33] {
                let end = MARGIN + offset + len + MARGIN;
                check(
                    &name,
                    fill,
                    &mut buffer[..end],
                    &original[..end],
                    MARGIN + offset,
                    len,
                    values(&name)[0],
                );
            }
        }
    }
}

/// The data right before an inaccessible page and right after one, for every
/// length up to 1300 and every distance from the guard page up to 64 bytes:
/// a store past either end of the data is a crash. The masked stores of the
/// AVX-512 path near the end of a page go through their page-crossing case
/// here.
#[cfg(unix)]
#[test]
fn guard_pages() {
    let mut guarded = common::GuardedPage::new();
    let page = guarded.page_mut().len();
    let original = random_bytes(page, 3);
    for (name, fill) in kernels() {
        let value = values(&name)[0];
        for len in 0..=1300 {
            for gap in 0..64 {
                let start = page - gap - len;
                check(
                    &name,
                    fill,
                    guarded.page_mut(),
                    &original,
                    start,
                    len,
                    value,
                );
                check(&name, fill, guarded.page_mut(), &original, gap, len, value);
                // The same ranges as `GuardedPage` hands them out.
                guarded.page_mut().copy_from_slice(&original);
                fill(guarded.before_guard(len, gap), value);
                fill(guarded.after_guard(len, gap), value);
            }
        }
    }
}

#[test]
fn kernels_of_available_tiers_only() {
    for tier in Tier::ALL {
        assert_eq!(fill_kernel(tier).is_some(), tier.is_available(), "{tier}");
        assert_eq!(
            fill_nontemporal_kernel(tier).is_some(),
            tier.is_available(),
            "{tier}"
        );
    }
    assert!(fill_kernel(fastpath::active_tier()).is_some());
}

#[test]
fn empty_and_whole() {
    for (name, fill) in kernels() {
        fill(&mut [], 1);
        let mut buf = [7u8; 1000];
        fill(&mut buf, values(&name)[0]);
        assert!(buf.iter().all(|&b| b == values(&name)[0]), "{name}");
    }
}

/// Random lengths, offsets and values, compared with `slice::fill`.
#[test]
fn random_fills_match_slice_fill() {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move |bound: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % bound as u64) as usize
    };
    let original = random_bytes(20_000, 4);
    let mut buffer = original.clone();
    for (name, fill) in kernels() {
        for _ in 0..2000 {
            let start = next(4000);
            // Mostly short, sometimes up to 16 KB.
            let len = if next(4) == 0 {
                next(16_000)
            } else {
                next(300)
            };
            let value = if name == "fastpath::zero" {
                0
            } else {
                next(256) as u8
            };
            check(&name, fill, &mut buffer, &original, start, len, value);
        }
    }
}

/// `fill_nontemporal` switches from `fill` to the non-temporal kernel at
/// its threshold: both sides fill every byte and nothing else.
#[test]
fn fill_nontemporal_around_its_threshold() {
    let threshold = fastpath::caches().nontemporal_threshold();
    assert!(threshold > 0);
    let mut buf = vec![0x11u8; threshold + 130];
    // And around 64 KiB, the lowest threshold, below which it calls `fill`'s
    // kernel without reading the threshold.
    let lowest = 64 << 10;
    assert!(threshold >= lowest);
    for len in [
        lowest - 1,
        lowest,
        lowest + 1,
        threshold - 1,
        threshold,
        threshold + 1,
        threshold + 65,
    ] {
        for offset in [0, 1] {
            buf.fill(0x11);
            fastpath::fill_nontemporal(&mut buf[offset..offset + len], 0xee);
            assert!(
                buf[offset..offset + len].iter().all(|&b| b == 0xee),
                "{len} at +{offset}"
            );
            assert!(
                buf[..offset]
                    .iter()
                    .chain(&buf[offset + len..])
                    .all(|&b| b == 0x11),
                "{len} at +{offset}: a byte outside changed"
            );
        }
    }
}
