//! `fastpath pcap verify`: every checksum of every frame, as JSON lines or a
//! summary per file.
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
//! `computed` is what the field holds after `fix` (with every protocol): the
//! stored value unless the checksum needs a fix. An outer checksum that
//! covers a tunnel's inner packet changes when an inner checksum is fixed,
//! so it is computed here on a fixed copy of the frame.

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use fastpath::packet::ProtocolSet;

use super::layers::{self, Layer};
use super::link::{self, Network};
use super::output::{self, Tally};
use super::progress::Progress;
use super::read::{Capture, Format, Frame, ReadError};

/// The arguments of `fastpath pcap verify`.
#[derive(clap::Args)]
pub struct Args {
    /// Capture files, pcap or pcapng; `-` for standard input. FIFOs and
    /// pipes are read as they come.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Print one JSON object per checksum, one per line, instead of a
    /// summary.
    #[arg(long)]
    json: bool,
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

/// Finds every checksum of a frame; keeps its buffers from frame to frame.
#[derive(Default)]
pub struct Inspector {
    /// The checksums of the last frame inspected.
    pub layers: Vec<Layer>,
    scratch: Vec<u8>,
    fixed: Vec<Layer>,
}

impl Inspector {
    /// Inspects the frame `frame` whose captured bytes are `data`.
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
}

/// Runs `fastpath pcap verify`: exit status 0 if no checksum is bad, 1 if
/// one is, 2 if a file could not be read.
pub fn run(args: &Args) -> ExitCode {
    let stdout = io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut status = 0;
    for path in &args.files {
        let name = path.to_string_lossy();
        match verify_file(path, &name, args.json, &mut out) {
            Ok((tally, format, error)) => {
                let mut text = String::new();
                if !args.json {
                    text = tally.summary(&name, &format.to_string());
                }
                if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
                    return write_failed(&e, status);
                }
                if let Some(error) = error {
                    eprintln!("fastpath: error: {name}: {error}");
                    status = 2;
                } else if tally.bad() > 0 {
                    status = status.max(1);
                }
            }
            Err(Failure::Read(error)) => {
                let _ = out.flush();
                eprintln!("fastpath: error: {name}: {error}");
                status = 2;
            }
            Err(Failure::Write(e)) => return write_failed(&e, status),
        }
    }
    ExitCode::from(status)
}

fn write_failed(e: &io::Error, status: u8) -> ExitCode {
    if e.kind() == io::ErrorKind::BrokenPipe {
        return ExitCode::from(status);
    }
    eprintln!("fastpath: error: writing the output: {e}");
    ExitCode::from(2)
}

enum Failure {
    Read(ReadError),
    Write(io::Error),
}

/// Verifies one file: its tally, its format, and the error that stopped the read
/// early if one did (the frames before it are counted and printed).
fn verify_file(
    path: &std::path::Path,
    name: &str,
    json: bool,
    out: &mut impl Write,
) -> Result<(Tally, Format, Option<ReadError>), Failure> {
    let mut capture = Capture::open_arg(path).map_err(Failure::Read)?;
    let format = capture.format();
    let file = output::json_string(name);
    let mut progress = Progress::new(name, capture.size());
    let mut inspector = Inspector::default();
    let mut tally = Tally::default();
    loop {
        let block = match capture.next_block() {
            Ok(Some(block)) => block,
            Ok(None) => return Ok((tally, format, None)),
            Err(e) => return Ok((tally, format, Some(e))),
        };
        let Some(frame) = block.frame else { continue };
        let data = frame.data(block.raw);
        tally.frames += 1;
        tally.cut += u64::from((frame.len as u64) < u64::from(frame.original_len));
        match inspector.inspect(&frame, data) {
            Kind::Ip => tally.ip += 1,
            Kind::NotIp => tally.not_ip += 1,
            Kind::OtherLink => tally.other_link += 1,
            Kind::BrokenIp => tally.broken_ip += 1,
        }
        tally.add(tally.frames, &inspector.layers);
        if json {
            for layer in &inspector.layers {
                output::json_line(out, &file, tally.frames, layer).map_err(Failure::Write)?;
            }
        }
        progress.update(capture.position());
    }
}
