//! What inspecting a frame finds: its checksums, what it held ([`Kind`]),
//! and what it may hold that was not verified ([`Gap`]); and their
//! [`Tally`] over a file. The model that `verify`, `fix`, `bench` and the
//! fuzz targets fill and `output` prints; it imports none of them.
//!
//! [`Inspector`] walks a frame's link layer and IP packets, tunnels
//! included, through [`link`], `fast` and [`layers`].

use std::collections::BTreeMap;

use fastpath::packet::{self, Error, Protocol, ProtocolSet, Status};

use super::fast;
use super::layers::{self, End, Layer, Stop};
use super::link::{self, Network};
use super::read::Frame;

/// What a frame held.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// An IP packet: its checksums are in the inspector's layers.
    Ip,
    /// No IP packet in a decoded link layer.
    NotIp,
    /// A link type not decoded here.
    OtherLink,
    /// An IP packet whose header is unusable.
    BrokenIp,
}

/// Why something in a frame may hold a checksum that `verify` did not
/// verify and has no line for. One frame has one at most: the walk through
/// its layers stops there.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Gap {
    /// A frame of a link type not decoded here.
    LinkType(u16),
    /// A packet of a pcapng interface past those remembered.
    Interface,
    /// A frame whose link header is cut short before its network protocol.
    LinkCut,
    /// A frame whose link layer (Ethernet, SLL, SLL2) names this EtherType,
    /// in which no IP was decoded, and which is no protocol known to carry
    /// no IP (MPLS, PPPoE, MACsec, ...).
    EtherType(u16),
    /// A frame of this decoded link type in which no IP was found, and no
    /// EtherType tells what it holds: a loopback address family, raw IP of
    /// another version, PPP control protocols, ...
    NoIp(u16),
    /// A packet cut short (by the snap length) before a checksum field: an
    /// IP header, IPv6 extension headers, an upper-layer header.
    Cut,
    /// A malformed IP header: an IHL below 5, a version that its link layer
    /// or tunnel does not announce.
    Malformed,
    /// An IPv4 packet of total length 0: a TSO or BIG TCP packet as
    /// captured on the sending host.
    Ipv4Length0,
    /// An IPv6 packet of payload length 0: a jumbogram (RFC 2675), or a BIG
    /// TCP packet.
    Ipv6Length0,
    /// A packet whose lengths don't fit: a total length below the header's,
    /// extension headers past the payload length, a UDP length past it.
    Lengths,
    /// A tunnel at depth [`MAX_DEPTH`](layers::MAX_DEPTH), not followed.
    TooDeep,
    /// An upper layer with no checksum verified here, by IP protocol
    /// number: SCTP, IGMP, ESP, GRE that is not decoded, ...
    Protocol(u8),
    /// Anything else the walk stopped at.
    Other,
}

/// Finds every checksum of a frame; keeps its buffers from frame to frame.
#[derive(Default)]
pub struct Inspector {
    /// The checksums of the last frame inspected.
    pub layers: Vec<Layer>,
    scratch: Vec<u8>,
    fixed: Vec<Layer>,
}

impl Inspector {
    /// Inspects the frame `frame` whose captured bytes are `data`, as `fix`
    /// needs it: each layer's `computed` is what its field holds once the
    /// whole packet is fixed (an outer checksum over a tunnel changes when
    /// an inner one is fixed).
    pub fn inspect(&mut self, frame: &Frame, data: &[u8]) -> Kind {
        self.layers.clear();
        let Some(link) = frame.link else {
            return Kind::OtherLink;
        };
        let ip = match link::locate(link, data) {
            Network::Ip(at) => &data[at..],
            Network::NotIp => return Kind::NotIp,
            Network::OtherLink => return Kind::OtherLink,
        };
        if layers::inspect(ip, &mut self.layers).is_err() {
            return Kind::BrokenIp;
        }
        if self
            .layers
            .iter()
            .any(|l| l.depth > 0 && l.report.status.needs_fix())
        {
            self.computed_after_fix(ip);
        }
        Kind::Ip
    }

    /// Inspects the frame `frame` whose captured bytes are `data`, as
    /// `verify` reports it: each layer's `computed` is the checksum of the
    /// bytes as captured (see [`verify`](super::verify)'s documentation),
    /// and what the frame may hold that was not verified, if anything.
    pub fn inspect_as_captured(&mut self, frame: &Frame, data: &[u8]) -> (Kind, Option<Gap>) {
        self.layers.clear();
        if frame.link == Some(1) && fast::inspect(data, &mut self.layers) {
            return (Kind::Ip, None);
        }
        self.inspect_walked(frame, data)
    }

    /// [`inspect_as_captured`](Self::inspect_as_captured) through the
    /// general walk alone, for every frame: what the common frame's
    /// shorter path must give.
    #[doc(hidden)]
    pub fn inspect_walked(&mut self, frame: &Frame, data: &[u8]) -> (Kind, Option<Gap>) {
        self.layers.clear();
        let Some(link) = frame.link else {
            // A pcapng record that is no packet (custom, systemd journal)
            // holds nothing to verify.
            let gap = (frame.len > 0).then_some(Gap::Interface);
            return (Kind::OtherLink, gap);
        };
        let ip = match link::locate(link, data) {
            Network::Ip(at) => &data[at..],
            Network::NotIp => return (Kind::NotIp, not_ip(link, data)),
            Network::OtherLink => return (Kind::OtherLink, Some(Gap::LinkType(link))),
        };
        let end = match layers::inspect_walk(ip, &mut self.layers) {
            Ok(end) => end,
            Err(e) => return (Kind::BrokenIp, Some(broken(e))),
        };
        if self.layers.iter().any(|l| {
            let r = &l.report;
            r.status == Status::Good && r.stored == 0xffff && !sends_zero_as_ones(r.protocol)
        }) {
            self.computed_zeros(ip);
        }
        (Kind::Ip, gap(&end, ip))
    }

    /// Sets each layer's `computed` to what its field holds once the
    /// whole packet is fixed, inner checksums first.
    #[cold]
    fn computed_after_fix(&mut self, ip: &[u8]) {
        self.scratch.clear();
        self.scratch.extend_from_slice(ip);
        self.fixed.clear();
        if layers::fix(&mut self.scratch, ProtocolSet::ALL, &mut self.fixed).is_err() {
            return;
        }
        for layer in &mut self.layers {
            let at = layer.report.offset;
            if let Some(&field) = self.scratch.get(at..).and_then(|f| f.first_chunk::<2>()) {
                layer.report.computed = u16::from_be_bytes(field);
            }
        }
    }

    /// Sets the `computed` of each good checksum stored as 0xffff (but
    /// UDP's and UDP-Lite's) to the checksum its data computes to: 0x0000, unless the
    /// data sums to +0 (an all-zero ICMPv4 message, whose checksum is
    /// 0xffff). Found by storing 0x0000 in a copy: a good verdict there
    /// means the data computes to 0x0000.
    #[cold]
    fn computed_zeros(&mut self, ip: &[u8]) {
        for i in 0..self.layers.len() {
            let report = self.layers[i].report;
            if report.status != Status::Good
                || report.stored != 0xffff
                || sends_zero_as_ones(report.protocol)
            {
                continue;
            }
            self.scratch.clear();
            self.scratch.extend_from_slice(ip);
            self.scratch[report.offset..report.offset + 2].fill(0);
            self.fixed.clear();
            let _ = layers::inspect(&self.scratch, &mut self.fixed);
            let depth = self.layers[i].depth;
            if let Some(zero) = self
                .fixed
                .iter()
                .find(|l| l.depth == depth && l.report.offset == report.offset)
            {
                self.layers[i].report.computed = match zero.report.status {
                    Status::Good => 0,
                    _ => zero.report.computed,
                };
            }
        }
    }
}

/// Whether a computed checksum of 0 is sent as 0xffff: UDP's (RFC 768) and
/// UDP-Lite's (RFC 3828), whose 0 in the field means something else.
fn sends_zero_as_ones(protocol: Protocol) -> bool {
    matches!(protocol, Protocol::Udp | Protocol::UdpLite)
}

/// The gap of an IP header that [`packet::analyze`] does not take.
fn broken(error: packet::Error) -> Gap {
    match error {
        packet::Error::Truncated => Gap::Cut,
        _ => Gap::Malformed,
    }
}

/// What the innermost packet that the walk reached leaves unverified, if
/// anything: a tunnel not followed, or an upper layer with no checksum
/// reported.
fn gap(end: &End, ip: &[u8]) -> Option<Gap> {
    match end.stop {
        Some(Stop::TooDeep) => return Some(Gap::TooDeep),
        Some(Stop::Inner(e)) => return Some(broken(e)),
        None => {}
    }
    let analysis = match end.analysis {
        Ok(analysis) => analysis,
        Err(e) => return Some(broken(e)),
    };
    match analysis.l4 {
        // A later fragment holds no upper-layer header: its data is
        // covered by the first fragment's checksum. No Next Header: nothing
        // follows.
        Ok(_) | Err(packet::Error::LaterFragment | packet::Error::Protocol(59)) => None,
        Err(packet::Error::Protocol(protocol)) => Some(Gap::Protocol(protocol)),
        Err(packet::Error::Truncated) => Some(Gap::Cut),
        Err(packet::Error::Length) => {
            let packet = &ip[end.start..];
            let zero = |at: usize| packet.get(at..at + 2) == Some(&[0, 0]);
            Some(match packet.first().map(|b| b >> 4) {
                Some(4) if zero(2) => Gap::Ipv4Length0,
                Some(6) if zero(4) => Gap::Ipv6Length0,
                _ => Gap::Lengths,
            })
        }
        Err(_) => Some(Gap::Other),
    }
}

/// EtherTypes of protocols that carry no IP: ARP, RARP, MAC control
/// (pause), slow protocols (LACP), EAPOL, PPPoE discovery, LLDP, PTP,
/// Ethernet loopback (CTP).
const NO_IP: [u16; 9] = [
    0x0806, 0x8035, 0x8808, 0x8809, 0x888e, 0x8863, 0x88cc, 0x88f7, 0x9000,
];

/// ARPHRD_NETLINK: an SLL header whose protocol field is a netlink family.
const ARPHRD_NETLINK: u16 = 824;

/// Why a frame of link type `link` in which [`link::locate`] found no IP
/// may hold a checksum not verified; `None` if its link layer names a
/// protocol that carries no IP (see [`NO_IP`]; values below 0x0600 are an
/// 802.3 length, LLC, or an SLL protocol that is no EtherType: CAN, ...;
/// ARCNET's ARP and RARP), netlink, or a PKTAP record that is no packet.
/// A PKTAP frame's is its inner frame's.
fn not_ip(link: u16, data: &[u8]) -> Option<Gap> {
    let be16 = |at: usize| {
        data.get(at..)
            .and_then(|rest| rest.first_chunk::<2>())
            .map(|b| u16::from_be_bytes(*b))
    };
    // Where an IP packet named by the link layer would start: cut short
    // if there is nothing there, else malformed.
    let ip_at = |at: usize| {
        Some(if at >= data.len() {
            Gap::Cut
        } else {
            Gap::Malformed
        })
    };
    let (field, mut offset, tags) = match link {
        1 => (12, 14, true),
        113 if be16(2) == Some(ARPHRD_NETLINK) => return None,
        113 => (14, 16, true),
        276 if be16(8) == Some(ARPHRD_NETLINK) => return None,
        276 => (0, 20, true),
        // IPoIB: the EtherType after the 40-byte pseudo-header; no tags.
        242 => (40, 44, false),
        7 | 129 => {
            return match link::arcnet(data, link == 129) {
                None => Some(Gap::LinkCut),
                Some((link::ARCNET_IP_1051 | link::ARCNET_IP_1201, at)) => ip_at(at),
                // ARP and RARP (RFC 1051's, RFC 1201's).
                Some((241 | 213 | 214, _)) => None,
                Some(_) => Some(Gap::NoIp(link)),
            };
        }
        // IPNET: the families of IPv4 and IPv6, after the 24-byte header.
        226 => {
            return match data.get(1) {
                _ if data.len() < 8 => Some(Gap::LinkCut),
                Some(2 | 26) => ip_at(24),
                _ => Some(Gap::NoIp(link)),
            };
        }
        258 | 149 => {
            let Some(inner) = link::pktap(data) else {
                let record = data.get(4..8).is_some_and(|t| t != [1, 0, 0, 0]);
                return (!record).then_some(Gap::NoIp(link));
            };
            // PKTAP in PKTAP is not decoded.
            return inner_not_ip(link, data, inner, &[258, 149]);
        }
        192 => {
            let Some(inner) = link::ppi(data) else {
                return Some(Gap::LinkCut);
            };
            return inner_not_ip(link, data, inner, &[192]);
        }
        _ => return Some(Gap::NoIp(link)),
    };
    let Some(mut protocol) = be16(field) else {
        return Some(Gap::LinkCut);
    };
    // VLAN tags: a tag control, then the next EtherType; Arista's header;
    // FabricPath's FTAG and TTL, then an Ethernet header.
    while tags && matches!(protocol, 0x8100 | 0x88a8 | 0x9100 | 0xd28b | 0x8903) {
        let next = match protocol {
            0xd28b => link::arista(data, offset),
            link::ETHERTYPE_FABRICPATH => be16(offset + 14).map(|next| (next, offset + 16)),
            _ => be16(offset + 2).map(|next| (next, offset + 4)),
        };
        let Some(next) = next else {
            // An Arista timestamp of a version not known, or a header cut.
            let unknown = protocol == 0xd28b
                && be16(offset) == Some(1)
                && be16(offset + 2).is_some_and(|v| !matches!(v, 0x10 | 0x110 | 0x20 | 0x120));
            return Some(if unknown {
                Gap::EtherType(protocol)
            } else {
                Gap::LinkCut
            });
        };
        (protocol, offset) = next;
    }
    if !tags && !matches!(protocol, 0x0800 | 0x86dd) && !NO_IP.contains(&protocol) {
        return Some(Gap::EtherType(protocol));
    }
    match protocol {
        0x0800 | 0x86dd if offset >= data.len() => Some(Gap::Cut),
        0x0800 | 0x86dd => Some(Gap::Malformed),
        p if p < 0x0600 || NO_IP.contains(&p) => None,
        p => Some(Gap::EtherType(p)),
    }
}

/// [`not_ip`] of the frame inside a header (PKTAP, PPI) of link type
/// `link` that names the inner frame's link type: `inner`, that link type
/// and where the inner frame starts in `data`. The header's own link types,
/// `own`, are not decoded inside it.
fn inner_not_ip(link: u16, data: &[u8], inner: (u32, usize), own: &[u16]) -> Option<Gap> {
    let (inner, at) = inner;
    let inner_data = data.get(at..).unwrap_or_default();
    match u16::try_from(inner) {
        Ok(inner) if !own.contains(&inner) => match link::locate(inner, inner_data) {
            Network::OtherLink => Some(Gap::LinkType(inner)),
            _ => not_ip(inner, inner_data),
        },
        _ => Some(Gap::NoIp(link)),
    }
}

/// How many bad checksums the summary lists.
const FIRST_BAD: usize = 10;

/// Whether a verdict makes `verify` exit with 1: a wrong checksum, or UDP's
/// zero over IPv6, which receivers drop. These are what `fix` writes.
pub fn is_bad(status: Status) -> bool {
    status.needs_fix()
}

fn status_index(status: Status) -> usize {
    match status {
        Status::Good => 0,
        Status::Bad => 1,
        Status::Unverified(_) => 2,
        Status::Absent => 3,
        Status::Illegal => 4,
    }
}

/// The index in [`Tally::unverified`] of the reason `error`.
fn unverified_index(error: Error) -> usize {
    match error {
        Error::Truncated => 0,
        Error::FirstFragment => 1,
        Error::Length => 2,
        Error::RoutingType(_) => 3,
        _ => 4,
    }
}

/// What a file's frames held.
#[derive(Debug, Default)]
pub struct Tally {
    /// Every frame (packet record or block).
    pub frames: u64,
    /// Frames with an IP packet.
    pub ip: u64,
    /// Frames of a decoded link type that carry no IP (ARP, LLC, ...).
    pub not_ip: u64,
    /// Frames of link types not decoded here.
    pub other_link: u64,
    /// Frames whose IP header is unusable: too short, wrong version.
    pub broken_ip: u64,
    /// Frames captured shorter than they were on the wire.
    pub cut: u64,
    /// Checksums by protocol (indexed by [`Protocol`] as `usize`) and
    /// status (by `status_index`).
    pub counts: [[u64; 5]; Protocol::ALL.len()],
    /// Checksums found inside tunnels (depth 1 or more).
    pub tunneled: u64,
    /// Frames with a bad or illegal checksum.
    pub bad_frames: u64,
    /// The first bad checksums, with their frame numbers.
    pub first_bad: Vec<(u64, Layer)>,
    /// Unverified checksums by reason, indexed by `unverified_index`
    /// (`output`'s `UNVERIFIED` names them in this order).
    pub unverified: [u64; 5],
    /// What was not verified, by reason.
    pub gaps: BTreeMap<Gap, u64>,
    /// Good checksums stored as 0xffff where 0x0000 is computed (not
    /// UDP's, whose computed 0 is sent as 0xffff).
    pub negative_zero: u64,
}

impl Tally {
    /// Counts the checksums of frame number `frame`.
    pub fn add(&mut self, frame: u64, layers: &[Layer]) {
        let mut bad = false;
        for layer in layers {
            let report = &layer.report;
            self.counts[report.protocol as usize][status_index(report.status)] += 1;
            self.tunneled += u64::from(layer.depth > 0);
            match report.status {
                Status::Unverified(e) => self.unverified[unverified_index(e)] += 1,
                Status::Good if (report.stored, report.computed) == (0xffff, 0) => {
                    self.negative_zero += 1;
                }
                status if is_bad(status) => {
                    bad = true;
                    if self.first_bad.len() < FIRST_BAD {
                        self.first_bad.push((frame, *layer));
                    }
                }
                _ => {}
            }
        }
        self.bad_frames += u64::from(bad);
    }

    /// Counts something not verified.
    pub fn gap(&mut self, gap: Gap) {
        *self.gaps.entry(gap).or_default() += 1;
    }

    /// Adds the counts of `other` (not its first bad checksums).
    pub fn merge(&mut self, other: &Tally) {
        self.frames += other.frames;
        self.ip += other.ip;
        self.not_ip += other.not_ip;
        self.other_link += other.other_link;
        self.broken_ip += other.broken_ip;
        self.cut += other.cut;
        for (row, other_row) in self.counts.iter_mut().zip(&other.counts) {
            for (n, m) in row.iter_mut().zip(other_row) {
                *n += m;
            }
        }
        self.tunneled += other.tunneled;
        self.bad_frames += other.bad_frames;
        for (n, m) in self.unverified.iter_mut().zip(&other.unverified) {
            *n += m;
        }
        for (&gap, &n) in &other.gaps {
            *self.gaps.entry(gap).or_default() += n;
        }
        self.negative_zero += other.negative_zero;
    }

    /// The number of bad or illegal checksums.
    pub fn bad(&self) -> u64 {
        self.counts.iter().map(|row| row[1] + row[4]).sum()
    }

    /// Whether every checksum there may be was verified: none unverified,
    /// nothing not verified.
    pub fn all_verified(&self) -> bool {
        self.unverified.iter().all(|&n| n == 0) && self.gaps.is_empty()
    }
}
