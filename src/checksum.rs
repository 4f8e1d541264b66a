//! The Internet checksum (RFC 1071): one-shot, streaming, combined and
//! scatter-gather.

use crate::arch::scalar;
use crate::dispatch::dispatch;

/// Inputs up to this many bytes (128) are summed by inline scalar code,
/// without a call through the dispatch pointer: an IPv4 header, a TCP or UDP
/// header, a pseudo-header, a small datagram. Below it the vector kernels'
/// fixed costs (masks, the final horizontal sum) outweigh their speed.
const INLINE_MAX: usize = scalar::SHORT_MAX;

dispatch! {
    /// The checksum of `data` by the active tier's kernel.
    fn checksum_kernel(data: &[u8]) -> u16;
    kernel = checksum;
}

/// The folded ones'-complement sum of `data` as big-endian 16-bit words.
#[inline]
fn sum(data: &[u8]) -> u16 {
    if data.len() <= INLINE_MAX {
        scalar::sum(data)
    } else {
        !checksum_kernel(data)
    }
}

/// The Internet checksum of `data` (RFC 1071).
///
/// `data` is read as big-endian 16-bit words, an odd final byte padded with
/// zero; the result is the ones' complement of their ones'-complement sum.
/// Its [`to_be_bytes`](u16::to_be_bytes) are the two bytes to store in a
/// header's checksum field. Data that already holds its correct checksum
/// gives 0, and empty data gives 0xffff.
///
/// Any length and alignment is fine, and the sum never overflows.
///
/// ```
/// // An IPv4 header with its checksum field (bytes 10 and 11) zeroed.
/// let mut header = [
///     0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
///     0x00, 0x00, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
/// ];
/// let sum = fastpath::checksum(&header);
/// assert_eq!(sum, 0xb861);
/// header[10..12].copy_from_slice(&sum.to_be_bytes());
/// // With the checksum in place, the header verifies.
/// assert_eq!(fastpath::checksum(&header), 0);
/// ```
#[inline]
#[must_use]
pub fn checksum(data: &[u8]) -> u16 {
    if data.len() <= INLINE_MAX {
        !scalar::sum(data)
    } else {
        // One indirect call (a tail jump where `checksum` is not inlined),
        // to the kernel, which returns the checksum itself.
        checksum_kernel(data)
    }
}

/// The Internet checksum (RFC 1071) of the concatenation of `bufs`
/// (scatter-gather), whatever their lengths: the plain sum of any bytes,
/// not [`packet::l4::checksum_vectored`](crate::packet::l4::checksum_vectored),
/// the TCP or UDP checksum with its pseudo-header.
///
/// `bufs` is anything that iterates over byte buffers (`AsRef<[u8]>`):
/// arrays or slices of `&[u8]`, `Vec<u8>`s, `bytes::Bytes`. A slice of
/// `std::io::IoSlice`, which dereferences to `[u8]` but is not
/// `AsRef<[u8]>`, goes to [`checksum_io_slices`] (with `std`) or through
/// `.iter().map(|s| &**s)`: no bound can take both it and `&[&[u8]]`.
///
/// ```
/// let data = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7];
/// let pieces: [&[u8]; 3] = [&data[..1], &data[1..6], &data[6..]];
/// assert_eq!(fastpath::checksum_vectored(pieces), fastpath::checksum(&data));
///
/// // What vectored I/O and `bytes::Buf::chunks_vectored` hand over.
/// let io = [std::io::IoSlice::new(&data[..5]), std::io::IoSlice::new(&data[5..])];
/// assert_eq!(fastpath::checksum_vectored(io.iter().map(|s| &**s)), fastpath::checksum(&data));
/// ```
#[must_use]
pub fn checksum_vectored<I>(bufs: I) -> u16
where
    I: IntoIterator,
    I::Item: AsRef<[u8]>,
{
    let mut sum = Checksum::new();
    sum.update_vectored(bufs);
    sum.finish()
}

/// [`checksum_vectored`] over the `IoSlice`s of vectored I/O, as they are.
///
/// ```
/// use std::io::IoSlice;
///
/// let data = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7];
/// let io = [IoSlice::new(&data[..5]), IoSlice::new(&data[5..])];
/// assert_eq!(fastpath::checksum_io_slices(&io), fastpath::checksum(&data));
/// ```
#[cfg(feature = "std")]
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
#[must_use]
pub fn checksum_io_slices(bufs: &[std::io::IoSlice<'_>]) -> u16 {
    checksum_vectored(bufs.iter().map(|s| &**s))
}

/// A running Internet checksum over data that arrives in pieces.
///
/// The state is a folded ones'-complement sum (16 bits) and whether an odd
/// number of bytes went into it, which says how the next piece's bytes pair
/// into words. Pieces may have any length: the result always equals
/// [`checksum`] of their concatenation.
///
/// Besides `update` and `finish`, it offers what users of Linux's `csum_*`
/// helpers and DPDK's `rte_raw_cksum` expect: adding 16- and 32-bit values
/// (pseudo-header fields), the folded partial sum, and combining the sums of
/// adjacent pieces computed independently.
///
/// ```
/// use fastpath::Checksum;
///
/// // A UDP checksum over IPv4: the pseudo-header fields, then the datagram.
/// let udp = [0x30, 0x39, 0x00, 0x35, 0x00, 0x0c, 0x00, 0x00, b'p', b'i', b'n', b'g'];
/// let mut sum = Checksum::new();
/// sum.add_u32(0xc0a8_0001); // source address 192.168.0.1
/// sum.add_u32(0xc0a8_00c7); // destination address 192.168.0.199
/// sum.add_u16(17); // zero byte and protocol (UDP)
/// sum.add_u16(udp.len() as u16); // UDP length
/// sum.update(&udp);
/// assert_eq!(sum.finish(), 0x6e7e);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Checksum {
    /// Folded ones'-complement sum, as big-endian words counted from the
    /// first byte of the stream.
    sum: u16,
    /// Whether the bytes summed so far are odd in number.
    odd: bool,
}

impl Checksum {
    /// A checksum over no data.
    ///
    /// ```
    /// let empty = fastpath::Checksum::new();
    /// assert_eq!((empty.sum(), empty.finish()), (0, 0xffff));
    /// ```
    #[inline]
    #[must_use]
    pub const fn new() -> Checksum {
        Checksum { sum: 0, odd: false }
    }

    /// The state after a piece of data whose folded partial sum is `sum`
    /// (as from [`Checksum::sum`], DPDK's `rte_raw_cksum` or Linux's
    /// `csum_partial` folded) and whose length is odd if `odd_len`.
    ///
    /// ```
    /// use fastpath::Checksum;
    ///
    /// let mut a = Checksum::new();
    /// a.update(b"abc");
    /// assert_eq!(Checksum::from_parts(a.sum(), true), a);
    /// ```
    #[inline]
    #[must_use]
    pub const fn from_parts(sum: u16, odd_len: bool) -> Checksum {
        Checksum { sum, odd: odd_len }
    }

    /// Adds the bytes of `data`, which follow those added so far.
    ///
    /// ```
    /// use fastpath::Checksum;
    ///
    /// // Pieces of any length, odd ones included.
    /// let mut sum = Checksum::new();
    /// sum.update(b"hello");
    /// sum.update(b", world");
    /// assert_eq!(sum.finish(), fastpath::checksum(b"hello, world"));
    /// ```
    #[inline]
    pub fn update(&mut self, data: &[u8]) {
        self.append(sum(data), data.len() % 2 == 1);
    }

    /// Adds each buffer of `bufs` in turn, as [`update`](Self::update) does.
    ///
    /// ```
    /// use fastpath::Checksum;
    ///
    /// let mut sum = Checksum::new();
    /// sum.update_vectored([&b"hello, "[..], b"world"]);
    /// assert_eq!(sum.finish(), fastpath::checksum(b"hello, world"));
    /// ```
    pub fn update_vectored<I>(&mut self, bufs: I)
    where
        I: IntoIterator,
        I::Item: AsRef<[u8]>,
    {
        for buf in bufs {
            self.update(buf.as_ref());
        }
    }

    /// Appends the data summed by `other`, which follows the data of `self`.
    /// The two may have been computed independently, for example on two
    /// halves of a buffer; `self` may have an odd length.
    ///
    /// ```
    /// use fastpath::Checksum;
    ///
    /// let data = b"the quick brown fox";
    /// let (head, tail) = data.split_at(7);
    /// let mut a = Checksum::new();
    /// a.update(head);
    /// let mut b = Checksum::new();
    /// b.update(tail);
    /// a.combine(&b);
    /// assert_eq!(a.finish(), fastpath::checksum(data));
    /// ```
    #[inline]
    pub fn combine(&mut self, other: &Checksum) {
        self.append(other.sum, other.odd);
    }

    /// Adds a 16-bit value, as one big-endian word, to the sum. The value is
    /// added where it lands no matter how many bytes came before (like
    /// Linux's `csum_add`), so it leaves the byte count unchanged: this is
    /// how pseudo-header fields and length fields are added.
    ///
    /// ```
    /// use fastpath::Checksum;
    ///
    /// // After an even number of bytes, the same as adding the value's bytes.
    /// let (mut by_value, mut by_bytes) = (Checksum::new(), Checksum::new());
    /// by_value.add_u16(0x1234);
    /// by_bytes.update(&[0x12, 0x34]);
    /// assert_eq!(by_value, by_bytes);
    ///
    /// // After an odd number, still one whole word.
    /// let mut odd = Checksum::new();
    /// odd.update(&[0xab]);
    /// odd.add_u16(0x0011);
    /// assert_eq!((odd.sum(), odd.is_odd()), (0xab11, true));
    /// ```
    #[inline]
    pub fn add_u16(&mut self, value: u16) {
        self.sum = scalar::add16(self.sum, value);
    }

    /// Adds a 32-bit value, as two big-endian words (an IPv4 address), in the
    /// way of [`add_u16`](Self::add_u16).
    ///
    /// ```
    /// let mut sum = fastpath::Checksum::new();
    /// sum.add_u32(u32::from_be_bytes([192, 168, 0, 1]));
    /// assert_eq!(sum.sum(), 0xc0a8 + 0x0001);
    /// ```
    #[inline]
    pub fn add_u32(&mut self, value: u32) {
        self.add_u16((value >> 16) as u16);
        self.add_u16(value as u16);
    }

    /// Adds 16-bit values, each as [`add_u16`](Self::add_u16) adds one:
    /// smoltcp's `checksum::combine`, and the sum of 16-bit words held as
    /// `u16` in memory (in the machine's byte order), at the speed of
    /// [`update`](Self::update), whose kernels it runs on their bytes.
    ///
    /// ```
    /// use fastpath::Checksum;
    ///
    /// let words = [0x0001, 0xf203, 0xf4f5, 0xf6f7];
    /// let mut sum = Checksum::new();
    /// sum.add_u16s(&words);
    /// // The example of RFC 1071 §3, as bytes.
    /// assert_eq!(sum.finish(), fastpath::checksum(&[0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7]));
    /// ```
    #[inline]
    pub fn add_u16s(&mut self, values: &[u16]) {
        // SAFETY: the `2 * values.len()` bytes of `values` are initialized
        // and readable, and `u8` has no alignment.
        let bytes =
            unsafe { core::slice::from_raw_parts(values.as_ptr().cast::<u8>(), 2 * values.len()) };
        let mut in_memory = Checksum::new();
        in_memory.update(bytes);
        // The bytes pair into the values' byte-swapped words on a
        // little-endian machine; the sum of swapped words is the swapped sum
        // (RFC 1071 §2(B)).
        self.add_u16(u16::from_be(in_memory.sum()));
    }

    /// Takes a 16-bit value added by [`add_u16`](Self::add_u16) back out of
    /// the sum (Linux's `csum_sub`): adds its ones' complement.
    ///
    /// Subtraction is exact up to the two zeros of ones'-complement
    /// arithmetic: where what is left sums to zero, the sum may be 0xffff
    /// rather than 0, and [`finish`](Self::finish) 0x0000 rather than 0xffff
    /// (both are the same checksum to a receiver; RFC 1624 §3).
    ///
    /// ```
    /// use fastpath::Checksum;
    ///
    /// // A pseudo-header's length, replaced after the fact.
    /// let mut sum = Checksum::new();
    /// sum.add_u16(17);
    /// sum.add_u16(1500);
    /// sum.sub_u16(1500);
    /// sum.add_u16(576);
    /// let mut direct = Checksum::new();
    /// direct.add_u16(17);
    /// direct.add_u16(576);
    /// assert_eq!(sum.sum(), direct.sum());
    /// ```
    #[inline]
    pub fn sub_u16(&mut self, value: u16) {
        self.add_u16(!value);
    }

    /// Takes a 32-bit value added by [`add_u32`](Self::add_u32) back out of
    /// the sum, in the way of [`sub_u16`](Self::sub_u16).
    ///
    /// ```
    /// use fastpath::Checksum;
    ///
    /// // A NAT's address change in a pseudo-header sum.
    /// let (old, new) = (0xc0a8_0001, 0xcb00_7107);
    /// let mut sum = Checksum::new();
    /// sum.add_u32(old);
    /// sum.add_u16(17);
    /// sum.sub_u32(old);
    /// sum.add_u32(new);
    /// let mut direct = Checksum::new();
    /// direct.add_u32(new);
    /// direct.add_u16(17);
    /// assert_eq!(sum.sum(), direct.sum());
    /// ```
    #[inline]
    pub fn sub_u32(&mut self, value: u32) {
        self.sub_u16((value >> 16) as u16);
        self.sub_u16(value as u16);
    }

    /// Takes back out the data summed by `other`, which must be the last
    /// piece of the data summed by `self`: the inverse of
    /// [`combine`](Self::combine) (Linux's `csum_block_sub`), with the byte
    /// count put back too. Exact up to the two zeros, as
    /// [`sub_u16`](Self::sub_u16).
    ///
    /// ```
    /// use fastpath::Checksum;
    ///
    /// // A trailer of odd length, cut off a running sum.
    /// let (data, trailer) = (b"hello, world", b"!\n\0");
    /// let mut sum = Checksum::new();
    /// sum.update(data);
    /// sum.update(trailer);
    /// let mut cut = Checksum::new();
    /// cut.update(trailer);
    /// sum.uncombine(&cut);
    /// assert_eq!((sum.finish(), sum.is_odd()), (fastpath::checksum(data), false));
    /// ```
    #[inline]
    pub fn uncombine(&mut self, other: &Checksum) {
        let odd = self.odd ^ other.odd;
        // `other` was appended after `odd` bytes: swapped if they were odd.
        let piece_sum = if odd {
            other.sum.swap_bytes()
        } else {
            other.sum
        };
        self.sum = scalar::add16(self.sum, !piece_sum);
        self.odd = odd;
    }

    /// The folded ones'-complement sum so far, not complemented: what DPDK's
    /// `rte_raw_cksum` returns. It is 0 only if every byte added was 0.
    ///
    /// ```
    /// let mut sum = fastpath::Checksum::new();
    /// // The example of RFC 1071 §3.
    /// sum.update(&[0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7]);
    /// assert_eq!(sum.sum(), 0xddf2);
    /// assert_eq!(sum.finish(), !0xddf2);
    /// ```
    #[inline]
    #[must_use]
    pub const fn sum(&self) -> u16 {
        self.sum
    }

    /// Whether an odd number of bytes has been added.
    ///
    /// ```
    /// let mut sum = fastpath::Checksum::new();
    /// sum.update(b"abc");
    /// assert!(sum.is_odd());
    /// sum.update(b"d");
    /// assert!(!sum.is_odd());
    /// ```
    #[inline]
    #[must_use]
    pub const fn is_odd(&self) -> bool {
        self.odd
    }

    /// The Internet checksum of everything added: the ones' complement of
    /// [`sum`](Self::sum), as [`checksum`] returns it.
    ///
    /// ```
    /// let mut sum = fastpath::Checksum::new();
    /// sum.update(b"data");
    /// assert_eq!(sum.finish(), fastpath::checksum(b"data"));
    /// // Finishing does not end the stream.
    /// sum.update(b" and more");
    /// assert_eq!(sum.finish(), fastpath::checksum(b"data and more"));
    /// ```
    #[inline]
    #[must_use]
    pub const fn finish(&self) -> u16 {
        !self.sum
    }

    /// Adds the sum of a piece that starts where the data so far ends.
    #[inline]
    pub(crate) fn append(&mut self, piece_sum: u16, piece_odd: bool) {
        // After an odd number of bytes, the piece's first byte is the low
        // byte of a word: each of its words is shifted by one byte, and the
        // ones'-complement sum of byte-swapped words is the byte-swapped sum
        // (RFC 1071 §2(B)).
        let piece_sum = if self.odd {
            piece_sum.swap_bytes()
        } else {
            piece_sum
        };
        self.sum = scalar::add16(self.sum, piece_sum);
        self.odd ^= piece_odd;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc1071_example() {
        let data = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7];
        assert_eq!(checksum(&data), 0x220d);
        let mut sum = Checksum::new();
        sum.update(&data);
        assert_eq!(sum.sum(), 0xddf2);
    }

    #[test]
    fn empty() {
        assert_eq!(checksum(&[]), 0xffff);
        assert_eq!(Checksum::new().finish(), 0xffff);
        assert_eq!(Checksum::new().sum(), 0);
    }
}
