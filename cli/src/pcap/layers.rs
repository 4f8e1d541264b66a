//! Every checksum of a frame's IP packet, tunnels included.
//!
//! [`fastpath::packet::analyze`] reports the outermost IP header and the
//! header after it (depth 0). When that header starts a tunnel decoded
//! here, the inner IP packet is analyzed in turn, one depth further:
//!
//! - IP-in-IP: protocol 4 (IPv4) or 41 (IPv6);
//! - PIM (103, RFC 7761): a version 2 Register's packet after its 8-byte
//!   header, IPv4 or IPv6 by its version field (PIM's own checksum, over
//!   that header only, is no protocol of the report);
//! - GRE (47; RFC 2784, RFC 2890, RFC 1701's routing field, RFC 2637's
//!   enhanced GRE), its header read as Wireshark reads it (the version
//!   matters only to PPP's acknowledgment number), carrying IPv4
//!   (0x0800), IPv6 (0x86dd), Ethernet (0x6558, with VLAN tags), PPP
//!   (0x880b, as on a PPP link), MPLS (0x8847, 0x8848, as after that
//!   EtherType), NSH (0x894f), WCCP's redirected IPv4 (0x883e, after a
//!   version 2 redirect header if the byte after GRE's first 4 is no IPv4
//!   header's), Cisco MetaData (0x8909: an EtherType, IPv4, IPv6 or MPLS,
//!   then 6 bytes), or an NHRP Traffic Indication (0x2001, RFC 2332;
//!   its quoted packet is reported as an ICMP error's, see
//!   [quoted packets](#quoted-packets));
//! - ERSPAN in GRE, carrying Ethernet (with VLAN tags), as Wireshark tells
//!   its types apart: type I is protocol 0x88be in a GRE header without a
//!   sequence number (no ERSPAN header); otherwise (0x88be or 0x22eb) the
//!   ERSPAN version field decides: 1, type II (an 8-byte header), or 2,
//!   type III (a 12-byte header, and an 8-byte platform-specific subheader
//!   if its O bit is set; frame type 0, Ethernet, only);
//! - VXLAN: UDP to port 4789, carrying Ethernet;
//! - VXLAN-GPE: UDP to port 4790, carrying what its next protocol says
//!   (IPv4, IPv6, Ethernet, NSH, MPLS);
//! - MPLS in UDP (RFC 7510): UDP to port 6635, an MPLS label stack;
//! - NSH (RFC 8300), in GRE or VXLAN-GPE: its header, then IPv4, IPv6,
//!   Ethernet or NSH by its next protocol;
//! - Geneve: UDP to port 6081, version 0, after its options, carrying
//!   Ethernet (0x6558, with VLAN tags), IPv4 (0x0800; an IPv6 packet there
//!   too, as Wireshark's IP dissector takes it) or IPv6 (0x86dd);
//! - GTP-U: UDP from or to port 2152, version 1 with PT 1 (not GTP'), a
//!   G-PDU (message type 0xff; other messages carry no user packet) after
//!   its optional fields and extension headers, carrying what Wireshark
//!   guesses from the first byte: IPv4 (0x45 to 0x4e), IPv6 (0x6_), else
//!   Ethernet if the EtherType at 12 is IPv4 or IPv6.
//!
//! - ICMP errors: the packet an ICMPv4 error (types 3, 4, 5, 11, 12) or an
//!   ICMPv6 error (types 1 to 4) quotes after its 8-byte header, IPv4 or
//!   IPv6 in ICMPv4 and IPv6 in ICMPv6, as Wireshark decodes it (whatever
//!   an RFC 4884 length field says). See [quoted packets](#quoted-packets).
//!
//! A UDP tunnel's inner packet ends where the UDP length says (GTP-U's
//! where the GTP length says, if less). Wireshark tries a UDP datagram's
//! lower port first, either of them: a G-PDU from port 2152 to 4789 is
//! GTP-U here too, but VXLAN, VXLAN-GPE, MPLS in UDP and Geneve are
//! followed only to their destination port, and Geneve only in version 0
//! (Wireshark also decodes them from their port, and other Geneve
//! versions as version 0).
//!
//! A tunnel is followed in a whole packet and in a first fragment (its
//! inner headers are there; the inner upper layer is then cut short, so
//! unverified), never in a later fragment. At most [`MAX_DEPTH`] tunnels
//! are followed, so that a packet of nested tunnels ends the walk.
//!
//! # Quoted packets
//!
//! The packet quoted in an ICMP error, and everything inside it, is
//! reported as Wireshark reports a packet in an error packet: its IPv4
//! header checksum and a UDP or TCP checksum are verified when the quoted
//! bytes hold what they cover (the quoted IP length bounds them), else
//! unverified; a quoted ICMP or ICMPv6 checksum is always unverified; a
//! quoted UDP checksum of 0 is absent over IPv6 too. One difference:
//! Wireshark computes a quoted TCP checksum over the bytes quoted, as if
//! the segment ended there, and so finds it bad when the segment was cut
//! short; here it is unverified, as a UDP one is. `fix` corrects what is
//! verified and wrong there, innermost first, and keeps the ICMP checksums
//! around it right; it leaves what is reported otherwise as it is.
//!
//! A GRE or NHRP checksum is no protocol of the report, but `fix` keeps
//! it right: when it held before inner checksums were corrected, it is
//! recomputed. So is a UDP tunnel's outer UDP checksum, which covers the
//! inner packet (see [`fix`]).

use std::ops::Range;

use fastpath::packet::{self, Analysis, Fragment, Protocol, ProtocolSet, Report, Status};

use super::link::{self, Network};

/// The deepest tunnel followed: depth 0 is the outermost IP packet.
pub const MAX_DEPTH: u8 = 8;

const IPPROTO_ICMP: u8 = 1;
const IPPROTO_IPIP: u8 = 4;
const IPPROTO_UDP: u8 = 17;
const IPPROTO_IPV6: u8 = 41;
const IPPROTO_GRE: u8 = 47;
const IPPROTO_ICMPV6: u8 = 58;
const IPPROTO_PIM: u8 = 103;
const VXLAN_PORT: u16 = 4789;
/// VXLAN-GPE (draft-ietf-nvo3-vxlan-gpe): VXLAN with a next protocol.
const VXLAN_GPE_PORT: u16 = 4790;
const GENEVE_PORT: u16 = 6081;
const GTP_U_PORT: u16 = 2152;
/// MPLS in UDP (RFC 7510).
const MPLS_UDP_PORT: u16 = 6635;

const ETHERTYPE_IPV4: u16 = 0x0800;
const ETHERTYPE_IPV6: u16 = 0x86dd;
/// Transparent Ethernet bridging: an Ethernet frame follows.
const ETHERTYPE_TEB: u16 = 0x6558;
/// ERSPAN type II (type I without a GRE sequence number).
const ETHERTYPE_ERSPAN_II: u16 = 0x88be;
/// ERSPAN type III.
const ETHERTYPE_ERSPAN_III: u16 = 0x22eb;
/// PPP in PPTP's enhanced GRE (RFC 2637).
const ETHERTYPE_PPP: u16 = 0x880b;
/// WCCP's redirected packets (draft-wilson-wrec-wccp-v2): IPv4, after a
/// 4-byte redirect header in version 2.
const ETHERTYPE_WCCP: u16 = 0x883e;
/// Cisco MetaData: an EtherType, then 6 bytes (version, length, options,
/// security group tag), then the packet.
const ETHERTYPE_CMD: u16 = 0x8909;
const ETHERTYPE_MPLS: u16 = 0x8847;
const ETHERTYPE_MPLS_MULTICAST: u16 = 0x8848;
/// NSH, the Network Service Header (RFC 8300).
const ETHERTYPE_NSH: u16 = 0x894f;
/// NHRP (RFC 2332).
const ETHERTYPE_NHRP: u16 = 0x2001;
/// GRE flag bits (RFC 1701, RFC 2784, RFC 2890; the acknowledgment of
/// PPTP's enhanced GRE, RFC 2637) and the version field.
const GRE_CHECKSUM: u16 = 0x8000;
const GRE_ROUTING: u16 = 0x4000;
const GRE_KEY: u16 = 0x2000;
const GRE_SEQUENCE: u16 = 0x1000;
const GRE_ACK: u16 = 0x0080;
const GRE_VERSION: u16 = 0x0007;

/// ICMPv4 errors, which quote a packet: destination unreachable, source
/// quench, redirect, time exceeded, parameter problem.
const ICMP_ERRORS: [u8; 5] = [3, 4, 5, 11, 12];
/// ICMPv6 errors, which quote a packet: destination unreachable, packet
/// too big, time exceeded, parameter problem.
const ICMPV6_ERRORS: [u8; 4] = [1, 2, 3, 4];

/// One checksum of a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layer {
    /// 0 for the outermost IP packet, 1 inside the first tunnel, ...
    pub depth: u8,
    /// The verdict, with `offset` counted from the start of the frame's IP
    /// packet.
    pub report: Report,
}

/// The inner IP packet of a tunnel: where it is in the outer packet, the
/// checksum of a tunnel header around it that covers it (GRE's, NHRP's),
/// and whether it is the packet an ICMP error (or an NHRP Traffic
/// Indication) quotes.
struct Tunnel {
    inner: Range<usize>,
    checksum: Option<Covering>,
    quoted: bool,
}

/// An Internet checksum of a tunnel header, no protocol of the report,
/// which covers the inner packet: the bytes it covers and where its field
/// is, in the outer packet.
#[derive(Clone)]
struct Covering {
    covers: Range<usize>,
    field: usize,
}

/// Every checksum of the IP packet `ip`, outermost first: each IP header
/// and the header after it, then the tunnel's inner packet. `Err` if `ip`
/// does not start with an IP header (see [`packet::analyze`]).
pub fn inspect(ip: &[u8], layers: &mut Vec<Layer>) -> Result<(), packet::Error> {
    inspect_walk(ip, layers).map(|_| ())
}

/// Where the walk of [`inspect_walk`] ended: the innermost IP packet that
/// it analyzed, and why it went no deeper. But for a quoted packet cut
/// short before a checksum field (an IP header, an upper-layer header):
/// the ICMP error quoting it cut it, as ICMP allows, so nothing is missing
/// from the capture there, and the end is the packet of that ICMP error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct End {
    /// The depth of that packet: 0 for the outermost one.
    pub depth: u8,
    /// Where that packet starts in the outermost one.
    pub start: usize,
    /// Its analysis, or why [`packet::analyze`] took no IP header there
    /// (only for the outermost packet: an IPv4 header cut short after its
    /// checksum field, reported unverified).
    pub analysis: Result<Analysis, packet::Error>,
    /// Why its upper layer, a tunnel decoded here, was not followed; `None`
    /// if it is no such tunnel.
    pub stop: Option<Stop>,
}

/// Why [`inspect_walk`] did not follow a tunnel it decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The tunnel starts at depth [`MAX_DEPTH`].
    TooDeep,
    /// Its inner packet is no IP packet that [`packet::analyze`] takes:
    /// why (an IPv4 header cut short after its checksum field is reported,
    /// unverified, one depth further).
    Inner(packet::Error),
}

/// [`inspect`], which pushes the same layers, and where its walk ended:
/// what a caller needs to tell what was left unverified (a tunnel too
/// deep, an inner packet cut short, an upper layer without a checksum
/// reported and why).
pub fn inspect_walk(ip: &[u8], layers: &mut Vec<Layer>) -> Result<End, packet::Error> {
    let mut analysis = match packet::analyze(ip) {
        Ok(analysis) => analysis,
        Err(e) => {
            let report = cut_ipv4(ip).ok_or(e)?;
            layers.push(Layer { depth: 0, report });
            return Ok(End {
                depth: 0,
                start: 0,
                analysis: Err(e),
                stop: None,
            });
        }
    };
    // Whether the packet is in one that an ICMP error quotes.
    let (mut base, mut packet, mut depth, mut quoted) = (0, ip, 0, false);
    // The end at the innermost ICMP error whose quoted packet is followed.
    let mut error: Option<End> = None;
    loop {
        push(layers, depth, base, &analysis);
        let end = move |stop| End {
            depth,
            start: base,
            analysis: Ok(analysis),
            stop,
        };
        let Some(tunnel) = tunnel(packet, &analysis) else {
            return Ok(match error {
                Some(error) if analysis.l4 == Err(packet::Error::Truncated) => error,
                _ => end(None),
            });
        };
        if depth == MAX_DEPTH {
            return Ok(end(Some(Stop::TooDeep)));
        }
        let inner = &packet[tunnel.inner.clone()];
        quoted |= tunnel.quoted;
        if tunnel.quoted {
            error = Some(end(None));
        }
        match packet::analyze(inner) {
            Ok(next) => analysis = if quoted { as_quoted(next) } else { next },
            Err(e) => {
                if let Some(mut report) = cut_ipv4(inner) {
                    report.offset += base + tunnel.inner.start;
                    layers.push(Layer {
                        depth: depth + 1,
                        report,
                    });
                }
                return Ok(match error {
                    Some(error) if e == packet::Error::Truncated => error,
                    _ => end(Some(Stop::Inner(e))),
                });
            }
        }
        base += tunnel.inner.start;
        packet = inner;
        depth += 1;
    }
}

/// Where [`fix`] may write in the IP packet `ip`: the offset of every
/// checksum field that [`inspect`] reports, and of every GRE checksum on
/// the way to the innermost packet.
pub fn checksum_fields(ip: &[u8], fields: &mut Vec<usize>) {
    let mut base = 0;
    let mut packet = ip;
    for depth in 0..=MAX_DEPTH {
        let Ok(analysis) = packet::analyze(packet) else {
            return;
        };
        fields.extend(analysis.reports().map(|report| base + report.offset));
        let Some(tunnel) = tunnel(packet, &analysis).filter(|_| depth < MAX_DEPTH) else {
            return;
        };
        if let Some(covering) = &tunnel.checksum {
            fields.push(base + covering.field);
        }
        base += tunnel.inner.start;
        packet = &packet[tunnel.inner];
    }
}

/// An IPv4 header cut short after its checksum field (by a snap length),
/// which [`packet::analyze`] does not take for a header: its checksum is
/// there but unverifiable, as Wireshark reports it.
fn cut_ipv4(packet: &[u8]) -> Option<Report> {
    let field = packet
        .get(..12)
        .filter(|h| h[0] >> 4 == 4 && h[0] & 0x0f >= 5 && packet.len() < 20)?;
    let stored = u16::from_be_bytes([field[10], field[11]]);
    Some(Report {
        protocol: Protocol::Ipv4,
        status: Status::Unverified(packet::Error::Truncated),
        stored,
        computed: stored,
        offset: 10,
    })
}

fn push(layers: &mut Vec<Layer>, depth: u8, base: usize, analysis: &Analysis) {
    for mut report in analysis.reports() {
        report.offset += base;
        layers.push(Layer { depth, report });
    }
}

/// Corrects every checksum of `ip` whose protocol is in `only` and that
/// [`packet::fix`] finds verifiable and wrong, innermost first (an outer
/// checksum covers the inner packet), and keeps every checksum of a tunnel
/// that was right, right: a GRE checksum, and the outer layer's checksums
/// of any protocol, in `only` or not (with `--only tcp`, a VXLAN, Geneve or
/// GTP-U packet's outer UDP checksum is written again after its inner TCP
/// one; an outer UDP checksum of 0 over IPv4, none, stays 0). Pushes the
/// layers as they were before each was written, outermost first, into
/// `layers`: a report's `computed` is what its field holds now.
pub fn fix(ip: &mut [u8], only: ProtocolSet, layers: &mut Vec<Layer>) -> Result<(), packet::Error> {
    let first = layers.len();
    fix_at(ip, only, 0, 0, false, layers)?;
    // fix_at pushes the innermost layers first.
    layers[first..].sort_by_key(|l| l.depth);
    Ok(())
}

/// [`fix`] for the packet at `depth`, `base` bytes into the outermost one;
/// `quoted` if it is in a packet that an ICMP error quotes.
fn fix_at(
    packet: &mut [u8],
    only: ProtocolSet,
    depth: u8,
    base: usize,
    quoted: bool,
    layers: &mut Vec<Layer>,
) -> Result<(), packet::Error> {
    let raw = packet::analyze(packet)?;
    // A quoted packet's checksums are written only if they are reported
    // as analyzed.
    let (analysis, mine) = if quoted {
        let analysis = as_quoted(raw);
        let changed = raw
            .reports()
            .zip(analysis.reports())
            .filter(|(raw, reported)| raw != reported)
            .fold(ProtocolSet::EMPTY, |set, (raw, _)| set.with(raw.protocol));
        let mine = Protocol::ALL
            .iter()
            .filter(|&&p| only.contains(p) && !changed.contains(p))
            .fold(ProtocolSet::EMPTY, |set, &p| set.with(p));
        (analysis, mine)
    } else {
        (raw, only)
    };
    let view = |analysis| {
        if quoted {
            as_quoted(analysis)
        } else {
            analysis
        }
    };
    if depth < MAX_DEPTH
        && let Some(tunnel) = tunnel(packet, &analysis)
    {
        let covering = tunnel.checksum.clone().filter(|c| {
            packet
                .get(c.covers.clone())
                .is_some_and(|b| fastpath::checksum(b) == 0)
        });
        let inner = tunnel.inner.clone();
        // The outer checksums that are right now, to keep right whatever
        // the inner layers' fixes change.
        let right = analysis
            .reports()
            .filter(|r| r.status == Status::Good)
            .fold(ProtocolSet::EMPTY, |set, r| set.with(r.protocol));
        // An inner packet that is no IP packet after all has no checksums.
        let _ = fix_at(
            &mut packet[inner.clone()],
            only,
            depth + 1,
            base + inner.start,
            quoted || tunnel.quoted,
            layers,
        );
        if let Some(covering) = covering {
            recompute(packet, &covering);
        }
        let keep = Protocol::ALL
            .iter()
            .filter(|&&p| right.contains(p))
            .fold(mine, |set, &p| set.with(p));
        let analysis = packet::fix(packet, keep)?;
        push(layers, depth, base, &view(analysis));
        return Ok(());
    }
    let analysis = packet::fix(packet, mine)?;
    push(layers, depth, base, &view(analysis));
    Ok(())
}

/// Writes the checksum `covering` of `packet` again if it is wrong.
fn recompute(packet: &mut [u8], covering: &Covering) {
    let Covering { covers, field } = covering.clone();
    if packet
        .get(covers.clone())
        .is_none_or(|b| fastpath::checksum(b) == 0)
    {
        return;
    }
    if let Some(bytes) = packet.get_mut(field..field + 2) {
        bytes.fill(0);
    }
    let Some(sum) = packet.get(covers).map(fastpath::checksum) else {
        return;
    };
    if let Some(bytes) = packet.get_mut(field..field + 2) {
        bytes.copy_from_slice(&sum.to_be_bytes());
    }
}

/// The analysis of a packet that an ICMP error quotes (or of one inside
/// it) as Wireshark reports it: an ICMP or ICMPv6 checksum unverified
/// (that of a whole message with [`packet::Error::Protocol`]), a UDP
/// checksum of 0 absent over IPv6 too.
fn as_quoted(mut analysis: Analysis) -> Analysis {
    let protocol = analysis.upper.map_or(0, |upper| upper.protocol);
    if let Ok(report) = &mut analysis.l4 {
        match (report.protocol, report.status) {
            (Protocol::Icmp | Protocol::Icmpv6, Status::Unverified(_)) => {}
            (Protocol::Icmp | Protocol::Icmpv6, _) => {
                report.status = Status::Unverified(packet::Error::Protocol(protocol));
                report.computed = report.stored;
            }
            (Protocol::Udp, _) if report.stored == 0 => {
                report.status = Status::Absent;
                report.computed = 0;
            }
            _ => {}
        }
    }
    analysis
}

/// What a tunnel header says follows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Payload {
    /// An IP packet of one of these versions (its first nibble).
    Ip(&'static [u8]),
    /// An Ethernet frame: the IP packet after its EtherType and VLAN tags.
    Ethernet,
    /// PPP, maybe in HDLC-like framing (RFC 1661, RFC 1662), as on a PPP
    /// link.
    Ppp,
    /// An MPLS label stack (RFC 3032), as after the EtherType 0x8847.
    Mpls,
    /// An NSH header (RFC 8300), then what its next protocol says.
    Nsh,
}

/// The link type of PPP, maybe in HDLC-like framing, for [`link::locate`].
const LINKTYPE_PPP: u16 = 9;
/// Where the IP packet starts in `bytes`, which start with `payload`.
fn locate(bytes: &[u8], payload: Payload) -> Option<usize> {
    let (mut at, mut payload) = (0, payload);
    loop {
        let rest = bytes.get(at..)?;
        let found = match payload {
            Payload::Ip(versions) => versions.contains(&(rest.first()? >> 4)).then_some(0),
            Payload::Ethernet => network(link::ethernet(rest)),
            Payload::Ppp => network(link::locate(LINKTYPE_PPP, rest)),
            Payload::Mpls => network(link::mpls_stack(rest)),
            // Every NSH header takes 4 bytes at least: the loop ends.
            Payload::Nsh => {
                let (len, next) = nsh(rest)?;
                at += len;
                payload = next;
                continue;
            }
        };
        return found.map(|offset| at + offset);
    }
}

/// The offset of an IP packet that [`link`] found.
fn network(network: Network) -> Option<usize> {
    match network {
        Network::Ip(at) => Some(at),
        _ => None,
    }
}

/// An NSH header (RFC 8300) at the start of `header`: its length and what
/// follows it, as Wireshark reads them: the length field counts 4-byte
/// words, but MD type 1 takes 24 bytes whatever it says, MD type 2 at
/// least 8 and another type at least 4; the next protocol is 1 (IPv4, or
/// IPv6 for Wireshark's IP dissector), 2 (IPv6), 3 (Ethernet) or 4 (NSH).
fn nsh(header: &[u8]) -> Option<(usize, Payload)> {
    let &[_, length, md_type, next] = header.first_chunk::<4>()?;
    let words = 4 * usize::from(length & 0x3f);
    let len = match md_type {
        1 => 24,
        2 => words.max(8),
        _ => words.max(4),
    };
    let payload = match next {
        1 => Payload::Ip(&[4, 6]),
        2 => Payload::Ip(&[6]),
        3 => Payload::Ethernet,
        4 => Payload::Nsh,
        _ => return None,
    };
    Some((len, payload))
}

/// A VXLAN-GPE header (draft-ietf-nvo3-vxlan-gpe) at the start of
/// `datagram`: 8 bytes, the next protocol in the fourth, read as Wireshark
/// reads it whatever the P flag says: 1 IPv4 (or IPv6, for Wireshark's IP
/// dissector), 2 IPv6, 3 Ethernet, 4 NSH, 5 MPLS.
fn vxlan_gpe(datagram: &[u8]) -> Option<Payload> {
    Some(match *datagram.get(3)? {
        1 => Payload::Ip(&[4, 6]),
        2 => Payload::Ip(&[6]),
        3 => Payload::Ethernet,
        4 => Payload::Nsh,
        5 => Payload::Mpls,
        _ => return None,
    })
}

/// The length of a GRE header (RFC 2784, with the key and sequence number
/// of RFC 2890, the routing field of RFC 1701, the acknowledgment number
/// of PPTP's enhanced GRE, RFC 2637) at the start of `header`, as Wireshark
/// reads it: the checksum and offset if C or R is set, the key, the
/// sequence number, the acknowledgment number (only for PPP, protocol
/// 0x880b, in a version other than 0), then the source route entries while
/// R is set (address family, offset, length, then that many bytes, up to
/// one of family 0 and length 0), and WCCP's 4-byte redirect header for
/// protocol 0x883e if the byte after the first 4 is no IPv4 header's.
fn gre_len(header: &[u8]) -> Option<usize> {
    let flags = be16(header, 0)?;
    let protocol = be16(header, 2)?;
    let ppp = protocol == ETHERTYPE_PPP && flags & GRE_VERSION != 0;
    let fields = [
        flags & (GRE_CHECKSUM | GRE_ROUTING) != 0,
        flags & GRE_KEY != 0,
        flags & GRE_SEQUENCE != 0,
        ppp && flags & GRE_ACK != 0,
    ];
    let mut len = 4 + 4 * fields.iter().filter(|&&f| f).count();
    if flags & GRE_ROUTING != 0 {
        // Every entry takes 4 bytes at least: the loop ends.
        loop {
            let family = be16(header, len)?;
            let sre = usize::from(*header.get(len + 3)?);
            len += 4;
            if family == 0 && sre == 0 {
                break;
            }
            len += sre;
        }
    }
    if protocol == ETHERTYPE_WCCP && header.get(4)? >> 4 != 4 {
        len += 4;
    }
    Some(len)
}

/// The NHRP packet type of a Traffic Indication (RFC 2332 defines types 1
/// to 7; Cisco's DMVPN adds 8), which quotes the packet that caused it.
const NHRP_TRAFFIC_INDICATION: u8 = 8;

/// An NHRP packet (RFC 2332) at the start of `nhrp`: if it is a Traffic
/// Indication, where the packet it quotes starts, what it is, and the
/// size of the NHRP packet (which its checksum covers), as
/// Wireshark reads it: after the 20-byte fixed header (its packet size at
/// least 20, its extension offset 0 or between 20 and the packet size, the
/// mandatory part not empty), the mandatory part's source and destination
/// protocol address lengths, 6 bytes, the source NBMA address and
/// subaddress (their lengths the low 6 bits of the fixed header's type and
/// length fields), the source and destination protocol addresses. The
/// protocol type of the fixed header tells what it is (0x0800 IPv4, or
/// IPv6 for Wireshark's IP dissector; 0x86dd IPv6); it runs to the end of
/// the NHRP packet's payload, extensions included, as Wireshark takes it.
fn nhrp_indication(nhrp: &[u8]) -> Option<(usize, Payload, usize)> {
    let fixed = nhrp.first_chunk::<20>()?;
    let size = be16(fixed, 10)?;
    let extensions = be16(fixed, 14)?;
    let mandatory_end = match extensions {
        0 => size,
        _ if (20..=size).contains(&extensions) => extensions,
        _ => return None,
    };
    if size < 20 || mandatory_end == 20 || fixed[17] != NHRP_TRAFFIC_INDICATION {
        return None;
    }
    let payload = match be16(fixed, 2)? {
        ETHERTYPE_IPV4 => Payload::Ip(&[4, 6]),
        ETHERTYPE_IPV6 => Payload::Ip(&[6]),
        _ => return None,
    };
    let (source, destination) = (*nhrp.get(20)?, *nhrp.get(21)?);
    let addresses = [fixed[18] & 0x3f, fixed[19] & 0x3f, source, destination];
    let offset = 28 + addresses.iter().map(|&len| usize::from(len)).sum::<usize>();
    Some((offset, payload, usize::from(size)))
}

/// The tunnel that the upper layer of `packet` starts, if it is one
/// decoded here.
fn tunnel(packet: &[u8], analysis: &Analysis) -> Option<Tunnel> {
    let upper = analysis.upper.ok()?;
    if upper.fragment == Fragment::Later {
        return None;
    }
    // The inner packet ends where the outer one does (not in its padding),
    // or where the capture does.
    let end = upper.end.min(packet.len());
    let start = upper.offset;
    let header = packet.get(start..end)?;
    // The inner IP packet of `payload` found `offset` bytes into the upper
    // layer, ending at `end`.
    let inner = |payload: Payload, offset: usize, end: usize| {
        let at = start + offset;
        let bytes = packet.get(at..end)?;
        Some(at + locate(bytes, payload)?..end)
    };
    let plain = |inner| Tunnel {
        inner,
        checksum: None,
        quoted: false,
    };
    let quote = |inner| Tunnel {
        inner,
        checksum: None,
        quoted: true,
    };
    match upper.protocol {
        IPPROTO_IPIP => inner(Payload::Ip(&[4]), 0, end).map(plain),
        IPPROTO_IPV6 => inner(Payload::Ip(&[6]), 0, end).map(plain),
        // A PIM version 2 Register (RFC 7761, 4.9.3): an 8-byte header,
        // then the whole packet registered, IPv4 or IPv6 by its version
        // field (a Null-Register's dummy header, version 0, is no packet).
        IPPROTO_PIM if header.first() == Some(&0x21) => {
            inner(Payload::Ip(&[4, 6]), 8, end).map(plain)
        }
        IPPROTO_GRE => {
            let flags = be16(header, 0)?;
            let len = gre_len(header)?;
            let (payload, offset) = match be16(header, 2)? {
                ETHERTYPE_IPV4 => (Payload::Ip(&[4]), len),
                ETHERTYPE_IPV6 => (Payload::Ip(&[6]), len),
                ETHERTYPE_TEB => (Payload::Ethernet, len),
                // ERSPAN type I: no ERSPAN header.
                ETHERTYPE_ERSPAN_II if flags & GRE_SEQUENCE == 0 => (Payload::Ethernet, len),
                ETHERTYPE_ERSPAN_II | ETHERTYPE_ERSPAN_III => {
                    (Payload::Ethernet, len + erspan(header.get(len..)?)?)
                }
                // Wireshark's IP dissector, which takes IPv6 too.
                ETHERTYPE_WCCP => (Payload::Ip(&[4, 6]), len),
                ETHERTYPE_PPP => (Payload::Ppp, len),
                ETHERTYPE_MPLS | ETHERTYPE_MPLS_MULTICAST => (Payload::Mpls, len),
                ETHERTYPE_NSH => (Payload::Nsh, len),
                ETHERTYPE_CMD => {
                    let payload = match be16(header, len)? {
                        ETHERTYPE_IPV4 => Payload::Ip(&[4, 6]),
                        ETHERTYPE_IPV6 => Payload::Ip(&[6]),
                        ETHERTYPE_MPLS | ETHERTYPE_MPLS_MULTICAST => Payload::Mpls,
                        _ => return None,
                    };
                    (payload, len + 8)
                }
                ETHERTYPE_NHRP => {
                    let nhrp = header.get(len..)?;
                    let (offset, payload, size) = nhrp_indication(nhrp)?;
                    // The NHRP checksum covers the NHRP packet: only
                    // checked if all of it is there.
                    let at = start + len;
                    let checksum = nhrp.get(..size).map(|_| Covering {
                        covers: at..at + size,
                        field: at + 12,
                    });
                    return Some(Tunnel {
                        inner: inner(payload, len + offset, end)?,
                        checksum,
                        quoted: true,
                    });
                }
                _ => return None,
            };
            let inner = inner(payload, offset, end)?;
            // The GRE checksum covers the GRE header and payload: only
            // checked if the whole GRE packet is there.
            let whole = upper.end <= packet.len() && upper.fragment == Fragment::Whole;
            let checksum = (flags & GRE_CHECKSUM != 0 && whole).then_some(Covering {
                covers: start..end,
                field: start + 4,
            });
            Some(Tunnel {
                inner,
                checksum,
                quoted: false,
            })
        }
        // The quoted packet follows the type, code, checksum and 4 bytes.
        IPPROTO_ICMP if ICMP_ERRORS.contains(header.first()?) => {
            inner(Payload::Ip(&[4, 6]), 8, end).map(quote)
        }
        IPPROTO_ICMPV6 if ICMPV6_ERRORS.contains(header.first()?) => {
            inner(Payload::Ip(&[6]), 8, end).map(quote)
        }
        IPPROTO_UDP => {
            let (source, destination) = (be16(header, 0)?, be16(header, 2)?);
            let len = usize::from(be16(header, 4)?);
            if len < 8 || start + len > upper.end {
                return None;
            }
            // The UDP length bounds the datagram; its payload, as far as
            // captured, starts the tunnel's header.
            let datagram = packet.get(start + 8..(start + len).min(packet.len()))?;
            // Wireshark tries the lower port first, and GTP-U's dissector
            // declines what is no GTP: a G-PDU from port 2152 to VXLAN's or
            // Geneve's is GTP-U.
            let gtp = [source, destination]
                .contains(&GTP_U_PORT)
                .then(|| gtp_u(datagram, len - 8))
                .flatten();
            let (offset, payload, message_len) = match (gtp, destination) {
                (Some(gtp), _) => gtp,
                // 8 bytes of VXLAN.
                (None, VXLAN_PORT) => (8, Payload::Ethernet, len - 8),
                (None, VXLAN_GPE_PORT) => (8, vxlan_gpe(datagram)?, len - 8),
                (None, GENEVE_PORT) => {
                    let (offset, payload) = geneve(datagram)?;
                    (offset, payload, len - 8)
                }
                (None, MPLS_UDP_PORT) => (0, Payload::Mpls, len - 8),
                _ => return None,
            };
            let inner_end = (start + 8 + message_len).min(packet.len());
            inner(payload, 8 + offset, inner_end).map(plain)
        }
        _ => None,
    }
}

/// The length of the ERSPAN header (type II or III) at the start of
/// `header`, as Wireshark reads its version field: 1, type II, 8 bytes; 2,
/// type III, 12 bytes and 8 more if its O bit says a platform-specific
/// subheader follows. `None` for another version, or a type III frame type
/// other than 0 (Ethernet), which Wireshark decodes no further.
fn erspan(header: &[u8]) -> Option<usize> {
    match header.first()? >> 4 {
        1 => Some(8),
        2 => {
            // P (1 bit), frame type (5), hardware ID (6), D (1), Gra (2), O (1).
            let last = be16(header, 10)?;
            (last >> 10 & 0x1f == 0).then_some(12 + 8 * usize::from(last & 1))
        }
        _ => None,
    }
}

/// A Geneve header at the start of `datagram` (a UDP payload as far as
/// captured): where its payload starts (after the 8-byte base header and
/// the options) and what it is. `None` for a version other than 0, whose
/// layout is unknown (Wireshark decodes it as version 0), or a protocol
/// type not decoded here.
fn geneve(datagram: &[u8]) -> Option<(usize, Payload)> {
    let &[first, _, high, low] = datagram.first_chunk::<4>()?;
    if first >> 6 != 0 {
        return None;
    }
    let payload = match u16::from_be_bytes([high, low]) {
        ETHERTYPE_TEB => Payload::Ethernet,
        // Wireshark's IP dissector, which 0x0800 calls, takes IPv6 too.
        ETHERTYPE_IPV4 => Payload::Ip(&[4, 6]),
        ETHERTYPE_IPV6 => Payload::Ip(&[6]),
        _ => return None,
    };
    // The option length counts 4-byte words.
    Some((8 + 4 * usize::from(first & 0x3f), payload))
}

/// GTP-U flags: a Next Extension Header, a Sequence Number, an N-PDU
/// Number; if any is set, all three fields (4 bytes) are present.
const GTP_E: u8 = 0x04;
const GTP_S: u8 = 0x02;
const GTP_PN: u8 = 0x01;

/// A GTP-U message at the start of `datagram` (a UDP payload as far as
/// captured, `len` bytes on the wire): if it is a G-PDU of version 1, where
/// its user packet starts, what it is, and where the message ends (where
/// its length field says, counted after the 8 mandatory bytes, or where
/// the datagram does). As Wireshark: the spare flag is ignored, the
/// optional fields are skipped if any of E, S, PN is set, then the
/// extension headers while E is set and the next type is not 0 (each of
/// 4-byte units, its length first and the next type last; a length of 0
/// ends the message); the user packet is guessed from its first byte.
fn gtp_u(datagram: &[u8], len: usize) -> Option<(usize, Payload, usize)> {
    let &[flags, message, high, low] = datagram.first_chunk::<4>()?;
    // Version 1, protocol type 1 (GTP, not GTP'), a G-PDU.
    if flags >> 4 != 0b0011 || message != 0xff {
        return None;
    }
    let end = (8 + usize::from(u16::from_be_bytes([high, low]))).min(len);
    let message = &datagram[..end.min(datagram.len())];
    let mut offset = 8;
    if flags & (GTP_E | GTP_S | GTP_PN) != 0 {
        offset = 12;
        if flags & GTP_E != 0 {
            let mut next = *message.get(11)?;
            // Every header takes 4 bytes at least: the loop ends.
            while next != 0 {
                let units = usize::from(*message.get(offset)?);
                if units == 0 {
                    return None;
                }
                offset += 4 * units;
                next = *message.get(offset - 1)?;
            }
        }
    }
    let payload = match *message.get(offset)? {
        // 0x40 to 0x44 would be a header shorter than 20 bytes; Wireshark
        // takes 0x4f for PPP's IPv6 header compression.
        0x45..=0x4e => Payload::Ip(&[4]),
        first if first >> 4 == 6 => Payload::Ip(&[6]),
        // Wireshark's last guess, on more than 14 bytes: Ethernet, if the
        // EtherType is IPv4 or IPv6 (or ARP, which has no checksum here).
        _ if end > offset + 14
            && matches!(
                be16(message, offset + 12),
                Some(ETHERTYPE_IPV4 | ETHERTYPE_IPV6)
            ) =>
        {
            Payload::Ethernet
        }
        _ => return None,
    };
    Some((offset, payload, end))
}

/// The big-endian 16-bit word at `at` of `data`, if there.
fn be16(data: &[u8], at: usize) -> Option<u16> {
    let bytes = data.get(at..)?.first_chunk::<2>()?;
    Some(u16::from_be_bytes(*bytes))
}

#[cfg(test)]
mod tests {
    //! What the sample captures of tests/pcap.rs cannot show, as tshark
    //! decodes it otherwise or as their checks cannot express it.

    use super::*;

    const DATA: &[u8] = b"user data";

    /// IPv4 from 192.0.2.1 to 198.51.100.7 carrying UDP from `source` to
    /// `destination`, its checksums right.
    fn udp(source: u16, destination: u16, payload: &[u8]) -> Vec<u8> {
        let mut p = vec![
            0x45,
            0,
            0,
            0,
            0,
            1,
            0x40,
            0,
            64,
            IPPROTO_UDP,
            0,
            0,
            192,
            0,
            2,
            1,
            198,
            51,
            100,
            7,
        ];
        p[2..4].copy_from_slice(&((28 + payload.len()) as u16).to_be_bytes());
        p.extend(source.to_be_bytes());
        p.extend(destination.to_be_bytes());
        p.extend(((8 + payload.len()) as u16).to_be_bytes());
        // Not 0, which would be no checksum: a wrong one, then fixed.
        p.extend([0xff, 0xff]);
        p.extend(payload);
        packet::fix(&mut p, ProtocolSet::ALL).unwrap();
        p
    }

    /// A Geneve header whose first byte is `first` (version, option
    /// length), then `inner`.
    fn geneve(first: u8, protocol: u16, inner: &[u8]) -> Vec<u8> {
        let mut g = vec![first, 0];
        g.extend(protocol.to_be_bytes());
        g.extend([0, 0, 42, 0]);
        g.extend(inner);
        g
    }

    /// A G-PDU: GTP-U version 1 with `flags` (E, S, PN), its length field
    /// `len`, TEID 1, then `rest`.
    fn g_pdu(flags: u8, len: usize, rest: &[u8]) -> Vec<u8> {
        let mut g = vec![0x30 | flags, 0xff];
        g.extend((len as u16).to_be_bytes());
        g.extend([0, 0, 0, 1]);
        g.extend(rest);
        g
    }

    /// Every checksum that [`inspect`] reports: depth, protocol, status.
    fn verdicts(ip: &[u8]) -> Vec<(u8, Protocol, Status)> {
        let mut layers = Vec::new();
        inspect(ip, &mut layers).unwrap();
        layers
            .iter()
            .map(|l| (l.depth, l.report.protocol, l.report.status))
            .collect()
    }

    /// The verdicts of a good UDP packet in IPv4 at `depth`.
    fn good(depth: u8) -> [(u8, Protocol, Status); 2] {
        [
            (depth, Protocol::Ipv4, Status::Good),
            (depth, Protocol::Udp, Status::Good),
        ]
    }

    #[test]
    fn geneve_in_version_0_to_its_port_only() {
        let inner = udp(40000, 9, DATA);
        let followed = udp(50000, GENEVE_PORT, &geneve(0, ETHERTYPE_IPV4, &inner));
        assert_eq!(verdicts(&followed), [good(0), good(1)].concat());
        // Version 1; from port 6081: Wireshark decodes both.
        let version_1 = udp(50000, GENEVE_PORT, &geneve(0x40, ETHERTYPE_IPV4, &inner));
        assert_eq!(verdicts(&version_1), good(0));
        let from_port = udp(GENEVE_PORT, 50000, &geneve(0, ETHERTYPE_IPV4, &inner));
        assert_eq!(verdicts(&from_port), good(0));
        // Options past the datagram.
        let options = udp(50000, GENEVE_PORT, &geneve(0x3f, ETHERTYPE_IPV4, &inner));
        assert_eq!(verdicts(&options), good(0));
    }

    #[test]
    fn a_g_pdu_from_port_2152_to_vxlan_is_gtp_u() {
        let inner = udp(40000, 9, DATA);
        let gtp = udp(GTP_U_PORT, VXLAN_PORT, &g_pdu(0, inner.len(), &inner));
        assert_eq!(verdicts(&gtp), [good(0), good(1)].concat());
        // VXLAN from that port stays VXLAN: no GTP-U version 1.
        let mut vxlan = vec![0x08, 0, 0, 0, 0, 0, 1, 0];
        vxlan.extend([2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00]);
        vxlan.extend(&inner);
        let vxlan = udp(GTP_U_PORT, VXLAN_PORT, &vxlan);
        assert_eq!(verdicts(&vxlan), [good(0), good(1)].concat());
    }

    #[test]
    fn gtp_u_ends_where_its_headers_say() {
        let inner = udp(40000, 9, DATA);
        // An extension header of length 0 ends the message, as Wireshark.
        let rest = [&[0, 1, 0, 0x85, 0, 0, 0, 0][..], &inner].concat();
        let zero = udp(50000, GTP_U_PORT, &g_pdu(0x04, rest.len(), &rest));
        assert_eq!(verdicts(&zero), good(0));
        // One cut short by the message.
        let rest = [&[0, 1, 0, 0x85, 9, 0, 0, 0][..], &inner].concat();
        let long = udp(50000, GTP_U_PORT, &g_pdu(0x04, rest.len(), &rest));
        assert_eq!(verdicts(&long), good(0));
        // A GTP length short of the user packet cuts it.
        let short = udp(50000, GTP_U_PORT, &g_pdu(0, inner.len() - 1, &inner));
        let cut = verdicts(&short);
        assert_eq!(cut[..3], [good(0), good(1)].concat()[..3]);
        assert!(
            matches!(cut[3], (1, Protocol::Udp, Status::Unverified(_))),
            "{cut:?}"
        );
        // Other messages carry no user packet: an End Marker (0xfe).
        let mut end_marker = g_pdu(0, inner.len(), &inner);
        end_marker[1] = 0xfe;
        assert_eq!(verdicts(&udp(50000, GTP_U_PORT, &end_marker)), good(0));
    }

    #[test]
    fn fix_keeps_an_absent_outer_checksum_absent() {
        let mut inner = udp(40000, 9, DATA);
        inner[27] ^= 0x55;
        let mut outer = udp(50000, GENEVE_PORT, &geneve(0, ETHERTYPE_IPV4, &inner));
        outer[26..28].fill(0);
        let mut layers = Vec::new();
        fix(&mut outer, ProtocolSet::ALL, &mut layers).unwrap();
        assert_eq!(outer[26..28], [0, 0]);
        let mut after = good(0).to_vec();
        after[1].2 = Status::Absent;
        after.extend(good(1));
        assert_eq!(verdicts(&outer), after);
    }

    /// IPv4 from 192.0.2.1 to 198.51.100.7 carrying an ICMP message of
    /// type `kind` (code 0) that quotes `quoted`, its checksums right.
    fn icmp_error(kind: u8, quoted: &[u8]) -> Vec<u8> {
        let mut p = udp(1, 1, &[]);
        p.truncate(20);
        p[9] = IPPROTO_ICMP;
        p[2..4].copy_from_slice(&((28 + quoted.len()) as u16).to_be_bytes());
        p.extend([kind, 0, 0xff, 0xff, 0, 0, 0, 0]);
        p.extend(quoted);
        p[10..12].fill(0);
        packet::fix(&mut p, ProtocolSet::ALL).unwrap();
        p
    }

    /// IPv6 from 2001:db8::1 to 2001:db8::2 carrying `next`, `payload`,
    /// with its upper-layer checksum (at `field` in `payload`) made right.
    fn ipv6(next: u8, field: usize, payload: &[u8]) -> Vec<u8> {
        let mut p = vec![0x60, 0, 0, 0];
        p.extend((payload.len() as u16).to_be_bytes());
        p.extend([next, 64]);
        p.extend([0x20, 1, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
        p.extend([0x20, 1, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2]);
        p.extend(payload);
        p[40 + field..42 + field].copy_from_slice(&[0x12, 0x34]);
        packet::fix(&mut p, ProtocolSet::ALL).unwrap();
        p
    }

    /// The 16-bit word at `at` of `p`.
    fn word(p: &[u8], at: usize) -> u16 {
        be16(p, at).unwrap()
    }

    #[test]
    fn erspan_headers_by_version() {
        assert_eq!(erspan(&[0x10, 5, 0, 1, 0, 0, 0, 0]), Some(8));
        let iii = |last: u16| {
            let mut h = vec![0x20, 5, 0, 1, 0, 0, 0, 0, 0, 0];
            h.extend(last.to_be_bytes());
            erspan(&h)
        };
        assert_eq!(iii(0), Some(12));
        // The O bit: a platform-specific subheader.
        assert_eq!(iii(1), Some(20));
        // Frame type 2 (IP); the P bit, hardware ID, D bit and
        // granularity are no matter.
        assert_eq!(iii(2 << 10), None);
        assert_eq!(iii(0x83fe | 1), Some(20));
        // Versions 0 and 3; a type III header cut short.
        assert_eq!(erspan(&[0x00, 5, 0, 1, 0, 0, 0, 0]), None);
        assert_eq!(erspan(&[0x30, 5, 0, 1, 0, 0, 0, 0]), None);
        assert_eq!(erspan(&[0x20, 5, 0, 1, 0, 0, 0, 0, 0, 0, 0]), None);
        assert_eq!(erspan(&[]), None);
    }

    #[test]
    fn fix_leaves_a_quoted_icmp_checksum_and_keeps_the_outer_one_right() {
        let mut quoted = udp(40000, 9, DATA);
        quoted[27] ^= 0x55;
        // An error quoting an error quoting a whole UDP datagram, bad.
        let middle = icmp_error(3, &quoted);
        let mut outer = icmp_error(11, &middle);
        let before = outer.clone();
        let mut layers = Vec::new();
        fix(&mut outer, ProtocolSet::ALL, &mut layers).unwrap();
        let udp_field = 20 + 8 + 20 + 8 + 26;
        assert_ne!(word(&outer, udp_field), word(&before, udp_field));
        // The middle ICMP checksum, unverified, is left as it was.
        assert_eq!(word(&outer, 50), word(&before, 50));
        let unverified = Status::Unverified(packet::Error::Protocol(IPPROTO_ICMP));
        assert_eq!(
            verdicts(&outer),
            [
                (0, Protocol::Ipv4, Status::Good),
                (0, Protocol::Icmp, Status::Good),
                (1, Protocol::Ipv4, Status::Good),
                (1, Protocol::Icmp, unverified),
                (2, Protocol::Ipv4, Status::Good),
                (2, Protocol::Udp, Status::Good),
            ]
        );
        // What fix reports, outermost first: the verdicts before.
        let reported: Vec<_> = layers
            .iter()
            .map(|l| (l.depth, l.report.protocol, l.report.status))
            .collect();
        assert_eq!(reported[3], (1, Protocol::Icmp, unverified));
        assert_eq!(reported[5], (2, Protocol::Udp, Status::Bad));
        let mut fields = Vec::new();
        checksum_fields(&before, &mut fields);
        assert!(fields.contains(&udp_field) && fields.contains(&22));
    }

    #[test]
    fn only_ipv4_keeps_the_icmp_checksum_over_a_quoted_header_right() {
        let mut quoted = udp(40000, 9, DATA);
        quoted[10] ^= 0x55;
        let mut packet = icmp_error(3, &quoted[..28]);
        fix(&mut packet, Protocol::Ipv4.into(), &mut Vec::new()).unwrap();
        let expected = [
            (0, Protocol::Ipv4, Status::Good),
            (0, Protocol::Icmp, Status::Good),
            (1, Protocol::Ipv4, Status::Good),
            (
                1,
                Protocol::Udp,
                Status::Unverified(packet::Error::Truncated),
            ),
        ];
        assert_eq!(verdicts(&packet), expected);
    }

    #[test]
    fn a_quoted_udp_checksum_of_0_over_ipv6_is_absent_and_left() {
        let mut datagram = vec![0x9c, 0x40, 0, 9, 0, 17, 0, 0];
        datagram.extend(DATA);
        let mut quoted = ipv6(IPPROTO_UDP, 6, &datagram);
        quoted[46..48].fill(0);
        let mut error = vec![1, 0, 0, 0, 0, 0, 0, 0];
        error.extend(&quoted);
        let mut packet = ipv6(IPPROTO_ICMPV6, 2, &error);
        let before = packet.clone();
        assert_eq!(
            verdicts(&packet),
            [
                (0, Protocol::Icmpv6, Status::Good),
                (1, Protocol::Udp, Status::Absent)
            ]
        );
        fix(&mut packet, ProtocolSet::ALL, &mut Vec::new()).unwrap();
        assert_eq!(packet, before);
    }

    #[test]
    fn gre_headers_as_wireshark_reads_them() {
        // Checksum and routing share one word; key; sequence number.
        assert_eq!(gre_len(&[0x80, 0, 0x08, 0]), Some(8));
        assert_eq!(gre_len(&[0xb0, 0, 0x08, 0]), Some(16));
        // The acknowledgment number only for PPP in a version other than 0.
        assert_eq!(gre_len(&[0x30, 0x81, 0x88, 0x0b]), Some(16));
        assert_eq!(gre_len(&[0x30, 0x80, 0x88, 0x0b]), Some(12));
        assert_eq!(gre_len(&[0x30, 0x81, 0x08, 0x00]), Some(12));
        // Routing: an entry of 4 bytes, then the last one.
        let mut routed = vec![0x40, 0, 0x08, 0, 0, 0, 0, 0, 0x08, 0, 0, 4];
        routed.extend([10, 0, 0, 1, 0, 0, 0, 0]);
        assert_eq!(gre_len(&routed), Some(20));
        // The last entry missing.
        assert_eq!(gre_len(&routed[..16]), None);
        // WCCP: a redirect header unless an IPv4 header follows at once.
        assert_eq!(gre_len(&[0, 0, 0x88, 0x3e, 0x05]), Some(8));
        assert_eq!(gre_len(&[0, 0, 0x88, 0x3e, 0x45]), Some(4));
        assert_eq!(gre_len(&[0, 0, 0x88, 0x3e]), None);
        assert_eq!(gre_len(&[0, 0, 0x08]), None);
    }

    #[test]
    fn nsh_lengths_by_md_type() {
        // MD type 1 takes 24 bytes whatever its length says.
        assert_eq!(nsh(&[0, 2, 1, 1]), Some((24, Payload::Ip(&[4, 6]))));
        // MD type 2: 8 bytes at least; another type: 4 at least.
        assert_eq!(nsh(&[0, 1, 2, 2]), Some((8, Payload::Ip(&[6]))));
        assert_eq!(nsh(&[0, 4, 2, 3]), Some((16, Payload::Ethernet)));
        assert_eq!(nsh(&[0, 0, 9, 4]), Some((4, Payload::Nsh)));
        // MPLS (5) and unknown next protocols are not followed.
        assert_eq!(nsh(&[0, 6, 1, 5]), None);
        assert_eq!(nsh(&[0, 6, 1]), None);
        // NSH in NSH in NSH, then IPv4.
        let mut nested = [[0, 1, 0, 4]; 3].concat();
        nested[11] = 1;
        nested.push(0x45);
        assert_eq!(locate(&nested, Payload::Nsh), Some(12));
    }

    #[test]
    fn mpls_stacks_as_after_an_ethertype() {
        let inner = udp(40000, 9, DATA);
        let stack = |labels: usize| {
            let mut m = [0, 0, 0x10, 64].repeat(labels);
            m.extend([0, 0, 0x11, 64]);
            m.extend(&inner);
            m
        };
        let mpls = |bytes: &[u8]| locate(bytes, Payload::Mpls);
        assert_eq!(mpls(&stack(0)), Some(4));
        assert_eq!(mpls(&stack(3)), Some(16));
        assert_eq!(mpls(&stack(1000)), Some(4004));
        // No bottom of stack.
        assert_eq!(mpls(&[0, 0, 0x10, 64].repeat(4)), None);
        // The GAL label (13) carries no IP.
        assert_eq!(mpls(&[&[0, 0, 0xd1, 64][..], &inner].concat()), None);
        assert_eq!(mpls(&[]), None);
    }

    #[test]
    fn nhrp_traffic_indications_only() {
        let mut n = vec![
            0, 1, 0x08, 0, 0, 0, 0, 0, 0, 255, 0, 48, 0, 0, 0, 0, 1, 8, 4, 0,
        ];
        n.extend([
            4, 4, 0, 0, 0, 0, 0, 0, 192, 0, 2, 1, 10, 0, 0, 1, 10, 0, 0, 2,
        ]);
        n.extend([0x45; 8]);
        assert_eq!(nhrp_indication(&n), Some((40, Payload::Ip(&[4, 6]), 48)));
        // A Resolution Request (1), an Error Indication (7).
        for kind in [1, 7] {
            let mut other = n.clone();
            other[17] = kind;
            assert_eq!(nhrp_indication(&other), None);
        }
        // An extension offset past the packet size; an empty mandatory
        // part; a packet size below 20.
        for (at, value) in [(14, 49), (14, 20), (10, 19)] {
            let mut bogus = n.clone();
            bogus[at..at + 2].copy_from_slice(&(value as u16).to_be_bytes());
            assert_eq!(nhrp_indication(&bogus), None, "{at} {value}");
        }
        // Addresses of other lengths move the quoted packet.
        let mut longer = n.clone();
        longer[18] = 0x46;
        assert_eq!(nhrp_indication(&longer).map(|n| n.0), Some(42));
    }

    #[test]
    fn fix_keeps_a_right_nhrp_checksum_right() {
        let mut quoted = udp(40000, 9, DATA);
        quoted[27] ^= 0x55;
        let mut n = vec![
            0, 1, 0x08, 0, 0, 0, 0, 0, 0, 255, 0, 0, 0, 0, 0, 0, 1, 8, 4, 0,
        ];
        n.extend([
            4, 4, 0, 0, 0, 0, 0, 0, 192, 0, 2, 1, 10, 0, 0, 1, 10, 0, 0, 2,
        ]);
        n.extend(&quoted);
        let size = n.len() as u16;
        n[10..12].copy_from_slice(&size.to_be_bytes());
        let sum = fastpath::checksum(&n);
        n[12..14].copy_from_slice(&sum.to_be_bytes());
        let mut gre = vec![0x20, 0, 0x20, 0x01, 0, 0, 3, 0xe8];
        gre.extend(&n);
        let mut packet = udp(1, 1, &[]);
        packet.truncate(20);
        packet[9] = IPPROTO_GRE;
        packet[2..4].copy_from_slice(&((20 + gre.len()) as u16).to_be_bytes());
        packet.extend(&gre);
        packet[10..12].fill(0);
        packet::fix(&mut packet, ProtocolSet::ALL).unwrap();
        assert_eq!(
            verdicts(&packet)[1..],
            [
                (1, Protocol::Ipv4, Status::Good),
                (1, Protocol::Udp, Status::Bad)
            ]
        );
        fix(&mut packet, ProtocolSet::ALL, &mut Vec::new()).unwrap();
        assert_eq!(verdicts(&packet)[2], (1, Protocol::Udp, Status::Good));
        assert_eq!(fastpath::checksum(&packet[28..]), 0);
        let mut fields = Vec::new();
        checksum_fields(&packet, &mut fields);
        assert!(fields.contains(&(28 + 12)));
    }

    #[test]
    fn nested_udp_tunnels_end_at_the_depth_limit() {
        let mut packet = udp(40000, 9, DATA);
        for i in 0..MAX_DEPTH + 2 {
            packet = if i % 2 == 0 {
                udp(50000, GENEVE_PORT, &geneve(0, ETHERTYPE_IPV4, &packet))
            } else {
                udp(50000, GTP_U_PORT, &g_pdu(0, packet.len(), &packet))
            };
        }
        let expected: Vec<_> = (0..=MAX_DEPTH).flat_map(good).collect();
        assert_eq!(verdicts(&packet), expected);
    }
}
