//! Every fill kernel of every tier this machine runs, the non-temporal ones,
//! and the public entry points, against a plain loop.

mod common;

use common::{Implementation, Operands, Primitive};
use fastpath::Tier;
use fastpath::arch::{fill_kernel, fill_nontemporal_kernel};

/// Lengths up to several MiB: around the switches to `rep stosb` (16 KiB at
/// the lowest a CPU's rule sets, 32 KiB on Emerald Rapids, 1 MiB elsewhere) and
/// past the caches.
const LONG_LENGTHS: &[usize] = &[
    4095,
    4096,
    16_383,
    16_384,
    32_767,
    32_768,
    65_537,
    (1 << 20) - 1,
    1 << 20,
    (1 << 20) + 1,
    (3 << 20) + 17,
    (8 << 20) + 5,
];

/// The fill: every table's fill kernel and `fastpath::fill`, against
/// `slice::fill`.
struct Fill;

impl Primitive for Fill {
    const OPERANDS: Operands = Operands::Destination;
    const VALUES: &'static [u8] = &[0xa5, 0x00, 0xff];
    const LONG_LENGTHS: &'static [usize] = LONG_LENGTHS;

    fn reference(dst: &mut [u8], _: &[u8], value: u8) -> u16 {
        dst.fill(value);
        0
    }

    fn implementations() -> Vec<Implementation> {
        let mut implementations = Implementation::tables(|kernels, dst, _, value| {
            kernels.fill(dst, value);
            0
        });
        implementations.push(Implementation::new(
            common::public("fill"),
            |dst, _, value| {
                fastpath::fill(dst, value);
                0
            },
        ));
        implementations
    }
}

/// The non-temporal fill: every table's non-temporal fill kernel and
/// `fastpath::fill_nontemporal`, against `slice::fill`.
struct FillNontemporal;

impl Primitive for FillNontemporal {
    const OPERANDS: Operands = Operands::Destination;
    const VALUES: &'static [u8] = Fill::VALUES;
    const LONG_LENGTHS: &'static [usize] = LONG_LENGTHS;

    fn reference(dst: &mut [u8], src: &[u8], value: u8) -> u16 {
        Fill::reference(dst, src, value)
    }

    fn implementations() -> Vec<Implementation> {
        let mut implementations = Implementation::tables(|kernels, dst, _, value| {
            kernels.fill_nontemporal(dst, value);
            0
        });
        implementations.push(Implementation::new(
            common::public("fill_nontemporal"),
            |dst, _, value| {
                fastpath::fill_nontemporal(dst, value);
                0
            },
        ));
        implementations
    }
}

/// `fastpath::zero`, against `slice::fill` with 0, whatever the value.
struct Zero;

impl Primitive for Zero {
    const OPERANDS: Operands = Operands::Destination;
    const LONG_LENGTHS: &'static [usize] = LONG_LENGTHS;

    fn reference(dst: &mut [u8], _: &[u8], _: u8) -> u16 {
        dst.fill(0);
        0
    }

    fn implementations() -> Vec<Implementation> {
        vec![Implementation::new("fastpath::zero", |dst, _, _| {
            fastpath::zero(dst);
            0
        })]
    }
}

common::primitive_tests!(fill: Fill);
common::primitive_tests!(fill_nontemporal: FillNontemporal);
common::primitive_tests!(zero: Zero);

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
