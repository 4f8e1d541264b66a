//! Incremental checksum updates (RFC 1624): the new checksum after a field
//! changes, from the old checksum and the old and new values of the field,
//! without reading the rest of the data. And the rewrite a NAT does, of an
//! address and a port, which touches both the IP and the TCP/UDP checksum.
//!
//! RFC 1624 §3 gives the update as
//!
//! ```text
//! HC' = ~(~HC + ~m + m')    --    [Eqn. 3]
//! ```
//!
//! where `HC` is the old checksum, `m` the old value of a 16-bit field and
//! `m'` the new one, in ones' complement arithmetic. For a wider field, `m`
//! and `m'` are the sums of its words. [`update16`], [`update32`] and
//! [`update128`] take values that sit at an even offset from the start of
//! the checksummed data, as every address and port does; [`replace`]
//! rewrites bytes in a packet at any offset and length, odd ones included,
//! and updates a checksum field with them.
//!
//! One convention for the arguments: checksums and 16-bit fields are `u16`
//! values (a field's big-endian bytes read as a number, as
//! `u16::from_be_bytes` gives them); addresses are an [`Address`], their
//! bytes in network order or the `core::net` type, by value or by
//! reference.
//!
//! # The corner case of RFC 1624 §4
//!
//! Ones' complement arithmetic has two zeros, 0x0000 and 0xffff. The sum of
//! data that is not all zero is never 0x0000, so its checksum is never
//! 0xffff; a recomputation gives 0x0000 where an update could give 0xffff.
//! Equation 3, done with an end-around carry that turns no non-zero sum
//! into 0x0000, gives what recomputation gives: the functions here do that,
//! and read a sum of 0x0000, which only all-zero terms give, as 0xffff.
//! They assume the data covered is not all zero, which holds for an IPv4
//! header and for anything with a pseudo-header.
//!
//! ```
//! use fastpath::packet::incremental;
//!
//! // RFC 1624 §4: a field changes from 0x5555 to 0x3285, the other header
//! // octets summing to 0xcd7a. The checksum was ~(0xcd7a + 0x5555) = 0xdd2f.
//! assert_eq!(incremental::update16(0xdd2f, 0x5555, 0x3285), 0x0000);
//! ```

use super::{Address, Error, Protocol, Upper, be16, bytes, ipv4, ipv6, l4, put16};
use crate::Checksum;

/// The checksum after a 16-bit field at an even offset changes from `old`
/// to `new`, by RFC 1624 equation 3.
///
/// ```
/// use fastpath::packet::incremental;
///
/// // An IPv4 header's TTL and protocol share a word: the TTL drops by one.
/// let mut header = [
///     0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0xb8, 0x61,
///     0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
/// ];
/// let updated = incremental::update16(0xb861, 0x4011, 0x3f11);
/// header[8] = 0x3f;
/// header[10..12].fill(0);
/// assert_eq!(updated, fastpath::checksum(&header));
/// ```
///
/// The result is the new checksum, which the caller stores: the field is
/// not changed in place, and discarding the result (the classic bug of
/// incremental updates) is a warning, an error under
/// `#![deny(unused_must_use)]`:
///
/// ```compile_fail
/// #![deny(unused_must_use)]
/// let checksum = 0xb861;
/// fastpath::packet::incremental::update16(checksum, 0x4011, 0x3f11);
/// ```
#[inline]
#[must_use = "the updated checksum is returned, not stored: write it into the checksum field"]
pub fn update16(checksum: u16, old: u16, new: u16) -> u16 {
    update_words(checksum, [old], [new])
}

/// The checksum after a 32-bit field at an even offset (an IPv4 address)
/// changes from `old` to `new`: its bytes in network order, or
/// `Ipv4Addr`s (see [`Address`]).
///
/// ```
/// use fastpath::packet::incremental;
///
/// let mut header = [
///     0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0xb8, 0x61,
///     0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
/// ];
/// let updated = incremental::update32(0xb861, [192, 168, 0, 1], [203, 0, 113, 7]);
/// header[12..16].copy_from_slice(&[203, 0, 113, 7]);
/// header[10..12].fill(0);
/// assert_eq!(updated, fastpath::checksum(&header));
/// ```
#[inline]
#[must_use = "the updated checksum is returned, not stored: write it into the checksum field"]
pub fn update32(checksum: u16, old: impl Address<4>, new: impl Address<4>) -> u16 {
    update_words(checksum, words(&old.octets()), words(&new.octets()))
}

/// The checksum after a 128-bit field at an even offset (an IPv6 address)
/// changes from `old` to `new`: its bytes in network order, or
/// `Ipv6Addr`s (see [`Address`]).
///
/// ```
/// use fastpath::packet::incremental;
///
/// let (old, new) = ([0x20; 16], [0xfd; 16]);
/// let mut data = [0x11u8; 40];
/// data[8..24].copy_from_slice(&old);
/// let before = fastpath::checksum(&data);
/// data[8..24].copy_from_slice(&new);
/// assert_eq!(incremental::update128(before, old, new), fastpath::checksum(&data));
/// ```
#[inline]
#[must_use = "the updated checksum is returned, not stored: write it into the checksum field"]
pub fn update128(checksum: u16, old: impl Address<16>, new: impl Address<16>) -> u16 {
    update_words(checksum, words(&old.octets()), words(&new.octets()))
}

/// Replaces the `new.len()` bytes of `packet` at `at` with `new`, and
/// updates the checksum stored big-endian at `field` to cover them, by
/// RFC 1624 equation 3: a rewrite of any field, of any length, at any
/// offset, odd ones included, without reading the rest of the data (Linux's
/// `inet_proto_csum_replace2/4/16`, `csum_replace`). Returns the new
/// checksum, which is also stored.
///
/// Offsets count from the start of `packet`, which must lie an even number
/// of bytes before the data the checksum covers: that fixes how the bytes
/// pair into 16-bit words. Given an IP packet from its IP header on, or an
/// Ethernet frame, every checksum it carries qualifies (headers and
/// extension headers are whole words). A change outside that data, or to
/// a pseudo-header field, needs the update functions instead
/// ([`update16`], [`update32`], [`update128`], or a [`Checksum`] with
/// [`sub_u16`](Checksum::sub_u16)).
///
/// The checksum is updated as it is, right or wrong (a wrong one stays
/// wrong by the same amount), with no protocol rule: a UDP checksum of 0
/// ("none" over IPv4) is updated like any other and a result of 0 is not
/// turned into 0xffff; [`rewrite_ipv4`] and [`rewrite_ipv6`] apply those
/// rules for the addresses and ports of a NAT.
///
/// [`Error::OutOfBounds`] if the bytes replaced or the field are not inside
/// `packet`, or overlap; nothing is written then.
///
/// ```
/// use fastpath::packet::{incremental, l4};
///
/// // UDP over IPv4, "ping" becoming "pong": one byte at the odd offset 29.
/// let mut packet = [
///     0x45, 0x00, 0x00, 0x20, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0xb8, 0xb4,
///     0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
///     0x30, 0x39, 0x00, 0x35, 0x00, 0x0c, 0x6e, 0x7e, b'p', b'i', b'n', b'g',
/// ];
/// let updated = incremental::replace(&mut packet, 29, b"o", 26)?;
/// assert_eq!(&packet[28..], b"pong");
/// assert_eq!(Ok(updated), l4::checksum(&packet));
/// assert_eq!(l4::verify(&packet), Ok(true));
/// # Ok::<(), fastpath::packet::Error>(())
/// ```
pub fn replace(packet: &mut [u8], at: usize, new: &[u8], field: usize) -> Result<u16, Error> {
    let end = at.checked_add(new.len()).ok_or(Error::OutOfBounds)?;
    let overlaps = at < field + 2 && field < end;
    if end > packet.len() || field.checked_add(2).is_none_or(|e| e > packet.len()) || overlaps {
        return Err(Error::OutOfBounds);
    }
    let stored = be16(packet, field).ok_or(Error::OutOfBounds)?;
    let odd = at % 2 == 1;
    let updated = update_sums(stored, sum_at(odd, &packet[at..end]), sum_at(odd, new));
    packet[at..end].copy_from_slice(new);
    put16(packet, field, updated).ok_or(Error::OutOfBounds)?;
    Ok(updated)
}

/// The folded sum of `bytes` as they pair into words in the data: from the
/// low byte of a word on if `odd`.
fn sum_at(odd: bool, bytes: &[u8]) -> u16 {
    let mut sum = Checksum::from_parts(0, odd);
    sum.update(bytes);
    sum.sum()
}

/// The big-endian 16-bit words of `bytes`.
fn words<const N: usize>(bytes: &[u8; N]) -> impl Iterator<Item = u16> + '_ {
    bytes
        .as_chunks::<2>()
        .0
        .iter()
        .map(|pair| u16::from_be_bytes(*pair))
}

/// RFC 1624 equation 3 over each pair of old and new words.
fn update_words(
    checksum: u16,
    old: impl IntoIterator<Item = u16>,
    new: impl IntoIterator<Item = u16>,
) -> u16 {
    let mut old_sum = Checksum::new();
    let mut new_sum = Checksum::new();
    for (old, new) in old.into_iter().zip(new) {
        old_sum.add_u16(old);
        new_sum.add_u16(new);
    }
    update_sums(checksum, old_sum.sum(), new_sum.sum())
}

/// RFC 1624 equation 3 for data whose words summed to `old` and now sum to
/// `new` (folded ones'-complement sums, in place in the data).
fn update_sums(checksum: u16, old: u16, new: u16) -> u16 {
    // RFC 1624 §3: "HC' = ~(~HC + ~m + m')    --    [Eqn. 3]". For several
    // words, m and m' are their sums: ones'-complement addition is
    // associative, and the complement of a sum is the sum of complements.
    let mut sum = Checksum::from_parts(!checksum, false);
    sum.sub_u16(old);
    sum.add_u16(new);
    // The end-around carry never turns a non-zero sum into 0x0000 (the
    // example of RFC 1624 §4 sums to 0xffff and gives 0x0000, as
    // recomputation does). A sum of 0x0000 comes only from all-zero terms —
    // an old checksum of 0xffff, the other zero — and stands for 0xffff,
    // the only zero that non-zero data sums to.
    match sum.sum() {
        0 => 0,
        sum => !sum,
    }
}

/// Which end of a connection a NAT rewrites.
///
/// ```
/// use core::net::Ipv4Addr;
/// use fastpath::packet::{incremental::{self, Endpoint}, l4};
///
/// // Port forwarding: UDP to 192.168.0.199:53 goes to 10.0.0.53:5353.
/// let mut packet = [
///     0x45, 0x00, 0x00, 0x20, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0xb8, 0xb4,
///     0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
///     0x30, 0x39, 0x00, 0x35, 0x00, 0x0c, 0x6e, 0x7e, b'p', b'i', b'n', b'g',
/// ];
/// incremental::rewrite_ipv4(&mut packet, Endpoint::Destination, Ipv4Addr::new(10, 0, 0, 53), Some(5353))?;
/// assert_eq!(packet[16..20], [10, 0, 0, 53]);
/// assert_eq!(packet[22..24], 5353u16.to_be_bytes());
/// assert_eq!(l4::verify(&packet), Ok(true));
/// # Ok::<(), fastpath::packet::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Endpoint {
    /// The source address and source port (source NAT, masquerading).
    Source,
    /// The destination address and destination port (destination NAT, port
    /// forwarding).
    Destination,
}

/// Rewrites the source or destination address of the IPv4 packet `packet`,
/// and the port if `port` is given, updating the header checksum and the
/// TCP, UDP or UDP-Lite checksum incrementally (RFC 1624), as a NAT does.
///
/// Only the header of the upper layer needs to be there: the data may be cut
/// short, and a first fragment is updated like a whole packet, since the
/// update does not read the data. A UDP checksum of 0 ("none") stays 0, and
/// a UDP result of 0 is written as 0xffff. The ICMPv4 checksum does not
/// cover the address, so it is left as is. Checksums that were wrong stay
/// wrong by the same amount.
///
/// An error, before anything is written, wherever [`l4::checksum`] gives
/// one, the same error, except for the two cases that the update, which
/// reads only the headers, handles: data cut short after a whole TCP or UDP
/// header, and a first fragment. So: if the IPv4 header is malformed (see
/// [`ipv4::upper`]); if a TCP or UDP header is not all there
/// ([`Error::Truncated`]); if lengths don't fit, a UDP length past the IP
/// payload for example ([`Error::Length`]); or if `port` is given for a
/// packet without ports: a later fragment ([`Error::LaterFragment`]), a
/// protocol other than TCP, UDP and UDP-Lite ([`Error::Protocol`]). Without `port`,
/// other upper layers are left as they are (SCTP's CRC32c does not cover
/// the addresses; DCCP's checksum, which does, is not updated).
///
/// The address is an [`Ipv4Addr`](core::net::Ipv4Addr), so that
/// `"203.0.113.7".parse()` needs no annotation; octets or a `u32` convert
/// with `.into()`.
///
/// ```
/// use fastpath::packet::{self, incremental::{self, Endpoint}, Status};
///
/// let mut packet = [
///     0x45, 0x00, 0x00, 0x20, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0xb8, 0xb4,
///     0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
///     0x30, 0x39, 0x00, 0x35, 0x00, 0x0c, 0x6e, 0x7e, b'p', b'i', b'n', b'g',
/// ];
/// assert!(packet::analyze(&packet)?.reports().all(|r| r.status == Status::Good));
/// // Masquerade 192.168.0.1:12345 as 203.0.113.7:40000.
/// incremental::rewrite_ipv4(&mut packet, Endpoint::Source, "203.0.113.7".parse().unwrap(), Some(40000))?;
/// assert_eq!(packet[12..16], [203, 0, 113, 7]);
/// assert_eq!(packet[20..22], 40000u16.to_be_bytes());
/// assert!(packet::analyze(&packet)?.reports().all(|r| r.status == Status::Good));
/// # Ok::<(), packet::Error>(())
/// ```
pub fn rewrite_ipv4(
    packet: &mut [u8],
    endpoint: Endpoint,
    address: core::net::Ipv4Addr,
    port: Option<u16>,
) -> Result<(), Error> {
    let address = address.octets();
    let upper = ipv4::upper(packet)?;
    let at = match endpoint {
        Endpoint::Source => 12,
        Endpoint::Destination => 16,
    };
    let old: [u8; 4] = bytes(packet, at).ok_or(Error::Truncated)?;
    let l4 = plan(packet, &upper, endpoint, port, |c| {
        update32(c, old, address)
    })?;
    // Everything is checked: write. The address is inside the data of the
    // header checksum, at an even offset.
    replace(packet, at, &address, 10).map_err(|_| Error::Truncated)?;
    l4.write(packet)
}

/// Rewrites the source or destination address of the IPv6 packet `packet`,
/// and the port if `port` is given, updating the TCP, UDP or ICMPv6
/// checksum incrementally (RFC 1624), as a NAT66 does.
///
/// As [`rewrite_ipv4`] (an IPv6 routing header of an unknown type is
/// [`Error::RoutingType`], as for [`l4::checksum`]), with two differences:
/// ICMPv6 covers the addresses
/// (through its pseudo-header), so its checksum is updated too; and a
/// Destination Address that is not the final destination (a routing header
/// with segments left) is not in the pseudo-header, so changing it leaves
/// the upper-layer checksum alone, but for the prefix that an RPL source
/// route (RFC 6554) elides from the final destination and takes from it.
///
/// ```
/// use fastpath::packet::{self, incremental::{self, Endpoint}, l4};
///
/// // UDP over IPv6 from [::1]:1024 to [::2]:53.
/// let mut packet = [0u8; 52];
/// packet[0] = 0x60;
/// packet[5] = 12; // payload length
/// packet[6] = 17; // UDP
/// packet[23] = 1;
/// packet[39] = 2;
/// packet[40..52].copy_from_slice(&[0x04, 0x00, 0x00, 0x35, 0x00, 0x0c, 0, 0, b'p', b'i', b'n', b'g']);
/// l4::write_checksum(&mut packet)?;
/// let mut new = [0u8; 16];
/// new[..2].copy_from_slice(&[0xfd, 0x00]);
/// new[15] = 9;
/// incremental::rewrite_ipv6(&mut packet, Endpoint::Destination, new.into(), Some(5353))?;
/// assert_eq!(packet[24..40], new);
/// assert_eq!(l4::verify(&packet), Ok(true));
/// # Ok::<(), packet::Error>(())
/// ```
pub fn rewrite_ipv6(
    packet: &mut [u8],
    endpoint: Endpoint,
    address: core::net::Ipv6Addr,
    port: Option<u16>,
) -> Result<(), Error> {
    let address = address.octets();
    let upper = ipv6::upper(packet)?;
    let at = match endpoint {
        Endpoint::Source => 8,
        Endpoint::Destination => 24,
    };
    let old: [u8; 16] = bytes(packet, at).ok_or(Error::Truncated)?;
    // The Destination Address field is in the pseudo-header only if it is
    // the final destination. Behind a routing header with segments left,
    // the final destination may still take bytes from it (RFC 6554 elides
    // a prefix they share): the pseudo-header's addresses change from
    // their sum with the old field to their sum with the new one.
    let rerouted = if endpoint == Endpoint::Source || upper.destination_is_final {
        None
    } else {
        let after = ipv6::upper_with_destination(packet, &address)?;
        Some((upper.addresses, after.addresses))
    };
    let l4 = plan(packet, &upper, endpoint, port, |c| match rerouted {
        None => update128(c, old, address),
        Some((Ok(before), Ok(after))) => update16(c, before.sum(), after.sum()),
        // An unknown final destination: `plan` refuses the packet.
        Some(_) => c,
    })?;
    put(packet, at, &address)?;
    l4.write(packet)
}

/// The writes to the upper-layer header that a rewrite makes.
struct L4Writes {
    /// The new checksum and where it goes.
    checksum: Option<(usize, u16)>,
    /// The new port and where it goes.
    port: Option<(usize, u16)>,
}

impl L4Writes {
    fn write(&self, packet: &mut [u8]) -> Result<(), Error> {
        for (at, value) in self.checksum.into_iter().chain(self.port) {
            put16(packet, at, value).ok_or(Error::Truncated)?;
        }
        Ok(())
    }
}

/// What rewriting the address (whose effect on a checksum `address_update`
/// computes) and the port does to the upper layer `upper` of `packet`.
fn plan(
    packet: &[u8],
    upper: &Upper,
    endpoint: Endpoint,
    port: Option<u16>,
    address_update: impl Fn(u16) -> u16,
) -> Result<L4Writes, Error> {
    let none = L4Writes {
        checksum: None,
        port: None,
    };
    let located = match l4::locate(packet, upper) {
        Ok(located) => located,
        // No upper-layer header here, or one without ports or a checksum
        // that covers the addresses: only the IP header changes.
        Err(Error::LaterFragment | Error::Protocol(_)) if port.is_none() => return Ok(none),
        Err(e) => return Err(e),
    };
    // The packet must be one whose checksum `l4::checksum` computes, with
    // two exceptions, as the update reads only the headers: the data may be
    // cut short, and a first fragment (whose data is in the others) is
    // rewritten like a whole packet.
    match located.unverifiable {
        None | Some(Error::Truncated | Error::FirstFragment) => {}
        Some(e) => return Err(e),
    }
    let has_ports = matches!(
        located.protocol,
        Protocol::Tcp | Protocol::Udp | Protocol::UdpLite
    );
    if port.is_some() && !has_ports {
        return Err(Error::Protocol(upper.protocol));
    }
    // Source port first, destination port second, in TCP, UDP and UDP-Lite
    // alike.
    let port_at = located.start
        + match endpoint {
            Endpoint::Source => 0,
            Endpoint::Destination => 2,
        };
    let port = match port {
        Some(new) => Some((port_at, be16(packet, port_at).ok_or(Error::Truncated)?, new)),
        None => None,
    };
    let stored = be16(packet, located.field).ok_or(Error::Truncated)?;
    let udp = matches!(located.protocol, Protocol::Udp | Protocol::UdpLite);
    let checksum = if located.protocol == Protocol::Icmp || (udp && stored == 0) {
        // ICMPv4 covers neither addresses nor ports; a UDP zero is no
        // checksum (and over IPv6, or in UDP-Lite, no valid one): leave it
        // as it is.
        None
    } else {
        let mut updated = address_update(stored);
        if let Some((_, old, new)) = port {
            updated = update16(updated, old, new);
        }
        // RFC 768 and RFC 3828: a zero result is sent as all ones.
        if udp && updated == 0 {
            updated = 0xffff;
        }
        Some((located.field, updated))
    };
    Ok(L4Writes {
        checksum,
        port: port.map(|(at, _, new)| (at, new)),
    })
}

/// Copies `value` into `packet` at `at`.
fn put(packet: &mut [u8], at: usize, value: &[u8]) -> Result<(), Error> {
    packet
        .get_mut(at..at + value.len())
        .ok_or(Error::Truncated)?
        .copy_from_slice(value);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc1624_section4_example() {
        // "the one's complement sum of all other header octets is 0xCD7A"
        let others = 0xcd7a_u16;
        let (m, m_new) = (0x5555, 0x3285);
        let mut sum = Checksum::from_parts(others, false);
        sum.add_u16(m);
        // "HC = ~(0xCD7A + 0x5555) = ~0x22D0 = 0xDD2F"
        assert_eq!(sum.finish(), 0xdd2f);
        let mut recomputed = Checksum::from_parts(others, false);
        recomputed.add_u16(m_new);
        // "HC' = ~(0xCD7A + 0x3285) = ~0xFFFF = 0x0000"
        assert_eq!(recomputed.finish(), 0x0000);
        // Eqn. 3: "HC' = ~(0x22D0 + 0xAAAA + 0x3285) = ~0xFFFF = 0x0000"
        assert_eq!(update16(0xdd2f, m, m_new), 0x0000);
        // Eqn. 2 of RFC 1141, "HC' = HC - ~m - m'", gives 0xFFFF here,
        // which no IP header can carry; the update must not.
        assert_ne!(update16(0xdd2f, m, m_new), 0xffff);
    }

    #[test]
    fn both_zeros_of_the_old_checksum() {
        // Data summing to 0xffff has checksum 0x0000; 0xffff, the other
        // zero, is as valid an old checksum and must update the same way.
        for (old, new) in [
            (0x1234, 0x1234),
            (0x0001, 0x0002),
            (0xffff, 0x0000),
            (0, 0xffff),
        ] {
            assert_eq!(
                update16(0x0000, old, new),
                update16(0xffff, old, new),
                "{old:#x} -> {new:#x}"
            );
        }
        // The all-zero terms: a checksum of 0xffff, 0xffff becoming 0.
        assert_eq!(update16(0xffff, 0xffff, 0x0000), 0x0000);
    }

    #[test]
    fn unchanged_fields_keep_the_checksum() {
        for checksum in [0x0000, 0x0001, 0x8000, 0xfffe, 0xb861] {
            assert_eq!(update16(checksum, 0x4011, 0x4011), checksum);
            assert_eq!(update32(checksum, [1, 2, 3, 4], [1, 2, 3, 4]), checksum);
        }
    }
}
