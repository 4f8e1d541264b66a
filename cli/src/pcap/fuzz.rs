//! Property tests over random and mutated captures: reading, inspecting and
//! fixing any bytes ends with a verdict or an error, never a panic or a
//! hang; and a fix leaves nothing bad and changes nothing but checksum
//! fields.

use std::io::Write;

use fastpath::packet::{ProtocolSet, Status};
use proptest::collection::vec;
use proptest::prelude::*;

use super::inspect::{Inspector, Kind};
use super::layers;
use super::link::{self, Network};
use super::read::{Access, Capture};

fn ipv4(protocol: u8, options: &[u8], payload: &[u8]) -> Vec<u8> {
    let header = 20 + options.len();
    let total = (header + payload.len()) as u16;
    let mut p = vec![0x40 | (header / 4) as u8, 0];
    p.extend(total.to_be_bytes());
    p.extend([0, 1, 0x40, 0, 64, protocol, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2]);
    p.extend(options);
    p.extend(payload);
    p
}

fn ipv6(next: u8, payload: &[u8]) -> Vec<u8> {
    let mut p = vec![0x60, 0, 0, 0];
    p.extend((payload.len() as u16).to_be_bytes());
    p.extend([next, 64]);
    p.extend([0x20, 1, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
    p.extend([0x20, 1, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2]);
    p.extend(payload);
    p
}

fn l4(header: &[u8], payload_len: usize) -> Vec<u8> {
    let mut s = header.to_vec();
    s.extend((0..payload_len).map(|i| i as u8));
    s
}

fn udp(destination: u16, payload: &[u8]) -> Vec<u8> {
    let mut s = vec![0x9c, 0x40];
    s.extend(destination.to_be_bytes());
    s.extend(((8 + payload.len()) as u16).to_be_bytes());
    // Not 0, which over IPv4 is no checksum, and fix leaves.
    s.extend([0x12, 0x34]);
    s.extend(payload);
    s
}

fn eth(tags: usize, ip: &[u8]) -> Vec<u8> {
    let mut f = vec![2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1];
    for _ in 0..tags {
        f.extend([0x81, 0x00, 0, 7]);
    }
    f.extend(if ip[0] >> 4 == 4 {
        [8, 0]
    } else {
        [0x86, 0xdd]
    });
    f.extend(ip);
    f
}

/// Frames of every shape decoded, checksums right: (link type, bytes).
fn seeds() -> Vec<(u16, Vec<u8>)> {
    let tcp = l4(
        &[
            0x9c, 0x40, 0, 80, 0, 0, 0, 1, 0, 0, 0, 0, 0x50, 0x10, 1, 0, 0, 0, 0, 0,
        ],
        30,
    );
    let icmp = l4(&[8, 0, 0, 0, 0, 1, 0, 1], 20);
    let icmpv6 = l4(&[128, 0, 0, 0, 0, 1, 0, 1], 20);
    let inner = eth(0, &ipv4(6, &[], &tcp));
    let mut vxlan = vec![8, 0, 0, 0, 0, 0, 1, 0];
    vxlan.extend(&inner);
    let mut gre = vec![0xb0, 0, 0x86, 0xdd, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 9];
    gre.extend(ipv6(17, &udp(53, b"query")));
    let mut chain = vec![43, 0, 1, 4, 0, 0, 0, 0]; // Hop-by-Hop
    chain.extend([44, 4, 0, 1, 0, 0, 0, 0]); // Routing type 0, 2 addresses
    chain.extend([0x20, 1, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3]);
    chain.extend([0x20, 1, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4]);
    chain.extend([60, 0, 0, 0, 0, 0, 0, 7]); // Fragment, atomic
    chain.extend([17, 0, 1, 4, 0, 0, 0, 0]); // Destination Options
    chain.extend(udp(9, b"data"));
    let mut teb = vec![0x20, 0, 0x65, 0x58, 0, 0, 0, 1];
    teb.extend(eth(2, &ipv6(58, &icmpv6)));
    let mut frames = vec![
        (1, eth(2, &ipv4(17, &[], &udp(4789, &vxlan)))),
        (1, eth(0, &ipv4(47, &[], &gre))),
        (1, eth(1, &ipv6(0, &chain))),
        (
            113,
            [
                &[0, 0, 0, 1, 0, 6, 1, 2, 3, 4, 5, 6, 0, 0, 8, 0][..],
                &ipv4(1, &[1, 1, 1, 0], &icmp),
            ]
            .concat(),
        ),
        (
            0,
            [&[2, 0, 0, 0][..], &ipv4(4, &[], &ipv4(6, &[], &tcp))].concat(),
        ),
        (101, ipv6(41, &ipv6(58, &icmpv6))),
        (
            276,
            [
                &[0x86, 0xdd, 0, 0, 0, 0, 0, 1, 0, 1, 0, 6][..],
                &[0; 8],
                &ipv6(6, &tcp),
            ]
            .concat(),
        ),
        (1, eth(0, &ipv4(47, &[], &teb))),
        // MPLS, two labels, the second the bottom of the stack.
        (
            1,
            [
                &[2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x88, 0x47][..],
                &[0, 0x10, 0, 64, 0, 0x20, 1, 64],
                &ipv4(17, &[], &udp(53, b"label")),
            ]
            .concat(),
        ),
        // PPP in HDLC-like framing, Cisco HDLC.
        (
            9,
            [&[0xff, 0x03, 0x00, 0x21][..], &ipv4(6, &[], &tcp)].concat(),
        ),
        (
            104,
            [&[0x0f, 0x00, 0x86, 0xdd][..], &ipv6(6, &tcp)].concat(),
        ),
        // A PPPoE session in Ethernet.
        (1, {
            let ip = ipv4(1, &[], &icmp);
            let mut f = vec![
                2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x88, 0x64, 0x11, 0, 0, 1,
            ];
            f.extend(((ip.len() + 2) as u16).to_be_bytes());
            f.extend([0x00, 0x21]);
            f.extend(ip);
            f
        }),
        // NFLOG: a prefix TLV, then the payload TLV (lengths little-endian).
        (239, {
            let ip = ipv6(17, &udp(123, b"ntp"));
            let mut f = vec![10, 0, 0, 1, 8, 0, 10, 0, b'f', b'p', 0, 0];
            f.extend(((4 + ip.len()) as u16).to_le_bytes());
            f.extend(9u16.to_le_bytes());
            f.extend(&ip);
            f.resize(f.len().div_ceil(4) * 4, 0);
            f
        }),
        // 802.11 data behind radiotap, with LLC/SNAP.
        (
            127,
            [
                &[0, 0, 8, 0, 0, 0, 0, 0][..],
                &[0x08, 0x01, 0, 0],
                &[
                    2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 3, 0x10, 0,
                ],
                &[0xaa, 0xaa, 0x03, 0, 0, 0, 0x08, 0x00],
                &ipv4(17, &[], &udp(9, b"wifi")),
            ]
            .concat(),
        ),
        // Geneve with an 8-byte option, then Ethernet; GTP-U with a sequence
        // number and an extension header, then IPv4.
        (1, {
            let mut geneve = vec![
                0x02, 0, 0x65, 0x58, 0, 0, 7, 0, 0x01, 0x02, 0x03, 0x01, 0, 0, 0, 0,
            ];
            geneve.extend(eth(1, &ipv6(58, &icmpv6)));
            eth(0, &ipv4(17, &[], &udp(6081, &geneve)))
        }),
        (1, {
            let inner = ipv4(6, &[], &tcp);
            let mut gtp = vec![0x36, 0xff];
            gtp.extend(((inner.len() + 8) as u16).to_be_bytes());
            gtp.extend([0, 0, 0, 1, 0, 7, 0, 0x85, 1, 0x09, 0, 0]);
            gtp.extend(&inner);
            eth(0, &ipv6(17, &udp(2152, &gtp)))
        }),
    ];
    for (link, frame) in &mut frames {
        if let Network::Ip(at) = link::locate(*link, frame) {
            layers::fix(&mut frame[at..], ProtocolSet::ALL, &mut Vec::new()).unwrap();
        }
    }
    frames
}

/// A capture of `frames`: pcap, or pcapng with one interface per frame.
fn capture(pcapng: bool, frames: &[(u16, Vec<u8>)]) -> Vec<u8> {
    let mut out = Vec::new();
    if !pcapng {
        out.extend([
            0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0,
        ]);
        out.extend(u32::from(frames[0].0).to_le_bytes());
        for (_, f) in frames {
            out.extend([0; 8]);
            out.extend((f.len() as u32).to_le_bytes());
            out.extend((f.len() as u32).to_le_bytes());
            out.extend(f);
        }
        return out;
    }
    let block = |out: &mut Vec<u8>, kind: u32, body: &[u8]| {
        let len = (12 + body.len().div_ceil(4) * 4) as u32;
        out.extend(kind.to_le_bytes());
        out.extend(len.to_le_bytes());
        out.extend(body);
        out.resize(out.len().div_ceil(4) * 4, 0);
        out.extend(len.to_le_bytes());
    };
    block(
        &mut out,
        0x0a0d_0d0a,
        &[
            0x4d, 0x3c, 0x2b, 0x1a, 1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        ],
    );
    for (i, (link, f)) in frames.iter().enumerate() {
        let mut idb = link.to_le_bytes().to_vec();
        idb.extend([0, 0, 0, 0, 0, 0]);
        block(&mut out, 1, &idb);
        let mut epb = (i as u32).to_le_bytes().to_vec();
        epb.extend([0; 8]);
        epb.extend((f.len() as u32).to_le_bytes());
        epb.extend((f.len() as u32).to_le_bytes());
        epb.extend(f);
        epb.resize(epb.len().div_ceil(4) * 4, 0);
        epb.extend([1, 0, 3, 0, b'a', b'b', b'c', 0, 0, 0, 0, 0]);
        block(&mut out, 6, &epb);
    }
    out
}

/// Reads, inspects and fixes every frame of `bytes` as a file, checking
/// that a fix leaves no bad checksum and changes only checksum fields:
/// the number of IP frames.
fn exercise(bytes: &[u8]) -> Result<usize, TestCaseError> {
    let mut file = tempfile::NamedTempFile::new().unwrap();
    file.write_all(bytes).unwrap();
    let Ok(mut capture) = Capture::open(file.path(), Access::Map) else {
        return Ok(0);
    };
    let mut ip_frames = 0;
    let mut inspector = Inspector::default();
    let mut fixed = Vec::new();
    // Each block consumes at least 12 bytes: the loop ends.
    for _ in 0..=bytes.len() {
        let Ok(Some(block)) = capture.next_block() else {
            return Ok(ip_frames);
        };
        let Some(frame) = block.frame else { continue };
        let data = frame.data(block.raw);
        if inspector.inspect(&frame, data) != Kind::Ip {
            continue;
        }
        ip_frames += 1;
        let Some(Network::Ip(at)) = frame.link.map(|link| link::locate(link, data)) else {
            unreachable!()
        };
        let mut copy = data[at..].to_vec();
        fixed.clear();
        if layers::fix(&mut copy, ProtocolSet::ALL, &mut fixed).is_err() {
            continue;
        }
        let mut after = Vec::new();
        prop_assert!(layers::inspect(&copy, &mut after).is_ok());
        prop_assert!(
            after.iter().all(|l| l.report.status != Status::Bad),
            "bad after fix: {after:?}"
        );
        let mut fields = Vec::new();
        layers::checksum_fields(&data[at..], &mut fields);
        for i in 0..copy.len() {
            if copy[i] != data[at + i] {
                prop_assert!(
                    fields.iter().any(|&f| (f..f + 2).contains(&i)),
                    "byte {i} changed: {fixed:?}"
                );
            }
        }
    }
    panic!("more blocks than bytes");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_after_a_magic(magic in 0..3usize, rest in vec(any::<u8>(), 0..600)) {
        let mut bytes = match magic {
            0 => vec![0xd4, 0xc3, 0xb2, 0xa1],
            1 => vec![0xa1, 0xb2, 0x3c, 0x4d],
            _ => vec![0x0a, 0x0d, 0x0d, 0x0a],
        };
        bytes.extend(rest);
        exercise(&bytes)?;
    }

    #[test]
    fn mutated_captures(
        pcapng in any::<bool>(),
        picks in vec(any::<prop::sample::Index>(), 1..6),
        mutations in vec((any::<prop::sample::Index>(), any::<u8>()), 0..6),
        cut in any::<prop::sample::Index>(),
        truncate in any::<bool>(),
    ) {
        let seeds = seeds();
        // pcap files have one link type: the first frame's.
        let link = seeds[picks[0].index(seeds.len())].0;
        let frames: Vec<_> = picks
            .iter()
            .map(|i| seeds[i.index(seeds.len())].clone())
            .filter(|f| pcapng || f.0 == link)
            .collect();
        let mut bytes = capture(pcapng, &frames);
        for (at, value) in &mutations {
            let i = at.index(bytes.len());
            bytes[i] = *value;
        }
        if truncate {
            bytes.truncate(cut.index(bytes.len() + 1));
        }
        exercise(&bytes)?;
    }
}

#[test]
fn clean_captures_read_back() {
    let seeds = seeds();
    assert_eq!(exercise(&capture(true, &seeds)).unwrap(), seeds.len());
    assert_eq!(exercise(&capture(false, &seeds[..3])).unwrap(), 3);
}

#[test]
fn seeds_are_clean_and_decoded() {
    let mut inspector = Inspector::default();
    for (link, frame) in seeds() {
        let frame_info = super::read::Frame {
            link: Some(link),
            start: 0,
            len: frame.len(),
            original_len: 0,
        };
        assert_eq!(inspector.inspect(&frame_info, &frame), Kind::Ip);
        assert!(
            !inspector.layers.is_empty(),
            "{link}: {:?}",
            inspector.layers
        );
        assert!(
            inspector
                .layers
                .iter()
                .all(|l| l.report.status == Status::Good),
            "{:?}",
            inspector.layers
        );
    }
}
