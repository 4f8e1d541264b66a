//! `fastpath pcap verify` and `fix` on what the walk over a packet's layers
//! decodes beyond plain IP: ERSPAN types I, II and III in GRE, and the
//! packet an ICMP or ICMPv6 error quotes. Each case is a frame as captured,
//! the frame `fix` must make of it, and the verdicts `verify` must print,
//! which are tshark's (4.0) but where a case says otherwise: when tshark is
//! installed, [`tshark_agrees`] checks that.

mod capture;

use std::fs;

use capture::*;
use proptest::prelude::*;

/// One frame: as captured, as fix must leave it, the verdicts of verify
/// ((depth, protocol, status) for each JSON line), and whether tshark
/// reports the same.
struct Case {
    name: &'static str,
    input: Vec<u8>,
    fixed: Vec<u8>,
    expect: Vec<(u8, &'static str, &'static str)>,
    as_tshark: bool,
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
        as_tshark: true,
    }
}

/// A case whose frame fix leaves as it is.
fn same(name: &'static str, bytes: Vec<u8>, expect: &[(u8, &'static str, &'static str)]) -> Case {
    case(name, bytes.clone(), bytes, expect)
}

const GOOD4: (u8, &str, &str) = (0, "ipv4", "good");

fn payload(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 7 + 3) as u8).collect()
}

// ERSPAN.

/// GRE flag bits: checksum, key, sequence number.
const CHECKSUM: u16 = 0x8000;
const KEY: u16 = 0x2000;
const SEQUENCE: u16 = 0x1000;

/// IPv4 carrying GRE with the flags `flags` (their fields follow: a
/// checksum, right for the content, key 42, sequence number 7) and protocol
/// type `protocol`, then `rest`.
fn gre(flags: u16, protocol: u16, rest: &[u8]) -> Vec<u8> {
    let mut g = flags.to_be_bytes().to_vec();
    g.extend(protocol.to_be_bytes());
    if flags & CHECKSUM != 0 {
        g.extend([0, 0, 0, 0]);
    }
    if flags & KEY != 0 {
        g.extend([0, 0, 0, 42]);
    }
    if flags & SEQUENCE != 0 {
        g.extend([0, 0, 0, 7]);
    }
    g.extend(rest);
    if flags & CHECKSUM != 0 {
        let value = checksum(&g);
        g[4..6].copy_from_slice(&value.to_be_bytes());
    }
    ipv4(47, &g)
}

/// An ERSPAN type II header (version 1, VLAN 5, session 1, index 0), then
/// `frame`.
fn erspan_ii(frame: &[u8]) -> Vec<u8> {
    let mut e = vec![0x10, 0x05, 0x00, 0x01, 0, 0, 0, 0];
    e.extend(frame);
    e
}

/// An ERSPAN type III header (version 2, VLAN 5, session 1, a timestamp)
/// whose frame type is `frame_type`, then if `subheader` the O bit set and
/// 8 bytes of platform-specific subheader; then `frame`.
fn erspan_iii(frame_type: u16, subheader: bool, frame: &[u8]) -> Vec<u8> {
    let mut e = vec![0x20, 0x05, 0x00, 0x01, 0x12, 0x34, 0x56, 0x78, 0, 0];
    e.extend((frame_type << 10 | u16::from(subheader)).to_be_bytes());
    if subheader {
        e.extend([0x08, 0, 0, 0, 0, 0, 0, 9]);
    }
    e.extend(frame);
    e
}

fn erspan_cases() -> Vec<Case> {
    let data = payload(60);
    let tcp4 = ipv4(6, &tcp(&A4, &data));
    let bad_tcp4 = spoil(tcp4.clone(), 36);
    let udp4 = ipv4(17, &udp(&A4, &data));
    let bad_header = spoil(udp4.clone(), 10);
    let udp6 = ipv6(17, &udp(&A6, &data));
    let inner = [(1, "ipv4", "good"), (1, "tcp", "good")];
    vec![
        same(
            "erspan type I: 0x88be without a sequence number",
            eth(&gre(0, 0x88be, &eth(&tcp4))),
            &[GOOD4, inner[0], inner[1]],
        ),
        case(
            "erspan type II, bad inner tcp",
            eth(&gre(SEQUENCE, 0x88be, &erspan_ii(&eth(&bad_tcp4)))),
            eth(&gre(SEQUENCE, 0x88be, &erspan_ii(&eth(&tcp4)))),
            &[GOOD4, (1, "ipv4", "good"), (1, "tcp", "bad")],
        ),
        case(
            "erspan type II in gre with checksum and key, bad inner tcp",
            eth(&gre(
                CHECKSUM | KEY | SEQUENCE,
                0x88be,
                &erspan_ii(&eth(&bad_tcp4)),
            )),
            eth(&gre(
                CHECKSUM | KEY | SEQUENCE,
                0x88be,
                &erspan_ii(&eth(&tcp4)),
            )),
            &[GOOD4, (1, "ipv4", "good"), (1, "tcp", "bad")],
        ),
        same(
            "erspan type II, vlan tag, ipv6 udp",
            eth(&gre(
                SEQUENCE,
                0x88be,
                &erspan_ii(&ethernet(&[0x8100], 0x86dd, &udp6)),
            )),
            &[GOOD4, (1, "udp", "good")],
        ),
        same(
            "erspan type III, udp",
            eth(&gre(SEQUENCE, 0x22eb, &erspan_iii(0, false, &eth(&udp4)))),
            &[GOOD4, (1, "ipv4", "good"), (1, "udp", "good")],
        ),
        case(
            "erspan type III with subheader, bad inner ipv4 header",
            eth(&gre(
                SEQUENCE,
                0x22eb,
                &erspan_iii(0, true, &eth(&bad_header)),
            )),
            eth(&gre(SEQUENCE, 0x22eb, &erspan_iii(0, true, &eth(&udp4)))),
            &[GOOD4, (1, "ipv4", "bad"), (1, "udp", "good")],
        ),
        same(
            "erspan version 2 in 0x88be is type III",
            eth(&gre(SEQUENCE, 0x88be, &erspan_iii(0, false, &eth(&tcp4)))),
            &[GOOD4, inner[0], inner[1]],
        ),
        same(
            "erspan version 1 in 0x22eb is type II",
            eth(&gre(SEQUENCE, 0x22eb, &erspan_ii(&eth(&tcp4)))),
            &[GOOD4, inner[0], inner[1]],
        ),
        same(
            "erspan 0x22eb without a sequence number: the version decides",
            // The Ethernet destination's first byte, 0x02: version 0.
            eth(&gre(0, 0x22eb, &eth(&tcp4))),
            &[GOOD4],
        ),
        same(
            "erspan version 3: not followed",
            eth(&gre(SEQUENCE, 0x88be, &{
                let mut e = erspan_ii(&eth(&tcp4));
                e[0] = 0x30;
                e
            })),
            &[GOOD4],
        ),
        same(
            "erspan type III of frame type 2: not followed",
            eth(&gre(SEQUENCE, 0x22eb, &erspan_iii(2, false, &tcp4))),
            &[GOOD4],
        ),
        same(
            "erspan type III subheader cut short: not followed",
            eth(&gre(SEQUENCE, 0x22eb, &erspan_iii(0, true, &[])[..16])),
            &[GOOD4],
        ),
    ]
}

// ICMP errors.

/// An ICMP message of type `kind` and code 0, its 4 bytes after the
/// checksum 0, then `quoted`.
fn icmp_error(kind: u8, quoted: &[u8]) -> Vec<u8> {
    let mut m = vec![kind, 0, 0, 0, 0, 0, 0, 0];
    m.extend(quoted);
    let value = checksum(&m);
    m[2..4].copy_from_slice(&value.to_be_bytes());
    m
}

/// An ICMPv6 message of type `kind` and code 0 in IPv6 from A6's source to
/// its destination, its 4 bytes after the checksum 0, then `quoted`.
fn icmpv6_error(kind: u8, quoted: &[u8]) -> Vec<u8> {
    let Addresses::V6(source, destination) = A6 else {
        unreachable!()
    };
    let mut m = vec![kind, 0, 0, 0, 0, 0, 0, 0];
    m.extend(quoted);
    let mut pseudo = source.to_vec();
    pseudo.extend(destination);
    pseudo.extend((m.len() as u32).to_be_bytes());
    pseudo.extend([0, 0, 0, 58]);
    pseudo.extend(&m);
    let value = checksum(&pseudo);
    m[2..4].copy_from_slice(&value.to_be_bytes());
    m
}

fn icmp_cases() -> Vec<Case> {
    let data = payload(40);
    let udp4 = ipv4(17, &udp(&A4, &data));
    let tcp4 = ipv4(6, &tcp(&A4, &data));
    let udp6 = ipv6(17, &udp(&A6, &data));
    let unreachable = |quoted: &[u8]| eth(&ipv4(1, &icmp_error(3, quoted)));
    let exceeded = |quoted: &[u8]| eth(&ipv4(1, &icmp_error(11, quoted)));
    let unreachable6 = |quoted: &[u8]| eth(&ipv6(58, &icmpv6_error(1, quoted)));
    let icmp = (0, "icmp", "good");
    let icmpv6 = (0, "icmpv6", "good");
    let quoted4 = (1, "ipv4", "good");
    let bad_quoted_header = spoil(udp4.clone(), 10);
    let nested = ipv4(1, &icmp_error(3, &udp4[..28]));
    let mut cut_tcp = case(
        "quoted tcp cut after its header: unverified, as udp",
        exceeded(&tcp4[..40]),
        exceeded(&tcp4[..40]),
        &[GOOD4, icmp, quoted4, (1, "tcp", "unverified")],
    );
    // tshark computes the checksum over the 20 bytes quoted, as if the
    // segment ended there: bad.
    cut_tcp.as_tshark = false;
    vec![
        same(
            "port unreachable quoting udp",
            unreachable(&udp4[..28]),
            &[GOOD4, icmp, quoted4, (1, "udp", "unverified")],
        ),
        case(
            "port unreachable quoting a bad ipv4 header",
            unreachable(&bad_quoted_header[..28]),
            unreachable(&udp4[..28]),
            &[GOOD4, icmp, (1, "ipv4", "bad"), (1, "udp", "unverified")],
        ),
        case(
            "port unreachable quoting a bad ipv4 header, bad icmp",
            eth(&ipv4(1, &spoil(icmp_error(3, &bad_quoted_header[..28]), 2))),
            unreachable(&udp4[..28]),
            &[
                GOOD4,
                (0, "icmp", "bad"),
                (1, "ipv4", "bad"),
                (1, "udp", "unverified"),
            ],
        ),
        case(
            "port unreachable quoting a whole udp datagram, bad",
            unreachable(&spoil(udp4.clone(), 26)),
            unreachable(&udp4),
            &[GOOD4, icmp, quoted4, (1, "udp", "bad")],
        ),
        same(
            "source quench, redirect, parameter problem quote too",
            eth(&ipv4(1, &icmp_error(12, &udp4))),
            &[GOOD4, icmp, quoted4, (1, "udp", "good")],
        ),
        same(
            "time exceeded quoting 8 bytes of tcp",
            exceeded(&tcp4[..28]),
            &[GOOD4, icmp, quoted4],
        ),
        case(
            "time exceeded quoting a whole tcp segment, bad",
            exceeded(&spoil(tcp4.clone(), 36)),
            exceeded(&tcp4),
            &[GOOD4, icmp, quoted4, (1, "tcp", "bad")],
        ),
        cut_tcp,
        same(
            "destination unreachable quoting an icmp echo: unverified",
            unreachable(&ipv4(1, &spoil(capture::icmp(&data), 2))),
            &[GOOD4, icmp, quoted4, (1, "icmp", "unverified")],
        ),
        same(
            "icmp quoting ipv6",
            unreachable(&udp6),
            &[GOOD4, icmp, (1, "udp", "good")],
        ),
        same(
            "an error quoting an error",
            exceeded(&nested),
            &[
                GOOD4,
                icmp,
                quoted4,
                (1, "icmp", "unverified"),
                (2, "ipv4", "good"),
                (2, "udp", "unverified"),
            ],
        ),
        same(
            "quoted ipv4 header cut short",
            unreachable(&udp4[..16]),
            &[GOOD4, icmp, (1, "ipv4", "unverified")],
        ),
        same(
            "echo reply: no quoted packet",
            eth(&ipv4(1, &icmp_error(0, &udp4))),
            &[GOOD4, icmp],
        ),
        same(
            "icmpv6 unreachable quoting udp",
            unreachable6(&udp6[..48]),
            &[icmpv6, (1, "udp", "unverified")],
        ),
        case(
            "icmpv6 unreachable quoting a whole udp datagram, bad",
            unreachable6(&spoil(udp6.clone(), 46)),
            unreachable6(&udp6),
            &[icmpv6, (1, "udp", "bad")],
        ),
        same(
            "icmpv6 quoting udp with checksum 0: absent",
            unreachable6(&set16(udp6.clone(), 46, 0)),
            &[icmpv6, (1, "udp", "absent")],
        ),
        same(
            "icmpv6 packet too big quoting an icmpv6 echo: unverified",
            eth(&ipv6(
                58,
                &icmpv6_error(2, &ipv6(58, &capture::icmpv6(&A6, &data))),
            )),
            &[icmpv6, (1, "icmpv6", "unverified")],
        ),
        same(
            "icmpv6 quoting ipv4: not decoded",
            unreachable6(&udp4),
            &[icmpv6],
        ),
    ]
}

fn cases() -> Vec<Case> {
    let mut cases = erspan_cases();
    cases.extend(icmp_cases());
    cases
}

/// The lines verify must print for `cases`, one frame each.
fn expected(cases: &[&Case]) -> Vec<(u64, u8, String, String)> {
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
fn verify_reports_each_case() {
    let dir = temp_dir("decoders-verify");
    for c in cases() {
        let file = dir.join("case.pcap");
        fs::write(&file, ethernet_pcap(std::slice::from_ref(&c.input))).unwrap();
        assert_eq!(verify_lines(&file), expected(&[&c]), "{}", c.name);
    }
    fs::remove_dir_all(dir).unwrap();
}

#[test]
fn fix_makes_each_frame_right_and_then_verify_finds_none_bad() {
    let dir = temp_dir("decoders-fix");
    for c in cases() {
        assert_fix_writes(&dir, c.name, &c.input, &c.fixed);
    }
    fs::remove_dir_all(dir).unwrap();
}

/// A quoted packet cut short before a checksum field (its upper layer's,
/// or its IPv4 header's) was cut by the ICMP error's sender, not by the
/// capture: nothing is left unverified, and `--strict` finds nothing to
/// complain of. (One cut after its IPv4 checksum field has that checksum
/// reported unverified.)
#[test]
fn a_quoted_packet_cut_short_leaves_nothing_unverified() {
    let dir = temp_dir("decoders-strict");
    let file = dir.join("cut.pcap");
    let tcp4 = ipv4(6, &tcp(&A4, &payload(40)));
    let udp6 = ipv6(17, &udp(&A6, &payload(40)));
    let frames = [
        eth(&ipv4(1, &icmp_error(11, &tcp4[..28]))),
        eth(&ipv4(1, &icmp_error(3, &tcp4[..8]))),
        eth(&ipv6(58, &icmpv6_error(1, &udp6[..44]))),
    ];
    fs::write(&file, ethernet_pcap(&frames)).unwrap();
    let out = fastpath(&["pcap", "verify", "--strict", path(&file)]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    // A tunnel's inner packet cut short by the capture is a gap.
    let cut = frame(1, eth(&ipv4(4, &tcp4)));
    let cut = Frame {
        snaplen: Some(14 + 20 + 30),
        ..cut
    };
    let pcap = write(
        Format::Pcap {
            nanosecond: false,
            big_endian: false,
        },
        &[cut],
    );
    fs::write(&file, pcap).unwrap();
    let out = fastpath(&["pcap", "verify", "--strict", path(&file)]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    fs::remove_dir_all(dir).unwrap();
}

/// The verdicts expected of each case are tshark's, but where a case says
/// otherwise; before and after fix. Skipped if tshark is not installed.
#[test]
fn tshark_agrees() {
    let cases = cases();
    let cases: Vec<&Case> = cases.iter().filter(|c| c.as_tshark).collect();
    let input: Vec<_> = cases.iter().map(|c| c.input.clone()).collect();
    assert_tshark_agrees("decoders-tshark", &input, &expected(&cases));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Any case's IP packet, its bytes changed and cut anywhere: inspected
    /// and fixed without a panic, fixed to no bad checksum, with nothing
    /// but checksum fields changed.
    #[test]
    fn fuzz_mutated_cases(
        pick in any::<prop::sample::Index>(),
        mutations in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..6),
        cut in any::<prop::sample::Index>(),
    ) {
        let cases = cases();
        let ip = mutated_ip(&cases[pick.index(cases.len())].input, &mutations, cut);
        prop_assert_eq!(fix_changes_only_checksums(&ip), Ok(()));
    }
}
