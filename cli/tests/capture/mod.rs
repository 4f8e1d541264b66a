//! Captures built byte by byte for the tests of `fastpath pcap`: IP packets
//! with their checksums computed here (a plain RFC 1071 sum, independent of
//! the library), link layers, and pcap and pcapng files.

#![allow(dead_code)]

/// The ones' complement sum of `data` as 16-bit big-endian words, folded.
pub fn sum(data: &[u8]) -> u16 {
    let mut total: u64 = 0;
    for pair in data.chunks(2) {
        let word = if pair.len() == 2 {
            u16::from_be_bytes([pair[0], pair[1]])
        } else {
            u16::from(pair[0]) << 8
        };
        total += u64::from(word);
    }
    while total > 0xffff {
        total = (total & 0xffff) + (total >> 16);
    }
    total as u16
}

/// The checksum to store: the complement of the sum.
pub fn checksum(data: &[u8]) -> u16 {
    !sum(data)
}

/// The addresses of a pseudo-header.
#[derive(Clone)]
pub enum Addresses {
    V4([u8; 4], [u8; 4]),
    /// Source and final destination.
    V6([u8; 16], [u8; 16]),
}

pub const A4: Addresses = Addresses::V4([192, 0, 2, 1], [198, 51, 100, 7]);
pub const A6: Addresses = Addresses::V6(
    [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1],
    [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2],
);

fn pseudo(addresses: &Addresses, protocol: u8, len: usize) -> Vec<u8> {
    let mut p = Vec::new();
    match addresses {
        Addresses::V4(s, d) => {
            p.extend(s);
            p.extend(d);
            p.extend([0, protocol]);
            p.extend((len as u16).to_be_bytes());
        }
        Addresses::V6(s, d) => {
            p.extend(s);
            p.extend(d);
            p.extend((len as u32).to_be_bytes());
            p.extend([0, 0, 0, protocol]);
        }
    }
    p
}

/// Writes the checksum of `segment` (with the pseudo-header if
/// `addresses`) at `field`. UDP's computed zero is sent as 0xffff.
fn finish(
    mut segment: Vec<u8>,
    field: usize,
    protocol: u8,
    addresses: Option<&Addresses>,
) -> Vec<u8> {
    segment[field..field + 2].fill(0);
    let mut data = addresses.map_or_else(Vec::new, |a| pseudo(a, protocol, segment.len()));
    data.extend(&segment);
    let mut value = checksum(&data);
    if protocol == 17 && value == 0 {
        value = 0xffff;
    }
    segment[field..field + 2].copy_from_slice(&value.to_be_bytes());
    segment
}

pub fn tcp(addresses: &Addresses, payload: &[u8]) -> Vec<u8> {
    let mut s = vec![
        0x9c, 0x40, 0x00, 0x50, 0, 0, 0, 1, 0, 0, 0, 0, 0x50, 0x18, 0xff, 0xff, 0, 0, 0, 0,
    ];
    s.extend(payload);
    finish(s, 16, 6, Some(addresses))
}

pub fn udp_ports(addresses: &Addresses, source: u16, destination: u16, payload: &[u8]) -> Vec<u8> {
    let mut s = Vec::new();
    s.extend(source.to_be_bytes());
    s.extend(destination.to_be_bytes());
    s.extend(((8 + payload.len()) as u16).to_be_bytes());
    s.extend([0, 0]);
    s.extend(payload);
    finish(s, 6, 17, Some(addresses))
}

pub fn udp(addresses: &Addresses, payload: &[u8]) -> Vec<u8> {
    udp_ports(addresses, 40000, 9, payload)
}

/// A UDP-Lite datagram (RFC 3828) whose checksum covers its first
/// `coverage` bytes (0: all), with the pseudo-header of the whole datagram.
/// A coverage the datagram does not have gets a checksum over all of it.
pub fn udplite(addresses: &Addresses, coverage: u16, payload: &[u8]) -> Vec<u8> {
    let mut s = Vec::new();
    s.extend(40000u16.to_be_bytes());
    s.extend(5004u16.to_be_bytes());
    s.extend(coverage.to_be_bytes());
    s.extend([0, 0]);
    s.extend(payload);
    let covered = match usize::from(coverage) {
        c @ 8.. if c <= s.len() => c,
        _ => s.len(),
    };
    let mut data = pseudo(addresses, 136, s.len());
    data.extend(&s[..covered]);
    let value = match checksum(&data) {
        0 => 0xffff,
        value => value,
    };
    s[6..8].copy_from_slice(&value.to_be_bytes());
    s
}

/// An ICMP echo request.
pub fn icmp(payload: &[u8]) -> Vec<u8> {
    let mut s = vec![8, 0, 0, 0, 0x12, 0x34, 0, 1];
    s.extend(payload);
    finish(s, 2, 1, None)
}

/// An ICMPv6 echo request.
pub fn icmpv6(addresses: &Addresses, payload: &[u8]) -> Vec<u8> {
    let mut s = vec![128, 0, 0, 0, 0x12, 0x34, 0, 1];
    s.extend(payload);
    finish(s, 2, 58, Some(addresses))
}

/// An IPv4 packet from 192.0.2.1 to 198.51.100.7: `fragment` is the flags
/// and offset field (0x4000: don't fragment).
pub fn ipv4_with(protocol: u8, options: &[u8], fragment: u16, payload: &[u8]) -> Vec<u8> {
    assert_eq!(options.len() % 4, 0);
    let header_len = 20 + options.len();
    let total = header_len + payload.len();
    let mut p = vec![0x40 | (header_len / 4) as u8, 0];
    p.extend((total as u16).to_be_bytes());
    p.extend([0xbe, 0xef]);
    p.extend(fragment.to_be_bytes());
    p.extend([64, protocol, 0, 0, 192, 0, 2, 1, 198, 51, 100, 7]);
    p.extend(options);
    let value = checksum(&p);
    p[10..12].copy_from_slice(&value.to_be_bytes());
    p.extend(payload);
    p
}

pub fn ipv4(protocol: u8, payload: &[u8]) -> Vec<u8> {
    ipv4_with(protocol, &[], 0x4000, payload)
}

/// An IPv6 packet from 2001:db8::1 to 2001:db8::2 whose first next header
/// is `next`, with extension headers `extensions` (their own next header
/// fields already set) before `payload`.
pub fn ipv6_with(next: u8, extensions: &[u8], payload: &[u8]) -> Vec<u8> {
    let mut p = vec![0x60, 0, 0, 0];
    p.extend(((extensions.len() + payload.len()) as u16).to_be_bytes());
    p.extend([next, 64]);
    let Addresses::V6(s, d) = A6 else {
        unreachable!()
    };
    p.extend(s);
    p.extend(d);
    p.extend(extensions);
    p.extend(payload);
    p
}

pub fn ipv6(next: u8, payload: &[u8]) -> Vec<u8> {
    ipv6_with(next, &[], payload)
}

/// Adds `delta` to the 16-bit word at `at`: a checksum made wrong.
pub fn spoil(mut packet: Vec<u8>, at: usize) -> Vec<u8> {
    let word = u16::from_be_bytes([packet[at], packet[at + 1]]).wrapping_add(0x1111);
    packet[at..at + 2].copy_from_slice(&word.to_be_bytes());
    packet
}

/// Sets the 16-bit word at `at`.
pub fn set16(mut packet: Vec<u8>, at: usize, value: u16) -> Vec<u8> {
    packet[at..at + 2].copy_from_slice(&value.to_be_bytes());
    packet
}

// Link layers.

pub fn ethernet(tags: &[u16], ethertype: u16, payload: &[u8]) -> Vec<u8> {
    let mut f = vec![0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1];
    for (i, &tag) in tags.iter().enumerate() {
        f.extend(tag.to_be_bytes());
        f.extend([0x00, 10 + i as u8]);
    }
    f.extend(ethertype.to_be_bytes());
    f.extend(payload);
    f
}

/// Ethernet carrying IPv4 or IPv6, told by the version.
pub fn eth(ip: &[u8]) -> Vec<u8> {
    ethernet(&[], if ip[0] >> 4 == 4 { 0x0800 } else { 0x86dd }, ip)
}

/// Ethernet padded to the 60-byte minimum with nonzero bytes.
pub fn eth_padded(ip: &[u8]) -> Vec<u8> {
    let mut f = eth(ip);
    while f.len() < 60 {
        f.push(0xee);
    }
    f
}

pub fn sll(ethertype: u16, payload: &[u8]) -> Vec<u8> {
    let mut f = vec![0, 0, 0, 1, 0, 6, 2, 0, 0, 0, 0, 1, 0, 0];
    f.extend(ethertype.to_be_bytes());
    f.extend(payload);
    f
}

pub fn sll2(ethertype: u16, payload: &[u8]) -> Vec<u8> {
    let mut f = ethertype.to_be_bytes().to_vec();
    f.extend([0, 0, 0, 0, 0, 3, 0, 1, 0, 6, 2, 0, 0, 0, 0, 1, 0, 0]);
    f.extend(payload);
    f
}

pub fn family(family: u32, big_endian: bool, payload: &[u8]) -> Vec<u8> {
    let mut f = if big_endian {
        family.to_be_bytes()
    } else {
        family.to_le_bytes()
    }
    .to_vec();
    f.extend(payload);
    f
}

/// An Ethernet frame between the addresses given.
pub fn ethernet_between(
    destination: [u8; 6],
    source: [u8; 6],
    ethertype: u16,
    payload: &[u8],
) -> Vec<u8> {
    let mut f = destination.to_vec();
    f.extend(source);
    f.extend(ethertype.to_be_bytes());
    f.extend(payload);
    f
}

/// An MPLS label stack (TTL 64), the bottom-of-stack bit on the last
/// label, then `payload`.
pub fn mpls(labels: &[u32], payload: &[u8]) -> Vec<u8> {
    let mut f = Vec::new();
    for (i, &label) in labels.iter().enumerate() {
        let bottom = u32::from(i + 1 == labels.len());
        f.extend((label << 12 | bottom << 8 | 64).to_be_bytes());
    }
    f.extend(payload);
    f
}

/// A PPP protocol field (2 bytes), then `payload`.
pub fn ppp(protocol: u16, payload: &[u8]) -> Vec<u8> {
    let mut f = protocol.to_be_bytes().to_vec();
    f.extend(payload);
    f
}

/// A PPPoE session header (code 0, session 0x1234, the length of what
/// follows), then the PPP protocol field and `payload`.
pub fn pppoe(protocol: u16, payload: &[u8]) -> Vec<u8> {
    let mut f = vec![0x11, 0x00, 0x12, 0x34];
    f.extend((2 + payload.len() as u16).to_be_bytes());
    f.extend(ppp(protocol, payload));
    f
}

/// An NFLOG frame: family, version 0, resource id 0, then TLVs, each a
/// length and a type (little-endian here; the writers store them in the
/// file's byte order, as the machine that captured did) and a value
/// padded to 4 bytes: the packet header (`ethertype`, big-endian, and
/// the hook) unless `ethertype` is 0, a prefix, then the packet.
pub fn nflog(family: u8, ethertype: u16, payload: &[u8]) -> Vec<u8> {
    let mut f = vec![family, 0, 0, 0];
    let mut tlv = |kind: u16, value: &[u8]| {
        f.extend((4 + value.len() as u16).to_le_bytes());
        f.extend(kind.to_le_bytes());
        f.extend(value);
        f.resize(f.len().div_ceil(4) * 4, 0);
    };
    if ethertype != 0 {
        let mut header = ethertype.to_be_bytes().to_vec();
        header.extend([3, 0]);
        tlv(1, &header);
    }
    tlv(10, b"fastpath\0");
    tlv(9, payload);
    f
}

/// LLC and SNAP (RFC 1042), then `payload` of type `ethertype`.
pub fn llc_snap(ethertype: u16, payload: &[u8]) -> Vec<u8> {
    let mut f = vec![0xaa, 0xaa, 0x03, 0, 0, 0];
    f.extend(ethertype.to_be_bytes());
    f.extend(payload);
    f
}

/// An 802.11 data frame with the flags `flags` (to and from the DS: 4
/// addresses if both; protected 0x40; order 0x80), QoS if `qos` is its
/// QoS control (then HT control too, if the order bit is set), the header
/// padded to 4 bytes if `padded`, then `body`.
pub fn wlan(flags: u8, qos: Option<u16>, padded: bool, body: &[u8]) -> Vec<u8> {
    let subtype = if qos.is_some() { 0x80 } else { 0x00 };
    let mut f = vec![subtype | 0x08, flags, 0x2c, 0x00];
    for address in 1..=if flags & 0x03 == 0x03 { 4 } else { 3 } {
        f.extend([0x02, 0, 0, 0, 0, address]);
    }
    f.extend([0x10, 0x00]);
    if let Some(qos) = qos {
        f.extend(qos.to_le_bytes());
        if flags & 0x80 != 0 {
            f.extend([0, 0, 0, 0]);
        }
    }
    if padded {
        f.resize(f.len().div_ceil(4) * 4, 0);
    }
    f.extend(body);
    f
}

/// A radiotap header, then `frame`: with the flags `flags` if given, after
/// a TSFT, in two words of present flags (so the TSFT is aligned, from
/// 12 to 16); else with no field.
pub fn radiotap(flags: Option<u8>, frame: &[u8]) -> Vec<u8> {
    let mut f = vec![0, 0, 0, 0];
    if let Some(flags) = flags {
        f.extend(0x8000_0003u32.to_le_bytes());
        f.extend(0u32.to_le_bytes());
        f.extend([0; 4]);
        f.extend(1_700_000_000_000_000u64.to_le_bytes());
        f.push(flags);
    } else {
        f.extend(0u32.to_le_bytes());
    }
    let len = f.len() as u16;
    f[2..4].copy_from_slice(&len.to_le_bytes());
    f.extend(frame);
    f
}

/// `data`, a frame of link type `link`, as a machine of the byte order
/// `big_endian` captures it: an NFLOG frame's TLV lengths and types in
/// that order (they are little-endian in the frames built here).
fn in_byte_order(link: u16, big_endian: bool, data: &[u8]) -> Vec<u8> {
    let mut f = data.to_vec();
    if link == 239 && big_endian {
        let mut at = 4;
        while at + 4 <= f.len() {
            let len = u16::from_le_bytes([f[at], f[at + 1]]);
            f[at..at + 2].reverse();
            f[at + 2..at + 4].reverse();
            at += usize::from(len.max(4)).div_ceil(4) * 4;
        }
    }
    f
}

// Capture files.

/// A frame of a capture: its link type, the bytes on the wire, and how
/// many of them were captured.
#[derive(Clone)]
pub struct Frame {
    pub link: u16,
    pub bytes: Vec<u8>,
    pub snaplen: Option<usize>,
}

pub fn frame(link: u16, bytes: Vec<u8>) -> Frame {
    Frame {
        link,
        bytes,
        snaplen: None,
    }
}

impl Frame {
    fn captured(&self) -> &[u8] {
        &self.bytes[..self.snaplen.unwrap_or(usize::MAX).min(self.bytes.len())]
    }
}

#[derive(Clone, Copy, Debug)]
pub enum Format {
    Pcap { nanosecond: bool, big_endian: bool },
    PcapNg { big_endian: bool },
}

pub const FORMATS: [Format; 6] = [
    Format::Pcap {
        nanosecond: false,
        big_endian: false,
    },
    Format::Pcap {
        nanosecond: false,
        big_endian: true,
    },
    Format::Pcap {
        nanosecond: true,
        big_endian: false,
    },
    Format::Pcap {
        nanosecond: true,
        big_endian: true,
    },
    Format::PcapNg { big_endian: false },
    Format::PcapNg { big_endian: true },
];

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::Pcap {
                nanosecond: false,
                big_endian: false,
            } => "pcap-us-le",
            Format::Pcap {
                nanosecond: false,
                big_endian: true,
            } => "pcap-us-be",
            Format::Pcap {
                nanosecond: true,
                big_endian: false,
            } => "pcap-ns-le",
            Format::Pcap {
                nanosecond: true,
                big_endian: true,
            } => "pcap-ns-be",
            Format::PcapNg { big_endian: false } => "pcapng-le",
            Format::PcapNg { big_endian: true } => "pcapng-be",
        }
    }

    pub fn extension(self) -> &'static str {
        match self {
            Format::Pcap { .. } => "pcap",
            Format::PcapNg { .. } => "pcapng",
        }
    }
}

struct Endian(bool);

impl Endian {
    fn u16(&self, v: u16) -> [u8; 2] {
        if self.0 {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    }
    fn u32(&self, v: u32) -> [u8; 4] {
        if self.0 {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    }
}

/// A capture of `frames` in `format`. A pcap file has one link type, that
/// of the first frame; pcapng gets one interface per link type.
pub fn write(format: Format, frames: &[Frame]) -> Vec<u8> {
    match format {
        Format::Pcap {
            nanosecond,
            big_endian,
        } => pcap(nanosecond, big_endian, frames),
        Format::PcapNg { big_endian } => pcapng(big_endian, frames),
    }
}

pub fn pcap(nanosecond: bool, big_endian: bool, frames: &[Frame]) -> Vec<u8> {
    let e = Endian(big_endian);
    let link = frames.first().map_or(1, |f| f.link);
    assert!(
        frames.iter().all(|f| f.link == link),
        "one link type per pcap file"
    );
    let mut out = Vec::new();
    out.extend(e.u32(if nanosecond { 0xa1b2_3c4d } else { 0xa1b2_c3d4 }));
    out.extend(e.u16(2));
    out.extend(e.u16(4));
    out.extend(e.u32(0));
    out.extend(e.u32(0));
    out.extend(e.u32(262_144));
    out.extend(e.u32(u32::from(link)));
    for (i, f) in frames.iter().enumerate() {
        let data = &in_byte_order(f.link, big_endian, f.captured());
        out.extend(e.u32(1_700_000_000 + i as u32));
        out.extend(e.u32(if nanosecond { 123_456_789 } else { 123_456 }));
        out.extend(e.u32(data.len() as u32));
        out.extend(e.u32(f.bytes.len() as u32));
        out.extend(data);
    }
    out
}

/// A pcapng block: type, length, body padded to 32 bits, length.
pub fn block(big_endian: bool, kind: u32, body: &[u8]) -> Vec<u8> {
    let e = Endian(big_endian);
    let padded = body.len().div_ceil(4) * 4;
    let len = (12 + padded) as u32;
    let mut b = e.u32(kind).to_vec();
    b.extend(e.u32(len));
    b.extend(body);
    b.resize(8 + padded, 0);
    b.extend(e.u32(len));
    b
}

/// An option list: each (code, value), then opt_endofopt.
pub fn options(big_endian: bool, list: &[(u16, &[u8])]) -> Vec<u8> {
    let e = Endian(big_endian);
    let mut o = Vec::new();
    for (code, value) in list {
        o.extend(e.u16(*code));
        o.extend(e.u16(value.len() as u16));
        o.extend(*value);
        o.resize(o.len().div_ceil(4) * 4, 0);
    }
    o.extend([0, 0, 0, 0]);
    o
}

pub fn section_header(big_endian: bool) -> Vec<u8> {
    let e = Endian(big_endian);
    let mut body = e.u32(0x1a2b_3c4d).to_vec();
    body.extend(e.u16(1));
    body.extend(e.u16(0));
    body.extend([0xff; 8]);
    body.extend(options(big_endian, &[(4, b"fastpath tests")]));
    block(big_endian, 0x0a0d_0d0a, &body)
}

pub fn interface(big_endian: bool, link: u16, snaplen: u32) -> Vec<u8> {
    let e = Endian(big_endian);
    let mut body = e.u16(link).to_vec();
    body.extend([0, 0]);
    body.extend(e.u32(snaplen));
    body.extend(options(big_endian, &[(2, b"eth0"), (9, &[9])]));
    block(big_endian, 1, &body)
}

pub fn enhanced_packet(big_endian: bool, interface: u32, i: usize, f: &Frame) -> Vec<u8> {
    let e = Endian(big_endian);
    let data = &in_byte_order(f.link, big_endian, f.captured());
    let mut body = e.u32(interface).to_vec();
    body.extend(e.u32(0x0006_0000));
    body.extend(e.u32(0x1000_0000 + i as u32));
    body.extend(e.u32(data.len() as u32));
    body.extend(e.u32(f.bytes.len() as u32));
    body.extend(data);
    body.resize(body.len().div_ceil(4) * 4, 0);
    body.extend(options(big_endian, &[(1, b"a comment"), (2, &e.u32(1))]));
    block(big_endian, 6, &body)
}

/// pcapng with every frame in an Enhanced Packet Block, an interface per
/// link type, and blocks of other kinds around them: name resolution,
/// interface statistics, a custom block, a block of an unknown type.
pub fn pcapng(big_endian: bool, frames: &[Frame]) -> Vec<u8> {
    let e = Endian(big_endian);
    let mut out = section_header(big_endian);
    let mut links: Vec<u16> = Vec::new();
    for (i, f) in frames.iter().enumerate() {
        let index = match links.iter().position(|&l| l == f.link) {
            Some(index) => index,
            None => {
                links.push(f.link);
                out.extend(interface(big_endian, f.link, 262_144));
                links.len() - 1
            }
        };
        out.extend(enhanced_packet(big_endian, index as u32, i, f));
        if i == 0 {
            // Name resolution: an IPv4 record, then the end of records.
            let mut nrb = e.u16(1).to_vec();
            nrb.extend(e.u16(13));
            nrb.extend([192, 0, 2, 1]);
            nrb.extend(b"host\0\0\0\0\0");
            nrb.resize(nrb.len().div_ceil(4) * 4, 0);
            nrb.extend([0, 0, 0, 0]);
            out.extend(block(big_endian, 4, &nrb));
            let mut custom = e.u32(32473).to_vec();
            custom.extend(b"custom data");
            out.extend(block(big_endian, 0x0000_0bad, &custom));
            out.extend(block(big_endian, 0x0000_0101, b"unknown kind"));
        }
    }
    let mut isb = e.u32(0).to_vec();
    isb.extend(e.u32(0));
    isb.extend(e.u32(1));
    isb.extend(options(big_endian, &[(4, &[0; 8])]));
    out.extend(block(big_endian, 5, &isb));
    out
}

// Running the binary.

/// The `fastpath` binary that Cargo built for these tests.
pub const FASTPATH: &str = env!("CARGO_BIN_EXE_fastpath");

/// A fresh, empty directory for one test: `name` and the test process's id.
pub fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("fastpath-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The standard error of a command that ran, as text.
pub fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Three Ethernet frames of TCP over IPv4, the second with a wrong
/// checksum: as captured, and as fix must write them.
pub fn one_bad_of_three() -> (Vec<Frame>, Vec<Frame>) {
    let good = |payload: &[u8]| frame(1, eth(&ipv4(6, &tcp(&A4, payload))));
    let bad = frame(1, eth(&spoil(ipv4(6, &tcp(&A4, b"second")), 36)));
    (
        vec![good(b"first"), bad, good(b"third")],
        vec![good(b"first"), good(b"second"), good(b"third")],
    )
}

/// Runs `fastpath` with `args` and nothing on its standard input.
pub fn fastpath(args: &[&str]) -> std::process::Output {
    std::process::Command::new(FASTPATH)
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run fastpath")
}

/// `p` as the `&str` a command line takes.
pub fn path(p: &std::path::Path) -> &str {
    p.to_str().unwrap()
}

// More link layers.

/// An IP over InfiniBand frame (LINKTYPE_IPOIB): a 40-byte pseudo-header
/// (the destination's QPN and GID), the EtherType, 2 reserved bytes, then
/// `payload`.
pub fn ipoib(ethertype: u16, payload: &[u8]) -> Vec<u8> {
    let mut f = vec![0; 20];
    f.extend([0x80, 0x00, 0x05, 0x50, 0xfe, 0x80, 0, 0, 0, 0, 0, 0]);
    f.extend([0x00, 0x10, 0xe0, 0x00, 0x66, 0x4a, 0xb4, 0x51]);
    f.extend(ethertype.to_be_bytes());
    f.extend([0, 0]);
    f.extend(payload);
    f
}

/// An ARCNET frame from 0x50 to 0xbe: the Linux header (LINKTYPE 129,
/// with the 2-byte offset field) if `linux`, else the BSD one (7); the
/// protocol ID; for RFC 1201's protocols (not 240, 241), the split flag 0
/// and a sequence number; then `payload`.
pub fn arcnet(linux: bool, protocol: u8, payload: &[u8]) -> Vec<u8> {
    let mut f = vec![0x50, 0xbe];
    if linux {
        f.extend([0xa8, 0x00]);
    }
    f.push(protocol);
    if !matches!(protocol, 240 | 241) {
        f.extend([0x00, 0x01, 0x66]);
    }
    f.extend(payload);
    f
}

/// A Solaris IPNET frame (LINKTYPE 226): version 1, `family` (2 IPv4, 26
/// IPv6), hook 0, the packet's length, interface 2 and zone ids, then
/// `packet`.
pub fn ipnet(family: u8, packet: &[u8]) -> Vec<u8> {
    let mut f = vec![1, family, 0, 0];
    f.extend((packet.len() as u32).to_be_bytes());
    f.extend(2u32.to_be_bytes());
    f.extend(0u32.to_be_bytes());
    f.extend(u32::MAX.to_be_bytes());
    f.extend(0u32.to_be_bytes());
    f.extend(packet);
    f
}

/// An Apple PKTAP frame (LINKTYPE 258): the 108-byte little-endian
/// header (its length, record type 1, `link`, interface "en0", process
/// id 512), then `inner`, a frame of link type `link`.
pub fn pktap(link: u32, inner: &[u8]) -> Vec<u8> {
    let mut f = 108u32.to_le_bytes().to_vec();
    f.extend(1u32.to_le_bytes());
    f.extend(link.to_le_bytes());
    f.extend(b"en0");
    f.resize(36, 0);
    f.extend(2u32.to_le_bytes());
    f.extend(2u32.to_le_bytes());
    f.extend(14u32.to_le_bytes());
    f.extend(0u32.to_le_bytes());
    f.extend(512u32.to_le_bytes());
    f.resize(84, 0);
    f.extend(u32::MAX.to_le_bytes());
    f.resize(108, 0);
    f.extend(inner);
    f
}

/// A frame of link type `link` behind a Per-Packet Information header
/// (LINKTYPE_PPI): version 0, flags 0, the header's length and `link`,
/// little-endian; for 802.11 (105), an 802.11-Common field (type 2, 20
/// bytes: TSF timer, flags, rate, channel, FHSS, signal and noise) in it.
pub fn ppi(link: u32, inner: &[u8]) -> Vec<u8> {
    let mut fields = Vec::new();
    if link == 105 {
        fields.extend(2u16.to_le_bytes());
        fields.extend(20u16.to_le_bytes());
        fields.extend([0u8; 8]);
        fields.extend(0u16.to_le_bytes());
        fields.extend(2u16.to_le_bytes());
        fields.extend(2437u16.to_le_bytes());
        fields.extend(0x00a0u16.to_le_bytes());
        fields.extend([0, 0, 0xc4, 0xa0]);
    }
    let mut f = vec![0, 0];
    f.extend((8 + fields.len() as u16).to_le_bytes());
    f.extend(link.to_le_bytes());
    f.extend(fields);
    f.extend(inner);
    f
}

/// A Cisco FabricPath frame around the Ethernet frame `inner`: outer
/// hierarchical addresses, an 802.1ad tag if `tag`, EtherType 0x8903, FTAG
/// and TTL, then `inner` and the frame check sequence, which FabricPath
/// frames are captured with (Wireshark 4.0 takes the last 4 bytes for it).
pub fn fabricpath(tag: bool, inner: &[u8]) -> Vec<u8> {
    let mut f = vec![
        0x02, 0x00, 0x0c, 0x00, 0x00, 0x01, 0x02, 0x00, 0x0d, 0x00, 0x00, 0x02,
    ];
    if tag {
        f.extend([0x88, 0xa8, 0x00, 0x64]);
    }
    f.extend([0x89, 0x03, 0x00, 0x7f]);
    f.extend(inner);
    f.extend([0x5e, 0x1f, 0x0c, 0x4d]);
    f
}

/// An Arista vendor-specific header (after EtherType 0xd28b): the
/// timestamp subtype, `version` (0x0010 or 0x0110: 64 bits; 0x0020 or
/// 0x0120: 48 bits), the timestamp, then `ethertype` and `payload`.
pub fn arista(version: u16, ethertype: u16, payload: &[u8]) -> Vec<u8> {
    let mut f = vec![0x00, 0x01];
    f.extend(version.to_be_bytes());
    let seconds: &[u8] = if version & 0xff == 0x20 {
        &[0xed, 0x95]
    } else {
        &[0x5c, 0xee, 0xed, 0x57]
    };
    f.extend(seconds);
    f.extend([0x38, 0x4f, 0x59, 0xc8]);
    f.extend(ethertype.to_be_bytes());
    f.extend(payload);
    f
}

// The verdicts of verify and of tshark, in one form.

/// The checksum lines of `fastpath pcap verify --json` on `file`: (frame,
/// depth, protocol, status).
pub fn verify_lines(file: &std::path::Path) -> Vec<(u64, u8, String, String)> {
    let out = fastpath(&["pcap", "verify", "--json", path(file)]);
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            (
                v["frame"].as_u64().unwrap(),
                v["depth"].as_u64().unwrap() as u8,
                v["proto"].as_str().unwrap().to_owned(),
                v["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// tshark's verdicts on `file`, as .ci/tshark-check.sh reads them: one
/// line per frame and protocol, "frame proto status,status,..." with the
/// codes 0 bad, 1 good, 2 unverified, 3 absent, 4 illegal.
pub fn tshark_verdicts(file: &std::path::Path) -> Vec<String> {
    let out = std::process::Command::new("tshark")
        .args(["-n", "-r", path(file)])
        .args(["-o", "ip.check_checksum:TRUE"])
        .args(["-o", "tcp.check_checksum:TRUE"])
        .args(["-o", "udp.check_checksum:TRUE", "-o", "ip.defragment:FALSE"])
        .args(["-o", "ipv6.defragment:FALSE", "-T", "fields"])
        .args(["-E", "occurrence=a", "-E", "aggregator=,"])
        .args(["-e", "frame.number"])
        .args(["-e", "ip.checksum.status", "-e", "tcp.checksum.status"])
        .args(["-e", "udp.checksum.status", "-e", "icmp.checksum.status"])
        .args(["-e", "icmpv6.checksum.status"])
        .output()
        .unwrap();
    let names = ["ipv4", "tcp", "udp", "icmp", "icmpv6"];
    let mut lines: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .flat_map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            let frame = fields[0].to_owned();
            fields[1..]
                .iter()
                .zip(names)
                .filter(|(f, _)| !f.is_empty())
                .map(|(f, name)| format!("{frame} {name} {f}"))
                .collect::<Vec<_>>()
        })
        .collect();
    lines.sort();
    lines
}

/// `lines` of verify in the form of [`tshark_verdicts`]'s.
pub fn as_tshark(lines: &[(u64, u8, String, String)]) -> Vec<String> {
    let mut keys: Vec<(u64, &str)> = Vec::new();
    let mut codes: Vec<Vec<&str>> = Vec::new();
    for (frame, _, proto, status) in lines {
        let code = match status.as_str() {
            "bad" => "0",
            "good" => "1",
            "unverified" => "2",
            "absent" => "3",
            _ => "4",
        };
        match keys.iter().position(|&k| k == (*frame, proto.as_str())) {
            Some(i) => codes[i].push(code),
            None => {
                keys.push((*frame, proto));
                codes.push(vec![code]);
            }
        }
    }
    let mut out: Vec<String> = keys
        .iter()
        .zip(codes)
        .map(|((frame, proto), codes)| format!("{frame} {proto} {}", codes.join(",")))
        .collect();
    out.sort();
    out
}

/// Inspects the IP packet `ip` and fixes a copy of it, as `fix` does: an
/// error if the copy then holds a bad checksum or differs in a byte that
/// is no checksum field. Any bytes may be given: none may panic.
pub fn fix_changes_only_checksums(ip: &[u8]) -> Result<(), String> {
    use fastpath::packet::{ProtocolSet, Status};
    use fastpath_cli::pcap::layers;

    let _ = layers::inspect_walk(ip, &mut Vec::new());
    let mut fixed = ip.to_vec();
    if layers::fix(&mut fixed, ProtocolSet::ALL, &mut Vec::new()).is_err() {
        return Ok(());
    }
    let mut after = Vec::new();
    if let Err(e) = layers::inspect(&fixed, &mut after) {
        return Err(format!("the fixed packet is not inspected: {e:?}"));
    }
    if after.iter().any(|l| l.report.status == Status::Bad) {
        return Err(format!("bad after fix: {after:?}"));
    }
    let mut fields = Vec::new();
    layers::checksum_fields(ip, &mut fields);
    match (0..ip.len())
        .find(|&i| ip[i] != fixed[i] && !fields.iter().any(|&f| (f..f + 2).contains(&i)))
    {
        Some(i) => Err(format!("byte {i} changed")),
        None => Ok(()),
    }
}

/// Fixes a capture of the one frame `input` in `dir`, as `fastpath pcap
/// fix` does, and asserts that it writes a capture of the frame `fixed`,
/// in which verify then finds nothing bad or illegal (`name` names the
/// case in the messages).
pub fn assert_fix_writes(dir: &std::path::Path, name: &str, input: &[u8], fixed: &[u8]) {
    let (file, out_file) = (dir.join("in.pcap"), dir.join("fixed.pcap"));
    std::fs::write(&file, ethernet_pcap(&[input.to_vec()])).unwrap();
    let out = fastpath(&["pcap", "fix", path(&file), "-o", path(&out_file)]);
    assert!(out.status.success(), "{name}: {out:?}");
    let want = ethernet_pcap(&[fixed.to_vec()]);
    assert!(std::fs::read(&out_file).unwrap() == want, "{name}");
    for (_, depth, proto, status) in verify_lines(&out_file) {
        assert!(
            status != "bad" && status != "illegal",
            "{name}: {depth} {proto} {status}"
        );
    }
}

/// A pcap file (microseconds, little-endian) of Ethernet `frames`.
pub fn ethernet_pcap(frames: &[Vec<u8>]) -> Vec<u8> {
    let frames: Vec<Frame> = frames.iter().map(|f| frame(1, f.clone())).collect();
    write(
        Format::Pcap {
            nanosecond: false,
            big_endian: false,
        },
        &frames,
    )
}

/// Asserts that tshark reads the capture of the Ethernet `frames` as
/// `expected` says fastpath's verify does (as [`verify_lines`] gives it),
/// and the capture `fix` writes of it as verify then reads it: tshark's
/// verdicts, before and after fix. Skipped if tshark is not installed.
pub fn assert_tshark_agrees(
    name: &str,
    frames: &[Vec<u8>],
    expected: &[(u64, u8, String, String)],
) {
    if std::process::Command::new("tshark")
        .arg("-v")
        .output()
        .is_err()
    {
        eprintln!("tshark not installed: not compared");
        return;
    }
    let dir = temp_dir(name);
    let file = dir.join("in.pcap");
    std::fs::write(&file, ethernet_pcap(frames)).unwrap();
    assert_eq!(tshark_verdicts(&file), as_tshark(expected));
    let fixed = dir.join("fixed.pcap");
    fastpath(&["pcap", "fix", path(&file), "-o", path(&fixed)]);
    assert_eq!(tshark_verdicts(&fixed), as_tshark(&verify_lines(&fixed)));
    std::fs::remove_dir_all(dir).unwrap();
}

/// The IP packet of the Ethernet `frame`, its bytes changed by `mutations`
/// (an index into it, and the new value) and cut at `cut`: the input of the
/// fuzzing properties.
pub fn mutated_ip(
    frame: &[u8],
    mutations: &[(proptest::sample::Index, u8)],
    cut: proptest::sample::Index,
) -> Vec<u8> {
    // The IP packet after the 14-byte Ethernet header.
    let mut ip = frame[14..].to_vec();
    for (at, value) in mutations {
        let i = at.index(ip.len());
        ip[i] = *value;
    }
    ip.truncate(cut.index(ip.len() + 1));
    ip
}
