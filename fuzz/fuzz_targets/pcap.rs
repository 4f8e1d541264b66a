//! The capture decoder of `fastpath pcap` on any bytes taken for a capture
//! file: never a panic or a hang, and memory bounded (run.sh sets
//! `-rss_limit_mb` and `-timeout`).
//!
//! - The same blocks, and the same error if one stops the read, whether
//!   the bytes are read from a file as the CLI reads them (a 1 MiB buffer),
//!   or from memory into a buffer that starts small, so that blocks
//!   straddle refills and the buffer grows, or a few bytes per read. The
//!   blocks are the input's bytes, in order, and cover all of it unless an
//!   error stopped the read where the next block starts.
//! - `fix` (through `Fixer`, every protocol) writes as many bytes as it
//!   reads and changes only checksum fields of IP frames
//!   (`layers::checksum_fields`).
//! - verify's shorter path for the common frame (Ethernet, IPv4 or IPv6,
//!   TCP or UDP, no tunnel) gives what its general walk gives.
//! - Read back, the fixed capture has the same frames, of the same kinds,
//!   with the same checksum fields; none is bad, and each holds what
//!   verify said fix would leave in it (`computed`). A second fix changes
//!   nothing.
//!
//! The seeds are small captures of the CLI's tests (cli/tests/pcap.rs):
//! pcap in both byte orders and resolutions, pcapng in both byte orders
//! with blocks of several kinds, every link type decoded, tunnels.

#![no_main]

use std::io::{self, Cursor, Read, Seek, SeekFrom};
use std::path::PathBuf;
use std::sync::OnceLock;

use fastpath::packet::{ProtocolSet, Report, Status};
use fastpath_cli::pcap::fix::Fixer;
use fastpath_cli::pcap::inspect::{Inspector, Kind};
use fastpath_cli::pcap::layers;
use fastpath_cli::pcap::link::{self, Network};
use fastpath_cli::pcap::read::{Access, Block, Capture, Frame, ReadError};
use libfuzzer_sys::fuzz_target;

/// The buffer that reading from memory starts with: smaller than most
/// blocks.
const SMALL: usize = 64;

/// A capture read to its end: each block's bytes and frame, and the error
/// that stopped the read if one did (its offset and message).
#[derive(Debug, PartialEq)]
struct Blocks {
    blocks: Vec<(Vec<u8>, Option<Frame>)>,
    end: Result<(), (u64, String)>,
}

impl Blocks {
    /// How many bytes the blocks hold.
    fn len(&self) -> usize {
        self.blocks.iter().map(|(raw, _)| raw.len()).sum()
    }
}

/// Reads `capture` to its end, handing every block to `each` too.
fn read_all(capture: Result<Capture, ReadError>, mut each: impl FnMut(&Block<'_>)) -> Blocks {
    let error = |e: ReadError| Err((e.offset, e.message));
    let mut capture = match capture {
        Ok(capture) => capture,
        Err(e) => {
            return Blocks {
                blocks: Vec::new(),
                end: error(e),
            };
        }
    };
    let mut blocks = Vec::new();
    loop {
        let end = match capture.next_block() {
            Ok(Some(block)) => {
                each(&block);
                blocks.push((block.raw.to_vec(), block.frame));
                // Every block takes at least 12 bytes of the input.
                assert!(
                    blocks.len() <= 1 + capture.size() as usize / 12,
                    "more blocks than bytes"
                );
                continue;
            }
            Ok(None) => Ok(()),
            Err(e) => error(e),
        };
        return Blocks { blocks, end };
    }
}

/// Reads at most 7 bytes a call, so that every loop that fills a buffer
/// goes round many times.
struct Trickle(Cursor<Vec<u8>>);

impl Read for Trickle {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let most = 1 + self.0.position() as usize % 7;
        let len = buf.len().min(most);
        self.0.read(&mut buf[..len])
    }
}

impl Seek for Trickle {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.0.seek(pos)
    }
}

/// The file through which the input is read as the CLI reads captures.
fn file() -> &'static PathBuf {
    static FILE: OnceLock<PathBuf> = OnceLock::new();
    FILE.get_or_init(|| {
        std::env::temp_dir().join(format!("fastpath-fuzz-pcap-{}", std::process::id()))
    })
}

/// Where the IP packet of `frame` starts in `data`, if it holds one.
fn ip_start(inspector: &mut Inspector, frame: &Frame, data: &[u8]) -> Option<usize> {
    if inspector.inspect(frame, data) != Kind::Ip {
        return None;
    }
    match frame.link.map(|link| link::locate(link, data)) {
        Some(Network::Ip(at)) => Some(at),
        other => panic!("inspected as IP, located as {other:?}"),
    }
}

fuzz_target!(|input: &[u8]| {
    // Read from memory, fixing every block.
    let mut fixer = Fixer::new(ProtocolSet::ALL);
    let mut fixed = Vec::new();
    let memory = Capture::with_buffer(Cursor::new(input.to_vec()), SMALL);
    let read = read_all(memory, |block| fixer.write(block, &mut fixed).unwrap());

    // The blocks are the input's bytes, in order.
    let consumed = read.len();
    let bytes: Vec<u8> = read
        .blocks
        .iter()
        .flat_map(|(raw, _)| raw)
        .copied()
        .collect();
    assert_eq!(bytes, input[..consumed], "blocks are not the input's bytes");
    match &read.end {
        Ok(()) => assert_eq!(consumed, input.len(), "bytes left after the end"),
        Err((offset, _)) => assert_eq!(*offset, consumed as u64, "error offset"),
    }

    // The same, read as a file (mapped into memory, and read), and a few
    // bytes at a time.
    std::fs::write(file(), input).unwrap();
    assert_eq!(
        read_all(Capture::open(file(), Access::Map), |_| {}),
        read,
        "mapped"
    );
    assert_eq!(
        read_all(Capture::open(file(), Access::Read), |_| {}),
        read,
        "as a file"
    );
    let trickle = Trickle(Cursor::new(input.to_vec()));
    let trickle = Capture::with_buffer(trickle, SMALL + 37);
    assert_eq!(read_all(trickle, |_| {}), read, "a few bytes a read");

    // fix wrote every block read, changing only checksum fields.
    assert_eq!(fixed.len(), consumed, "fix changed the length");
    let frames = read.blocks.iter().filter(|(_, f)| f.is_some()).count();
    assert_eq!(fixer.changes().frames, frames as u64);
    let mut inspector = Inspector::default();
    // verify's shorter path for the common frame gives what the general
    // walk gives.
    for (raw, frame) in &read.blocks {
        if let Some(frame) = frame {
            let data = frame.data(raw);
            let fast = inspector.inspect_as_captured(frame, data);
            let fast_layers = inspector.layers.clone();
            let walked = inspector.inspect_walked(frame, data);
            assert_eq!((fast, fast_layers), (walked, inspector.layers.clone()));
        }
    }
    let mut fields = Vec::new();
    let mut at = 0;
    for (raw, frame) in &read.blocks {
        let out = &fixed[at..at + raw.len()];
        at += raw.len();
        fields.clear();
        let ip = frame.and_then(|frame| {
            let data = frame.data(raw);
            let ip = frame.start + ip_start(&mut inspector, &frame, data)?;
            layers::checksum_fields(&raw[ip..], &mut fields);
            Some(ip)
        });
        for (i, (a, b)) in raw.iter().zip(out).enumerate() {
            if a != b {
                let field = ip.and_then(|ip| i.checked_sub(ip));
                assert!(
                    field.is_some_and(|i| fields.iter().any(|&f| i == f || i == f + 1)),
                    "fix wrote byte {i} of a block, not a checksum field: {fields:?}"
                );
            }
        }
    }
    if fixed.is_empty() {
        return;
    }

    // Read back: the same frames, nothing bad, and what verify promised.
    let mut again = Fixer::new(ProtocolSet::ALL);
    let mut twice = Vec::new();
    let back = Capture::with_buffer(Cursor::new(fixed.clone()), SMALL);
    let back = read_all(back, |block| again.write(block, &mut twice).unwrap());
    assert_eq!(back.end, Ok(()), "the fixed capture does not read back");
    assert_eq!(back.blocks.len(), read.blocks.len());
    let mut before = Inspector::default();
    let mut after = Inspector::default();
    for ((raw, frame), (fixed_raw, fixed_frame)) in read.blocks.iter().zip(&back.blocks) {
        assert_eq!(frame, fixed_frame);
        let Some(frame) = frame else { continue };
        let kind = before.inspect(frame, frame.data(raw));
        assert_eq!(after.inspect(frame, frame.data(fixed_raw)), kind);
        assert_eq!(before.layers.len(), after.layers.len());
        for (b, a) in before.layers.iter().zip(&after.layers) {
            let (was, now) = (&b.report, &a.report);
            let place = |depth, r: &Report| (depth, r.protocol, r.offset);
            assert_eq!(place(b.depth, was), place(a.depth, now));
            assert_ne!(
                now.status,
                Status::Bad,
                "bad after fix: {a:?}, before {b:?}"
            );
            assert_eq!(
                now.stored, was.computed,
                "not what verify said: {a:?}, before {b:?}"
            );
        }
    }
    assert_eq!(twice, fixed, "a second fix changed the capture");
    assert_eq!(again.changes().frames_fixed, 0);
});
