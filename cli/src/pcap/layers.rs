//! Every checksum of a frame's IP packet, tunnels included.
//!
//! [`fastpath::packet::analyze`] reports the outermost IP header and the
//! header after it (depth 0). When that header starts a tunnel decoded
//! here, the inner IP packet is analyzed in turn, one depth further:
//!
//! - IP-in-IP: protocol 4 (IPv4) or 41 (IPv6);
//! - GRE (47), version 0, without the RFC 1701 routing field, carrying IPv4
//!   (0x0800), IPv6 (0x86dd) or Ethernet (0x6558, with VLAN tags);
//! - VXLAN: UDP to port 4789, carrying Ethernet.
//!
//! A tunnel is followed in a whole packet and in a first fragment (its
//! inner headers are there; the inner upper layer is then cut short, so
//! unverified), never in a later fragment. At most [`MAX_DEPTH`] tunnels
//! are followed, so that a packet of nested tunnels ends the walk.
//!
//! A GRE checksum is no protocol of the report, but `fix` keeps it right:
//! when it held before inner checksums were corrected, it is recomputed.

use std::ops::Range;

use fastpath::packet::{self, Analysis, Fragment, Protocol, ProtocolSet, Report, Status};

use super::link::{self, Network};

/// The deepest tunnel followed: depth 0 is the outermost IP packet.
pub const MAX_DEPTH: u8 = 8;

const IPPROTO_IPIP: u8 = 4;
const IPPROTO_UDP: u8 = 17;
const IPPROTO_IPV6: u8 = 41;
const IPPROTO_GRE: u8 = 47;
const VXLAN_PORT: u16 = 4789;

/// One checksum of a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layer {
    /// 0 for the outermost IP packet, 1 inside the first tunnel, ...
    pub depth: u8,
    /// The verdict, with `offset` counted from the start of the frame's IP
    /// packet.
    pub report: Report,
}

/// The inner IP packet of a tunnel: where it is in the outer packet, and
/// the GRE packet around it if that has a checksum.
struct Tunnel {
    inner: Range<usize>,
    gre_checksum: Option<Range<usize>>,
}

/// Every checksum of the IP packet `ip`, outermost first: each IP header
/// and the header after it, then the tunnel's inner packet. `Err` if `ip`
/// does not start with an IP header (see [`packet::analyze`]).
pub fn inspect(ip: &[u8], layers: &mut Vec<Layer>) -> Result<(), packet::Error> {
    let mut analysis = match packet::analyze(ip) {
        Ok(analysis) => analysis,
        Err(e) => {
            let report = cut_ipv4(ip).ok_or(e)?;
            layers.push(Layer { depth: 0, report });
            return Ok(());
        }
    };
    let mut base = 0;
    let mut packet = ip;
    for depth in 0..=MAX_DEPTH {
        push(layers, depth, base, &analysis);
        let Some(tunnel) = tunnel(packet, &analysis).filter(|_| depth < MAX_DEPTH) else {
            break;
        };
        let inner = &packet[tunnel.inner.clone()];
        match packet::analyze(inner) {
            Ok(next) => analysis = next,
            Err(_) => {
                if let Some(mut report) = cut_ipv4(inner) {
                    report.offset += base + tunnel.inner.start;
                    layers.push(Layer {
                        depth: depth + 1,
                        report,
                    });
                }
                break;
            }
        }
        base += tunnel.inner.start;
        packet = inner;
    }
    Ok(())
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
        if let Some(gre) = &tunnel.gre_checksum {
            fields.push(base + gre.start + 4);
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
/// of any protocol, in `only` or not (with `--only tcp`, a VXLAN packet's
/// outer UDP checksum is written again after its inner TCP one). Pushes the layers as they were before each was written, outermost
/// first, into `layers`: a report's `computed` is what its field holds now.
pub fn fix(ip: &mut [u8], only: ProtocolSet, layers: &mut Vec<Layer>) -> Result<(), packet::Error> {
    let first = layers.len();
    fix_at(ip, only, 0, 0, layers)?;
    // fix_at pushes the innermost layers first.
    layers[first..].sort_by_key(|l| l.depth);
    Ok(())
}

fn fix_at(
    packet: &mut [u8],
    only: ProtocolSet,
    depth: u8,
    base: usize,
    layers: &mut Vec<Layer>,
) -> Result<(), packet::Error> {
    let analysis = packet::analyze(packet)?;
    if depth < MAX_DEPTH
        && let Some(tunnel) = tunnel(packet, &analysis)
    {
        let gre = tunnel
            .gre_checksum
            .clone()
            .filter(|gre| fastpath::checksum(&packet[gre.clone()]) == 0);
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
            layers,
        );
        if let Some(gre) = gre
            && fastpath::checksum(&packet[gre.clone()]) != 0
        {
            let field = gre.start + 4;
            packet[field..field + 2].fill(0);
            let sum = fastpath::checksum(&packet[gre]);
            packet[field..field + 2].copy_from_slice(&sum.to_be_bytes());
        }
        let keep = Protocol::ALL
            .iter()
            .filter(|&&p| right.contains(p))
            .fold(only, |set, &p| set.with(p));
        let analysis = packet::fix(packet, keep)?;
        push(layers, depth, base, &analysis);
        return Ok(());
    }
    let analysis = packet::fix(packet, only)?;
    push(layers, depth, base, &analysis);
    Ok(())
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
    let ip = |offset: usize, version: u8| {
        let inner = start + offset..end;
        let first = *packet.get(inner.clone())?.first()?;
        (first >> 4 == version).then_some(inner)
    };
    let ethernet =
        |offset: usize, end: usize| match link::ethernet(packet.get(start + offset..end)?) {
            Network::Ip(at) => Some(start + offset + at..end),
            _ => None,
        };
    match upper.protocol {
        IPPROTO_IPIP => Some(Tunnel {
            inner: ip(0, 4)?,
            gre_checksum: None,
        }),
        IPPROTO_IPV6 => Some(Tunnel {
            inner: ip(0, 6)?,
            gre_checksum: None,
        }),
        IPPROTO_GRE => {
            let flags = u16::from_be_bytes(*header.first_chunk::<2>()?);
            let (checksum, routing, key, sequence) = (
                flags & 0x8000 != 0,
                flags & 0x4000 != 0,
                flags & 0x2000 != 0,
                flags & 0x1000 != 0,
            );
            if routing || flags & 0x0007 != 0 {
                return None;
            }
            let len = 4 + 4 * (usize::from(checksum) + usize::from(key) + usize::from(sequence));
            let protocol = u16::from_be_bytes(*header.get(2..)?.first_chunk::<2>()?);
            let inner = match protocol {
                0x0800 => ip(len, 4)?,
                0x86dd => ip(len, 6)?,
                0x6558 => ethernet(len, end)?,
                _ => return None,
            };
            // The GRE checksum covers the GRE header and payload: only
            // checked if the whole GRE packet is there.
            let whole = upper.end <= packet.len() && upper.fragment == Fragment::Whole;
            let gre_checksum = (checksum && whole).then_some(start..end);
            Some(Tunnel {
                inner,
                gre_checksum,
            })
        }
        IPPROTO_UDP => {
            let port = u16::from_be_bytes(*header.get(2..)?.first_chunk::<2>()?);
            let len = usize::from(u16::from_be_bytes(*header.get(4..)?.first_chunk::<2>()?));
            if port != VXLAN_PORT || len < 16 || start + len > upper.end {
                return None;
            }
            // The UDP length bounds the datagram; then 8 bytes of VXLAN.
            Some(Tunnel {
                inner: ethernet(16, (start + len).min(packet.len()))?,
                gre_checksum: None,
            })
        }
        _ => None,
    }
}
