//! `fill`, `zero`, `fill_nontemporal` and every tier's fill kernels against
//! `slice::fill`, at any offset and length, with canaries before the
//! destination and its end at the end of its allocation.

#![no_main]

mod common;

use common::Placed;
use fastpath::Tier;
use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;

/// Filler of the allocation before the destination, which must survive.
const CANARY: u8 = 0xa5;

#[derive(Arbitrary, Debug)]
struct Input {
    offset: u8,
    /// Up to 64 KiB; past the kernels' switch to `rep stosb` only by the
    /// tests' fixed lengths.
    len: u16,
    value: u8,
}

fuzz_target!(|input: Input| {
    let len = usize::from(input.len);
    let offset = usize::from(input.offset % 128);
    let expected = vec![input.value; len];
    // Start from bytes that differ from the value everywhere.
    let start = vec![!input.value; len];
    let check = |dst: &Placed, what: &str| {
        assert!(
            dst.data() == &expected[..],
            "{what}: {len} bytes at {offset}"
        );
        assert!(
            dst.before().iter().all(|&b| b == CANARY),
            "{what}: wrote before dst"
        );
    };

    type Kernel = fastpath::arch::FillKernel;
    let mut kernels: Vec<(String, Kernel)> = vec![
        ("fill".into(), fastpath::fill as Kernel),
        (
            "fill_nontemporal".into(),
            fastpath::fill_nontemporal as Kernel,
        ),
    ];
    for tier in Tier::ALL {
        if let Some(k) = fastpath::arch::fill_kernel(tier) {
            kernels.push((format!("{tier}"), k));
        }
        if let Some(k) = fastpath::arch::fill_nontemporal_kernel(tier) {
            kernels.push((format!("{tier} non-temporal"), k));
        }
    }
    for (what, kernel) in kernels {
        let mut dst = Placed::new(&start, offset, CANARY);
        kernel(dst.data_mut(), input.value);
        check(&dst, &what);
    }
    let mut dst = Placed::new(&vec![0xff; len], offset, CANARY);
    fastpath::zero(dst.data_mut());
    assert!(
        dst.data().iter().all(|&b| b == 0),
        "zero: {len} bytes at {offset}"
    );
    assert!(
        dst.before().iter().all(|&b| b == CANARY),
        "zero: wrote before dst"
    );
});
