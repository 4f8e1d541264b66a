//! Every checksum kernel of every tier this CPU runs, and the public entry
//! points, against `fastpath::reference`, on data at any offset and length.

#![no_main]

mod common;

use common::{Pattern, Placed, bytes};
use fastpath::{Tier, reference};
use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
struct Input {
    /// Start of the data in its allocation (any alignment).
    offset: u8,
    /// Length of the data.
    len: u16,
    pattern: Pattern,
    seed: Vec<u8>,
}

fuzz_target!(|input: Input| {
    let data = bytes(input.pattern, &input.seed, usize::from(input.len));
    let expected = reference::sum(&data);
    // Once with the data ending at the end of its allocation, at an offset;
    // once filling its allocation exactly.
    let placements = [
        Placed::new(&data, usize::from(input.offset % 128), 0x5a),
        Placed::new(&data, 0, 0),
    ];
    for placed in &placements {
        let data = placed.data();
        for tier in Tier::ALL {
            if let Some(sum) = fastpath::arch::sum_kernel(tier) {
                assert_eq!(sum(data), expected, "{tier}, {} bytes", data.len());
            }
        }
        // The AVX-512 tier's kernel without VNNI, which the tier does not
        // use where the CPU has VNNI.
        #[cfg(target_arch = "x86_64")]
        if let Some(avx512) = fastpath::arch::x86_64::Avx512::new() {
            assert_eq!(avx512.sum(data), expected, "avx512 without VNNI");
        }
        assert_eq!(fastpath::checksum(data), !expected);
        assert_eq!(fastpath::checksum(data), reference::checksum(data));
    }
});
