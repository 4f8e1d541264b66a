//! `fastpath pcap verify` and `fastpath pcap fix`, run as the binary on
//! captures built byte by byte (tests/capture): every link type, VLAN
//! stacks, IPv4 options, IPv6 extension headers, fragments, UDP's zero,
//! snap lengths, padding, tunnels, pcap in both resolutions and byte
//! orders, pcapng in both byte orders with blocks of every kind.
//!
//! Each case is a frame as captured, the frame `fix` must make of it (the
//! same frame built with right checksums where they are verifiable), and the
//! JSON lines `verify` must print for it. `FASTPATH_PCAP_SAMPLES=DIR` writes
//! the captures (and their fixed copies) to DIR, for `.ci/tshark-check.sh`.

mod capture;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use capture::*;

/// One frame: as captured, as fix must leave it, and what verify reports:
/// (depth, protocol, status) for each JSON line.
struct Case {
    name: &'static str,
    input: Frame,
    fixed: Frame,
    expect: Vec<(u8, &'static str, &'static str)>,
}

fn case(
    name: &'static str,
    link: u16,
    input: Vec<u8>,
    fixed: Vec<u8>,
    expect: &[(u8, &'static str, &'static str)],
) -> Case {
    Case {
        name,
        input: frame(link, input),
        fixed: frame(link, fixed),
        expect: expect.to_vec(),
    }
}

/// A case whose frame fix leaves as it is.
fn same(
    name: &'static str,
    link: u16,
    bytes: Vec<u8>,
    expect: &[(u8, &'static str, &'static str)],
) -> Case {
    case(name, link, bytes.clone(), bytes, expect)
}

const GOOD4: (u8, &str, &str) = (0, "ipv4", "good");

fn payload(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 7 + 3) as u8).collect()
}

/// GRE with a checksum and a key, right for its content.
fn gre_with_checksum(protocol: u16, inner: &[u8]) -> Vec<u8> {
    let mut g = vec![0xa0, 0x00];
    g.extend(protocol.to_be_bytes());
    g.extend([0, 0, 0, 0, 0, 0, 0, 42]);
    g.extend(inner);
    let value = checksum(&g);
    g[4..6].copy_from_slice(&value.to_be_bytes());
    g
}

fn vxlan(inner_ethernet: &[u8]) -> Vec<u8> {
    let mut payload = vec![0x08, 0, 0, 0, 0, 0, 0x01, 0];
    payload.extend(inner_ethernet);
    ipv4(17, &udp_ports(&A4, 50000, 4789, &payload))
}

/// Geneve to port 6081: protocol type `protocol`, VNI 42, `options` (4-byte
/// words), then `inner`.
fn geneve(protocol: u16, options: &[u8], inner: &[u8]) -> Vec<u8> {
    let mut payload = vec![(options.len() / 4) as u8, 0];
    payload.extend(protocol.to_be_bytes());
    payload.extend([0, 0, 42, 0]);
    payload.extend(options);
    payload.extend(inner);
    ipv4(17, &udp_ports(&A4, 50000, 6081, &payload))
}

/// GTP-U version 1 from port `ports.0` to `ports.1`: the `flags` E, S, PN
/// (0x04, 0x02, 0x01), message type `message`, TEID 1, then `rest` (the
/// optional fields, extension headers, the user packet).
fn gtp_u(ports: (u16, u16), flags: u8, message: u8, rest: &[u8]) -> Vec<u8> {
    let mut payload = vec![0x30 | flags, message];
    payload.extend((rest.len() as u16).to_be_bytes());
    payload.extend([0, 0, 0, 1]);
    payload.extend(rest);
    ipv4(17, &udp_ports(&A4, ports.0, ports.1, &payload))
}

/// IPv6 extension headers: Hop-by-Hop, Routing type 2 (one address, one
/// segment left: the final destination), an atomic Fragment header, then
/// Destination Options; the upper layer is `last`.
fn extension_chain(final_destination: [u8; 16], last: u8) -> Vec<u8> {
    let mut e = vec![43, 0, 1, 4, 0, 0, 0, 0]; // Hop-by-Hop: PadN
    e.extend([44, 2, 2, 1, 0, 0, 0, 0]); // Routing type 2, segments left 1
    e.extend(final_destination);
    e.extend([60, 0, 0, 0, 0, 0, 0x12, 0x34]); // Fragment: offset 0, M clear
    e.extend([last, 0, 1, 4, 0, 0, 0, 0]); // Destination Options: PadN
    e
}

/// An IPv6 Fragment header then `data`: `offset` in 8-byte units.
fn ipv6_fragment(offset: u16, more: bool, data: &[u8]) -> Vec<u8> {
    let field = offset << 3 | u16::from(more);
    let mut e = vec![17, 0];
    e.extend(field.to_be_bytes());
    e.extend([0, 0, 0x56, 0x78]);
    ipv6_with(44, &e, data)
}

fn ethernet_cases() -> Vec<Case> {
    let data = payload(100);
    let v4_tcp = ipv4(6, &tcp(&A4, &data));
    let v4_udp = ipv4(17, &udp(&A4, &data));
    let v4_icmp = ipv4(1, &icmp(&data));
    let v6_tcp = ipv6(6, &tcp(&A6, &data));
    let v6_udp = ipv6(17, &udp(&A6, &data));
    let v6_icmp = ipv6(58, &icmpv6(&A6, &data));
    let options = [0x94, 0x04, 0x00, 0x00, 0x01, 0x01, 0x01, 0x00];
    let v4_options = ipv4_with(6, &options, 0x4000, &tcp(&A4, &data));
    let home = [
        0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x99,
    ];
    let routed = Addresses::V6(
        [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1],
        home,
    );
    let v6_chain = ipv6_with(0, &extension_chain(home, 17), &udp(&routed, &data));
    let chain_udp = 40 + 48 + 6;
    let whole_udp = udp(&A4, &payload(200));
    let first_fragment = ipv4_with(17, &[], 0x2000, &whole_udp[..80]);
    let later_fragment = ipv4_with(17, &[], 10, &whole_udp[80..]);
    let v6_whole = udp(&A6, &payload(200));
    let v6_first = ipv6_fragment(0, true, &v6_whole[..80]);
    let v6_later = ipv6_fragment(10, false, &v6_whole[80..]);
    let small_udp = ipv4(17, &udp(&A4, b"hi"));
    let small_v6 = ipv6(17, &udp(&A6, b"hi"));

    // Tunnels.
    let inner_tcp = ipv4(6, &tcp(&A4, &data));
    let ipip = |inner: &[u8]| ipv4(4, inner);
    let inner_v6 = ipv6(17, &udp(&A6, &data));
    let inner_udp = ipv4(17, &udp(&A4, &data));
    let gre = |inner: &[u8]| ipv4(47, &gre_with_checksum(0x0800, inner));
    let mut teb = vec![0x00, 0x00, 0x65, 0x58];
    teb.extend(eth(&v6_icmp));
    let inner_eth_tcp = eth(&inner_tcp);
    let inner_eth_bad = eth(&spoil(inner_tcp.clone(), 36));
    // Two Geneve options: OVN's, critical, 4 bytes; Linux's, 8 bytes.
    let geneve_options = [
        0x01, 0x02, 0x80, 0x01, 0, 0, 0, 7, 0x01, 0x00, 0x01, 0x02, 1, 2, 3, 4, 5, 6, 7, 8,
    ];
    let tagged = |ip: &[u8]| ethernet(&[0x8100], 0x0800, ip);
    let gtp_port = (50000, 2152);
    // Sequence number 1, N-PDU number 0, next extension header: a PDU
    // Session Container (0x85), 4 bytes, uplink, QFI 9, then none.
    let gtp_optional = [0, 1, 0, 0x85, 1, 0x10, 0x09, 0];
    let with_optional = |inner: &[u8]| [&gtp_optional[..], inner].concat();
    // A PDU Session Container of 8 bytes, then a PDCP PDU Number (0xc0).
    let gtp_two_extensions = [
        0, 2, 0, 0x85, 2, 0x00, 0x09, 0, 0, 0, 0, 0xc0, 1, 0x00, 0x05, 0,
    ];
    let v4_long_header = ipv4_with(6, &[1; 40], 0x4000, &tcp(&A4, &data));

    // MPLS and PPPoE.
    let label = |ip: &[u8]| ethernet(&[], 0x8847, &mpls(&[100], ip));
    let mut mpls_padded = ethernet(&[], 0x8847, &mpls(&[0], &small_udp));
    mpls_padded.resize(60, 0xee);
    // An Ethernet pseudowire with a control word (flags 0, sequence
    // number 7), of locally administered addresses: Wireshark 4.0 guesses
    // the control word, as their bytes are no addresses of known vendors.
    let with_control_word = |ip: &[u8]| {
        let inner = ethernet_between(
            [0x02, 0x00, 0x5e, 0x00, 0x53, 0x02],
            [0x02, 0x00, 0x5e, 0x00, 0x53, 0x01],
            0x0800,
            ip,
        );
        ethernet(
            &[],
            0x8847,
            &mpls(&[300], &[&[0, 0, 0, 7][..], &inner].concat()),
        )
    };
    // Without a control word, between addresses of a known vendor (Intel),
    // as Wireshark 4.0 takes them.
    let without_control_word = |ip: &[u8]| {
        let inner = ethernet_between(
            [0x00, 0x1b, 0x21, 0x00, 0x00, 0x02],
            [0x00, 0x1b, 0x21, 0x00, 0x00, 0x01],
            0x86dd,
            ip,
        );
        ethernet(&[], 0x8847, &mpls(&[300, 301], &inner))
    };
    let session = |ip: &[u8]| ethernet(&[], 0x8864, &pppoe(0x0021, ip));

    let mut cases = vec![
        same("ipv4 tcp", 1, eth(&v4_tcp), &[GOOD4, (0, "tcp", "good")]),
        case(
            "ipv4 tcp, bad tcp",
            1,
            eth(&spoil(v4_tcp.clone(), 36)),
            eth(&v4_tcp),
            &[GOOD4, (0, "tcp", "bad")],
        ),
        same("ipv4 udp", 1, eth(&v4_udp), &[GOOD4, (0, "udp", "good")]),
        same(
            "ipv4 udplite, coverage 8",
            1,
            eth(&ipv4(136, &udplite(&A4, 8, &data))),
            &[GOOD4, (0, "udplite", "good")],
        ),
        case(
            "ipv4 udplite, coverage 20, bad",
            1,
            eth(&ipv4(136, &spoil(udplite(&A4, 20, &data), 6))),
            eth(&ipv4(136, &udplite(&A4, 20, &data))),
            &[GOOD4, (0, "udplite", "bad")],
        ),
        same(
            "ipv4 udplite, coverage 4: unverified",
            1,
            eth(&ipv4(136, &udplite(&A4, 4, &data))),
            &[GOOD4, (0, "udplite", "unverified")],
        ),
        same(
            "ipv6 udplite, whole",
            1,
            eth(&ipv6(136, &udplite(&A6, 0, &data))),
            &[(0, "udplite", "good")],
        ),
        case(
            "ipv6 udplite zero: illegal",
            1,
            eth(&ipv6(136, &set16(udplite(&A6, 0, &data), 6, 0))),
            eth(&ipv6(136, &udplite(&A6, 0, &data))),
            &[(0, "udplite", "illegal")],
        ),
        case(
            "ipv4 udp, both bad",
            1,
            eth(&spoil(spoil(v4_udp.clone(), 10), 26)),
            eth(&v4_udp),
            &[(0, "ipv4", "bad"), (0, "udp", "bad")],
        ),
        same(
            "ipv4 udp zero: absent",
            1,
            eth(&set16(v4_udp.clone(), 26, 0)),
            &[GOOD4, (0, "udp", "absent")],
        ),
        same("icmp", 1, eth(&v4_icmp), &[GOOD4, (0, "icmp", "good")]),
        case(
            "icmp, bad",
            1,
            eth(&spoil(v4_icmp.clone(), 22)),
            eth(&v4_icmp),
            &[GOOD4, (0, "icmp", "bad")],
        ),
        same("ipv6 tcp", 1, eth(&v6_tcp), &[(0, "tcp", "good")]),
        case(
            "ipv6 tcp, bad",
            1,
            eth(&spoil(v6_tcp.clone(), 56)),
            eth(&v6_tcp),
            &[(0, "tcp", "bad")],
        ),
        same("ipv6 udp", 1, eth(&v6_udp), &[(0, "udp", "good")]),
        case(
            "ipv6 udp, bad",
            1,
            eth(&spoil(v6_udp.clone(), 46)),
            eth(&v6_udp),
            &[(0, "udp", "bad")],
        ),
        case(
            "ipv6 udp zero: illegal",
            1,
            eth(&set16(v6_udp.clone(), 46, 0)),
            eth(&v6_udp),
            &[(0, "udp", "illegal")],
        ),
        same("icmpv6", 1, eth(&v6_icmp), &[(0, "icmpv6", "good")]),
        case(
            "icmpv6, bad",
            1,
            eth(&spoil(v6_icmp.clone(), 42)),
            eth(&v6_icmp),
            &[(0, "icmpv6", "bad")],
        ),
        case(
            "ipv4 options, bad tcp",
            1,
            eth(&spoil(v4_options.clone(), 44)),
            eth(&v4_options),
            &[GOOD4, (0, "tcp", "bad")],
        ),
        case(
            "ipv4 options, bad header",
            1,
            eth(&spoil(v4_options.clone(), 10)),
            eth(&v4_options),
            &[(0, "ipv4", "bad"), (0, "tcp", "good")],
        ),
        same(
            "ipv6 extension headers, routing type 2",
            1,
            eth(&v6_chain),
            &[(0, "udp", "good")],
        ),
        case(
            "ipv6 extension headers, bad udp",
            1,
            eth(&spoil(v6_chain.clone(), chain_udp)),
            eth(&v6_chain),
            &[(0, "udp", "bad")],
        ),
        same(
            "ipv4 first fragment",
            1,
            eth(&first_fragment),
            &[GOOD4, (0, "udp", "unverified")],
        ),
        same("ipv4 later fragment", 1, eth(&later_fragment), &[GOOD4]),
        case(
            "ipv4 later fragment, bad header",
            1,
            eth(&spoil(later_fragment.clone(), 10)),
            eth(&later_fragment),
            &[(0, "ipv4", "bad")],
        ),
        same(
            "ipv6 first fragment",
            1,
            eth(&v6_first),
            &[(0, "udp", "unverified")],
        ),
        same("ipv6 later fragment", 1, eth(&v6_later), &[]),
        same(
            "padding",
            1,
            eth_padded(&small_udp),
            &[GOOD4, (0, "udp", "good")],
        ),
        case(
            "padding, bad udp",
            1,
            eth_padded(&spoil(small_udp.clone(), 26)),
            eth_padded(&small_udp),
            &[GOOD4, (0, "udp", "bad")],
        ),
        same(
            "ipv6 padding",
            1,
            eth_padded(&small_v6),
            &[(0, "udp", "good")],
        ),
        case(
            "802.1ad + 802.1Q, bad udp",
            1,
            ethernet(&[0x88a8, 0x8100], 0x0800, &spoil(v4_udp.clone(), 26)),
            ethernet(&[0x88a8, 0x8100], 0x0800, &v4_udp),
            &[GOOD4, (0, "udp", "bad")],
        ),
        same(
            "802.1Q ipv6",
            1,
            ethernet(&[0x8100], 0x86dd, &v6_tcp),
            &[(0, "tcp", "good")],
        ),
        same(
            "three tags",
            1,
            ethernet(&[0x88a8, 0x8100, 0x8100], 0x0800, &v4_icmp),
            &[GOOD4, (0, "icmp", "good")],
        ),
        same("arp: not ip", 1, ethernet(&[], 0x0806, &[0; 28]), &[]),
        case(
            "mpls, bad tcp",
            1,
            label(&spoil(v4_tcp.clone(), 36)),
            label(&v4_tcp),
            &[GOOD4, (0, "tcp", "bad")],
        ),
        case(
            "mpls, two labels, ipv6, bad udp",
            1,
            ethernet(&[], 0x8847, &mpls(&[100, 200], &spoil(v6_udp.clone(), 46))),
            ethernet(&[], 0x8847, &mpls(&[100, 200], &v6_udp)),
            &[(0, "udp", "bad")],
        ),
        same(
            "802.1Q, mpls multicast, four labels",
            1,
            ethernet(&[0x8100], 0x8848, &mpls(&[16, 17, 18, 19], &v4_icmp)),
            &[GOOD4, (0, "icmp", "good")],
        ),
        same(
            "mpls, explicit null label, padding",
            1,
            mpls_padded,
            &[GOOD4, (0, "udp", "good")],
        ),
        case(
            "mpls pseudowire, control word, bad udp",
            1,
            with_control_word(&spoil(v4_udp.clone(), 26)),
            with_control_word(&v4_udp),
            &[GOOD4, (0, "udp", "bad")],
        ),
        case(
            "mpls pseudowire, no control word, bad tcp",
            1,
            without_control_word(&spoil(v6_tcp.clone(), 56)),
            without_control_word(&v6_tcp),
            &[(0, "tcp", "bad")],
        ),
        same(
            "mpls, generic associated channel: not ip",
            1,
            ethernet(&[], 0x8847, &mpls(&[13], &v4_tcp)),
            &[],
        ),
        same(
            "mpls, oam alert: not ip",
            1,
            ethernet(&[], 0x8847, &mpls(&[100, 14], &v4_tcp)),
            &[],
        ),
        case(
            "pppoe session, bad tcp",
            1,
            session(&spoil(v4_tcp.clone(), 36)),
            session(&v4_tcp),
            &[GOOD4, (0, "tcp", "bad")],
        ),
        same(
            "802.1Q, pppoe session, ipv6",
            1,
            ethernet(&[0x8100], 0x8864, &pppoe(0x0057, &v6_udp)),
            &[(0, "udp", "good")],
        ),
        same(
            "pppoe discovery: not ip",
            1,
            ethernet(&[], 0x8863, &pppoe(0x0021, &v4_tcp)),
            &[],
        ),
        same(
            "ipv6 ethertype, ipv4 packet: not ip",
            1,
            ethernet(&[], 0x86dd, &v4_tcp),
            &[],
        ),
        same(
            "ipv4 header cut after its checksum",
            1,
            ethernet(&[], 0x0800, &[0x45; 12]),
            &[(0, "ipv4", "unverified")],
        ),
        same(
            "ipv4 header length below 5",
            1,
            ethernet(&[], 0x0800, &[0x44; 40]),
            &[],
        ),
        case(
            "ip in ip, bad inner tcp",
            1,
            eth(&ipip(&spoil(inner_tcp.clone(), 36))),
            eth(&ipip(&inner_tcp)),
            &[GOOD4, (1, "ipv4", "good"), (1, "tcp", "bad")],
        ),
        case(
            "ip in ip, bad inner header",
            1,
            eth(&ipip(&spoil(inner_tcp.clone(), 10))),
            eth(&ipip(&inner_tcp)),
            &[GOOD4, (1, "ipv4", "bad"), (1, "tcp", "good")],
        ),
        same(
            "ipv6 in ipv4",
            1,
            eth(&ipv4(41, &inner_v6)),
            &[GOOD4, (1, "udp", "good")],
        ),
        case(
            "gre with checksum, bad inner udp",
            1,
            eth(&gre(&spoil(inner_udp.clone(), 26))),
            eth(&gre(&inner_udp)),
            &[GOOD4, (1, "ipv4", "good"), (1, "udp", "bad")],
        ),
        same(
            "gre, ethernet",
            1,
            eth(&ipv4(47, &teb)),
            &[GOOD4, (1, "icmpv6", "good")],
        ),
        case(
            "erspan type ii, bad inner tcp",
            1,
            eth(&ipv4(
                47,
                &[
                    &[0x10, 0, 0x88, 0xbe, 0, 0, 0, 7, 0x10, 5, 0, 1, 0, 0, 0, 0][..],
                    &eth(&spoil(inner_tcp.clone(), 36)),
                ]
                .concat(),
            )),
            eth(&ipv4(
                47,
                &[
                    &[0x10, 0, 0x88, 0xbe, 0, 0, 0, 7, 0x10, 5, 0, 1, 0, 0, 0, 0][..],
                    &eth(&inner_tcp),
                ]
                .concat(),
            )),
            &[GOOD4, (1, "ipv4", "good"), (1, "tcp", "bad")],
        ),
        same(
            "erspan type i",
            1,
            eth(&ipv4(
                47,
                &[&[0, 0, 0x88, 0xbe][..], &eth(&inner_udp)].concat(),
            )),
            &[GOOD4, (1, "ipv4", "good"), (1, "udp", "good")],
        ),
        same(
            "erspan type iii with subheader",
            1,
            eth(&ipv4(
                47,
                &[
                    &[0x10, 0, 0x22, 0xeb, 0, 0, 0, 7][..],
                    &[0x20, 5, 0, 1, 0x12, 0x34, 0x56, 0x78, 0, 0, 0, 1],
                    &[8, 0, 0, 0, 0, 0, 0, 9],
                    &ethernet(&[0x8100], 0x86dd, &inner_v6),
                ]
                .concat(),
            )),
            &[GOOD4, (1, "udp", "good")],
        ),
        case(
            "icmp error quoting a bad ipv4 header",
            1,
            eth(&ipv4(1, &{
                let m = [
                    &[3, 3, 0, 0, 0, 0, 0, 0][..],
                    &spoil(inner_udp.clone(), 10)[..28],
                ]
                .concat();
                let value = checksum(&m);
                set16(m, 2, value)
            })),
            eth(&ipv4(1, &{
                let m = [&[3, 3, 0, 0, 0, 0, 0, 0][..], &inner_udp[..28]].concat();
                let value = checksum(&m);
                set16(m, 2, value)
            })),
            &[
                GOOD4,
                (0, "icmp", "good"),
                (1, "ipv4", "bad"),
                (1, "udp", "unverified"),
            ],
        ),
        case(
            "icmp error quoting a whole bad tcp segment",
            1,
            eth(&ipv4(1, &{
                let m = [
                    &[11, 0, 0, 0, 0, 0, 0, 0][..],
                    &spoil(inner_tcp.clone(), 36),
                ]
                .concat();
                let value = checksum(&m);
                set16(m, 2, value)
            })),
            eth(&ipv4(1, &{
                let m = [&[11, 0, 0, 0, 0, 0, 0, 0][..], &inner_tcp].concat();
                let value = checksum(&m);
                set16(m, 2, value)
            })),
            &[
                GOOD4,
                (0, "icmp", "good"),
                (1, "ipv4", "good"),
                (1, "tcp", "bad"),
            ],
        ),
        same(
            "icmpv6 error quoting udp with checksum 0",
            1,
            eth(&ipv6(58, &{
                let quoted = set16(inner_v6.clone(), 46, 0);
                let m = [&[1, 4, 0, 0, 0, 0, 0, 0][..], &quoted].concat();
                let Addresses::V6(s, d) = A6 else {
                    unreachable!()
                };
                let length = (m.len() as u32).to_be_bytes();
                let pseudo = [&s[..], &d, &length, &[0, 0, 0, 58], &m].concat();
                set16(m, 2, checksum(&pseudo))
            })),
            &[(0, "icmpv6", "good"), (1, "udp", "absent")],
        ),
        same(
            "vxlan",
            1,
            eth(&vxlan(&inner_eth_tcp)),
            &[
                GOOD4,
                (0, "udp", "good"),
                (1, "ipv4", "good"),
                (1, "tcp", "good"),
            ],
        ),
        case(
            "vxlan, bad inner tcp",
            1,
            eth(&vxlan(&inner_eth_bad)),
            eth(&vxlan(&inner_eth_tcp)),
            &[
                GOOD4,
                (0, "udp", "good"),
                (1, "ipv4", "good"),
                (1, "tcp", "bad"),
            ],
        ),
        same(
            "geneve, ethernet",
            1,
            eth(&geneve(0x6558, &[], &inner_eth_tcp)),
            &[
                GOOD4,
                (0, "udp", "good"),
                (1, "ipv4", "good"),
                (1, "tcp", "good"),
            ],
        ),
        case(
            "geneve with options, ipv4, bad inner tcp",
            1,
            eth(&geneve(
                0x0800,
                &geneve_options,
                &spoil(inner_tcp.clone(), 36),
            )),
            eth(&geneve(0x0800, &geneve_options, &inner_tcp)),
            &[
                GOOD4,
                (0, "udp", "good"),
                (1, "ipv4", "good"),
                (1, "tcp", "bad"),
            ],
        ),
        case(
            "geneve, 802.1q ethernet, bad inner udp",
            1,
            eth(&geneve(0x6558, &[], &tagged(&spoil(inner_udp.clone(), 26)))),
            eth(&geneve(0x6558, &[], &tagged(&inner_udp))),
            &[
                GOOD4,
                (0, "udp", "good"),
                (1, "ipv4", "good"),
                (1, "udp", "bad"),
            ],
        ),
        same(
            "geneve, ipv6, outer udp zero",
            1,
            eth(&set16(geneve(0x86dd, &[], &inner_v6), 26, 0)),
            &[GOOD4, (0, "udp", "absent"), (1, "udp", "good")],
        ),
        same(
            "gtp-u",
            1,
            eth(&gtp_u(gtp_port, 0, 0xff, &inner_tcp)),
            &[
                GOOD4,
                (0, "udp", "good"),
                (1, "ipv4", "good"),
                (1, "tcp", "good"),
            ],
        ),
        case(
            "gtp-u with a sequence number and an extension header, bad inner udp",
            1,
            eth(&gtp_u(
                gtp_port,
                0x06,
                0xff,
                &with_optional(&spoil(inner_udp.clone(), 26)),
            )),
            eth(&gtp_u(gtp_port, 0x06, 0xff, &with_optional(&inner_udp))),
            &[
                GOOD4,
                (0, "udp", "good"),
                (1, "ipv4", "good"),
                (1, "udp", "bad"),
            ],
        ),
        same(
            "gtp-u, two extension headers, ipv6, outer udp zero",
            1,
            eth(&set16(
                gtp_u(
                    gtp_port,
                    0x04,
                    0xff,
                    &[&gtp_two_extensions[..], &v6_icmp].concat(),
                ),
                26,
                0,
            )),
            &[GOOD4, (0, "udp", "absent"), (1, "icmpv6", "good")],
        ),
        case(
            "gtp-u from port 2152, a next type without the e flag, bad inner tcp",
            1,
            eth(&gtp_u(
                (2152, 40000),
                0x02,
                0xff,
                &[&[0, 1, 0, 0x85][..], &spoil(inner_tcp.clone(), 36)].concat(),
            )),
            eth(&gtp_u(
                (2152, 40000),
                0x02,
                0xff,
                &[&[0, 1, 0, 0x85][..], &inner_tcp].concat(),
            )),
            &[
                GOOD4,
                (0, "udp", "good"),
                (1, "ipv4", "good"),
                (1, "tcp", "bad"),
            ],
        ),
        same(
            "gtp-u, ethernet, as wireshark guesses",
            1,
            eth(&gtp_u(gtp_port, 0, 0xff, &inner_eth_tcp)),
            &[
                GOOD4,
                (0, "udp", "good"),
                (1, "ipv4", "good"),
                (1, "tcp", "good"),
            ],
        ),
        same(
            "gtp-u, ipv4 with a 60-byte header: ppp to wireshark",
            1,
            eth(&gtp_u(gtp_port, 0, 0xff, &v4_long_header)),
            &[GOOD4, (0, "udp", "good")],
        ),
        same(
            "gtp-u echo request: no user packet",
            1,
            eth(&gtp_u(gtp_port, 0x02, 0x01, &[0, 7, 0, 0, 14, 0])),
            &[GOOD4, (0, "udp", "good")],
        ),
    ];
    // Cut by the snap length: in the data, before the TCP checksum field,
    // inside the IPv4 header.
    let long = ipv4(6, &tcp(&A4, &payload(1000)));
    for (name, snaplen, expect) in [
        (
            "snap length in the data",
            100,
            &[GOOD4, (0, "tcp", "unverified")][..],
        ),
        (
            "snap length before the tcp checksum",
            14 + 20 + 10,
            &[GOOD4][..],
        ),
        ("snap length in the ipv4 header", 14 + 10, &[][..]),
    ] {
        let bad = eth(&spoil(long.clone(), 36));
        let mut c = same(name, 1, bad, expect);
        c.input.snaplen = Some(snaplen);
        c.fixed.snaplen = Some(snaplen);
        cases.push(c);
    }
    cases
}

/// Cases of the other link types: (link type, file name, cases).
fn link_cases() -> Vec<(u16, &'static str, Vec<Case>)> {
    let data = payload(60);
    let v4 = ipv4(6, &tcp(&A4, &data));
    let v4_bad = spoil(v4.clone(), 36);
    let v6 = ipv6(17, &udp(&A6, &data));
    let v6_bad = spoil(v6.clone(), 46);
    let bad4: &[(u8, &str, &str)] = &[GOOD4, (0, "tcp", "bad")];
    let good6: &[(u8, &str, &str)] = &[(0, "udp", "good")];
    let bad6: &[(u8, &str, &str)] = &[(0, "udp", "bad")];
    let pair = |link: u16, wrap: &dyn Fn(&[u8]) -> Vec<u8>| {
        vec![
            case("ipv4, bad tcp", link, wrap(&v4_bad), wrap(&v4), bad4),
            same("ipv6", link, wrap(&v6), good6),
            case("ipv6, bad udp", link, wrap(&v6_bad), wrap(&v6), bad6),
        ]
    };
    let ethertype = |ip: &[u8]| if ip[0] >> 4 == 4 { 0x0800 } else { 0x86dd };
    let v6_family = |ip: &[u8], family_v6: u32| if ip[0] >> 4 == 4 { 2 } else { family_v6 };
    let mut sll_cases = pair(113, &|ip| sll(ethertype(ip), ip));
    sll_cases.push(same("sll arp", 113, sll(0x0806, &[0; 28]), &[]));
    sll_cases.push(same(
        "sll vlan",
        113,
        sll(0x8100, &[&[0, 5, 0x86, 0xdd][..], &v6].concat()),
        good6,
    ));
    let mut null = pair(0, &|ip| family(v6_family(ip, 24), false, ip));
    null.extend(pair(0, &|ip| family(v6_family(ip, 30), true, ip)));
    null.push(same("freebsd ipv6", 0, family(28, false, &v6), good6));
    null.push(same("unknown family", 0, family(7, false, &v6), &[]));
    // PPP and Cisco HDLC.
    let ppp_protocol = |ip: &[u8]| if ip[0] >> 4 == 4 { 0x0021 } else { 0x0057 };
    let hdlc = |ip: &[u8]| [&[0xff, 0x03][..], &ppp(ppp_protocol(ip), ip)].concat();
    let mut ppp_cases = pair(9, &hdlc);
    ppp_cases.extend([
        case(
            "no address and control, compressed protocol, bad tcp",
            9,
            [&[0x21][..], &v4_bad].concat(),
            [&[0x21][..], &v4].concat(),
            bad4,
        ),
        same(
            "address and control, compressed protocol",
            9,
            [&[0xff, 0x03, 0x57][..], &v6].concat(),
            good6,
        ),
        same("no address and control", 9, ppp(0x0057, &v6), good6),
        same(
            "mpls",
            9,
            [&[0xff, 0x03][..], &ppp(0x0281, &mpls(&[100], &v6))].concat(),
            good6,
        ),
        same(
            "cisco hdlc on a ppp link, as wireshark",
            9,
            [&[0x0f, 0x00][..], &ppp(0x86dd, &v6)].concat(),
            good6,
        ),
        same(
            "lcp: not ip",
            9,
            [&[0xff, 0x03][..], &ppp(0xc021, &[1, 1, 0, 4])].concat(),
            &[],
        ),
    ]);
    let chdlc = |ip: &[u8]| [&[0x0f, 0x00][..], &ppp(ethertype(ip), ip)].concat();
    let mut chdlc_cases = pair(104, &chdlc);
    chdlc_cases.extend([
        same(
            "multicast, mpls",
            104,
            [&[0x8f, 0x00][..], &ppp(0x8847, &mpls(&[100], &v6))].concat(),
            good6,
        ),
        same(
            "ethernet",
            104,
            [&[0x0f, 0x00][..], &ppp(0x6558, &eth(&v6))].concat(),
            good6,
        ),
        same(
            "802.1Q: not ip, as wireshark",
            104,
            [&[0x0f, 0x00, 0x81, 0x00, 0x00, 0x05][..], &ppp(0x86dd, &v6)].concat(),
            &[],
        ),
    ]);
    let mut ppp_ether = pair(51, &|ip| pppoe(ppp_protocol(ip), ip));
    ppp_ether.push(same(
        "compressed protocol",
        51,
        [&pppoe(0x0021, &v4)[..6], &[0x21], &v4].concat(),
        &[GOOD4, (0, "tcp", "good")],
    ));
    // NFLOG: the family tells IP, or the EtherType of the packet header.
    let nflog_family = |ip: &[u8]| if ip[0] >> 4 == 4 { 2 } else { 10 };
    let mut nflog_cases = pair(239, &|ip| nflog(nflog_family(ip), 0, ip));
    nflog_cases.extend([
        case(
            "packet header, bad tcp",
            239,
            nflog(2, 0x0800, &v4_bad),
            nflog(2, 0x0800, &v4),
            bad4,
        ),
        same(
            "packet header over an unknown family",
            239,
            nflog(7, 0x86dd, &v6),
            good6,
        ),
        same("unknown family: not ip", 239, nflog(7, 0, &v6), &[]),
        same(
            "packet header, arp: not ip",
            239,
            nflog(2, 0x0806, &v4),
            &[],
        ),
    ]);
    // 802.11 data frames, after radiotap or not.
    let snap = |ip: &[u8]| llc_snap(ethertype(ip), ip);
    let mut radiotap_cases = pair(127, &|ip| {
        radiotap(None, &wlan(0x01, None, false, &snap(ip)))
    });
    // The frame check sequence at the end, the header padded from 32 to
    // 36 bytes, as the radiotap flags say.
    let padded = |ip: &[u8]| {
        let frame = [
            &wlan(0x03, Some(0x0005), true, &snap(ip))[..],
            &[1, 2, 3, 4],
        ]
        .concat();
        radiotap(Some(0x30), &frame)
    };
    // Mesh control: flags (one extended address), TTL, sequence number.
    let mesh = [
        &[0x01, 0x1f, 0x01, 0, 0, 0, 0x02, 0, 0, 0, 0, 0x05][..],
        &snap(&v6),
    ]
    .concat();
    radiotap_cases.extend([
        case(
            "qos, four addresses, padded, fcs, bad tcp",
            127,
            padded(&v4_bad),
            padded(&v4),
            bad4,
        ),
        same(
            "qos, ht control",
            127,
            radiotap(Some(0), &wlan(0x82, Some(0), false, &snap(&v6))),
            good6,
        ),
        same(
            "qos, mesh control",
            127,
            radiotap(None, &wlan(0x02, Some(0x0100), false, &mesh)),
            good6,
        ),
        same(
            "802.1H bridge tunnel, 802.1Q",
            127,
            radiotap(
                None,
                &wlan(
                    0x02,
                    None,
                    false,
                    &[
                        &[0xaa, 0xaa, 0x03, 0, 0, 0xf8, 0x81, 0x00, 0, 5][..],
                        &ppp(0x86dd, &v6),
                    ]
                    .concat(),
                ),
            ),
            good6,
        ),
        same(
            "protected: not ip",
            127,
            radiotap(None, &wlan(0x41, None, false, &snap(&v4))),
            &[],
        ),
        same(
            "management: not ip",
            127,
            radiotap(
                None,
                &[&[0x80, 0x00][..], &wlan(0, None, false, &snap(&v4))[2..]].concat(),
            ),
            &[],
        ),
    ]);
    vec![
        (113, "sll", sll_cases),
        (276, "sll2", pair(276, &|ip| sll2(ethertype(ip), ip))),
        (101, "raw", pair(101, &|ip| ip.to_vec())),
        (12, "dlt-raw-12", pair(12, &|ip| ip.to_vec())),
        (
            228,
            "ipv4",
            vec![
                case("ipv4, bad tcp", 228, v4_bad.clone(), v4.clone(), bad4),
                same("ipv6 on an ipv4 link, as wireshark", 228, v6.clone(), good6),
            ],
        ),
        (
            229,
            "ipv6",
            vec![case("ipv6, bad udp", 229, v6_bad.clone(), v6.clone(), bad6)],
        ),
        (0, "null", null),
        (
            108,
            "loop",
            pair(108, &|ip| family(v6_family(ip, 24), true, ip)),
        ),
        (9, "ppp", ppp_cases),
        (50, "ppp-hdlc", pair(50, &hdlc)),
        (
            204,
            "ppp-with-direction",
            pair(204, &|ip| [&[1][..], &hdlc(ip)].concat()),
        ),
        (104, "c-hdlc", chdlc_cases),
        (51, "ppp-ether", ppp_ether),
        (239, "nflog", nflog_cases),
        (127, "radiotap", radiotap_cases),
        (
            105,
            "ieee802-11",
            pair(105, &|ip| wlan(0x02, Some(0), false, &snap(ip))),
        ),
        (242, "ipoib", pair(242, &|ip| ipoib(ethertype(ip), ip))),
        (129, "arcnet-linux", pair(129, &|ip| arcnet(true, 212, ip))),
        (7, "arcnet-bsd", pair(7, &|ip| arcnet(false, 240, ip))),
        (
            226,
            "ipnet",
            pair(226, &|ip| ipnet(if ip[0] >> 4 == 4 { 2 } else { 26 }, ip)),
        ),
        (258, "pktap", pair(258, &|ip| pktap(1, &eth(ip)))),
        (192, "ppi", pair(192, &|ip| ppi(1, &eth(ip)))),
        (
            192,
            "ppi-ieee802-11",
            pair(192, &|ip| ppi(105, &wlan(0x02, Some(0), false, &snap(ip)))),
        ),
        (1, "fabricpath", pair(1, &|ip| fabricpath(false, &eth(ip)))),
        (
            1,
            "fabricpath-1ad",
            pair(1, &|ip| fabricpath(true, &eth(ip))),
        ),
        (
            1,
            "arista",
            pair(1, &|ip| {
                ethernet(&[], 0xd28b, &arista(0x0010, ethertype(ip), ip))
            }),
        ),
        (
            229,
            "ipv6-carrying-ipv4",
            vec![same(
                "ipv4 on an ipv6 link: not ip, as wireshark",
                229,
                v4.clone(),
                &[],
            )],
        ),
    ]
}

/// A capture file to test: its name, the bytes as captured and as fix
/// must make them, and the lines verify must print: (frame, depth, proto,
/// status).
struct Sample {
    name: String,
    input: Vec<u8>,
    fixed: Vec<u8>,
    lines: Vec<(u64, u8, String, String)>,
    /// The name of each frame's case, for messages.
    frames: Vec<&'static str>,
}

fn sample(name: String, format: Format, cases: &[&Case]) -> Sample {
    let input: Vec<Frame> = cases.iter().map(|c| c.input.clone()).collect();
    let fixed: Vec<Frame> = cases.iter().map(|c| c.fixed.clone()).collect();
    let mut lines = Vec::new();
    for (i, c) in cases.iter().enumerate() {
        // The pcapng writer puts a custom block after the first packet,
        // which is a frame too, as Wireshark numbers them.
        let number = i as u64 + 1 + u64::from(i > 0 && matches!(format, Format::PcapNg { .. }));
        for &(depth, proto, status) in &c.expect {
            lines.push((number, depth, proto.to_owned(), status.to_owned()));
        }
    }
    let frames = cases.iter().map(|c| c.name).collect();
    Sample {
        name,
        input: write(format, &input),
        fixed: write(format, &fixed),
        lines,
        frames,
    }
}

/// Every sample capture: the Ethernet cases in every format, each other
/// link type in a pcap file, and everything in one pcapng file with a
/// frame of a link type not decoded (USER0, 147).
fn samples() -> Vec<Sample> {
    let ethernet = ethernet_cases();
    let links = link_cases();
    let all: Vec<&Case> = ethernet.iter().collect();
    let mut samples: Vec<Sample> = FORMATS
        .iter()
        .map(|&format| {
            sample(
                format!("ethernet-{}.{}", format.name(), format.extension()),
                format,
                &all,
            )
        })
        .collect();
    let pcap = Format::Pcap {
        nanosecond: false,
        big_endian: false,
    };
    for (_, name, cases) in &links {
        let cases: Vec<&Case> = cases.iter().collect();
        samples.push(sample(format!("link-{name}.pcap"), pcap, &cases));
    }
    let user0 = same("link type 147", 147, eth(&ipv4(6, &tcp(&A4, b"x"))), &[]);
    let mut mixed: Vec<&Case> = vec![&user0];
    mixed.extend(links.iter().flat_map(|(_, _, cases)| cases));
    mixed.extend(&ethernet);
    for big_endian in [false, true] {
        let format = Format::PcapNg { big_endian };
        samples.push(sample(
            format!("mixed-{}.pcapng", format.name()),
            format,
            &mixed,
        ));
    }
    samples
}

// Running the binary.

/// A JSON line of verify: file, frame, depth, proto, status, stored,
/// computed.
type Line = (String, u64, u8, String, String, u16, u16);

/// A JSON line of verify, parsed.
fn parse_line(line: &str) -> Line {
    let v: serde_json::Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{line}: {e}"));
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys.len(), 7, "{line}");
    (
        v["file"].as_str().unwrap().to_owned(),
        v["frame"].as_u64().unwrap(),
        v["depth"].as_u64().unwrap() as u8,
        v["proto"].as_str().unwrap().to_owned(),
        v["status"].as_str().unwrap().to_owned(),
        v["stored"].as_u64().unwrap() as u16,
        v["computed"].as_u64().unwrap() as u16,
    )
}

fn verify_json(file: &Path) -> (Output, Vec<Line>) {
    let out = fastpath(&["pcap", "verify", "--json", path(file)]);
    let lines = String::from_utf8(out.stdout.clone())
        .unwrap()
        .lines()
        .map(parse_line)
        .collect();
    (out, lines)
}

fn write_samples(dir: &Path) -> Vec<(Sample, PathBuf)> {
    samples()
        .into_iter()
        .map(|s| {
            let file = dir.join(&s.name);
            fs::write(&file, &s.input).unwrap();
            (s, file)
        })
        .collect()
}

#[test]
fn verify_reports_every_case() {
    let dir = temp_dir("verify");
    for (sample, file) in write_samples(&dir) {
        let (out, lines) = verify_json(&file);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let got: Vec<_> = lines
            .iter()
            .map(|l| (l.1, l.2, l.3.clone(), l.4.clone()))
            .collect();
        assert_eq!(
            got, sample.lines,
            "{}: {stderr}\nframes: {:?}",
            sample.name, sample.frames
        );
        let any_bad = sample
            .lines
            .iter()
            .any(|l| l.3 == "bad" || l.3 == "illegal");
        assert_eq!(
            out.status.code(),
            Some(i32::from(any_bad)),
            "{}: {stderr}",
            sample.name
        );
        for (name, frame, depth, proto, status, stored, computed) in &lines {
            assert_eq!(name, path(&file));
            // Only a fix changes a field, and an outer checksum over a
            // tunnel whose inner packet is fixed.
            let changes = matches!(status.as_str(), "bad" | "illegal")
                || lines
                    .iter()
                    .any(|l| l.1 == *frame && l.2 > *depth && l.4 == "bad");
            if !changes {
                assert_eq!(stored, computed, "{}: frame {frame} {proto}", sample.name);
            } else if status != "good" {
                assert_ne!(stored, computed, "{}: frame {frame} {proto}", sample.name);
            }
        }
    }
    fs::remove_dir_all(dir).unwrap();
}

#[test]
fn fix_changes_only_checksums_and_then_verify_finds_none_bad() {
    let dir = temp_dir("fix");
    let samples_dir = std::env::var_os("FASTPATH_PCAP_SAMPLES").map(PathBuf::from);
    for (sample, file) in write_samples(&dir) {
        let fixed = dir.join(format!("fixed-{}", sample.name));
        let out = fastpath(&["pcap", "fix", path(&file), "-o", path(&fixed)]);
        assert!(
            out.status.success(),
            "{}: {}",
            sample.name,
            String::from_utf8_lossy(&out.stderr)
        );
        let summary = String::from_utf8(out.stdout).unwrap();
        assert!(summary.contains("fixed "), "{summary}");
        let bytes = fs::read(&fixed).unwrap();
        // Byte for byte what the same capture built right holds: every
        // other byte, every block, every frame's metadata as it was.
        assert_eq!(bytes.len(), sample.fixed.len(), "{}", sample.name);
        let differ: Vec<usize> = (0..bytes.len())
            .filter(|&i| bytes[i] != sample.fixed[i])
            .collect();
        assert!(
            differ.is_empty(),
            "{}: bytes {differ:?} differ",
            sample.name
        );
        let (out, lines) = verify_json(&fixed);
        assert_eq!(out.status.code(), Some(0), "{}", sample.name);
        assert!(
            lines.iter().all(|l| l.4 != "bad" && l.4 != "illegal"),
            "{}",
            sample.name
        );
        // A bad or illegal checksum now holds what verify computed; every
        // other one is as it was. But for an outer checksum over a tunnel
        // whose inner packet was fixed: verify computes it over the bytes
        // as captured, and fix keeps it right for the bytes as fixed.
        let (_, before) = verify_json(&file);
        assert_eq!(before.len(), lines.len(), "{}", sample.name);
        let wrong = |status: &str| matches!(status, "bad" | "illegal");
        for (b, a) in before.iter().zip(&lines) {
            assert_eq!((b.1, b.2, &b.3), (a.1, a.2, &a.3), "{}", sample.name);
            let inner_fixed = before
                .iter()
                .any(|l| l.1 == b.1 && l.2 > b.2 && wrong(&l.4));
            if inner_fixed {
                continue;
            }
            let expected = if wrong(&b.4) { b.6 } else { b.5 };
            assert_eq!(expected, a.5, "{}: {b:?}", sample.name);
        }
        if let Some(to) = &samples_dir {
            fs::create_dir_all(to).unwrap();
            fs::copy(&file, to.join(&sample.name)).unwrap();
            fs::copy(&fixed, to.join(format!("fixed-{}", sample.name))).unwrap();
        }
    }
    fs::remove_dir_all(dir).unwrap();
}

#[test]
fn fix_only_restricts_the_layers() {
    let dir = temp_dir("only");
    let good = ipv4(6, &tcp(&A4, &payload(40)));
    let bad = spoil(spoil(good.clone(), 10), 36);
    let udp_bad = spoil(ipv4(17, &udp(&A4, &payload(40))), 26);
    let pcap = |frames: &[Vec<u8>]| {
        capture::pcap(
            false,
            false,
            &frames.iter().map(|f| frame(1, eth(f))).collect::<Vec<_>>(),
        )
    };
    let input = dir.join("in.pcap");
    fs::write(&input, pcap(&[bad.clone(), udp_bad.clone()])).unwrap();
    let out_path = dir.join("out.pcap");
    let out = fastpath(&[
        "pcap",
        "fix",
        path(&input),
        "-o",
        path(&out_path),
        "--only",
        "ipv4,udp",
    ]);
    assert!(out.status.success());
    let summary = String::from_utf8(out.stdout).unwrap();
    assert!(
        summary.contains("fixed 2 checksums in 2 of 2 frames (ipv4 1, udp 1)"),
        "{summary}"
    );
    assert!(
        summary.contains("1 wrong checksums of protocols not in --only left"),
        "{summary}"
    );
    let tcp_still_bad = spoil(good.clone(), 36);
    let clean_udp = ipv4(17, &udp(&A4, &payload(40)));
    assert_eq!(
        fs::read(&out_path).unwrap(),
        pcap(&[tcp_still_bad, clean_udp])
    );
    let out = fastpath(&[
        "pcap",
        "fix",
        path(&input),
        "-o",
        path(&out_path),
        "--only",
        "ip",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("ipv4"));
    fs::remove_dir_all(dir).unwrap();
}

#[test]
fn fix_refuses_to_overwrite_its_input_without_in_place() {
    let dir = temp_dir("in-place");
    let bad = capture::pcap(
        false,
        false,
        &[frame(1, eth(&spoil(ipv4(6, &tcp(&A4, b"data")), 36)))],
    );
    let good = capture::pcap(false, false, &[frame(1, eth(&ipv4(6, &tcp(&A4, b"data"))))]);
    let input = dir.join("in.pcap");
    fs::write(&input, &bad).unwrap();
    let link = dir.join("hard-link.pcap");
    fs::hard_link(&input, &link).unwrap();
    let symlink = dir.join("symlink.pcap");
    #[cfg(unix)]
    std::os::unix::fs::symlink(&input, &symlink).unwrap();
    let dotted = dir.join(".").join("in.pcap");
    for out in [&input, &link, &symlink, &dotted] {
        let result = fastpath(&["pcap", "fix", path(&input), "-o", path(out)]);
        assert_eq!(result.status.code(), Some(2), "{}", out.display());
        let stderr = String::from_utf8_lossy(&result.stderr);
        assert!(stderr.contains("--in-place"), "{stderr}");
        assert_eq!(fs::read(&input).unwrap(), bad);
    }
    let other = dir.join("other.pcap");
    let result = fastpath(&[
        "pcap",
        "fix",
        path(&input),
        "-o",
        path(&other),
        "--in-place",
    ]);
    assert_eq!(result.status.code(), Some(2));
    assert!(!other.exists());
    // In place, through the symbolic link: the file it points to changes,
    // the link stays a link.
    let result = fastpath(&["pcap", "fix", "--in-place", path(&symlink)]);
    assert!(
        result.status.success(),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
    assert_eq!(fs::read(&input).unwrap(), good);
    assert!(
        fs::symlink_metadata(&symlink)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    fs::write(&input, &bad).unwrap();
    let result = fastpath(&[
        "pcap",
        "fix",
        path(&input),
        "-o",
        path(&input),
        "--in-place",
    ]);
    assert!(result.status.success());
    assert_eq!(fs::read(&input).unwrap(), good);
    // No temporary file is left behind.
    let names: Vec<_> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(
        names
            .iter()
            .all(|n| !n.to_string_lossy().contains("fastpath-fix")),
        "{names:?}"
    );
    fs::remove_dir_all(dir).unwrap();
}

#[test]
fn exit_status_and_errors_name_the_file_and_offset() {
    let dir = temp_dir("errors");
    let good = capture::pcap(false, false, &[frame(1, eth(&ipv4(6, &tcp(&A4, b"data"))))]);
    let bad = capture::pcap(
        false,
        false,
        &[frame(1, eth(&spoil(ipv4(6, &tcp(&A4, b"data")), 36)))],
    );
    let files = [
        ("good.pcap", good.clone()),
        ("bad.pcap", bad),
        ("empty.pcap", Vec::new()),
    ];
    for (name, bytes) in &files {
        fs::write(dir.join(name), bytes).unwrap();
    }
    let (good_file, bad_file) = (dir.join("good.pcap"), dir.join("bad.pcap"));
    assert_eq!(
        fastpath(&["pcap", "verify", path(&good_file)])
            .status
            .code(),
        Some(0)
    );
    let out = fastpath(&["pcap", "verify", path(&bad_file)]);
    assert_eq!(out.status.code(), Some(1));
    let summary = String::from_utf8(out.stdout).unwrap();
    assert!(
        summary.contains("1 bad checksums in 1 frames") && summary.contains("frame 1: tcp bad"),
        "{summary}"
    );
    // A file that can't be read and a bad checksum in another: 3 (2 and
    // 1), and the others are still verified.
    let missing = dir.join("missing.pcap");
    let out = fastpath(&["pcap", "verify", "--json", path(&missing), path(&bad_file)]);
    assert_eq!(out.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("missing.pcap") && stderr.contains("byte offset 0"),
        "{stderr}"
    );
    assert_eq!(String::from_utf8(out.stdout).unwrap().lines().count(), 2);

    // Truncated in a record: the frames before it are reported.
    let two = capture::pcap(
        false,
        false,
        &[
            frame(1, eth(&ipv4(6, &tcp(&A4, b"data")))),
            frame(1, eth(&ipv4(6, &tcp(&A4, b"data")))),
        ],
    );
    let cut = dir.join("cut.pcap");
    fs::write(&cut, &two[..two.len() - 5]).unwrap();
    let out = fastpath(&["pcap", "verify", "--json", path(&cut)]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let second = good.len();
    assert!(
        stderr.contains("cut.pcap") && stderr.contains("truncated file"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("byte offset {second}")),
        "{stderr}"
    );
    assert_eq!(String::from_utf8(out.stdout).unwrap().lines().count(), 2);

    // Not a capture; an empty file; an absurd record length.
    let mut absurd = good.clone();
    absurd[24 + 8..24 + 12].copy_from_slice(&0x7fff_fff0u32.to_le_bytes());
    fs::write(dir.join("absurd.pcap"), &absurd).unwrap();
    fs::write(dir.join("text.pcap"), b"hello, world\n").unwrap();
    for (name, message) in [
        ("text.pcap", "not a pcap or pcapng file"),
        ("empty.pcap", "empty file"),
        ("absurd.pcap", "byte offset 24"),
    ] {
        let out = fastpath(&["pcap", "verify", path(&dir.join(name))]);
        assert_eq!(out.status.code(), Some(2), "{name}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(name) && stderr.contains(message),
            "{name}: {stderr}"
        );
        // fix fails the same way. A file that is no capture gets no output;
        // one whose first record is absurd, every byte as it was (exit
        // status 3: the records before the error fixed, the rest copied).
        let out_file = dir.join(format!("fixed-{name}"));
        let out = fastpath(&["pcap", "fix", path(&dir.join(name)), "-o", path(&out_file)]);
        if name == "absurd.pcap" {
            assert_eq!(out.status.code(), Some(3), "{name}");
            assert_eq!(fs::read(&out_file).unwrap(), absurd);
        } else {
            assert_eq!(out.status.code(), Some(2), "{name}");
            assert!(!out_file.exists());
        }
    }
    // fix on a file that is no capture leaves an existing output alone.
    let existing = dir.join("existing.pcap");
    fs::write(&existing, b"keep me").unwrap();
    let out = fastpath(&[
        "pcap",
        "fix",
        path(&dir.join("text.pcap")),
        "-o",
        path(&existing),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(fs::read(&existing).unwrap(), b"keep me");
    // On a truncated one it writes the complete records, then the partial
    // one as it is.
    let out = fastpath(&["pcap", "fix", path(&cut), "-o", path(&existing)]);
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(fs::read(&existing).unwrap(), fs::read(&cut).unwrap());
    fs::remove_dir_all(dir).unwrap();
}

#[test]
fn pcapng_block_and_packet_kinds() {
    // A Simple Packet Block and an obsolete Packet Block, on interface 0;
    // an EPB of an interface of a link type not decoded (LINKTYPE_USER0);
    // a second section of the other byte order, whose interfaces start
    // over. (An EPB of an interface never described is a read error:
    // an_undescribed_interface_is_a_read_error.)
    let bad = eth(&spoil(ipv4(17, &udp(&A4, &payload(30))), 26));
    let good = eth(&ipv4(17, &udp(&A4, &payload(30))));
    let build = |frame_bytes: &[u8]| {
        let mut out = section_header(false);
        out.extend(interface(false, 1, 0));
        out.extend(interface(false, 147, 0));
        let mut spb = (frame_bytes.len() as u32).to_le_bytes().to_vec();
        spb.extend(frame_bytes);
        out.extend(block(false, 3, &spb));
        let mut pb = vec![0, 0, 0, 0];
        pb.extend([0; 8]);
        pb.extend((frame_bytes.len() as u32).to_le_bytes());
        pb.extend((frame_bytes.len() as u32).to_le_bytes());
        pb.extend(frame_bytes);
        out.extend(block(false, 2, &pb));
        out.extend(enhanced_packet(
            false,
            1,
            0,
            &frame(1, frame_bytes.to_vec()),
        ));
        out.extend(section_header(true));
        out.extend(interface(true, 101, 0));
        out.extend(enhanced_packet(
            true,
            0,
            0,
            &frame(101, frame_bytes[14..].to_vec()),
        ));
        out
    };
    let dir = temp_dir("pcapng");
    let input = dir.join("kinds.pcapng");
    fs::write(&input, build(&bad)).unwrap();
    let (out, lines) = verify_json(&input);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got: Vec<_> = lines
        .iter()
        .map(|l| (l.1, l.3.as_str(), l.4.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            (1, "ipv4", "good"),
            (1, "udp", "bad"),
            (2, "ipv4", "good"),
            (2, "udp", "bad"),
            (4, "ipv4", "good"),
            (4, "udp", "bad"),
        ]
    );
    let fixed = dir.join("fixed.pcapng");
    assert!(
        fastpath(&["pcap", "fix", path(&input), "-o", path(&fixed)])
            .status
            .success()
    );
    let mut expected = build(&good);
    // The frame of the link type not decoded is left as it was.
    let third = find(&build(&bad), &bad, 3);
    expected[third..third + bad.len()].copy_from_slice(&bad);
    assert_eq!(fs::read(&fixed).unwrap(), expected);
    fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_corrupt_section_header_is_named_not_dumped() {
    // A big-endian section header block of length 0, then 100 kB: the
    // message names the fault, not the bytes that follow it.
    let mut bytes = vec![0x0a, 0x0d, 0x0d, 0x0a, 0, 0, 0, 0, 0x1a, 0x2b, 0x3c, 0x4d];
    bytes.extend([0, 1, 0, 0]);
    bytes.resize(100_000, 0);
    let dir = temp_dir("corrupt-shb");
    let input = dir.join("corrupt.pcapng");
    fs::write(&input, &bytes).unwrap();
    let out = fastpath(&["pcap", "verify", path(&input)]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("corrupt section header block") && stderr.contains("byte offset 0"),
        "{stderr}"
    );
    assert!(stderr.len() < 200, "{} bytes: {stderr:.200}", stderr.len());
    fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_corrupt_block_reads_the_same_wherever_it_is() {
    // An enhanced packet block of 16 bytes, too short for its fields: the
    // same error whether more blocks follow it or the file ends there.
    let packet = frame(1, eth(&ipv4(17, &udp(&A4, &payload(30)))));
    let mut bytes = section_header(false);
    bytes.extend(interface(false, 1, 0));
    let at = bytes.len();
    bytes.extend(block(false, 6, &[0; 4]));
    let end = bytes.len();
    for _ in 0..4 {
        bytes.extend(enhanced_packet(false, 0, 0, &packet));
    }
    let dir = temp_dir("short-block");
    let (middle, last) = (dir.join("middle.pcapng"), dir.join("last.pcapng"));
    fs::write(&middle, &bytes).unwrap();
    fs::write(&last, &bytes[..end]).unwrap();
    let error = |file: &Path| {
        let out = fastpath(&["pcap", "verify", path(file)]);
        assert_eq!(out.status.code(), Some(2));
        let stderr = String::from_utf8(out.stderr).unwrap();
        stderr.replace(path(file), "FILE")
    };
    let message = error(&middle);
    assert!(
        message.contains("corrupt block: ") && message.contains(&format!("byte offset {at}")),
        "{message}"
    );
    assert_eq!(error(&last), message);
    fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_section_header_block_larger_than_the_read_buffer() {
    // 2 MiB of comments in the first section header block: more than the
    // 1 MiB buffer that reading starts with, less than the 4 MiB accepted
    // of any block.
    let comment = vec![b'c'; 65_532];
    let comments: Vec<(u16, &[u8])> = (0..32).map(|_| (1, &comment[..])).collect();
    let bad = eth(&spoil(ipv4(17, &udp(&A4, &payload(30))), 26));
    let dir = temp_dir("large-shb");
    for big_endian in [false, true] {
        // Byte-order magic, version 1.0.
        let mut body = if big_endian {
            vec![0x1a, 0x2b, 0x3c, 0x4d, 0, 1, 0, 0]
        } else {
            vec![0x4d, 0x3c, 0x2b, 0x1a, 1, 0, 0, 0]
        };
        body.extend([0xff; 8]);
        body.extend(options(big_endian, &comments));
        let mut bytes = block(big_endian, 0x0a0d_0d0a, &body);
        assert!(bytes.len() > 2 << 20);
        bytes.extend(interface(big_endian, 1, 0));
        bytes.extend(enhanced_packet(big_endian, 0, 0, &frame(1, bad.clone())));
        let input = dir.join(format!("large-shb-{big_endian}.pcapng"));
        fs::write(&input, &bytes).unwrap();
        let (out, lines) = verify_json(&input);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let got: Vec<_> = lines.iter().map(|l| (l.3.as_str(), l.4.as_str())).collect();
        assert_eq!(got, [("ipv4", "good"), ("udp", "bad")]);
        let fixed = dir.join(format!("fixed-{big_endian}.pcapng"));
        let out = fastpath(&["pcap", "fix", path(&input), "-o", path(&fixed)]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(fs::read(&fixed).unwrap().len(), bytes.len());
        assert_eq!(verify_json(&fixed).0.status.code(), Some(0));
    }
    fs::remove_dir_all(dir).unwrap();
}

/// The offset of the `n`th occurrence of `needle` in `haystack`.
fn find(haystack: &[u8], needle: &[u8], n: usize) -> usize {
    (0..haystack.len() - needle.len())
        .filter(|&i| haystack[i..].starts_with(needle))
        .nth(n - 1)
        .unwrap()
}

#[test]
fn verify_survives_truncation_and_mutation_of_every_sample() {
    // Every prefix and many single-byte mutations of small captures: a
    // verdict or an error, exit status 0, 1 or 2, never a crash or a hang.
    let dir = temp_dir("mutations");
    let frames = [
        frame(1, eth(&spoil(ipv4(17, &udp(&A4, b"abc")), 26))),
        frame(1, eth(&vxlan(&eth(&ipv4(6, &tcp(&A4, b"x")))))),
    ];
    let mut files = Vec::new();
    for format in [
        Format::Pcap {
            nanosecond: false,
            big_endian: true,
        },
        Format::PcapNg { big_endian: false },
    ] {
        let bytes = write(format, &frames);
        for cut in (0..bytes.len()).step_by(3) {
            files.push(bytes[..cut].to_vec());
        }
        for i in 0..bytes.len() {
            let mut mutated = bytes.clone();
            mutated[i] ^= 0x80 | i as u8;
            files.push(mutated);
        }
    }
    // One process verifies many files.
    for (chunk_index, chunk) in files.chunks(200).enumerate() {
        let mut args = vec!["pcap".to_owned(), "verify".to_owned(), "--json".to_owned()];
        for (i, bytes) in chunk.iter().enumerate() {
            let file = dir.join(format!("{chunk_index}-{i}.pcap"));
            fs::write(&file, bytes).unwrap();
            args.push(path(&file).to_owned());
        }
        let out = Command::new(FASTPATH).args(&args).output().unwrap();
        assert!(matches!(out.status.code(), Some(0..=3)), "{:?}", out.status);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{stderr}");
        for line in String::from_utf8(out.stdout).unwrap().lines() {
            parse_line(line);
        }
    }
    fs::remove_dir_all(dir).unwrap();
}

/// The exit status and the peak resident memory, in bytes, of fastpath run
/// with `args`.
#[cfg(target_os = "linux")]
fn run_measuring_memory(args: &[&str]) -> (i32, u64) {
    // The child's own peak, VmHWM, read while it runs: its rusage would
    // also count the memory of this process, which the child shared until
    // its exec (posix_spawn is a vfork) and which the other tests grow.
    let mut child = Command::new(FASTPATH)
        .args(args)
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let status_file = format!("/proc/{}/status", child.id());
    let mut peak = 0u64;
    loop {
        // Once the child has exited its status has no VmHWM: the last
        // value read stands.
        if let Ok(status) = fs::read_to_string(&status_file)
            && let Some(kib) = status
                .lines()
                .find_map(|line| line.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        {
            peak = peak.max(kib * 1024);
        }
        if let Some(status) = child.try_wait().unwrap() {
            return (status.code().unwrap(), peak);
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

/// verify and fix stream: under 64 MiB of memory on a capture of more than
/// 2 GB. It writes 4.4 GB to the temporary directory (FASTPATH_PCAP_BIG_DIR
/// to put it elsewhere) and takes about 20 s; FASTPATH_SKIP_HUGE_TESTS=1
/// skips it.
#[test]
#[cfg(target_os = "linux")]
fn memory_stays_bounded_on_a_capture_over_2_gb() {
    use std::io::Write;
    if std::env::var_os("FASTPATH_SKIP_HUGE_TESTS").is_some() {
        eprintln!("skipped: FASTPATH_SKIP_HUGE_TESTS is set");
        return;
    }
    let base =
        std::env::var_os("FASTPATH_PCAP_BIG_DIR").map_or_else(std::env::temp_dir, PathBuf::from);
    let dir = base.join(format!("fastpath-pcap-big-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    let input = dir.join("big.pcapng");
    // pcapng, so that fix copies blocks with options; every 1000th frame
    // has a bad TCP checksum.
    let good = eth(&ipv4(6, &tcp(&A4, &payload(1460))));
    let bad = eth(&spoil(ipv4(6, &tcp(&A4, &payload(1460))), 36));
    let good_block = enhanced_packet(false, 0, 0, &frame(1, good));
    let bad_block = enhanced_packet(false, 0, 0, &frame(1, bad));
    let mut out = std::io::BufWriter::with_capacity(1 << 20, fs::File::create(&input).unwrap());
    out.write_all(&section_header(false)).unwrap();
    out.write_all(&interface(false, 1, 0)).unwrap();
    let mut written = 0u64;
    let mut frames = 0u64;
    while written < 2_200_000_000 {
        let block = if frames % 1000 == 999 {
            &bad_block
        } else {
            &good_block
        };
        out.write_all(block).unwrap();
        written += block.len() as u64;
        frames += 1;
    }
    out.flush().unwrap();
    drop(out);
    let limit = 64 << 20;
    let (code, verify_peak) = run_measuring_memory(&["pcap", "verify", path(&input)]);
    assert_eq!(code, 1);
    let output = dir.join("fixed.pcapng");
    let (code, fix_peak) =
        run_measuring_memory(&["pcap", "fix", path(&input), "-o", path(&output)]);
    assert_eq!(code, 0);
    eprintln!(
        "{frames} frames, {written} bytes: peak memory verify {verify_peak} B, fix {fix_peak} B"
    );
    assert_eq!(
        fs::metadata(&output).unwrap().len(),
        fs::metadata(&input).unwrap().len()
    );
    fs::remove_dir_all(&dir).unwrap();
    assert!(verify_peak < limit, "verify: {verify_peak} bytes");
    assert!(fix_peak < limit, "fix: {fix_peak} bytes");
}

/// Runs fastpath with `input` written to its standard input, a pipe, by
/// a thread (the capture may be larger than the pipe's buffer).
fn fastpath_piped(args: &[&str], input: Vec<u8>) -> Output {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = Command::new(FASTPATH)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run fastpath");
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        // fastpath may stop reading early, on an error: a broken pipe.
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

/// The JSON lines of `out`, with the file name of each, checked to be
/// `name`, left out.
fn lines_of(out: &Output, name: &str) -> Vec<(u64, u8, String, String, u16, u16)> {
    String::from_utf8(out.stdout.clone())
        .unwrap()
        .lines()
        .map(|line| {
            let (file, frame, depth, proto, status, stored, computed) = parse_line(line);
            assert_eq!(file, name, "{line}");
            (frame, depth, proto, status, stored, computed)
        })
        .collect()
}

/// A capture of more than the 1 MiB read buffer, so that it comes through
/// a pipe in many reads: every 100th frame has a bad TCP checksum, and a
/// truncated copy of it ends in the middle of a block.
fn large_capture(format: Format) -> Vec<u8> {
    let good = frame(1, eth(&ipv4(6, &tcp(&A4, &payload(1400)))));
    let bad = frame(1, eth(&spoil(ipv4(6, &tcp(&A4, &payload(1400))), 36)));
    let frames: Vec<Frame> = (0..1000)
        .map(|i| {
            if i % 100 == 7 {
                bad.clone()
            } else {
                good.clone()
            }
        })
        .collect();
    write(format, &frames)
}

#[test]
fn verify_reads_standard_input_as_it_reads_a_file() {
    let dir = temp_dir("stdin");
    for format in [
        Format::PcapNg { big_endian: false },
        Format::Pcap {
            nanosecond: true,
            big_endian: true,
        },
    ] {
        let bytes = large_capture(format);
        assert!(bytes.len() > 1 << 20);
        let file = dir.join(format!("large.{}", format.extension()));
        fs::write(&file, &bytes).unwrap();
        let from_file = fastpath(&["pcap", "verify", "--json", path(&file)]);
        assert_eq!(from_file.status.code(), Some(1), "{}", format.name());
        let expected = lines_of(&from_file, path(&file));
        assert_eq!(expected.len(), 2000, "{}", format.name());

        // `cat file | fastpath pcap verify --json -`: the same lines, of
        // the file named `-`.
        let piped = fastpath_piped(&["pcap", "verify", "--json", "-"], bytes.clone());
        assert_eq!(
            piped.status.code(),
            Some(1),
            "{}: {}",
            format.name(),
            String::from_utf8_lossy(&piped.stderr)
        );
        assert_eq!(lines_of(&piped, "-"), expected, "{}", format.name());
        assert!(piped.stderr.is_empty());

        // The summary is the file's, named `-`.
        let summary = fastpath(&["pcap", "verify", path(&file)]);
        let piped = fastpath_piped(&["pcap", "verify", "-"], bytes.clone());
        assert_eq!(piped.status.code(), Some(1));
        let summary = String::from_utf8(summary.stdout).unwrap();
        assert_eq!(
            String::from_utf8(piped.stdout).unwrap(),
            summary.replace(path(&file), "-")
        );

        // `fastpath pcap verify --json - < file`: standard input is the
        // file itself.
        let redirected = Command::new(FASTPATH)
            .args(["pcap", "verify", "--json", "-"])
            .stdin(fs::File::open(&file).unwrap())
            .output()
            .unwrap();
        assert_eq!(redirected.status.code(), Some(1));
        assert_eq!(lines_of(&redirected, "-"), expected);

        // Cut in a block: the frames before it, and the error at the
        // offset where the block starts, as for the file.
        let cut = &bytes[..bytes.len() - 700];
        let cut_file = dir.join(format!("cut.{}", format.extension()));
        fs::write(&cut_file, cut).unwrap();
        let from_file = fastpath(&["pcap", "verify", "--json", path(&cut_file)]);
        let piped = fastpath_piped(&["pcap", "verify", "--json", "-"], cut.to_vec());
        // Bad checksums before the cut: 3.
        assert_eq!(from_file.status.code(), Some(3));
        assert_eq!(piped.status.code(), Some(3));
        assert_eq!(lines_of(&piped, "-"), lines_of(&from_file, path(&cut_file)));
        let stderr = String::from_utf8(piped.stderr).unwrap();
        assert_eq!(
            stderr,
            String::from_utf8(from_file.stderr)
                .unwrap()
                .replace(path(&cut_file), "-")
        );
        assert!(
            stderr.contains("fastpath: error: -: truncated file"),
            "{stderr}"
        );
    }

    // An empty standard input is no capture; `-` among files.
    let out = fastpath_piped(&["pcap", "verify", "-"], Vec::new());
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("-: empty file"), "{stderr}");
    let good = capture::pcap(false, false, &[frame(1, eth(&ipv4(6, &tcp(&A4, b"data"))))]);
    let good_file = dir.join("good.pcap");
    fs::write(&good_file, &good).unwrap();
    let out = fastpath_piped(
        &["pcap", "verify", "--json", path(&good_file), "-"],
        good.clone(),
    );
    assert_eq!(out.status.code(), Some(0));
    let files: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| parse_line(l).0)
        .collect();
    assert_eq!(files, [path(&good_file), path(&good_file), "-", "-"]);
    fs::remove_dir_all(dir).unwrap();
}

#[test]
#[cfg(unix)]
fn verify_reads_a_fifo() {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let dir = temp_dir("fifo");
    let bytes = large_capture(Format::PcapNg { big_endian: true });
    let file = dir.join("large.pcapng");
    fs::write(&file, &bytes).unwrap();
    let expected = lines_of(
        &fastpath(&["pcap", "verify", "--json", path(&file)]),
        path(&file),
    );
    let fifo = dir.join("fifo.pcapng");
    let status = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(status.success());
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            // Opening blocks until fastpath opens the FIFO to read it.
            let mut out = fs::OpenOptions::new().write(true).open(&fifo).unwrap();
            let _ = out.write_all(&bytes);
        })
    };
    let out = fastpath(&["pcap", "verify", "--json", path(&fifo)]);
    // Should fastpath not have opened the FIFO, the writer is let go.
    let _unblock = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(&fifo);
    writer.join().unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(lines_of(&out, path(&fifo)), expected);
    fs::remove_dir_all(dir).unwrap();
}

#[test]
fn an_undescribed_interface_is_a_read_error() {
    let bad = eth(&spoil(ipv4(17, &udp(&A4, &payload(30))), 26));
    let epb =
        |big_endian, interface| enhanced_packet(big_endian, interface, 0, &frame(1, bad.clone()));
    let dir = temp_dir("undescribed");
    let check = |name: &str, bytes: &[u8], offset: usize, message: &str, lines: usize| {
        let file = dir.join(name);
        fs::write(&file, bytes).unwrap();
        let out = fastpath(&["pcap", "verify", "--json", path(&file)]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        // 3 if the frames before the error, all bad, were read.
        let status = if lines > 0 { 3 } else { 2 };
        assert_eq!(out.status.code(), Some(status), "{name}: {stderr}");
        assert!(
            stderr.contains(name)
                && stderr.contains(message)
                && stderr.contains(&format!("at byte offset {offset}\n")),
            "{name}: {stderr}"
        );
        // The frames before it are reported.
        assert_eq!(lines_of(&out, path(&file)).len(), lines, "{name}");
    };

    // Interface 1 when only interface 0 is described.
    let mut bytes = section_header(false);
    bytes.extend(interface(false, 1, 0));
    bytes.extend(epb(false, 0));
    let at = bytes.len();
    bytes.extend(epb(false, 1));
    bytes.extend(epb(false, 0));
    check(
        "one.pcapng",
        &bytes,
        at,
        "enhanced packet block of interface 1, but its section describes only interface 0",
        2,
    );

    // Before any interface description block; a simple packet block
    // there; an obsolete packet block of an interface not described.
    let mut bytes = section_header(true);
    let at = bytes.len();
    bytes.extend(epb(true, 0));
    bytes.extend(interface(true, 1, 0));
    check(
        "none.pcapng",
        &bytes,
        at,
        "enhanced packet block of interface 0 before any interface description block",
        0,
    );
    let mut spb = (bad.len() as u32).to_le_bytes().to_vec();
    spb.extend(&bad);
    let mut bytes = section_header(false);
    let at = bytes.len();
    bytes.extend(block(false, 3, &spb));
    check(
        "simple.pcapng",
        &bytes,
        at,
        "simple packet block of interface 0 before any interface description block",
        0,
    );
    let mut pb = vec![3, 0, 0, 0];
    pb.extend([0; 8]);
    pb.extend((bad.len() as u32).to_le_bytes());
    pb.extend((bad.len() as u32).to_le_bytes());
    pb.extend(&bad);
    let mut bytes = section_header(false);
    bytes.extend(interface(false, 1, 0));
    bytes.extend(interface(false, 101, 0));
    let at = bytes.len();
    bytes.extend(block(false, 2, &pb));
    check(
        "packet.pcapng",
        &bytes,
        at,
        "packet block of interface 3, but its section describes only interfaces 0 to 1",
        0,
    );

    // A new section's interfaces start over: interface 0 of the first
    // section is not the second's.
    let mut bytes = section_header(false);
    bytes.extend(interface(false, 1, 0));
    bytes.extend(epb(false, 0));
    bytes.extend(section_header(true));
    let at = bytes.len();
    bytes.extend(epb(true, 0));
    check(
        "sections.pcapng",
        &bytes,
        at,
        "enhanced packet block of interface 0 before any interface description block",
        2,
    );
    // fix refuses it too.
    let out = fastpath(&[
        "pcap",
        "fix",
        path(&dir.join("one.pcapng")),
        "-o",
        path(&dir.join("fixed.pcapng")),
    ]);
    assert!(!out.status.success());
    fs::remove_dir_all(dir).unwrap();
}

/// A capture of Alexey Kuznetsov's modified pcap format (ss991029): the
/// pcap file header with magic 0xa1b2cd34, and record headers of 24 bytes,
/// the usual 16 then an interface index, a protocol, a packet type and a
/// pad byte.
fn modified_pcap(big_endian: bool, frames: &[Vec<u8>]) -> Vec<u8> {
    let u16_bytes = |v: u16| {
        if big_endian {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    };
    let u32_bytes = |v: u32| {
        if big_endian {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    };
    let mut out = u32_bytes(0xa1b2_cd34).to_vec();
    out.extend(u16_bytes(2));
    out.extend(u16_bytes(4));
    out.extend(u32_bytes(0));
    out.extend(u32_bytes(0));
    out.extend(u32_bytes(65535));
    out.extend(u32_bytes(1));
    for (i, f) in frames.iter().enumerate() {
        out.extend(u32_bytes(1_700_000_000 + i as u32));
        out.extend(u32_bytes(123_456));
        out.extend(u32_bytes(f.len() as u32));
        out.extend(u32_bytes(f.len() as u32));
        out.extend(u32_bytes(3 + i as u32));
        out.extend(u16_bytes(0x0800));
        out.extend([i as u8 % 5, 0xaa]);
        out.extend(f);
    }
    out
}

#[test]
fn the_modified_pcap_format_is_read_and_fixed() {
    let dir = temp_dir("modified");
    let tcp_good = eth(&ipv4(6, &tcp(&A4, b"data")));
    let udp_good = eth(&ipv4(17, &udp(&A4, &payload(30))));
    let input = [
        tcp_good.clone(),
        eth(&spoil(ipv4(17, &udp(&A4, &payload(30))), 26)),
        eth(&spoil(ipv4(6, &tcp(&A4, b"data")), 36)),
    ];
    let fixed = [tcp_good.clone(), udp_good.clone(), tcp_good.clone()];
    let standard: Vec<Frame> = input.iter().map(|f| frame(1, f.clone())).collect();
    for big_endian in [false, true] {
        let name = format!("modified-{}.pcap", if big_endian { "be" } else { "le" });
        let file = dir.join(&name);
        fs::write(&file, modified_pcap(big_endian, &input)).unwrap();
        // The same lines as for the frames in a standard pcap file.
        let standard_file = dir.join("standard.pcap");
        fs::write(&standard_file, capture::pcap(false, big_endian, &standard)).unwrap();
        let expected = lines_of(
            &fastpath(&["pcap", "verify", "--json", path(&standard_file)]),
            path(&standard_file),
        );
        assert_eq!(expected.len(), 6);
        let out = fastpath(&["pcap", "verify", "--json", path(&file)]);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(lines_of(&out, path(&file)), expected, "{name}");
        let out = fastpath(&["pcap", "verify", path(&file)]);
        let summary = String::from_utf8(out.stdout).unwrap();
        let order = if big_endian { "big" } else { "little" };
        assert!(
            summary.contains(&format!("modified pcap (µs, {order}-endian)")),
            "{summary}"
        );

        // fix copies every byte, the record headers' 8 more included, and
        // patches only the checksums.
        let fixed_file = dir.join(format!("fixed-{name}"));
        let out = fastpath(&["pcap", "fix", path(&file), "-o", path(&fixed_file)]);
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            fs::read(&fixed_file).unwrap(),
            modified_pcap(big_endian, &fixed),
            "{name}"
        );
        let (out, lines) = verify_json(&fixed_file);
        assert_eq!(out.status.code(), Some(0), "{name}");
        assert_eq!(lines.len(), 6);

        // Cut in the last record: the error names where it starts.
        let bytes = modified_pcap(big_endian, &input);
        let last = bytes.len() - 24 - input[2].len();
        let cut_file = dir.join(format!("cut-{name}"));
        fs::write(&cut_file, &bytes[..bytes.len() - 3]).unwrap();
        let out = fastpath(&["pcap", "verify", "--json", path(&cut_file)]);
        // Bad checksums before the cut: 3.
        assert_eq!(out.status.code(), Some(3));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(&format!(
                "truncated file: the block here needs {} bytes",
                24 + input[2].len()
            )) && stderr.contains(&format!("byte offset {last}")),
            "{stderr}"
        );
        assert_eq!(lines_of(&out, path(&cut_file)).len(), 4);
    }
    fs::remove_dir_all(dir).unwrap();
}
