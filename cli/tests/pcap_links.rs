//! `fastpath pcap verify` and `fastpath pcap fix` on the link layers of
//! IP over InfiniBand (242), ARCNET (BSD 7, Linux 129; RFC 1051 and RFC
//! 1201 framings), Solaris IPNET (226), Apple PKTAP (258, and USER2 149 as
//! Wireshark 4.0 decodes it), Arista's timestamp header after Ethernet's
//! EtherType 0xd28b, and raw IPv6 (229) carrying IPv4: the verdicts of
//! good and bad checksums, the frames `fix` makes of them, and the frames
//! with no IP, counted by reason.

mod capture;

use std::fs;
use std::path::Path;

use capture::*;
use serde_json::Value;

/// A frame as captured, as `fix` must make it, and the verdicts `verify`
/// prints for it: (depth, proto, status).
struct Case {
    input: Vec<u8>,
    fixed: Vec<u8>,
    expect: Vec<(u64, &'static str, &'static str)>,
}

/// A TCP segment over IPv4, and a UDP datagram over IPv6, with right
/// checksums; the same with a wrong TCP or UDP checksum, or a wrong IPv4
/// header checksum.
struct Packets {
    v4: Vec<u8>,
    v4_bad_tcp: Vec<u8>,
    v4_bad_header: Vec<u8>,
    v6: Vec<u8>,
    v6_bad_udp: Vec<u8>,
}

fn packets() -> Packets {
    let data: Vec<u8> = (0..48).map(|i| (i * 5 + 1) as u8).collect();
    let v4 = ipv4(6, &tcp(&A4, &data));
    let v6 = ipv6(17, &udp(&A6, &data));
    Packets {
        v4_bad_tcp: spoil(v4.clone(), 36),
        v4_bad_header: spoil(v4.clone(), 10),
        v6_bad_udp: spoil(v6.clone(), 46),
        v4,
        v6,
    }
}

/// The cases of the packets above, each wrapped by `wrap` in a frame
/// (given whether the packet is IPv6): bad ones fixed, good ones kept.
fn ip_cases(wrap: &dyn Fn(bool, &[u8]) -> Vec<u8>) -> Vec<Case> {
    let p = packets();
    let tcp_good = vec![(0, "ipv4", "good"), (0, "tcp", "good")];
    vec![
        Case {
            input: wrap(false, &p.v4),
            fixed: wrap(false, &p.v4),
            expect: tcp_good.clone(),
        },
        Case {
            input: wrap(false, &p.v4_bad_tcp),
            fixed: wrap(false, &p.v4),
            expect: vec![(0, "ipv4", "good"), (0, "tcp", "bad")],
        },
        Case {
            input: wrap(false, &p.v4_bad_header),
            fixed: wrap(false, &p.v4),
            expect: vec![(0, "ipv4", "bad"), (0, "tcp", "good")],
        },
        Case {
            input: wrap(true, &p.v6),
            fixed: wrap(true, &p.v6),
            expect: vec![(0, "udp", "good")],
        },
        Case {
            input: wrap(true, &p.v6_bad_udp),
            fixed: wrap(true, &p.v6),
            expect: vec![(0, "udp", "bad")],
        },
    ]
}

/// A case with no IP found: no line, and `fix` leaves it as it is.
fn no_ip(frame: Vec<u8>) -> Case {
    Case {
        input: frame.clone(),
        fixed: frame,
        expect: vec![],
    }
}

/// Writes `cases` as frames of link type `link` in a pcap file, then
/// checks the lines of `verify --json`, the exit status, the file `fix`
/// writes byte for byte, and that `verify` finds nothing bad in it.
/// Returns the summary object of `verify --json-summary`.
fn check(name: &str, link: u16, cases: &[Case]) -> Value {
    let dir = temp_dir(&format!("links-{name}"));
    let file = dir.join(format!("{name}.pcap"));
    let frames = |fixed: bool| -> Vec<Frame> {
        cases
            .iter()
            .map(|c| {
                frame(
                    link,
                    if fixed {
                        c.fixed.clone()
                    } else {
                        c.input.clone()
                    },
                )
            })
            .collect()
    };
    fs::write(&file, pcap(false, false, &frames(false))).unwrap();
    let expected: Vec<Line> = cases
        .iter()
        .enumerate()
        .flat_map(|(i, c)| {
            c.expect.iter().map(move |&(depth, proto, status)| {
                (i as u64 + 1, depth, proto.to_owned(), status.to_owned())
            })
        })
        .collect();
    let (code, lines) = verify(&file);
    assert_eq!(lines, expected, "{name}");
    let any_bad = expected.iter().any(|l| l.3 == "bad");
    assert_eq!(code, Some(i32::from(any_bad)), "{name}");

    let fixed = dir.join(format!("fixed-{name}.pcap"));
    let out = fastpath(&["pcap", "fix", path(&file), "-o", path(&fixed)]);
    assert!(
        out.status.success(),
        "{name}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        fs::read(&fixed).unwrap() == pcap(false, false, &frames(true)),
        "{name}: the fixed capture differs"
    );
    let (code, lines) = verify(&fixed);
    assert_eq!(code, Some(0), "{name}");
    assert!(lines.iter().all(|l| l.3 == "good"), "{name}: {lines:?}");

    let out = fastpath(&["pcap", "verify", "--json-summary", path(&file)]);
    let text = String::from_utf8(out.stdout).unwrap();
    let last = text.lines().last().expect("a summary line");
    let summary: Value = serde_json::from_str(last).unwrap();
    fs::remove_dir_all(dir).unwrap();
    summary["summary"].clone()
}

/// A line of `verify --json`: (frame, depth, proto, status).
type Line = (u64, u64, String, String);

/// The exit status of `verify --json` and its lines.
fn verify(file: &Path) -> (Option<i32>, Vec<Line>) {
    let out = fastpath(&["pcap", "verify", "--json", path(file)]);
    let lines = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|line| {
            let v: Value = serde_json::from_str(line).unwrap();
            (
                v["frame"].as_u64().unwrap(),
                v["depth"].as_u64().unwrap(),
                v["proto"].as_str().unwrap().to_owned(),
                v["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    (out.status.code(), lines)
}

fn ethertype(v6: bool) -> u16 {
    if v6 { 0x86dd } else { 0x0800 }
}

#[test]
fn ip_over_infiniband() {
    let mut cases = ip_cases(&|v6, ip| ipoib(ethertype(v6), ip));
    let p = packets();
    // IPv6 under 0x0800, as Wireshark's "ip" dissector takes it; IPv4
    // under 0x86dd, which it refuses; ARP; a VLAN tag, not followed.
    cases.push(Case {
        input: ipoib(0x0800, &p.v6_bad_udp),
        fixed: ipoib(0x0800, &p.v6),
        expect: vec![(0, "udp", "bad")],
    });
    cases.push(no_ip(ipoib(0x86dd, &p.v4)));
    cases.push(no_ip(ipoib(0x0806, &[0; 28])));
    cases.push(no_ip(ipoib(0x8100, &[&[0, 5, 8, 0][..], &p.v4].concat())));
    let summary = check("ipoib", 242, &cases);
    assert_eq!(summary["not ip"], 3);
    assert_eq!(
        summary["not verified"],
        serde_json::json!({"malformed ip header": 1, "ethertype 0x8100": 1})
    );
}

#[test]
fn arcnet_rfc1051_and_rfc1201_framings() {
    for (link, linux) in [(129, true), (7, false)] {
        for protocol in [240, 212] {
            let cases = ip_cases(&|_, ip| arcnet(linux, protocol, ip));
            check(&format!("arcnet-{link}-{protocol}"), link, &cases);
        }
    }
    let p = packets();
    // A BSD exception frame: 0xff, padding, the protocol ID again, then
    // the split flag and sequence number.
    let exception = |ip: &[u8]| {
        let mut f = vec![0x50, 0xbe, 212, 0xff, 0xff, 0xff, 212, 0x00, 0x00, 0x07];
        f.extend(ip);
        f
    };
    let mut bsd = vec![Case {
        input: exception(&p.v4_bad_tcp),
        fixed: exception(&p.v4),
        expect: vec![(0, "ipv4", "good"), (0, "tcp", "bad")],
    }];
    // ARP of both framings; IPv6's protocol ID, which Wireshark 4.0 does
    // not decode; an RFC 1201 header cut short.
    bsd.push(no_ip(arcnet(false, 241, &[0; 20])));
    bsd.push(no_ip(arcnet(false, 213, &[0; 20])));
    bsd.push(no_ip(arcnet(false, 0xc4, &p.v6)));
    bsd.push(no_ip(vec![0x50, 0xbe, 212, 0]));
    let summary = check("arcnet-bsd-others", 7, &bsd);
    assert_eq!(summary["not ip"], 4);
    assert_eq!(
        summary["not verified"],
        serde_json::json!({"no ip, link type 7": 1, "link header cut": 1})
    );
}

#[test]
fn solaris_ipnet() {
    let family = |v6: bool| if v6 { 26 } else { 2 };
    let mut cases = ip_cases(&|v6, ip| ipnet(family(v6), ip));
    let p = packets();
    // IPv6 under AF_INET, as Wireshark takes it; IPv4 under AF_INET6;
    // an unknown family.
    cases.push(Case {
        input: ipnet(2, &p.v6_bad_udp),
        fixed: ipnet(2, &p.v6),
        expect: vec![(0, "udp", "bad")],
    });
    cases.push(no_ip(ipnet(26, &p.v4)));
    cases.push(no_ip(ipnet(7, &p.v4)));
    // Bytes between the header and the packet, which is the last
    // `length` bytes of the frame.
    let mut gap = ipnet(2, &p.v4_bad_tcp);
    gap.splice(24..24, [0xee; 4]);
    let mut gap_fixed = ipnet(2, &p.v4);
    gap_fixed.splice(24..24, [0xee; 4]);
    cases.push(Case {
        input: gap,
        fixed: gap_fixed,
        expect: vec![(0, "ipv4", "good"), (0, "tcp", "bad")],
    });
    let summary = check("ipnet", 226, &cases);
    assert_eq!(summary["not ip"], 2);
    assert_eq!(
        summary["not verified"],
        serde_json::json!({"malformed ip header": 1, "no ip, link type 226": 1})
    );
}

#[test]
fn pktap_and_user2_as_pktap() {
    for link in [258, 149] {
        let mut cases = ip_cases(&|_, ip| pktap(1, &eth(ip)));
        let p = packets();
        // Inner frames of other link types: BSD loopback, raw IP, Linux
        // cooked; Ethernet with ARP; a link type not decoded; a record
        // that is no packet.
        cases.push(Case {
            input: pktap(0, &family(2, false, &p.v4_bad_tcp)),
            fixed: pktap(0, &family(2, false, &p.v4)),
            expect: vec![(0, "ipv4", "good"), (0, "tcp", "bad")],
        });
        cases.push(Case {
            input: pktap(101, &p.v6_bad_udp),
            fixed: pktap(101, &p.v6),
            expect: vec![(0, "udp", "bad")],
        });
        cases.push(Case {
            input: pktap(113, &sll(0x86dd, &p.v6)),
            fixed: pktap(113, &sll(0x86dd, &p.v6)),
            expect: vec![(0, "udp", "good")],
        });
        cases.push(no_ip(pktap(1, &ethernet(&[], 0x0806, &[0; 28]))));
        cases.push(no_ip(pktap(147, &p.v4)));
        let mut record = pktap(1, &eth(&p.v4));
        record[4] = 2;
        cases.push(no_ip(record));
        let summary = check(&format!("pktap-{link}"), link, &cases);
        assert_eq!(summary["not ip"], 3);
        assert_eq!(
            summary["not verified"],
            serde_json::json!({"link type 147": 1})
        );
    }
}

#[test]
fn arista_timestamps_after_ethernet() {
    let p = packets();
    for version in [0x0010, 0x0110, 0x0020, 0x0120] {
        let mut cases =
            ip_cases(&|v6, ip| ethernet(&[], 0xd28b, &arista(version, ethertype(v6), ip)));
        // A VLAN tag and MPLS after the timestamp.
        let tagged = |ip: &[u8]| {
            let inner = [&[0, 100, 0x88, 0x47][..], &mpls(&[16], ip)].concat();
            ethernet(&[], 0xd28b, &arista(version, 0x8100, &inner))
        };
        cases.push(Case {
            input: tagged(&p.v6_bad_udp),
            fixed: tagged(&p.v6),
            expect: vec![(0, "udp", "bad")],
        });
        check(&format!("arista-{version:04x}"), 1, &cases);
    }
    // Another subtype: the EtherType right after it. An unknown
    // timestamp version: not decoded further. ARP after a timestamp.
    let other = |ip: &[u8]| ethernet(&[], 0xd28b, &[&[0, 2, 0x08, 0x00][..], ip].concat());
    let mut unknown = arista(0x0010, 0x0800, &p.v4);
    unknown[3] = 0x11;
    let cases = [
        Case {
            input: other(&p.v4_bad_tcp),
            fixed: other(&p.v4),
            expect: vec![(0, "ipv4", "good"), (0, "tcp", "bad")],
        },
        no_ip(ethernet(&[], 0xd28b, &unknown)),
        no_ip(ethernet(&[], 0xd28b, &arista(0x0020, 0x0806, &[0; 28]))),
    ];
    let summary = check("arista-others", 1, &cases);
    assert_eq!(summary["not ip"], 2);
    assert_eq!(
        summary["not verified"],
        serde_json::json!({"ethertype 0xd28b": 1})
    );
}

#[test]
fn ipv4_on_a_raw_ipv6_link_is_not_ip() {
    let p = packets();
    let cases = [
        no_ip(p.v4_bad_tcp.clone()),
        Case {
            input: p.v6_bad_udp.clone(),
            fixed: p.v6.clone(),
            expect: vec![(0, "udp", "bad")],
        },
    ];
    let summary = check("raw-ipv6", 229, &cases);
    assert_eq!(summary["not ip"], 1);
    assert_eq!(
        summary["not verified"],
        serde_json::json!({"no ip, link type 229": 1})
    );
}
