//! `fastpath pcap bench`: verify against a bare read of the same capture,
//! through the same reader, in the same run.
//!
//! - **read**: every block read and parsed by pcap-parser, every frame's
//!   link layer decoded down to its IP header; no checksum.
//! - **verify**: what `fastpath pcap verify` does without output: the read,
//!   then every checksum of every frame, tallied.
//! - **verify --json**: the same, formatting every JSON line into a sink.
//!
//! The file is read once first, to have it in the page cache; then the
//! three run in turn, `--rounds` times, and the median of each is reported.
//! `--generate MIB` first writes a capture of 1500-byte IP packets
//! (IPv4/TCP, IPv4/UDP, IPv6/TCP in turn, random payloads, every checksum
//! right) behind Ethernet headers; with `--mix`, packets of the sizes a
//! network carries most instead: 40% bare TCP or UDP headers, 50% with up
//! to 250 bytes of payload, 10% with up to 1460 (about 200 bytes a frame
//! on average).

use std::fs::File;
use std::hint::black_box;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use fastpath::packet::{self, ProtocolSet};

use super::link::{self, Network};
use super::output::{self, display_path};
use super::read::{Access, Capture};
use super::verify::{self, Failure};

#[derive(clap::Args)]
pub struct Args {
    /// The capture to read.
    file: PathBuf,
    /// How many times each measurement runs; the median is reported.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=1000))]
    rounds: u32,
    /// First write FILE: a capture of about this many MiB of 1500-byte
    /// packets, every checksum right.
    #[arg(long, value_name = "MIB")]
    generate: Option<u64>,
    /// With --generate: packets of mixed sizes, most of them small, not
    /// 1500 bytes each.
    #[arg(long, requires = "generate")]
    mix: bool,
}

pub fn run(args: &Args) -> ExitCode {
    match bench(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("fastpath: error: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// One pass over the capture: frames and bytes seen.
struct Pass {
    frames: u64,
    bytes: u64,
}

fn bench(args: &Args) -> Result<()> {
    let path = &args.file;
    if let Some(mib) = args.generate {
        generate(path, mib << 20, args.mix)
            .with_context(|| format!("writing {}", display_path(path)))?;
    }
    let len = std::fs::metadata(path)
        .with_context(|| display_path(path))?
        .len();
    let warm = read(path)?;
    println!(
        "{}: {:.1} MiB, {} frames of {:.0} bytes on average",
        display_path(path),
        len as f64 / f64::from(1 << 20),
        warm.frames,
        warm.bytes as f64 / warm.frames.max(1) as f64
    );
    println!("checksum kernel: {}", fastpath::active_tier());
    let mut times = [Vec::new(), Vec::new(), Vec::new()];
    for _ in 0..args.rounds {
        times[0].push(time(|| read(path))?);
        times[1].push(time(|| verify(path, false))?);
        times[2].push(time(|| verify(path, true))?);
    }
    let names = [
        "read (pcap-parser, link layers decoded)",
        "verify",
        "verify --json (to a sink)",
    ];
    let medians: Vec<Duration> = times.iter_mut().map(|t| median(t)).collect();
    for (name, median) in names.iter().zip(&medians) {
        let seconds = median.as_secs_f64();
        println!(
            "{name:<42} {:>9.1} ms  {:>6.2} GB/s  {:>6.2} Mframes/s",
            seconds * 1e3,
            len as f64 / seconds / 1e9,
            warm.frames as f64 / seconds / 1e6
        );
    }
    println!(
        "verify / read: {:.2}x   (median of {} rounds)",
        medians[1].as_secs_f64() / medians[0].as_secs_f64(),
        args.rounds
    );
    Ok(())
}

fn time(pass: impl FnOnce() -> Result<Pass>) -> Result<Duration> {
    let start = Instant::now();
    black_box(pass()?);
    Ok(start.elapsed())
}

fn median(times: &mut [Duration]) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// The bare read: every frame parsed and its IP header found.
fn read(path: &Path) -> Result<Pass> {
    let mut capture = Capture::open(path, Access::Map).with_context(|| display_path(path))?;
    let mut pass = Pass {
        frames: 0,
        bytes: 0,
    };
    let mut versions = 0u64;
    while let Some(block) = capture.next_block().with_context(|| display_path(path))? {
        let Some(frame) = block.frame else { continue };
        let data = frame.data(block.raw);
        pass.frames += 1;
        pass.bytes += data.len() as u64;
        if let Some(link) = frame.link
            && let Network::Ip(at) = link::locate(link, data)
        {
            versions += u64::from(data[at] >> 4);
        }
    }
    black_box(versions);
    Ok(pass)
}

/// `verify` without its output, or with its JSON lines into a sink: the
/// function `fastpath pcap verify` runs on each file.
fn verify(path: &Path, json: bool) -> Result<Pass> {
    let file = output::json_string(&path.to_string_lossy());
    let shown = display_path(path);
    let (tally, _, error) = match verify::verify_file(
        path,
        &shown,
        &file,
        json,
        false,
        None,
        &mut Sink(Vec::new()),
    ) {
        Ok(verified) => verified,
        Err(Failure::Read(e)) => return Err(anyhow::anyhow!("{shown}: {e}")),
        Err(Failure::Write(e)) => return Err(e.into()),
    };
    if let Some(e) = error {
        bail!("{shown}: {e}");
    }
    if tally.bad() > 0 {
        bail!(
            "{shown}: {} bad checksums: the bench wants a clean capture",
            tally.bad()
        );
    }
    Ok(Pass {
        frames: tally.frames,
        bytes: 0,
    })
}

/// A writer that takes every byte, formatted, into a buffer emptied as it
/// fills: the JSON lines are made as for a file, and go nowhere.
struct Sink(Vec<u8>);

impl Write for Sink {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        if self.0.len() + bytes.len() > 1 << 16 {
            black_box(&self.0);
            self.0.clear();
        }
        self.0.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Writes a pcap of `size` bytes or a little more: Ethernet frames of
/// 1500-byte IP packets, or with `mix` of the sizes the module's
/// documentation gives, every checksum right.
fn generate(path: &Path, size: u64, mix: bool) -> Result<()> {
    let mut out = BufWriter::with_capacity(1 << 20, File::create(path)?);
    // pcap header: microseconds, little-endian, snap length 65535, Ethernet.
    out.write_all(&0xa1b2_c3d4u32.to_le_bytes())?;
    out.write_all(&[2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0])?;
    out.write_all(&65535u32.to_le_bytes())?;
    out.write_all(&1u32.to_le_bytes())?;
    let mut random = 0x9e37_79b9_7f4a_7c15u64;
    // xorshift64: cheap varied payloads and sizes.
    let mut next = move || {
        random ^= random << 13;
        random ^= random >> 7;
        random ^= random << 17;
        random
    };
    let mut written = 24;
    let mut frame = Vec::with_capacity(1514);
    for n in 0u32.. {
        if written >= size {
            break;
        }
        frame.clear();
        frame.extend([0x02, 0, 0, 0, 0, 1, 0x02, 0, 0, 0, 0, 2]);
        let (ethertype, header, l4): (u16, &[u8], u8) = match n % 3 {
            0 => (0x0800, &IPV4, 6),
            1 => (0x0800, &IPV4, 17),
            _ => (0x86dd, &IPV6, 6),
        };
        frame.extend(ethertype.to_be_bytes());
        let ip = frame.len();
        let l4_start = ip + header.len();
        let ip_len = if mix {
            let l4_header = if l4 == 6 { 20 } else { 8 };
            let draw = next();
            let payload = match draw % 10 {
                0..=3 => 0,
                4..=8 => 1 + (draw >> 8) % 250,
                _ => 1 + (draw >> 8) % 1460,
            };
            header.len() + l4_header + payload as usize
        } else {
            1500
        };
        frame.extend(header);
        if ethertype == 0x0800 {
            frame[ip + 9] = l4;
            frame[ip + 2..ip + 4].copy_from_slice(&(ip_len as u16).to_be_bytes());
        } else {
            frame[ip + 6] = l4;
            frame[ip + 4..ip + 6].copy_from_slice(&((ip_len - header.len()) as u16).to_be_bytes());
        }
        while frame.len() < ip + ip_len {
            frame.extend(next().to_le_bytes());
        }
        frame.truncate(ip + ip_len);
        // Ports 9 to 9 (discard), which no dissector decodes further.
        frame[l4_start..l4_start + 4].copy_from_slice(&[0, 9, 0, 9]);
        if l4 == 6 {
            frame[l4_start + 12] = 0x50; // data offset 5
        } else {
            let len = (ip + ip_len - l4_start) as u16;
            frame[l4_start + 4..l4_start + 6].copy_from_slice(&len.to_be_bytes());
        }
        packet::fix(&mut frame[ip..], ProtocolSet::ALL).map_err(|e| anyhow::anyhow!("{e}"))?;
        let len = frame.len() as u32;
        out.write_all(&n.to_le_bytes())?;
        out.write_all(&0u32.to_le_bytes())?;
        out.write_all(&len.to_le_bytes())?;
        out.write_all(&len.to_le_bytes())?;
        out.write_all(&frame)?;
        written += 16 + u64::from(len);
    }
    out.flush()?;
    Ok(())
}

/// An IPv4 header of a 1500-byte packet, protocol and checksum to fill
/// (the length too, for a mix).
const IPV4: [u8; 20] = [
    0x45, 0x00, 0x05, 0xdc, 0x12, 0x34, 0x40, 0x00, 0x40, 0x00, 0x00, 0x00, 10, 0, 0, 1, 10, 0, 0,
    2,
];

/// An IPv6 header with a 1460-byte payload, next header to fill (the
/// length too, for a mix):
/// 2001:db8::1 to 2001:db8::2.
const IPV6: [u8; 40] = [
    0x60, 0x00, 0x00, 0x00, 0x05, 0xb4, 0x00, 0x40, // version, length, next header, hops
    0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, // source
    0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, // destination
];
