//! What `verify` prints: the JSON lines of the contract, the summary
//! objects and the human summary of a [`Tally`], and the escaping of text
//! that comes from outside (file names, error messages).
//!
//! The JSON lines are a contract that outside checks parse: one object per
//! checksum, keys in this order, spaced like this:
//!
//! ```text
//! {"file": "a.pcap", "frame": 3, "depth": 0, "proto": "tcp", "status": "bad", "stored": 4660, "computed": 43981}
//! ```
//!
//! With `--json-summary`, each file's lines are followed by one summary
//! object, which has no `frame` key, and with several files the last line
//! is a total object:
//!
//! ```text
//! {"file": "a.pcap", "summary": {"format": "pcap (µs, little-endian)", "frames": 3, "not ip": 0, "checksums": 5, "good": 3, "bad": 1, "illegal": 0, "absent": 0, "unverified": {"snap length": 1}, "not verified": {"link type 147": 1}, "stored 0xffff for 0x0000": 0, "bad frames": 1, "error": null}}
//! {"total": {"files": 2, "unreadable": 1, "frames": 3, ...}}
//! ```
//!
//! `unverified` counts the checksum lines of status `unverified` by reason
//! ([`UNVERIFIED`]); `not verified` counts, by reason ([`Gap`]), what may
//! hold a checksum that has no line: frames not decoded, packets whose
//! upper layer was not reached or has no checksum verified here. Both are
//! `{}` when there is nothing to count.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::Path;

use fastpath::packet::Protocol;

use super::inspect::{Gap, Tally};
use super::layers::{Layer, MAX_DEPTH};

/// The JSON string of `text` (a path as given on the command line, an
/// error message): serde_json's, which escapes the C0 controls, with DEL,
/// the C1 controls and the Unicode controls of [`escape`] escaped too
/// (`\u009b`), so that no terminal acts on them. The string decodes to
/// `text` all the same.
pub fn json_string(text: &str) -> String {
    let json = serde_json::to_string(text).expect("a string serializes");
    if !json.chars().any(needs_escape) {
        return json;
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if needs_escape(c) {
            let _ = write!(out, "\\u{:04x}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    out
}

/// Whether a terminal may act on `c` rather than show it: a control
/// character (C0, DEL, C1), a Unicode bidirectional control (which
/// reorders what follows it), a line or paragraph separator.
fn needs_escape(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
                | '\u{2028}' | '\u{2029}'
        )
}

/// `text` as printed in the summary and in messages: the characters a
/// terminal may act on ([`needs_escape`]) escaped as `\n`, `\r`, `\t` or
/// `\x1b` (ASCII) and `\u{202e}` (others), and the backslash doubled, so
/// that the escaped text reads back unambiguously (as `ls -b` does).
pub fn escape(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| c == '\\' || needs_escape(c)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        push_escaped(&mut out, c);
    }
    Cow::Owned(out)
}

fn push_escaped(out: &mut String, c: char) {
    match c {
        '\\' => out.push_str("\\\\"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if needs_escape(c) && c.is_ascii() => {
            let _ = write!(out, "\\x{:02x}", u32::from(c));
        }
        c if needs_escape(c) => {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        }
        c => out.push(c),
    }
}

/// A path as printed in the summary and in messages: [`escape`]d, and on
/// Unix the bytes that are no UTF-8 as `\xff` (not replaced by U+FFFD, so
/// that two such names stay apart).
pub fn display_path(path: &Path) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let mut out = String::new();
        for chunk in path.as_os_str().as_bytes().utf8_chunks() {
            for c in chunk.valid().chars() {
                push_escaped(&mut out, c);
            }
            for byte in chunk.invalid() {
                let _ = write!(out, "\\x{byte:02x}");
            }
        }
        out
    }
    #[cfg(not(unix))]
    {
        escape(&path.to_string_lossy()).into_owned()
    }
}

/// One JSON line: a checksum of frame `frame` of the file whose JSON
/// string is `file`.
pub fn json_line(out: &mut impl Write, file: &str, frame: u64, layer: &Layer) -> io::Result<()> {
    let report = &layer.report;
    writeln!(
        out,
        "{{\"file\": {file}, \"frame\": {frame}, \"depth\": {}, \"proto\": \"{}\", \"status\": \"{}\", \"stored\": {}, \"computed\": {}}}",
        layer.depth,
        report.protocol.name(),
        report.status.name(),
        report.stored,
        report.computed
    )
}

/// The names of the statuses, in the order of [`Tally::counts`]' columns.
const STATUSES: [&str; 5] = ["good", "bad", "unverified", "absent", "illegal"];

/// Why a checksum is `unverified`: its JSON key in the summary object, and
/// the text of one and of several in the summary; in the order of
/// [`Tally::unverified`].
pub const UNVERIFIED: [(&str, &str, &str); 5] = [
    (
        "snap length",
        "checksum cut by the snap length",
        "checksums cut by the snap length",
    ),
    (
        "first fragment",
        "checksum of a first fragment",
        "checksums of first fragments",
    ),
    (
        "lengths",
        "checksum whose lengths don't fit",
        "checksums whose lengths don't fit",
    ),
    (
        "routing header",
        "checksum behind a routing header of unknown type",
        "checksums behind routing headers of unknown types",
    ),
    (
        "other",
        "checksum unverifiable otherwise",
        "checksums unverifiable otherwise",
    ),
];

/// The name of an IP protocol whose checksum is not verified here, for
/// the summary.
fn protocol_name(protocol: u8) -> Option<&'static str> {
    Some(match protocol {
        1 => "ICMP over IPv6",
        2 => "IGMP",
        4 => "IPv4 in IP",
        6 => "TCP",
        17 => "UDP",
        33 => "DCCP",
        41 => "IPv6 in IP",
        47 => "GRE not decoded",
        50 => "ESP",
        58 => "ICMPv6 over IPv4",
        89 => "OSPF",
        103 => "PIM",
        112 => "VRRP",
        115 => "L2TP",
        132 => "SCTP",
        136 => "UDP-Lite",
        137 => "MPLS in IP",
        _ => return None,
    })
}

impl Gap {
    /// Its key in the summary object's `not verified`.
    pub fn key(self) -> String {
        match self {
            Gap::LinkType(link) => format!("link type {link}"),
            Gap::Interface => "interface not kept".into(),
            Gap::LinkCut => "link header cut".into(),
            Gap::EtherType(ethertype) => format!("ethertype 0x{ethertype:04x}"),
            Gap::NoIp(link) => format!("no ip, link type {link}"),
            Gap::Cut => "headers cut".into(),
            Gap::Malformed => "malformed ip header".into(),
            Gap::Ipv4Length0 => "ipv4 total length 0".into(),
            Gap::Ipv6Length0 => "ipv6 payload length 0".into(),
            Gap::Lengths => "lengths".into(),
            Gap::TooDeep => "tunnel depth".into(),
            Gap::Protocol(protocol) => format!("protocol {protocol}"),
            Gap::Other => "other".into(),
        }
    }

    /// The summary's text for `n` of them.
    pub fn text(self, n: u64) -> String {
        let s = if n == 1 { "" } else { "s" };
        match self {
            Gap::LinkType(link) => format!("{n} frame{s} of link type {link} not decoded"),
            Gap::Interface => {
                format!("{n} frame{s} of pcapng interfaces past the first 65536, not decoded")
            }
            Gap::LinkCut => format!("{n} frame{s} with the link header cut short"),
            Gap::EtherType(ethertype) => {
                format!("{n} frame{s} of EtherType 0x{ethertype:04x} with no IP decoded")
            }
            Gap::NoIp(link) => format!("{n} frame{s} of link type {link} with no IP decoded"),
            Gap::Cut => format!("{n} packet{s} cut short before a checksum field"),
            Gap::Malformed => format!("{n} packet{s} with a malformed IP header"),
            Gap::Ipv4Length0 => {
                format!("{n} IPv4 packet{s} of total length 0 (TSO or BIG TCP)")
            }
            Gap::Ipv6Length0 => {
                format!("{n} IPv6 packet{s} of payload length 0 (jumbogram or BIG TCP)")
            }
            Gap::Lengths => format!("{n} packet{s} whose lengths don't fit"),
            Gap::TooDeep => format!("{n} tunnel{s} nested deeper than {MAX_DEPTH}"),
            Gap::Protocol(protocol) => match protocol_name(protocol) {
                Some(name) => format!("{n} packet{s} of IP protocol {protocol} ({name})"),
                None => format!("{n} packet{s} of IP protocol {protocol}"),
            },
            Gap::Other => format!("{n} packet{s} not verified otherwise"),
        }
    }
}

impl Tally {
    /// The number of checksums of each status, indexed as the summary's
    /// columns: good, bad, unverified, absent, illegal.
    fn by_status(&self) -> [u64; 5] {
        let mut sums = [0; 5];
        for row in &self.counts {
            for (sum, n) in sums.iter_mut().zip(row) {
                *sum += n;
            }
        }
        sums
    }

    /// What was not verified, as the summary says it: "3 checksums cut by
    /// the snap length, 12 frames of link type 147 not decoded"; `None` if
    /// everything was.
    pub fn not_verified(&self) -> Option<String> {
        let mut parts = Vec::new();
        for (&n, (_, one, several)) in self.unverified.iter().zip(UNVERIFIED) {
            if n > 0 {
                parts.push(format!("{n} {}", if n == 1 { one } else { several }));
            }
        }
        parts.extend(self.gaps.iter().map(|(gap, &n)| gap.text(n)));
        (!parts.is_empty()).then(|| parts.join(", "))
    }

    /// The human summary of file `path` (escaped already), in `format`;
    /// `unread` is the byte offset from which the file could not be read,
    /// if it was not read to its end.
    pub fn summary(&self, path: &str, format: &str, unread: Option<u64>) -> String {
        let mut s = String::new();
        let skipped = [
            (self.not_ip, "not IP"),
            (self.other_link, "of other link types"),
            (self.broken_ip, "with an IP header cut short or malformed"),
        ];
        let _ = write!(
            s,
            "{path}: {format}, {} frames: {} IP",
            self.frames, self.ip
        );
        for (count, what) in skipped {
            if count > 0 {
                let _ = write!(s, ", {count} {what}");
            }
        }
        if self.cut > 0 {
            let _ = write!(s, "; {} cut short by the snap length", self.cut);
        }
        s.push('\n');
        let _ = write!(s, "  {:<8}", "checksum");
        for status in STATUSES {
            let _ = write!(s, " {status:>11}");
        }
        s.push('\n');
        for protocol in Protocol::ALL {
            let row = &self.counts[protocol as usize];
            if row.iter().all(|&n| n == 0) {
                continue;
            }
            let _ = write!(s, "  {:<8}", protocol.name());
            for n in row {
                let _ = write!(s, " {n:>11}");
            }
            s.push('\n');
        }
        if self.tunneled > 0 {
            let _ = writeln!(s, "  ({} of them inside tunnels)", self.tunneled);
        }
        if self.negative_zero > 0 {
            let _ = writeln!(
                s,
                "  ({} good ones stored as 0xffff where 0x0000 is computed: receivers take \
                 either zero, tshark calls TCP's bad)",
                self.negative_zero
            );
        }
        if let Some(text) = self.not_verified() {
            let _ = writeln!(s, "  not verified: {text}");
        }
        if let Some(offset) = unread {
            let _ = writeln!(
                s,
                "  not read: from byte offset {offset} to the end of the file (see the error)"
            );
        }
        let bad = self.bad();
        if bad == 0 {
            if unread.is_some() {
                let _ = writeln!(
                    s,
                    "  no bad checksum in the {} frames read; the rest was not checked",
                    self.frames
                );
            } else if self.all_verified() {
                let _ = writeln!(s, "  no bad checksum");
            } else {
                let _ = writeln!(s, "  no bad checksum among those verified");
            }
            return s;
        }
        let _ = writeln!(
            s,
            "  {bad} bad checksums in {} frames; the first:",
            self.bad_frames
        );
        for (frame, layer) in &self.first_bad {
            let r = &layer.report;
            let _ = writeln!(
                s,
                "    frame {frame}: {} {} at depth {}, stored 0x{:04x}, computed 0x{:04x}",
                r.protocol, r.status, layer.depth, r.stored, r.computed
            );
        }
        s
    }

    /// The total line of the summary, after the files': `files` files of
    /// which `unreadable` could not be read to their end.
    pub fn total_summary(&self, files: u64, unreadable: u64) -> String {
        let [good, bad, unverified, absent, illegal] = self.by_status();
        let mut s = format!("total: {files} files");
        if unreadable > 0 {
            let _ = write!(s, " ({unreadable} not read to the end)");
        }
        let _ = write!(
            s,
            ", {} frames; checksums: {good} good, {bad} bad, {illegal} illegal, \
             {unverified} unverified, {absent} absent",
            self.frames
        );
        if let Some(text) = self.not_verified() {
            let _ = write!(s, "; not verified: {text}");
        }
        s.push('\n');
        s
    }

    /// The members of the summary and total objects, from `frames` to
    /// `bad frames`.
    fn json_members(&self, s: &mut String) {
        let [good, bad, unverified, absent, illegal] = self.by_status();
        let _ = write!(
            s,
            "\"frames\": {}, \"not ip\": {}, \"checksums\": {}, \"good\": {good}, \"bad\": {bad}, \
             \"illegal\": {illegal}, \"absent\": {absent}, \"unverified\": {{",
            self.frames,
            self.not_ip,
            good + bad + unverified + absent + illegal,
        );
        let mut first = true;
        for (&n, (key, _, _)) in self.unverified.iter().zip(UNVERIFIED) {
            if n > 0 {
                let _ = write!(s, "{}\"{key}\": {n}", if first { "" } else { ", " });
                first = false;
            }
        }
        s.push_str("}, \"not verified\": {");
        for (i, (gap, n)) in self.gaps.iter().enumerate() {
            let separator = if i == 0 { "" } else { ", " };
            let _ = write!(s, "{separator}{}: {n}", json_string(&gap.key()));
        }
        let _ = write!(
            s,
            "}}, \"stored 0xffff for 0x0000\": {}, \"bad frames\": {}",
            self.negative_zero, self.bad_frames
        );
    }

    /// The summary object of the file whose JSON string is `file`: its
    /// format (`None` if it could not be opened) and the error that ended
    /// its reading, if one did.
    pub fn json_summary(
        &self,
        out: &mut impl Write,
        file: &str,
        format: Option<&str>,
        error: Option<&str>,
    ) -> io::Result<()> {
        let mut s = format!("{{\"file\": {file}, \"summary\": {{\"format\": ");
        s.push_str(&format.map_or_else(|| "null".into(), json_string));
        s.push_str(", ");
        self.json_members(&mut s);
        s.push_str(", \"error\": ");
        s.push_str(&error.map_or_else(|| "null".into(), json_string));
        s.push_str("}}\n");
        out.write_all(s.as_bytes())
    }

    /// The total object: `files` files, `unreadable` of them not read to
    /// their end.
    pub fn json_total(&self, out: &mut impl Write, files: u64, unreadable: u64) -> io::Result<()> {
        let mut s = format!("{{\"total\": {{\"files\": {files}, \"unreadable\": {unreadable}, ");
        self.json_members(&mut s);
        s.push_str("}}\n");
        out.write_all(s.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fastpath::packet::{Error, Report, Status};

    fn layer(depth: u8, protocol: Protocol, status: Status) -> Layer {
        let report = Report {
            protocol,
            status,
            stored: 0x1234,
            computed: 0xabcd,
            offset: 10,
        };
        Layer { depth, report }
    }

    #[test]
    fn json_line_is_the_contract() {
        let mut out = Vec::new();
        let file = json_string("dir/a \"b\".pcap");
        json_line(&mut out, &file, 7, &layer(1, Protocol::Icmpv6, Status::Bad)).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "{\"file\": \"dir/a \\\"b\\\".pcap\", \"frame\": 7, \"depth\": 1, \"proto\": \"icmpv6\", \
             \"status\": \"bad\", \"stored\": 4660, \"computed\": 43981}\n"
        );
    }

    #[test]
    fn tally_counts_bad_and_illegal() {
        let mut tally = Tally::default();
        tally.add(
            1,
            &[
                layer(0, Protocol::Ipv4, Status::Good),
                layer(0, Protocol::Udp, Status::Absent),
            ],
        );
        tally.add(2, &[layer(0, Protocol::Udp, Status::Illegal)]);
        tally.add(
            3,
            &[
                layer(0, Protocol::Ipv4, Status::Bad),
                layer(1, Protocol::Tcp, Status::Unverified(Error::Truncated)),
            ],
        );
        assert_eq!((tally.bad(), tally.bad_frames, tally.tunneled), (2, 2, 1));
        assert_eq!(
            tally.first_bad.iter().map(|b| b.0).collect::<Vec<_>>(),
            [2, 3]
        );
        let summary = tally.summary("x.pcap", "pcap", None);
        assert!(summary.contains("2 bad checksums in 2 frames"), "{summary}");
        assert!(
            summary.contains("frame 2: udp illegal at depth 0"),
            "{summary}"
        );
        assert!(
            summary.contains("not verified: 1 checksum cut by the snap length"),
            "{summary}"
        );
    }

    #[test]
    fn unverified_and_gaps_are_counted_by_reason() {
        let mut tally = Tally::default();
        tally.add(
            1,
            &[
                layer(0, Protocol::Udp, Status::Unverified(Error::FirstFragment)),
                layer(0, Protocol::Tcp, Status::Unverified(Error::Truncated)),
                layer(0, Protocol::Tcp, Status::Unverified(Error::Truncated)),
            ],
        );
        for _ in 0..12 {
            tally.gap(Gap::LinkType(147));
        }
        tally.gap(Gap::Protocol(132));
        assert!(!tally.all_verified());
        assert_eq!(
            tally.not_verified().unwrap(),
            "2 checksums cut by the snap length, 1 checksum of a first fragment, \
             12 frames of link type 147 not decoded, 1 packet of IP protocol 132 (SCTP)"
        );
        let summary = tally.summary("x.pcap", "pcap", None);
        assert!(
            summary.contains("no bad checksum among those verified"),
            "{summary}"
        );
        let mut out = Vec::new();
        tally
            .json_summary(&mut out, "\"x.pcap\"", Some("pcap"), None)
            .unwrap();
        let text = String::from_utf8(out).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["summary"]["unverified"]["snap length"], 2);
        assert_eq!(v["summary"]["unverified"]["first fragment"], 1);
        assert_eq!(v["summary"]["not verified"]["link type 147"], 12);
        assert_eq!(v["summary"]["not verified"]["protocol 132"], 1);
        assert_eq!(v["summary"]["checksums"], 3);
        assert!(v["summary"]["error"].is_null());
        assert!(v.get("frame").is_none());
    }

    #[test]
    fn escaping() {
        assert_eq!(escape("a.pcap"), "a.pcap");
        assert_eq!(
            escape("a\nb\x1b[31m\\c\u{202e}d\u{9b}"),
            "a\\nb\\x1b[31m\\\\c\\u{202e}d\\u{9b}"
        );
        assert_eq!(
            json_string("a\n\x1b\u{7f}\u{9b}\u{202e}é"),
            "\"a\\n\\u001b\\u007f\\u009b\\u202eé\""
        );
        let decoded: String = serde_json::from_str(&json_string("x\u{9b}\u{202e}y")).unwrap();
        assert_eq!(decoded, "x\u{9b}\u{202e}y");
    }

    #[cfg(unix)]
    #[test]
    fn paths_that_are_no_utf8() {
        use std::ffi::OsStr;
        use std::os::unix::ffi::OsStrExt;
        let path = Path::new(OsStr::from_bytes(b"a\xff\nb.pcap"));
        assert_eq!(display_path(path), "a\\xff\\nb.pcap");
    }
}
