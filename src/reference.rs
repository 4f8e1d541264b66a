//! The obviously correct Internet checksum: a direct port of the C code of
//! RFC 1071 §4.1, kept as the oracle that every kernel is tested and
//! benchmarked against. It is slow on purpose: one 16-bit word at a time.

/// The ones'-complement sum of `data` read as big-endian 16-bit words, an odd
/// final byte padded with zero, folded to 16 bits but not complemented.
///
/// ```
/// let data = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7];
/// assert_eq!(fastpath::reference::sum(&data), 0xddf2);
/// ```
#[must_use]
pub fn sum(data: &[u8]) -> u16 {
    // RFC 1071 §4.1 keeps a 32-bit accumulator; a 64-bit one lets the same
    // loop run over any slice without overflowing.
    let mut sum: u64 = 0;
    let mut words = data.chunks_exact(2);
    for word in &mut words {
        // "This is the inner loop"
        sum += u64::from(u16::from_be_bytes([word[0], word[1]]));
    }
    // "Add left-over byte, if any"
    if let [last] = words.remainder() {
        sum += u64::from(*last) << 8;
    }
    // "Fold 32-bit sum to 16 bits"
    while sum >> 16 != 0 {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    sum as u16
}

/// The RFC 1071 checksum of `data`: the ones' complement of [`sum`].
///
/// ```
/// assert_eq!(fastpath::reference::checksum(&[]), 0xffff);
/// assert_eq!(fastpath::reference::checksum(&[0x00, 0x01, 0xf2, 0x03]), !0xf204);
/// ```
#[must_use]
pub fn checksum(data: &[u8]) -> u16 {
    !sum(data)
}
