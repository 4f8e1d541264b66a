//! Link layers: where the IP packet starts in a frame.
//!
//! | LINKTYPE | what | the network protocol |
//! |---|---|---|
//! | 1 | Ethernet, with any stack of 802.1Q (0x8100), 802.1ad (0x88a8) and old QinQ (0x9100) tags | the EtherType |
//! | 113 | Linux cooked capture (SLL), 16-byte header | the protocol field at 14, an EtherType (VLAN tags followed) |
//! | 276 | Linux cooked capture v2 (SLL2), 20-byte header | the protocol field at 0 |
//! | 101, 228, 229 | raw IP, IPv4, IPv6 | the version field (as Wireshark: an IPv6 packet on a 228 link is IPv6) |
//! | 12, 14 | DLT_RAW of some systems, written as is by old libpcaps | raw IP if the version field says 4 or 6; otherwise 12 is OpenBSD's DLT_LOOP |
//! | 0 | BSD loopback (DLT_NULL): a 4-byte address family in the byte order of the machine that captured, which need not be the file's | AF_INET 2; AF_INET6 24, 28 or 30 (NetBSD/OpenBSD, FreeBSD, Darwin), as Wireshark |
//! | 108 | OpenBSD loopback (DLT_LOOP): the same family, big-endian | the same |

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

/// ARPHRD_NETLINK: an SLL header whose protocol field is a netlink family.
const ARPHRD_NETLINK: u16 = 824;

/// Where the IP packet of a frame of link type `link` starts.
pub fn locate(link: u16, frame: &[u8]) -> Network {
    match link {
        1 => ethernet(frame),
        113 => match (be16(frame, 2), be16(frame, 14)) {
            (Some(ARPHRD_NETLINK), _) | (_, None) => Network::NotIp,
            (_, Some(protocol)) => ethertype(frame, protocol, 16),
        },
        276 => match (be16(frame, 8), be16(frame, 0)) {
            (Some(ARPHRD_NETLINK), _) | (None, _) | (_, None) => Network::NotIp,
            (_, Some(protocol)) => ethertype(frame, protocol, 20),
        },
        101 | 228 | 229 => raw(frame),
        12 => match raw(frame) {
            Network::NotIp => family(frame, true),
            ip => ip,
        },
        14 => raw(frame),
        0 => family(frame, false),
        108 => family(frame, true),
        _ => Network::OtherLink,
    }
}

/// An Ethernet frame: destination, source, EtherType, VLAN tags.
pub fn ethernet(frame: &[u8]) -> Network {
    match be16(frame, 12) {
        Some(protocol) => ethertype(frame, protocol, 14),
        None => Network::NotIp,
    }
}

/// The network protocol `protocol` at `offset`, after any VLAN tags (each a
/// 2-byte tag control and the next EtherType).
fn ethertype(frame: &[u8], mut protocol: u16, mut offset: usize) -> Network {
    // Every tag takes 4 bytes of the frame: the loop ends.
    while matches!(
        protocol,
        ETHERTYPE_VLAN | ETHERTYPE_QINQ | ETHERTYPE_QINQ_OLD
    ) {
        match be16(frame, offset + 2) {
            Some(next) => (protocol, offset) = (next, offset + 4),
            None => return Network::NotIp,
        }
    }
    match protocol {
        ETHERTYPE_IPV4 | ETHERTYPE_IPV6 if offset < frame.len() => Network::Ip(offset),
        _ => Network::NotIp,
    }
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

fn be16(data: &[u8], at: usize) -> Option<u16> {
    let bytes = data.get(at..)?.first_chunk::<2>()?;
    Some(u16::from_be_bytes(*bytes))
}

#[cfg(test)]
mod tests {
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
