//! Every copy-and-checksum kernel of every tier this machine runs, and the
//! public entry points, against `copy_from_slice` and the RFC 1071 reference.

mod common;

use core::mem::MaybeUninit;

use common::{Destinations, Implementation, Operands, Pattern, Primitive, random_bytes};
use fastpath::{Checksum, checksum, reference};

/// The copy and its folded sum: every table's copy-and-checksum kernel and
/// `fastpath::copy_checksum_uninit`, against `copy_from_slice` and
/// `reference::sum`.
struct CopySum;

impl Primitive for CopySum {
    const OPERANDS: Operands = Operands::Both;
    const PATTERNS: &'static [Pattern] = &[Pattern::Random, Pattern::Ones];
    /// The kernels walk the source, storing each vector where it was read:
    /// the destination's offset only decides which stores split a line.
    /// Aligned, one past, odd, and either side of a half line.
    const DESTINATIONS: Destinations = Destinations::Offsets(&[0, 1, 3, 31, 32, 63]);
    /// Around the lengths where the kernels split their input into pieces:
    /// 256 KiB for SSE2, 512 KiB for AVX2 and AVX-512.
    const LONG_LENGTHS: &'static [usize] = &[
        65_536,
        65_537,
        PIECE / 2,
        PIECE / 2 + 1,
        PIECE,
        PIECE + 1,
        PIECE + 511,
        PIECE + 512,
        PIECE + 513,
        2 * PIECE + 511,
        (1 << 20) + 3,
        (4 << 20) + 64 + 1,
    ];

    fn reference(dst: &mut [u8], src: &[u8], _: u8) -> u16 {
        dst.copy_from_slice(src);
        reference::sum(src)
    }

    fn implementations() -> Vec<Implementation> {
        let mut implementations = Implementation::tables(|kernels, dst, src, _| {
            kernels.copy_sum_uninit(common::uninit(dst), src)
        });
        implementations.push(Implementation::new(
            common::public("copy_checksum_uninit"),
            |dst, src, _| !fastpath::copy_checksum_uninit(common::uninit(dst), src).1,
        ));
        implementations
    }
}

/// The longest piece the AVX2 and AVX-512 kernels sum at once.
const PIECE: usize = 512 << 10;

common::primitive_tests!(copy_sum: CopySum);

#[test]
fn streaming_split_at_every_position() {
    for len in [0, 1, 2, 3, 63, 64, 65, 129, 257, 1500] {
        let data = random_bytes(len, 17);
        for split in 0..=len {
            let mut out = vec![0u8; len];
            let mut sum = Checksum::new();
            let (head, tail) = out.split_at_mut(split);
            sum.update_copy(head, &data[..split]);
            sum.update_copy(tail, &data[split..]);
            assert_eq!(sum.finish(), checksum(&data), "length {len}, split {split}");
            assert_eq!(out, data);

            let mut buf = vec![MaybeUninit::<u8>::uninit(); len];
            let mut sum = Checksum::new();
            let (head, tail) = buf.split_at_mut(split);
            assert_eq!(sum.update_copy_uninit(head, &data[..split]), &data[..split]);
            assert_eq!(sum.update_copy_uninit(tail, &data[split..]), &data[split..]);
            assert_eq!(
                sum.finish(),
                checksum(&data),
                "uninit: length {len}, split {split}"
            );
        }
    }
}

#[test]
fn public_entry_points() {
    for len in [0, 1, 20, 128, 129, 1500, 9001] {
        let data = random_bytes(len, 3);
        let mut out = vec![0u8; len];
        assert_eq!(fastpath::copy_checksum(&mut out, &data), checksum(&data));
        assert_eq!(out, data);
        let mut out = vec![0u8; len];
        assert_eq!(
            fastpath::try_copy_checksum(&mut out, &data),
            Ok(checksum(&data))
        );
        assert_eq!(out, data);
    }
}

#[test]
fn length_mismatch_is_an_error() {
    let mut dst = [0u8; 4];
    let err = fastpath::try_copy_checksum(&mut dst, &[1, 2, 3]).unwrap_err();
    assert_eq!((err.dst_len(), err.src_len()), (4, 3));
    assert_eq!(
        err.to_string(),
        "source slice length (3) does not match destination slice length (4)"
    );
    assert_eq!(dst, [0; 4], "nothing is written on error");
}

#[test]
#[should_panic(expected = "does not match destination slice length")]
fn length_mismatch_panics() {
    let mut dst = [0u8; 4];
    fastpath::copy_checksum(&mut dst, &[1, 2, 3]);
}

#[test]
#[should_panic(expected = "does not match destination slice length")]
fn tier_length_mismatch_panics() {
    let mut dst = [0u8; 4];
    fastpath::arch::portable::Portable::new().copy_sum(&mut dst, &[1, 2, 3]);
}
