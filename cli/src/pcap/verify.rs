//! `fastpath pcap verify`: every checksum of every frame, as JSON lines or a
//! summary per file, and what could not be verified, by reason.
//!
//! What is reported, per frame:
//!
//! - the IPv4 header checksum and the TCP, UDP, ICMP or ICMPv6 checksum of
//!   the outermost IP packet (depth 0), and the same for each tunnel's
//!   inner packet (depth 1, 2, ...), outermost first;
//! - no line for an upper layer that has no checksum field in the frame: a
//!   later fragment (no upper-layer header), a header cut off by the snap
//!   length before its checksum field, a protocol with no checksum known
//!   (ESP, GRE, ...), and no line at all for frames that hold no IP;
//! - a first fragment's upper-layer checksum is there but covers data in
//!   other fragments: `unverified`.
//!
//! `computed` is the checksum of the bytes as they are in the file, as
//! tshark computes it: an outer checksum over a tunnel is judged, and
//! computed, over the inner packet as captured, wrong inner checksums and
//! all (after `fix` it changes if an inner checksum is fixed; `fix` prints
//! what it writes). A good checksum's `computed` is `stored`, but for the
//! other zero of ones' complement arithmetic: a TCP, ICMP, ICMPv6 or IPv4
//! checksum stored as 0xffff whose data computes to 0x0000 is good (both
//! zeros pass a receiver's check) with `computed` 0. UDP's and UDP-Lite's
//! computed 0 is sent as 0xffff (RFC 768, RFC 3828), so their `computed`
//! is 0xffff. Where nothing can
//! be computed, or nothing is to be, `computed` is `stored`: `unverified`
//! (the data is not all there or its lengths don't fit), `illegal` when its
//! data can't be verified, and `absent` (UDP over IPv4 whose sender
//! computed no checksum: 0; tshark shows the value it would have had,
//! which would cost verify a second pass over such datagrams).
//!
//! `unverified` checksums are counted by reason (snap length, first
//! fragment, lengths, routing header), and what may hold a checksum that
//! has no line at all is counted by reason too ([`Gap`]): frames of link
//! types not decoded, frames with no IP decoded (but those of protocols
//! that carry no IP: ARP, LLDP, LLC, ...), IP headers cut short or
//! malformed, TSO and BIG TCP packets (IPv4 total length 0, IPv6 payload
//! length 0), lengths that don't fit, tunnels deeper than
//! [`MAX_DEPTH`](layers::MAX_DEPTH), upper layers whose checksum is not
//! verified here (SCTP, IGMP, ESP, ...). With `--strict`, any of them makes
//! the exit status 1, as a bad checksum does.

use std::io::{self, BufWriter, Write};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Receiver;

use fastpath::packet::{self, Protocol, ProtocolSet, Status};

use super::fast;
use super::layers::{self, End, Layer, Stop};
use super::link::{self, Network};
use super::output::{self, Tally};
use super::parallel;
use super::progress::Progress;
use super::read::{Access, Capture, Format, Frame, ReadError};

/// The exit statuses of verify, two bits: 1 bad, 2 unreadable.
const EXIT_HELP: &str = "\
Exit status: 0 if no checksum is bad; 1 if a checksum is bad or illegal
(with --strict, also if one could not be verified or a frame was not
decoded); 2 if a file could not be read to its end, or the output could not
be written (its reader closed it early, standard output closed); 3 for both
1 and 2.";

/// The arguments of `fastpath pcap verify`.
#[derive(clap::Args)]
#[command(after_help = EXIT_HELP)]
pub struct Args {
    /// Capture files, pcap or pcapng; `-` for standard input. FIFOs and
    /// pipes are read as they come. Several files are read at once, one per
    /// core, and printed in order as if read one after another (with no
    /// progress bar).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Print one JSON object per checksum, one per line, instead of a
    /// summary.
    #[arg(long)]
    json: bool,
    /// As --json, and after each file's lines a summary object
    /// ({"file": ..., "summary": {...}}, with no "frame" key); with several
    /// files, a total object last ({"total": {...}}).
    #[arg(long)]
    json_summary: bool,
    /// Exit with status 1 if any checksum could not be verified or any
    /// frame was not decoded, as for a bad checksum; the reasons go to
    /// standard error.
    #[arg(long)]
    strict: bool,
}

/// What a frame held.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// An IP packet: its checksums are in the inspector's layers.
    Ip,
    /// No IP packet in a decoded link layer.
    NotIp,
    /// A link type not decoded here.
    OtherLink,
    /// An IP packet whose header is unusable.
    BrokenIp,
}

/// Why something in a frame may hold a checksum that `verify` did not
/// verify and has no line for. One frame has one at most: the walk through
/// its layers stops there.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Gap {
    /// A frame of a link type not decoded here.
    LinkType(u16),
    /// A packet of a pcapng interface past those remembered.
    Interface,
    /// A frame whose link header is cut short before its network protocol.
    LinkCut,
    /// A frame whose link layer (Ethernet, SLL, SLL2) names this EtherType,
    /// in which no IP was decoded, and which is no protocol known to carry
    /// no IP (MPLS, PPPoE, MACsec, ...).
    EtherType(u16),
    /// A frame of this decoded link type in which no IP was found, and no
    /// EtherType tells what it holds: a loopback address family, raw IP of
    /// another version, PPP control protocols, ...
    NoIp(u16),
    /// A packet cut short (by the snap length) before a checksum field: an
    /// IP header, IPv6 extension headers, an upper-layer header.
    Cut,
    /// A malformed IP header: an IHL below 5, a version that its link layer
    /// or tunnel does not announce.
    Malformed,
    /// An IPv4 packet of total length 0: a TSO or BIG TCP packet as
    /// captured on the sending host.
    Ipv4Length0,
    /// An IPv6 packet of payload length 0: a jumbogram (RFC 2675), or a BIG
    /// TCP packet.
    Ipv6Length0,
    /// A packet whose lengths don't fit: a total length below the header's,
    /// extension headers past the payload length, a UDP length past it.
    Lengths,
    /// A tunnel at depth [`MAX_DEPTH`](layers::MAX_DEPTH), not followed.
    TooDeep,
    /// An upper layer with no checksum verified here, by IP protocol
    /// number: SCTP, IGMP, ESP, GRE that is not decoded, ...
    Protocol(u8),
    /// Anything else the walk stopped at.
    Other,
}

/// Finds every checksum of a frame; keeps its buffers from frame to frame.
#[derive(Default)]
pub struct Inspector {
    /// The checksums of the last frame inspected.
    pub layers: Vec<Layer>,
    scratch: Vec<u8>,
    fixed: Vec<Layer>,
}

impl Inspector {
    /// Inspects the frame `frame` whose captured bytes are `data`, as `fix`
    /// needs it: each layer's `computed` is what its field holds once the
    /// whole packet is fixed (an outer checksum over a tunnel changes when
    /// an inner one is fixed).
    pub fn inspect(&mut self, frame: &Frame, data: &[u8]) -> Kind {
        self.layers.clear();
        let Some(link) = frame.link else {
            return Kind::OtherLink;
        };
        let ip = match link::locate(link, data) {
            Network::Ip(at) => &data[at..],
            Network::NotIp => return Kind::NotIp,
            Network::OtherLink => return Kind::OtherLink,
        };
        if layers::inspect(ip, &mut self.layers).is_err() {
            return Kind::BrokenIp;
        }
        if self
            .layers
            .iter()
            .any(|l| l.depth > 0 && l.report.status.needs_fix())
        {
            self.computed_after_fix(ip);
        }
        Kind::Ip
    }

    /// Inspects the frame `frame` whose captured bytes are `data`, as
    /// `verify` reports it: each layer's `computed` is the checksum of the
    /// bytes as captured (see the module's documentation), and what the
    /// frame may hold that was not verified, if anything.
    pub fn inspect_as_captured(&mut self, frame: &Frame, data: &[u8]) -> (Kind, Option<Gap>) {
        self.layers.clear();
        if frame.link == Some(1) && fast::inspect(data, &mut self.layers) {
            return (Kind::Ip, None);
        }
        self.inspect_walked(frame, data)
    }

    /// [`inspect_as_captured`](Self::inspect_as_captured) through the
    /// general walk alone, for every frame: what the common frame's
    /// shorter path must give.
    #[doc(hidden)]
    pub fn inspect_walked(&mut self, frame: &Frame, data: &[u8]) -> (Kind, Option<Gap>) {
        self.layers.clear();
        let Some(link) = frame.link else {
            // A pcapng record that is no packet (custom, systemd journal)
            // holds nothing to verify.
            let gap = (frame.len > 0).then_some(Gap::Interface);
            return (Kind::OtherLink, gap);
        };
        let ip = match link::locate(link, data) {
            Network::Ip(at) => &data[at..],
            Network::NotIp => return (Kind::NotIp, not_ip(link, data)),
            Network::OtherLink => return (Kind::OtherLink, Some(Gap::LinkType(link))),
        };
        let end = match layers::inspect_walk(ip, &mut self.layers) {
            Ok(end) => end,
            Err(e) => return (Kind::BrokenIp, Some(broken(e))),
        };
        if self.layers.iter().any(|l| {
            let r = &l.report;
            r.status == Status::Good && r.stored == 0xffff && !sends_zero_as_ones(r.protocol)
        }) {
            self.computed_zeros(ip);
        }
        (Kind::Ip, gap(&end, ip))
    }

    /// Sets each layer's `computed` to what its field holds once the
    /// whole packet is fixed, inner checksums first.
    #[cold]
    fn computed_after_fix(&mut self, ip: &[u8]) {
        self.scratch.clear();
        self.scratch.extend_from_slice(ip);
        self.fixed.clear();
        if layers::fix(&mut self.scratch, ProtocolSet::ALL, &mut self.fixed).is_err() {
            return;
        }
        for layer in &mut self.layers {
            let at = layer.report.offset;
            if let Some(&field) = self.scratch.get(at..).and_then(|f| f.first_chunk::<2>()) {
                layer.report.computed = u16::from_be_bytes(field);
            }
        }
    }

    /// Sets the `computed` of each good checksum stored as 0xffff (but
    /// UDP's and UDP-Lite's) to the checksum its data computes to: 0x0000, unless the
    /// data sums to +0 (an all-zero ICMPv4 message, whose checksum is
    /// 0xffff). Found by storing 0x0000 in a copy: a good verdict there
    /// means the data computes to 0x0000.
    #[cold]
    fn computed_zeros(&mut self, ip: &[u8]) {
        for i in 0..self.layers.len() {
            let report = self.layers[i].report;
            if report.status != Status::Good
                || report.stored != 0xffff
                || sends_zero_as_ones(report.protocol)
            {
                continue;
            }
            self.scratch.clear();
            self.scratch.extend_from_slice(ip);
            self.scratch[report.offset..report.offset + 2].fill(0);
            self.fixed.clear();
            let _ = layers::inspect(&self.scratch, &mut self.fixed);
            let depth = self.layers[i].depth;
            if let Some(zero) = self
                .fixed
                .iter()
                .find(|l| l.depth == depth && l.report.offset == report.offset)
            {
                self.layers[i].report.computed = match zero.report.status {
                    Status::Good => 0,
                    _ => zero.report.computed,
                };
            }
        }
    }
}

/// Whether a computed checksum of 0 is sent as 0xffff: UDP's (RFC 768) and
/// UDP-Lite's (RFC 3828), whose 0 in the field means something else.
fn sends_zero_as_ones(protocol: Protocol) -> bool {
    matches!(protocol, Protocol::Udp | Protocol::UdpLite)
}

/// The gap of an IP header that [`packet::analyze`] does not take.
fn broken(error: packet::Error) -> Gap {
    match error {
        packet::Error::Truncated => Gap::Cut,
        _ => Gap::Malformed,
    }
}

/// What the innermost packet that the walk reached leaves unverified, if
/// anything: a tunnel not followed, or an upper layer with no checksum
/// reported.
fn gap(end: &End, ip: &[u8]) -> Option<Gap> {
    match end.stop {
        Some(Stop::TooDeep) => return Some(Gap::TooDeep),
        Some(Stop::Inner(e)) => return Some(broken(e)),
        None => {}
    }
    let analysis = match end.analysis {
        Ok(analysis) => analysis,
        Err(e) => return Some(broken(e)),
    };
    match analysis.l4 {
        // A later fragment holds no upper-layer header: its data is
        // covered by the first fragment's checksum. No Next Header: nothing
        // follows.
        Ok(_) | Err(packet::Error::LaterFragment | packet::Error::Protocol(59)) => None,
        Err(packet::Error::Protocol(protocol)) => Some(Gap::Protocol(protocol)),
        Err(packet::Error::Truncated) => Some(Gap::Cut),
        Err(packet::Error::Length) => {
            let packet = &ip[end.start..];
            let zero = |at: usize| packet.get(at..at + 2) == Some(&[0, 0]);
            Some(match packet.first().map(|b| b >> 4) {
                Some(4) if zero(2) => Gap::Ipv4Length0,
                Some(6) if zero(4) => Gap::Ipv6Length0,
                _ => Gap::Lengths,
            })
        }
        Err(_) => Some(Gap::Other),
    }
}

/// EtherTypes of protocols that carry no IP: ARP, RARP, MAC control
/// (pause), slow protocols (LACP), EAPOL, PPPoE discovery, LLDP, PTP,
/// Ethernet loopback (CTP).
const NO_IP: [u16; 9] = [
    0x0806, 0x8035, 0x8808, 0x8809, 0x888e, 0x8863, 0x88cc, 0x88f7, 0x9000,
];

/// ARPHRD_NETLINK: an SLL header whose protocol field is a netlink family.
const ARPHRD_NETLINK: u16 = 824;

/// Why a frame of link type `link` in which [`link::locate`] found no IP
/// may hold a checksum not verified; `None` if its link layer names a
/// protocol that carries no IP (see [`NO_IP`]; values below 0x0600 are an
/// 802.3 length, LLC, or an SLL protocol that is no EtherType: CAN, ...;
/// ARCNET's ARP and RARP), netlink, or a PKTAP record that is no packet.
/// A PKTAP frame's is its inner frame's.
fn not_ip(link: u16, data: &[u8]) -> Option<Gap> {
    let be16 = |at: usize| {
        data.get(at..)
            .and_then(|rest| rest.first_chunk::<2>())
            .map(|b| u16::from_be_bytes(*b))
    };
    // Where an IP packet named by the link layer would start: cut short
    // if there is nothing there, else malformed.
    let ip_at = |at: usize| {
        Some(if at >= data.len() {
            Gap::Cut
        } else {
            Gap::Malformed
        })
    };
    let (field, mut offset, tags) = match link {
        1 => (12, 14, true),
        113 if be16(2) == Some(ARPHRD_NETLINK) => return None,
        113 => (14, 16, true),
        276 if be16(8) == Some(ARPHRD_NETLINK) => return None,
        276 => (0, 20, true),
        // IPoIB: the EtherType after the 40-byte pseudo-header; no tags.
        242 => (40, 44, false),
        7 | 129 => {
            return match link::arcnet(data, link == 129) {
                None => Some(Gap::LinkCut),
                Some((link::ARCNET_IP_1051 | link::ARCNET_IP_1201, at)) => ip_at(at),
                // ARP and RARP (RFC 1051's, RFC 1201's).
                Some((241 | 213 | 214, _)) => None,
                Some(_) => Some(Gap::NoIp(link)),
            };
        }
        // IPNET: the families of IPv4 and IPv6, after the 24-byte header.
        226 => {
            return match data.get(1) {
                _ if data.len() < 8 => Some(Gap::LinkCut),
                Some(2 | 26) => ip_at(24),
                _ => Some(Gap::NoIp(link)),
            };
        }
        258 | 149 => {
            let Some(inner) = link::pktap(data) else {
                let record = data.get(4..8).is_some_and(|t| t != [1, 0, 0, 0]);
                return (!record).then_some(Gap::NoIp(link));
            };
            // PKTAP in PKTAP is not decoded.
            return inner_not_ip(link, data, inner, &[258, 149]);
        }
        192 => {
            let Some(inner) = link::ppi(data) else {
                return Some(Gap::LinkCut);
            };
            return inner_not_ip(link, data, inner, &[192]);
        }
        _ => return Some(Gap::NoIp(link)),
    };
    let Some(mut protocol) = be16(field) else {
        return Some(Gap::LinkCut);
    };
    // VLAN tags: a tag control, then the next EtherType; Arista's header;
    // FabricPath's FTAG and TTL, then an Ethernet header.
    while tags && matches!(protocol, 0x8100 | 0x88a8 | 0x9100 | 0xd28b | 0x8903) {
        let next = match protocol {
            0xd28b => link::arista(data, offset),
            link::ETHERTYPE_FABRICPATH => be16(offset + 14).map(|next| (next, offset + 16)),
            _ => be16(offset + 2).map(|next| (next, offset + 4)),
        };
        let Some(next) = next else {
            // An Arista timestamp of a version not known, or a header cut.
            let unknown = protocol == 0xd28b
                && be16(offset) == Some(1)
                && be16(offset + 2).is_some_and(|v| !matches!(v, 0x10 | 0x110 | 0x20 | 0x120));
            return Some(if unknown {
                Gap::EtherType(protocol)
            } else {
                Gap::LinkCut
            });
        };
        (protocol, offset) = next;
    }
    if !tags && !matches!(protocol, 0x0800 | 0x86dd) && !NO_IP.contains(&protocol) {
        return Some(Gap::EtherType(protocol));
    }
    match protocol {
        0x0800 | 0x86dd if offset >= data.len() => Some(Gap::Cut),
        0x0800 | 0x86dd => Some(Gap::Malformed),
        p if p < 0x0600 || NO_IP.contains(&p) => None,
        p => Some(Gap::EtherType(p)),
    }
}

/// [`not_ip`] of the frame inside a header (PKTAP, PPI) of link type
/// `link` that names the inner frame's link type: `inner`, that link type
/// and where the inner frame starts in `data`. The header's own link types,
/// `own`, are not decoded inside it.
fn inner_not_ip(link: u16, data: &[u8], inner: (u32, usize), own: &[u16]) -> Option<Gap> {
    let (inner, at) = inner;
    let inner_data = data.get(at..).unwrap_or_default();
    match u16::try_from(inner) {
        Ok(inner) if !own.contains(&inner) => match link::locate(inner, inner_data) {
            Network::OtherLink => Some(Gap::LinkType(inner)),
            _ => not_ip(inner, inner_data),
        },
        _ => Some(Gap::NoIp(link)),
    }
}

/// Whether anything was bad, and whether a file was not read to its end:
/// the two bits of the exit status.
#[derive(Clone, Copy, Default)]
struct Outcome {
    bad: bool,
    unreadable: bool,
}

impl Outcome {
    fn code(self) -> ExitCode {
        ExitCode::from(u8::from(self.bad) | u8::from(self.unreadable) << 1)
    }
}

/// What reading a file gave: its tally, its format and the error that
/// stopped the read early, if one did; or the error that kept it from
/// being opened.
type Verified = Result<(Tally, Format, Option<ReadError>), ReadError>;

/// The output of a file's JSON lines is sent to the printing thread in
/// chunks of this many bytes.
const CHUNK: usize = 1 << 16;

/// How many chunks a file's channel holds: the output of a file waiting
/// for its turn is bounded to this many chunks.
const CHUNKS: usize = 8;

/// What a thread verifying a file sends to the thread printing.
enum Message {
    /// JSON lines, in order.
    Output(Vec<u8>),
    /// The lines sent so far should be written out now: the file is a
    /// stream whose next bytes may be slow to come.
    Flush,
    /// The file has been read: nothing follows.
    Done(Box<Verified>),
}

/// What `run` has printed and found so far, over the files taken in
/// order.
struct Report<'a> {
    args: &'a Args,
    outcome: Outcome,
    total: Tally,
    unreadable: u64,
}

impl Report<'_> {
    /// Prints what follows the JSON lines of the file `path` (its summary
    /// text or object), flushes `out`, then its messages on standard
    /// error, and adds the file to the outcome and the total.
    fn file(&mut self, out: &mut impl Write, path: &Path, verified: Verified) -> io::Result<()> {
        let args = self.args;
        let json = args.json || args.json_summary;
        let shown = output::display_path(path);
        let (tally, format, error) = match verified {
            Ok((tally, format, error)) => (tally, Some(format), error),
            Err(error) => (Tally::default(), None, Some(error)),
        };
        let format = format.map(|f| f.to_string());
        let message = error.as_ref().map(ToString::to_string);
        if args.json_summary {
            let file = output::json_string(&path.to_string_lossy());
            tally.json_summary(out, &file, format.as_deref(), message.as_deref())?;
        } else if !json && let Some(format) = &format {
            let unread = error.as_ref().map(|e| e.offset);
            out.write_all(tally.summary(&shown, format, unread).as_bytes())?;
        }
        out.flush()?;
        if let Some(message) = &message {
            eprintln!("fastpath: error: {shown}: {}", output::escape(message));
            self.outcome.unreadable = true;
            self.unreadable += 1;
        }
        self.outcome.bad |= tally.bad() > 0;
        if args.strict
            && let Some(text) = tally.not_verified()
        {
            eprintln!("fastpath: strict: {shown}: not verified: {text}");
            self.outcome.bad = true;
        }
        self.total.merge(&tally);
        Ok(())
    }

    /// Prints the total, with several files, and flushes `out`.
    fn total(&self, out: &mut impl Write) -> io::Result<()> {
        let files = self.args.files.len() as u64;
        if files > 1 {
            if self.args.json_summary {
                self.total.json_total(out, files, self.unreadable)?;
            } else if !(self.args.json || self.args.json_summary) {
                out.write_all(self.total.total_summary(files, self.unreadable).as_bytes())?;
            }
            out.flush()?;
        }
        Ok(())
    }
}

/// Runs `fastpath pcap verify`: exit status 0 if no checksum is bad; 1 if
/// one is (or, with `--strict`, if one could not be verified); 2 if a file
/// could not be read to its end; 3 for both.
///
/// Several files are read at once, one per thread (see `parallel`), and
/// printed in argument order, exactly as one thread reading them in turn
/// prints them; with no progress bar then.
pub fn run(args: &Args) -> ExitCode {
    if crate::stdout_closed() {
        eprintln!("fastpath: error: standard output is closed: nothing can be reported");
        return ExitCode::from(2);
    }
    let stdout = io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut report = Report {
        args,
        outcome: Outcome::default(),
        total: Tally::default(),
        unreadable: 0,
    };
    let threads = parallel::threads(args.files.len());
    let printed = if threads > 1 {
        run_parallel(args, threads, &mut report, &mut out)
    } else {
        run_serial(args, &mut report, &mut out)
    };
    match printed.and_then(|()| report.total(&mut out)) {
        Ok(()) => report.outcome.code(),
        Err(e) => write_failed(&e, report.outcome),
    }
}

/// Verifies the files one after another on this thread, with a progress
/// bar each.
fn run_serial(args: &Args, report: &mut Report<'_>, out: &mut impl Write) -> io::Result<()> {
    let json = args.json || args.json_summary;
    for path in &args.files {
        let shown = output::display_path(path);
        let file = output::json_string(&path.to_string_lossy());
        let verified = match verify_file(path, &shown, &file, json, true, None, out) {
            Ok(verified) => Ok(verified),
            Err(Failure::Read(error)) => Err(error),
            Err(Failure::Write(e)) => return Err(e),
        };
        report.file(out, path, verified)?;
    }
    Ok(())
}

/// Verifies the files on `threads` threads, one file per thread, and
/// prints them in order on this one; standard input, wherever it is
/// named, is read by one thread at a time, in argument order.
fn run_parallel(
    args: &Args,
    threads: usize,
    report: &mut Report<'_>,
    out: &mut impl Write,
) -> io::Result<()> {
    let json = args.json || args.json_summary;
    let stdin = args
        .files
        .iter()
        .enumerate()
        .filter(|(_, path)| path.as_os_str() == "-")
        .map(|(i, _)| i)
        .collect();
    let turns = parallel::Turns::new(stdin);
    let work = |i: usize, job: &parallel::Job<'_, Message>| {
        let path = &args.files[i];
        let _turn = (path.as_os_str() == "-").then(|| turns.wait(i, job.stop_flag()));
        if job.stopped() {
            return;
        }
        let shown = output::display_path(path);
        let file = output::json_string(&path.to_string_lossy());
        let mut chunks = Chunks {
            buffer: Vec::with_capacity(if json { CHUNK } else { 0 }),
            job,
        };
        let stop = Some(job.stop_flag());
        let verified = match verify_file(path, &shown, &file, json, false, stop, &mut chunks) {
            Ok(verified) => Ok(verified),
            Err(Failure::Read(error)) => Err(error),
            // The run is being stopped: nothing more is read.
            Err(Failure::Write(_)) => return,
        };
        if chunks.send() {
            job.send(Message::Done(Box::new(verified)));
        }
    };
    let take = |i: usize, receiver: &Receiver<Message>| {
        for message in receiver {
            match message {
                Message::Output(bytes) => {
                    if let Err(e) = out.write_all(&bytes) {
                        return ControlFlow::Break(e);
                    }
                }
                Message::Flush => {
                    if let Err(e) = out.flush() {
                        return ControlFlow::Break(e);
                    }
                }
                Message::Done(verified) => {
                    return match report.file(out, &args.files[i], *verified) {
                        Ok(()) => ControlFlow::Continue(()),
                        Err(e) => ControlFlow::Break(e),
                    };
                }
            }
        }
        // The thread of this file ended before it was read: it panicked,
        // and the panic is raised once every thread has ended.
        ControlFlow::Break(io::Error::other("a thread verifying a file failed"))
    };
    match parallel::in_order(args.files.len(), threads, CHUNKS, work, take) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// The output of a file verified on a thread of its own: its bytes, sent
/// to the printing thread a chunk at a time.
struct Chunks<'a, 'b> {
    buffer: Vec<u8>,
    job: &'a parallel::Job<'b, Message>,
}

impl Chunks<'_, '_> {
    /// Sends what is buffered, if anything: `false` if the run is being
    /// stopped.
    fn send(&mut self) -> bool {
        if self.buffer.is_empty() {
            return !self.job.stopped();
        }
        let chunk = std::mem::replace(&mut self.buffer, Vec::with_capacity(CHUNK));
        self.job.send(Message::Output(chunk))
    }
}

impl Write for Chunks<'_, '_> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        // Sent before it would outgrow its capacity.
        if !self.buffer.is_empty() && self.buffer.len() + bytes.len() > CHUNK && !self.send() {
            return Err(io::Error::other("stopped"));
        }
        self.buffer.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.send() && self.job.send(Message::Flush) {
            Ok(())
        } else {
            Err(io::Error::other("stopped"))
        }
    }
}

/// The exit status when the output could not be written: with the error
/// bit, the reader having gone away (`| head`) included, since what it
/// did not read was not delivered; quietly then.
fn write_failed(e: &io::Error, mut outcome: Outcome) -> ExitCode {
    if e.kind() != io::ErrorKind::BrokenPipe {
        eprintln!("fastpath: error: writing the output: {e}");
    }
    outcome.unreadable = true;
    outcome.code()
}

/// Why a file's verification ended early.
pub(super) enum Failure {
    /// The file could not be opened.
    Read(ReadError),
    /// The output could not be written, or the run is being stopped.
    Write(io::Error),
}

/// Verifies one file, printing its JSON lines if `json` (`file` is its
/// name as a JSON string, `shown` as the progress bar shows it, if
/// `progress`): its tally, its format, and the error that stopped the read
/// early if one did (the frames before it are counted and printed). Ends
/// early, as on a write error, once `stop` is set.
pub(super) fn verify_file(
    path: &Path,
    shown: &str,
    file: &str,
    json: bool,
    progress: bool,
    stop: Option<&AtomicBool>,
    out: &mut impl Write,
) -> Result<(Tally, Format, Option<ReadError>), Failure> {
    let mut capture = Capture::open_arg(path, Access::Map).map_err(Failure::Read)?;
    let format = capture.format();
    let mut progress = progress.then(|| Progress::new(shown, capture.size()));
    let mut inspector = Inspector::default();
    let mut tally = Tally::default();
    loop {
        if stop.is_some_and(|stop| stop.load(Ordering::Relaxed)) {
            return Err(Failure::Write(io::Error::other("stopped")));
        }
        // A stream may be live: the lines of the frames before come out
        // before the read waits for the next.
        if capture.may_wait() {
            out.flush().map_err(Failure::Write)?;
        }
        let block = match capture.next_block() {
            Ok(Some(block)) => block,
            Ok(None) => return Ok((tally, format, None)),
            Err(e) => return Ok((tally, format, Some(e))),
        };
        let Some(frame) = &block.frame else { continue };
        let data = frame.data(block.raw);
        tally.frames += 1;
        tally.cut += u64::from((frame.len as u64) < u64::from(frame.original_len));
        let (kind, gap) = inspector.inspect_as_captured(frame, data);
        match kind {
            Kind::Ip => tally.ip += 1,
            Kind::NotIp => tally.not_ip += 1,
            Kind::OtherLink => tally.other_link += 1,
            Kind::BrokenIp => tally.broken_ip += 1,
        }
        tally.add(tally.frames, &inspector.layers);
        if let Some(gap) = gap {
            tally.gap(gap);
        }
        if json {
            for layer in &inspector.layers {
                output::json_line(out, file, tally.frames, layer).map_err(Failure::Write)?;
            }
        }
        if let Some(progress) = &mut progress {
            progress.update(capture.position());
        }
    }
}
