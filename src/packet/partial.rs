//! Partial checksums, as checksum offload leaves them.
//!
//! A sender that offloads a TCP or UDP checksum to the network card stores
//! in the checksum field a seed, the pseudo-header sum, not complemented,
//! and hands over two numbers: `csum_start`, where the checksummed data
//! starts (the TCP or UDP header), and `csum_offset`, where the checksum
//! field is from there. The card, or the host side of a virtio-net device,
//! sums everything from `csum_start` to the end of the packet, seed
//! included, and stores the complement in the field: [`complete`] does
//! that. Linux calls this state `CHECKSUM_PARTIAL`; virtio-net sets
//! `VIRTIO_NET_HDR_F_NEEDS_CSUM`; DPDK asks for it with `RTE_MBUF_F_TX_*_CKSUM`.
//!
//! [`write_seed`] prepares such a packet: it writes the seed and returns the
//! two numbers.
//!
//! ```
//! use fastpath::packet::{l4, partial::{self, SeedLength}};
//!
//! let mut packet = [
//!     0x45, 0x00, 0x00, 0x20, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0xb8, 0xb4,
//!     0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
//!     0x30, 0x39, 0x00, 0x35, 0x00, 0x0c, 0x00, 0x00, b'p', b'i', b'n', b'g',
//! ];
//! let offload = partial::write_seed(&mut packet, SeedLength::Included)?;
//! assert_eq!((offload.csum_start, offload.csum_offset), (20, 6));
//! // ... the packet travels to the device, which completes it:
//! partial::complete(&mut packet, offload.csum_start, offload.csum_offset)?;
//! assert_eq!(packet[26..28], [0x6e, 0x7e]);
//! assert_eq!(l4::verify(&packet), Ok(true));
//! # Ok::<(), fastpath::packet::Error>(())
//! ```

use super::{Error, Fragment, Protocol, l4, put16};

/// Completes a partial checksum: sums `packet[csum_start..]`, whose
/// checksum field at `csum_start + csum_offset` holds the seed, and stores
/// the complement of the sum in that field; returns it.
///
/// The sum runs to the end of `packet`: pass the packet without any padding
/// after it. A result of 0 is stored as 0xffff, as Linux's
/// `skb_checksum_help` does (`CSUM_MANGLED_0`): what UDP needs, and the same
/// value in ones' complement arithmetic for the others.
///
/// [`Error::OutOfBounds`] if the field is not inside `packet`; nothing is
/// written then.
///
/// ```
/// use fastpath::packet::partial;
///
/// // The example of RFC 1071 §3 after a 2-byte field holding a seed of 0.
/// let mut data = [0x00, 0x00, 0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7];
/// assert_eq!(partial::complete(&mut data, 0, 0), Ok(0x220d));
/// assert_eq!(data[..2], [0x22, 0x0d]);
/// assert_eq!(fastpath::checksum(&data), 0);
/// assert!(partial::complete(&mut data, 4, 5).is_err());
/// ```
pub fn complete(packet: &mut [u8], csum_start: usize, csum_offset: usize) -> Result<u16, Error> {
    let field = csum_start
        .checked_add(csum_offset)
        .ok_or(Error::OutOfBounds)?;
    if field.checked_add(2).is_none_or(|end| end > packet.len()) {
        return Err(Error::OutOfBounds);
    }
    let data = packet.get(csum_start..).ok_or(Error::OutOfBounds)?;
    let value = match crate::checksum(data) {
        0 => 0xffff,
        value => value,
    };
    put16(packet, field, value).ok_or(Error::OutOfBounds)?;
    Ok(value)
}

/// Whether the seed includes the upper-layer length.
///
/// ```
/// use fastpath::packet::{ipv4, partial::{self, SeedLength}};
///
/// let mut packet = [
///     0x45, 0x00, 0x00, 0x20, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0xb8, 0xb4,
///     0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
///     0x30, 0x39, 0x00, 0x35, 0x00, 0x0c, 0x00, 0x00, b'p', b'i', b'n', b'g',
/// ];
/// let (source, destination) = ([192, 168, 0, 1], [192, 168, 0, 199]);
/// partial::write_seed(&mut packet, SeedLength::Included)?;
/// let with_length = ipv4::pseudo_header(source, destination, 17, 12).sum();
/// assert_eq!(packet[26..28], with_length.to_be_bytes());
/// partial::write_seed(&mut packet, SeedLength::Omitted)?;
/// let without = ipv4::pseudo_header_seed(source, destination, 17);
/// assert_eq!(packet[26..28], without.to_be_bytes());
/// # Ok::<(), fastpath::packet::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SeedLength {
    /// The full pseudo-header: what plain checksum offload completes into
    /// the right checksum (Linux's `CHECKSUM_PARTIAL`, virtio-net, DPDK's
    /// `RTE_MBUF_F_TX_TCP_CKSUM`).
    Included,
    /// The pseudo-header without the length, which segmentation offload
    /// (TSO, USO: DPDK's `RTE_MBUF_F_TX_TCP_SEG`) expects: the card adds each
    /// segment's length.
    Omitted,
}

/// Where the data of a partial checksum starts, and where its field is from
/// there, as virtio-net's header and Linux's `sk_buff` carry them.
///
/// ```
/// use fastpath::packet::partial::{self, Offload, SeedLength};
///
/// // TCP over IPv6: the header at 40, its checksum 16 bytes in.
/// let mut packet = [0u8; 60];
/// packet[0] = 0x60;
/// packet[5] = 20; // payload length
/// packet[6] = 6; // TCP
/// packet[52] = 0x50; // data offset: 5 words
/// let offload = partial::write_seed(&mut packet, SeedLength::Included)?;
/// assert_eq!(offload, Offload { csum_start: 40, csum_offset: 16 });
/// # Ok::<(), fastpath::packet::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Offload {
    /// The offset in the packet of the upper-layer header.
    pub csum_start: usize,
    /// The offset of the checksum field from `csum_start`: 16 for TCP, 6
    /// for UDP, 2 for ICMP.
    pub csum_offset: usize,
}

/// Stores in the upper layer's checksum field of the IP packet `packet` the
/// seed that checksum offload completes, and returns where the checksum
/// starts and where its field is, for [`complete`].
///
/// The seed is the pseudo-header sum, not complemented (see
/// [`ipv4::pseudo_header_seed`] and [`ipv6::pseudo_header_seed`]), with the
/// upper-layer length if `length` says so; ICMPv4, which has no
/// pseudo-header, gets 0.
///
/// Errors as for [`l4::checksum`], except that the data after the
/// upper-layer header need not be there, nor, with [`SeedLength::Omitted`],
/// fit the IP lengths; nothing is written then. UDP-Lite is seeded only
/// when its Checksum Coverage is the whole datagram (0, or the datagram's
/// length): with a shorter coverage the checksum stops before the end of the
/// packet, where a device's sum does not, and the result is
/// [`Error::PartialCoverage`]. Compute such a checksum in software with
/// [`l4::write_checksum`], as Linux does for UDP-Lite.
///
/// [`ipv4::pseudo_header_seed`]: super::ipv4::pseudo_header_seed
/// [`ipv6::pseudo_header_seed`]: super::ipv6::pseudo_header_seed
///
/// ```
/// use fastpath::packet::{ipv4, partial::{self, SeedLength}};
///
/// let mut packet = [0u8; 40];
/// packet[..20].copy_from_slice(&[
///     0x45, 0x00, 0x00, 0x28, 0x00, 0x00, 0x40, 0x00, 0x40, 0x06, 0x00, 0x00,
///     0x0a, 0x00, 0x00, 0x01, 0x0a, 0x00, 0x00, 0x02,
/// ]);
/// packet[32] = 0x50; // TCP data offset: 5 words
/// let offload = partial::write_seed(&mut packet, SeedLength::Omitted)?;
/// assert_eq!((offload.csum_start, offload.csum_offset), (20, 16));
/// let seed = ipv4::pseudo_header_seed([10, 0, 0, 1], [10, 0, 0, 2], 6);
/// assert_eq!(packet[36..38], seed.to_be_bytes());
/// # Ok::<(), fastpath::packet::Error>(())
/// ```
pub fn write_seed(packet: &mut [u8], length: SeedLength) -> Result<Offload, Error> {
    let upper = super::upper(packet)?;
    let located = l4::locate(packet, &upper)?;
    if upper.fragment == Fragment::First {
        return Err(Error::FirstFragment);
    }
    if length == SeedLength::Included && located.unverifiable == Some(Error::Length) {
        return Err(Error::Length);
    }
    // A device sums from `csum_start` to the end of the packet; UDP-Lite's
    // checksum may stop before it (RFC 3828 §3.1).
    if located.protocol == Protocol::UdpLite && located.end < upper.end {
        return Err(Error::PartialCoverage);
    }
    let seed = if located.protocol == Protocol::Icmp {
        0
    } else {
        let covered = match length {
            SeedLength::Included => (located.end - located.start) as u32,
            SeedLength::Omitted => 0,
        };
        upper.pseudo_header(covered)?.sum()
    };
    put16(packet, located.field, seed).ok_or(Error::Truncated)?;
    Ok(Offload {
        csum_start: located.start,
        csum_offset: located.field - located.start,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn complete_bounds() {
        let mut data = [0u8; 8];
        assert_eq!(complete(&mut data, 0, 6), Ok(0xffff));
        // The field now holds 0xffff, so the data at 6 sums to 0xffff.
        assert_eq!(complete(&mut data, 6, 0), Ok(0xffff));
        assert_eq!(complete(&mut data, 6, 1), Err(Error::OutOfBounds));
        assert_eq!(complete(&mut data, 8, 0), Err(Error::OutOfBounds));
        assert_eq!(complete(&mut data, usize::MAX, 1), Err(Error::OutOfBounds));
        assert_eq!(complete(&mut data, 1, usize::MAX), Err(Error::OutOfBounds));
        assert_eq!(
            complete(&mut data, usize::MAX - 1, 0),
            Err(Error::OutOfBounds)
        );
    }

    #[test]
    fn complete_never_stores_zero() {
        // Data summing to 0xffff: its checksum is 0, stored as 0xffff.
        let mut data = [0x00, 0x00, 0xff, 0xff];
        assert_eq!(complete(&mut data, 0, 0), Ok(0xffff));
        assert_eq!(data, [0xff, 0xff, 0xff, 0xff]);
    }
}
