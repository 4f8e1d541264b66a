//! `fastpath pcap verify` and `fix` on the tunnels that the walk over a
//! packet's layers follows beyond IP-in-IP, plain GRE, VXLAN, Geneve and
//! GTP-U: PIM Registers, GRE with routing, PPTP's enhanced GRE carrying
//! PPP, WCCP, Cisco MetaData and MPLS in GRE, NHRP Traffic Indications,
//! MPLS in UDP, VXLAN-GPE and NSH. Each case is a frame as captured, the
//! frame `fix` must make of it, and the verdicts `verify` must print,
//! which are tshark's (4.0): when tshark is installed, [`tshark_agrees`]
//! checks that.

mod capture;

use std::fs;

use capture::*;
use fastpath::packet::ProtocolSet;
use fastpath_cli::pcap::layers;
use proptest::prelude::*;

/// One frame: as captured, as fix must leave it, and the verdicts of
/// verify ((depth, protocol, status) for each JSON line).
struct Case {
    name: &'static str,
    input: Vec<u8>,
    fixed: Vec<u8>,
    expect: Vec<(u8, &'static str, &'static str)>,
}

fn case(
    name: &'static str,
    input: Vec<u8>,
    fixed: Vec<u8>,
    expect: &[(u8, &'static str, &'static str)],
) -> Case {
    Case {
        name,
        input,
        fixed,
        expect: expect.to_vec(),
    }
}

/// A case whose frame fix leaves as it is.
fn same(name: &'static str, bytes: Vec<u8>, expect: &[(u8, &'static str, &'static str)]) -> Case {
    case(name, bytes.clone(), bytes, expect)
}

const GOOD4: (u8, &str, &str) = (0, "ipv4", "good");

fn payload(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 5 + 1) as u8).collect()
}

/// The inner packets of the cases, right, and their checksum fields.
struct Inner {
    udp4: Vec<u8>,
    tcp4: Vec<u8>,
    icmp4: Vec<u8>,
    udp6: Vec<u8>,
}

/// The UDP checksum of `udp4`, the TCP checksum of `tcp4`, the ICMP
/// checksum of `icmp4`, the UDP checksum of `udp6`, the IPv4 header
/// checksum.
const UDP4: usize = 26;
const TCP4: usize = 36;
const ICMP4: usize = 22;
const UDP6: usize = 46;
const HEADER4: usize = 10;

fn inner() -> Inner {
    let data = payload(40);
    Inner {
        udp4: ipv4(17, &udp(&A4, &data)),
        tcp4: ipv4(6, &tcp(&A4, &data)),
        icmp4: ipv4(1, &icmp(&data)),
        udp6: ipv6(17, &udp(&A6, &data)),
    }
}

fn good(depth: u8, proto: &'static str) -> (u8, &'static str, &'static str) {
    (depth, proto, "good")
}

fn bad(depth: u8, proto: &'static str) -> (u8, &'static str, &'static str) {
    (depth, proto, "bad")
}

// PIM (RFC 7761).

/// A PIM version 2 Register (its checksum over the 8-byte header, with
/// IPv6's pseudo-header if `over` is IPv6), then `packet`.
fn pim_register(over: &Addresses, packet: &[u8]) -> Vec<u8> {
    let mut m = vec![0x21, 0, 0, 0, 0, 0, 0, 0];
    let mut covered = Vec::new();
    if let Addresses::V6(source, destination) = over {
        covered.extend(source);
        covered.extend(destination);
        covered.extend(8u32.to_be_bytes());
        covered.extend([0, 0, 0, 103]);
    }
    covered.extend(&m);
    let value = checksum(&covered);
    m[2..4].copy_from_slice(&value.to_be_bytes());
    m.extend(packet);
    m
}

fn pim_cases(i: &Inner) -> Vec<Case> {
    let in4 = |p: &[u8]| eth(&ipv4(103, &pim_register(&A4, p)));
    let in6 = |p: &[u8]| eth(&ipv6(103, &pim_register(&A6, p)));
    let udp = [good(1, "ipv4"), good(1, "udp")];
    // A Null-Register's dummy header: version 0.
    let mut dummy = i.udp4[..20].to_vec();
    dummy[0] = 0;
    vec![
        same(
            "pim register carrying ipv4 udp",
            in4(&i.udp4),
            &[GOOD4, udp[0], udp[1]],
        ),
        case(
            "pim register carrying ipv4 udp, bad udp",
            in4(&spoil(i.udp4.clone(), UDP4)),
            in4(&i.udp4),
            &[GOOD4, good(1, "ipv4"), bad(1, "udp")],
        ),
        case(
            "pim register carrying ipv4 udp, bad ipv4 header",
            in4(&spoil(i.udp4.clone(), HEADER4)),
            in4(&i.udp4),
            &[GOOD4, bad(1, "ipv4"), good(1, "udp")],
        ),
        same(
            "pim null register: an ipv4 header only",
            in4(&i.udp4[..20]),
            &[GOOD4, good(1, "ipv4")],
        ),
        same("pim null register: a dummy header", in4(&dummy), &[GOOD4]),
        case(
            "pim register in ipv6 carrying ipv6 udp, bad udp",
            in6(&spoil(i.udp6.clone(), UDP6)),
            in6(&i.udp6),
            &[bad(1, "udp")],
        ),
        same(
            "pim register in ipv6 carrying ipv4 tcp",
            in6(&i.tcp4),
            &[good(1, "ipv4"), good(1, "tcp")],
        ),
    ]
}

// GRE (RFC 2784, RFC 2890, RFC 1701, RFC 2637).

/// IPv4 carrying GRE with `flags` (and version), protocol type `protocol`,
/// the optional fields `fields` as they are (the checksum's first, filled
/// here if the C bit is set), then `rest`.
fn gre(flags: u16, protocol: u16, fields: &[u8], rest: &[u8]) -> Vec<u8> {
    let mut g = flags.to_be_bytes().to_vec();
    g.extend(protocol.to_be_bytes());
    g.extend(fields);
    g.extend(rest);
    if flags & 0x8000 != 0 {
        g[4..6].fill(0);
        let value = checksum(&g);
        g[4..6].copy_from_slice(&value.to_be_bytes());
    }
    ipv4(47, &g)
}

/// A Cisco MetaData header of EtherType `ethertype` as GRE carries it:
/// the EtherType, then version 1, length 1, options 1, security group
/// tag 0.
fn cmd(ethertype: u16, packet: &[u8]) -> Vec<u8> {
    let mut m = ethertype.to_be_bytes().to_vec();
    m.extend([1, 1, 0, 1, 0, 0]);
    m.extend(packet);
    m
}

/// An NHRP Traffic Indication (Cisco's type 8) of protocol type
/// `protocol`, from NBMA address 192.168.200.1 about 10.255.255.1 and
/// 10.255.255.3, quoting `packet`, then an end-of-extensions extension
/// if `extension`; its checksum right.
fn nhrp_indication(protocol: u16, packet: &[u8], extension: bool) -> Vec<u8> {
    let mut n = vec![0, 1];
    n.extend(protocol.to_be_bytes());
    n.extend([0, 0, 0, 0, 0, 255, 0, 0, 0, 0, 0, 0, 1, 8, 4, 0]);
    n.extend([4, 4, 0, 0, 0, 0, 0, 0]);
    n.extend([192, 168, 200, 1, 10, 255, 255, 1, 10, 255, 255, 3]);
    n.extend(packet);
    if extension {
        let offset = n.len() as u16;
        n[14..16].copy_from_slice(&offset.to_be_bytes());
        n.extend([0x80, 0, 0, 0]);
    }
    let size = n.len() as u16;
    n[10..12].copy_from_slice(&size.to_be_bytes());
    let value = checksum(&n);
    n[12..14].copy_from_slice(&value.to_be_bytes());
    n
}

fn gre_cases(i: &Inner) -> Vec<Case> {
    let key = [0, 0, 0, 0x28];
    let in_cmd = |p: &[u8]| eth(&gre(0x2000, 0x8909, &key, &cmd(0x0800, p)));
    // WCCP version 2: a redirect header (service 89, bucket 72).
    let wccp2 = |p: &[u8]| eth(&gre(0, 0x883e, &[], &[&[5, 89, 0, 72][..], p].concat()));
    // PPTP: version 1, key (payload length, call id), sequence and
    // acknowledgment numbers; PPP with address and control.
    let pptp = |p: &[u8]| {
        let fields = [0, p.len() as u8 + 4, 0, 9, 0, 0, 0, 1, 0, 0, 0, 0];
        eth(&gre(
            0x3081,
            0x880b,
            &fields,
            &[&[0xff, 0x03, 0x00, 0x21][..], p].concat(),
        ))
    };
    // A checksum and the routing field: one source route entry of 4
    // bytes (address family 0x0800, offset 0), then the last entry.
    let routing = |p: &[u8]| {
        let fields = [0, 0, 0, 0, 0x08, 0x00, 0, 4, 10, 0, 0, 1, 0, 0, 0, 0];
        eth(&gre(0xc000, 0x0800, &fields, p))
    };
    let in_mpls = |p: &[u8]| eth(&gre(0, 0x8847, &[], &mpls(&[100, 200], p)));
    let nhrp = |p: &[u8], extension| {
        eth(&gre(
            0x2000,
            0x2001,
            &[0, 0, 3, 0xe8],
            &nhrp_indication(0x0800, p, extension),
        ))
    };
    let udp = [good(1, "ipv4"), good(1, "udp")];
    vec![
        case(
            "gre with key carrying cisco metadata then ipv4 icmp, bad icmp",
            in_cmd(&spoil(i.icmp4.clone(), ICMP4)),
            in_cmd(&i.icmp4),
            &[GOOD4, good(1, "ipv4"), bad(1, "icmp")],
        ),
        case(
            "wccp version 2 redirect in gre, bad tcp",
            wccp2(&spoil(i.tcp4.clone(), TCP4)),
            wccp2(&i.tcp4),
            &[GOOD4, good(1, "ipv4"), bad(1, "tcp")],
        ),
        same(
            "wccp version 1 in gre: ipv4 at once",
            eth(&gre(0, 0x883e, &[], &i.udp4)),
            &[GOOD4, udp[0], udp[1]],
        ),
        case(
            "pptp enhanced gre carrying ppp ipv4 udp, bad udp",
            pptp(&spoil(i.udp4.clone(), UDP4)),
            pptp(&i.udp4),
            &[GOOD4, good(1, "ipv4"), bad(1, "udp")],
        ),
        case(
            "gre with checksum and routing carrying ipv4 udp, bad ipv4 header",
            routing(&spoil(i.udp4.clone(), HEADER4)),
            routing(&i.udp4),
            &[GOOD4, bad(1, "ipv4"), good(1, "udp")],
        ),
        case(
            "mpls in gre carrying ipv4 tcp, bad tcp",
            in_mpls(&spoil(i.tcp4.clone(), TCP4)),
            in_mpls(&i.tcp4),
            &[GOOD4, good(1, "ipv4"), bad(1, "tcp")],
        ),
        same(
            "nhrp traffic indication quoting icmp: its checksum unverified",
            nhrp(&i.icmp4, true),
            &[GOOD4, good(1, "ipv4"), (1, "icmp", "unverified")],
        ),
        case(
            "nhrp traffic indication quoting a whole udp datagram, bad",
            nhrp(&spoil(i.udp4.clone(), UDP4), false),
            nhrp(&i.udp4, false),
            &[GOOD4, good(1, "ipv4"), bad(1, "udp")],
        ),
    ]
}

// MPLS in UDP (RFC 7510), VXLAN-GPE (draft-ietf-nvo3-vxlan-gpe), NSH
// (RFC 8300).

/// A VXLAN-GPE header (flags I and P, VNI 1) whose next protocol is
/// `next`, then `rest`.
fn vxlan_gpe(next: u8, rest: &[u8]) -> Vec<u8> {
    let mut v = vec![0x0c, 0, 0, next, 0, 0, 1, 0];
    v.extend(rest);
    v
}

/// An NSH header of MD type 2 with one 4-byte metadata TLV, next protocol
/// `next`, then `rest`.
fn nsh(next: u8, rest: &[u8]) -> Vec<u8> {
    let mut n = vec![0x0f, 0xc4, 0x02, next, 0, 0, 1, 0xff];
    n.extend([0, 1, 2, 1, 12, 0, 0, 0]);
    n.extend(rest);
    n
}

fn udp_cases(i: &Inner) -> Vec<Case> {
    let over = |port: u16, p: &[u8]| eth(&ipv4(17, &udp_ports(&A4, 50000, port, p)));
    let outer = [GOOD4, good(0, "udp")];
    vec![
        case(
            "mpls over udp carrying ipv4 icmp, bad icmp",
            over(6635, &mpls(&[16, 17], &spoil(i.icmp4.clone(), ICMP4))),
            over(6635, &mpls(&[16, 17], &i.icmp4)),
            &[outer[0], outer[1], good(1, "ipv4"), bad(1, "icmp")],
        ),
        case(
            "vxlan-gpe carrying nsh carrying ipv4 udp, bad udp",
            over(4790, &vxlan_gpe(4, &nsh(1, &spoil(i.udp4.clone(), UDP4)))),
            over(4790, &vxlan_gpe(4, &nsh(1, &i.udp4))),
            &[outer[0], outer[1], good(1, "ipv4"), bad(1, "udp")],
        ),
        case(
            "vxlan-gpe carrying ipv6 udp, bad udp",
            over(4790, &vxlan_gpe(2, &spoil(i.udp6.clone(), UDP6))),
            over(4790, &vxlan_gpe(2, &i.udp6)),
            &[outer[0], outer[1], bad(1, "udp")],
        ),
        same(
            "vxlan-gpe carrying ethernet carrying ipv4 tcp",
            over(4790, &vxlan_gpe(3, &eth(&i.tcp4))),
            &[outer[0], outer[1], good(1, "ipv4"), good(1, "tcp")],
        ),
        same(
            "vxlan-gpe carrying mpls carrying ipv4 tcp",
            over(4790, &vxlan_gpe(5, &mpls(&[16], &i.tcp4))),
            &[outer[0], outer[1], good(1, "ipv4"), good(1, "tcp")],
        ),
    ]
}

fn cases() -> Vec<Case> {
    let i = inner();
    let mut cases = pim_cases(&i);
    cases.extend(gre_cases(&i));
    cases.extend(udp_cases(&i));
    cases
}

/// The lines verify must print for `cases`, one frame each.
fn expected(cases: &[Case]) -> Vec<(u64, u8, String, String)> {
    cases
        .iter()
        .enumerate()
        .flat_map(|(i, c)| {
            c.expect
                .iter()
                .map(move |&(d, p, s)| (i as u64 + 1, d, p.to_owned(), s.to_owned()))
        })
        .collect()
}

#[test]
fn verify_reports_each_tunnel_case() {
    let dir = temp_dir("tunnels-verify");
    for c in cases() {
        let file = dir.join("case.pcap");
        fs::write(&file, ethernet_pcap(std::slice::from_ref(&c.input))).unwrap();
        let want = expected(std::slice::from_ref(&c));
        assert_eq!(verify_lines(&file), want, "{}", c.name);
    }
    fs::remove_dir_all(dir).unwrap();
}

#[test]
fn fix_makes_each_tunnel_frame_right_and_keeps_outer_checksums_right() {
    let dir = temp_dir("tunnels-fix");
    // The expected frames have every checksum right, the GRE, NHRP and
    // outer UDP checksums around the inner packet included.
    for c in cases() {
        assert_fix_writes(&dir, c.name, &c.input, &c.fixed);
    }
    fs::remove_dir_all(dir).unwrap();
}

/// A GRE checksum that was wrong before fix is left wrong: fix writes
/// only what was right again, and GRE's is no protocol of the report.
#[test]
fn fix_leaves_a_wrong_gre_checksum_wrong() {
    let i = inner();
    let fields = [0, 0, 0, 0, 0x08, 0x00, 0, 4, 10, 0, 0, 1, 0, 0, 0, 0];
    let mut ip = gre(0xc000, 0x0800, &fields, &spoil(i.udp4.clone(), UDP4));
    // The GRE checksum at 24, made wrong.
    ip = spoil(ip, 24);
    let before = ip.clone();
    layers::fix(&mut ip, ProtocolSet::ALL, &mut Vec::new()).unwrap();
    assert_eq!(ip[24..26], before[24..26]);
    let inner_udp = 20 + 4 + fields.len() + UDP4;
    assert_ne!(
        ip[inner_udp..inner_udp + 2],
        before[inner_udp..inner_udp + 2]
    );
}

/// The verdicts expected of each case are tshark's, before and after fix.
/// Skipped if tshark is not installed.
#[test]
fn tshark_agrees() {
    let cases = cases();
    let input: Vec<_> = cases.iter().map(|c| c.input.clone()).collect();
    assert_tshark_agrees("tunnels-tshark", &input, &expected(&cases));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Any case's IP packet, its bytes changed and cut anywhere: inspected
    /// and fixed without a panic, fixed to no bad checksum, with nothing
    /// but checksum fields changed.
    #[test]
    fn fuzz_mutated_tunnel_cases(
        pick in any::<prop::sample::Index>(),
        mutations in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..6),
        cut in any::<prop::sample::Index>(),
    ) {
        let cases = cases();
        let ip = mutated_ip(&cases[pick.index(cases.len())].input, &mutations, cut);
        prop_assert_eq!(fix_changes_only_checksums(&ip), Ok(()));
    }
}
