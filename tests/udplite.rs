//! UDP-Lite (RFC 3828) in `fastpath::packet`: the checksum over the bytes
//! that Checksum Coverage names, with the pseudo-header of the whole
//! datagram, against a plain reference and the values tshark 4.0 computes;
//! its illegal zero and coverages; split buffers and NAT rewrites.

use fastpath::packet::incremental::{self, Endpoint};
use fastpath::packet::{self, Error, Protocol, ProtocolSet, Status, l4};

/// The ones'-complement sum of `data` as big-endian words, folded, an odd
/// last byte padded with zero.
fn sum(data: &[u8]) -> u32 {
    let mut total: u32 = data
        .chunks(2)
        .map(|w| u32::from(u16::from_be_bytes([w[0], *w.get(1).unwrap_or(&0)])))
        .sum();
    while total > 0xffff {
        total = (total & 0xffff) + (total >> 16);
    }
    total
}

/// The UDP-Lite checksum of `datagram` between `src` and `dst` (4 or 16
/// bytes each), as RFC 3828 §3.1 defines it.
fn reference(src: &[u8], dst: &[u8], datagram: &[u8]) -> u16 {
    let coverage = usize::from(u16::from_be_bytes([datagram[4], datagram[5]]));
    let covered = if coverage == 0 {
        datagram.len()
    } else {
        coverage
    };
    let mut bytes = src.to_vec();
    bytes.extend_from_slice(dst);
    if src.len() == 4 {
        bytes.extend_from_slice(&[0, 136]);
        bytes.extend_from_slice(&(datagram.len() as u16).to_be_bytes());
    } else {
        bytes.extend_from_slice(&(datagram.len() as u32).to_be_bytes());
        bytes.extend_from_slice(&[0, 0, 0, 136]);
    }
    let mut data = datagram[..covered].to_vec();
    data[6..8].fill(0);
    let total = sum(&[sum(&bytes).to_be_bytes()[2..].to_vec(), data].concat());
    match !(total as u16) {
        0 => 0xffff,
        checksum => checksum,
    }
}

const SRC4: [u8; 4] = [10, 0, 0, 1];
const DST4: [u8; 4] = [10, 0, 0, 2];

/// An IPv4 packet of UDP-Lite from 10.0.0.1:1234 to 10.0.0.2:5678 with
/// `coverage`, `payload`, and `checksum` in its field.
fn ipv4(coverage: u16, payload: &[u8], checksum: u16) -> Vec<u8> {
    let total = (20 + 8 + payload.len()) as u16;
    let mut packet = vec![0x45, 0, 0, 0, 0, 1, 0, 0, 64, 136, 0, 0];
    packet[2..4].copy_from_slice(&total.to_be_bytes());
    packet.extend_from_slice(&SRC4);
    packet.extend_from_slice(&DST4);
    let header = !(sum(&packet) as u16);
    packet[10..12].copy_from_slice(&header.to_be_bytes());
    packet.extend_from_slice(&1234u16.to_be_bytes());
    packet.extend_from_slice(&5678u16.to_be_bytes());
    packet.extend_from_slice(&coverage.to_be_bytes());
    packet.extend_from_slice(&checksum.to_be_bytes());
    packet.extend_from_slice(payload);
    packet
}

/// An IPv6 packet of UDP-Lite from fd00::1 to fd00::2, as [`ipv4`].
fn ipv6(coverage: u16, payload: &[u8], checksum: u16) -> Vec<u8> {
    let mut packet = vec![0x60, 0, 0, 0];
    packet.extend_from_slice(&((8 + payload.len()) as u16).to_be_bytes());
    packet.extend_from_slice(&[136, 64]);
    let mut src = [0u8; 16];
    src[0] = 0xfd;
    src[15] = 1;
    let mut dst = src;
    dst[15] = 2;
    packet.extend_from_slice(&src);
    packet.extend_from_slice(&dst);
    packet.extend_from_slice(&1234u16.to_be_bytes());
    packet.extend_from_slice(&5678u16.to_be_bytes());
    packet.extend_from_slice(&coverage.to_be_bytes());
    packet.extend_from_slice(&checksum.to_be_bytes());
    packet.extend_from_slice(payload);
    packet
}

/// The report on the upper layer of `packet`.
fn report(packet: &[u8]) -> packet::Report {
    let analysis = packet::analyze(packet).expect("an IP packet");
    analysis.l4.expect("an upper layer")
}

const PAYLOAD: &[u8] = b"hello world!1234";

#[test]
fn values_tshark_computes() {
    // tshark 4.0.17 (`-o udp.check_checksum:TRUE`) on these packets: Good
    // with these checksums, and "Bad checksum [should be 0xfb7e]".
    for (coverage, value) in [(0, 0xda06), (8, 0xd054), (12, 0xfb7e)] {
        let packet = ipv4(coverage, PAYLOAD, value);
        assert_eq!(l4::checksum(&packet), Ok(value), "coverage {coverage}");
        assert_eq!(l4::verify(&packet), Ok(true));
        let r = report(&packet);
        assert_eq!(
            (r.protocol, r.status, r.computed),
            (Protocol::UdpLite, Status::Good, value)
        );
    }
    let packet = ipv4(12, PAYLOAD, 0xfb7e ^ 0x1111);
    let r = report(&packet);
    assert_eq!((r.status, r.computed), (Status::Bad, 0xfb7e));
}

#[test]
fn every_coverage_against_the_reference() {
    for len in 0..=40 {
        let payload: Vec<u8> = (0..len as u8).map(|i| i.wrapping_mul(37) ^ 0x5a).collect();
        for coverage in [0].into_iter().chain(8..=8 + len as u16) {
            let four = ipv4(coverage, &payload, 0);
            let six = ipv6(coverage, &payload, 0);
            let v4 = reference(&SRC4, &DST4, &four[20..]);
            let v6 = reference(&six[8..24], &six[24..40], &six[40..]);
            assert_eq!(l4::checksum(&four), Ok(v4), "len {len} coverage {coverage}");
            assert_eq!(l4::checksum(&six), Ok(v6), "len {len} coverage {coverage}");
            for mut packet in [four, six] {
                // A zero is illegal, over IPv4 too: no "no checksum".
                assert_eq!(l4::verify(&packet), Ok(false));
                assert_eq!(report(&packet).status, Status::Illegal);
                l4::write_checksum(&mut packet).expect("written");
                assert_eq!(l4::verify(&packet), Ok(true));
                assert_eq!(report(&packet).status, Status::Good);
                let start = packet.len() - 8 - len;
                let covered = match coverage {
                    0 => packet.len(),
                    c => start + usize::from(c),
                };
                // Bytes past the coverage are not covered; the last one
                // covered is.
                if covered < packet.len() {
                    *packet.last_mut().expect("a byte") ^= 0xff;
                    assert_eq!(
                        l4::verify(&packet),
                        Ok(true),
                        "len {len} coverage {coverage}"
                    );
                }
                packet[covered - 1] ^= 0x01;
                assert_eq!(
                    l4::verify(&packet),
                    Ok(false),
                    "len {len} coverage {coverage}"
                );
            }
        }
    }
}

#[test]
fn illegal_coverage_is_unverified() {
    // RFC 3828 §3.1: a coverage below 8 or past the datagram is dropped by
    // receivers; tshark: "Bad checksum coverage length value", Unverified.
    for coverage in [1, 4, 7, 8 + PAYLOAD.len() as u16 + 1, 0xffff] {
        let packet = ipv4(coverage, PAYLOAD, 0x1234);
        assert_eq!(
            report(&packet).status,
            Status::Unverified(Error::Length),
            "{coverage}"
        );
        assert_eq!(l4::checksum(&packet), Err(Error::Length));
    }
}

#[test]
fn zero_computed_is_sent_as_all_ones() {
    // Find a payload whose checksum computes to zero: the last two bytes
    // make the sum anything.
    let mut payload = PAYLOAD.to_vec();
    let n = payload.len();
    payload[n - 2..].fill(0);
    let packet = ipv4(0, &payload, 0);
    let partial = l4::checksum(&packet).expect("a checksum");
    // With the current value as data, the sum is all ones: the checksum
    // computes to zero.
    payload[n - 2..].copy_from_slice(&partial.to_be_bytes());
    let packet = ipv4(0, &payload, 0);
    assert_eq!(l4::checksum(&packet), Ok(0xffff));
}

#[test]
fn fix_and_split_buffers() {
    let mut packet = ipv6(12, PAYLOAD, 0xbeef);
    assert_eq!(report(&packet).status, Status::Bad);
    let fixed = packet::fix(&mut packet, ProtocolSet::from(Protocol::UdpLite)).expect("fixed");
    assert_eq!(fixed.l4.expect("a report").status, Status::Bad);
    assert_eq!(report(&packet).status, Status::Good);
    let value = l4::checksum(&packet).expect("a checksum");
    for cut in 0..=packet.len() {
        let (a, b) = packet.split_at(cut);
        assert_eq!(l4::checksum_vectored([a, b]), Ok(value), "cut {cut}");
        assert_eq!(l4::verify_vectored([a, b]), Ok(true), "cut {cut}");
    }
    // `fix` without UDP-Lite in the set leaves it.
    let mut packet = ipv4(0, PAYLOAD, 0xbeef);
    packet::fix(&mut packet, ProtocolSet::EMPTY.with(Protocol::Udp)).expect("analyzed");
    assert_eq!(report(&packet).status, Status::Bad);
}

#[test]
fn nat_rewrite_keeps_it_right() {
    let mut packet = ipv4(10, PAYLOAD, 0);
    l4::write_checksum(&mut packet).expect("written");
    incremental::rewrite_ipv4(
        &mut packet,
        Endpoint::Source,
        [203, 0, 113, 7].into(),
        Some(40000),
    )
    .expect("rewritten");
    assert_eq!(packet[20..22], 40000u16.to_be_bytes());
    assert_eq!(report(&packet).status, Status::Good);
    // An illegal zero stays as it is.
    let mut packet = ipv4(10, PAYLOAD, 0);
    incremental::rewrite_ipv4(
        &mut packet,
        Endpoint::Destination,
        [192, 0, 2, 1].into(),
        Some(53),
    )
    .expect("rewritten");
    assert_eq!(packet[26..28], [0, 0]);
}

#[test]
fn names() {
    assert_eq!(Protocol::UdpLite.name(), "udplite");
    assert_eq!("UDPLite".parse::<Protocol>(), Ok(Protocol::UdpLite));
    assert!(ProtocolSet::ALL.contains(Protocol::UdpLite));
}

#[test]
fn offload_seeds_full_coverage_only() {
    use fastpath::packet::partial::{self, SeedLength};
    // Full coverage, as 0 or as the datagram's length: the device's sum to
    // the end of the packet is the checksum.
    for build in [ipv4, ipv6] {
        for coverage in [0, 8 + PAYLOAD.len() as u16] {
            let mut packet = build(coverage, PAYLOAD, 0xbeef);
            let offload = partial::write_seed(&mut packet, SeedLength::Included).expect("seeded");
            partial::complete(&mut packet, offload.csum_start, offload.csum_offset)
                .expect("completed");
            assert_eq!(l4::verify(&packet), Ok(true), "coverage {coverage}");
        }
        // Partial coverage: refused, whichever length the seed takes, and
        // nothing written.
        for coverage in [8, 12, 8 + PAYLOAD.len() as u16 - 1] {
            for length in [SeedLength::Included, SeedLength::Omitted] {
                let original = build(coverage, PAYLOAD, 0xbeef);
                let mut packet = original.clone();
                assert_eq!(
                    partial::write_seed(&mut packet, length),
                    Err(Error::PartialCoverage),
                    "coverage {coverage}, {length:?}"
                );
                assert_eq!(packet, original);
            }
        }
    }
}

/// The input the `packet` fuzz target found: IPv6 carrying UDP-Lite whose
/// coverage is 13 bytes of a 130-byte datagram, behind two extension
/// headers. It was seeded, and the device's completion did not verify.
#[test]
fn offload_refuses_the_fuzzed_partial_coverage() {
    use fastpath::packet::partial::{self, SeedLength};
    let input = include_bytes!("../fuzz/seeds/packet/ipv6-udplite-partial-coverage");
    let packet = &input[1..];
    let upper = packet::upper(packet).expect("an upper layer");
    assert_eq!(upper.protocol, 136);
    let mut offloaded = packet[..upper.end].to_vec();
    assert_eq!(
        partial::write_seed(&mut offloaded, SeedLength::Included),
        Err(Error::PartialCoverage)
    );
    // Computed in software instead, it verifies.
    l4::write_checksum(&mut offloaded).expect("written");
    assert_eq!(l4::verify(&offloaded), Ok(true));
}
