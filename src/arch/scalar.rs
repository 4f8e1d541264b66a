//! Scalar building blocks shared by every tier: 64-bit additions with an
//! end-around carry, folding, and the short-input sum.
//!
//! The kernels sum the data as *native-endian* words and convert at the end.
//! RFC 1071 §2(B) shows why that is exact: the ones'-complement sum is
//! independent of byte order, so the sum of byte-swapped words is the
//! byte-swapped sum. Likewise a 64-bit word is four 16-bit words weighted by
//! 2^0, 2^16, 2^32 and 2^48, all equal to 1 modulo 0xffff, so wider words can
//! be added as they are, as long as no carry is lost.

use core::mem::MaybeUninit;

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
///
/// Adding a value to itself rotated by half its width leaves, in the upper
/// half, the sum of both halves with the end-around carry (the carry out of
/// the lower half lands in it): Linux's `csum_fold` trick, done twice.
#[inline(always)]
pub(crate) fn fold(x: u64) -> u16 {
    let x = (x.wrapping_add(x.rotate_right(32)) >> 32) as u32;
    (x.wrapping_add(x.rotate_right(16)) >> 16) as u16
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

/// The big-endian folded sum of `data`, at most [`SHORT_MAX`] bytes long.
#[inline(always)]
pub(crate) fn sum(data: &[u8]) -> u16 {
    finish_native(sum_native(data))
}

/// The longest input [`sum_native`] takes.
///
/// Up to 128 bytes this beats the vector kernels, whose fixed costs (masks,
/// the horizontal sum of the lanes, the call through the dispatch pointer)
/// outweigh their speed on a few vectors: measured on Zen 4 at 100 bytes,
/// 14 TSC cycles inline against 19 for the AVX-512 kernel and 15.5 for AVX2.
pub(crate) const SHORT_MAX: usize = 128;

/// The sum of `data`, at most [`SHORT_MAX`] bytes long, as native-endian
/// words, not folded: the kernel of short inputs, which the crate inlines,
/// and of the tail of the SSE2, AVX2 and NEON checksum kernels.
///
/// From 8 bytes on, the last 1-8 bytes are read as the 8 bytes that end the
/// data, shifted so that the bytes before them drop out; the first byte kept
/// is at a multiple of 8, so it lands in the low byte of the word and every
/// byte keeps its place in its 16-bit word. The whole words before it (0 to
/// 15 of them) go through a ladder of 8, 4, 2 and 1 words added with
/// carry, one predictable branch per step and no loop. Up to 32 bytes (0 to
/// 3 whole words, the length of most headers) two branches take the words
/// instead, and up to 64 bytes four words and then the same two branches.
/// Shorter inputs do the same with 4-byte loads, or below 4 bytes with a
/// 2-byte load and a 1-byte one.
#[inline(always)]
pub(crate) fn sum_native(data: &[u8]) -> u64 {
    let len = data.len();
    debug_assert!(len <= SHORT_MAX);
    if len >= 8 {
        let body = (len - 1) & 0x78;
        let last = u64::from_ne_bytes(data[len - 8..].try_into().unwrap());
        let mut acc = drop_low_address_bytes::<8>(last, body + 8 - len);
        // The words are read without the bounds checks of slices, which
        // the compiler cannot drop: `body` (a multiple of 8, below `len`)
        // says how many there are, and the checks were two more
        // comparisons on the path of every header.
        let words = data.as_ptr();
        if len <= 32 {
            // Headers (IPv4, UDP, ICMP, TCP without options) are mostly
            // 8-32 bytes: their 0-3 whole words take at most two branches.
            // SAFETY: `body < len`: the `body` bytes at `words` are in
            // `data`.
            return unsafe { add_few_words(acc, words, body) };
        }
        if len <= 64 {
            // TCP headers with options, ICMPv6 messages, an IPv6 header
            // with TCP's: 4 whole words, then 0-3 as above, rather than the
            // ladder's four branches (40 bytes took 13.1 TSC cycles where
            // Linux's `csum_partial`, five words with carry, took 11.2 on
            // AMD Zen 3).
            // SAFETY: `32 <= body < len`: the first 32 bytes are in
            // `data`, and the `body - 32` bytes after them.
            unsafe {
                acc = add_words(acc, &*words.cast::<[u8; 32]>());
                return add_few_words(acc, words.add(32), body - 32);
            }
        }
        // `body` is a multiple of 8 below 128, so taking the longest
        // block that fits at each step takes exactly its binary digits.
        // (`body < len`; `min` spares a bounds check the compiler cannot.)
        let words = &data[..body.min(len)];
        let words = match words.split_first_chunk::<64>() {
            Some((block, rest)) => {
                acc = add_words(acc, block);
                rest
            }
            None => words,
        };
        let words = match words.split_first_chunk::<32>() {
            Some((block, rest)) => {
                acc = add_words(acc, block);
                rest
            }
            None => words,
        };
        let words = match words.split_first_chunk::<16>() {
            Some((block, rest)) => {
                acc = add_words(acc, block);
                rest
            }
            None => words,
        };
        if let Some(block) = words.first_chunk::<8>() {
            acc = add_words(acc, block);
        }
        acc
    } else if len >= 4 {
        let first = u32::from_ne_bytes(data[..4].try_into().unwrap());
        let last = u32::from_ne_bytes(data[len - 4..].try_into().unwrap());
        u64::from(first) + drop_low_address_bytes::<4>(u64::from(last), 8 - len)
    } else {
        tail_native(data)
    }
}

/// `acc` plus the `n` bytes at `words`, 0, 8, 16 or 24 of them: whole
/// words, in at most two branches.
///
/// # Safety
///
/// The `n` bytes at `words` must be readable.
#[inline(always)]
unsafe fn add_few_words(acc: u64, words: *const u8, n: usize) -> u64 {
    debug_assert!(n <= 24 && n.is_multiple_of(8));
    let mut acc = acc;
    if n >= 16 {
        // SAFETY: `n >= 16`: the first 16 bytes are readable.
        acc = add_words(acc, unsafe { &*words.cast::<[u8; 16]>() });
        if n > 16 {
            // SAFETY: `n` is 24 here.
            let word = unsafe { words.add(16).cast::<[u8; 8]>().read_unaligned() };
            acc = add_carry(acc, u64::from_ne_bytes(word));
        }
    } else if n == 8 {
        // SAFETY: `n` is 8.
        let word = unsafe { words.cast::<[u8; 8]>().read_unaligned() };
        acc = add_carry(acc, u64::from_ne_bytes(word));
    }
    acc
}

/// A word of `BYTES` bytes (4 or 8, in the low bits of `word`) loaded in
/// native order, without its `n` lowest-addressed bytes (`n < BYTES`): the
/// others move down to the lowest addresses.
#[inline(always)]
fn drop_low_address_bytes<const BYTES: usize>(word: u64, n: usize) -> u64 {
    if cfg!(target_endian = "little") {
        word >> (8 * n)
    } else {
        (word << (8 * n)) & (u64::MAX >> (64 - 8 * BYTES))
    }
}

/// `acc` plus the native-endian 64-bit words of `block`, with carry.
#[inline(always)]
fn add_words<const BYTES: usize>(acc: u64, block: &[u8; BYTES]) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::_addcarry_u64;
        // One `adc` per word: the carry stays in the flags from one word to
        // the next instead of being added back after each.
        let mut acc = acc;
        let mut carry = 0u8;
        for word in block.as_chunks::<8>().0 {
            carry = _addcarry_u64(carry, acc, u64::from_ne_bytes(*word), &mut acc);
        }
        // The last carry goes back in, end-around.
        add_carry(acc, u64::from(carry))
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let mut acc = acc;
        for word in block.as_chunks::<8>().0 {
            acc = add_carry(acc, u64::from_ne_bytes(*word));
        }
        acc
    }
}

/// Copies `src` into `dst` (of the same length, at most [`SHORT_MAX`]
/// bytes) and returns the sum of `src` as [`sum_native`] does, in the same
/// pass: the same ladder of loads, each word stored as it is added. The
/// overlapping last word is stored too, writing some bytes twice with the
/// same value.
#[inline(always)]
pub(crate) fn copy_sum_native(dst: &mut [MaybeUninit<u8>], src: &[u8]) -> u64 {
    let len = src.len();
    debug_assert!(len <= SHORT_MAX);
    let dst = &mut dst[..len];
    if len >= 8 {
        let body = (len - 1) & 0x78;
        let last: [u8; 8] = src[len - 8..].try_into().unwrap();
        store(&mut dst[len - 8..], last);
        let mut acc = drop_low_address_bytes::<8>(u64::from_ne_bytes(last), body + 8 - len);
        let (src, dst) = (&src[..body], &mut dst[..body]);
        let (src, dst) = copy_block::<64>(&mut acc, src, dst);
        let (src, dst) = copy_block::<32>(&mut acc, src, dst);
        let (src, dst) = copy_block::<16>(&mut acc, src, dst);
        copy_block::<8>(&mut acc, src, dst);
        acc
    } else if len >= 4 {
        let first: [u8; 4] = src[..4].try_into().unwrap();
        let last: [u8; 4] = src[len - 4..].try_into().unwrap();
        store(&mut dst[..4], first);
        store(&mut dst[len - 4..], last);
        let last = u64::from(u32::from_ne_bytes(last));
        u64::from(u32::from_ne_bytes(first)) + drop_low_address_bytes::<4>(last, 8 - len)
    } else {
        // At most three bytes, one by one without a loop, which the compiler
        // would turn into a call to `memcpy`.
        if let ([d0, dst @ ..], [s0, src @ ..]) = (dst, src) {
            d0.write(*s0);
            if let ([d1, dst @ ..], [s1, src @ ..]) = (dst, src) {
                d1.write(*s1);
                if let ([d2, ..], [s2, ..]) = (dst, src) {
                    d2.write(*s2);
                }
            }
        }
        tail_native(src)
    }
}

/// If `src` holds at least `BYTES` bytes, copies and adds its first `BYTES`
/// and returns what follows in both slices.
#[inline(always)]
fn copy_block<'s, 'd, const BYTES: usize>(
    acc: &mut u64,
    src: &'s [u8],
    dst: &'d mut [MaybeUninit<u8>],
) -> (&'s [u8], &'d mut [MaybeUninit<u8>]) {
    if src.len() < BYTES || dst.len() < BYTES {
        return (src, dst);
    }
    let (block, src_rest) = src.split_at(BYTES);
    let (out, dst_rest) = dst.split_at_mut(BYTES);
    let block: &[u8; BYTES] = block.try_into().unwrap();
    *acc = add_words(*acc, block);
    store(out, *block);
    (src_rest, dst_rest)
}

/// Stores `bytes` into `dst`, which is exactly `N` bytes long.
#[inline(always)]
fn store<const N: usize>(dst: &mut [MaybeUninit<u8>], bytes: [u8; N]) {
    if let Ok(out) = <&mut [MaybeUninit<u8>; N]>::try_from(dst) {
        *out = bytes.map(MaybeUninit::new);
    }
}
