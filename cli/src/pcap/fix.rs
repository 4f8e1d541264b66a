//! `fastpath pcap fix`: a copy of a capture with its wrong checksums right.
//!
//! Every block is copied as it is in the input, byte for byte: file
//! header, pcapng section headers, interface descriptions, statistics,
//! name resolution, options, blocks of unknown types, every frame's header
//! and metadata. Only the two bytes of each checksum field that is
//! verifiable and wrong ([`fastpath::packet::Status::needs_fix`]), of a
//! protocol in `--only`, are written in the copy, innermost tunnel first.
//!
//! The output goes to a temporary file in the output's directory, renamed
//! into place once complete and synced: on any error the output and the
//! input are as they were. The output takes the input's permissions.

use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use fastpath::packet::{Protocol, ProtocolSet, Status};

use super::layers::{self, Layer};
use super::link::{self, Network};
use super::progress::Progress;
use super::read::{Block, Capture};
use super::verify::{Inspector, Kind};

/// The arguments of `fastpath pcap fix`.
#[derive(clap::Args)]
pub struct Args {
    /// The capture to fix, pcap or pcapng.
    input: PathBuf,
    /// Where to write the fixed capture (same format). Refused if it is
    /// INPUT, unless --in-place is given.
    #[arg(short, long, value_name = "OUT", required_unless_present = "in_place")]
    output: Option<PathBuf>,
    /// Replace INPUT with the fixed capture.
    #[arg(long)]
    in_place: bool,
    /// Fix only these layers: a comma-separated list of ipv4, tcp, udp,
    /// icmp, icmpv6 (all of them by default).
    #[arg(long, value_delimiter = ',', value_name = "PROTOCOLS")]
    only: Vec<Protocol>,
}

/// What `fix` changed and left.
#[derive(Clone, Debug, Default)]
pub struct Changes {
    /// Frames copied.
    pub frames: u64,
    /// Frames with a checksum field written.
    pub frames_fixed: u64,
    /// Fields written, by protocol (indexed by [`Protocol`] as `usize`).
    pub fixed: [u64; 5],
    /// Wrong checksums of protocols not in `--only`, left as they are.
    pub excluded: u64,
    /// Checksums that can't be verified, left as they are.
    pub unverified: u64,
}

/// Copies blocks of a capture with their wrong checksums corrected: what
/// `fix` writes, block by block. Keeps its buffers from block to block.
pub struct Fixer {
    only: ProtocolSet,
    changes: Changes,
    inspector: Inspector,
    copy: Vec<u8>,
    layers: Vec<Layer>,
}

impl Fixer {
    /// A fixer that writes the checksums of the protocols in `only`.
    pub fn new(only: ProtocolSet) -> Fixer {
        Fixer {
            only,
            changes: Changes::default(),
            inspector: Inspector::default(),
            copy: Vec::new(),
            layers: Vec::new(),
        }
    }

    /// Writes `block` to `out`, byte for byte but for the checksum fields
    /// of its frame that are verifiable, wrong and of a protocol in `only`.
    pub fn write(&mut self, block: &Block<'_>, out: &mut impl Write) -> io::Result<()> {
        let only = self.only;
        let changes = &mut self.changes;
        let Some(frame) = block.frame else {
            return out.write_all(block.raw);
        };
        changes.frames += 1;
        let data = frame.data(block.raw);
        let inspector = &mut self.inspector;
        let needed = inspector.inspect(&frame, data) == Kind::Ip
            && inspector.layers.iter().any(|l| wanted(l, only));
        for layer in &inspector.layers {
            match layer.report.status {
                Status::Unverified(_) => changes.unverified += 1,
                s if s.needs_fix() && !only.contains(layer.report.protocol) => {
                    changes.excluded += 1;
                }
                _ => {}
            }
        }
        if !needed {
            return out.write_all(block.raw);
        }
        self.copy.clear();
        self.copy.extend_from_slice(block.raw);
        let frame_bytes = &mut self.copy[frame.start..frame.start + frame.len];
        let Some(link) = frame.link else {
            unreachable!("inspected as IP")
        };
        let Network::Ip(at) = link::locate(link, frame_bytes) else {
            unreachable!("inspected as IP")
        };
        self.layers.clear();
        if layers::fix(&mut frame_bytes[at..], only, &mut self.layers).is_ok() {
            let mut any = false;
            for layer in &self.layers {
                if wanted(layer, only) && layer.report.computed != layer.report.stored {
                    changes.fixed[layer.report.protocol as usize] += 1;
                    any = true;
                }
            }
            changes.frames_fixed += u64::from(any);
        }
        out.write_all(&self.copy)
    }

    /// What the blocks written so far changed and left.
    pub fn changes(&self) -> &Changes {
        &self.changes
    }
}

/// Runs `fastpath pcap fix`: exit status 0, or 2 on an error.
pub fn run(args: &Args) -> ExitCode {
    match fix(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if crate::is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("fastpath: error: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn fix(args: &Args) -> Result<()> {
    let only = if args.only.is_empty() {
        ProtocolSet::ALL
    } else {
        args.only.iter().copied().collect()
    };
    let input = &args.input;
    let target = target(input, args.output.as_deref(), args.in_place)?;
    let name = input.to_string_lossy();
    let mut capture = Capture::open(input).with_context(|| format!("{name}"))?;
    let permissions = fs::metadata(input)
        .with_context(|| format!("{name}"))?
        .permissions();
    let directory = match target.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let temporary = tempfile::Builder::new()
        .prefix(".fastpath-fix-")
        .suffix(".tmp")
        .tempfile_in(directory)
        .with_context(|| format!("cannot create a temporary file in {}", directory.display()))?;
    let written = || format!("writing {}", temporary.path().display());
    let mut out = BufWriter::with_capacity(1 << 20, temporary.as_file());
    let mut fixer = Fixer::new(only);
    let mut progress = Progress::new(&name, capture.size());
    loop {
        progress.update(capture.position());
        let Some(block) = capture.next_block().with_context(|| format!("{name}"))? else {
            break;
        };
        fixer.write(&block, &mut out).with_context(written)?;
    }
    drop(progress);
    out.flush().with_context(written)?;
    drop(out);
    let file = temporary.as_file();
    file.set_permissions(permissions).with_context(written)?;
    file.sync_all().with_context(written)?;
    temporary.persist(&target).with_context(|| {
        format!(
            "cannot rename the output into place as {}",
            target.display()
        )
    })?;
    println!("{}", summary(&name, &target, fixer.changes()));
    Ok(())
}

/// Whether `fix` writes this layer's field.
fn wanted(layer: &Layer, only: ProtocolSet) -> bool {
    layer.report.status.needs_fix() && only.contains(layer.report.protocol)
}

/// The file to replace: INPUT itself (through symbolic links) with
/// `--in-place`; otherwise OUT, which must not be INPUT.
fn target(input: &Path, output: Option<&Path>, in_place: bool) -> Result<PathBuf> {
    let canonical_input = input
        .canonicalize()
        .with_context(|| format!("{}: cannot open", input.display()))?;
    let Some(output) = output else {
        return Ok(canonical_input);
    };
    // OUT, through symbolic links, if it exists.
    let existing = output.canonicalize().ok();
    let same = existing.as_ref().is_some_and(|out| {
        *out == canonical_input || same_file(&canonical_input, out).unwrap_or(false)
    });
    match (same, in_place) {
        (true, true) => Ok(canonical_input),
        (true, false) => bail!(
            "{} is the input file: give --in-place to replace it",
            output.display()
        ),
        (false, true) => bail!(
            "--in-place replaces {}, and -o names another file ({})",
            input.display(),
            output.display()
        ),
        (false, false) => Ok(existing.unwrap_or_else(|| output.to_owned())),
    }
}

/// Whether two paths are the same file (a hard link, the same inode).
fn same_file(a: &Path, b: &Path) -> std::io::Result<bool> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let (a, b) = (fs::metadata(a)?, fs::metadata(b)?);
        Ok(a.dev() == b.dev() && a.ino() == b.ino())
    }
    #[cfg(not(unix))]
    {
        let _ = (a, b);
        Ok(false)
    }
}

fn summary(input: &str, target: &Path, changes: &Changes) -> String {
    let fixed: u64 = changes.fixed.iter().sum();
    let mut s = format!(
        "{input} -> {}: fixed {fixed} checksums in {} of {} frames",
        target.display(),
        changes.frames_fixed,
        changes.frames
    );
    if fixed > 0 {
        let by_protocol: Vec<String> = Protocol::ALL
            .iter()
            .filter(|&&p| changes.fixed[p as usize] > 0)
            .map(|&p| format!("{p} {}", changes.fixed[p as usize]))
            .collect();
        s += &format!(" ({})", by_protocol.join(", "));
    }
    if changes.unverified > 0 {
        s += &format!(
            "; {} unverifiable checksums left as they are",
            changes.unverified
        );
    }
    if changes.excluded > 0 {
        s += &format!(
            "; {} wrong checksums of protocols not in --only left",
            changes.excluded
        );
    }
    s
}
