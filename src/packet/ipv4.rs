//! IPv4: the header checksum, the pseudo-header of the upper layers, and
//! where the upper layer starts and ends.
//!
//! ```
//! use fastpath::packet::ipv4;
//!
//! // The header of the crate's example, its checksum field (bytes 10 and 11)
//! // zeroed.
//! let mut header = [
//!     0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00,
//!     0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
//! ];
//! assert_eq!(ipv4::verify_header(&header), Ok(false));
//! assert_eq!(ipv4::write_header_checksum(&mut header), Ok(0xb861));
//! assert_eq!(header[10..12], [0xb8, 0x61]);
//! assert_eq!(ipv4::verify_header(&header), Ok(true));
//! ```

use super::{Address, Error, Fragment, Protocol, Report, Status, Upper, be16, bytes, judge, put16};
use crate::Checksum;

/// The length of an IPv4 header without options.
pub const MIN_HEADER_LEN: usize = 20;

/// Where the header checksum field is.
const CHECKSUM_OFFSET: usize = 10;

/// The protocol number of the IP Authentication Header (RFC 4302).
pub(super) const AH: u8 = 51;

/// The length in bytes of the IPv4 header at the start of `packet`, options
/// included: 4 times its IHL.
///
/// An error if `packet` is not IPv4 ([`Error::Version`]), is shorter than
/// 20 bytes or than the IHL says ([`Error::Truncated`]), or has an IHL below
/// 5 ([`Error::HeaderLength`]).
///
/// ```
/// use fastpath::packet::{ipv4, Error};
///
/// let mut header = [0u8; 24];
/// header[0] = 0x46; // version 4, IHL 6: one 4-byte option
/// assert_eq!(ipv4::header_len(&header), Ok(24));
/// assert_eq!(ipv4::header_len(&header[..22]), Err(Error::Truncated));
/// header[0] = 0x44;
/// assert_eq!(ipv4::header_len(&header), Err(Error::HeaderLength(4)));
/// ```
pub fn header_len(packet: &[u8]) -> Result<usize, Error> {
    let len = declared_header_len(packet)?;
    if len > packet.len() {
        return Err(Error::Truncated);
    }
    Ok(len)
}

/// The header length the IHL declares, checked against everything but the
/// length of `packet` past its first 20 bytes.
fn declared_header_len(packet: &[u8]) -> Result<usize, Error> {
    let first = *packet.first().ok_or(Error::Truncated)?;
    if first >> 4 != 4 {
        return Err(Error::Version(first >> 4));
    }
    if packet.len() < MIN_HEADER_LEN {
        return Err(Error::Truncated);
    }
    // RFC 791: "Internet Header Length is the length of the internet header
    // in 32 bit words, and thus points to the beginning of the data. Note
    // that the minimum value for a correct header is 5."
    let ihl = first & 0x0f;
    if ihl < 5 {
        return Err(Error::HeaderLength(ihl));
    }
    Ok(usize::from(ihl) * 4)
}

/// The folded sum of the header, its checksum field read as zero.
fn header_sum(packet: &[u8]) -> Result<u16, Error> {
    let len = header_len(packet)?;
    // RFC 791: "The checksum field is the 16 bit one's complement of the
    // one's complement sum of all 16 bit words in the header. For purposes
    // of computing the checksum, the value of the checksum field is zero."
    super::sum_skipping(Checksum::new(), packet, 0, CHECKSUM_OFFSET, len).ok_or(Error::Truncated)
}

/// The header checksum of the IPv4 header at the start of `packet`: the
/// value its checksum field (bytes 10 and 11) should hold, whatever it
/// holds now. Options count; bytes after the header do not.
///
/// Errors as for [`header_len`].
///
/// ```
/// use fastpath::packet::ipv4;
///
/// // RFC 1071 §3 style: a header, a payload after it that does not count.
/// let packet = [
///     0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0xff, 0xff,
///     0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7, 0x12, 0x34,
/// ];
/// assert_eq!(ipv4::header_checksum(&packet), Ok(0xb861));
/// ```
pub fn header_checksum(packet: &[u8]) -> Result<u16, Error> {
    Ok(!header_sum(packet)?)
}

/// Whether the header checksum of the IPv4 header at the start of `packet`
/// is right: the header, checksum included, sums to all ones.
///
/// Errors as for [`header_len`].
///
/// ```
/// use fastpath::packet::ipv4;
///
/// let header = [
///     0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0xb8, 0x61,
///     0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
/// ];
/// assert_eq!(ipv4::verify_header(&header), Ok(true));
/// ```
pub fn verify_header(packet: &[u8]) -> Result<bool, Error> {
    let len = header_len(packet)?;
    let header = packet.get(..len).ok_or(Error::Truncated)?;
    Ok(crate::checksum(header) == 0)
}

/// Computes the header checksum of the IPv4 header at the start of `packet`
/// and stores it in the header; returns it.
///
/// Errors as for [`header_len`]; on an error nothing is written.
///
/// ```
/// use fastpath::packet::ipv4;
///
/// let mut header = [
///     0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00,
///     0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
/// ];
/// assert_eq!(ipv4::write_header_checksum(&mut header), Ok(0xb861));
/// assert_eq!(fastpath::checksum(&header), 0);
/// ```
pub fn write_header_checksum(packet: &mut [u8]) -> Result<u16, Error> {
    let checksum = header_checksum(packet)?;
    put16(packet, CHECKSUM_OFFSET, checksum).ok_or(Error::Truncated)?;
    Ok(checksum)
}

/// The IPv4 pseudo-header sum of the upper layers' checksums (TCP, UDP):
/// source address, destination address, protocol, upper-layer length. Add
/// the upper-layer bytes to it with [`Checksum::update`] and
/// [`finish`](Checksum::finish).
///
/// ```text
///  +--------+--------+--------+--------+
///  |           Source Address          |
///  +--------+--------+--------+--------+
///  |         Destination Address       |
///  +--------+--------+--------+--------+
///  |  zero  |  PTCL  |    TCP Length   |
///  +--------+--------+--------+--------+
/// ```
///
/// ```
/// use fastpath::packet::ipv4;
///
/// let udp = [0x30, 0x39, 0x00, 0x35, 0x00, 0x0c, 0x00, 0x00, b'p', b'i', b'n', b'g'];
/// let mut sum = ipv4::pseudo_header([192, 168, 0, 1], [192, 168, 0, 199], 17, 12);
/// sum.update(&udp);
/// assert_eq!(sum.finish(), 0x6e7e);
/// ```
#[inline]
#[must_use]
pub fn pseudo_header(
    source: impl Address<4>,
    destination: impl Address<4>,
    protocol: u8,
    length: u16,
) -> Checksum {
    let mut sum = addresses(source.octets(), destination.octets());
    sum.add_u16(u16::from(protocol));
    sum.add_u16(length);
    sum
}

/// The pseudo-header sum without the length, not complemented: the seed
/// that segmentation offload expects in the TCP or UDP checksum field (DPDK's
/// `rte_ipv4_phdr_cksum` with `RTE_MBUF_F_TX_TCP_SEG` or
/// `RTE_MBUF_F_TX_UDP_SEG`), the hardware adding each segment's length.
/// For plain checksum offload, which wants the length in, use
/// [`pseudo_header`]`(..).sum()`, or [`partial::write_seed`].
///
/// [`partial::write_seed`]: super::partial::write_seed
///
/// ```
/// use fastpath::packet::ipv4;
///
/// let (src, dst) = ([10, 0, 0, 1], [10, 0, 0, 2]);
/// // 0x0a00 + 0x0001 + 0x0a00 + 0x0002 + 0x0006
/// assert_eq!(ipv4::pseudo_header_seed(src, dst, 6), 0x1409);
/// assert_eq!(ipv4::pseudo_header(src, dst, 6, 0).sum(), 0x1409);
/// ```
#[inline]
#[must_use]
pub fn pseudo_header_seed(
    source: impl Address<4>,
    destination: impl Address<4>,
    protocol: u8,
) -> u16 {
    pseudo_header(source, destination, protocol, 0).sum()
}

/// The sum of the two addresses.
fn addresses(source: [u8; 4], destination: [u8; 4]) -> Checksum {
    let mut sum = Checksum::new();
    sum.add_u32(u32::from_be_bytes(source));
    sum.add_u32(u32::from_be_bytes(destination));
    sum
}

/// The upper layer of the IPv4 packet `packet`: its protocol, where it
/// starts (after the header and its options, and after any IP
/// Authentication Headers, which are walked), where the total length says it
/// ends, and whether the packet is a fragment.
///
/// The pseudo-header uses the header's Destination Address even when a
/// source route option (LSRR, SSRR) names a later one: such packets are
/// almost never seen, and checksummed that way by the tools that read them.
///
/// Errors as for [`header_len`], and [`Error::Length`] if the total length
/// is shorter than the header, or an Authentication Header runs past it;
/// [`Error::Truncated`] if the buffer ends inside an Authentication Header.
///
/// ```
/// use fastpath::packet::{ipv4, Fragment};
///
/// // A later fragment (offset 185 × 8 bytes) of a UDP datagram, padded.
/// let mut packet = [0u8; 60];
/// packet[..20].copy_from_slice(&[
///     0x45, 0x00, 0x00, 0x1c, 0x00, 0x01, 0x00, 0xb9, 0x40, 0x11, 0x00, 0x00,
///     0x0a, 0x00, 0x00, 0x01, 0x0a, 0x00, 0x00, 0x02,
/// ]);
/// let upper = ipv4::upper(&packet)?;
/// assert_eq!((upper.protocol, upper.offset, upper.end), (17, 20, 28));
/// assert_eq!(upper.fragment, Fragment::Later);
/// # Ok::<(), fastpath::packet::Error>(())
/// ```
pub fn upper(packet: &[u8]) -> Result<Upper, Error> {
    let header_len = header_len(packet)?;
    let field = |at| be16(packet, at).ok_or(Error::Truncated);
    // RFC 791: "Total Length is the length of the datagram, measured in
    // octets, including internet header and data."
    let end = usize::from(field(2)?);
    if end < header_len {
        return Err(Error::Length);
    }
    // RFC 791: "Flags: ... Bit 2: (MF) 0 = Last Fragment, 1 = More
    // Fragments." "Fragment Offset: This field indicates where in the
    // datagram this fragment belongs."
    let flags_offset = field(6)?;
    let fragment = if flags_offset & 0x1fff != 0 {
        Fragment::Later
    } else if flags_offset & 0x2000 != 0 {
        Fragment::First
    } else {
        Fragment::Whole
    };
    let source = bytes(packet, 12).ok_or(Error::Truncated)?;
    let destination = bytes(packet, 16).ok_or(Error::Truncated)?;
    let mut protocol = *packet.get(9).ok_or(Error::Truncated)?;
    let mut offset = header_len;
    // A later fragment holds data only; otherwise step over Authentication
    // Headers, which authenticate the upper layer but leave it in clear.
    while protocol == AH && fragment != Fragment::Later {
        let (next, len) = ah(packet, offset, end)?;
        protocol = next;
        offset += len;
    }
    Ok(Upper {
        protocol,
        offset,
        end,
        fragment,
        version: 4,
        addresses: Ok(addresses(source, destination)),
        destination_is_final: true,
    })
}

/// The Next Header and the length of the IP Authentication Header at
/// `offset`, which must end by `end`.
pub(super) fn ah(packet: &[u8], offset: usize, end: usize) -> Result<(u8, usize), Error> {
    if offset + 2 > end {
        return Err(Error::Length);
    }
    let [next, payload_len] = bytes(packet, offset).ok_or(Error::Truncated)?;
    // RFC 4302 §2.2: "This 8-bit field specifies the length of AH in 32-bit
    // words (4-byte units), minus "2"."
    let len = (usize::from(payload_len) + 2) * 4;
    if offset + len > end {
        return Err(Error::Length);
    }
    Ok((next, len))
}

/// The report on the header checksum of `packet`, an IPv4 header; an error
/// only if there is no such header to speak of (fewer than 20 bytes, IHL
/// below 5). A header cut short by the end of the buffer is unverified.
pub(super) fn report(packet: &[u8]) -> Result<Report, Error> {
    declared_header_len(packet)?;
    let stored = be16(packet, CHECKSUM_OFFSET).ok_or(Error::Truncated)?;
    let (status, computed) = match header_sum(packet) {
        Ok(sum) => judge(sum, stored, !sum),
        Err(e) => (Status::Unverified(e), stored),
    };
    Ok(Report {
        protocol: Protocol::Ipv4,
        status,
        stored,
        computed,
        offset: CHECKSUM_OFFSET,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: [u8; 20] = [
        0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0xb8, 0x61, 0xc0, 0xa8, 0x00,
        0x01, 0xc0, 0xa8, 0x00, 0xc7,
    ];

    #[test]
    fn header_checksum_ignores_the_field_and_what_follows() {
        let mut packet = [0xee; 40];
        packet[..20].copy_from_slice(&HEADER);
        assert_eq!(header_checksum(&packet), Ok(0xb861));
        assert_eq!(verify_header(&packet), Ok(true));
        packet[10] = 0;
        assert_eq!(header_checksum(&packet), Ok(0xb861));
        assert_eq!(verify_header(&packet), Ok(false));
    }

    #[test]
    fn options_count() {
        let mut packet = [0u8; 28];
        packet[..20].copy_from_slice(&HEADER);
        packet[0] = 0x47;
        packet[20..24].copy_from_slice(&[0x94, 0x04, 0x00, 0x00]); // router alert
        packet[24] = 0x01; // NOP, then end of options
        let checksum = write_header_checksum(&mut packet).unwrap();
        let mut reference = packet;
        reference[10..12].fill(0);
        assert_eq!(checksum, crate::reference::checksum(&reference[..28]));
        assert_eq!(crate::checksum(&packet), 0);
        assert_eq!(header_len(&packet[..27]), Err(Error::Truncated));
    }

    #[test]
    fn malformed_headers_are_errors() {
        assert_eq!(header_len(&HEADER[..19]), Err(Error::Truncated));
        assert_eq!(header_len(&[]), Err(Error::Truncated));
        let mut header = HEADER;
        header[0] = 0x65;
        assert_eq!(header_checksum(&header), Err(Error::Version(6)));
        for ihl in 0..5 {
            header[0] = 0x40 | ihl;
            assert_eq!(
                write_header_checksum(&mut header),
                Err(Error::HeaderLength(ihl))
            );
            assert_eq!(header[10..12], [0xb8, 0x61], "nothing written");
        }
        header[0] = 0x4f; // 60 bytes of header in 20
        assert_eq!(verify_header(&header), Err(Error::Truncated));
        let report = report(&header).unwrap();
        assert_eq!(report.status, Status::Unverified(Error::Truncated));
        assert_eq!(report.computed, report.stored);
    }

    #[test]
    fn upper_layer_bounds() {
        let mut packet = [0u8; 60];
        packet[..20].copy_from_slice(&HEADER);
        packet[2..4].copy_from_slice(&19u16.to_be_bytes());
        assert_eq!(upper(&packet), Err(Error::Length));
        packet[2..4].copy_from_slice(&40u16.to_be_bytes());
        let found = upper(&packet).unwrap();
        assert_eq!((found.protocol, found.offset, found.end), (17, 20, 40));
        assert_eq!(found.fragment, Fragment::Whole);
        // An AH of 16 bytes, then TCP.
        packet[9] = AH;
        packet[20] = 6;
        packet[21] = 2;
        let found = upper(&packet).unwrap();
        assert_eq!((found.protocol, found.offset, found.end), (6, 36, 40));
        packet[21] = 3; // 20 bytes of AH: still fits in 40
        assert_eq!(upper(&packet).unwrap().offset, 40);
        packet[21] = 4;
        assert_eq!(upper(&packet), Err(Error::Length));
        assert_eq!(upper(&packet[..21]), Err(Error::Truncated));
    }

    #[test]
    fn pseudo_header_matches_its_layout() {
        let bytes = [192, 168, 0, 1, 192, 168, 0, 199, 0, 17, 0, 12];
        let sum = pseudo_header([192, 168, 0, 1], [192, 168, 0, 199], 17, 12);
        assert_eq!(sum.sum(), crate::reference::sum(&bytes));
        assert!(!sum.is_odd());
    }
}
