//! Every checksum kernel of every tier this machine runs, and the public
//! entry points, against the RFC 1071 reference.

mod common;

use common::{Case, Implementation, Operands, Pattern, Place, Primitive, Runner, random_bytes};
use fastpath::{Checksum, Tier, checksum, reference};
use proptest::prelude::*;

/// The folded sum: every table's checksum kernel, complemented, and
/// `fastpath::checksum`, against `reference::sum`.
struct Sum;

impl Primitive for Sum {
    const OPERANDS: Operands = Operands::Source;
    const PATTERNS: &'static [Pattern] = &[Pattern::Random, Pattern::Zeros, Pattern::Ones];
    /// Where a 32-bit sum of 16-bit words overflows (from 131 076 bytes of
    /// 0xff on); the pieces the SSE2 and AVX2 kernels sum (256 KiB and
    /// 512 KiB), whose longest is the fullest their lanes get; NEON's
    /// reduction blocks of 2 MiB, two whole ones then three vectors and a
    /// tail; and past 16 MiB.
    const LONG_LENGTHS: &'static [usize] = &[
        131_071,
        131_072,
        131_073,
        131_074,
        131_075,
        131_076,
        131_077,
        (256 << 10) - 1,
        256 << 10,
        (256 << 10) + 1,
        (512 << 10) - 1,
        512 << 10,
        (512 << 10) + 1,
        (1 << 20) - 1,
        1 << 20,
        (4 << 20) + 63,
        (4 << 20) + 64,
        (1 << 24) + 1,
    ];

    fn reference(_: &mut [u8], src: &[u8], _: u8) -> u16 {
        reference::sum(src)
    }

    fn implementations() -> Vec<Implementation> {
        let mut implementations = Implementation::tables(|kernels, _, src, _| kernels.sum(src));
        implementations.push(Implementation::new(
            common::public("checksum"),
            |_, src, _| !checksum(src),
        ));
        implementations
    }
}

common::primitive_tests!(sum: Sum);

#[test]
fn rfc1071_section3_example() {
    let data = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7];
    assert_eq!(reference::sum(&data), 0xddf2);
    for implementation in Sum::implementations() {
        assert_eq!(
            implementation.call(&mut [], &data, 0),
            0xddf2,
            "{}",
            implementation.name
        );
    }
    assert_eq!(checksum(&data), 0x220d);
}

#[test]
fn conventions() {
    assert_eq!(checksum(&[]), 0xffff);
    assert_eq!(checksum(&[0; 64]), 0xffff);
    // An odd final byte is the high byte of a word padded with zero.
    assert_eq!(checksum(&[0x12]), !0x1200);
    assert_eq!(checksum(&[0x12, 0x34, 0x56]), !0x6834);
    // A correct checksum field makes the data sum to 0.
    let mut data = random_bytes(1000, 7);
    data[10..12].fill(0);
    let sum = checksum(&data);
    data[10..12].copy_from_slice(&sum.to_be_bytes());
    assert_eq!(checksum(&data), 0);
}

/// Lengths around every multiple of 64 up to 70 000, at offsets 0, 1 and
/// 33: the arithmetic over every count of 64-byte steps.
#[test]
fn lengths_around_multiples_of_64() {
    let mut runner = Runner::<Sum>::new();
    for &pattern in Sum::PATTERNS {
        for base in (64..=70_000).step_by(64) {
            let mut cases = Vec::new();
            for offset in [0, 1, 33] {
                for len in base - 2..=base + 2 {
                    cases.push(Case {
                        pattern,
                        len,
                        src: Place::Offset(offset),
                        dst: Place::Offset(0),
                        value: 0,
                    });
                }
            }
            runner.run(&cases);
        }
    }
}

/// More than 2^32 bytes of 0xff (4 GiB of memory), past every 32-bit
/// counter: even lengths sum to 0xffff (checksum 0), odd ones to 0xff00
/// (checksum 0x00ff).
#[test]
#[cfg(target_pointer_width = "64")]
fn overflow_all_ones_past_4_gib() {
    if std::env::var_os("FASTPATH_SKIP_HUGE_TESTS").is_some() {
        eprintln!("skipped: FASTPATH_SKIP_HUGE_TESTS is set");
        return;
    }
    let len = (1 << 32) + 3;
    let data = vec![0xff; len];
    for implementation in Sum::implementations() {
        let name = &implementation.name;
        assert_eq!(
            implementation.call(&mut [], &data, 0),
            0xff00,
            "{name}: {len} bytes"
        );
        assert_eq!(
            implementation.call(&mut [], &data[1..], 0),
            0xffff,
            "{name}: {len} - 1 bytes"
        );
    }
}

#[test]
fn streaming_split_at_every_position() {
    for len in [0, 1, 2, 3, 63, 64, 65, 100, 257, 1500] {
        let data = random_bytes(len, 11);
        let expected = checksum(&data);
        for split in 0..=len {
            let mut sum = Checksum::new();
            sum.update(&data[..split]);
            sum.update(&data[split..]);
            assert_eq!(sum.finish(), expected, "length {len}, split {split}");

            let (mut head, mut tail) = (Checksum::new(), Checksum::new());
            head.update(&data[..split]);
            tail.update(&data[split..]);
            head.combine(&tail);
            assert_eq!(
                head.finish(),
                expected,
                "combine: length {len}, split {split}"
            );
        }
    }
}

#[test]
fn one_byte_at_a_time() {
    let data = random_bytes(3000, 5);
    let mut sum = Checksum::new();
    for byte in &data {
        sum.update(core::slice::from_ref(byte));
    }
    assert_eq!(sum.finish(), checksum(&data));
    assert!(!sum.is_odd());
}

#[test]
fn add_values_equal_added_bytes() {
    // Pseudo-header fields added as values equal the same bytes added as
    // data, at an even position.
    let mut by_value = Checksum::new();
    by_value.update(b"pseudo");
    by_value.add_u32(0xc0a8_0001);
    by_value.add_u16(0x0011);
    let mut by_bytes = Checksum::new();
    by_bytes.update(b"pseudo");
    by_bytes.update(&[0xc0, 0xa8, 0x00, 0x01, 0x00, 0x11]);
    assert_eq!(by_value, by_bytes);
    // After an odd number of bytes a value is still added as a whole word.
    let mut odd = Checksum::new();
    odd.update(b"x");
    odd.add_u16(0x1234);
    assert_eq!(odd.sum(), 0x7800 + 0x1234);
    assert!(odd.is_odd());
}

#[test]
fn scatter_gather() {
    let data = random_bytes(5000, 9);
    let pieces: Vec<&[u8]> = vec![
        &data[..1],
        &data[1..4],
        &data[4..1001],
        &data[1001..1001],
        &data[1001..],
    ];
    assert_eq!(fastpath::checksum_vectored(&pieces), checksum(&data));
    let mut sum = Checksum::new();
    sum.update_vectored(pieces.iter());
    assert_eq!(sum.finish(), checksum(&data));
}

#[test]
fn from_parts_round_trip() {
    let data = random_bytes(777, 13);
    let mut a = Checksum::new();
    a.update(&data[..333]);
    let rebuilt = Checksum::from_parts(a.sum(), a.is_odd());
    assert_eq!(rebuilt, a);
    let mut b = rebuilt;
    b.update(&data[333..]);
    assert_eq!(b.finish(), checksum(&data));
}

/// The active tier is the best one available, ranked no higher than the cap
/// that `FASTPATH_TIER` sets with `std` (CI runs this suite once per tier);
/// without `std`, which reads no environment, the best one available.
#[test]
fn active_tier_honours_fastpath_tier() {
    let active = fastpath::active_tier();
    eprintln!("active tier: {active}");
    assert!(active.is_available());
    let variable = std::env::var("FASTPATH_TIER").ok();
    if !cfg!(feature = "std") && variable.is_some() {
        eprintln!("FASTPATH_TIER is ignored without std");
    }
    let cap = variable
        .filter(|_| cfg!(feature = "std"))
        .and_then(|value| value.parse::<Tier>().ok())
        .map_or(u8::MAX, Tier::rank);
    let expected = Tier::ALL
        .into_iter()
        .rev()
        .find(|t| t.is_available() && t.rank() <= cap)
        .unwrap();
    assert_eq!(active, expected);
}

/// The x86_64 tiers are available exactly where the standard library
/// detects their features, with or without fastpath's `std` feature (its
/// own detection reads CPUID and XGETBV).
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[test]
fn x86_64_tiers_are_the_ones_std_detects() {
    use fastpath::arch::x86_64::{Avx2, Avx512, Avx512Vnni, Sse2};

    let avx512 = is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bw");
    assert_eq!(Sse2::is_available(), is_x86_feature_detected!("sse2"));
    assert_eq!(Avx2::is_available(), is_x86_feature_detected!("avx2"));
    assert_eq!(Avx512::is_available(), avx512);
    let vnni = avx512 && is_x86_feature_detected!("avx512vnni");
    assert_eq!(Avx512Vnni::is_available(), vnni);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn streaming_any_splits(
        data in proptest::collection::vec(any::<u8>(), 0..3000),
        mut splits in proptest::collection::vec(any::<prop::sample::Index>(), 0..6),
    ) {
        let mut cuts: Vec<usize> = splits.iter_mut().map(|i| i.index(data.len() + 1)).collect();
        cuts.sort_unstable();
        let mut sum = Checksum::new();
        let mut combined = Checksum::new();
        let mut start = 0;
        for &cut in cuts.iter().chain(core::iter::once(&data.len())) {
            sum.update(&data[start..cut]);
            let mut piece = Checksum::new();
            piece.update(&data[start..cut]);
            combined.combine(&piece);
            start = cut;
        }
        prop_assert_eq!(sum.finish(), reference::checksum(&data));
        prop_assert_eq!(combined.finish(), reference::checksum(&data));
    }

    /// `add_u16s` adds each value as `add_u16` does, after any bytes.
    #[test]
    fn add_u16s_adds_each_value(
        before in proptest::collection::vec(any::<u8>(), 0..5),
        values in proptest::collection::vec(any::<u16>(), 0..3000),
    ) {
        let mut one_by_one = Checksum::new();
        one_by_one.update(&before);
        let mut at_once = one_by_one;
        for &value in &values {
            one_by_one.add_u16(value);
        }
        at_once.add_u16s(&values);
        prop_assert_eq!(at_once, one_by_one);
        prop_assert_eq!(at_once.is_odd(), one_by_one.is_odd());
    }

    /// `uncombine` takes the last piece back out, and `sub_u16`/`sub_u32`
    /// the values added: the checksum of what is left, up to the two zeros
    /// of ones'-complement arithmetic.
    #[test]
    fn subtraction_undoes_addition(
        data in proptest::collection::vec(any::<u8>(), 0..600),
        cut in any::<prop::sample::Index>(),
        values in any::<(u16, u32)>(),
    ) {
        let (head, tail) = data.split_at(cut.index(data.len() + 1));
        let same = |a: Checksum, b: Checksum| {
            a.is_odd() == b.is_odd() && a.sum() % 0xffff == b.sum() % 0xffff
        };
        let (mut whole, mut last) = (Checksum::new(), Checksum::new());
        whole.update(&data);
        last.update(tail);
        whole.uncombine(&last);
        let mut expected = Checksum::new();
        expected.update(head);
        prop_assert!(same(whole, expected), "{:?} {:?}", whole, expected);
        if head.iter().any(|&b| b != 0) {
            // Non-zero data never sums to 0: nothing to tell apart.
            prop_assert_eq!(whole.finish(), reference::checksum(head));
        }

        let mut with_values = expected;
        with_values.add_u16(values.0);
        with_values.add_u32(values.1);
        with_values.sub_u16(values.0);
        with_values.sub_u32(values.1);
        prop_assert!(same(with_values, expected));
    }
}
