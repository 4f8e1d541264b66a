//! `Checksum` (streaming, values, combine, scatter-gather, a restored
//! initial state) against `fastpath::reference` run on the same bytes laid
//! end to end; and every tier's kernel as the summer of the pieces that
//! `combine` joins.

#![no_main]

mod common;

use common::{Pattern, bytes, reference_add};
use fastpath::{Checksum, Tier, reference};
use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
enum Op {
    /// `update` with the next `n` bytes.
    Update(u16),
    /// `update_vectored` with the next pieces of these lengths.
    UpdateVectored(Vec<u8>),
    /// A fresh `Checksum` of the next `n` bytes, then `combine`.
    Combine(u16),
    /// `update_copy` with the next `n` bytes.
    UpdateCopy(u16),
    /// A value added as a whole word, wherever it lands.
    AddU16(u16),
    /// Two words.
    AddU32(u32),
}

#[derive(Arbitrary, Debug)]
struct Input {
    /// A state restored with `Checksum::from_parts`: a sum and whether an
    /// odd number of bytes went into it.
    initial: Option<(u16, bool)>,
    pattern: Pattern,
    seed: Vec<u8>,
    ops: Vec<Op>,
}

/// What the reference sums: the data bytes in order, and the values, which
/// are whole words wherever they were added.
#[derive(Default)]
struct Model {
    data: Vec<u8>,
    values: Vec<u16>,
}

impl Model {
    fn sum(&self) -> u16 {
        let mut bytes = self.data.clone();
        // The values are words in their own right: add them at an even
        // position, after a zero that changes nothing.
        if bytes.len() % 2 == 1 {
            bytes.push(0);
        }
        bytes.extend(self.values.iter().flat_map(|v| v.to_be_bytes()));
        reference::sum(&bytes)
    }
}

fuzz_target!(|input: Input| {
    let total: usize = input
        .ops
        .iter()
        .map(|op| match op {
            Op::Update(n) | Op::Combine(n) | Op::UpdateCopy(n) => usize::from(*n),
            Op::UpdateVectored(lens) => lens.iter().map(|&n| usize::from(n)).sum(),
            Op::AddU16(_) | Op::AddU32(_) => 0,
        })
        .sum();
    if total > 1 << 16 {
        return;
    }
    let stream = bytes(input.pattern, &input.seed, total);

    let mut sum = Checksum::new();
    let mut model = Model::default();
    if let Some((initial, odd)) = input.initial {
        sum = Checksum::from_parts(initial, odd);
        // An odd count before: one byte (a zero) in front of the data.
        if odd {
            model.data.push(0);
        }
        model.values.push(initial);
    }
    // Every piece of data added, for the scatter-gather and per-tier checks.
    let mut pieces: Vec<&[u8]> = Vec::new();
    let mut rest = &stream[..];
    for op in &input.ops {
        let mut take = |n: usize| {
            let (piece, tail) = rest.split_at(n);
            rest = tail;
            piece
        };
        match op {
            Op::Update(n) => {
                let piece = take(usize::from(*n));
                sum.update(piece);
                model.data.extend_from_slice(piece);
                pieces.push(piece);
            }
            Op::UpdateVectored(lens) => {
                let these: Vec<&[u8]> = lens.iter().map(|&n| take(usize::from(n))).collect();
                sum.update_vectored(these.iter());
                for piece in these {
                    model.data.extend_from_slice(piece);
                    pieces.push(piece);
                }
            }
            Op::Combine(n) => {
                let piece = take(usize::from(*n));
                let mut other = Checksum::new();
                other.update(piece);
                assert_eq!(other.sum(), reference::sum(piece));
                sum.combine(&other);
                model.data.extend_from_slice(piece);
                pieces.push(piece);
            }
            Op::UpdateCopy(n) => {
                let piece = take(usize::from(*n));
                let mut copy = vec![0u8; piece.len()];
                sum.update_copy(&mut copy, piece);
                assert_eq!(copy, piece);
                model.data.extend_from_slice(piece);
                pieces.push(piece);
            }
            Op::AddU16(value) => {
                sum.add_u16(*value);
                model.values.push(*value);
            }
            Op::AddU32(value) => {
                sum.add_u32(*value);
                model.values.push((value >> 16) as u16);
                model.values.push(*value as u16);
            }
        }
        assert_eq!(sum.is_odd(), model.data.len() % 2 == 1, "after {op:?}");
        // Every step of short streams; long ones at the end only, which
        // keeps the reference's work linear.
        if model.data.len() < 4096 {
            assert_eq!(sum.sum(), model.sum(), "after {op:?}");
        }
    }
    assert_eq!(sum.sum(), model.sum());
    assert_eq!(sum.finish(), !model.sum());

    // The data alone, through scatter-gather and one shot.
    let data_only = reference::sum(&stream);
    assert_eq!(fastpath::checksum_vectored(pieces.iter()), !data_only);
    assert_eq!(fastpath::checksum(&stream), !data_only);

    // Each tier's kernel sums the pieces, `combine` joins them.
    for tier in Tier::ALL {
        let Some(kernel) = fastpath::arch::sum_kernel(tier) else {
            continue;
        };
        let mut joined = Checksum::new();
        for piece in &pieces {
            let part = Checksum::from_parts(kernel(piece), piece.len() % 2 == 1);
            joined.combine(&part);
        }
        assert_eq!(joined.sum(), data_only, "{tier}");
        // And with the initial state in front.
        if let Some((initial, odd)) = input.initial {
            let mut with_initial = Checksum::from_parts(initial, odd);
            with_initial.combine(&joined);
            let expected = if odd {
                reference_add(initial, data_only.swap_bytes())
            } else {
                reference_add(initial, data_only)
            };
            assert_eq!(
                with_initial.sum(),
                expected,
                "{tier}, initial {initial:#06x}"
            );
        }
    }
});
