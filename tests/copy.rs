//! Every copy-and-checksum kernel of every tier this machine runs, and the
//! public entry points, against `copy_from_slice` and the RFC 1071 reference.

mod common;

use core::mem::MaybeUninit;

use common::{copy_kernels, random_bytes};
use fastpath::{Checksum, checksum, reference};

/// Canary bytes around the destination range, which must survive.
const CANARY: u8 = 0xa5;

/// Views bytes as possibly uninitialized ones.
fn uninit(bytes: &mut [u8]) -> &mut [MaybeUninit<u8>] {
    // SAFETY: same layout; the kernels only write initialized bytes.
    unsafe { &mut *(bytes as *mut [u8] as *mut [MaybeUninit<u8>]) }
}

/// Copies `len` bytes from `src_offset` of `source` to `dst_offset` of a
/// canary-filled buffer with `kernel`, and checks the copy, the sum and the
/// canaries.
fn check(
    kernel: common::CopyKernel,
    tier: &str,
    source: &[u8],
    src_offset: usize,
    dst_offset: usize,
    len: usize,
    expected: u16,
) {
    let src = &source[src_offset..src_offset + len];
    let mut out = vec![CANARY; dst_offset + len + 64];
    let sum = kernel(uninit(&mut out[dst_offset..dst_offset + len]), src);
    assert_eq!(
        sum, expected,
        "{tier}: sum, length {len}, offsets {src_offset}/{dst_offset}"
    );
    assert_eq!(
        &out[dst_offset..dst_offset + len],
        src,
        "{tier}: copy, length {len}, offsets {src_offset}/{dst_offset}"
    );
    assert!(
        out[..dst_offset]
            .iter()
            .chain(&out[dst_offset + len..])
            .all(|&b| b == CANARY),
        "{tier}: a byte outside the destination changed, length {len}, offsets {src_offset}/{dst_offset}"
    );
}

/// Every length 0..=1100 at every source offset 0..=63; every destination
/// offset 0..=63 up to 256 bytes, and a sample of them beyond.
#[test]
fn every_length_and_offset() {
    let source = random_bytes(1100 + 64, 21);
    let kernels = copy_kernels();
    for src_offset in 0..64 {
        for len in 0..=1100 {
            let expected = reference::sum(&source[src_offset..src_offset + len]);
            let dst_offsets: &[usize] = if len <= 256 {
                &[0; 0]
            } else {
                &[0, 1, 3, 31, 32, 63]
            };
            for (tier, kernel) in &kernels {
                if len <= 256 {
                    for dst_offset in 0..64 {
                        check(
                            *kernel, tier, &source, src_offset, dst_offset, len, expected,
                        );
                    }
                } else {
                    for &dst_offset in dst_offsets {
                        check(
                            *kernel, tier, &source, src_offset, dst_offset, len, expected,
                        );
                    }
                }
            }
        }
    }
}

/// Long buffers of all-0xff bytes (the largest words) and random bytes,
/// around the lengths where the kernels split their input into pieces:
/// 256 KiB for SSE2, 512 KiB for AVX2 and AVX-512.
#[test]
fn long_buffers() {
    const PIECE: usize = 512 << 10;
    let lengths = [
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
    for len in lengths {
        for source in [vec![0xff; len + 1], random_bytes(len + 1, len as u64)] {
            let expected = reference::sum(&source[1..]);
            for (tier, kernel) in copy_kernels() {
                check(kernel, &tier, &source, 1, 3, len, expected);
            }
        }
    }
}

/// No kernel reads or writes outside its slices: source and destination
/// placed right before, and right after, an inaccessible page.
#[cfg(unix)]
#[test]
fn guard_pages() {
    let mut src_page = common::GuardedPage::new();
    let mut dst_page = common::GuardedPage::new();
    let fill = random_bytes(src_page.page_mut().len(), 4);
    src_page.page_mut().copy_from_slice(&fill);
    for (tier, kernel) in copy_kernels() {
        for len in 0..=300 {
            for gap in [0, 1, 2, 3, 31, 63] {
                let cases: [(bool, bool); 4] =
                    [(false, false), (false, true), (true, false), (true, true)];
                for (src_after, dst_after) in cases {
                    let src = src_page.next_to_guard(src_after, len, gap).to_vec();
                    let src_slice = src_page.next_to_guard(src_after, len, gap);
                    let dst = dst_page.next_to_guard(dst_after, len, gap);
                    let sum = kernel(uninit(dst), src_slice);
                    assert_eq!(
                        sum,
                        reference::sum(&src),
                        "{}: {len} bytes, gap {gap}",
                        tier
                    );
                    assert_eq!(dst, &src[..], "{}: {len} bytes, gap {gap}", tier);
                }
            }
        }
    }
}

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
