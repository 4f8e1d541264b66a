//! `fastpath::packet` against independent implementations (etherparse and
//! smoltcp) on generated packets of every kind it handles, against the
//! vectors of the RFCs, and on the properties that tie it together:
//! verify(compute(p)), incremental update = recomputation, no panic on any
//! bytes.

use core::net::{Ipv4Addr, Ipv6Addr};

use fastpath::packet::incremental::{self, Endpoint};
use fastpath::packet::partial::{self, SeedLength};
use fastpath::packet::{self, Error, Fragment, Protocol, ProtocolSet, Status, ipv4, ipv6, l4};
use proptest::prelude::*;
use smoltcp::wire::{
    Icmpv4Packet, Icmpv6Packet, IpAddress, IpProtocol, Ipv4Packet, TcpPacket, UdpPacket, checksum,
};

// ---------------------------------------------------------------------------
// A packet generator: IPv4 (with options) or IPv6 (with extension headers),
// carrying TCP (with options), UDP, ICMPv4 or ICMPv6, with Ethernet padding.

/// The upper layer of a generated packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Upper {
    Tcp,
    Udp,
    /// ICMPv4 over IPv4, ICMPv6 over IPv6.
    Icmp,
}

/// An IPv6 extension header.
#[derive(Clone, Debug)]
enum Ext {
    /// Hop-by-Hop Options of `(len + 1) * 8` bytes, all Pad1.
    HopByHop(u8),
    /// Destination Options of `(len + 1) * 8` bytes.
    DestinationOptions(u8),
    /// A routing header of type 0, 2 (one address) or 4 (segment routing).
    Routing {
        kind: u8,
        addresses: Vec<[u8; 16]>,
        segments_left: u8,
    },
    /// A Fragment header with offset 0 and M clear (RFC 6946).
    AtomicFragment,
    /// An Authentication Header with this Payload Len.
    Ah(u8),
}

#[derive(Clone, Debug)]
struct Spec {
    ipv6: bool,
    upper: Upper,
    source: [u8; 16],
    destination: [u8; 16],
    ipv4_options: Vec<u8>,
    extensions: Vec<Ext>,
    tcp_options: Vec<u8>,
    /// ICMP type; echo request/reply where etherparse checks the message.
    icmp_type: u8,
    ports: (u16, u16),
    payload: Vec<u8>,
    padding: Vec<u8>,
    /// What the checksum fields hold before anything computes them.
    junk: (u16, u16),
}

/// A generated packet and what the generator knows about it.
#[derive(Clone, Debug)]
struct Built {
    spec: Spec,
    bytes: Vec<u8>,
    /// The upper-layer header: start, and end per the IP lengths.
    l4_start: usize,
    l4_end: usize,
    /// Where the upper-layer checksum field is.
    field: usize,
    source: Vec<u8>,
    /// The pseudo-header's destination.
    final_destination: Vec<u8>,
}

impl Built {
    fn l4(&self) -> &[u8] {
        &self.bytes[self.l4_start..self.l4_end]
    }

    fn protocol(&self) -> Protocol {
        match (self.spec.upper, self.spec.ipv6) {
            (Upper::Tcp, _) => Protocol::Tcp,
            (Upper::Udp, _) => Protocol::Udp,
            (Upper::Icmp, false) => Protocol::Icmp,
            (Upper::Icmp, true) => Protocol::Icmpv6,
        }
    }

    fn stored(&self) -> u16 {
        u16::from_be_bytes([self.bytes[self.field], self.bytes[self.field + 1]])
    }
}

fn protocol_number(upper: Upper, ipv6: bool) -> u8 {
    match (upper, ipv6) {
        (Upper::Tcp, _) => 6,
        (Upper::Udp, _) => 17,
        (Upper::Icmp, false) => 1,
        (Upper::Icmp, true) => 58,
    }
}

fn build(spec: &Spec) -> Built {
    let number = protocol_number(spec.upper, spec.ipv6);
    // The upper layer, its checksum field holding junk.
    let mut l4 = Vec::new();
    let field_in_l4 = match spec.upper {
        Upper::Tcp => {
            l4.extend_from_slice(&spec.ports.0.to_be_bytes());
            l4.extend_from_slice(&spec.ports.1.to_be_bytes());
            l4.extend_from_slice(&[0, 0, 0x12, 0x34, 0, 0, 0x56, 0x78]);
            let data_offset = 5 + spec.tcp_options.len() / 4;
            l4.push((data_offset as u8) << 4);
            l4.push(0x18); // PSH, ACK
            l4.extend_from_slice(&[0xff, 0xff]);
            l4.extend_from_slice(&spec.junk.1.to_be_bytes());
            l4.extend_from_slice(&[0, 0]);
            l4.extend_from_slice(&spec.tcp_options);
            16
        }
        Upper::Udp => {
            l4.extend_from_slice(&spec.ports.0.to_be_bytes());
            l4.extend_from_slice(&spec.ports.1.to_be_bytes());
            l4.extend_from_slice(&((8 + spec.payload.len()) as u16).to_be_bytes());
            l4.extend_from_slice(&spec.junk.1.to_be_bytes());
            6
        }
        Upper::Icmp => {
            l4.extend_from_slice(&[spec.icmp_type, 0]);
            l4.extend_from_slice(&spec.junk.1.to_be_bytes());
            l4.extend_from_slice(&spec.ports.0.to_be_bytes()); // identifier
            l4.extend_from_slice(&spec.ports.1.to_be_bytes()); // sequence number
            2
        }
    };
    l4.extend_from_slice(&spec.payload);

    let mut bytes = Vec::new();
    let (source, final_destination);
    if spec.ipv6 {
        let mut extensions = Vec::new();
        let mut next_headers = Vec::new();
        let mut destination = spec.destination.to_vec();
        for ext in &spec.extensions {
            let start = extensions.len();
            match ext {
                Ext::HopByHop(len) | Ext::DestinationOptions(len) => {
                    next_headers.push(if matches!(ext, Ext::HopByHop(_)) {
                        0
                    } else {
                        60
                    });
                    extensions.extend_from_slice(&[0, *len]);
                    extensions.resize(start + (usize::from(*len) + 1) * 8, 0);
                }
                Ext::Routing {
                    kind,
                    addresses,
                    segments_left,
                } => {
                    next_headers.push(43);
                    let n = addresses.len() as u8;
                    extensions.extend_from_slice(&[0, 2 * n, *kind, *segments_left]);
                    if *kind == 4 {
                        extensions.extend_from_slice(&[n - 1, 0, 0, 0]); // last entry, flags, tag
                    } else {
                        extensions.extend_from_slice(&[0; 4]);
                    }
                    for a in addresses {
                        extensions.extend_from_slice(a);
                    }
                    if *segments_left > 0 {
                        destination = match kind {
                            4 => addresses[0].to_vec(),
                            _ => addresses[addresses.len() - 1].to_vec(),
                        };
                    }
                }
                Ext::AtomicFragment => {
                    next_headers.push(44);
                    extensions.extend_from_slice(&[0, 0, 0, 0, 0xde, 0xad, 0xbe, 0xef]);
                }
                Ext::Ah(payload_len) => {
                    next_headers.push(51);
                    extensions.extend_from_slice(&[0, *payload_len]);
                    extensions.resize(start + (usize::from(*payload_len) + 2) * 4, 0x5a);
                }
            }
        }
        // Chain the Next Header fields: each header names the one after it.
        next_headers.push(number);
        let mut at = 0;
        for (i, ext) in spec.extensions.iter().enumerate() {
            extensions[at] = next_headers[i + 1];
            at += match ext {
                Ext::HopByHop(len) | Ext::DestinationOptions(len) => (usize::from(*len) + 1) * 8,
                Ext::Routing { addresses, .. } => 8 + 16 * addresses.len(),
                Ext::AtomicFragment => 8,
                Ext::Ah(payload_len) => (usize::from(*payload_len) + 2) * 4,
            };
        }
        bytes.extend_from_slice(&[0x60, 0, 0, 0]);
        bytes.extend_from_slice(&((extensions.len() + l4.len()) as u16).to_be_bytes());
        bytes.push(next_headers[0]);
        bytes.push(64);
        bytes.extend_from_slice(&spec.source);
        bytes.extend_from_slice(&spec.destination);
        bytes.extend_from_slice(&extensions);
        source = spec.source.to_vec();
        final_destination = destination;
    } else {
        let header_len = 20 + spec.ipv4_options.len();
        bytes.push(0x40 | (header_len / 4) as u8);
        bytes.push(0);
        bytes.extend_from_slice(&((header_len + l4.len()) as u16).to_be_bytes());
        bytes.extend_from_slice(&[0x12, 0x34, 0x40, 0x00, 64, number]);
        bytes.extend_from_slice(&spec.junk.0.to_be_bytes());
        bytes.extend_from_slice(&spec.source[..4]);
        bytes.extend_from_slice(&spec.destination[..4]);
        bytes.extend_from_slice(&spec.ipv4_options);
        source = spec.source[..4].to_vec();
        final_destination = spec.destination[..4].to_vec();
    }
    let l4_start = bytes.len();
    bytes.extend_from_slice(&l4);
    let l4_end = bytes.len();
    bytes.extend_from_slice(&spec.padding);
    Built {
        spec: spec.clone(),
        bytes,
        l4_start,
        l4_end,
        field: l4_start + field_in_l4,
        source,
        final_destination,
    }
}

fn words(max: usize) -> impl Strategy<Value = Vec<u8>> {
    (0..=max).prop_flat_map(|n| prop::collection::vec(any::<u8>(), n * 4))
}

fn extension() -> impl Strategy<Value = Ext> {
    prop_oneof![
        (0u8..4).prop_map(Ext::HopByHop),
        (0u8..4).prop_map(Ext::DestinationOptions),
        (
            prop::collection::vec(any::<[u8; 16]>(), 1..4),
            any::<u8>(),
            0u8..3
        )
            .prop_map(|(addresses, left, kind)| {
                let kind = [0, 2, 4][usize::from(kind)];
                let addresses = if kind == 2 {
                    addresses[..1].to_vec()
                } else {
                    addresses
                };
                let segments_left = left % (addresses.len() as u8 + 1);
                Ext::Routing {
                    kind,
                    addresses,
                    segments_left,
                }
            }),
        Just(Ext::AtomicFragment),
        // AH lengths that keep IPv6 headers a multiple of 8 bytes.
        (0u8..4).prop_map(|n| Ext::Ah(2 * n)),
    ]
}

fn spec() -> impl Strategy<Value = Spec> {
    (
        (any::<bool>(), 0u8..3, any::<[u8; 16]>(), any::<[u8; 16]>()),
        (
            words(10),
            prop::collection::vec(extension(), 0..4),
            words(10),
        ),
        (
            prop_oneof![Just(0u8), Just(8), Just(128), Just(129), any::<u8>()],
            any::<(u16, u16)>(),
        ),
        (
            prop_oneof![
                prop::collection::vec(any::<u8>(), 0..64),
                prop::collection::vec(any::<u8>(), 0..1600),
            ],
            prop::collection::vec(any::<u8>(), 0..24),
            any::<(u16, u16)>(),
        ),
    )
        .prop_map(
            |(
                (ipv6, upper, source, destination),
                (ipv4_options, extensions, tcp_options),
                (icmp_type, ports),
                (payload, padding, junk),
            )| Spec {
                ipv6,
                upper: [Upper::Tcp, Upper::Udp, Upper::Icmp][usize::from(upper)],
                source,
                destination,
                ipv4_options,
                extensions,
                tcp_options,
                icmp_type,
                ports,
                payload,
                padding,
                junk,
            },
        )
}

// ---------------------------------------------------------------------------
// The references.

/// The upper layer's checksum with the field zeroed, by etherparse.
fn etherparse_checksum(b: &Built) -> Option<u16> {
    let l4 = b.l4();
    let (src4, dst4): ([u8; 4], [u8; 4]) = (
        b.source[..4].try_into().unwrap(),
        b.final_destination[..4].try_into().unwrap(),
    );
    let (src6, dst6): ([u8; 16], [u8; 16]) = if b.spec.ipv6 {
        (
            b.source[..].try_into().unwrap(),
            b.final_destination[..].try_into().unwrap(),
        )
    } else {
        ([0; 16], [0; 16])
    };
    match (b.spec.upper, b.spec.ipv6) {
        (Upper::Tcp, ipv6) => {
            let header = etherparse::TcpHeaderSlice::from_slice(l4).unwrap();
            let payload = &l4[header.slice().len()..];
            Some(if ipv6 {
                header.calc_checksum_ipv6_raw(src6, dst6, payload).unwrap()
            } else {
                header.calc_checksum_ipv4_raw(src4, dst4, payload).unwrap()
            })
        }
        (Upper::Udp, ipv6) => {
            let (header, payload) = etherparse::UdpHeader::from_slice(l4).unwrap();
            Some(if ipv6 {
                header.calc_checksum_ipv6_raw(src6, dst6, payload).unwrap()
            } else {
                header.calc_checksum_ipv4_raw(src4, dst4, payload).unwrap()
            })
        }
        // etherparse rebuilds the ICMP header from the type it parsed: exact
        // for echo messages, which keep every byte.
        (Upper::Icmp, false) if matches!(b.spec.icmp_type, 0 | 8) => {
            let (header, payload) = etherparse::Icmpv4Header::from_slice(l4).unwrap();
            Some(header.icmp_type.calc_checksum(payload))
        }
        (Upper::Icmp, true) if matches!(b.spec.icmp_type, 128 | 129) => {
            let (header, payload) = etherparse::Icmpv6Header::from_slice(l4).unwrap();
            Some(header.icmp_type.calc_checksum(src6, dst6, payload).unwrap())
        }
        // Any ICMP message: etherparse's raw sum.
        (Upper::Icmp, false) => {
            let mut zeroed = l4.to_vec();
            zeroed[2..4].fill(0);
            Some(
                etherparse::checksum::Sum16BitWords::new()
                    .add_slice(&zeroed)
                    .ones_complement()
                    .to_be(),
            )
        }
        (Upper::Icmp, true) => None,
    }
}

/// Where etherparse's packet slicer finds the transport header, if it
/// slices the packet that far.
fn etherparse_transport_offset(bytes: &[u8]) -> Option<usize> {
    use etherparse::TransportSlice;
    let sliced = etherparse::SlicedPacket::from_ip(bytes).ok()?;
    let transport = match sliced.transport? {
        TransportSlice::Tcp(t) => t.slice(),
        TransportSlice::Udp(t) => t.slice(),
        TransportSlice::Icmpv4(t) => t.slice(),
        TransportSlice::Icmpv6(t) => t.slice(),
        TransportSlice::Igmp(t) => t.slice(),
    };
    Some(transport.as_ptr() as usize - bytes.as_ptr() as usize)
}

fn smoltcp_addresses(b: &Built) -> (IpAddress, IpAddress) {
    if b.spec.ipv6 {
        let s: [u8; 16] = b.source[..].try_into().unwrap();
        let d: [u8; 16] = b.final_destination[..].try_into().unwrap();
        (Ipv6Addr::from(s).into(), Ipv6Addr::from(d).into())
    } else {
        let s: [u8; 4] = b.source[..].try_into().unwrap();
        let d: [u8; 4] = b.final_destination[..].try_into().unwrap();
        (Ipv4Addr::from(s).into(), Ipv4Addr::from(d).into())
    }
}

/// The upper layer's checksum with the field zeroed, by smoltcp's checksum
/// primitives.
fn smoltcp_checksum(b: &Built) -> u16 {
    let mut l4 = b.l4().to_vec();
    let field = b.field - b.l4_start;
    l4[field..field + 2].fill(0);
    let (src, dst) = smoltcp_addresses(b);
    let protocol = match b.protocol() {
        Protocol::Tcp => IpProtocol::Tcp,
        Protocol::Udp => IpProtocol::Udp,
        Protocol::Icmpv6 => IpProtocol::Icmpv6,
        _ => IpProtocol::Icmp,
    };
    let sum = if b.protocol() == Protocol::Icmp {
        checksum::data(&l4)
    } else {
        checksum::combine(&[
            checksum::pseudo_header(&src, &dst, protocol, l4.len() as u32),
            checksum::data(&l4),
        ])
    };
    match !sum {
        0 if b.protocol() == Protocol::Udp => 0xffff,
        value => value,
    }
}

/// Whether smoltcp's packet types accept the upper layer's checksum.
fn smoltcp_verifies(b: &Built) -> bool {
    let l4 = b.l4();
    let (src, dst) = smoltcp_addresses(b);
    match b.protocol() {
        Protocol::Tcp => TcpPacket::new_unchecked(l4).verify_checksum(&src, &dst),
        Protocol::Udp => UdpPacket::new_unchecked(l4).verify_checksum(&src, &dst),
        Protocol::Icmp => Icmpv4Packet::new_unchecked(l4).verify_checksum(),
        Protocol::Icmpv6 => {
            let (IpAddress::Ipv6(s), IpAddress::Ipv6(d)) = (src, dst) else {
                unreachable!()
            };
            Icmpv6Packet::new_unchecked(l4).verify_checksum(&s, &d)
        }
        Protocol::Ipv4 | Protocol::UdpLite => unreachable!(),
    }
}

/// Whether etherparse accepts the ICMPv6 checksum.
fn etherparse_verifies_icmpv6(b: &Built) -> bool {
    let s: [u8; 16] = b.source[..].try_into().unwrap();
    let d: [u8; 16] = b.final_destination[..].try_into().unwrap();
    etherparse::Icmpv6Slice::from_slice(b.l4())
        .unwrap()
        .is_checksum_valid(s, d)
}

// ---------------------------------------------------------------------------
// Generated packets against the references.

/// `n` cases, or as many as `PROPTEST_CASES` says where it is set: the
/// valgrind run of `.ci/sanitizers.sh` sets it, since under valgrind these
/// tests check the memory accesses, not the many packet shapes that the
/// native run covers.
fn cases(n: u32) -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok());
    ProptestConfig::with_cases(cases.unwrap_or(n))
}

proptest! {
    #![proptest_config(cases(2048))]

    #[test]
    fn generated_packets_against_etherparse_and_smoltcp(spec in spec()) {
        let built = build(&spec);
        let mut bytes = built.bytes.clone();
        let protocol = built.protocol();

        // The IPv4 header checksum.
        if !spec.ipv6 {
            let header = etherparse::Ipv4HeaderSlice::from_slice(&bytes).unwrap().to_header();
            prop_assert_eq!(ipv4::header_checksum(&bytes), Ok(header.calc_header_checksum()));
            ipv4::write_header_checksum(&mut bytes).unwrap();
            prop_assert!(Ipv4Packet::new_checked(&bytes[..]).unwrap().verify_checksum());
            prop_assert_eq!(ipv4::verify_header(&bytes), Ok(true));
        }

        // Where the upper layer is; etherparse's extension header walk
        // agrees where it takes the packet (it refuses some orders and
        // repetitions of extension headers).
        let upper = packet::upper(&bytes).unwrap();
        prop_assert_eq!(upper.offset, built.l4_start);
        prop_assert_eq!(upper.end, built.l4_end);
        prop_assert_eq!(upper.fragment, Fragment::Whole);
        if let Some(start) = etherparse_transport_offset(&bytes) {
            prop_assert_eq!(upper.offset, start);
        }

        // Its checksum, three ways.
        let ours = l4::checksum(&bytes).unwrap();
        prop_assert_eq!(ours, smoltcp_checksum(&built), "smoltcp");
        if let Some(theirs) = etherparse_checksum(&built) {
            prop_assert_eq!(ours, theirs, "etherparse");
        }

        // Before the fix: the verdict on the junk.
        let analysis = packet::analyze(&bytes).unwrap();
        let report = analysis.l4.unwrap();
        prop_assert_eq!(report.protocol, protocol);
        prop_assert_eq!(report.offset, built.field);
        prop_assert_eq!(report.stored, spec.junk.1);
        let expected = if protocol == Protocol::Udp && spec.junk.1 == 0 {
            if spec.ipv6 { Status::Illegal } else { Status::Absent }
        } else if spec.junk.1 == ours || (ours == 0 && spec.junk.1 == 0xffff) {
            Status::Good
        } else {
            Status::Bad
        };
        prop_assert_eq!(report.status, expected);

        // verify(compute(p)), and the references agree.
        prop_assert_eq!(l4::write_checksum(&mut bytes), Ok(ours));
        prop_assert_eq!(l4::verify(&bytes), Ok(true));
        let written = Built { bytes: bytes.clone(), ..built.clone() };
        prop_assert!(smoltcp_verifies(&written));
        if protocol == Protocol::Icmpv6 {
            prop_assert!(etherparse_verifies_icmpv6(&written));
        }
        let analysis = packet::analyze(&bytes).unwrap();
        prop_assert!(analysis.reports().all(|r| r.status == Status::Good), "{:?}", analysis);

        // fix() on the original does the same as the writes above, except
        // that it leaves an absent UDP checksum alone.
        let mut fixed = built.bytes.clone();
        let before = packet::fix(&mut fixed, ProtocolSet::ALL).unwrap();
        prop_assert_eq!(before.l4.unwrap().status, expected);
        if expected == Status::Absent {
            prop_assert_eq!(&fixed[built.field..built.field + 2], &[0u8, 0][..]);
            fixed[built.field..built.field + 2].copy_from_slice(&ours.to_be_bytes());
        }
        // A good 0xffff (the other zero) stays as it is.
        if expected == Status::Good {
            fixed[built.field..built.field + 2].copy_from_slice(&ours.to_be_bytes());
        }
        if before.ip.is_some_and(|ip| ip.status == Status::Good) {
            fixed[10..12].copy_from_slice(&bytes[10..12]);
        }
        prop_assert_eq!(&fixed, &bytes);
    }

    #[test]
    fn padding_never_counts(spec in spec(), padding in prop::collection::vec(any::<u8>(), 0..64)) {
        let built = build(&spec);
        let mut padded = built.bytes[..built.l4_end].to_vec();
        let plain = packet::analyze(&padded).unwrap();
        padded.extend_from_slice(&padding);
        prop_assert_eq!(packet::analyze(&padded).unwrap(), plain);
    }

    #[test]
    fn truncation_is_a_verdict_not_a_panic(spec in spec(), cut in any::<prop::sample::Index>()) {
        let built = build(&spec);
        let len = cut.index(built.l4_end);
        let bytes = &built.bytes[..len];
        let header_len = 20 + spec.ipv4_options.len();
        let fixed_header = if spec.ipv6 { 40 } else { 20 };
        match packet::analyze(bytes) {
            Err(e) => {
                prop_assert_eq!(e, Error::Truncated);
                prop_assert!(len < fixed_header);
            }
            Ok(analysis) => {
                if let Some(ip) = analysis.ip {
                    let expected = if len < header_len {
                        Status::Unverified(Error::Truncated)
                    } else {
                        ip.status
                    };
                    prop_assert_eq!(ip.status, expected);
                }
                match analysis.l4 {
                    Ok(report) => {
                        prop_assert!(built.field + 2 <= len);
                        let absent_or_illegal = built.protocol() == Protocol::Udp && report.stored == 0;
                        if !absent_or_illegal {
                            prop_assert_eq!(report.status, Status::Unverified(Error::Truncated));
                            prop_assert_eq!(report.computed, report.stored);
                        }
                    }
                    Err(e) => {
                        prop_assert_eq!(e, Error::Truncated);
                        prop_assert!(built.field + 2 > len);
                    }
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Incremental updates: equal to recomputation.

/// Puts correct checksums in a built packet.
fn correct(built: &mut Built) {
    if !built.spec.ipv6 {
        ipv4::write_header_checksum(&mut built.bytes).unwrap();
    }
    l4::write_checksum(&mut built.bytes).unwrap();
}

proptest! {
    #![proptest_config(cases(2048))]

    #[test]
    fn update_equals_recompute(
        data in prop::collection::vec(any::<u8>(), 2..400),
        at in any::<prop::sample::Index>(),
        new in any::<[u8; 16]>(),
        width in 0usize..3,
    ) {
        let width = [2, 4, 16][width];
        prop_assume!(data.len() >= width);
        // An even offset, as the functions require.
        let at = at.index(data.len() - width + 1) & !1;
        let before = fastpath::checksum(&data);
        let mut after = data.clone();
        after[at..at + width].copy_from_slice(&new[..width]);
        // Recomputation gives 0xffff only for all-zero data.
        prop_assume!(after.iter().any(|&b| b != 0) && data.iter().any(|&b| b != 0));
        let old = &data[at..at + width];
        let updated = match width {
            2 => incremental::update16(
                before,
                u16::from_be_bytes(old.try_into().unwrap()),
                u16::from_be_bytes(new[..2].try_into().unwrap()),
            ),
            4 => incremental::update32(before, <[u8; 4]>::try_from(old).unwrap(), <[u8; 4]>::try_from(&new[..4]).unwrap()),
            _ => incremental::update128(before, <[u8; 16]>::try_from(old).unwrap(), new),
        };
        prop_assert_eq!(updated, fastpath::checksum(&after));
        // From the other zero too: 0xffff where recomputation gives 0.
        if before == 0 {
            let updated_from_ffff = match width {
                2 => incremental::update16(
                    0xffff,
                    u16::from_be_bytes(old.try_into().unwrap()),
                    u16::from_be_bytes(new[..2].try_into().unwrap()),
                ),
                4 => incremental::update32(0xffff, <[u8; 4]>::try_from(old).unwrap(), <[u8; 4]>::try_from(&new[..4]).unwrap()),
                _ => incremental::update128(0xffff, <[u8; 16]>::try_from(old).unwrap(), new),
            };
            prop_assert_eq!(updated_from_ffff, fastpath::checksum(&after));
        }
    }

    #[test]
    fn nat_rewrite_equals_recompute(
        spec in spec(),
        source_side in any::<bool>(),
        address in any::<[u8; 16]>(),
        port in prop::option::of(any::<u16>()),
    ) {
        let mut built = build(&spec);
        correct(&mut built);
        let endpoint = if source_side { Endpoint::Source } else { Endpoint::Destination };
        let mut rewritten = built.bytes.clone();
        let result = if spec.ipv6 {
            incremental::rewrite_ipv6(&mut rewritten, endpoint, address.into(), port)
        } else {
            incremental::rewrite_ipv4(&mut rewritten, endpoint, <[u8; 4]>::try_from(&address[..4]).unwrap().into(), port)
        };
        let has_ports = spec.upper != Upper::Icmp;
        if port.is_some() && !has_ports {
            prop_assert_eq!(result, Err(Error::Protocol(protocol_number(spec.upper, spec.ipv6))));
            prop_assert_eq!(&rewritten, &built.bytes, "nothing written on an error");
            return Ok(());
        }
        prop_assert_eq!(result, Ok(()));

        // The same rewrite by hand, then full recomputation.
        let mut expected = built.bytes.clone();
        let (at, len) = match (spec.ipv6, source_side) {
            (false, true) => (12, 4),
            (false, false) => (16, 4),
            (true, true) => (8, 16),
            (true, false) => (24, 16),
        };
        expected[at..at + len].copy_from_slice(&address[..len]);
        if let Some(port) = port {
            let port_at = built.l4_start + if source_side { 0 } else { 2 };
            expected[port_at..port_at + 2].copy_from_slice(&port.to_be_bytes());
        }
        if !spec.ipv6 {
            ipv4::write_header_checksum(&mut expected).unwrap();
        }
        l4::write_checksum(&mut expected).unwrap();
        prop_assert_eq!(&rewritten, &expected);
        let analysis = packet::analyze(&rewritten).unwrap();
        prop_assert!(analysis.reports().all(|r| r.status == Status::Good), "{:?}", analysis);
    }

    /// `incremental::replace` of any bytes, at any offset and length, in the
    /// upper layer's data or the IPv4 header: the checksum that
    /// recomputation gives.
    #[test]
    fn replace_equals_recompute(
        spec in spec(),
        in_header in any::<bool>(),
        at in any::<prop::sample::Index>(),
        len in 0usize..40,
        new in prop::collection::vec(any::<u8>(), 40),
        wrong_by in any::<u16>(),
    ) {
        let mut built = build(&spec);
        correct(&mut built);
        let ipv4_header = !spec.ipv6 && in_header;
        // The data the checksum covers, and its field.
        let (start, end, field) = if ipv4_header {
            (0, 20 + spec.ipv4_options.len(), 10)
        } else {
            (built.l4_start, built.l4_end, built.field)
        };
        // Not the IPv4 header's lengths, nor UDP's: they decide what the
        // checksum covers (and UDP's is in its pseudo-header too).
        let start = if ipv4_header { 4 } else { start };
        let len = len.min(end - start);
        let at = start + at.index(end - start - len + 1);
        let apart = |from: usize, to: usize| at + len <= from || to <= at;
        prop_assume!(apart(field, field + 2));
        prop_assume!(ipv4_header || built.protocol() != Protocol::Udp || apart(start + 4, start + 6));
        // A wrong checksum stays wrong by the same amount.
        let stored = u16::from_be_bytes([built.bytes[field], built.bytes[field + 1]]);
        let wrong = stored.wrapping_add(wrong_by % 2);
        built.bytes[field..field + 2].copy_from_slice(&wrong.to_be_bytes());
        let mut replaced = built.bytes.clone();
        let updated = incremental::replace(&mut replaced, at, &new[..len], field).unwrap();
        prop_assert_eq!(replaced[field..field + 2].to_vec(), updated.to_be_bytes().to_vec());

        let mut expected = built.bytes.clone();
        expected[at..at + len].copy_from_slice(&new[..len]);
        let recomputed = if ipv4_header {
            ipv4::write_header_checksum(&mut expected).unwrap()
        } else {
            l4::write_checksum(&mut expected).unwrap()
        };
        // UDP's rule (0 is sent as 0xffff) is not `replace`'s.
        let udp_zero = !ipv4_header && built.protocol() == Protocol::Udp && recomputed == 0xffff && updated == 0;
        if wrong == stored {
            prop_assert!(updated == recomputed || udp_zero, "{updated:#06x} != {recomputed:#06x}");
        } else {
            // Off by the same amount as before (ones'-complement arithmetic).
            let mut off = fastpath::Checksum::from_parts(!updated, false);
            off.add_u16(recomputed);
            let mut was = fastpath::Checksum::from_parts(!wrong, false);
            was.add_u16(stored);
            prop_assert_eq!(off.sum() % 0xffff, was.sum() % 0xffff);
        }
        expected[field..field + 2].copy_from_slice(&updated.to_be_bytes());
        prop_assert_eq!(&replaced, &expected, "only the bytes and the field change");
    }

    /// `l4::verify_complete` from the sum of the upper layer, given the
    /// headers alone, says what `l4::verify` says of the whole packet.
    #[test]
    fn verify_complete_equals_verify(
        spec in spec(),
        valid in any::<bool>(),
        flip in any::<prop::sample::Index>(),
        extra in any::<prop::sample::Index>(),
    ) {
        let mut built = build(&spec);
        correct(&mut built);
        if !valid {
            let at = built.l4_start + flip.index(built.l4_end - built.l4_start);
            built.bytes[at] ^= 0x10;
        }
        let mut device = fastpath::Checksum::new();
        device.update(built.l4());
        let headers = &built.bytes[..built.field + 2 + extra.index(built.bytes.len() - built.field - 1)];
        prop_assert_eq!(l4::verify_complete(headers, device.sum()), l4::verify(&built.bytes));
        // The sum from the IP header on, as a NIC gives it.
        let mut from_ip = fastpath::Checksum::new();
        from_ip.update(&built.bytes[..built.l4_end]);
        prop_assert_eq!(
            l4::verify_complete_from_ip(headers, from_ip.sum()),
            l4::verify(&built.bytes)
        );
    }
}

#[test]
// The references are what the test is about.
#[allow(clippy::needless_borrows_for_generic_args)]
fn addresses_as_octets_or_core_net_types_alike() {
    let (a4, b4) = ([192, 168, 0, 1], [203, 0, 113, 7]);
    let (ip_a4, ip_b4) = (Ipv4Addr::from(a4), Ipv4Addr::from(b4));
    let expected = ipv4::pseudo_header(a4, b4, 17, 12);
    assert_eq!(ipv4::pseudo_header(&a4, &b4, 17, 12), expected);
    assert_eq!(ipv4::pseudo_header(ip_a4, &ip_b4, 17, 12), expected);
    assert_eq!(
        ipv4::pseudo_header_seed(ip_a4, ip_b4, 6),
        ipv4::pseudo_header_seed(a4, b4, 6)
    );
    assert_eq!(
        incremental::update32(0x1234, ip_a4, &ip_b4),
        incremental::update32(0x1234, a4, b4)
    );

    let (a6, b6) = ([0xfe; 16], [0x20; 16]);
    let (ip_a6, ip_b6) = (Ipv6Addr::from(a6), Ipv6Addr::from(b6));
    let expected = ipv6::pseudo_header(&a6, &b6, 6, 1000);
    assert_eq!(ipv6::pseudo_header(a6, b6, 6, 1000), expected);
    assert_eq!(ipv6::pseudo_header(&ip_a6, ip_b6, 6, 1000), expected);
    assert_eq!(
        ipv6::pseudo_header_seed(ip_a6, ip_b6, 58),
        ipv6::pseudo_header_seed(&a6, &b6, 58)
    );
    assert_eq!(
        incremental::update128(0x1234, ip_a6, &ip_b6),
        incremental::update128(0x1234, &a6, &b6)
    );

    let mut spec = udp_spec(false);
    spec.payload = b"addresses".to_vec();
    let mut built = build(&spec);
    correct(&mut built);
    let mut by_octets = built.bytes.clone();
    incremental::rewrite_ipv4(&mut by_octets, Endpoint::Source, b4.into(), Some(9)).unwrap();
    let mut by_type = built.bytes.clone();
    incremental::rewrite_ipv4(&mut by_type, Endpoint::Source, ip_b4, Some(9)).unwrap();
    assert_eq!(by_type, by_octets);
}

/// The common call sites infer their types: a parsed address for a NAT
/// rewrite, and a `u32` or `u128` for an update, with no annotation.
/// Behind an RPL source route (RFC 6554) with segments left, the final
/// destination takes the prefix it elides from the Destination Address: a
/// rewrite of that field changes the pseudo-header through those bytes, and
/// the checksum stays right. (Found by the `packet` fuzz target; its input
/// is the seed `fuzz/seeds/packet/ipv6-rpl-elided-prefix-nat`.)
#[test]
fn a_destination_rewrite_behind_an_rpl_route_keeps_the_checksum_right() {
    let source = [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1];
    let destination = [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2];
    // Next Header UDP, Hdr Ext Len 2 (24 bytes), type 3, two segments left;
    // CmprI = CmprE = 8, no padding: two addresses of 8 bytes each, whose
    // first 8 bytes are the Destination Address's.
    let mut routing = vec![17, 2, 3, 2, 0x88, 0, 0, 0];
    routing.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 7]);
    routing.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 9]);
    let udp = [
        0x04, 0x00, 0x00, 0x35, 0x00, 0x0c, 0x00, 0x00, b'p', b'i', b'n', b'g',
    ];
    let mut packet = vec![0x60, 0, 0, 0, 0, (routing.len() + udp.len()) as u8, 43, 64];
    packet.extend_from_slice(&source);
    packet.extend_from_slice(&destination);
    packet.extend_from_slice(&routing);
    packet.extend_from_slice(&udp);
    packet::fix(&mut packet, ProtocolSet::ALL).unwrap();
    assert_eq!(l4::verify(&packet), Ok(true));
    for port in [None, Some(5353)] {
        for address in ["2001:db8:ffff:1::5", "2001:db8::99", "fe80::1"] {
            let mut rewritten = packet.clone();
            incremental::rewrite_ipv6(
                &mut rewritten,
                Endpoint::Destination,
                address.parse().unwrap(),
                port,
            )
            .unwrap();
            assert_eq!(l4::verify(&rewritten), Ok(true), "{address} {port:?}");
        }
    }
}

#[test]
fn rewrites_take_parsed_addresses_and_updates_integers() {
    let mut spec = udp_spec(false);
    spec.payload = b"parsed".to_vec();
    let mut built = build(&spec);
    correct(&mut built);
    let mut parsed = built.bytes.clone();
    incremental::rewrite_ipv4(
        &mut parsed,
        Endpoint::Source,
        "203.0.113.7".parse().unwrap(),
        Some(9),
    )
    .unwrap();
    let mut octets = built.bytes.clone();
    incremental::rewrite_ipv4(
        &mut octets,
        Endpoint::Source,
        [203, 0, 113, 7].into(),
        Some(9),
    )
    .unwrap();
    assert_eq!(parsed, octets);
    assert_eq!(l4::verify(&parsed), Ok(true));
    assert_eq!(
        incremental::update32(0x1234, 0xc0a8_0001u32, 0xcb00_7107u32),
        incremental::update32(0x1234, [192, 168, 0, 1], [203, 0, 113, 7])
    );
    assert_eq!(
        incremental::update128(0x1234, 1u128, 2u128),
        incremental::update128(0x1234, Ipv6Addr::LOCALHOST, Ipv6Addr::from(2u128))
    );

    let mut spec = udp_spec(true);
    spec.payload = b"parsed".to_vec();
    let mut built = build(&spec);
    correct(&mut built);
    let mut parsed = built.bytes.clone();
    incremental::rewrite_ipv6(
        &mut parsed,
        Endpoint::Destination,
        "2001:db8::7".parse().unwrap(),
        None,
    )
    .unwrap();
    assert_eq!(
        parsed[24..40],
        "2001:db8::7".parse::<Ipv6Addr>().unwrap().octets()
    );
    assert_eq!(l4::verify(&parsed), Ok(true));
}

#[test]
fn replace_refuses_what_is_outside_or_overlapping() {
    let mut packet = [0u8; 32];
    let original = packet;
    for (at, len, field) in [
        (30, 4, 0),
        (0, 2, 31),
        (9, 2, 10),
        (11, 1, 10),
        (10, 2, 10),
        (usize::MAX, 1, 0),
    ] {
        let new = vec![1; len];
        assert_eq!(
            incremental::replace(&mut packet, at, &new, field),
            Err(Error::OutOfBounds),
            "{at} {len} {field}"
        );
        assert_eq!(packet, original);
    }
    assert_eq!(incremental::replace(&mut packet, 12, &[], 10), Ok(0));
}

#[test]
fn nat_keeps_an_absent_udp_checksum() {
    let spec = Spec {
        ipv6: false,
        upper: Upper::Udp,
        source: [10; 16],
        destination: [20; 16],
        ipv4_options: vec![],
        extensions: vec![],
        tcp_options: vec![],
        icmp_type: 0,
        ports: (1024, 53),
        payload: b"query".to_vec(),
        padding: vec![0; 10],
        junk: (0, 0),
    };
    let mut built = build(&spec);
    ipv4::write_header_checksum(&mut built.bytes).unwrap();
    incremental::rewrite_ipv4(
        &mut built.bytes,
        Endpoint::Source,
        [192, 0, 2, 1].into(),
        Some(4000),
    )
    .unwrap();
    assert_eq!(built.stored(), 0);
    let analysis = packet::analyze(&built.bytes).unwrap();
    assert_eq!(analysis.ip.unwrap().status, Status::Good);
    assert_eq!(analysis.l4.unwrap().status, Status::Absent);
}

#[test]
fn nat_writes_a_zero_udp_result_as_ffff() {
    for ipv6 in [false, true] {
        let spec = Spec {
            ipv6,
            upper: Upper::Udp,
            source: [10; 16],
            destination: [20; 16],
            ipv4_options: vec![],
            extensions: vec![],
            tcp_options: vec![],
            icmp_type: 0,
            ports: (1024, 53),
            payload: b"query".to_vec(),
            padding: vec![],
            junk: (0, 0),
        };
        let mut built = build(&spec);
        correct(&mut built);
        // The destination port that makes the new checksum 0:
        // ~HC + ~m + m' = 0xffff.
        let c = built.stored();
        let mut sum = fastpath::Checksum::from_parts(!c, false);
        sum.add_u16(!53);
        let port = !sum.sum();
        let rewrite = |bytes: &mut [u8]| {
            if ipv6 {
                incremental::rewrite_ipv6(bytes, Endpoint::Destination, [20; 16].into(), Some(port))
            } else {
                incremental::rewrite_ipv4(bytes, Endpoint::Destination, [20; 4].into(), Some(port))
            }
        };
        rewrite(&mut built.bytes).unwrap();
        assert_eq!(built.stored(), 0xffff, "ipv6: {ipv6}");
        assert_eq!(l4::checksum(&built.bytes), Ok(0xffff));
        assert_eq!(l4::verify(&built.bytes), Ok(true));
    }
}

#[test]
fn nat_leaves_a_routed_destination_out_of_the_pseudo_header() {
    let final_destination = [0x20, 1, 0xd, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x99];
    let spec = Spec {
        ipv6: true,
        upper: Upper::Tcp,
        source: [1; 16],
        destination: [2; 16],
        ipv4_options: vec![],
        extensions: vec![Ext::Routing {
            kind: 4,
            addresses: vec![final_destination, [3; 16]],
            segments_left: 1,
        }],
        tcp_options: vec![],
        icmp_type: 0,
        ports: (1, 2),
        payload: b"data".to_vec(),
        padding: vec![],
        junk: (0, 0),
    };
    let mut built = build(&spec);
    correct(&mut built);
    let before = built.stored();
    incremental::rewrite_ipv6(
        &mut built.bytes,
        Endpoint::Destination,
        [7; 16].into(),
        None,
    )
    .unwrap();
    assert_eq!(built.stored(), before);
    assert_eq!(l4::verify(&built.bytes), Ok(true));
}

// ---------------------------------------------------------------------------
// Partial checksums.

proptest! {
    #[test]
    fn seed_then_complete_is_the_checksum(spec in spec()) {
        let built = build(&spec);
        let mut bytes = built.bytes[..built.l4_end].to_vec();
        let offload = partial::write_seed(&mut bytes, SeedLength::Included).unwrap();
        prop_assert_eq!(offload.csum_start, built.l4_start);
        prop_assert_eq!(offload.csum_start + offload.csum_offset, built.field);
        let completed = partial::complete(&mut bytes, offload.csum_start, offload.csum_offset).unwrap();
        let expected = smoltcp_checksum(&built);
        // Linux stores a zero result as 0xffff, the same in ones' complement.
        prop_assert_eq!(completed, if expected == 0 { 0xffff } else { expected });
        prop_assert_eq!(l4::verify(&bytes), Ok(true));

        // The seed without the length, plus the length, is the seed with it.
        let mut tso = built.bytes.clone();
        partial::write_seed(&mut tso, SeedLength::Omitted).unwrap();
        let seed = u16::from_be_bytes([tso[built.field], tso[built.field + 1]]);
        let mut with_length = fastpath::Checksum::from_parts(seed, false);
        let mut reference = built.bytes.clone();
        partial::write_seed(&mut reference, SeedLength::Included).unwrap();
        if built.protocol() == Protocol::Icmp {
            prop_assert_eq!(seed, 0);
        } else {
            let covered = if built.protocol() == Protocol::Udp {
                8 + spec.payload.len()
            } else {
                built.l4_end - built.l4_start
            };
            with_length.add_u32(covered as u32);
            prop_assert_eq!(
                with_length.sum().to_be_bytes(),
                [reference[built.field], reference[built.field + 1]]
            );
        }
    }
}

#[test]
fn extension_header_walk_agrees_with_etherparse() {
    // One of each kind that etherparse takes, in the order RFC 8200 §4.1
    // recommends.
    let mut spec = udp_spec(true);
    spec.extensions = vec![
        Ext::HopByHop(1),
        Ext::DestinationOptions(0),
        Ext::Routing {
            kind: 0,
            addresses: vec![[7; 16], [8; 16]],
            segments_left: 2,
        },
        Ext::AtomicFragment,
        Ext::Ah(4),
    ];
    let built = build(&spec);
    let start = etherparse_transport_offset(&built.bytes).expect("etherparse slices it");
    assert_eq!(start, built.l4_start);
    assert_eq!(packet::upper(&built.bytes).unwrap().offset, start);
    // And the final destination is the last address.
    assert_eq!(built.final_destination, [8; 16]);
    let mut bytes = built.bytes.clone();
    l4::write_checksum(&mut bytes).unwrap();
    let written = Built { bytes, ..built };
    assert!(smoltcp_verifies(&written));
}

#[test]
fn pseudo_header_seeds_match_dpdk_and_smoltcp() {
    let (s4, d4) = ([192, 0, 2, 1], [198, 51, 100, 7]);
    // rte_ipv4_phdr_cksum with TSO: the sum of src, dst, proto, 0 — folded,
    // not complemented; smoltcp's pseudo-header with a length of 0 is it.
    let smol =
        checksum::pseudo_header_v4(&Ipv4Addr::from(s4), &Ipv4Addr::from(d4), IpProtocol::Tcp, 0);
    assert_eq!(ipv4::pseudo_header_seed(s4, d4, 6), smol);
    assert_eq!(
        ipv4::pseudo_header(s4, d4, 6, 1480).sum(),
        checksum::pseudo_header_v4(
            &Ipv4Addr::from(s4),
            &Ipv4Addr::from(d4),
            IpProtocol::Tcp,
            1480,
        )
    );
    let (s6, d6) = ([0x20; 16], [0xfe; 16]);
    let smol =
        checksum::pseudo_header_v6(&Ipv6Addr::from(s6), &Ipv6Addr::from(d6), IpProtocol::Udp, 0);
    assert_eq!(ipv6::pseudo_header_seed(s6, d6, 17), smol);
    assert_eq!(
        ipv6::pseudo_header(s6, d6, 17, 1232).sum(),
        checksum::pseudo_header_v6(
            &Ipv6Addr::from(s6),
            &Ipv6Addr::from(d6),
            IpProtocol::Udp,
            1232,
        )
    );
}

// ---------------------------------------------------------------------------
// Known vectors.

/// The IPv4 header used as the example throughout (its checksum 0xb861 is
/// the one every reference computes).
const HEADER: [u8; 20] = [
    0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0xb8, 0x61, 0xc0, 0xa8, 0x00, 0x01,
    0xc0, 0xa8, 0x00, 0xc7,
];

#[test]
fn rfc1071_section3_example_through_partial_completion() {
    // RFC 1071 §3: "00 01 f2 03 f4 f5 f6 f7" sums to 0xddf2, checksum 0x220d.
    let mut data = [0x00, 0x00, 0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7];
    assert_eq!(partial::complete(&mut data, 0, 0), Ok(0x220d));
    assert_eq!(fastpath::checksum(&data), 0);
}

#[test]
fn rfc1624_section4_example() {
    // "a 16-bit field m = 0x5555 changes to m' = 0x3285 ... the one's
    // complement sum of all other header octets is 0xCD7A": build a header
    // with exactly that.
    let mut data = [0u8; 6];
    data[0..2].copy_from_slice(&0xcd7a_u16.to_be_bytes());
    data[2..4].copy_from_slice(&0x5555_u16.to_be_bytes());
    let hc = fastpath::checksum(&data);
    assert_eq!(hc, 0xdd2f);
    data[2..4].copy_from_slice(&0x3285_u16.to_be_bytes());
    assert_eq!(fastpath::checksum(&data), 0x0000);
    assert_eq!(incremental::update16(hc, 0x5555, 0x3285), 0x0000);
}

#[test]
fn rfc1624_corner_from_the_other_zero() {
    // Words 0xffff, 0x1234, 0xedcb sum to 0xffff: checksum 0x0000, which
    // UDP sends as 0xffff. The first word becomes 0: the words still sum to
    // 0xffff, and recomputation still gives 0x0000. Equation 3 from 0xffff
    // sums all-zero terms to 0x0000, which must be read as 0xffff.
    let mut data = [0xff, 0xff, 0x12, 0x34, 0xed, 0xcb];
    assert_eq!(fastpath::checksum(&data), 0x0000);
    data[..2].fill(0);
    assert_eq!(fastpath::checksum(&data), 0x0000);
    assert_eq!(incremental::update16(0xffff, 0xffff, 0x0000), 0x0000);
    assert_eq!(incremental::update16(0x0000, 0xffff, 0x0000), 0x0000);
}

#[test]
fn udp_computing_to_zero_is_sent_as_ffff() {
    for ipv6 in [false, true] {
        let mut spec = udp_spec(ipv6);
        spec.payload = vec![0; 2];
        spec.junk.1 = 0;
        let mut built = build(&spec);
        // Make the data sum to 0xffff through the last payload word.
        let sum = !l4::checksum(&built.bytes).unwrap();
        let last = built.l4_end - 2;
        let word = !sum;
        built.bytes[last..last + 2].copy_from_slice(&word.to_be_bytes());
        assert_eq!(smoltcp_checksum(&built), 0xffff);
        assert_eq!(etherparse_checksum(&built), Some(0xffff));
        assert_eq!(l4::checksum(&built.bytes), Ok(0xffff));
        assert_eq!(l4::write_checksum(&mut built.bytes), Ok(0xffff));
        assert_eq!(
            packet::analyze(&built.bytes).unwrap().l4.unwrap().status,
            Status::Good
        );
    }
}

#[test]
fn ipv4_header_vector() {
    assert_eq!(ipv4::header_checksum(&HEADER), Ok(0xb861));
    assert_eq!(ipv4::verify_header(&HEADER), Ok(true));
    let mut h = HEADER;
    h[10..12].fill(0);
    assert_eq!(ipv4::write_header_checksum(&mut h), Ok(0xb861));
    assert_eq!(h, HEADER);
    assert!(Ipv4Packet::new_unchecked(&HEADER[..]).verify_checksum());
}

// ---------------------------------------------------------------------------
// Fragments, zeros, the unverifiable.

fn udp_spec(ipv6: bool) -> Spec {
    Spec {
        ipv6,
        upper: Upper::Udp,
        source: [10; 16],
        destination: [20; 16],
        ipv4_options: vec![],
        extensions: vec![],
        tcp_options: vec![],
        icmp_type: 0,
        ports: (1024, 53),
        payload: vec![0xab; 100],
        padding: vec![0; 4],
        junk: (0, 0x1234),
    }
}

#[test]
fn ipv4_fragments() {
    let built = build(&udp_spec(false));
    let mut first = built.bytes.clone();
    first[6] |= 0x20; // More Fragments
    ipv4::write_header_checksum(&mut first).unwrap();
    let analysis = packet::analyze(&first).unwrap();
    assert_eq!(analysis.ip.unwrap().status, Status::Good);
    let l4 = analysis.l4.unwrap();
    assert_eq!(l4.status, Status::Unverified(Error::FirstFragment));
    assert_eq!((l4.stored, l4.computed), (0x1234, 0x1234));
    assert_eq!(l4::checksum(&first), Err(Error::FirstFragment));
    let mut fixed = first.clone();
    packet::fix(&mut fixed, ProtocolSet::ALL).unwrap();
    assert_eq!(fixed, first, "unverifiable: untouched");

    let mut later = built.bytes.clone();
    later[6..8].copy_from_slice(&0x0010_u16.to_be_bytes()); // offset 128 bytes, last
    let analysis = packet::analyze(&later).unwrap();
    assert_eq!(analysis.l4, Err(Error::LaterFragment));
    assert_eq!(analysis.upper.unwrap().fragment, Fragment::Later);
    assert_eq!(l4::verify(&later), Err(Error::LaterFragment));
    // Don't Fragment alone is a whole packet.
    let mut df = built.bytes.clone();
    df[6] = 0x40;
    assert!(l4::checksum(&df).is_ok());
}

#[test]
fn ipv6_fragments() {
    let mut spec = udp_spec(true);
    spec.extensions = vec![Ext::AtomicFragment];
    let built = build(&spec);
    // Atomic: verifiable.
    assert!(packet::analyze(&built.bytes).unwrap().l4.unwrap().status == Status::Bad);
    let fragment_header = 40;
    let mut first = built.bytes.clone();
    first[fragment_header + 3] = 1; // M
    assert_eq!(
        packet::analyze(&first).unwrap().l4.unwrap().status,
        Status::Unverified(Error::FirstFragment)
    );
    let mut later = built.bytes.clone();
    later[fragment_header + 2] = 0x01; // offset 32 × 8 bytes
    assert_eq!(
        packet::analyze(&later).unwrap().l4,
        Err(Error::LaterFragment)
    );
}

#[test]
fn udp_zero_checksums() {
    for ipv6 in [false, true] {
        let mut spec = udp_spec(ipv6);
        spec.junk.1 = 0;
        let built = build(&spec);
        let mut bytes = built.bytes.clone();
        let report = packet::fix(&mut bytes, ProtocolSet::ALL)
            .unwrap()
            .l4
            .unwrap();
        let correct = l4::checksum(&built.bytes).unwrap();
        if ipv6 {
            assert_eq!(report.status, Status::Illegal);
            assert_eq!(report.computed, correct);
            assert_eq!(l4::verify(&built.bytes), Ok(false));
            assert_eq!(built_stored(&bytes, built.field), correct, "fix writes it");
        } else {
            assert_eq!(report.status, Status::Absent);
            assert_eq!(report.computed, 0);
            assert_eq!(l4::verify(&built.bytes), Ok(true));
            assert_eq!(built_stored(&bytes, built.field), 0, "fix leaves it");
        }
        // A zero is judged without the data, so even truncated.
        let cut = &built.bytes[..built.field + 2];
        let status = packet::analyze(cut).unwrap().l4.unwrap().status;
        assert_eq!(
            status,
            if ipv6 {
                Status::Illegal
            } else {
                Status::Absent
            }
        );
    }
}

fn built_stored(bytes: &[u8], field: usize) -> u16 {
    u16::from_be_bytes([bytes[field], bytes[field + 1]])
}

#[test]
fn udp_length_must_fit() {
    let built = build(&udp_spec(false));
    let udp_length_at = built.l4_start + 4;
    for bad in [0u16, 7, 109] {
        let mut bytes = built.bytes.clone();
        bytes[udp_length_at..udp_length_at + 2].copy_from_slice(&bad.to_be_bytes());
        assert_eq!(
            packet::analyze(&bytes).unwrap().l4.unwrap().status,
            Status::Unverified(Error::Length),
            "UDP length {bad}"
        );
        // Every function refuses it alike, and writes nothing.
        assert_eq!(l4::checksum(&bytes), Err(Error::Length));
        let mut rewritten = bytes.clone();
        let rewrite =
            incremental::rewrite_ipv4(&mut rewritten, Endpoint::Source, [1, 2, 3, 4].into(), None);
        assert_eq!(rewrite, Err(Error::Length));
        assert_eq!(rewritten, bytes);
    }
    // Shorter than the IP payload is fine: the datagram is what it covers.
    let mut bytes = built.bytes.clone();
    bytes[udp_length_at..udp_length_at + 2].copy_from_slice(&50u16.to_be_bytes());
    l4::write_checksum(&mut bytes).unwrap();
    let l4_only = &bytes[built.l4_start..built.l4_start + 50];
    let smol = UdpPacket::new_checked(l4_only).unwrap();
    assert!(smol.verify_checksum(
        &Ipv4Addr::from([10; 4]).into(),
        &Ipv4Addr::from([20; 4]).into()
    ));
}

#[test]
fn ipv6_unknown_routing_and_opaque_upper_layers() {
    let mut spec = udp_spec(true);
    spec.extensions = vec![Ext::Routing {
        kind: 0,
        addresses: vec![[9; 16]],
        segments_left: 1,
    }];
    let built = build(&spec);
    let mut bytes = built.bytes.clone();
    bytes[42] = 253; // an experimental routing type
    let report = packet::analyze(&bytes).unwrap().l4.unwrap();
    assert_eq!(report.status, Status::Unverified(Error::RoutingType(253)));
    // ESP, No Next Header: nothing to verify.
    for next in [50, 59] {
        let mut bytes = build(&udp_spec(true)).bytes;
        bytes[6] = next;
        let analysis = packet::analyze(&bytes).unwrap();
        assert_eq!(analysis.l4, Err(Error::Protocol(next)));
        assert_eq!(analysis.ip, None);
    }
}

#[test]
fn only_restricts_what_fix_writes() {
    let built = build(&udp_spec(false));
    let mut bytes = built.bytes.clone();
    packet::fix(&mut bytes, Protocol::Ipv4.into()).unwrap();
    let analysis = packet::analyze(&bytes).unwrap();
    assert_eq!(analysis.ip.unwrap().status, Status::Good);
    assert_eq!(analysis.l4.unwrap().status, Status::Bad);
    packet::fix(&mut bytes, ProtocolSet::EMPTY.with(Protocol::Udp)).unwrap();
    assert!(
        packet::analyze(&bytes)
            .unwrap()
            .reports()
            .all(|r| r.status == Status::Good)
    );
}

// ---------------------------------------------------------------------------
// Any bytes: a value or an error, never a panic.

// ---------------------------------------------------------------------------
// Split buffers: the vectored entry points equal the contiguous ones on the
// concatenation, value and error, however the packet is split.

/// `l4::checksum_vectored` and `l4::verify_vectored` of `segments` equal
/// `l4::checksum` and `l4::verify` of `bytes`, their concatenation.
fn vectored_equals(bytes: &[u8], segments: &[&[u8]]) {
    assert_eq!(segments.concat(), bytes);
    if split_headers_refused(bytes, l4::checksum_vectored(segments)) {
        assert_eq!(l4::verify_vectored(segments), Err(Error::SplitHeaders));
        return;
    }
    assert_eq!(
        l4::checksum_vectored(segments),
        l4::checksum(bytes),
        "checksum of {:?}",
        segments.iter().map(|s| s.len()).collect::<Vec<_>>()
    );
    assert_eq!(
        l4::verify_vectored(segments),
        l4::verify(bytes),
        "verify of {:?}",
        segments.iter().map(|s| s.len()).collect::<Vec<_>>()
    );
}

/// Whether `result` is the error that a build without `std` gives for
/// headers split across segments past its 256-byte buffer, on `bytes`,
/// longer than that.
fn split_headers_refused<T>(bytes: &[u8], result: Result<T, Error>) -> bool {
    let refused = matches!(result, Err(Error::SplitHeaders));
    assert!(!refused || (!cfg!(feature = "std") && bytes.len() > 256));
    refused
}

/// `l4::write_checksum_vectored` with the first `at` bytes of `bytes` as
/// the headers and the rest as two payload segments: what
/// `l4::write_checksum` does to the whole packet, or `OutOfBounds` where the
/// field is past `at`; nothing written on an error.
fn write_vectored_equals(bytes: &[u8], at: usize) {
    let mut whole = bytes.to_vec();
    let expected = l4::write_checksum(&mut whole);
    let (head, payload) = bytes.split_at(at);
    let mut headers = head.to_vec();
    let payload = payload.split_at(payload.len() / 3);
    let written = l4::write_checksum_vectored(&mut headers, [payload.0, payload.1]);
    if split_headers_refused(bytes, written) {
        assert_eq!(headers, head);
        return;
    }
    let field = packet::analyze(bytes)
        .ok()
        .and_then(|a| a.l4.ok())
        .map(|r| r.offset);
    match (expected, field) {
        (Ok(value), Some(field)) if field + 2 > at => {
            assert_eq!(written, Err(Error::OutOfBounds), "headers of {at} bytes");
            assert_eq!(headers, head);
            let _ = value;
        }
        (Ok(value), _) => {
            assert_eq!(written, Ok(value), "headers of {at} bytes");
            assert_eq!(headers, whole[..at]);
        }
        (Err(e), _) => {
            assert_eq!(written, Err(e), "headers of {at} bytes");
            assert_eq!(headers, head);
        }
    }
}

/// The vectored entry points on `bytes` split in many ways: in two at every
/// point of the first 160 bytes (where the headers are) and at a few
/// further ones, a byte a segment over the first 300 bytes, with empty
/// segments between; the writing form with headers of every length up to
/// 100 bytes.
fn splits_agree(bytes: &[u8], n: u16) {
    let len = bytes.len();
    let points = (0..=len.min(160)).chain([len / 2, len - usize::from(n) % (len + 1), len]);
    for at in points {
        let (a, b) = bytes.split_at(at);
        vectored_equals(bytes, &[a, b]);
    }
    let head = len.min(300);
    let mut bytewise: Vec<&[u8]> = bytes[..head].chunks(1).collect();
    bytewise.push(&bytes[head..]);
    vectored_equals(bytes, &bytewise);
    let third = len / 3;
    let with_empty: [&[u8]; 5] = [&[], &bytes[..third], &[], &bytes[third..], &[]];
    vectored_equals(bytes, &with_empty);
    for at in 0..=len.min(100) {
        write_vectored_equals(bytes, at);
    }
}

proptest! {
    #![proptest_config(cases(2048))]

    #[test]
    fn split_packets_equal_contiguous_ones(
        spec in spec(),
        valid in any::<bool>(),
        cut in any::<prop::sample::Index>(),
        n in any::<u16>(),
    ) {
        let mut built = build(&spec);
        if valid {
            correct(&mut built);
        }
        splits_agree(&built.bytes, n);
        let len = cut.index(built.bytes.len() + 1);
        splits_agree(&built.bytes[..len], n);
    }
}

#[test]
fn split_headers_longer_than_the_stack_buffer() {
    // IPv6, a Hop-by-Hop header of 408 bytes (Pad1 options), UDP with 11
    // bytes of payload: 456 bytes of headers up to the UDP checksum.
    let hop_by_hop = 408;
    let mut bytes = vec![0u8; 40 + hop_by_hop + 8 + 11];
    bytes[0] = 0x60;
    let payload_len = (hop_by_hop + 8 + 11) as u16;
    bytes[4..6].copy_from_slice(&payload_len.to_be_bytes());
    bytes[6] = 0; // Hop-by-Hop
    bytes[8..40].copy_from_slice(&[7; 32]);
    bytes[40] = 17; // then UDP
    bytes[41] = (hop_by_hop / 8 - 1) as u8;
    let udp = 40 + hop_by_hop;
    bytes[udp..udp + 4].copy_from_slice(&[0x12, 0x34, 0x00, 0x35]);
    bytes[udp + 4..udp + 6].copy_from_slice(&(8u16 + 11).to_be_bytes());
    bytes[udp + 8..].copy_from_slice(b"hello world");
    assert!(l4::checksum(&bytes).is_ok());
    for at in 0..=bytes.len() {
        let (a, b) = bytes.split_at(at);
        vectored_equals(&bytes, &[a, b]);
    }
    let bytewise: Vec<&[u8]> = bytes.chunks(1).collect();
    vectored_equals(&bytes, &bytewise);
    for cut in 0..bytes.len() {
        let bytes = &bytes[..cut];
        let (a, b) = bytes.split_at(cut / 2);
        vectored_equals(bytes, &[a, b]);
    }
}

#[test]
fn vectored_inputs_of_every_kind() {
    let packet = [
        0x45, 0x00, 0x00, 0x20, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0xb8, 0xb4, 0xc0, 0xa8, 0x00,
        0x01, 0xc0, 0xa8, 0x00, 0xc7, 0x30, 0x39, 0x00, 0x35, 0x00, 0x0c, 0x00, 0x00, b'p', b'i',
        b'n', b'g',
    ];
    let expected = Ok(0x6e7e);
    let (a, b) = packet.split_at(22);
    assert_eq!(l4::checksum_vectored([a, b]), expected);
    assert_eq!(l4::checksum_vectored(&[a, b]), expected);
    assert_eq!(
        l4::checksum_vectored(vec![a.to_vec(), b.to_vec()]),
        expected
    );
    let owned: Vec<Vec<u8>> = [a, b].map(<[u8]>::to_vec).into();
    assert_eq!(l4::checksum_vectored(owned.iter()), expected);
    // `IoSlice` dereferences to `[u8]` but is not `AsRef<[u8]>`.
    let io = [std::io::IoSlice::new(a), std::io::IoSlice::new(b)];
    assert_eq!(l4::checksum_vectored(io.iter().map(|s| &**s)), expected);
    assert_eq!(l4::checksum_vectored(packet.chunks(5)), expected);
    assert_eq!(
        l4::checksum_vectored(std::iter::empty::<&[u8]>()),
        Err(Error::Truncated)
    );
    // Segments after the data are not read: Ethernet padding, a trailer.
    assert_eq!(l4::checksum_vectored([&packet[..], &[0xee; 18]]), expected);
}

/// The functions that write a packet refuse what `l4::checksum` refuses,
/// with the same error, and write nothing then: `write_checksum` always;
/// `fix` for the upper layer (it reports the rest, and fixes the IPv4
/// header alone);
/// the NAT rewrites except where they need less than the checksum does (data
/// cut short after the header, a first fragment, and without a port, an
/// upper layer with no ports or checksum to update).
fn writers_agree_with_checksum(bytes: &[u8], n: u16) {
    let computed = l4::checksum(bytes);
    let mut written = bytes.to_vec();
    assert_eq!(l4::write_checksum(&mut written), computed);
    if computed.is_err() {
        assert_eq!(written, bytes);
    }
    // `fix` fails where the IP layer cannot be read, as `l4::checksum` then
    // does; where `l4::checksum` fails, it writes at most the IPv4 header's
    // checksum.
    let mut fixed = bytes.to_vec();
    match packet::fix(&mut fixed, ProtocolSet::ALL) {
        Err(e) => {
            assert_eq!(computed, Err(e));
            assert_eq!(fixed, bytes);
        }
        Ok(_) if computed.is_err() => {
            let changed = (0..bytes.len()).filter(|&i| fixed[i] != bytes[i]);
            let ipv4 = bytes[0] >> 4 == 4;
            assert!(
                changed.clone().all(|i| ipv4 && (10..12).contains(&i)),
                "{:?}",
                changed.collect::<Vec<_>>()
            );
        }
        Ok(_) => {}
    }
    for endpoint in [Endpoint::Source, Endpoint::Destination] {
        for port in [None, Some(n)] {
            let mut rewritten = bytes.to_vec();
            let result = match bytes.first().map(|b| b >> 4) {
                Some(4) => {
                    incremental::rewrite_ipv4(&mut rewritten, endpoint, [1, 2, 3, 4].into(), port)
                }
                Some(6) => {
                    incremental::rewrite_ipv6(&mut rewritten, endpoint, [5; 16].into(), port)
                }
                _ => continue,
            };
            match (computed, result) {
                (Ok(_), Ok(())) => {}
                // A port for ICMP, which has none.
                (
                    Ok(_) | Err(Error::Truncated | Error::FirstFragment),
                    Err(Error::Protocol(1 | 58)),
                ) if port.is_some() => {}
                (Err(Error::Truncated | Error::FirstFragment), Ok(())) => {}
                (Err(Error::Protocol(_) | Error::LaterFragment), Ok(())) if port.is_none() => {}
                (expected, result) => assert_eq!(
                    result.map(|()| 0),
                    expected,
                    "{endpoint:?} {port:?} on {bytes:02x?}"
                ),
            }
            if result.is_err() {
                assert_eq!(rewritten, bytes, "nothing written on {result:?}");
            }
        }
    }
}

/// Runs every entry point on `bytes`.
fn exercise(bytes: &[u8], n: u16) {
    let _ = packet::analyze(bytes);
    let _ = packet::upper(bytes);
    let _ = ipv4::header_len(bytes);
    let _ = ipv4::header_checksum(bytes);
    let _ = ipv4::verify_header(bytes);
    let _ = ipv6::upper(bytes);
    let _ = l4::checksum(bytes);
    let _ = l4::verify(bytes);
    let _ = l4::verify_complete(bytes, n);
    let _ = l4::verify_complete_from_ip(bytes, n);
    splits_agree(bytes, n);
    writers_agree_with_checksum(bytes, n);
    let mut copy = bytes.to_vec();
    let _ = packet::fix(&mut copy, ProtocolSet::ALL);
    let _ = ipv4::write_header_checksum(&mut copy);
    let _ = l4::write_checksum(&mut copy);
    let _ = partial::write_seed(&mut copy, SeedLength::Included);
    let _ = partial::write_seed(&mut copy, SeedLength::Omitted);
    let _ = partial::complete(&mut copy, usize::from(n >> 8), usize::from(n & 0xff));
    for endpoint in [Endpoint::Source, Endpoint::Destination] {
        for port in [None, Some(n)] {
            let _ = incremental::rewrite_ipv4(&mut copy, endpoint, [1, 2, 3, 4].into(), port);
            let _ = incremental::rewrite_ipv6(&mut copy, endpoint, [5; 16].into(), port);
        }
    }
    // When fix succeeds, what it fixed verifies.
    let mut fixed = bytes.to_vec();
    if let Ok(before) = packet::fix(&mut fixed, ProtocolSet::ALL) {
        let after = packet::analyze(&fixed).unwrap();
        for (was, now) in before.reports().zip(after.reports()) {
            if was.status.needs_fix() && was.computed != was.stored {
                assert_eq!(now.status, Status::Good, "{was:?} -> {now:?}");
            }
        }
    }
}

proptest! {
    #![proptest_config(cases(8192))]

    #[test]
    fn random_bytes_never_panic(
        mut bytes in prop::collection::vec(any::<u8>(), 0..200),
        version in prop_oneof![Just(0x40u8), Just(0x60), any::<u8>()],
        n in any::<u16>(),
    ) {
        if let Some(first) = bytes.first_mut() {
            *first = (*first & 0x0f) | (version & 0xf0);
        }
        exercise(&bytes, n);
    }

    #[test]
    fn mutated_packets_never_panic(
        spec in spec(),
        flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
        cut in any::<prop::sample::Index>(),
        n in any::<u16>(),
    ) {
        let mut bytes = build(&spec).bytes;
        // Flip bytes in the headers, where parsing decides things.
        let headers = bytes.len().min(200);
        for (at, value) in flips {
            bytes[at.index(headers)] = value;
        }
        let len = cut.index(bytes.len() + 1);
        exercise(&bytes[..len], n);
        exercise(&bytes, n);
    }
}
