//! The checksums of the upper layers — TCP, UDP, ICMPv4 and ICMPv6 — over
//! IPv4 and IPv6, given the whole IP packet, in one buffer or split across
//! several ([`checksum_vectored`], [`verify_vectored`],
//! [`write_checksum_vectored`]), or its headers and the sum a device
//! computed over the rest ([`verify_complete`]).
//!
//! The functions here take the bytes of an IP packet from its IP header on,
//! find the upper layer (walking IPv6 extension headers, see
//! [`ipv6`](super::ipv6)), and compute, verify or write its checksum. What
//! the checksum covers comes from the headers, never from the length of the
//! buffer, which may hold Ethernet padding:
//!
//! | protocol | pseudo-header | the data covered |
//! |---|---|---|
//! | TCP (6) | IPv4 or IPv6 | from the TCP header to the end of the IP payload (IPv4 Total Length, IPv6 Payload Length) |
//! | UDP (17) | IPv4 or IPv6 | the datagram, as long as the UDP Length field says (it must fit in the IP payload) |
//! | ICMPv4 (1), over IPv4 | none | from the ICMP header to the end of the IP payload |
//! | ICMPv6 (58), over IPv6 | IPv6, Next Header 58 | from the ICMPv6 header to the end of the IP payload |
//! | UDP-Lite (136) | IPv4 or IPv6, with the length of the IP payload | the first Checksum Coverage bytes from the UDP-Lite header (0: to the end of the IP payload; below 8 or past the payload, RFC 3828 §3.1: nothing can be verified) |
//!
//! A computed UDP or UDP-Lite checksum of 0 is written as 0xffff (RFC 768,
//! RFC 3828 §3.1). A UDP-Lite checksum of 0 is [illegal](Status::Illegal)
//! over IPv4 and IPv6: UDP-Lite has no "no checksum" (RFC 3828 §3.1). Nothing can
//! be computed for a fragment, an upper layer shorter than its fixed header
//! (TCP 20 bytes, UDP 8, ICMPv4 8, ICMPv6 4), data cut short, or an IPv6
//! packet whose final destination is unknown: those give an [`Error`].
//!
//! ```
//! use fastpath::packet::l4;
//!
//! // UDP over IPv4 with its checksum field zeroed, and Ethernet padding.
//! let mut frame = [
//!     0x45, 0x00, 0x00, 0x20, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0xb8, 0xb4,
//!     0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
//!     0x30, 0x39, 0x00, 0x35, 0x00, 0x0c, 0x00, 0x00, b'p', b'i', b'n', b'g',
//!     0, 0, 0, 0, 0, 0,
//! ];
//! assert_eq!(l4::checksum(&frame), Ok(0x6e7e));
//! // A UDP checksum of 0 over IPv4 means "none": acceptable.
//! assert_eq!(l4::verify(&frame), Ok(true));
//! assert_eq!(l4::write_checksum(&mut frame), Ok(0x6e7e));
//! assert_eq!(frame[26..28], [0x6e, 0x7e]);
//! assert_eq!(l4::verify(&frame), Ok(true));
//! frame[31] ^= 1;
//! assert_eq!(l4::verify(&frame), Ok(false));
//! ```

use super::{
    Error, Fragment, Protocol, Report, Status, Upper, be16, checks, judge, put16, sum_skipping,
};
use crate::Checksum;

mod vectored;

#[cfg(feature = "std")]
pub use vectored::{checksum_io_slices, verify_io_slices};
pub use vectored::{checksum_vectored, verify_vectored, write_checksum_vectored};

/// Where an upper-layer checksum is, and what it covers.
#[derive(Clone, Copy, Debug)]
pub(super) struct Located {
    pub(super) protocol: Protocol,
    /// Whether the IP layer is IPv6.
    pub(super) ipv6: bool,
    /// Where the upper-layer header starts.
    pub(super) start: usize,
    /// Where the checksum field is: inside the buffer.
    pub(super) field: usize,
    /// Where the data covered ends, per the headers: maybe past the buffer.
    pub(super) end: usize,
    /// The pseudo-header sum; empty for ICMPv4.
    pub(super) pseudo: Checksum,
    /// Why the checksum cannot be verified, if it cannot.
    pub(super) unverifiable: Option<Error>,
}

impl Located {
    /// The folded sum of the pseudo-header and the data, the checksum field
    /// read as zero, if it can be verified.
    fn sum(&self, packet: &[u8]) -> Result<u16, Error> {
        if let Some(e) = self.unverifiable {
            return Err(e);
        }
        sum_skipping(self.pseudo, packet, self.start, self.field, self.end).ok_or(Error::Truncated)
    }

    /// Whether a checksum `stored` in the field is acceptable, as a receiver
    /// judges it: a UDP zero from the field alone (RFC 768: no checksum,
    /// acceptable over IPv4; RFC 8200 §8.1: not over IPv6), a UDP-Lite zero
    /// never (RFC 3828 §3.1), any other value by `check`.
    fn verdict(
        &self,
        stored: u16,
        check: impl FnOnce() -> Result<bool, Error>,
    ) -> Result<bool, Error> {
        match self.protocol {
            Protocol::Udp if stored == 0 => Ok(!self.ipv6),
            Protocol::UdpLite if stored == 0 => Ok(false),
            _ => check(),
        }
    }

    /// The value to store for a sum of `sum`.
    fn value(&self, sum: u16) -> u16 {
        let checksum = !sum;
        // RFC 768: "If the computed checksum is zero, it is transmitted as
        // all ones (the equivalent in one's complement arithmetic)." RFC
        // 3828 §3.1 says the same of UDP-Lite.
        if matches!(self.protocol, Protocol::Udp | Protocol::UdpLite) && checksum == 0 {
            0xffff
        } else {
            checksum
        }
    }
}

/// Finds the checksum of the upper layer `upper` of `packet`. An error if
/// there is no checksum field in the packet to read; a field that can be
/// read but not verified is `Ok` with `unverifiable` set.
pub(super) fn locate(packet: &[u8], upper: &Upper) -> Result<Located, Error> {
    locate_in(packet, packet.len(), upper)
}

/// [`locate`] in a packet of `len` bytes of which `packet` holds the first
/// ones: reads only `packet`, and compares with `len` where [`locate`]
/// compares with the length of the packet.
fn locate_in(packet: &[u8], len: usize, upper: &Upper) -> Result<Located, Error> {
    if upper.fragment == Fragment::Later {
        return Err(Error::LaterFragment);
    }
    let ipv6 = upper.version == 6;
    // (protocol, where the checksum field is, the shortest header)
    let (protocol, field, min_len) = match (upper.protocol, ipv6) {
        (6, _) => (Protocol::Tcp, 16, 20),
        (17, _) => (Protocol::Udp, 6, 8),
        (1, false) => (Protocol::Icmp, 2, 8),
        (58, true) => (Protocol::Icmpv6, 2, 4),
        (136, _) => (Protocol::UdpLite, 6, 8),
        (other, _) => return Err(Error::Protocol(other)),
    };
    let start = upper.offset;
    let field = start + field;
    if field + 2 > upper.end {
        return Err(Error::Length);
    }
    if field + 2 > len {
        return Err(Error::Truncated);
    }
    let mut end = upper.end;
    let mut length_fits = end - start >= min_len;
    if protocol == Protocol::Udp {
        // RFC 768: "Length is the length in octets of this user datagram
        // including this header and the data. (This means the minimum value
        // of the length is eight.)"
        let udp_len = usize::from(be16(packet, start + 4).ok_or(Error::Truncated)?);
        length_fits &= udp_len >= 8 && start + udp_len <= end;
        end = start + udp_len;
    }
    // The pseudo-header's length: UDP's own, or the IP payload's.
    let pseudo_len = (end - start) as u32;
    if protocol == Protocol::UdpLite {
        // RFC 3828 §3.1: "Checksum Coverage is the number of octets,
        // starting from the first octet of the UDP-Lite header, that are
        // covered by the checksum. [...] A value of zero indicates that the
        // entire UDP-Lite packet is covered by the checksum. [...] Packets
        // with illegal Checksum Coverage values (< 8 or > IP length) MUST be
        // discarded by the receiver."
        let coverage = usize::from(be16(packet, start + 4).ok_or(Error::Truncated)?);
        if coverage != 0 {
            length_fits &= coverage >= 8 && start + coverage <= end;
            end = end.min(start + coverage);
        }
    }
    // RFC 8200 §8.1: "Some upper-layer protocols carry their own length
    // information (e.g., the Length field in the UDP header); for such
    // protocols, that is the length used in the pseudo-header. Other
    // protocols (such as TCP) do not carry their own length information, in
    // which case the length used in the pseudo-header is the Payload Length
    // from the IPv6 header, minus the length of any extension headers
    // present between the IPv6 header and the upper-layer header." RFC 9293
    // §3.1 says the same of the TCP Length over IPv4.
    let pseudo = match protocol {
        // RFC 792: "The checksum is the 16-bit ones's complement of the
        // one's complement sum of the ICMP message starting with the ICMP
        // Type."
        Protocol::Icmp => Ok(Checksum::new()),
        _ => upper.pseudo_header(pseudo_len),
    };
    let unverifiable = if upper.fragment == Fragment::First {
        Some(Error::FirstFragment)
    } else if !length_fits {
        Some(Error::Length)
    } else if let Err(e) = pseudo {
        Some(e)
    } else if end > len {
        Some(Error::Truncated)
    } else {
        None
    };
    Ok(Located {
        protocol,
        ipv6,
        start,
        field,
        end,
        pseudo: pseudo.unwrap_or_default(),
        unverifiable,
    })
}

/// The report on the upper layer's checksum.
pub(super) fn report(packet: &[u8], upper: &Upper) -> Result<Report, Error> {
    let located = locate(packet, upper)?;
    let stored = be16(packet, located.field).ok_or(Error::Truncated)?;
    let sum = located.sum(packet);
    let (status, computed) = if located.protocol == Protocol::UdpLite && stored == 0 {
        // RFC 3828 §3.1: "the checksum field [...] MUST be computed": a
        // zero is no checksum, which UDP-Lite does not allow.
        (
            Status::Illegal,
            sum.map_or(stored, |sum| located.value(sum)),
        )
    } else if located.protocol == Protocol::Udp && stored == 0 {
        // A zero is judged before the data, which it does not depend on.
        if located.ipv6 {
            // RFC 8200 §8.1: "IPv6 receivers must discard UDP packets
            // containing a zero checksum and should log the error."
            (
                Status::Illegal,
                sum.map_or(stored, |sum| located.value(sum)),
            )
        } else {
            // RFC 768: "An all zero transmitted checksum value means that
            // the transmitter generated no checksum".
            (Status::Absent, stored)
        }
    } else {
        match sum {
            Err(e) => (Status::Unverified(e), stored),
            Ok(sum) => judge(sum, stored, located.value(sum)),
        }
    };
    Ok(Report {
        protocol: located.protocol,
        status,
        stored,
        computed,
        offset: located.field,
    })
}

/// The upper layer of `packet` and its checksum's location.
fn find(packet: &[u8]) -> Result<Located, Error> {
    locate(packet, &super::upper(packet)?)
}

/// The checksum that the upper layer (TCP, UDP, UDP-Lite, ICMPv4, ICMPv6)
/// of the IP packet `packet` should carry, whatever its checksum field
/// holds now. A UDP or UDP-Lite checksum that computes to 0 is returned as
/// 0xffff, as it is sent.
///
/// An error if the upper layer is not one of those ([`Error::Protocol`]),
/// or its checksum cannot be computed from these bytes: a fragment, lengths
/// that don't fit, data cut short, an unknown final destination. See
/// [`Error`].
///
/// ```
/// use fastpath::packet::{l4, Error};
///
/// // ICMPv4 echo request over IPv4: no pseudo-header.
/// let packet = [
///     0x45, 0x00, 0x00, 0x1c, 0x00, 0x00, 0x00, 0x00, 0x40, 0x01, 0x00, 0x00,
///     0x0a, 0x00, 0x00, 0x01, 0x0a, 0x00, 0x00, 0x02,
///     0x08, 0x00, 0x00, 0x00, 0x12, 0x34, 0x00, 0x01,
/// ];
/// assert_eq!(l4::checksum(&packet), Ok(!(0x0800 + 0x1234 + 0x0001)));
/// assert_eq!(l4::checksum(&packet[..27]), Err(Error::Truncated));
/// ```
pub fn checksum(packet: &[u8]) -> Result<u16, Error> {
    let located = find(packet)?;
    Ok(located.value(located.sum(packet)?))
}

/// Whether the upper layer's checksum is acceptable, as a receiver judges
/// it: the data sums to all ones with the checksum in it. A UDP checksum of
/// 0 over IPv4 ("no checksum") is acceptable; over IPv6 it is not.
///
/// Errors as for [`checksum`]. For the finer verdict, see
/// [`analyze`](super::analyze).
///
/// ```
/// use fastpath::packet::l4;
///
/// let packet = [
///     0x45, 0x00, 0x00, 0x1c, 0x00, 0x00, 0x00, 0x00, 0x40, 0x01, 0x00, 0x00,
///     0x0a, 0x00, 0x00, 0x01, 0x0a, 0x00, 0x00, 0x02,
///     0x08, 0x00, 0xe5, 0xca, 0x12, 0x34, 0x00, 0x01,
/// ];
/// assert_eq!(l4::verify(&packet), Ok(true));
/// ```
pub fn verify(packet: &[u8]) -> Result<bool, Error> {
    let located = find(packet)?;
    let stored = be16(packet, located.field).ok_or(Error::Truncated)?;
    located.verdict(stored, || Ok(checks(located.sum(packet)?, stored)))
}

/// Whether the upper layer's checksum is acceptable, as [`verify`] judges
/// it, from the sum that a device computed over the upper layer: reads the
/// headers only, never the data (Linux's `CHECKSUM_COMPLETE`, checked by
/// `__skb_checksum_complete`).
///
/// `headers` is the packet from its IP header on, at least up to the end of
/// the upper layer's checksum field (the rest of the packet may be there or
/// not). `sum` is the folded ones'-complement sum, not complemented, of
/// exactly the bytes that the checksum covers, the checksum field included
/// as it is stored: from the first byte of the TCP, UDP, ICMPv4 or ICMPv6
/// header to the end of the IP payload (IPv4 Total Length, IPv6 Payload
/// Length), or for UDP to the end of the datagram (its Length field), with
/// no Ethernet padding. That is Linux's `skb->csum` for a
/// `CHECKSUM_COMPLETE` packet once the stack has pulled the IP header and
/// trimmed the padding. A device whose sum starts at the IP header instead
/// (as a driver hands it to the stack) covers the IP header too:
/// [`verify_complete_from_ip`] takes that one. A byte-swapped sum (a device that adds little-endian words) is
/// [`u16::swap_bytes`] of the big-endian one.
///
/// Errors as for [`checksum`], except that the data is not read: no
/// [`Error::Truncated`] for data cut short. A UDP checksum of 0 is judged
/// as [`verify`] judges it, from the field alone.
///
/// ```
/// use fastpath::{packet::l4, Checksum};
///
/// let packet = [
///     0x45, 0x00, 0x00, 0x1c, 0x00, 0x00, 0x00, 0x00, 0x40, 0x01, 0x00, 0x00,
///     0x0a, 0x00, 0x00, 0x01, 0x0a, 0x00, 0x00, 0x02,
///     0x08, 0x00, 0xe5, 0xca, 0x12, 0x34, 0x00, 0x01,
/// ];
/// // What the device reports: the sum of the ICMP message.
/// let mut device = Checksum::new();
/// device.update(&packet[20..]);
/// // The headers suffice.
/// assert_eq!(l4::verify_complete(&packet[..24], device.sum()), Ok(true));
/// assert_eq!(l4::verify_complete(&packet[..24], device.sum() ^ 1), Ok(false));
///
/// // A sum from the IP header on: the header's sum taken out first.
/// let mut from_ip = Checksum::new();
/// from_ip.update(&packet);
/// from_ip.sub_u16(!fastpath::checksum(&packet[..20]));
/// assert_eq!(l4::verify_complete(&packet, from_ip.sum()), Ok(true));
/// ```
pub fn verify_complete(headers: &[u8], sum: u16) -> Result<bool, Error> {
    let upper = super::upper(headers)?;
    // The data's end is the device's business: not checked against
    // `headers`.
    let located = locate_in(headers, usize::MAX, &upper)?;
    let stored = be16(headers, located.field).ok_or(Error::Truncated)?;
    located.verdict(stored, || {
        if let Some(e) = located.unverifiable {
            return Err(e);
        }
        let mut total = located.pseudo;
        total.add_u16(sum);
        Ok(total.sum() == 0xffff)
    })
}

/// [`verify_complete`] with the sum a device gives from the IP header on
/// (as NICs and drivers hand `CHECKSUM_COMPLETE` sums to the stack): `sum`
/// covers the IP header, its options or extension headers, and the upper
/// layer to the end of the IP payload, with no padding. The IP headers'
/// sum, which `headers` holds, is taken out first (their length is a
/// multiple of 4 or 8, so the upper layer's words pair as in the device's
/// sum).
///
/// Errors as for [`verify_complete`].
///
/// ```
/// use fastpath::{packet::l4, Checksum};
///
/// let packet = [
///     0x45, 0x00, 0x00, 0x1c, 0x00, 0x00, 0x00, 0x00, 0x40, 0x01, 0x00, 0x00,
///     0x0a, 0x00, 0x00, 0x01, 0x0a, 0x00, 0x00, 0x02,
///     0x08, 0x00, 0xe5, 0xca, 0x12, 0x34, 0x00, 0x01,
/// ];
/// // What the device reports: the sum of the whole IP packet.
/// let mut device = Checksum::new();
/// device.update(&packet);
/// assert_eq!(l4::verify_complete_from_ip(&packet[..24], device.sum()), Ok(true));
/// assert_eq!(l4::verify_complete_from_ip(&packet[..24], device.sum() ^ 1), Ok(false));
/// ```
pub fn verify_complete_from_ip(headers: &[u8], sum: u16) -> Result<bool, Error> {
    let upper = super::upper(headers)?;
    let ip_headers = headers.get(..upper.offset).ok_or(Error::Truncated)?;
    let mut upper_sum = Checksum::from_parts(sum, false);
    upper_sum.sub_u16(!crate::checksum(ip_headers));
    verify_complete(headers, upper_sum.sum())
}

/// Computes the upper layer's checksum, as [`checksum`] does, stores it in
/// its field, and returns it.
///
/// Errors as for [`checksum`]; on an error nothing is written.
///
/// ```
/// use fastpath::packet::l4;
///
/// // TCP over IPv6, a bare SYN from [::1]:1024 to [::2]:80.
/// let mut packet = [0u8; 60];
/// packet[0] = 0x60;
/// packet[5] = 20; // payload length
/// packet[6] = 6; // TCP
/// packet[23] = 1;
/// packet[39] = 2;
/// packet[40..60].copy_from_slice(&[
///     0x04, 0x00, 0x00, 0x50, 0, 0, 0, 1, 0, 0, 0, 0, 0x50, 0x02, 0xff, 0xff, 0, 0, 0, 0,
/// ]);
/// let checksum = l4::write_checksum(&mut packet)?;
/// assert_eq!(packet[56..58], checksum.to_be_bytes());
/// assert_eq!(l4::verify(&packet), Ok(true));
/// # Ok::<(), fastpath::packet::Error>(())
/// ```
pub fn write_checksum(packet: &mut [u8]) -> Result<u16, Error> {
    let located = find(packet)?;
    let value = located.value(located.sum(packet)?);
    put16(packet, located.field, value).ok_or(Error::Truncated)?;
    Ok(value)
}
