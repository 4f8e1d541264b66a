//! IPv6: the pseudo-header of the upper layers, and the walk over the
//! extension headers that finds the upper layer and its final destination.
//!
//! # The extension headers
//!
//! [`upper`] steps over these, in any order and number:
//!
//! | Next Header | header | what it changes |
//! |---|---|---|
//! | 0 | Hop-by-Hop Options | nothing |
//! | 60 | Destination Options | nothing |
//! | 43 | Routing | the final destination, if segments are left (below) |
//! | 44 | Fragment | [`Fragment`]: a later fragment ends the walk, since what follows it is data |
//! | 51 | Authentication Header (RFC 4302) | nothing: it authenticates the upper layer but leaves it readable |
//!
//! Every other Next Header value ends the walk and is the upper layer's
//! protocol: 6 TCP, 17 UDP and 58 ICMPv6, whose checksums [`l4`] computes,
//! or something else — ESP (50, encrypted), No Next Header (59), Mobility
//! (135), HIP (139), Shim6 (140), the experimental 253 and 254, or an unknown
//! value — for which [`l4`] answers [`Error::Protocol`]: not verifiable.
//!
//! # The final destination
//!
//! RFC 8200 §8.1: "If the IPv6 packet contains a Routing header, the
//! Destination Address used in the pseudo-header is that of the final
//! destination. At the originating node, that address will be in the last
//! element of the Routing header; at the recipient(s), that address will be
//! in the Destination Address field of the IPv6 header."
//!
//! So with Segments Left at 0 the final destination is the Destination
//! Address field. Otherwise it depends on the routing type:
//!
//! | type | header | final destination |
//! |---|---|---|
//! | 0 | source route (RFC 5095 deprecates it) | the last address of the list |
//! | 2 | Mobile IPv6 (RFC 6275) | its one address, the home address |
//! | 3 | RPL source route (RFC 6554) | the last address, its elided prefix (CmprE bytes) taken from the Destination Address |
//! | 4 | Segment Routing (RFC 8754) | Segment List\[0\]: the list is stored last segment first |
//! | others | | unknown: [`Error::RoutingType`] |
//!
//! IPv6 jumbograms (RFC 2675, a Payload Length of 0 and a Jumbo Payload
//! option) are not supported: they give [`Error::Length`].
//!
//! [`l4`]: super::l4

use super::{Address, Error, Fragment, Upper, bytes};
use crate::Checksum;

/// The length of the fixed IPv6 header.
pub const HEADER_LEN: usize = 40;

/// Next Header values of the extension headers [`upper`] walks.
const HOP_BY_HOP: u8 = 0;
const ROUTING: u8 = 43;
const FRAGMENT: u8 = 44;
const DESTINATION_OPTIONS: u8 = 60;

/// The IPv6 pseudo-header sum of the upper layers' checksums (TCP, UDP,
/// ICMPv6): source address, final destination address, upper-layer packet
/// length, next header (the upper layer's protocol, not the IPv6 header's
/// Next Header when extension headers come between). Add the upper-layer
/// bytes to it with [`Checksum::update`] and [`finish`](Checksum::finish).
///
/// ```text
///  +-----------------------------------------------+
///  |                 Source Address                |
///  +-----------------------------------------------+
///  |               Destination Address             |
///  +-----------------------------------------------+
///  |            Upper-Layer Packet Length          |
///  +-----------------------------------------------+
///  |           zero           |   Next Header      |
///  +-----------------------------------------------+
/// ```
///
/// ```
/// use fastpath::packet::ipv6;
///
/// let mut source = [0u8; 16];
/// source[..2].copy_from_slice(&[0xfe, 0x80]);
/// source[15] = 1;
/// let mut destination = source;
/// destination[15] = 2;
/// let udp = [0x30, 0x39, 0x00, 0x35, 0x00, 0x0c, 0x00, 0x00, b'p', b'i', b'n', b'g'];
/// let mut sum = ipv6::pseudo_header(source, destination, 17, 12);
/// sum.update(&udp);
/// // fe80 + 1 + fe80 + 2 + 12 + 17, then the datagram.
/// let expected = !fastpath::reference::sum(&[
///     0xfe, 0x80, 0, 1, 0xfe, 0x80, 0, 2, 0, 12, 0, 17,
///     0x30, 0x39, 0x00, 0x35, 0x00, 0x0c, 0x00, 0x00, b'p', b'i', b'n', b'g',
/// ]);
/// assert_eq!(sum.finish(), expected);
/// ```
#[inline]
#[must_use]
pub fn pseudo_header(
    source: impl Address<16>,
    destination: impl Address<16>,
    next_header: u8,
    length: u32,
) -> Checksum {
    let mut sum = addresses(&source.octets(), &destination.octets());
    sum.add_u32(length);
    sum.add_u16(u16::from(next_header));
    sum
}

/// The pseudo-header sum without the length, not complemented: the seed
/// that segmentation offload expects in the TCP or UDP checksum field (DPDK's
/// `rte_ipv6_phdr_cksum` with `RTE_MBUF_F_TX_TCP_SEG` or
/// `RTE_MBUF_F_TX_UDP_SEG`), the hardware adding each segment's length.
/// For plain checksum offload, which wants the length in, use
/// [`pseudo_header`]`(..).sum()`, or [`partial::write_seed`].
///
/// [`partial::write_seed`]: super::partial::write_seed
///
/// ```
/// use fastpath::packet::ipv6;
///
/// let (mut src, mut dst) = ([0u8; 16], [0u8; 16]);
/// src[15] = 1;
/// dst[15] = 2;
/// assert_eq!(ipv6::pseudo_header_seed(src, dst, 6), 1 + 2 + 6);
/// ```
#[inline]
#[must_use]
pub fn pseudo_header_seed(
    source: impl Address<16>,
    destination: impl Address<16>,
    next_header: u8,
) -> u16 {
    pseudo_header(source, destination, next_header, 0).sum()
}

/// The sum of two addresses.
fn addresses(source: &[u8; 16], destination: &[u8; 16]) -> Checksum {
    let mut sum = Checksum::new();
    sum.update(source);
    sum.update(destination);
    sum
}

/// The fixed IPv6 header at the start of `packet`: an error if it is not
/// IPv6 ([`Error::Version`]) or shorter than 40 bytes
/// ([`Error::Truncated`]).
pub(super) fn header(packet: &[u8]) -> Result<&[u8; HEADER_LEN], Error> {
    let first = *packet.first().ok_or(Error::Truncated)?;
    if first >> 4 != 6 {
        return Err(Error::Version(first >> 4));
    }
    packet.first_chunk().ok_or(Error::Truncated)
}

/// The upper layer of the IPv6 packet `packet`, after walking its
/// extension headers as the [module documentation](self) describes: its
/// protocol, where it starts, where the Payload Length says it ends, whether
/// the packet is a fragment, and the final destination for the
/// pseudo-header.
///
/// An error if `packet` is not IPv6 ([`Error::Version`]), shorter than 40
/// bytes or cut inside an extension header ([`Error::Truncated`]), or if an
/// extension header runs past the Payload Length ([`Error::Length`]).
///
/// ```
/// use fastpath::packet::{ipv6, Fragment};
///
/// // A Hop-by-Hop Options header (8 bytes of padding options), then UDP.
/// let mut packet = [0u8; 56];
/// packet[0] = 0x60;
/// packet[4..6].copy_from_slice(&16u16.to_be_bytes()); // payload length
/// packet[6] = 0; // Next Header: Hop-by-Hop
/// packet[40] = 17; // its Next Header: UDP
/// packet[42] = 1; // a PadN option of 4 bytes
/// packet[43] = 4;
/// let upper = ipv6::upper(&packet)?;
/// assert_eq!((upper.protocol, upper.offset, upper.end), (17, 48, 56));
/// assert_eq!(upper.fragment, Fragment::Whole);
/// # Ok::<(), fastpath::packet::Error>(())
/// ```
pub fn upper(packet: &[u8]) -> Result<Upper, Error> {
    let destination: [u8; 16] = bytes(header(packet)?, 24).ok_or(Error::Truncated)?;
    upper_with_destination(packet, &destination)
}

/// [`upper`] of `packet` with `destination` in place of its Destination
/// Address: what the upper layer's pseudo-header would be after the field
/// changed, which a routing header may take part of the final destination
/// from (RFC 6554's elided prefix).
pub(crate) fn upper_with_destination(
    packet: &[u8],
    destination: &[u8; 16],
) -> Result<Upper, Error> {
    let fixed = header(packet)?;
    let source: [u8; 16] = bytes(fixed, 8).ok_or(Error::Truncated)?;
    let destination = *destination;
    // RFC 8200 §3: "Payload Length: Length of the IPv6 payload, i.e., the
    // rest of the packet following this IPv6 header, in octets. (Note that
    // any extension headers present are considered part of the payload.)"
    let end = HEADER_LEN + usize::from(u16::from_be_bytes([fixed[4], fixed[5]]));
    let mut protocol = fixed[6];
    let mut offset = HEADER_LEN;
    let mut fragment = Fragment::Whole;
    let mut final_destination: Result<Option<[u8; 16]>, Error> = Ok(None);
    loop {
        let len = match protocol {
            // After the Fragment header of a later fragment comes a piece of
            // the fragmentable part, not a header.
            _ if fragment == Fragment::Later => break,
            HOP_BY_HOP | ROUTING | DESTINATION_OPTIONS => {
                // RFC 8200 §4.3: "Hdr Ext Len: 8-bit unsigned integer.
                // Length of the Hop-by-Hop Options header in 8-octet units,
                // not including the first 8 octets." (The same for the
                // others.)
                (usize::from(length_byte(packet, offset, end)?) + 1) * 8
            }
            FRAGMENT => 8,
            super::ipv4::AH => super::ipv4::ah(packet, offset, end)?.1,
            _ => break,
        };
        if offset + len > end {
            return Err(Error::Length);
        }
        let ext = packet.get(offset..offset + len).ok_or(Error::Truncated)?;
        // Every extension header is at least 8 bytes long.
        let head: [u8; 8] = bytes(ext, 0).ok_or(Error::Length)?;
        match protocol {
            ROUTING => {
                if let Some(found) = routed_destination(ext, head, &destination) {
                    final_destination = found.map(Some);
                }
            }
            FRAGMENT => {
                // RFC 8200 §4.5: "Fragment Offset: 13-bit unsigned integer.
                // The offset, in 8-octet units, of the data following this
                // header, relative to the start of the Fragmentable Part of
                // the original packet." "M flag: 1 = more fragments;
                // 0 = last fragment."
                let offset_m = u16::from_be_bytes([head[2], head[3]]);
                if offset_m >> 3 != 0 {
                    fragment = Fragment::Later;
                } else if offset_m & 1 != 0 {
                    fragment = Fragment::First;
                }
                // Offset 0 and M clear: an atomic fragment (RFC 6946), a
                // whole packet.
            }
            _ => {}
        }
        protocol = head[0];
        offset += len;
    }
    let addresses =
        final_destination.map(|found| addresses(&source, &found.unwrap_or(destination)));
    Ok(Upper {
        protocol,
        offset,
        end,
        fragment,
        version: 6,
        addresses,
        destination_is_final: matches!(final_destination, Ok(None)),
    })
}

/// The Hdr Ext Len byte of the extension header at `offset`, which starts
/// before `end`.
fn length_byte(packet: &[u8], offset: usize, end: usize) -> Result<u8, Error> {
    if offset + 2 > end {
        return Err(Error::Length);
    }
    packet.get(offset + 1).copied().ok_or(Error::Truncated)
}

/// The final destination that the routing header `ext`, whose first 8 bytes
/// are `head`, names: `None` if it
/// has no segments left (the Destination Address field is the final
/// destination); an error if its type is one whose final destination is not
/// known here ([`Error::RoutingType`]) or if it is malformed
/// ([`Error::Length`]).
fn routed_destination(
    ext: &[u8],
    head: [u8; 8],
    destination: &[u8; 16],
) -> Option<Result<[u8; 16], Error>> {
    let [.., segments_left, _, _, _, _] = head;
    // RFC 8200 §4.4: "Segments Left: 8-bit unsigned integer. Number of route
    // segments remaining, i.e., number of explicitly listed intermediate
    // nodes still to be visited before reaching the final destination."
    if segments_left == 0 {
        return None;
    }
    Some(last_segment(ext, head, destination))
}

/// The final destination in a routing header with segments left.
fn last_segment(ext: &[u8], head: [u8; 8], destination: &[u8; 16]) -> Result<[u8; 16], Error> {
    let [_, ext_len, routing_type, _, compression, pad, ..] = head;
    let address = |at: usize| bytes::<16>(ext, at).ok_or(Error::Length);
    let found = match routing_type {
        // Type 0 (RFC 2460): "Hdr Ext Len: ... equal to two times the number
        // of addresses in the header." Type 2 (RFC 6275 §6.4) is the same
        // with one address, the home address.
        0 | 2 => {
            let count = usize::from(ext_len / 2);
            address(8 + count.checked_sub(1).ok_or(Error::Length)? * 16)?
        }
        // RFC 6554 §3: "n = (((Hdr Ext Len * 8) - Pad - (16 - CmprE)) /
        // (16 - CmprI)) + 1"; the last address, Address[n], has its first
        // CmprE octets elided, equal to those of the Destination Address.
        3 => {
            let (cmpr_i, cmpr_e) = (
                usize::from(compression >> 4),
                usize::from(compression & 0x0f),
            );
            let pad = usize::from(pad >> 4);
            let last = (usize::from(ext_len) * 8)
                .checked_sub(pad + 16 - cmpr_e)
                .ok_or(Error::Length)?;
            let start = 8 + last / (16 - cmpr_i) * (16 - cmpr_i);
            let tail = ext.get(start..start + 16 - cmpr_e).ok_or(Error::Length)?;
            let mut found = *destination;
            for (byte, &kept) in found.iter_mut().skip(cmpr_e).zip(tail) {
                *byte = kept;
            }
            found
        }
        // RFC 8754 §2: "The Segment List is encoded starting from the last
        // segment of the SR Policy. That is, the first element of the
        // segment list (Segment List[0]) contains the last segment of the SR
        // Policy".
        4 => address(8)?,
        other => return Err(Error::RoutingType(other)),
    };
    Ok(found)
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;
    use std::{vec, vec::Vec};

    /// An IPv6 header with the given payload length and next header, from
    /// ::1 to ::2, then `rest`.
    fn packet(next_header: u8, rest: &[u8]) -> Vec<u8> {
        let mut p = vec![0u8; HEADER_LEN];
        p[0] = 0x60;
        p[4..6].copy_from_slice(&(rest.len() as u16).to_be_bytes());
        p[6] = next_header;
        p[23] = 1;
        p[39] = 2;
        p.extend_from_slice(rest);
        p
    }

    fn address(last: u8) -> [u8; 16] {
        let mut a = [0u8; 16];
        a[0] = 0x20;
        a[15] = last;
        a
    }

    fn final_destination(p: &[u8]) -> Result<Checksum, Error> {
        upper(p).unwrap().addresses
    }

    #[test]
    fn walks_every_kind_of_extension_header() {
        let mut rest = vec![];
        rest.extend_from_slice(&[ROUTING, 0, 0, 0, 0, 0, 0, 0]); // hop-by-hop
        rest.extend_from_slice(&[DESTINATION_OPTIONS, 0, 4, 0, 0, 0, 0, 0]); // routing, type 4, none left
        rest.extend_from_slice(&[super::super::ipv4::AH, 1, 0, 0, 0, 0, 0, 0]); // destination options, 16 bytes
        rest.extend_from_slice(&[0; 8]);
        rest.extend_from_slice(&[FRAGMENT, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]); // AH, 16 bytes
        rest.extend_from_slice(&[6, 0, 0, 0, 0, 0, 0, 1]); // atomic fragment
        rest.extend_from_slice(&[0; 20]); // TCP
        let p = packet(HOP_BY_HOP, &rest);
        let found = upper(&p).unwrap();
        assert_eq!((found.protocol, found.offset, found.end), (6, 96, 116));
        assert_eq!(found.fragment, Fragment::Whole);
        assert!(found.destination_is_final);
        assert_eq!(p[4..6], [0, 76]);
    }

    #[test]
    fn fragments() {
        let first = packet(FRAGMENT, &[17, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0]);
        let found = upper(&first).unwrap();
        assert_eq!(
            (found.protocol, found.offset, found.fragment),
            (17, 48, Fragment::First)
        );
        // A later fragment whose data happens to look like a header.
        let later = packet(
            FRAGMENT,
            &[HOP_BY_HOP, 0, 0, 8, 0, 0, 0, 1, 17, 0, 0, 0, 0, 0, 0, 0],
        );
        let found = upper(&later).unwrap();
        assert_eq!(
            (found.protocol, found.offset, found.fragment),
            (0, 48, Fragment::Later)
        );
    }

    #[test]
    fn lengths_and_truncation() {
        let p = packet(
            HOP_BY_HOP,
            &[17, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        );
        assert_eq!(upper(&p).unwrap().offset, 56);
        assert_eq!(upper(&p[..55]), Err(Error::Truncated));
        assert_eq!(upper(&p[..41]), Err(Error::Truncated));
        assert_eq!(upper(&p[..39]), Err(Error::Truncated));
        let mut short = p.clone();
        short[5] = 15; // payload length one short of the header
        assert_eq!(upper(&short), Err(Error::Length));
        short[5] = 0; // a jumbogram's zero payload length
        assert_eq!(upper(&short), Err(Error::Length));
        let mut v4 = p;
        v4[0] = 0x45;
        assert_eq!(upper(&v4), Err(Error::Version(4)));
    }

    #[test]
    fn routing_header_final_destinations() {
        let real = address(9);
        // The fixed header's addresses are ::1 -> ::2.
        let mut source = [0u8; 16];
        source[15] = 1;
        let mut header_dst = [0u8; 16];
        header_dst[15] = 2;
        let want = |d: &[u8; 16]| Ok(addresses(&source, d));

        // Type 0 with two addresses and segments left: the last one.
        let mut rest = vec![17, 4, 0, 1, 0, 0, 0, 0];
        rest.extend_from_slice(&address(7));
        rest.extend_from_slice(&real);
        let p = packet(ROUTING, &rest);
        assert_eq!(final_destination(&p), want(&real));
        assert!(!upper(&p).unwrap().destination_is_final);
        // No segments left: the Destination Address field.
        let mut done = p.clone();
        done[43] = 0;
        assert_eq!(final_destination(&done), want(&header_dst));
        assert!(upper(&done).unwrap().destination_is_final);
        // Type 0 without addresses but with segments left is malformed: the
        // upper layer is found, its pseudo-header is not.
        let p = packet(ROUTING, &[17, 0, 0, 1, 0, 0, 0, 0]);
        assert_eq!(final_destination(&p), Err(Error::Length));
        assert_eq!(upper(&p).unwrap().offset, 48);

        // Type 2: the home address.
        let mut rest = vec![17, 2, 2, 1, 0, 0, 0, 0];
        rest.extend_from_slice(&real);
        assert_eq!(final_destination(&packet(ROUTING, &rest)), want(&real));

        // Type 4: Segment List[0], the first in the header.
        let mut rest = vec![17, 4, 4, 1, 1, 0, 0, 0];
        rest.extend_from_slice(&real);
        rest.extend_from_slice(&address(7));
        assert_eq!(final_destination(&packet(ROUTING, &rest)), want(&real));

        // Type 3: two addresses compressed to 8 bytes each (CmprI = CmprE =
        // 8), no padding; the last one takes its prefix from ::2.
        let mut rest = vec![17, 2, 3, 2, 0x88, 0x00, 0, 0];
        rest.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 7]);
        rest.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 9]);
        let mut rpl = header_dst;
        rpl[8..].copy_from_slice(&[0, 0, 0, 0, 0, 0, 0, 9]);
        assert_eq!(final_destination(&packet(ROUTING, &rest)), want(&rpl));
        // Type 3, CmprI 15, CmprE 14, 5 bytes of padding in 8: two addresses
        // of 1 and 2 bytes.
        let rest = [
            17, 1, 3, 1, 0xfe, 0x50, 0, 0, 0x11, 0x22, 0x33, 0, 0, 0, 0, 0,
        ];
        let mut rpl = header_dst;
        rpl[14..].copy_from_slice(&[0x22, 0x33]);
        assert_eq!(final_destination(&packet(ROUTING, &rest)), want(&rpl));

        // An unknown type: the walk goes on, the destination is unknown.
        let p = packet(ROUTING, &[17, 0, 253, 1, 0, 0, 0, 0]);
        let found = upper(&p).unwrap();
        assert_eq!((found.protocol, found.offset), (17, 48));
        assert_eq!(found.addresses, Err(Error::RoutingType(253)));
        assert_eq!(found.pseudo_header(8), Err(Error::RoutingType(253)));
    }

    #[test]
    fn other_next_headers_end_the_walk() {
        for next in [50, 59, 135, 139, 140, 253, 254, 6, 17, 58, 4, 41] {
            let p = packet(next, &[0; 16]);
            let found = upper(&p).unwrap();
            assert_eq!((found.protocol, found.offset, found.end), (next, 40, 56));
        }
    }
}
