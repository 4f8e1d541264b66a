//! Protocol checksums: IPv4 headers; TCP, UDP, UDP-Lite, ICMPv4 and ICMPv6
//! over IPv4 and IPv6 with their pseudo-headers; incremental updates (RFC 1624);
//! completion of partial checksums left by checksum offload.
//!
//! Everything here works in place on the bytes of one IP packet, starting at
//! its IP header, as `&[u8]` or `&mut [u8]` (or, for the `_vectored`
//! functions of [`l4`], split across several buffers): the data is never
//! copied, and every sum goes through the crate's fast kernels. The buffer may be
//! longer than the packet (Ethernet pads short frames to 60 bytes) or shorter
//! (a capture's snap length): the lengths that count are the ones in the
//! headers. Any bytes at all give a value or an [`Error`]; nothing panics.
//!
//! # What is where
//!
//! | module | what it does |
//! |---|---|
//! | this one | [`analyze`] and [`fix`] a whole packet: every checksum it carries, with a [`Status`]; [`upper`] finds the upper-layer header |
//! | [`ipv4`] | the header checksum; the IPv4 pseudo-header and its offload seed |
//! | [`ipv6`] | the IPv6 pseudo-header and its offload seed; the extension header walk |
//! | [`l4`] | TCP, UDP, UDP-Lite, ICMPv4 and ICMPv6 checksums of an IP packet, whole or split across buffers: compute, verify, write |
//! | [`incremental`] | RFC 1624 updates after a field changes, and a NAT rewrite of address and port |
//! | [`partial`] | completing a checksum from `(csum_start, csum_offset)` as virtio-net and Linux hand it over, and writing the seed that offload expects |
//!
//! # Decisions at the edges
//!
//! - **Lengths come from the headers.** The IPv4 Total Length and the IPv6
//!   Payload Length bound the upper layer; the UDP Length bounds a datagram
//!   (and must fit in the IP payload). Bytes past them (Ethernet padding)
//!   never count. Lengths that contradict each other make a checksum
//!   [unverified](Status::Unverified) with [`Error::Length`].
//! - **A checksum is good if the data sums to all ones with it**, as
//!   receivers check: a stored 0xffff where 0x0000 is computed (or the
//!   reverse) is good. A value computed here is 0xffff only for the zero of
//!   UDP and UDP-Lite, which RFC 768 and RFC 3828 send as 0xffff (and for an
//!   all-zero ICMPv4 message, the only data without a pseudo-header that can
//!   sum to 0x0000).
//! - **UDP's zero** is [`Status::Absent`] over IPv4 (no checksum) and
//!   [`Status::Illegal`] over IPv6, UDP-Lite's [`Status::Illegal`] over
//!   both, judged from the field alone, even when the data is cut short. [`fix`] leaves an absent checksum alone and
//!   replaces an illegal one when it can compute it.
//! - **Fragments are not guessed at.** A first fragment's checksum is
//!   [unverified](Status::Unverified) ([`Error::FirstFragment`]); a later
//!   fragment has no upper-layer header ([`Error::LaterFragment`]). An IPv6
//!   atomic fragment (offset 0, no more fragments) is a whole packet.
//! - **IPv6 extension headers**: Hop-by-Hop, Routing, Fragment, Destination
//!   Options and AH are walked; anything else ends the walk and is the upper
//!   layer (ESP, No Next Header and unknown protocols have no checksum known
//!   here). A routing header with segments left makes its final destination
//!   the pseudo-header's destination, for routing types 0, 2, 3 and 4;
//!   others are unverified ([`Error::RoutingType`]). See [`ipv6`].
//! - **IPv4**: options count in the header checksum; AH is walked; source
//!   route options are not followed (the pseudo-header uses the Destination
//!   Address field). ICMPv4 is checksummed over IPv4 only, ICMPv6 over IPv6
//!   only.
//! - **Only the outermost layers.** [`analyze`] reports the IP header and
//!   the header right after it; [`Analysis::upper`] says where that is, so
//!   a caller can decode tunnels (IP-in-IP, GRE, VXLAN) and call
//!   [`analyze`] again on the inner packet.
//!
//! # Example
//!
//! ```
//! use fastpath::packet::{self, Protocol, ProtocolSet, Status};
//!
//! // An IPv4 packet carrying UDP, both checksums wrong, with 6 bytes of
//! // Ethernet padding after it.
//! let mut frame = [
//!     0x45, 0x00, 0x00, 0x20, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0xde, 0xad,
//!     0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7, // 192.168.0.1 -> .199
//!     0x30, 0x39, 0x00, 0x35, 0x00, 0x0c, 0xbe, 0xef, b'p', b'i', b'n', b'g',
//!     0, 0, 0, 0, 0, 0,
//! ];
//! let analysis = packet::analyze(&frame)?;
//! let ip = analysis.ip.unwrap();
//! assert_eq!((ip.protocol, ip.status, ip.offset), (Protocol::Ipv4, Status::Bad, 10));
//! let udp = analysis.l4?;
//! assert_eq!((udp.protocol, udp.status), (Protocol::Udp, Status::Bad));
//! assert_eq!((udp.stored, udp.computed, udp.offset), (0xbeef, 0x6e7e, 26));
//!
//! // Fix both in place; afterwards everything verifies.
//! packet::fix(&mut frame, ProtocolSet::ALL)?;
//! assert!(packet::analyze(&frame)?.reports().all(|r| r.status == Status::Good));
//! # Ok::<(), packet::Error>(())
//! ```

use core::fmt;
use core::str::FromStr;

use crate::Checksum;

pub mod incremental;
pub mod ipv4;
pub mod ipv6;
pub mod l4;
pub mod partial;

/// An IP address as an argument of this module's functions: its bytes in
/// network order or the `core::net` type, by value or by reference, so that
/// `[10, 0, 0, 1]`, `&octets` and `Ipv4Addr::LOCALHOST` all work. This is
/// the one convention of every function here that takes an address.
///
/// ```
/// use core::net::Ipv4Addr;
/// use fastpath::packet::ipv4;
///
/// let octets = [192, 168, 0, 1];
/// let from_octets = ipv4::pseudo_header_seed(octets, &octets, 17);
/// let ip = Ipv4Addr::new(192, 168, 0, 1);
/// assert_eq!(ipv4::pseudo_header_seed(ip, &ip, 17), from_octets);
/// ```
pub trait Address<const N: usize> {
    /// The address's bytes, in network order.
    ///
    /// ```
    /// use core::net::Ipv6Addr;
    /// use fastpath::packet::Address;
    ///
    /// assert_eq!(Address::octets(&[10u8, 0, 0, 1]), [10, 0, 0, 1]);
    /// assert_eq!(Address::octets(Ipv6Addr::LOCALHOST)[15], 1);
    /// ```
    #[must_use]
    fn octets(self) -> [u8; N];
}

impl<const N: usize> Address<N> for [u8; N] {
    #[inline]
    fn octets(self) -> [u8; N] {
        self
    }
}

impl Address<4> for core::net::Ipv4Addr {
    #[inline]
    fn octets(self) -> [u8; 4] {
        core::net::Ipv4Addr::octets(&self)
    }
}

impl Address<16> for core::net::Ipv6Addr {
    #[inline]
    fn octets(self) -> [u8; 16] {
        core::net::Ipv6Addr::octets(&self)
    }
}

/// An IPv4 address as the `u32` whose big-endian bytes it is, as
/// `Ipv4Addr::from(u32)` reads one: `0xc0a8_0001` is 192.168.0.1.
///
/// ```
/// use fastpath::packet::Address;
///
/// assert_eq!(Address::octets(0xc0a8_0001u32), [192, 168, 0, 1]);
/// ```
impl Address<4> for u32 {
    #[inline]
    fn octets(self) -> [u8; 4] {
        self.to_be_bytes()
    }
}

/// An IPv6 address as the `u128` whose big-endian bytes it is, as
/// `Ipv6Addr::from(u128)` reads one.
///
/// ```
/// use fastpath::packet::Address;
///
/// assert_eq!(Address::octets(1u128)[15], 1);
/// ```
impl Address<16> for u128 {
    #[inline]
    fn octets(self) -> [u8; 16] {
        self.to_be_bytes()
    }
}

/// Any of the above by reference.
impl<const N: usize, T: Address<N> + Copy> Address<N> for &T {
    #[inline]
    fn octets(self) -> [u8; N] {
        (*self).octets()
    }
}

/// Why a packet's checksum cannot be computed, verified or written.
///
/// The same values explain an [`Status::Unverified`] verdict.
///
/// ```
/// use fastpath::packet::{ipv4, Error};
///
/// assert_eq!(ipv4::header_checksum(&[0x45; 12]), Err(Error::Truncated));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Error {
    /// The bytes end before a header, a field or the data that a header
    /// declares: the packet was cut short, for example by a capture's snap
    /// length. An IPv4 header shorter than 20 bytes, or shorter than its IHL
    /// says, is `Truncated`.
    Truncated,
    /// The IP version (the first 4 bits) is not 4 or 6, or not the one the
    /// function works on. Holds the version found.
    Version(u8),
    /// The IPv4 IHL is below 5, the minimum. Holds the IHL found.
    HeaderLength(u8),
    /// Lengths that don't fit: an IPv4 total length shorter than the header,
    /// extension headers past the IPv6 payload length (an IPv6 jumbogram
    /// included), an upper layer shorter than its fixed header, a UDP length
    /// below 8 or past the IP payload, a malformed routing header.
    Length,
    /// The first fragment of a fragmented packet: the upper-layer header is
    /// there, but its checksum covers data in the other fragments.
    FirstFragment,
    /// A fragment other than the first: it holds no upper-layer header.
    LaterFragment,
    /// The upper layer is not one whose checksum this module knows (TCP, UDP,
    /// ICMPv4 over IPv4, ICMPv6 over IPv6), or not one the function handles.
    /// Holds its protocol number: for example 50 (ESP, encrypted), 59 (IPv6
    /// No Next Header) or 47 (GRE).
    Protocol(u8),
    /// An IPv6 routing header with segments left, of a type whose final
    /// destination (the pseudo-header's destination address) this module
    /// cannot find. Holds the routing type.
    RoutingType(u8),
    /// A `csum_start` or `csum_offset` outside the buffer; for
    /// [`l4::write_checksum_vectored`], a checksum field outside the buffer
    /// of headers that it writes.
    OutOfBounds,
    /// Without the `std` feature, [`l4::checksum_vectored`] and its kin on a
    /// packet whose headers, up to the upper layer's checksum field, are
    /// longer than 256 bytes and split across segments: there is no heap to
    /// gather them in. (With `std` they are gathered, and this never
    /// occurs.)
    SplitHeaders,
    /// [`partial::write_seed`] on UDP-Lite whose Checksum Coverage ends
    /// before the datagram does: a device completing the checksum sums to
    /// the end of the packet, past what the checksum covers, so offload
    /// cannot produce it. Compute it in software ([`l4::write_checksum`]),
    /// as Linux does for UDP-Lite.
    PartialCoverage,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Error::Truncated => f.write_str("truncated"),
            Error::Version(v) => write!(f, "IP version {v} is not the one expected"),
            Error::HeaderLength(ihl) => write!(f, "IPv4 header length (IHL) {ihl} is below 5"),
            Error::Length => f.write_str("lengths that don't fit"),
            Error::FirstFragment => f.write_str("first fragment: needs reassembly"),
            Error::LaterFragment => f.write_str("non-first fragment: no upper-layer header"),
            Error::Protocol(p) => write!(f, "no known checksum for protocol {p}"),
            Error::RoutingType(t) => {
                write!(f, "final destination unknown for routing header type {t}")
            }
            Error::OutOfBounds => f.write_str("checksum field or start outside the buffer"),
            Error::SplitHeaders => {
                f.write_str("headers longer than 256 bytes split across segments (needs std)")
            }
            Error::PartialCoverage => {
                f.write_str("UDP-Lite coverage ends before the datagram: offload would sum past it")
            }
        }
    }
}

impl core::error::Error for Error {}

/// A protocol whose checksum this module computes.
///
/// The names are the ones capture tools print.
///
/// ```
/// use fastpath::packet::Protocol;
///
/// assert_eq!(Protocol::Icmpv6.name(), "icmpv6");
/// assert_eq!("tcp".parse::<Protocol>(), Ok(Protocol::Tcp));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Protocol {
    /// The IPv4 header checksum.
    Ipv4,
    /// TCP, over IPv4 or IPv6.
    Tcp,
    /// UDP, over IPv4 or IPv6.
    Udp,
    /// ICMP over IPv4 (no pseudo-header).
    Icmp,
    /// ICMPv6 over IPv6 (with the IPv6 pseudo-header).
    Icmpv6,
    /// UDP-Lite (RFC 3828, IP protocol 136), over IPv4 or IPv6: UDP's
    /// pseudo-header, with a checksum over the first bytes that its
    /// Checksum Coverage field names (0: all of them).
    UdpLite,
}

impl Protocol {
    /// Every protocol.
    ///
    /// ```
    /// use fastpath::packet::{Protocol, ProtocolSet};
    ///
    /// let all: ProtocolSet = Protocol::ALL.into_iter().collect();
    /// assert_eq!(all, ProtocolSet::ALL);
    /// ```
    pub const ALL: [Protocol; 6] = [
        Protocol::Ipv4,
        Protocol::Tcp,
        Protocol::Udp,
        Protocol::Icmp,
        Protocol::Icmpv6,
        Protocol::UdpLite,
    ];

    /// The lower-case name: `ipv4`, `tcp`, `udp`, `icmp`, `icmpv6` or
    /// `udplite`.
    ///
    /// ```
    /// use fastpath::packet::Protocol;
    ///
    /// assert_eq!(Protocol::Icmpv6.name(), "icmpv6");
    /// assert_eq!(Protocol::Tcp.to_string(), "tcp");
    /// ```
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Protocol::Ipv4 => "ipv4",
            Protocol::Tcp => "tcp",
            Protocol::Udp => "udp",
            Protocol::Icmp => "icmp",
            Protocol::Icmpv6 => "icmpv6",
            Protocol::UdpLite => "udplite",
        }
    }
}

impl fmt::Display for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The error of parsing a [`Protocol`] from a name it does not have.
///
/// ```
/// use fastpath::packet::{ParseProtocolError, Protocol};
///
/// assert_eq!("sctp".parse::<Protocol>(), Err(ParseProtocolError));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ParseProtocolError;

impl fmt::Display for ParseProtocolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("expected one of ipv4, tcp, udp, icmp, icmpv6, udplite")
    }
}

impl core::error::Error for ParseProtocolError {}

impl FromStr for Protocol {
    type Err = ParseProtocolError;

    fn from_str(s: &str) -> Result<Protocol, ParseProtocolError> {
        Protocol::ALL
            .into_iter()
            .find(|p| p.name().eq_ignore_ascii_case(s))
            .ok_or(ParseProtocolError)
    }
}

/// A set of [`Protocol`]s: the layers that [`fix`] may write.
///
/// ```
/// use fastpath::packet::{Protocol, ProtocolSet};
///
/// let set: ProtocolSet = [Protocol::Ipv4, Protocol::Tcp].into_iter().collect();
/// assert!(set.contains(Protocol::Tcp));
/// assert!(!set.contains(Protocol::Udp));
/// assert_eq!(ProtocolSet::EMPTY.with(Protocol::Udp), ProtocolSet::from(Protocol::Udp));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ProtocolSet(u8);

impl ProtocolSet {
    /// No protocol.
    pub const EMPTY: ProtocolSet = ProtocolSet(0);
    /// Every protocol.
    pub const ALL: ProtocolSet = ProtocolSet(0b11_1111);

    /// The set with `protocol` added.
    ///
    /// ```
    /// use fastpath::packet::{Protocol, ProtocolSet};
    ///
    /// let transport = ProtocolSet::EMPTY.with(Protocol::Tcp).with(Protocol::Udp);
    /// assert!(transport.contains(Protocol::Udp));
    /// assert!(!transport.contains(Protocol::Ipv4));
    /// ```
    #[must_use]
    pub const fn with(self, protocol: Protocol) -> ProtocolSet {
        ProtocolSet(self.0 | 1 << protocol as u8)
    }

    /// Whether `protocol` is in the set.
    ///
    /// ```
    /// use fastpath::packet::{Protocol, ProtocolSet};
    ///
    /// assert!(ProtocolSet::ALL.contains(Protocol::Icmp));
    /// assert!(!ProtocolSet::EMPTY.contains(Protocol::Icmp));
    /// ```
    #[must_use]
    pub const fn contains(self, protocol: Protocol) -> bool {
        self.0 & 1 << protocol as u8 != 0
    }
}

impl From<Protocol> for ProtocolSet {
    fn from(protocol: Protocol) -> ProtocolSet {
        ProtocolSet::EMPTY.with(protocol)
    }
}

impl FromIterator<Protocol> for ProtocolSet {
    fn from_iter<I: IntoIterator<Item = Protocol>>(iter: I) -> ProtocolSet {
        iter.into_iter().fold(ProtocolSet::EMPTY, ProtocolSet::with)
    }
}

/// The verdict on one checksum field.
///
/// ```
/// use fastpath::packet::{Error, Status};
///
/// assert_eq!(Status::Unverified(Error::FirstFragment).name(), "unverified");
/// assert!(Status::Illegal.needs_fix());
/// assert!(!Status::Absent.needs_fix());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// The data sums to all ones with the stored checksum in it, as a
    /// receiver checks (RFC 1071 §1): the checksum is right. Either zero of
    /// ones' complement arithmetic is accepted (0x0000 and 0xffff), as
    /// receivers do.
    Good,
    /// The stored checksum is wrong.
    Bad,
    /// The checksum cannot be verified from these bytes, for the reason
    /// given: [`Error::Truncated`] (cut by a snap length),
    /// [`Error::FirstFragment`] (needs reassembly), [`Error::Length`]
    /// (lengths that don't fit), [`Error::RoutingType`] (unknown final
    /// destination).
    Unverified(Error),
    /// UDP over IPv4 with a checksum of 0: the sender computed none, which
    /// RFC 768 allows. Judged from the field alone, whatever the data.
    Absent,
    /// UDP over IPv6 with a checksum of 0, which RFC 8200 §8.1 forbids:
    /// receivers drop the packet; UDP-Lite with a checksum of 0, which RFC
    /// 3828 §3.1 forbids. Judged from the field alone, whatever the data.
    Illegal,
}

impl Status {
    /// The lower-case name: `good`, `bad`, `unverified`, `absent` or
    /// `illegal`.
    ///
    /// ```
    /// use fastpath::packet::{Error, Status};
    ///
    /// assert_eq!(Status::Good.name(), "good");
    /// assert_eq!(Status::Unverified(Error::FirstFragment).to_string(), "unverified");
    /// ```
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Status::Good => "good",
            Status::Bad => "bad",
            Status::Unverified(_) => "unverified",
            Status::Absent => "absent",
            Status::Illegal => "illegal",
        }
    }

    /// Whether [`fix`] writes this field: the checksum is verifiable and
    /// wrong ([`Status::Bad`] or [`Status::Illegal`]).
    ///
    /// ```
    /// use fastpath::packet::Status;
    ///
    /// assert!(Status::Bad.needs_fix());
    /// assert!(!Status::Absent.needs_fix()); // UDP over IPv4 may omit it
    /// ```
    #[must_use]
    pub const fn needs_fix(self) -> bool {
        matches!(self, Status::Bad | Status::Illegal)
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One checksum field of a packet, and the verdict on it.
///
/// ```
/// use fastpath::packet::{self, Protocol, Status};
///
/// let header = [
///     0x45, 0x00, 0x00, 0x14, 0x00, 0x00, 0x40, 0x00, 0x40, 0xff, 0x00, 0x00,
///     0x0a, 0x00, 0x00, 0x01, 0x0a, 0x00, 0x00, 0x02,
/// ];
/// let report = packet::analyze(&header)?.ip.unwrap();
/// assert_eq!(report.protocol, Protocol::Ipv4);
/// assert_eq!(report.status, Status::Bad);
/// assert_eq!((report.stored, report.offset), (0x0000, 10));
/// assert_eq!(report.computed, fastpath::packet::ipv4::header_checksum(&header)?);
/// # Ok::<(), packet::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Report {
    /// The protocol whose checksum this is.
    pub protocol: Protocol,
    /// The verdict.
    pub status: Status,
    /// The value in the checksum field.
    pub stored: u16,
    /// The value [`fix`] leaves in the field: the correct checksum if the
    /// status [needs a fix](Status::needs_fix), otherwise `stored`
    /// (a good checksum, an absent one, an unverifiable one). An illegal
    /// UDP zero whose data can't be verified keeps its 0.
    pub computed: u16,
    /// The byte offset of the checksum field in the packet.
    pub offset: usize,
}

/// Whether, and how, an IP packet is a fragment.
///
/// A packet with the IPv4 More Fragments flag clear and offset 0, or an
/// IPv6 atomic fragment (RFC 6946: a Fragment header with offset 0 and M
/// clear), is [`Fragment::Whole`].
///
/// ```
/// use fastpath::packet::{self, Fragment};
///
/// // IPv4 with More Fragments set and offset 0: the first fragment.
/// let header = [
///     0x45, 0x00, 0x00, 0x14, 0x12, 0x34, 0x20, 0x00, 0x40, 0x11, 0x00, 0x00,
///     0x0a, 0x00, 0x00, 0x01, 0x0a, 0x00, 0x00, 0x02,
/// ];
/// assert_eq!(packet::upper(&header)?.fragment, Fragment::First);
/// # Ok::<(), packet::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fragment {
    /// Not a fragment: the whole upper-layer packet is here.
    Whole,
    /// The first fragment (offset 0, more to come): the upper-layer header
    /// is here, but not all its data.
    First,
    /// A later fragment (offset not 0): only data, no upper-layer header.
    Later,
}

/// The upper layer of an IP packet: what follows the IPv4 header, or the
/// IPv6 header and the extension headers walked (see [`ipv6::upper`]).
///
/// ```
/// use fastpath::packet::{self, Fragment};
///
/// let header = [
///     0x45, 0x00, 0x00, 0x1c, 0x00, 0x00, 0x00, 0x00, 0x40, 0x01, 0x00, 0x00,
///     0x0a, 0x00, 0x00, 0x01, 0x0a, 0x00, 0x00, 0x02,
/// ];
/// let upper = packet::upper(&header)?;
/// assert_eq!((upper.protocol, upper.offset, upper.end), (1, 20, 28));
/// assert_eq!(upper.fragment, Fragment::Whole);
/// # Ok::<(), packet::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Upper {
    /// The protocol number: the IPv4 Protocol field, or the last Next Header
    /// of the IPv6 header chain (6 TCP, 17 UDP, 1 ICMP, 58 ICMPv6, 4 and 41
    /// IP-in-IP, 47 GRE, ...).
    pub protocol: u8,
    /// Where its header starts in the packet.
    pub offset: usize,
    /// Where the IP header's length fields say the packet ends: past the end
    /// of the buffer if it was truncated, before it if there is padding.
    pub end: usize,
    /// Whether the packet is a fragment.
    pub fragment: Fragment,
    /// The IP version, 4 or 6.
    pub version: u8,
    /// The sum of the source and final destination addresses, or why the
    /// final destination is unknown.
    addresses: Result<Checksum, Error>,
    /// Whether the final destination is the IPv6 header's Destination
    /// Address (no routing header with segments left).
    destination_is_final: bool,
}

impl Upper {
    /// The pseudo-header sum for this upper layer with the given upper-layer
    /// length: source and (final) destination addresses, this protocol
    /// number, `length`. An error if the final destination is unknown.
    ///
    /// ICMPv4 has no pseudo-header: [`l4`] does not call this for it.
    ///
    /// ```
    /// use fastpath::packet::{self, ipv4};
    ///
    /// // UDP over IPv4, 8 bytes of UDP header and no data.
    /// let header = [
    ///     0x45, 0x00, 0x00, 0x1c, 0x00, 0x00, 0x00, 0x00, 0x40, 0x11, 0x00, 0x00,
    ///     0x0a, 0x00, 0x00, 0x01, 0x0a, 0x00, 0x00, 0x02,
    /// ];
    /// let upper = packet::upper(&header)?;
    /// assert_eq!(
    ///     upper.pseudo_header(8)?,
    ///     ipv4::pseudo_header([10, 0, 0, 1], [10, 0, 0, 2], 17, 8)
    /// );
    /// # Ok::<(), packet::Error>(())
    /// ```
    pub fn pseudo_header(&self, length: u32) -> Result<Checksum, Error> {
        let mut sum = self.addresses?;
        sum.add_u16(u16::from(self.protocol));
        // A 32-bit length for IPv6 (RFC 8200 §8.1), 16 bits for IPv4: either
        // way its words add up the same.
        sum.add_u32(length);
        Ok(sum)
    }
}

/// Every checksum of the outermost IP header and the upper-layer header
/// right after it, as [`analyze`] found them.
///
/// ```
/// use fastpath::packet::{self, Protocol, Status};
///
/// // An IPv4 header alone (protocol 0x11 but no UDP header after it).
/// let header = [
///     0x45, 0x00, 0x00, 0x14, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00,
///     0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
/// ];
/// let analysis = packet::analyze(&header)?;
/// let ip = analysis.ip.expect("an IPv4 header checksum");
/// assert_eq!((ip.protocol, ip.status), (Protocol::Ipv4, Status::Bad));
/// assert!(analysis.l4.is_err()); // no UDP header to check
/// # Ok::<(), packet::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Analysis {
    /// The IPv4 header checksum; `None` for IPv6, whose header has none.
    pub ip: Option<Report>,
    /// The upper layer, or why it could not be found (an extension header
    /// cut short, lengths that don't fit).
    pub upper: Result<Upper, Error>,
    /// The upper layer's checksum (TCP, UDP, ICMPv4, ICMPv6), or why there
    /// is none to report: its checksum field is not in the packet
    /// ([`Error::Truncated`], [`Error::Length`]), the packet is a later
    /// fragment, or the protocol has no checksum known here
    /// ([`Error::Protocol`]). When the field is there but the checksum can't
    /// be verified, this is `Ok` with [`Status::Unverified`].
    pub l4: Result<Report, Error>,
}

impl Analysis {
    /// The reports there are: the IPv4 header's, then the upper layer's.
    ///
    /// ```
    /// use fastpath::packet::{self, Protocol};
    ///
    /// // IPv4 and ICMP.
    /// let packet = [
    ///     0x45, 0x00, 0x00, 0x1c, 0x00, 0x00, 0x00, 0x00, 0x40, 0x01, 0x00, 0x00,
    ///     0x0a, 0x00, 0x00, 0x01, 0x0a, 0x00, 0x00, 0x02,
    ///     0x08, 0x00, 0x00, 0x00, 0x12, 0x34, 0x00, 0x01,
    /// ];
    /// let protocols: Vec<Protocol> = packet::analyze(&packet)?.reports().map(|r| r.protocol).collect();
    /// assert_eq!(protocols, [Protocol::Ipv4, Protocol::Icmp]);
    /// # Ok::<(), packet::Error>(())
    /// ```
    pub fn reports(&self) -> impl Iterator<Item = Report> + use<> {
        self.ip.into_iter().chain(self.l4.ok())
    }
}

/// Every checksum of the outermost IP header of `packet` and of the
/// upper-layer header right after it.
///
/// `packet` starts at the IP header (IPv4 or IPv6, told apart by the version
/// field); it may have padding after the packet or be cut short. The result
/// is an error only if there is no IP header to speak of: an empty buffer, a
/// version other than 4 or 6, an IPv4 header shorter than 20 bytes or with
/// an IHL below 5, an IPv6 header shorter than 40 bytes. Everything else is
/// a verdict: an IPv4 header whose options are cut off is
/// [`Status::Unverified`] with [`Error::Truncated`], for example.
///
/// ```
/// use fastpath::packet::{self, Error, Protocol, Status};
///
/// // The first fragment of a UDP datagram: the checksum covers data that
/// // is not in this packet.
/// let packet = [
///     0x45, 0x00, 0x00, 0x24, 0x12, 0x34, 0x20, 0x00, 0x40, 0x11, 0x00, 0x00,
///     0x0a, 0x00, 0x00, 0x01, 0x0a, 0x00, 0x00, 0x02,
///     0x04, 0x00, 0x00, 0x35, 0x05, 0xdc, 0x12, 0x34, // UDP length 1500
///     0, 0, 0, 0, 0, 0, 0, 0,
/// ];
/// let l4 = packet::analyze(&packet)?.l4?;
/// assert_eq!(l4.protocol, Protocol::Udp);
/// assert_eq!(l4.status, Status::Unverified(Error::FirstFragment));
/// assert_eq!(l4.computed, l4.stored);
/// # Ok::<(), packet::Error>(())
/// ```
pub fn analyze(packet: &[u8]) -> Result<Analysis, Error> {
    let (ip, upper) = match version(packet)? {
        4 => (Some(ipv4::report(packet)?), ipv4::upper(packet)),
        6 => {
            ipv6::header(packet)?;
            (None, ipv6::upper(packet))
        }
        v => return Err(Error::Version(v)),
    };
    let l4 = match upper {
        Ok(ref upper) => l4::report(packet, upper),
        Err(e) => Err(e),
    };
    Ok(Analysis { ip, upper, l4 })
}

/// Corrects, in place, every checksum of `packet` that [`analyze`] finds
/// verifiable and wrong ([`Status::needs_fix`]) and whose protocol is in
/// `only`, and returns the analysis made before the fix: each report's
/// `computed` is what the field now holds.
///
/// Nothing else changes: unverifiable checksums, absent UDP checksums and
/// every other byte are left as they are.
///
/// ```
/// use fastpath::packet::{self, Protocol, Status};
///
/// let mut header = [
///     0x45, 0x00, 0x00, 0x14, 0x00, 0x00, 0x40, 0x00, 0x40, 0xff, 0x00, 0x00,
///     0x0a, 0x00, 0x00, 0x01, 0x0a, 0x00, 0x00, 0x02,
/// ];
/// let before = packet::fix(&mut header, Protocol::Ipv4.into())?;
/// assert_eq!(before.ip.unwrap().status, Status::Bad);
/// assert_eq!(packet::analyze(&header)?.ip.unwrap().status, Status::Good);
/// # Ok::<(), packet::Error>(())
/// ```
pub fn fix(packet: &mut [u8], only: ProtocolSet) -> Result<Analysis, Error> {
    let analysis = analyze(packet)?;
    for report in analysis.reports() {
        if report.status.needs_fix()
            && report.computed != report.stored
            && only.contains(report.protocol)
        {
            put16(packet, report.offset, report.computed).ok_or(Error::Truncated)?;
        }
    }
    Ok(analysis)
}

/// The upper layer of the IP packet `packet`, IPv4 or IPv6: see
/// [`ipv4::upper`] and [`ipv6::upper`].
///
/// ```
/// let header = [
///     0x45, 0x00, 0x00, 0x28, 0x00, 0x00, 0x40, 0x00, 0x40, 0x06, 0x00, 0x00,
///     0x0a, 0x00, 0x00, 0x01, 0x0a, 0x00, 0x00, 0x02,
/// ];
/// let upper = fastpath::packet::upper(&header)?;
/// assert_eq!((upper.protocol, upper.offset, upper.end), (6, 20, 40));
/// # Ok::<(), fastpath::packet::Error>(())
/// ```
pub fn upper(packet: &[u8]) -> Result<Upper, Error> {
    match version(packet)? {
        4 => ipv4::upper(packet),
        6 => ipv6::upper(packet),
        v => Err(Error::Version(v)),
    }
}

/// The IP version field: the first 4 bits.
fn version(packet: &[u8]) -> Result<u8, Error> {
    packet.first().map(|b| b >> 4).ok_or(Error::Truncated)
}

/// The big-endian 16-bit word at `at`, if both bytes are there.
#[inline]
fn be16(data: &[u8], at: usize) -> Option<u16> {
    bytes(data, at).map(u16::from_be_bytes)
}

/// The `N` bytes at `at`, if they are all there.
#[inline]
fn bytes<const N: usize>(data: &[u8], at: usize) -> Option<[u8; N]> {
    data.get(at..)?.first_chunk().copied()
}

/// Stores `value` big-endian at `at`, if both bytes are there.
#[inline]
fn put16(data: &mut [u8], at: usize, value: u16) -> Option<()> {
    *data.get_mut(at..)?.first_chunk_mut()? = value.to_be_bytes();
    Some(())
}

/// The folded sum of `data[start..end]` with the 2-byte field at `field`
/// (inside that range) read as zero, after `sum`.
///
/// The data goes to the kernels in two pieces, around the field; the piece
/// before it is at most 16 bytes long, so it takes the inline path.
#[inline]
fn sum_skipping(
    mut sum: Checksum,
    data: &[u8],
    start: usize,
    field: usize,
    end: usize,
) -> Option<u16> {
    let region = data.get(start..end)?;
    let (before, rest) = region.split_at_checked(field.checked_sub(start)?)?;
    let after = rest.get(2..)?;
    // Two zero bytes add nothing to the sum and leave the pairing of the
    // bytes after them as it was: skipping the field reads it as zero.
    sum.update(before);
    sum.update(after);
    Some(sum.sum())
}

/// Whether a checksum `stored` is right for data whose folded sum, with the
/// field read as zero, is `sum`.
///
/// RFC 1071 §1: "To check a checksum, the 1's complement sum is computed
/// over the same set of octets, including the checksum field. If the result
/// is all 1 bits (-0 in 1's complement arithmetic), the check succeeds."
/// Either zero passes: 0x0000 and 0xffff.
fn checks(sum: u16, stored: u16) -> bool {
    let mut with_stored = Checksum::from_parts(sum, false);
    with_stored.add_u16(stored);
    with_stored.sum() == 0xffff
}

/// The verdict on a checksum `stored` over data whose folded sum, with the
/// field read as zero, is `sum`, and the value a fix leaves: `stored` if it
/// is right, `correct` if not.
fn judge(sum: u16, stored: u16, correct: u16) -> (Status, u16) {
    if checks(sum, stored) {
        (Status::Good, stored)
    } else {
        (Status::Bad, correct)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protocol_names_round_trip() {
        for p in Protocol::ALL {
            assert_eq!(p.name().parse::<Protocol>(), Ok(p));
            assert!(ProtocolSet::ALL.contains(p));
            assert!(!ProtocolSet::EMPTY.contains(p));
            assert_eq!(ProtocolSet::from(p), [p].into_iter().collect());
        }
        assert_eq!("ICMPv6".parse::<Protocol>(), Ok(Protocol::Icmpv6));
        assert_eq!("ip".parse::<Protocol>(), Err(ParseProtocolError));
    }

    #[test]
    fn judge_accepts_both_zeros() {
        // Data summing to 0xffff: the checksum is 0, and 0xffff is the
        // other zero of ones' complement arithmetic.
        assert_eq!(judge(0xffff, 0x0000, 0), (Status::Good, 0x0000));
        assert_eq!(judge(0xffff, 0xffff, 0), (Status::Good, 0xffff));
        assert_eq!(judge(0x1234, !0x1234, !0x1234), (Status::Good, !0x1234));
        assert_eq!(judge(0x1234, 0x0000, !0x1234), (Status::Bad, !0x1234));
        assert!(!checks(0x0000, 0x0000));
        assert!(checks(0x0000, 0xffff));
    }

    #[test]
    fn sum_skipping_reads_the_field_as_zero() {
        let data = [1, 2, 3, 4, 0xaa, 0xbb, 5, 6, 7];
        let mut zeroed = data;
        zeroed[4..6].fill(0);
        assert_eq!(
            sum_skipping(Checksum::new(), &data, 0, 4, 9),
            Some(!crate::checksum(&zeroed))
        );
        // At an odd offset too.
        let mut zeroed = data;
        zeroed[3..5].fill(0);
        assert_eq!(
            sum_skipping(Checksum::new(), &data, 0, 3, 9),
            Some(!crate::checksum(&zeroed))
        );
        assert_eq!(sum_skipping(Checksum::new(), &data, 2, 4, 10), None);
        assert_eq!(sum_skipping(Checksum::new(), &data, 2, 8, 9), None);
        assert_eq!(sum_skipping(Checksum::new(), &data, 4, 2, 9), None);
    }

    #[test]
    fn empty_and_unknown_versions_are_errors() {
        assert_eq!(analyze(&[]), Err(Error::Truncated));
        assert_eq!(analyze(&[0x55; 60]), Err(Error::Version(5)));
        assert_eq!(upper(&[0x00; 60]), Err(Error::Version(0)));
    }
}
