//! The checksums fastpath is measured against, each a `fn(&[u8]) -> u16`
//! returning the Internet checksum (complemented, as a big-endian value: its
//! `to_be_bytes` are the header bytes), checked against the reference before
//! it is timed.
//!
//! Two are ports of the C code that packet-processing stacks run (DPDK's and
//! Linux's), four are the Rust crates that a Rust project would otherwise
//! use, and one is the RFC 1071 reference itself.

use core::hash::Hasher;

/// A checksum, complemented, as a big-endian value.
pub type ChecksumFn = fn(&[u8]) -> u16;

/// Every baseline, by the name the bench prints.
pub const ALL: &[(&str, ChecksumFn)] = &[
    ("reference", reference),
    ("dpdk-loop", dpdk_loop),
    ("linux-adc", linux_adc),
    ("internet-checksum", internet_checksum),
    ("smoltcp", smoltcp),
    ("s2n-quic-core", s2n_quic_core),
    ("etherparse", etherparse),
];

/// `fastpath::reference::checksum`: the C code of RFC 1071 §4.1, one
/// big-endian word at a time into a 64-bit accumulator.
fn reference(data: &[u8]) -> u16 {
    fastpath::reference::checksum(data)
}

/// DPDK's portable `__rte_raw_cksum` (lib/net/rte_cksum.h, the version
/// without the unrolled 4-word loop): every 16-bit word loaded in native
/// byte order (`memcpy` into a `uint16_t`) is added to a `uint32_t`; an odd
/// last byte is added as the first byte of a zero-padded word; then
/// `__rte_raw_cksum_reduce` folds twice. Summing native-endian words yields
/// the byte-swapped sum (RFC 1071 §2(B)), so the byte order is fixed once at
/// the end. Compilers vectorize this loop.
///
/// The 32-bit accumulator is DPDK's: it is exact up to 65,537 words of
/// 0xffff (128 KiB), beyond which the sum wraps, so sizes here stay below.
fn dpdk_loop(data: &[u8]) -> u16 {
    let mut sum: u32 = 0;
    let mut words = data.chunks_exact(2);
    for word in &mut words {
        sum = sum.wrapping_add(u32::from(u16::from_ne_bytes([word[0], word[1]])));
    }
    if let [last] = words.remainder() {
        sum = sum.wrapping_add(u32::from(u16::from_ne_bytes([*last, 0])));
    }
    sum = (sum >> 16) + (sum & 0xffff);
    sum = (sum >> 16) + (sum & 0xffff);
    !u16::from_be(sum as u16)
}

/// Linux's x86_64 `csum_partial` (arch/x86/lib/csum-partial_64.c): 64-bit
/// native-endian words added with carry (`addq`/`adcq`), 40 bytes per
/// `update_csum_40b` and two of them in parallel per 80 bytes for
/// instruction-level parallelism, then 32-, 16- and 8-byte steps and a
/// zero-padded tail word, folded to 32 bits by adding the halves
/// (`csum_finalize_sum`) and to 16 bits by `csum_fold`.
fn linux_adc(data: &[u8]) -> u16 {
    let mut sum: u64 = 0;
    let mut rest = data;
    if rest.len() >= 80 {
        let mut sum2: u64 = 0;
        let mut blocks = rest.chunks_exact(80);
        for block in &mut blocks {
            sum = add_40_bytes(sum, &block[..40]);
            sum2 = add_40_bytes(sum2, &block[40..]);
        }
        sum = add_with_carry(sum, sum2);
        rest = blocks.remainder();
    }
    if rest.len() >= 40 {
        sum = add_40_bytes(sum, &rest[..40]);
        rest = &rest[40..];
    }
    // The remaining < 40 bytes: 32, 16 and 8 bytes as the bits of the length
    // say, then a zero-padded word.
    let mut words = rest.chunks_exact(8);
    for word in &mut words {
        sum = add_with_carry(sum, load_u64(word));
    }
    // Linux reads the last 1-7 bytes as one zero-padded word with
    // `load_unaligned_zeropad`, which may read past the buffer (the kernel
    // fixes up the fault); here they are read in 4-, 2- and 1-byte pieces
    // at their places in the word, without reading past the end (a `memcpy`
    // into a padded array would call glibc and triple the cost of a
    // 20-byte sum).
    let tail = words.remainder();
    if !tail.is_empty() {
        let mut word = 0u64;
        let mut at = 0;
        if let Some((four, _)) = tail.split_first_chunk::<4>() {
            word |= u64::from(u32::from_le_bytes(*four));
            at = 4;
        }
        if let Some((two, _)) = tail[at..].split_first_chunk::<2>() {
            word |= u64::from(u16::from_le_bytes(*two)) << (8 * at);
            at += 2;
        }
        if let Some(&last) = tail.get(at) {
            word |= u64::from(last) << (8 * at);
        }
        sum = add_with_carry(sum, u64::from_le(word));
    }
    // csum_finalize_sum: (sum + ror64(sum, 32)) >> 32 adds the halves with
    // the end-around carry.
    let sum32 = (sum.wrapping_add(sum.rotate_right(32)) >> 32) as u32;
    // csum_fold: the same for the 16-bit halves.
    let folded = (sum32.wrapping_add(sum32.rotate_right(16)) >> 16) as u16;
    !u16::from_be(folded)
}

/// `update_csum_40b`: five words added with carry.
#[inline(always)]
fn add_40_bytes(mut sum: u64, bytes: &[u8]) -> u64 {
    for word in bytes.chunks_exact(8) {
        sum = add_with_carry(sum, load_u64(word));
    }
    sum
}

/// A 64-bit ones'-complement addition: `addq` then `adcq $0`.
#[inline(always)]
fn add_with_carry(sum: u64, word: u64) -> u64 {
    let (sum, carry) = sum.overflowing_add(word);
    sum + u64::from(carry)
}

#[inline(always)]
fn load_u64(bytes: &[u8]) -> u64 {
    u64::from_ne_bytes(bytes.try_into().expect("8 bytes"))
}

/// The `internet-checksum` crate (`internet_checksum::checksum`), from
/// Fuchsia's networking stack: a 128-bit accumulator on x86_64 for inputs of
/// 64 bytes and more.
fn internet_checksum(data: &[u8]) -> u16 {
    u16::from_be_bytes(internet_checksum::checksum(data))
}

/// smoltcp's `wire::checksum::data` (`wire/ip.rs`), which returns the folded
/// sum without the complement: native-endian words from 4-byte chunks into a
/// `u32`, left to the compiler to vectorize.
fn smoltcp(data: &[u8]) -> u16 {
    !smoltcp::wire::checksum::data(data)
}

/// s2n-quic-core's `inet::checksum::Checksum`, the model of STYLE.md: a
/// `u64` accumulator, and SSE4.1 or AVX code chosen at run time (its `std`
/// feature) for writes of 32 bytes and more.
///
/// Its `finish` follows UDP and returns 0xffff where RFC 1071 gives 0, as
/// zero means "no checksum" in a UDP header. For any input that is not all
/// zeros the checksum can't be 0xffff, so mapping 0xffff back to 0 gives
/// the RFC 1071 value; the bench's random blocks are never all zeros.
fn s2n_quic_core(data: &[u8]) -> u16 {
    let mut checksum = s2n_quic_core::inet::checksum::Checksum::default();
    checksum.write(data);
    match checksum.finish() {
        0xffff => 0,
        value => value,
    }
}

/// etherparse's `checksum::Sum16BitWords` (`add_slice`, then
/// `ones_complement`): native-endian 8-byte words added into a `u64` with
/// carry, one at a time. `ones_complement` returns the checksum in native
/// byte order, as it goes into the header.
fn etherparse(data: &[u8]) -> u16 {
    let checksum = etherparse::checksum::Sum16BitWords::new()
        .add_slice(data)
        .ones_complement();
    u16::from_be(checksum)
}

#[cfg(test)]
mod tests {
    use super::ALL;

    /// Every baseline agrees with the reference on every length and offset
    /// around the unrolled loops' steps, and on all-0xff data (the largest
    /// sums).
    #[test]
    fn baselines_match_reference() {
        let random: Vec<u8> = (0..400u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        let ones = vec![0xffu8; 400];
        for data in [&random, &ones] {
            for start in 0..3 {
                for end in start + 1..data.len() {
                    let block = &data[start..end];
                    let expected = fastpath::reference::checksum(block);
                    for (name, checksum) in ALL {
                        if *name == "s2n-quic-core" && block.iter().all(|&b| b == 0) {
                            continue; // UDP's 0xffff, documented above
                        }
                        assert_eq!(checksum(block), expected, "{name} on {start}..{end}");
                    }
                }
            }
        }
    }

    /// The example of RFC 1071 §3.
    #[test]
    fn rfc1071_example() {
        let data = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7];
        for (name, checksum) in ALL {
            assert_eq!(checksum(&data), 0x220d, "{name}");
        }
    }
}
