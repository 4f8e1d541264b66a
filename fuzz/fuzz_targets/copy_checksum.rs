//! Every copy-and-checksum kernel of every kernel table this CPU runs, and the public
//! entry points, against `copy_from_slice` and `fastpath::reference`, with
//! the source and the destination at any offsets.

#![no_main]

mod common;

use core::mem::MaybeUninit;

use common::{Pattern, Placed, bytes, uninit};
use fastpath::{Checksum, reference};
use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;

/// Filler of the destination's allocation around the destination, which
/// must survive.
const CANARY: u8 = 0xa5;

#[derive(Arbitrary, Debug)]
struct Input {
    src_offset: u8,
    dst_offset: u8,
    len: u16,
    pattern: Pattern,
    seed: Vec<u8>,
    /// Where `update_copy` splits the copy.
    splits: Vec<u16>,
    /// A destination this much longer or shorter, for `try_copy_checksum`.
    mismatch: i8,
}

fuzz_target!(|input: Input| {
    let len = usize::from(input.len);
    let data = bytes(input.pattern, &input.seed, len);
    let expected = reference::sum(&data);
    let src = Placed::new(&data, usize::from(input.src_offset % 128), 0x3c);
    let src = src.data();
    let dst_offset = usize::from(input.dst_offset % 128);
    // The destination ends at the end of its allocation, so a write past it
    // is reported; the canaries before it catch one before it.
    let fresh_dst = || Placed::new(&vec![CANARY; len], dst_offset, CANARY);
    let check = |dst: &Placed, what: &str| {
        assert_eq!(dst.data(), src, "{what}: copy");
        assert!(
            dst.before().iter().all(|&b| b == CANARY),
            "{what}: wrote before dst"
        );
    };

    // Every kernel table, the AVX-512 tier's two included.
    for kernels in fastpath::arch::variants() {
        let mut dst = fresh_dst();
        let sum = kernels.copy_sum_uninit(uninit(dst.data_mut()), src);
        assert_eq!(sum, expected, "{}: sum", kernels.name());
        check(&dst, kernels.name());
    }

    let mut dst = fresh_dst();
    assert_eq!(fastpath::copy_checksum(dst.data_mut(), src), !expected);
    check(&dst, "copy_checksum");

    let mut dst = fresh_dst();
    assert_eq!(
        fastpath::try_copy_checksum(dst.data_mut(), src),
        Ok(!expected)
    );
    check(&dst, "try_copy_checksum");

    // Into memory never initialized.
    let mut ring: Vec<MaybeUninit<u8>> = Vec::with_capacity(len);
    // SAFETY: MaybeUninit needs no initialization; the capacity is there.
    unsafe { ring.set_len(len) };
    let (copied, sum) = fastpath::copy_checksum_uninit(&mut ring, src);
    assert_eq!((&*copied, sum), (src, !expected), "copy_checksum_uninit");

    // In pieces, at sorted split points.
    let mut cuts: Vec<usize> = input
        .splits
        .iter()
        .map(|&s| usize::from(s) % (len + 1))
        .collect();
    cuts.sort_unstable();
    cuts.push(len);
    let mut dst = fresh_dst();
    let mut running = Checksum::new();
    let mut start = 0;
    for &cut in &cuts {
        running.update_copy(&mut dst.data_mut()[start..cut], &src[start..cut]);
        start = cut;
    }
    assert_eq!(running.finish(), !expected, "update_copy at {cuts:?}");
    check(&dst, "update_copy");

    // Lengths that differ: an error, and nothing written.
    let other = len.saturating_add_signed(isize::from(input.mismatch));
    if other != len {
        let mut dst = Placed::new(&vec![CANARY; other], dst_offset, CANARY);
        assert!(fastpath::try_copy_checksum(dst.data_mut(), src).is_err());
        assert!(
            dst.data().iter().all(|&b| b == CANARY),
            "wrote on a length mismatch"
        );
    }
});
