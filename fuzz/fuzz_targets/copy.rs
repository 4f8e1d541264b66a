//! Every copy kernel of every kernel table this CPU runs, and the public
//! `copy` and `copy_uninit`, against `copy_from_slice`, with the source and
//! the destination at any offsets: the copy must be exact and write nothing
//! outside the destination.

#![no_main]

mod common;

use common::{Pattern, Placed, bytes, uninit};
use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;

/// Filler of the destination's allocation before the destination, which
/// must survive.
const CANARY: u8 = 0xa5;

#[derive(Arbitrary, Debug)]
struct Input {
    src_offset: u8,
    dst_offset: u8,
    len: u16,
    pattern: Pattern,
    seed: Vec<u8>,
}

fuzz_target!(|input: Input| {
    let len = usize::from(input.len);
    let data = bytes(input.pattern, &input.seed, len);
    // The source ends at the end of its allocation, so a read past it is
    // reported.
    let source = Placed::new(&data, usize::from(input.src_offset % 128), 0);
    let src = source.data();
    let dst_offset = usize::from(input.dst_offset % 128);
    // The destination ends at the end of its allocation, so a write past it
    // is reported; the canaries before it catch one before it. Its bytes
    // start as the complement of the source's, so a byte not copied shows.
    let complement: Vec<u8> = src.iter().map(|&b| !b).collect();
    let fresh_dst = || Placed::new(&complement, dst_offset, CANARY);
    let check = |dst: &Placed, what: &str| {
        assert_eq!(dst.data(), src, "{what}: {len} bytes");
        assert!(
            dst.before().iter().all(|&b| b == CANARY),
            "{what}: wrote before dst"
        );
    };

    for kernels in fastpath::arch::variants() {
        let mut dst = fresh_dst();
        kernels.copy(dst.data_mut(), src);
        check(&dst, kernels.name());
    }

    let mut dst = fresh_dst();
    fastpath::copy(dst.data_mut(), src);
    check(&dst, "copy");

    let mut dst = fresh_dst();
    let copied = fastpath::copy_uninit(uninit(dst.data_mut()), src);
    assert_eq!(&*copied, src, "copy_uninit: returned slice");
    check(&dst, "copy_uninit");
});
