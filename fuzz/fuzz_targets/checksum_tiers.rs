//! Every checksum kernel of every kernel table this CPU runs, and the public
//! entry points, against `fastpath::reference`, on data at any offset and
//! length.

#![no_main]

mod common;

use common::{Pattern, Placed, bytes};
use fastpath::reference;
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
        // Every kernel table, the AVX-512 tier's two included.
        for kernels in fastpath::arch::variants() {
            let name = kernels.name();
            assert_eq!(kernels.sum(data), expected, "{name}, {} bytes", data.len());
        }
        assert_eq!(fastpath::checksum(data), !expected);
        assert_eq!(fastpath::checksum(data), reference::checksum(data));
    }
});
