//! Link layers: where the IP packet starts in a frame.
//!
//! The link types are libpcap's LINKTYPE_ values
//! (<https://www.tcpdump.org/linktypes.html>), which also describes their
//! headers.
//!
//! | LINKTYPE | what | the network protocol |
//! |---|---|---|
//! | 1 | Ethernet, with any stack of 802.1Q (0x8100), 802.1ad (0x88a8) and old QinQ (0x9100) tags | the EtherType |
//! | 113 | Linux cooked capture (SLL), 16-byte header | the protocol field at 14, an EtherType (VLAN tags followed) |
//! | 276 | Linux cooked capture v2 (SLL2), 20-byte header | the protocol field at 0 |
//! | 101, 228, 229 | raw IP, IPv4, IPv6 | the version field (as Wireshark: an IPv6 packet on a 228 link is IPv6, but an IPv4 packet on a 229 link is nothing) |
//! | 12, 14 | DLT_RAW of some systems, written as is by old libpcaps | raw IP if the version field says 4 or 6; otherwise 12 is OpenBSD's DLT_LOOP |
//! | 0 | BSD loopback (DLT_NULL): a 4-byte address family in the byte order of the machine that captured, which need not be the file's | AF_INET 2; AF_INET6 24, 28 or 30 (NetBSD/OpenBSD, FreeBSD, Darwin), as Wireshark |
//! | 108 | OpenBSD loopback (DLT_LOOP): the same family, big-endian | the same |
//! | 9, 50 | PPP, PPP in HDLC-like framing: address 0xff and control (any) if the first byte is 0xff, then the protocol field; a first byte 0x0f or 0x8f is Cisco HDLC, as Wireshark | the PPP protocol, 1 byte if odd (protocol-field compression), else 2: 0x0021 IPv4, 0x0057 IPv6, 0x0281 and 0x0283 MPLS |
//! | 204 | PPP with a 1-byte direction first | the same |
//! | 104 | Cisco HDLC: address, control, protocol | 0x0800 IPv4, 0x86dd IPv6, 0x8847 and 0x8848 MPLS, 0x6558 Ethernet (no VLAN tags, as Wireshark) |
//! | 51 | PPPoE session without Ethernet: the 6-byte PPPoE header, then PPP | the PPP protocol |
//! | 105 | IEEE 802.11 data frames (not protected, not A-MSDUs): the header (24 bytes, 30 with four addresses, 2 more of QoS control, 4 more of HT control if QoS and the order bit), a mesh control field if Wireshark would see one, then LLC/SNAP (aa aa 03, OUI 00-00-00 or 00-00-f8) | the EtherType |
//! | 127 | radiotap (its length at 2, little-endian), then 802.11, padded to 4 bytes after the header if the radiotap flags say so | the same |
//! | 239 | Linux NFLOG: family, version, resource id, then TLVs (type 9 the packet) whose 16-bit length and type are in the capturing machine's byte order (read little-endian, or big-endian if that finds no packet TLV), each padded to 4 bytes | the EtherType of the NFULA_PACKET_HDR TLV if there is one and not 0; else the family: 2 IPv4, 10 IPv6 |
//! | 242 | IP over InfiniBand (RFC 4391 section 6; libpcap's LINKTYPE_IPOIB): a 40-byte pseudo-header (a global route header, or the destination's QPN and GID), then the 4-byte IPoIB header: EtherType, reserved | 0x0800 IPv4 (or IPv6 by the version field), 0x86dd IPv6; nothing else, no VLAN tags, as Wireshark |
//! | 7, 129 | ARCNET, BSD (source, destination) and Linux (source, destination, 2-byte offset) headers, then the protocol ID (RFC 1051, RFC 1201); RFC 1201 IDs have a split flag and a 2-byte sequence number after them, and on BSD a split flag 0xff marks an exception frame: 0xff, 2 bytes of padding, the protocol ID again, then the split flag and sequence number | 240 (RFC 1051) and 212 (RFC 1201) IPv4, or IPv6 by the version field; Wireshark 4.0 decodes no other as IP |
//! | 226 | Solaris IPNET: version, family, hook type, packet length (big-endian, 32 bits), then 16 bytes of interface and zone ids; the packet is the last `length` bytes of the frame, as Wireshark reads it (24 bytes in if the frame is cut short) | 2 IPv4 (or IPv6 by the version field), 26 IPv6 |
//! | 258, 149 | Apple PKTAP (libpcap's LINKTYPE_PKTAP; Wireshark 4.0 also decodes USER2 as PKTAP): a little-endian header whose length (at 0, at least 108), record type (at 4, 1 a packet) and link type of the frame after it (at 8) are read | the link type's, as decoded here (but PKTAP in PKTAP) |
//! | 192 | Per-Packet Information (PPI, LINKTYPE_PPI): version 0, flags, the header's length (little-endian, 16 bits, at least 8) and the link type of the frame after it (little-endian, 32 bits), then fields up to that length | the link type's, as decoded here (but PPI in PPI) |
//!
//! Wherever an EtherType is (Ethernet, SLL, NFLOG, 802.11's SNAP header,
//! Ethernet inside a tunnel or a pseudowire), these follow it:
//!
//! - 0x0800: IPv4, or IPv6 if the version field says 6 (Wireshark's "ip"
//!   dissector); 0x86dd: IPv6, and not an IPv4 header (Wireshark takes it
//!   for data);
//! - VLAN tags, as above;
//! - MPLS, 0x8847 and 0x8848: the labels down to the one with the
//!   bottom-of-stack bit, then, as Wireshark 4.0 guesses, IPv4 if the first
//!   nibble is 4, IPv6 if 6, and if 0 a pseudowire carrying Ethernet, with
//!   the 4-byte control word if the Ethernet frame after it carries an
//!   EtherType followed here, else without. A bottom label 13 (GAL) or 14
//!   (OAM alert) carries no IP;
//! - PPPoE session, 0x8864: the 6-byte PPPoE header, then PPP.
//! - Cisco FabricPath, 0x8903: the 2-byte FTAG and TTL, then an Ethernet
//!   frame (Wireshark's FabricPath heuristic, which finds the EtherType
//!   right after the outer addresses or after one 802.1Q or 802.1ad tag).
//! - Arista's vendor-specific protocol (AVSP), 0xd28b: a 2-byte subtype;
//!   if it is 1 (a timestamp), a 2-byte version and a timestamp of 8
//!   bytes (versions 0x0010 and 0x0110) or 6 (0x0020 and 0x0120), another
//!   version ending the decoding; then the EtherType of what follows, as
//!   Wireshark 4.0's AVSP dissector reads it.
//!
//! Wireshark 4.0 tells an Ethernet pseudowire's control word by whether
//! the bytes look like two addresses of known vendors (its OUI file); the
//! EtherType test here picks the same for frames of real MAC addresses.

/// Where a frame's IP packet starts, or why it has none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Network {
    /// An IP packet (IPv4 or IPv6) starts at this offset.
    Ip(usize),
    /// The link layer carries something else (ARP, LLC, an unknown
    /// EtherType or address family), or is cut short.
    NotIp,
    /// A link type this tool does not decode.
    OtherLink,
}

const ETHERTYPE_IPV4: u16 = 0x0800;
const ETHERTYPE_IPV6: u16 = 0x86dd;
const ETHERTYPE_VLAN: u16 = 0x8100;
const ETHERTYPE_QINQ: u16 = 0x88a8;
const ETHERTYPE_QINQ_OLD: u16 = 0x9100;
const ETHERTYPE_MPLS: u16 = 0x8847;
const ETHERTYPE_MPLS_MULTICAST: u16 = 0x8848;
const ETHERTYPE_PPPOE_SESSION: u16 = 0x8864;
/// Cisco FabricPath (Wireshark's ETHERTYPE_DCE).
pub const ETHERTYPE_FABRICPATH: u16 = 0x8903;
/// Transparent Ethernet bridging: an Ethernet frame (Cisco HDLC, GRE).
const ETHERTYPE_TEB: u16 = 0x6558;
/// Arista's vendor-specific protocol: a timestamp header before the
/// EtherType of the packet.
const ETHERTYPE_ARISTA: u16 = 0xd28b;

/// PPP protocols: IPv4, IPv6, MPLS unicast and multicast.
const PPP_IPV4: u16 = 0x0021;
const PPP_IPV6: u16 = 0x0057;
const PPP_MPLS: u16 = 0x0281;
const PPP_MPLS_MULTICAST: u16 = 0x0283;

/// The MPLS label of the Generic Associated Channel (RFC 5586).
const MPLS_LABEL_GAL: u32 = 13;
/// The MPLS label of OAM alerts (ITU-T Y.1711).
const MPLS_LABEL_OAM_ALERT: u32 = 14;

/// The NFLOG TLV of the packet header: its EtherType, big-endian, then
/// the hook.
const NFULA_PACKET_HDR: u16 = 1;
/// The NFLOG TLV of the packet.
const NFULA_PAYLOAD: u16 = 9;
/// NFLOG families (the netfilter protocol families): IPv4, IPv6.
const NFPROTO_IPV4: u8 = 2;
const NFPROTO_IPV6: u8 = 10;

/// ARPHRD_NETLINK: an SLL header whose protocol field is a netlink family.
const ARPHRD_NETLINK: u16 = 824;

/// Where the IP packet of a frame of link type `link` starts.
pub fn locate(link: u16, frame: &[u8]) -> Network {
    match link {
        1 => ethernet(frame),
        113 => match (be16(frame, 2), be16(frame, 14)) {
            (Some(ARPHRD_NETLINK), _) | (_, None) => Network::NotIp,
            (_, Some(protocol)) => decode(frame, Header::EtherType(protocol), 16),
        },
        276 => match (be16(frame, 8), be16(frame, 0)) {
            (Some(ARPHRD_NETLINK), _) | (None, _) | (_, None) => Network::NotIp,
            (_, Some(protocol)) => decode(frame, Header::EtherType(protocol), 20),
        },
        101 | 228 => raw(frame),
        // As Wireshark's IPv6 dissector: nothing but version 6.
        229 => match frame.first().map(|b| b >> 4) {
            Some(6) => Network::Ip(0),
            _ => Network::NotIp,
        },
        12 => match raw(frame) {
            Network::NotIp => family(frame, true),
            ip => ip,
        },
        14 => raw(frame),
        0 => family(frame, false),
        108 => family(frame, true),
        9 | 50 => ppp_hdlc(frame, 0),
        204 => ppp_hdlc(frame, 1),
        104 => cisco_hdlc(frame, 0),
        51 => decode(frame, Header::Ppp, 6),
        239 => nflog(frame),
        105 => ieee80211(frame, 0, false),
        127 => radiotap(frame),
        242 => ipoib(frame),
        7 => arcnet_ip(frame, false),
        129 => arcnet_ip(frame, true),
        226 => ipnet(frame),
        258 | 149 => inner_ip(frame, pktap(frame), &[258, 149]),
        192 => inner_ip(frame, ppi(frame), &[192]),
        _ => Network::OtherLink,
    }
}

/// An Ethernet frame: destination, source, EtherType, VLAN tags.
pub fn ethernet(frame: &[u8]) -> Network {
    decode(frame, Header::Ethernet, 0)
}

/// An MPLS label stack (RFC 3032), then what it carries, as after the
/// EtherType 0x8847: the payload guessed by its first nibble, as Wireshark
/// 4.0 guesses it (IPv4, IPv6, or an Ethernet pseudowire).
pub fn mpls_stack(frame: &[u8]) -> Network {
    decode(frame, Header::Mpls, 0)
}

/// A header of the link layer, which tells what follows it.
#[derive(Clone, Copy, Debug)]
enum Header {
    /// An Ethernet header: destination, source, EtherType.
    Ethernet,
    /// What an EtherType names: VLAN tags, IP, MPLS, PPPoE.
    EtherType(u16),
    /// A PPP protocol field, then what it names.
    Ppp,
    /// An MPLS label stack, then what its payload looks like.
    Mpls,
}

/// Where the IP packet starts, decoding from the header `header` at
/// `offset`: header after header until IP or something else.
fn decode(frame: &[u8], mut header: Header, mut offset: usize) -> Network {
    // Every step takes bytes of the frame, but an EtherType's, which names
    // the next header at the same offset: the loop ends.
    loop {
        match step(frame, header, offset) {
            Ok(next) => (header, offset) = next,
            Err(network) => return network,
        }
    }
}

/// The header after `header` at `offset`, and where it starts; `Err` with
/// the answer when there is no further header to decode.
fn step(frame: &[u8], header: Header, offset: usize) -> Result<(Header, usize), Network> {
    let field = |at: usize| be16(frame, at).ok_or(Network::NotIp);
    match header {
        Header::Ethernet => Ok((Header::EtherType(field(offset + 12)?), offset + 14)),
        Header::EtherType(protocol) => match protocol {
            // A tag control, then the next EtherType.
            ETHERTYPE_VLAN | ETHERTYPE_QINQ | ETHERTYPE_QINQ_OLD => {
                Ok((Header::EtherType(field(offset + 2)?), offset + 4))
            }
            ETHERTYPE_IPV4 => Err(ip(frame, offset, false)),
            ETHERTYPE_IPV6 => Err(ip(frame, offset, true)),
            ETHERTYPE_MPLS | ETHERTYPE_MPLS_MULTICAST => Ok((Header::Mpls, offset)),
            // FTAG and TTL, then an Ethernet frame.
            ETHERTYPE_FABRICPATH => Ok((Header::Ethernet, offset + 2)),
            // Version and type, code, session id, length.
            ETHERTYPE_PPPOE_SESSION => Ok((Header::Ppp, offset + 6)),
            ETHERTYPE_ARISTA => match arista(frame, offset) {
                Some((protocol, at)) => Ok((Header::EtherType(protocol), at)),
                None => Err(Network::NotIp),
            },
            _ => Err(Network::NotIp),
        },
        Header::Ppp => {
            // Protocol-field compression: an odd first byte is the whole
            // field (the high byte of a protocol is even).
            let first = *frame.get(offset).ok_or(Network::NotIp)?;
            let (protocol, at) = if first & 1 == 1 {
                (u16::from(first), offset + 1)
            } else {
                (field(offset)?, offset + 2)
            };
            match protocol {
                PPP_IPV4 => Err(ip(frame, at, false)),
                PPP_IPV6 => Err(ip(frame, at, true)),
                PPP_MPLS | PPP_MPLS_MULTICAST => Ok((Header::Mpls, at)),
                _ => Err(Network::NotIp),
            }
        }
        Header::Mpls => mpls(frame, offset),
    }
}

/// An MPLS label stack at `offset`, then its payload, guessed as
/// Wireshark 4.0 does (there is no protocol field): by its first nibble.
fn mpls(frame: &[u8], offset: usize) -> Result<(Header, usize), Network> {
    // Label, traffic class, bottom-of-stack bit, TTL: 4 bytes each.
    let mut at = offset;
    let label = loop {
        let bytes = frame
            .get(at..)
            .and_then(|rest| rest.first_chunk::<4>())
            .ok_or(Network::NotIp)?;
        let entry = u32::from_be_bytes(*bytes);
        at += 4;
        if entry & 0x100 != 0 {
            break entry >> 12;
        }
    };
    if matches!(label, MPLS_LABEL_GAL | MPLS_LABEL_OAM_ALERT) {
        return Err(Network::NotIp);
    }
    match frame.get(at).map(|b| b >> 4) {
        Some(4) => Err(ip(frame, at, false)),
        Some(6) => Err(ip(frame, at, true)),
        Some(0) => {
            // An Ethernet pseudowire, with a control word (first nibble
            // 0, flags, length, sequence number) or without one (a
            // destination address whose first nibble is 0).
            let carries = |ethernet: usize| {
                be16(frame, ethernet + 12).is_some_and(|protocol| {
                    matches!(
                        protocol,
                        ETHERTYPE_IPV4
                            | ETHERTYPE_IPV6
                            | ETHERTYPE_VLAN
                            | ETHERTYPE_QINQ
                            | ETHERTYPE_QINQ_OLD
                            | ETHERTYPE_MPLS
                            | ETHERTYPE_MPLS_MULTICAST
                            | ETHERTYPE_PPPOE_SESSION
                    )
                })
            };
            if carries(at + 4) {
                Ok((Header::Ethernet, at + 4))
            } else if carries(at) {
                Ok((Header::Ethernet, at))
            } else {
                Err(Network::NotIp)
            }
        }
        _ => Err(Network::NotIp),
    }
}

/// An IP packet at `offset`: IPv4, or IPv6 by its version field; not an
/// IPv4 header if `ipv6` (as Wireshark's IPv6 dissector refuses one).
fn ip(frame: &[u8], offset: usize, ipv6: bool) -> Network {
    match frame.get(offset).map(|b| b >> 4) {
        None => Network::NotIp,
        Some(4) if ipv6 => Network::NotIp,
        Some(_) => Network::Ip(offset),
    }
}

/// PPP, maybe in HDLC-like framing, at `offset`: address 0xff and a
/// control byte (not checked, as Wireshark) if the first byte is 0xff,
/// then the protocol field. As Wireshark, a first byte 0x0f (unicast) or
/// 0x8f (multicast) is a Cisco HDLC address.
fn ppp_hdlc(frame: &[u8], offset: usize) -> Network {
    match frame.get(offset) {
        Some(0x0f | 0x8f) => cisco_hdlc(frame, offset),
        Some(0xff) => decode(frame, Header::Ppp, offset + 2),
        Some(_) => decode(frame, Header::Ppp, offset),
        None => Network::NotIp,
    }
}

/// Cisco HDLC at `offset`: address, control, then a protocol that is an
/// EtherType, of which Wireshark follows a few (not VLAN tags).
fn cisco_hdlc(frame: &[u8], offset: usize) -> Network {
    match be16(frame, offset + 2) {
        Some(
            protocol
            @ (ETHERTYPE_IPV4 | ETHERTYPE_IPV6 | ETHERTYPE_MPLS | ETHERTYPE_MPLS_MULTICAST),
        ) => decode(frame, Header::EtherType(protocol), offset + 4),
        Some(ETHERTYPE_TEB) => decode(frame, Header::Ethernet, offset + 4),
        _ => Network::NotIp,
    }
}

/// Linux NFLOG: family, version, resource id, then TLVs, each a length
/// (4 bytes of header included) and a type in the capturing machine's
/// byte order, aligned to 4 bytes. Wireshark reads them in the byte order
/// of the file, which is the capturing machine's; the file's is not known
/// here, so the TLVs are read little-endian, or big-endian if that finds
/// no packet (the types are small numbers: read in the wrong order, none
/// is the packet's).
fn nflog(frame: &[u8]) -> Network {
    let Some(&family) = frame.first() else {
        return Network::NotIp;
    };
    let found =
        nflog_tlvs(frame, u16::from_le_bytes).or_else(|| nflog_tlvs(frame, u16::from_be_bytes));
    match found {
        None => Network::NotIp,
        Some((payload, 0)) => match family {
            NFPROTO_IPV4 => ip(frame, payload, false),
            NFPROTO_IPV6 => ip(frame, payload, true),
            _ => Network::NotIp,
        },
        Some((payload, protocol)) => decode(frame, Header::EtherType(protocol), payload),
    }
}

/// Walks the TLVs of an NFLOG frame with 16-bit fields read by `read`:
/// where the (last) packet TLV's value starts, and the EtherType of the
/// (last) packet header TLV, 0 if none. `None` without a packet TLV, or if
/// a TLV is shorter than its header, as Wireshark then decodes nothing.
/// A TLV may run past the end of the frame: the snap length cut it.
fn nflog_tlvs(frame: &[u8], read: fn([u8; 2]) -> u16) -> Option<(usize, u16)> {
    let (mut payload, mut protocol) = (None, 0);
    let mut offset = 4;
    while let Some(tlv) = frame.get(offset..).and_then(|rest| rest.first_chunk::<4>()) {
        let len = usize::from(read([tlv[0], tlv[1]]));
        if len < 4 {
            return None;
        }
        // The high bits are the netlink flags of nested attributes and of
        // network byte order.
        match read([tlv[2], tlv[3]]) & 0x7fff {
            NFULA_PACKET_HDR if len == 8 => protocol = be16(frame, offset + 4)?,
            NFULA_PAYLOAD => payload = Some(offset + 4),
            _ => {}
        }
        offset += len.next_multiple_of(4);
    }
    Some((payload?, protocol))
}

/// A radiotap header, then an 802.11 frame. Of its fields, only the flags
/// matter here (the 802.11 header padded to 4 bytes): the first word of
/// present flags tells whether there are the TSFT (8 bytes, aligned to 8)
/// and the flags (1 byte), which come first, after every word of present
/// flags (bit 31: another word follows).
fn radiotap(frame: &[u8]) -> Network {
    let (Some(len), Some(present)) = (le16(frame, 2), le32(frame, 4)) else {
        return Network::NotIp;
    };
    let len = usize::from(len);
    if len < 8 {
        return Network::NotIp;
    }
    let mut fields = 8;
    while let Some(word) = le32(frame, fields - 4) {
        if word & 0x8000_0000 == 0 {
            break;
        }
        fields += 4;
    }
    if present & 1 != 0 {
        fields = fields.next_multiple_of(8) + 8;
    }
    let padded = present & 2 != 0
        && fields < len
        && frame.get(fields).is_some_and(|flags| flags & 0x20 != 0);
    ieee80211(frame, len, padded)
}

/// An 802.11 frame at `offset`; `padded` if the radiotap flags say that
/// the header is padded to a multiple of 4 bytes. Data frames only,
/// unprotected (Wireshark, without keys, decodes no further), and not
/// A-MSDUs (several packets in one frame). The header lengths are
/// Wireshark's: HT control whenever a QoS frame has the order bit, a
/// mesh control field (6 bytes, 6 more per extended address) when a QoS
/// frame from the DS (or between two) has the mesh control bit in its QoS
/// control and the field's flags are a valid address extension mode.
fn ieee80211(frame: &[u8], offset: usize, padded: bool) -> Network {
    let (Some(&control), Some(&flags)) = (frame.get(offset), frame.get(offset + 1)) else {
        return Network::NotIp;
    };
    // Version 0, type 2 (data), a subtype with data (bit 2 clear: not a
    // null function), not protected.
    if control & 0x0f != 0x08 || control & 0x40 != 0 || flags & 0x40 != 0 {
        return Network::NotIp;
    }
    let distribution = flags & 0x03;
    let mut len = if distribution == 0x03 { 30 } else { 24 };
    let qos = if control & 0x80 != 0 {
        let Some(qos) = le16(frame, offset + len) else {
            return Network::NotIp;
        };
        len += if flags & 0x80 != 0 { 6 } else { 2 };
        Some(qos)
    } else {
        None
    };
    if padded {
        len = len.next_multiple_of(4);
    }
    let mut at = offset + len;
    if let Some(qos) = qos {
        if qos & 0x0080 != 0 {
            return Network::NotIp;
        }
        if qos & 0x0100 != 0
            && distribution & 0x02 != 0
            && let Some(&mesh) = frame.get(at)
            && mesh & !0x03 == 0
            && mesh != 0x03
        {
            at += 6 + 6 * usize::from(mesh);
        }
    }
    // LLC, SNAP: RFC 1042 (OUI 0) or 802.1H bridge tunnelling (00-00-f8).
    match frame.get(at..at + 6) {
        Some([0xaa, 0xaa, 0x03, 0x00, 0x00, 0x00 | 0xf8]) => match be16(frame, at + 6) {
            Some(protocol) => decode(frame, Header::EtherType(protocol), at + 8),
            None => Network::NotIp,
        },
        _ => Network::NotIp,
    }
}

/// The 40-byte pseudo-header of an IP over InfiniBand frame (a global
/// route header, or the destination's queue pair number and GID), which
/// libpcap's LINKTYPE_IPOIB puts before the IPoIB header of RFC 4391
/// section 6.
const IPOIB_PSEUDO_HEADER: usize = 40;

/// IP over InfiniBand: the pseudo-header, then the IPoIB header
/// (EtherType, 2 reserved bytes). Wireshark follows IPv4 and IPv6 only.
fn ipoib(frame: &[u8]) -> Network {
    let at = IPOIB_PSEUDO_HEADER + 4;
    match be16(frame, IPOIB_PSEUDO_HEADER) {
        Some(ETHERTYPE_IPV4) => ip(frame, at, false),
        Some(ETHERTYPE_IPV6) => ip(frame, at, true),
        _ => Network::NotIp,
    }
}

/// The ARCNET protocol ID of IPv4 in RFC 1051's framing.
pub const ARCNET_IP_1051: u8 = 240;
/// The ARCNET protocol ID of IPv4 in RFC 1201's framing.
pub const ARCNET_IP_1201: u8 = 212;

/// The protocol ID of an ARCNET frame and where its payload starts, or
/// `None` if the frame is cut short in its header. `linux`: the Linux
/// header (LINKTYPE_ARCNET_LINUX 129), with the 2-byte offset field of
/// the hardware frame after the source and destination; else the BSD
/// one (LINKTYPE_ARCNET_BSD 7), which may be an exception frame. After
/// the protocol ID, RFC 1201's split flag and sequence number (RFC 1201,
/// "Link Layer Fragmentation"), but for the IDs Wireshark knows to have
/// none: RFC 1051's IP and ARP (240, 241), diagnose (0x80) and BACnet
/// (0xcd).
pub fn arcnet(frame: &[u8], linux: bool) -> Option<(u8, usize)> {
    let at = if linux { 4 } else { 2 };
    let protocol = *frame.get(at)?;
    let mut at = at + 1;
    if !matches!(protocol, ARCNET_IP_1051 | 241 | 0x80 | 0xcd) {
        // An exception frame: the flag 0xff, 2 bytes of padding, the
        // protocol ID again, then the split flag.
        if !linux && *frame.get(at)? == 0xff {
            at += 4;
        }
        // The split flag and the sequence number.
        at += 3;
    }
    (at <= frame.len()).then_some((protocol, at))
}

/// An ARCNET frame's IP packet: after the protocol IDs of IP, read as
/// Wireshark's "ip" dissector does (IPv6 if the version field says 6).
fn arcnet_ip(frame: &[u8], linux: bool) -> Network {
    match arcnet(frame, linux) {
        Some((ARCNET_IP_1051 | ARCNET_IP_1201, at)) => ip(frame, at, false),
        _ => Network::NotIp,
    }
}

/// The families of Solaris IPNET: AF_INET, and Solaris's AF_INET6.
const IPNET_INET: u8 = 2;
const IPNET_INET6: u8 = 26;
/// The length of the IPNET header.
const IPNET_HEADER: usize = 24;

/// Solaris IPNET (libpcap's LINKTYPE_IPNET; the header is tcpdump's
/// ipnet_hdr_t, print-ipnet.c): version, family, hook type, the packet's
/// length, interface and zone ids. Wireshark takes the packet to be the
/// last `length` bytes of the frame; past the header, as a frame cut
/// short by the snap length holds less than `length`.
fn ipnet(frame: &[u8]) -> Network {
    let (Some(&family), Some(len)) = (frame.get(1), be32(frame, 4)) else {
        return Network::NotIp;
    };
    let at = usize::try_from(len)
        .ok()
        .and_then(|len| frame.len().checked_sub(len))
        .map_or(IPNET_HEADER, |at| at.max(IPNET_HEADER));
    match family {
        IPNET_INET => ip(frame, at, false),
        IPNET_INET6 => ip(frame, at, true),
        _ => Network::NotIp,
    }
}

/// The shortest PKTAP header (Darwin's struct pktap_header).
const PKTAP_MIN_HEADER: u32 = 108;
/// The PKTAP record type of a packet.
const PKTAP_PACKET: u32 = 1;

/// The link type of the frame inside an Apple PKTAP header and where that
/// frame starts; `None` if the header is shorter than its minimum or than
/// its length field, or is no packet's. Its fields are little-endian
/// (libpcap's LINKTYPE_PKTAP; Darwin's net/pktap.h).
pub fn pktap(frame: &[u8]) -> Option<(u32, usize)> {
    let len = le32(frame, 0)?;
    if len < PKTAP_MIN_HEADER || le32(frame, 4)? != PKTAP_PACKET {
        return None;
    }
    let len = usize::try_from(len).ok()?;
    (len <= frame.len()).then_some((le32(frame, 8)?, len))
}

/// The link type of the frame after a Per-Packet Information header
/// (LINKTYPE_PPI) and where that frame starts; `None` if the version is
/// not 0, or the header's length is below 8 or past the frame. Its fields
/// are little-endian.
pub fn ppi(frame: &[u8]) -> Option<(u32, usize)> {
    if *frame.first()? != 0 {
        return None;
    }
    let len = usize::from(le16(frame, 2)?);
    if len < 8 || len > frame.len() {
        return None;
    }
    Some((le32(frame, 4)?, len))
}

/// The IP packet of a frame inside a header that names its link type
/// (PKTAP, PPI) of `frame`: `inner`, the link type and where the inner frame starts,
/// decoded as that link type says, but for the header's own link types,
/// `own` (which Wireshark would decode again, to no end here), and link
/// types not decoded.
fn inner_ip(frame: &[u8], inner: Option<(u32, usize)>, own: &[u16]) -> Network {
    let Some((link, at)) = inner else {
        return Network::NotIp;
    };
    let Some(inner) = u16::try_from(link).ok().filter(|l| !own.contains(l)) else {
        return Network::NotIp;
    };
    match frame.get(at..).map(|rest| locate(inner, rest)) {
        Some(Network::Ip(offset)) => Network::Ip(at + offset),
        _ => Network::NotIp,
    }
}

/// Arista's vendor-specific header at `offset` (after its EtherType): the
/// EtherType after it and where that protocol starts; `None` if cut
/// short or a timestamp of a version not known. The header as Wireshark
/// 4.0's AVSP dissector (packet-arista.c) and tcpdump's print-arista.c
/// read it: a subtype,
/// and if it is 1 (a timestamp), a version and the timestamp (64 bits: 4
/// bytes of seconds, 4 of nanoseconds; 48 bits: 2 and 4); then the
/// EtherType.
pub fn arista(frame: &[u8], offset: usize) -> Option<(u16, usize)> {
    let at = match be16(frame, offset)? {
        1 => match be16(frame, offset + 2)? {
            0x0010 | 0x0110 => offset + 12,
            0x0020 | 0x0120 => offset + 10,
            _ => return None,
        },
        _ => offset + 2,
    };
    Some((be16(frame, at)?, at + 2))
}

/// Raw IP: the version field tells IPv4 from IPv6.
fn raw(frame: &[u8]) -> Network {
    match frame.first().map(|b| b >> 4) {
        Some(4 | 6) => Network::Ip(0),
        _ => Network::NotIp,
    }
}

/// A 4-byte address family, then IP. DLT_LOOP stores it big-endian;
/// DLT_NULL in the capturing machine's byte order, which is told by the
/// family's value: families are small, so a value with its high half set
/// is byte-swapped.
fn family(frame: &[u8], big_endian: bool) -> Network {
    let Some(&bytes) = frame.first_chunk::<4>() else {
        return Network::NotIp;
    };
    let family = if big_endian {
        u32::from_be_bytes(bytes)
    } else {
        let family = u32::from_le_bytes(bytes);
        if family & 0xffff_0000 != 0 {
            family.swap_bytes()
        } else {
            family
        }
    };
    let version = match family {
        2 => 4,
        24 | 28 | 30 => 6,
        _ => return Network::NotIp,
    };
    match frame.get(4) {
        Some(b) if b >> 4 == version => Network::Ip(4),
        _ => Network::NotIp,
    }
}

/// The little-endian 16-bit field at `at`, if the data holds it.
fn le16(data: &[u8], at: usize) -> Option<u16> {
    let bytes = data.get(at..)?.first_chunk::<2>()?;
    Some(u16::from_le_bytes(*bytes))
}

/// The little-endian 32-bit field at `at`, if the data holds it.
fn le32(data: &[u8], at: usize) -> Option<u32> {
    let bytes = data.get(at..)?.first_chunk::<4>()?;
    Some(u32::from_le_bytes(*bytes))
}

/// The big-endian 32-bit field at `at`, if the data holds it.
fn be32(data: &[u8], at: usize) -> Option<u32> {
    let bytes = data.get(at..)?.first_chunk::<4>()?;
    Some(u32::from_be_bytes(*bytes))
}

/// The big-endian 16-bit field at `at`, if the data holds it.
fn be16(data: &[u8], at: usize) -> Option<u16> {
    let bytes = data.get(at..)?.first_chunk::<2>()?;
    Some(u16::from_be_bytes(*bytes))
}

#[cfg(test)]
mod tests {
    use proptest::collection::vec;
    use proptest::prelude::*;

    use super::*;

    const IPV4: [u8; 2] = [0x45, 0x00];
    const IPV6: [u8; 2] = [0x60, 0x00];

    fn eth(tags: &[u16], ethertype: u16, payload: &[u8]) -> Vec<u8> {
        let mut frame = vec![0xaa; 12];
        for &tag in tags {
            frame.extend(tag.to_be_bytes());
            frame.extend([0x00, 0x64]);
        }
        frame.extend(ethertype.to_be_bytes());
        frame.extend(payload);
        frame
    }

    #[test]
    fn ethernet_and_vlan_stacks() {
        assert_eq!(locate(1, &eth(&[], 0x0800, &IPV4)), Network::Ip(14));
        assert_eq!(locate(1, &eth(&[0x8100], 0x86dd, &IPV6)), Network::Ip(18));
        assert_eq!(
            locate(1, &eth(&[0x88a8, 0x8100], 0x0800, &IPV4)),
            Network::Ip(22)
        );
        assert_eq!(
            locate(1, &eth(&[0x9100, 0x88a8, 0x8100, 0x8100], 0x0800, &IPV4)),
            Network::Ip(30)
        );
        assert_eq!(locate(1, &eth(&[], 0x0806, &[0; 28])), Network::NotIp);
        // A tag cut short, an IP EtherType with nothing after it.
        assert_eq!(
            locate(1, &eth(&[0x8100], 0x0800, &[])[..16]),
            Network::NotIp
        );
        assert_eq!(locate(1, &eth(&[], 0x0800, &[])), Network::NotIp);
        assert_eq!(locate(1, &[]), Network::NotIp);
    }

    #[test]
    fn linux_cooked_captures() {
        let mut sll = vec![0, 0, 0, 1, 0, 6, 1, 2, 3, 4, 5, 6, 0, 0, 0x08, 0x00];
        sll.extend(IPV4);
        assert_eq!(locate(113, &sll), Network::Ip(16));
        sll[2..4].copy_from_slice(&ARPHRD_NETLINK.to_be_bytes());
        assert_eq!(locate(113, &sll), Network::NotIp);
        let mut sll2 = vec![
            0x86, 0xdd, 0, 0, 0, 0, 0, 2, 0, 1, 0, 6, 1, 2, 3, 4, 5, 6, 0, 0,
        ];
        sll2.extend(IPV6);
        assert_eq!(locate(276, &sll2), Network::Ip(20));
        assert_eq!(locate(276, &sll2[..10]), Network::NotIp);
    }

    #[test]
    fn raw_ip() {
        assert_eq!(locate(101, &IPV4), Network::Ip(0));
        assert_eq!(locate(101, &IPV6), Network::Ip(0));
        assert_eq!(locate(101, &[0x55]), Network::NotIp);
        assert_eq!(locate(228, &IPV4), Network::Ip(0));
        assert_eq!(locate(228, &IPV6), Network::Ip(0));
        assert_eq!(locate(229, &[0x55]), Network::NotIp);
        assert_eq!(locate(229, &IPV6), Network::Ip(0));
        assert_eq!(locate(12, &IPV6), Network::Ip(0));
        assert_eq!(locate(14, &IPV4), Network::Ip(0));
        assert_eq!(locate(12, &[0, 0, 0, 2, 0x45]), Network::Ip(4));
        assert_eq!(locate(147, &IPV4), Network::OtherLink);
    }

    /// An MPLS label stack entry.
    fn label(label: u32, bottom: bool) -> [u8; 4] {
        (label << 12 | u32::from(bottom) << 8 | 64).to_be_bytes()
    }

    #[test]
    fn mpls_label_stacks() {
        let one = [&label(100, true)[..], &IPV4].concat();
        assert_eq!(locate(1, &eth(&[], 0x8847, &one)), Network::Ip(18));
        assert_eq!(locate(1, &eth(&[0x8100], 0x8848, &one)), Network::Ip(22));
        let three = [
            &label(1, false)[..],
            &label(2, false),
            &label(3, true),
            &IPV6,
        ]
        .concat();
        assert_eq!(locate(1, &eth(&[], 0x8847, &three)), Network::Ip(26));
        // No bottom of stack before the end; nothing after it; the GAL and
        // OAM alert labels; a payload neither IP nor Ethernet.
        let open = [&label(1, false)[..], &label(2, false)].concat();
        assert_eq!(locate(1, &eth(&[], 0x8847, &open)), Network::NotIp);
        assert_eq!(
            locate(1, &eth(&[], 0x8847, &label(1, true))),
            Network::NotIp
        );
        for special in [13, 14] {
            let payload = [&label(special, true)[..], &IPV4].concat();
            assert_eq!(locate(1, &eth(&[], 0x8847, &payload)), Network::NotIp);
        }
        // 13 above the bottom is a label like any other.
        let gal = [&label(13, false)[..], &label(5, true), &IPV4].concat();
        assert_eq!(locate(1, &eth(&[], 0x8847, &gal)), Network::Ip(22));
        let ach = [&label(5, true)[..], &[0x10, 0, 0, 0x21], &IPV4].concat();
        assert_eq!(locate(1, &eth(&[], 0x8847, &ach)), Network::NotIp);
    }

    #[test]
    fn mpls_ethernet_pseudowires() {
        let inner = eth(&[], 0x0800, &IPV4);
        let cw = [&label(5, true)[..], &[0, 0, 0, 1], &inner].concat();
        assert_eq!(locate(1, &eth(&[], 0x8847, &cw)), Network::Ip(36));
        // Without a control word: the destination address's first nibble
        // is 0; the bytes 4 further name no EtherType followed.
        let mut plain = inner.clone();
        plain[0] = 0x00;
        let no_cw = [&label(5, true)[..], &plain].concat();
        assert_eq!(locate(1, &eth(&[], 0x8847, &no_cw)), Network::Ip(32));
        // Both ways Ethernet, and the inner frame's EtherType is ARP.
        let arp = [&label(5, true)[..], &[0; 4], &eth(&[], 0x0806, &[0; 28])].concat();
        assert_eq!(locate(1, &eth(&[], 0x8847, &arp)), Network::NotIp);
        // A pseudowire in a pseudowire, then PPPoE.
        let pppoe = [&[0x11, 0, 0, 1, 0, 4, 0x00, 0x21][..], &IPV4].concat();
        let deep = [
            &label(5, true)[..],
            &[0; 4],
            &eth(
                &[0x8100],
                0x8847,
                &[&label(6, true)[..], &[0; 4], &eth(&[], 0x8864, &pppoe)].concat(),
            ),
        ]
        .concat();
        assert_eq!(
            locate(1, &eth(&[], 0x8847, &deep)),
            Network::Ip(14 + 8 + 18 + 8 + 14 + 8)
        );
    }

    #[test]
    fn ethertypes_as_wireshark_dissects_them() {
        assert_eq!(locate(1, &eth(&[], 0x0800, &IPV6)), Network::Ip(14));
        assert_eq!(locate(1, &eth(&[], 0x86dd, &IPV4)), Network::NotIp);
        let pppoe = |ppp: &[u8]| [&[0x11, 0x00, 0x12, 0x34, 0x00, 0x40][..], ppp].concat();
        assert_eq!(
            locate(1, &eth(&[], 0x8864, &pppoe(&[0x00, 0x21, 0x45]))),
            Network::Ip(22)
        );
        assert_eq!(
            locate(1, &eth(&[], 0x8864, &pppoe(&[0x57, 0x60]))),
            Network::Ip(21)
        );
        assert_eq!(
            locate(1, &eth(&[], 0x8864, &pppoe(&[0xc0, 0x21, 1]))),
            Network::NotIp
        );
        assert_eq!(
            locate(1, &eth(&[], 0x8863, &pppoe(&[0x00, 0x21, 0x45]))),
            Network::NotIp
        );
        let mut sll = vec![0, 0, 0, 1, 0, 6, 1, 2, 3, 4, 5, 6, 0, 0, 0x88, 0x47];
        sll.extend([&label(7, true)[..], &IPV6].concat());
        assert_eq!(locate(113, &sll), Network::Ip(20));
    }

    #[test]
    fn ppp_and_cisco_hdlc() {
        for link in [9, 50] {
            assert_eq!(
                locate(link, &[0xff, 0x03, 0x00, 0x21, 0x45]),
                Network::Ip(4)
            );
            assert_eq!(locate(link, &[0xff, 0x03, 0x57, 0x60]), Network::Ip(3));
            assert_eq!(locate(link, &[0x00, 0x57, 0x60]), Network::Ip(2));
            assert_eq!(locate(link, &[0x21, 0x45]), Network::Ip(1));
            assert_eq!(locate(link, &[0x00, 0x57, 0x45]), Network::NotIp);
            assert_eq!(locate(link, &[0xff, 0x03, 0xc0, 0x21, 1]), Network::NotIp);
            assert_eq!(
                locate(link, &[0x0f, 0x00, 0x08, 0x00, 0x45]),
                Network::Ip(4)
            );
            let mpls = [&[0xff, 0x03, 0x02, 0x81][..], &label(1, true), &IPV4].concat();
            assert_eq!(locate(link, &mpls), Network::Ip(8));
            assert_eq!(locate(link, &[0xff, 0x03]), Network::NotIp);
            assert_eq!(locate(link, &[]), Network::NotIp);
        }
        assert_eq!(
            locate(204, &[1, 0xff, 0x03, 0x00, 0x21, 0x45]),
            Network::Ip(5)
        );
        assert_eq!(locate(204, &[0, 0x21, 0x45]), Network::Ip(2));
        assert_eq!(locate(104, &[0x0f, 0x00, 0x86, 0xdd, 0x60]), Network::Ip(4));
        assert_eq!(locate(104, &[0x8f, 0x00, 0x08, 0x00, 0x60]), Network::Ip(4));
        assert_eq!(locate(104, &[0x0f, 0x00, 0x86, 0xdd, 0x45]), Network::NotIp);
        assert_eq!(
            locate(104, &[0x0f, 0x00, 0x81, 0x00, 0, 1, 0x08, 0x00, 0x45]),
            Network::NotIp
        );
        let teb = [
            &[0x0f, 0x00, 0x65, 0x58][..],
            &eth(&[0x8100], 0x0800, &IPV4),
        ]
        .concat();
        assert_eq!(locate(104, &teb), Network::Ip(22));
        assert_eq!(
            locate(51, &[0x11, 0, 0, 1, 0, 3, 0x00, 0x21, 0x45]),
            Network::Ip(8)
        );
        assert_eq!(locate(51, &[0x11, 0, 0, 1, 0, 3]), Network::NotIp);
    }

    /// An NFLOG frame: a packet header TLV if `ethertype` is not 0, then
    /// the packet TLV, in the byte order `big_endian`.
    fn nflog(family: u8, ethertype: u16, packet: &[u8], big_endian: bool) -> Vec<u8> {
        let field = |v: u16| {
            if big_endian {
                v.to_be_bytes()
            } else {
                v.to_le_bytes()
            }
        };
        let mut f = vec![family, 0, 0, 0];
        if ethertype != 0 {
            f.extend(field(8));
            f.extend(field(1));
            f.extend(ethertype.to_be_bytes());
            f.extend([3, 0]);
        }
        f.extend(field(4 + packet.len() as u16));
        f.extend(field(9));
        f.extend(packet);
        f
    }

    #[test]
    fn nflog_in_either_byte_order() {
        for big_endian in [false, true] {
            assert_eq!(locate(239, &nflog(2, 0, &IPV4, big_endian)), Network::Ip(8));
            assert_eq!(
                locate(239, &nflog(10, 0, &IPV6, big_endian)),
                Network::Ip(8)
            );
            assert_eq!(locate(239, &nflog(2, 0, &IPV6, big_endian)), Network::Ip(8));
            assert_eq!(
                locate(239, &nflog(10, 0, &IPV4, big_endian)),
                Network::NotIp
            );
            assert_eq!(locate(239, &nflog(7, 0, &IPV4, big_endian)), Network::NotIp);
            // The packet header's EtherType rules over the family.
            let v6 = nflog(2, 0x86dd, &IPV6, big_endian);
            assert_eq!(locate(239, &v6), Network::Ip(16));
            assert_eq!(
                locate(239, &nflog(7, 0x0800, &IPV4, big_endian)),
                Network::Ip(16)
            );
            assert_eq!(
                locate(239, &nflog(2, 0x0806, &IPV4, big_endian)),
                Network::NotIp
            );
            // Cut by the snap length inside the packet.
            let mut long = nflog(2, 0, &[0x45; 40], big_endian);
            long.truncate(20);
            assert_eq!(locate(239, &long), Network::Ip(8));
        }
        // A TLV shorter than its header; no packet TLV; no TLV.
        let mut short = nflog(2, 0, &IPV4, false);
        short.extend([0, 0, 2, 0, 1, 0]);
        assert_eq!(locate(239, &short), Network::NotIp);
        assert_eq!(
            locate(239, &[2, 0, 0, 0, 8, 0, 10, 0, b'a', b'b', 0, 0]),
            Network::NotIp
        );
        assert_eq!(locate(239, &[2, 0, 0, 0]), Network::NotIp);
        assert_eq!(locate(239, &[]), Network::NotIp);
    }

    /// An 802.11 data frame header: frame control, duration, addresses,
    /// sequence control, then `rest` (QoS control and what follows).
    fn wlan(control: u8, flags: u8, rest: &[u8]) -> Vec<u8> {
        let addresses = if flags & 0x03 == 0x03 { 4 } else { 3 };
        let mut f = vec![control, flags, 0, 0];
        f.resize(4 + 6 * addresses, 0x02);
        f.extend([0, 0]);
        f.extend(rest);
        f
    }

    const SNAP_IPV4: [u8; 10] = [0xaa, 0xaa, 0x03, 0, 0, 0, 0x08, 0x00, 0x45, 0x00];

    #[test]
    fn ieee80211_data_frames() {
        assert_eq!(locate(105, &wlan(0x08, 0x01, &SNAP_IPV4)), Network::Ip(32));
        assert_eq!(locate(105, &wlan(0x08, 0x03, &SNAP_IPV4)), Network::Ip(38));
        // Data + CF-Ack; QoS data; QoS with HT control; QoS, 4 addresses.
        assert_eq!(locate(105, &wlan(0x18, 0x02, &SNAP_IPV4)), Network::Ip(32));
        let qos = [&[0x05, 0x00][..], &SNAP_IPV4].concat();
        assert_eq!(locate(105, &wlan(0x88, 0x01, &qos)), Network::Ip(34));
        let ht = [&[0x05, 0x00, 1, 2, 3, 4][..], &SNAP_IPV4].concat();
        assert_eq!(locate(105, &wlan(0x88, 0x81, &ht)), Network::Ip(38));
        assert_eq!(locate(105, &wlan(0x88, 0x03, &qos)), Network::Ip(40));
        // The order bit without QoS is no HT control.
        assert_eq!(locate(105, &wlan(0x08, 0x81, &SNAP_IPV4)), Network::Ip(32));
        // Mesh control: from the DS or between two, not to it.
        for (flags, mesh, at) in [
            (0x02, 0x00, 34 + 6),
            (0x03, 0x01, 40 + 12),
            (0x03, 0x02, 40 + 18),
        ] {
            let mut rest = vec![0x00, 0x01, mesh, 0x20, 0, 0, 0, 0];
            rest.resize(2 + 6 + 6 * usize::from(mesh), 0x02);
            rest.extend(SNAP_IPV4);
            assert_eq!(locate(105, &wlan(0x88, flags, &rest)), Network::Ip(at));
        }
        let not_mesh = [&[0x00, 0x01][..], &SNAP_IPV4].concat();
        assert_eq!(locate(105, &wlan(0x88, 0x03, &not_mesh)), Network::Ip(40));
        // Protected; a null function; a QoS null; an A-MSDU; management;
        // protocol version 1; LLC without SNAP; another OUI; cut short.
        assert_eq!(locate(105, &wlan(0x08, 0x41, &SNAP_IPV4)), Network::NotIp);
        assert_eq!(locate(105, &wlan(0x48, 0x01, &SNAP_IPV4)), Network::NotIp);
        assert_eq!(locate(105, &wlan(0xc8, 0x01, &qos)), Network::NotIp);
        let amsdu = [&[0x80, 0x00][..], &SNAP_IPV4].concat();
        assert_eq!(locate(105, &wlan(0x88, 0x01, &amsdu)), Network::NotIp);
        assert_eq!(locate(105, &wlan(0x80, 0x00, &SNAP_IPV4)), Network::NotIp);
        assert_eq!(locate(105, &wlan(0x09, 0x01, &SNAP_IPV4)), Network::NotIp);
        assert_eq!(
            locate(105, &wlan(0x08, 0x01, &[0xe0, 0xe0, 0x03, 0x45])),
            Network::NotIp
        );
        let mut cisco = SNAP_IPV4;
        cisco[3..6].copy_from_slice(&[0x00, 0x40, 0x96]);
        assert_eq!(locate(105, &wlan(0x08, 0x01, &cisco)), Network::NotIp);
        let mut bridge = SNAP_IPV4;
        bridge[5] = 0xf8;
        assert_eq!(locate(105, &wlan(0x08, 0x01, &bridge)), Network::Ip(32));
        assert_eq!(locate(105, &wlan(0x88, 0x01, &[])), Network::NotIp);
        assert_eq!(locate(105, &[0x08]), Network::NotIp);
    }

    #[test]
    fn radiotap_headers() {
        let frame = wlan(0x08, 0x01, &SNAP_IPV4);
        let plain = [&[0, 0, 8, 0, 0, 0, 0, 0][..], &frame].concat();
        assert_eq!(locate(127, &plain), Network::Ip(40));
        // TSFT and flags (padding), in two words of present flags: the
        // TSFT at 16, the flags at 24; the QoS header padded from 26 to 28.
        let qos = wlan(0x88, 0x01, &[&[0, 0, 0xee, 0xee][..], &SNAP_IPV4].concat());
        let mut header = vec![0, 0, 25, 0];
        header.extend(0x8000_0003u32.to_le_bytes());
        header.extend([0; 4 + 4 + 8]);
        header.push(0x20);
        let padded = [&header[..], &qos].concat();
        assert_eq!(locate(127, &padded), Network::Ip(25 + 36));
        // Without the padding flag, the pad is taken for LLC.
        header[24] = 0x10;
        assert_eq!(locate(127, &[&header[..], &qos].concat()), Network::NotIp);
        // A length shorter than the header; longer than the frame.
        assert_eq!(
            locate(127, &[&[0, 0, 4, 0, 0, 0, 0, 0][..], &frame].concat()),
            Network::NotIp
        );
        assert_eq!(locate(127, &[0, 0, 200, 0, 0, 0, 0, 0]), Network::NotIp);
        assert_eq!(locate(127, &[0, 0, 8]), Network::NotIp);
    }

    /// Headers that lead the decoding deep, for random bytes to follow.
    const PREFIXES: [&[u8]; 8] = [
        &[],
        &[0xaa; 12],
        &[
            0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0x88, 0x47,
        ],
        &[
            0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0x88, 0x64,
            0x11, 0, 0, 1, 0, 9,
        ],
        &[
            0xff, 0x03, 0x02, 0x81, 0x00, 0x01, 0x41, 0x40, 0x00, 0x00, 0x00, 0x00,
        ],
        &[0x00, 0x00, 0x19, 0x00, 0x03, 0x00, 0x00, 0x80, 0, 0, 0, 0],
        &[
            0x02, 0x00, 0x00, 0x00, 0x08, 0x00, 0x01, 0x00, 0x08, 0x00, 0x03, 0x00,
        ],
        &[0x88, 0x03, 0x2c, 0x00],
    ];

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

        /// Any bytes of any link type decoded: an IP packet inside the
        /// frame, or none; never a panic.
        #[test]
        fn any_bytes_give_an_offset_inside_the_frame(
            link in prop::sample::select(vec![0u16, 1, 7, 9, 12, 50, 51, 104, 105, 108, 113, 127, 129, 149, 204, 226, 239, 242, 258, 276]),
            prefix in 0..PREFIXES.len(),
            tail in vec(any::<u8>(), 0..160),
        ) {
            let frame = [PREFIXES[prefix], &tail].concat();
            match locate(link, &frame) {
                Network::Ip(at) => prop_assert!(at < frame.len()),
                Network::NotIp => {}
                Network::OtherLink => prop_assert!(false, "{link} is decoded"),
            }
        }
    }

    #[test]
    fn ipoib_pseudo_header_then_ethertype() {
        let ib = |ethertype: u16, payload: &[u8]| {
            let mut f = vec![0; 40];
            f.extend(ethertype.to_be_bytes());
            f.extend([0, 0]);
            f.extend(payload);
            f
        };
        assert_eq!(locate(242, &ib(0x0800, &IPV4)), Network::Ip(44));
        assert_eq!(locate(242, &ib(0x86dd, &IPV6)), Network::Ip(44));
        assert_eq!(locate(242, &ib(0x0800, &IPV6)), Network::Ip(44));
        assert_eq!(locate(242, &ib(0x86dd, &IPV4)), Network::NotIp);
        // ARP; a VLAN tag (not followed); nothing after the header.
        assert_eq!(locate(242, &ib(0x0806, &[0; 28])), Network::NotIp);
        let tagged = [&[0x00, 0x05, 0x08, 0x00][..], &IPV4].concat();
        assert_eq!(locate(242, &ib(0x8100, &tagged)), Network::NotIp);
        assert_eq!(locate(242, &ib(0x0800, &[])), Network::NotIp);
        assert_eq!(locate(242, &[0; 41]), Network::NotIp);
    }

    #[test]
    fn arcnet_bsd_and_linux_headers() {
        // Linux: source, destination, offset, protocol ID.
        assert_eq!(locate(129, &[1, 2, 0, 0, 240, 0x45]), Network::Ip(5));
        assert_eq!(
            locate(129, &[1, 2, 0, 0, 212, 0, 0, 1, 0x45]),
            Network::Ip(8)
        );
        assert_eq!(
            locate(129, &[1, 2, 0, 0, 212, 0, 0, 1, 0x60]),
            Network::Ip(8)
        );
        // No exception frames on Linux: 0xff is a split flag.
        assert_eq!(
            locate(129, &[1, 2, 0, 0, 212, 0xff, 0, 1, 0x45]),
            Network::Ip(8)
        );
        // BSD: no offset field, exception frames.
        assert_eq!(locate(7, &[1, 2, 240, 0x45]), Network::Ip(3));
        assert_eq!(locate(7, &[1, 2, 212, 0, 0, 1, 0x45]), Network::Ip(6));
        assert_eq!(
            locate(7, &[1, 2, 212, 0xff, 0, 0, 212, 0, 0, 1, 0x45]),
            Network::Ip(10)
        );
        // ARP, IPv6 (not decoded by Wireshark 4.0), BACnet; cut short.
        assert_eq!(locate(129, &[1, 2, 0, 0, 213, 0, 0, 1, 0]), Network::NotIp);
        assert_eq!(
            locate(129, &[1, 2, 0, 0, 0xc4, 0, 0, 1, 0x60]),
            Network::NotIp
        );
        assert_eq!(locate(7, &[1, 2, 0xcd, 0x45]), Network::NotIp);
        assert_eq!(locate(7, &[1, 2, 212, 0, 0]), Network::NotIp);
        assert_eq!(locate(7, &[1, 2, 212, 0, 0, 1]), Network::NotIp);
        assert_eq!(locate(129, &[1, 2, 0]), Network::NotIp);
        assert_eq!(arcnet(&[1, 2, 212, 0xff, 0], false), None);
    }

    /// A Solaris IPNET frame of family `family`: the header, `gap` bytes,
    /// then `packet`, whose length the header holds.
    fn ipnet(family: u8, gap: usize, packet: &[u8]) -> Vec<u8> {
        let mut f = vec![1, family, 0, 0];
        f.extend((packet.len() as u32).to_be_bytes());
        f.resize(24 + gap, 0);
        f.extend(packet);
        f
    }

    #[test]
    fn ipnet_packet_at_the_end_of_the_frame() {
        assert_eq!(locate(226, &ipnet(2, 0, &IPV4)), Network::Ip(24));
        assert_eq!(locate(226, &ipnet(26, 0, &IPV6)), Network::Ip(24));
        assert_eq!(locate(226, &ipnet(2, 0, &IPV6)), Network::Ip(24));
        assert_eq!(locate(226, &ipnet(26, 0, &IPV4)), Network::NotIp);
        assert_eq!(locate(226, &ipnet(2, 4, &IPV4)), Network::Ip(28));
        assert_eq!(locate(226, &ipnet(7, 0, &IPV4)), Network::NotIp);
        // Cut by the snap length: the packet after the header.
        let mut cut = ipnet(2, 0, &[0x45; 40]);
        cut.truncate(30);
        assert_eq!(locate(226, &cut), Network::Ip(24));
        assert_eq!(locate(226, &ipnet(2, 0, &[])), Network::NotIp);
        assert_eq!(locate(226, &[1, 2, 0, 0, 0]), Network::NotIp);
    }

    /// A PKTAP frame: a header of length `len` whose record type is
    /// `record` and link type `link`, then `inner`.
    fn pktap(len: u32, record: u32, link: u32, inner: &[u8]) -> Vec<u8> {
        let mut f = len.to_le_bytes().to_vec();
        f.extend(record.to_le_bytes());
        f.extend(link.to_le_bytes());
        f.resize(len as usize, 0);
        f.extend(inner);
        f
    }

    #[test]
    fn pktap_inner_frames() {
        for link in [258, 149] {
            let ether = pktap(108, 1, 1, &eth(&[], 0x0800, &IPV4));
            assert_eq!(locate(link, &ether), Network::Ip(108 + 14));
            let null = pktap(112, 1, 0, &[2, 0, 0, 0, 0x45]);
            assert_eq!(locate(link, &null), Network::Ip(116));
            assert_eq!(locate(link, &pktap(108, 1, 101, &IPV6)), Network::Ip(108));
            // Not a packet; a header too short; an inner link type not
            // decoded; PKTAP in PKTAP; a length past the frame.
            assert_eq!(locate(link, &pktap(108, 2, 101, &IPV6)), Network::NotIp);
            assert_eq!(locate(link, &pktap(100, 1, 101, &IPV6)), Network::NotIp);
            assert_eq!(locate(link, &pktap(108, 1, 147, &IPV6)), Network::NotIp);
            assert_eq!(locate(link, &pktap(108, 1, 1 << 16, &IPV6)), Network::NotIp);
            let nested = pktap(108, 1, 258, &pktap(108, 1, 101, &IPV4));
            assert_eq!(locate(link, &nested), Network::NotIp);
            let mut long = pktap(108, 1, 101, &IPV4);
            long[0] = 200;
            assert_eq!(locate(link, &long), Network::NotIp);
            assert_eq!(locate(link, &[108, 0, 0]), Network::NotIp);
        }
    }

    #[test]
    fn arista_timestamps_before_the_ethertype() {
        let avsp = |header: &[u8], ethertype: u16, payload: &[u8]| {
            let inner = [header, &ethertype.to_be_bytes(), payload].concat();
            eth(&[], 0xd28b, &inner)
        };
        // TAI (0x0010, 0x0020) and UTC (0x0110, 0x0120) timestamps.
        for utc in [0, 1] {
            let header = [0, 1, utc, 0x10, 0, 0, 0, 0, 0, 0, 0, 0];
            assert_eq!(locate(1, &avsp(&header, 0x0800, &IPV4)), Network::Ip(28));
            let short = [0, 1, utc, 0x20, 0, 0, 0, 0, 0, 0];
            assert_eq!(locate(1, &avsp(&short, 0x86dd, &IPV6)), Network::Ip(26));
        }
        // VLAN and MPLS after it; another subtype; an unknown version.
        let tagged = [&[0, 5, 0x88, 0x47][..], &label(3, true), &IPV4].concat();
        let header = [0, 1, 0, 0x20, 0, 0, 0, 0, 0, 0];
        assert_eq!(locate(1, &avsp(&header, 0x8100, &tagged)), Network::Ip(34));
        assert_eq!(locate(1, &avsp(&[0, 2], 0x0800, &IPV4)), Network::Ip(18));
        let unknown = [0, 1, 0, 0x11, 0, 0, 0, 0, 0, 0, 0, 0];
        assert_eq!(locate(1, &avsp(&unknown, 0x0800, &IPV4)), Network::NotIp);
        assert_eq!(
            locate(1, &eth(&[], 0xd28b, &[0, 1, 0, 0x10, 0])),
            Network::NotIp
        );
        // In a Linux cooked capture too.
        let mut sll = vec![0, 0, 0, 1, 0, 6, 1, 2, 3, 4, 5, 6, 0, 0, 0xd2, 0x8b];
        sll.extend([0, 2, 0x08, 0x00, 0x45]);
        assert_eq!(locate(113, &sll), Network::Ip(20));
    }

    #[test]
    fn raw_ipv6_takes_version_6_only() {
        assert_eq!(locate(229, &IPV6), Network::Ip(0));
        assert_eq!(locate(229, &IPV4), Network::NotIp);
        assert_eq!(locate(229, &[0x50]), Network::NotIp);
        assert_eq!(locate(229, &[]), Network::NotIp);
    }

    #[test]
    fn loopback_families_in_either_byte_order() {
        assert_eq!(locate(0, &[2, 0, 0, 0, 0x45]), Network::Ip(4));
        assert_eq!(locate(0, &[0, 0, 0, 2, 0x45]), Network::Ip(4));
        for family in [24u32, 28, 30] {
            let mut le = family.to_le_bytes().to_vec();
            le.push(0x60);
            assert_eq!(locate(0, &le), Network::Ip(4));
            let mut be = family.to_be_bytes().to_vec();
            be.push(0x60);
            assert_eq!(locate(0, &be), Network::Ip(4));
            assert_eq!(locate(108, &be), Network::Ip(4));
        }
        assert_eq!(locate(108, &[2, 0, 0, 0, 0x45]), Network::NotIp);
        // The family and the version disagree; an unknown family.
        assert_eq!(locate(0, &[2, 0, 0, 0, 0x60]), Network::NotIp);
        assert_eq!(locate(0, &[7, 0, 0, 0, 0x45]), Network::NotIp);
        assert_eq!(locate(0, &[2, 0]), Network::NotIp);
    }
}
