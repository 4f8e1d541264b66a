//! The common frame verified without the general walk.
//!
//! Most frames of a capture are Ethernet, with one 802.1Q tag at most,
//! carrying IPv4 without options or fragmentation, or IPv6 without
//! extension headers, carrying TCP, or UDP that is no tunnel, all of it
//! captured. [`inspect`] verifies such a frame in one pass over its bytes
//! and pushes exactly the layers that [`layers::inspect_walk`] pushes for it
//! (the tests and the `pcap` fuzz target compare the two on every frame).
//! Anything else, and any verdict that the general walk treats with more
//! care (a UDP checksum of 0, a checksum stored as 0xffff), is left to it:
//! [`inspect`] then pushes nothing and returns `false`.
//!
//! [`layers::inspect_walk`]: super::layers::inspect_walk

use fastpath::packet::{Protocol, Report, Status};

use super::layers::Layer;

/// The UDP ports that may start a tunnel (see `layers`): GTP-U from or to
/// 2152; VXLAN, VXLAN-GPE, Geneve and MPLS in UDP to theirs.
const GTP_U_PORT: u16 = 2152;
const TUNNEL_DESTINATIONS: [u16; 4] = [4789, 4790, 6081, 6635];

/// Verifies the Ethernet frame `frame` if it is of the common kind, and
/// pushes its layers onto `layers` (empty); `false`, with nothing pushed,
/// if it is not.
pub fn inspect(frame: &[u8], layers: &mut Vec<Layer>) -> bool {
    let (ethertype, at) = match be16(frame, 12) {
        Some(0x8100) => (be16(frame, 16), 18),
        ethertype => (ethertype, 14),
    };
    let Some(ip) = frame.get(at..) else {
        return false;
    };
    let found = match ethertype {
        Some(0x0800) => ipv4(ip),
        Some(0x86dd) => ipv6(ip),
        _ => None,
    };
    let Some((first, second)) = found else {
        return false;
    };
    layers.extend(first.map(|report| Layer { depth: 0, report }));
    layers.push(Layer {
        depth: 0,
        report: second,
    });
    true
}

/// An IPv4 packet with a 20-byte header, not a fragment, all of it
/// captured, carrying TCP or UDP: its header's report and its upper
/// layer's.
#[inline(always)]
fn ipv4(ip: &[u8]) -> Option<(Option<Report>, Report)> {
    let header = ip.get(..20)?;
    if header[0] != 0x45 || be16(header, 6)? & 0x3fff != 0 {
        return None;
    }
    let total = usize::from(be16(header, 2)?);
    if total < 20 || total > ip.len() {
        return None;
    }
    let mut sum = 0u32;
    for (i, word) in header.chunks_exact(2).enumerate() {
        if i != 5 {
            sum += u32::from(u16::from_be_bytes([word[0], word[1]]));
        }
    }
    let header_report = report(Protocol::Ipv4, fold(sum), be16(header, 10)?, 10)?;
    // The pseudo-header (RFC 9293 §3.1, RFC 768): addresses, protocol,
    // and the length added below.
    let mut pseudo = u32::from(header[9]);
    for word in header[12..20].chunks_exact(2) {
        pseudo += u32::from(u16::from_be_bytes([word[0], word[1]]));
    }
    let upper = upper(ip, header[9], 20, total, pseudo)?;
    Some((Some(header_report), upper))
}

/// An IPv6 packet with no extension header, all of it captured, carrying
/// TCP or UDP: its upper layer's report.
#[inline(always)]
fn ipv6(ip: &[u8]) -> Option<(Option<Report>, Report)> {
    let header = ip.get(..40)?;
    if header[0] >> 4 != 6 {
        return None;
    }
    // A payload length of 0 is a jumbogram's or BIG TCP's.
    let payload = usize::from(be16(header, 4)?);
    if payload == 0 || 40 + payload > ip.len() {
        return None;
    }
    // RFC 8200 §8.1: addresses, upper-layer length, next header.
    let mut pseudo = u32::from(header[6]);
    for word in header[8..40].chunks_exact(2) {
        pseudo += u32::from(u16::from_be_bytes([word[0], word[1]]));
    }
    let upper = upper(ip, header[6], 40, 40 + payload, pseudo)?;
    Some((None, upper))
}

/// The report on the TCP or UDP checksum of the upper layer of `protocol`
/// from `start` to `end` in `ip`, with the pseudo-header summed in
/// `pseudo` but for its length.
#[inline(always)]
fn upper(ip: &[u8], protocol: u8, start: usize, end: usize, pseudo: u32) -> Option<Report> {
    let (protocol, field, end) = match protocol {
        6 if end - start >= 20 => (Protocol::Tcp, start + 16, end),
        17 if end - start >= 8 => {
            let (source, destination) = (be16(ip, start)?, be16(ip, start + 2)?);
            if source == GTP_U_PORT
                || destination == GTP_U_PORT
                || TUNNEL_DESTINATIONS.contains(&destination)
            {
                return None;
            }
            let len = usize::from(be16(ip, start + 4)?);
            if len < 8 || start + len > end {
                return None;
            }
            (Protocol::Udp, start + 6, start + len)
        }
        _ => return None,
    };
    let stored = be16(ip, field)?;
    // A UDP zero is no checksum (or an illegal one over IPv6).
    if protocol == Protocol::Udp && stored == 0 {
        return None;
    }
    let len = end - start;
    let mut sum = pseudo + (len >> 16) as u32 + (len & 0xffff) as u32;
    // The data with its field: the field's value taken out again below.
    sum += u32::from(!fastpath::checksum(&ip[start..end]));
    let without_field = fold(u32::from(fold(sum)) + u32::from(!stored));
    report(protocol, without_field, stored, field)
}

/// The report on a checksum `stored` at `offset` over data whose folded
/// sum, the field read as zero, is `sum`, as the library judges it; `None`
/// for a good one stored as 0xffff, which the general walk reports with
/// more care.
#[inline(always)]
fn report(protocol: Protocol, sum: u16, stored: u16, offset: usize) -> Option<Report> {
    let good = fold(u32::from(sum) + u32::from(stored)) == 0xffff;
    let (status, computed) = if good {
        if stored == 0xffff {
            return None;
        }
        (Status::Good, stored)
    } else {
        let value = !sum;
        let value = if protocol == Protocol::Udp && value == 0 {
            0xffff
        } else {
            value
        };
        (Status::Bad, value)
    };
    Some(Report {
        protocol,
        status,
        stored,
        computed,
        offset,
    })
}

/// The ones'-complement sum folded to 16 bits.
fn fold(mut sum: u32) -> u16 {
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    sum as u16
}

/// The big-endian 16-bit field at `at`, if the data holds it.
fn be16(data: &[u8], at: usize) -> Option<u16> {
    let bytes = data.get(at..)?.first_chunk::<2>()?;
    Some(u16::from_be_bytes(*bytes))
}
