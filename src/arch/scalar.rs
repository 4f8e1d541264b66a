//! Scalar building blocks shared by every tier: 64-bit additions with an
//! end-around carry, folding, and the short-input sum.
//!
//! The kernels sum the data as *native-endian* words and convert at the end.
//! RFC 1071 §2(B) shows why that is exact: the ones'-complement sum is
//! independent of byte order, so the sum of byte-swapped words is the
//! byte-swapped sum. Likewise a 64-bit word is four 16-bit words weighted by
//! 2^0, 2^16, 2^32 and 2^48, all equal to 1 modulo 0xffff, so wider words can
//! be added as they are, as long as no carry is lost.

/// `acc + x` with the carry out of bit 63 added back in (modulo 2^64 - 1,
/// which 0xffff divides).
#[inline(always)]
pub(crate) fn add_carry(acc: u64, x: u64) -> u64 {
    let (sum, carry) = acc.overflowing_add(x);
    // No overflow: after a carry out, `sum` is at most 2^64 - 2.
    sum + u64::from(carry)
}

/// Folds a 64-bit ones'-complement sum to 16 bits. The result is 0 only if
/// `x` is 0, as with RFC 1071's fold of a sum of words.
#[inline(always)]
pub(crate) fn fold(x: u64) -> u16 {
    let x = (x & 0xffff_ffff) + (x >> 32); // < 2^33
    let x = (x & 0xffff) + (x >> 16); // < 2^17 + 2^16
    let x = (x & 0xffff) + (x >> 16); // <= 0x10001
    let x = (x & 0xffff) + (x >> 16); // <= 0xffff
    x as u16
}

/// The big-endian folded sum from a 64-bit sum of native-endian words.
#[inline(always)]
pub(crate) fn finish_native(x: u64) -> u16 {
    fold(x).to_be()
}

/// Adds two folded ones'-complement sums.
#[inline(always)]
pub(crate) const fn add16(a: u16, b: u16) -> u16 {
    let sum = a as u32 + b as u32;
    (sum as u16).wrapping_add((sum >> 16) as u16)
}

/// The sum of `data` as native-endian words, with an odd final byte padded
/// with zero: 8 bytes per step with an add-with-carry chain, then 4, 2, 1.
///
/// This is the kernel of short inputs and of every vector kernel's tail.
#[inline(always)]
pub(crate) fn sum_native(data: &[u8]) -> u64 {
    let mut acc = 0u64;
    let mut words = data.chunks_exact(8);
    for word in &mut words {
        acc = add_carry(acc, u64::from_ne_bytes(word.try_into().unwrap()));
    }
    acc = add_carry(acc, tail_native(words.remainder()));
    acc
}

/// The sum of fewer than 8 bytes that start at an even offset, as
/// native-endian words. At most 0x1fffe, so never worth a carry.
#[inline(always)]
pub(crate) fn tail_native(rest: &[u8]) -> u64 {
    debug_assert!(rest.len() < 8);
    let mut acc = 0u64;
    let mut rest = rest;
    if let Some((four, tail)) = rest.split_first_chunk::<4>() {
        acc += u64::from(u32::from_ne_bytes(*four));
        rest = tail;
    }
    if let Some((two, tail)) = rest.split_first_chunk::<2>() {
        acc += u64::from(u16::from_ne_bytes(*two));
        rest = tail;
    }
    if let [last] = rest {
        // The odd byte is the first of its word: its high byte in big-endian
        // terms, padded with zero.
        acc += u64::from(u16::from_ne_bytes([*last, 0]));
    }
    acc
}

/// The big-endian folded sum of a short `data`.
#[inline(always)]
pub(crate) fn sum(data: &[u8]) -> u16 {
    finish_native(sum_native(data))
}
