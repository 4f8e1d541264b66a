//! What `verify` prints: the JSON lines of the contract, the human summary,
//! and the tally behind it.
//!
//! The JSON lines are a contract that outside checks parse: one object per
//! checksum, keys in this order, spaced like this:
//!
//! ```text
//! {"file": "a.pcap", "frame": 3, "depth": 0, "proto": "tcp", "status": "bad", "stored": 4660, "computed": 43981}
//! ```

use std::fmt::Write as _;
use std::io::{self, Write};

use fastpath::packet::{Protocol, Status};

use super::layers::Layer;

/// How many bad checksums the summary lists.
const FIRST_BAD: usize = 10;

/// The JSON string of a path as given on the command line.
pub fn json_string(text: &str) -> String {
    serde_json::to_string(text).expect("a string serializes")
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

/// Whether a verdict makes `verify` exit with 1: a wrong checksum, or UDP's
/// zero over IPv6, which receivers drop. These are what `fix` writes.
pub fn is_bad(status: Status) -> bool {
    status.needs_fix()
}

const STATUSES: [&str; 5] = ["good", "bad", "unverified", "absent", "illegal"];

fn status_index(status: Status) -> usize {
    match status {
        Status::Good => 0,
        Status::Bad => 1,
        Status::Unverified(_) => 2,
        Status::Absent => 3,
        Status::Illegal => 4,
    }
}

/// What a file's frames held.
#[derive(Debug, Default)]
pub struct Tally {
    /// Every frame (packet record or block).
    pub frames: u64,
    /// Frames with an IP packet.
    pub ip: u64,
    /// Frames of a decoded link type that carry no IP (ARP, LLC, ...).
    pub not_ip: u64,
    /// Frames of link types not decoded here.
    pub other_link: u64,
    /// Frames whose IP header is unusable: too short, wrong version.
    pub broken_ip: u64,
    /// Frames captured shorter than they were on the wire.
    pub cut: u64,
    /// Checksums by protocol and status.
    pub counts: [[u64; 5]; 5],
    /// Checksums found inside tunnels (depth 1 or more).
    pub tunneled: u64,
    /// Frames with a bad or illegal checksum.
    pub bad_frames: u64,
    /// The first bad checksums, with their frame numbers.
    pub first_bad: Vec<(u64, Layer)>,
}

impl Tally {
    /// Counts the checksums of frame number `frame`.
    pub fn add(&mut self, frame: u64, layers: &[Layer]) {
        let mut bad = false;
        for layer in layers {
            let report = &layer.report;
            self.counts[report.protocol as usize][status_index(report.status)] += 1;
            self.tunneled += u64::from(layer.depth > 0);
            if is_bad(report.status) {
                bad = true;
                if self.first_bad.len() < FIRST_BAD {
                    self.first_bad.push((frame, *layer));
                }
            }
        }
        self.bad_frames += u64::from(bad);
    }

    /// The number of bad or illegal checksums.
    pub fn bad(&self) -> u64 {
        self.counts.iter().map(|row| row[1] + row[4]).sum()
    }

    /// The human summary of file `path`, in `format`.
    pub fn summary(&self, path: &str, format: &str) -> String {
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
        let bad = self.bad();
        if bad == 0 {
            let _ = writeln!(s, "  no bad checksum");
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
                "    frame {frame}: {} {} at depth {}, stored 0x{:04x}, correct 0x{:04x}",
                r.protocol, r.status, layer.depth, r.stored, r.computed
            );
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fastpath::packet::{Error, Report};

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
        let summary = tally.summary("x.pcap", "pcap");
        assert!(summary.contains("2 bad checksums in 2 frames"), "{summary}");
        assert!(
            summary.contains("frame 2: udp illegal at depth 0"),
            "{summary}"
        );
    }
}
