//! verify's shorter path for the common frame (Ethernet, one tag at most,
//! IPv4 or IPv6, TCP or UDP, no tunnel) gives exactly what its general walk
//! gives: on every frame of the sample captures, on every prefix of each,
//! and with each of their bytes changed.

mod capture;

use std::io::Cursor;

use capture::*;
use fastpath_cli::pcap::inspect::Inspector;
use fastpath_cli::pcap::read::{Capture, Frame};

/// Both paths on `data`, a frame of `frame`'s link type.
fn agree(inspector: &mut Inspector, frame: &Frame, data: &[u8]) {
    let fast = inspector.inspect_as_captured(frame, data);
    let fast_layers = inspector.layers.clone();
    let walked = inspector.inspect_walked(frame, data);
    assert_eq!(
        (fast, &fast_layers),
        (walked, &inspector.layers),
        "{data:02x?}"
    );
}

/// Common frames of every kind the shorter path takes, and of the kinds
/// next to them that it must leave: bad and good checksums, a UDP zero,
/// stored 0xffff, tunnel ports, IPv4 options and fragments, IPv6
/// extension headers, VLAN tags, padding.
fn frames() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for addresses in [&A4, &A6] {
        let ip = |protocol: u8, l4: &[u8]| match addresses {
            Addresses::V4(..) => ipv4(protocol, l4),
            Addresses::V6(..) => ipv6(protocol, l4),
        };
        for payload in [&b""[..], b"x", b"hello, world", &[0xff; 300], &[0; 64]] {
            let tcp_packet = ip(6, &tcp(addresses, payload));
            let udp_packet = ip(17, &udp(addresses, payload));
            for packet in [tcp_packet, udp_packet] {
                out.push(eth(&packet));
                out.push(eth_padded(&packet));
                out.push(ethernet(&[0x8100], ethertype(&packet), &packet));
                out.push(ethernet(&[0x8100, 0x8100], ethertype(&packet), &packet));
                let field = if packet[0] >> 4 == 4 { 20 } else { 40 }
                    + if packet[if packet[0] >> 4 == 4 { 9 } else { 6 }] == 6 {
                        16
                    } else {
                        6
                    };
                out.push(eth(&spoil(packet.clone(), field)));
                out.push(eth(&set16(packet.clone(), field, 0)));
                out.push(eth(&set16(packet.clone(), field, 0xffff)));
                if packet[0] >> 4 == 4 {
                    out.push(eth(&spoil(packet.clone(), 10)));
                    out.push(eth(&set16(packet.clone(), 10, 0xffff)));
                }
            }
            for port in [2152, 4789, 4790, 6081, 6635, 53] {
                out.push(eth(&ip(17, &udp_ports(addresses, port, 1000, payload))));
                out.push(eth(&ip(17, &udp_ports(addresses, 1000, port, payload))));
            }
        }
    }
    out.push(eth(&ipv4_with(6, &[1, 1, 1, 0], 0, &tcp(&A4, b"options"))));
    out.push(eth(&ipv4_with(
        17,
        &[],
        0x2000,
        &udp(&A4, b"first fragment"),
    )));
    out.push(eth(&ipv4_with(
        17,
        &[],
        0x0001,
        &udp(&A4, b"later fragment"),
    )));
    out.push(eth(&ipv6_with(
        0,
        &[17, 0, 1, 4, 0, 0, 0, 0],
        &udp(&A6, b"hbh"),
    )));
    out
}

fn ethertype(ip: &[u8]) -> u16 {
    if ip[0] >> 4 == 4 { 0x0800 } else { 0x86dd }
}

#[test]
fn the_shorter_path_agrees_with_the_general_walk() {
    let ethernet = Frame {
        link: Some(1),
        start: 0,
        len: 0,
        original_len: 0,
    };
    let mut inspector = Inspector::default();
    let mut frames = frames();
    // And every frame of the Ethernet sample capture of the fuzz seeds.
    let sample = std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../fuzz/seeds/pcap/ethernet-pcap-ns-be.pcap"),
    )
    .unwrap();
    let mut capture = Capture::from_reader(Cursor::new(sample)).unwrap();
    while let Some(block) = capture.next_block().unwrap() {
        if let Some(frame) = block.frame {
            frames.push(frame.data(block.raw).to_vec());
        }
    }
    let mut checked = 0;
    for data in &frames {
        for cut in 0..=data.len() {
            agree(&mut inspector, &ethernet, &data[..cut]);
            checked += 1;
        }
        for at in 0..data.len().min(120) {
            for flip in [0x01, 0x80, 0xff] {
                let mut changed = data.clone();
                changed[at] ^= flip;
                agree(&mut inspector, &ethernet, &changed);
                checked += 1;
            }
        }
    }
    assert!(checked > 10_000, "{checked}");
}

/// `pcap bench --generate --mix` writes a capture of mostly small frames,
/// every checksum right, and times verify on it as verify runs.
#[test]
fn pcap_bench_generates_a_mix_of_small_frames_and_verifies_it() {
    let dir = temp_dir("pcap-bench-mix");
    let file = dir.join("mix.pcap");
    let out = fastpath(&[
        "pcap",
        "bench",
        "--generate",
        "2",
        "--mix",
        "--rounds",
        "1",
        path(&file),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let average: f64 = stdout
        .split(" frames of ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!((120.0..320.0).contains(&average), "{stdout}");
    assert!(stdout.contains("verify "), "{stdout}");
    let verified = fastpath(&["pcap", "verify", path(&file)]);
    assert_eq!(verified.status.code(), Some(0), "{}", stderr(&verified));
    assert!(String::from_utf8_lossy(&verified.stdout).contains("  no bad checksum\n"));
    std::fs::remove_dir_all(dir).unwrap();
}
