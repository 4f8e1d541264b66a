//! `fastpath::packet` on any bytes: never a panic, and the checksums it
//! writes verify, both by its own functions and by `fastpath::reference`
//! over a pseudo-header built here by hand.
//!
//! The input is one control byte (which protocols `fix` may write, the NAT
//! rewrite's endpoint, address and port) followed by the packet, from its IP
//! header on: the committed seeds are real packets behind a control byte.

#![no_main]

use fastpath::packet::incremental::{self, Endpoint};
use fastpath::packet::partial::{self, SeedLength};
use fastpath::packet::{self, Error, Protocol, ProtocolSet, Status, ipv4, l4};
use fastpath::reference;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: &[u8]| {
    let Some((&control, original)) = input.split_first() else {
        return;
    };
    let analysis = packet::analyze(original);
    let _ = packet::upper(original);
    let _ = ipv4::header_len(original);
    let _ = ipv4::verify_header(original);
    let _ = l4::verify(original);
    let _ = l4::verify_complete(original, u16::from(control) * 257);
    let l4_checksum = l4::checksum(original);

    // Split anywhere, the packet gives the same value or error.
    let cut = usize::from(control) % (original.len() + 1);
    let (head, tail) = original.split_at(cut);
    assert_eq!(l4::checksum_vectored([head, tail]), l4_checksum, "split at {cut}");
    assert_eq!(l4::verify_vectored(original.chunks(1 + cut / 8)), l4::verify(original));

    // What analyze reports agrees with the single-purpose functions.
    if let Ok(analysis) = &analysis {
        for report in analysis.reports() {
            if report.status == Status::Good || report.status == Status::Bad {
                let good = report.status == Status::Good;
                let verified = match report.protocol {
                    Protocol::Ipv4 => ipv4::verify_header(original),
                    _ => l4::verify(original),
                };
                assert_eq!(verified, Ok(good), "{report:?}");
            }
        }
    }

    // fix: afterwards nothing is bad, a second fix changes nothing, and
    // only checksum fields changed. UDP's bit selects UDP-Lite too.
    let only = [
        &[Protocol::Ipv4][..],
        &[Protocol::Tcp],
        &[Protocol::Udp, Protocol::UdpLite],
        &[Protocol::Icmp],
        &[Protocol::Icmpv6],
    ]
    .into_iter()
    .enumerate()
    .filter(|&(bit, _)| control >> (3 + bit) & 1 == 1)
    .flat_map(|(_, protocols)| protocols.iter().copied())
    .collect::<ProtocolSet>();
    let mut fixed = original.to_vec();
    if let Ok(before) = packet::fix(&mut fixed, only) {
        let after = packet::analyze(&fixed).expect("fix keeps an analyzable packet");
        for report in after.reports() {
            if only.contains(report.protocol) {
                assert_ne!(report.status, Status::Bad, "after fix: {report:?}");
            }
        }
        let mut again = fixed.clone();
        packet::fix(&mut again, only).unwrap();
        assert_eq!(again, fixed, "a second fix changed the packet");
        let fields: Vec<usize> = before.reports().map(|r| r.offset).collect();
        for (i, (a, b)) in original.iter().zip(&fixed).enumerate() {
            if a != b {
                assert!(
                    fields.iter().any(|&f| i == f || i == f + 1),
                    "fix wrote byte {i}"
                );
            }
        }
    }

    // The IPv4 header checksum written verifies, and the header then sums
    // to all ones by the reference.
    let mut header = original.to_vec();
    if let Ok(value) = ipv4::write_header_checksum(&mut header) {
        assert_eq!(ipv4::verify_header(&header), Ok(true));
        assert_eq!(ipv4::header_checksum(&header), Ok(value));
        let len = ipv4::header_len(&header).unwrap();
        assert_eq!(reference::sum(&header[..len]), 0xffff);
    }

    // The upper-layer checksum written verifies, equals what l4::checksum
    // said, and checks by the reference over a pseudo-header built here.
    let mut written = original.to_vec();
    match l4::write_checksum(&mut written) {
        Ok(value) => {
            assert_eq!(l4_checksum, Ok(value));
            assert_eq!(l4::verify(&written), Ok(true));
            if packet::upper(&written).is_ok_and(|upper| upper.protocol == 17) {
                assert_ne!(value, 0, "a UDP checksum of 0 means none");
            }
            if let Some(sum) = reference_l4_sum(&written) {
                assert_eq!(sum, 0xffff, "by the reference");
            }
        }
        Err(e) => {
            assert_eq!(l4_checksum, Err(e));
            assert_eq!(written, original, "written on an error");
        }
    }

    // Offload: the seed, completed as a device does over the data up to the
    // end of the upper layer (a UDP datagram may end before the IP payload),
    // verifies. UDP-Lite whose coverage stops short of the datagram, which
    // a device's sum to the end cannot give, is refused.
    let mut offloaded = original.to_vec();
    if let Ok(upper) = packet::upper(original)
        && upper.end <= original.len()
    {
        let udp_len = original.get(upper.offset + 4..upper.offset + 6);
        let end = match (upper.protocol, udp_len) {
            (17, Some(&[hi, lo])) => upper
                .end
                .min(upper.offset + usize::from(u16::from_be_bytes([hi, lo]))),
            _ => upper.end,
        };
        offloaded.truncate(end);
        let unpadded = offloaded.clone();
        match partial::write_seed(&mut offloaded, SeedLength::Included) {
            Ok(offload) => {
                partial::complete(&mut offloaded, offload.csum_start, offload.csum_offset)
                    .unwrap();
                if l4::checksum(&unpadded).is_ok() {
                    assert_eq!(l4::verify(&offloaded), Ok(true), "seed then complete");
                }
            }
            Err(Error::PartialCoverage) => {
                assert_eq!(upper.protocol, 136, "partial coverage is UDP-Lite's");
                assert_eq!(offloaded, unpadded, "written on an error");
            }
            Err(_) => assert_eq!(offloaded, unpadded, "written on an error"),
        }
    }
    // complete at any place: an error writes nothing.
    let mut completed = original.to_vec();
    let (start, offset) = (usize::from(control >> 4) * 4, usize::from(control & 15) * 2);
    if partial::complete(&mut completed, start, offset).is_err() {
        assert_eq!(completed, original);
    }

    // NAT: on a packet whose checksums are all good, a rewrite keeps them
    // good; an error writes nothing.
    let mut nat = fixed.clone();
    let endpoint = if control & 1 == 0 {
        Endpoint::Source
    } else {
        Endpoint::Destination
    };
    let port = (control & 2 != 0).then_some(u16::from(control) * 257);
    let result = match nat.first().map(|b| b >> 4) {
        Some(4) => incremental::rewrite_ipv4(&mut nat, endpoint, [control, 0, 113, 7].into(), port),
        Some(6) => incremental::rewrite_ipv6(&mut nat, endpoint, [control; 16].into(), port),
        _ => Err(Error::Truncated),
    };
    match result {
        Ok(()) => {
            if let (Ok(before), Ok(after)) = (packet::analyze(&fixed), packet::analyze(&nat)) {
                for (b, a) in before.reports().zip(after.reports()) {
                    if b.status == Status::Good {
                        assert_eq!(a.status, Status::Good, "after NAT: {b:?} -> {a:?}");
                    }
                }
            }
        }
        Err(_) => assert_eq!(nat, fixed, "NAT wrote on an error"),
    }

    // RFC 1624 against recomputation, on the bytes as data: a 16-bit word
    // at an even offset changes.
    if original.len() >= 4 {
        let at = usize::from(control) % (original.len() / 2) * 2;
        let mut data = original.to_vec();
        let before = fastpath::checksum(&data);
        let old = u16::from_be_bytes([data[at], data[at + 1]]);
        let new = old.rotate_left(u32::from(control & 15)) ^ u16::from(control);
        data[at..at + 2].copy_from_slice(&new.to_be_bytes());
        let recomputed = fastpath::checksum(&data);
        let updated = incremental::update16(before, old, new);
        // The functions assume data that is not all zero (see the module's
        // documentation): its checksum, 0xffff, is the one an update can't
        // tell from UDP's 0 sent as 0xffff.
        if data.iter().any(|&b| b != 0) && original.iter().any(|&b| b != 0) {
            assert_eq!(
                updated, recomputed,
                "update16 at {at}: {old:#06x} -> {new:#06x}"
            );
        }
    }
});

/// The upper layer's sum by the reference, checksum field included, for a
/// TCP, UDP or ICMP packet right after an IPv4 header or a bare IPv6 header
/// (no extension headers), whole and unfragmented: pseudo-header (RFC 793,
/// RFC 768, RFC 8200 §8.1) and data laid end to end. All ones if the
/// checksum is right.
fn reference_l4_sum(packet: &[u8]) -> Option<u16> {
    let upper = packet::upper(packet).ok()?;
    let data = packet.get(upper.offset..upper.end)?;
    let mut bytes = Vec::new();
    match (upper.version, upper.protocol) {
        (4, 1) => {}
        (4, 6 | 17) => {
            bytes.extend_from_slice(&packet[12..20]);
            bytes.extend_from_slice(&[0, upper.protocol]);
            bytes.extend_from_slice(&u16::try_from(data.len()).ok()?.to_be_bytes());
        }
        (6, 6 | 17 | 58) if packet[6] == upper.protocol => {
            bytes.extend_from_slice(&packet[8..40]);
            bytes.extend_from_slice(&u32::try_from(data.len()).ok()?.to_be_bytes());
            bytes.extend_from_slice(&[0, 0, 0, upper.protocol]);
        }
        _ => return None,
    }
    // UDP's own length may end the datagram before the IP payload does.
    let data = if upper.protocol == 17 {
        let udp_len = usize::from(u16::from_be_bytes([*data.get(4)?, *data.get(5)?]));
        let data = data.get(..udp_len)?;
        let len_at = bytes.len() - if upper.version == 4 { 2 } else { 8 };
        if upper.version == 4 {
            bytes[len_at..].copy_from_slice(&(udp_len as u16).to_be_bytes());
        } else {
            bytes[len_at..len_at + 4].copy_from_slice(&(udp_len as u32).to_be_bytes());
        }
        data
    } else {
        data
    };
    bytes.extend_from_slice(data);
    Some(reference::sum(&bytes))
}
