//! `fastpath pcap fix`: a copy of a capture with its wrong checksums right.
//!
//! Every block is copied as it is in the input, byte for byte: file
//! header, pcapng section headers, interface descriptions, statistics,
//! name resolution, options, blocks of unknown types, every frame's header
//! and metadata. Only the two bytes of each checksum field that is
//! verifiable and wrong ([`fastpath::packet::Status::needs_fix`]), of a
//! protocol in `--only`, are written in the copy, innermost tunnel first.
//!
//! A regular output file is written to a temporary file in its directory,
//! renamed into place once complete and synced (then the directory too): on
//! any error, or SIGINT, SIGTERM or SIGHUP, the output and the input are as
//! they were and the temporary file is gone. A file replaced keeps its mode
//! and owner; a new one takes the input's mode. Standard output (`-o -`),
//! FIFOs and character devices are written directly, streamed; other kinds
//! of file (directories, sockets, block devices, symbolic links that lead
//! nowhere) are refused, never replaced.
//!
//! A capture cut short (a partial last record, as a killed writer leaves)
//! or corrupt after some records is fixed up to its last complete record:
//! those are written, the error is reported, and the exit status is 3.
//!
//! Several inputs are fixed at once, one per thread (see `parallel`),
//! each into the directory `-o` names under its own file name, or each in
//! place with `--in-place`; every output is checked before any is written,
//! and each is written as a single input's is. Their lines come in
//! argument order, and the exit status is the worst: 2 if an input could
//! not be fixed (its output not replaced), else 3 if one was cut short.

use std::collections::HashMap;
use std::fs;
use std::io::{self, BufWriter, Write};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Mutex, Once};

use anyhow::{Context, Result, bail};
use fastpath::packet::{Protocol, ProtocolSet, Status};

use super::layers::{self, Layer};
use super::link::{self, Network};
use super::output::display_path;
use super::parallel;
use super::progress::Progress;
use super::read::{Block, Capture};
use super::verify::{Inspector, Kind};

/// The exit statuses of fix.
const EXIT_HELP: &str = "\
Exit status: 0 if every input was fixed; 2 on an error, with nothing
replaced; 3 if an input was cut short or corrupt after some records (the
records before written). With several inputs, the worst of them: 2 if one
could not be fixed (its output not replaced, the others written), else 3 if
one was cut short.";

/// The arguments of `fastpath pcap fix`.
#[derive(clap::Args)]
#[command(after_help = EXIT_HELP)]
pub struct Args {
    /// The captures to fix, pcap or pcapng; `-` for standard input (alone).
    /// Several are fixed at once, one per core.
    #[arg(required = true, value_name = "INPUT")]
    inputs: Vec<PathBuf>,
    /// Where to write the fixed capture (same format): a file (replaced
    /// through a temporary file, keeping its mode and owner), `-` for
    /// standard output, or a FIFO or character device (written directly).
    /// Refused if it is INPUT, unless --in-place is given. With several
    /// inputs, an existing directory: each is written there under its file
    /// name (two inputs of the same name, or an input there, are refused).
    #[arg(short, long, value_name = "OUT", required_unless_present = "in_place")]
    output: Option<PathBuf>,
    /// Replace INPUT with the fixed capture, keeping its mode and owner. The
    /// new file takes INPUT's name: other hard links to INPUT keep the old
    /// contents. With several inputs, each is replaced (no -o).
    #[arg(long)]
    in_place: bool,
    /// Fix only these layers: a comma-separated list of ipv4, tcp, udp,
    /// icmp, icmpv6, udplite (all of them by default). A tunnel's outer checksum
    /// that was right is kept right, whatever its protocol.
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
    pub fixed: [u64; Protocol::ALL.len()],
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

/// The exit status of a capture fixed up to its last complete record, the
/// rest unreadable.
const CUT_SHORT: u8 = 3;

/// Runs `fastpath pcap fix`: exit status 0; 3 if the input ended in a
/// partial or corrupt record, after which nothing was written; 2 on an
/// error, with nothing replaced. With several inputs, each is fixed on a
/// thread of its own, and the status is the worst of theirs.
pub fn run(args: &Args) -> ExitCode {
    if let [input] = args.inputs.as_slice() {
        return run_one(args, input);
    }
    let destinations = match destinations(args) {
        Ok(destinations) => destinations,
        Err(e) => {
            eprintln!("fastpath: error: {e:#}");
            return ExitCode::from(2);
        }
    };
    let only = only(args);
    let threads = parallel::threads(args.inputs.len());
    // Each output's line once its input is fixed, the error of a capture
    // cut short, or the error that kept it from being fixed.
    type Fixed = Result<(String, Option<anyhow::Error>)>;
    let destinations: Vec<Mutex<Option<Destination>>> = destinations
        .into_iter()
        .map(|d| Mutex::new(Some(d)))
        .collect();
    let work = |i: usize, job: &parallel::Job<'_, Fixed>| {
        let taken = destinations[i]
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        let Some(destination) = taken else { return };
        job.send(fix(&args.inputs[i], destination, only, false));
    };
    // 0, then 3 (cut short), then 2 (not fixed): the worst so far.
    let mut worst = 0;
    let take = |_: usize, receiver: &std::sync::mpsc::Receiver<Fixed>| {
        let Ok(fixed) = receiver.recv() else {
            // The thread of this input ended with no result: it panicked,
            // and the panic is raised once every thread has ended.
            return ControlFlow::Break(());
        };
        match fixed {
            Ok((line, cut)) => {
                // The outputs are files: a reader of standard output that
                // went away loses these lines, not the files.
                let _ = writeln!(io::stdout().lock(), "{line}");
                if let Some(cut) = cut {
                    eprintln!("{}", cut_message(&cut));
                    worst = worst.max(1);
                }
            }
            Err(e) => {
                eprintln!("fastpath: error: {e:#}");
                worst = 2;
            }
        }
        ControlFlow::Continue(())
    };
    parallel::in_order(args.inputs.len(), threads, 1, work, take);
    match worst {
        0 => ExitCode::SUCCESS,
        1 => ExitCode::from(CUT_SHORT),
        _ => ExitCode::from(2),
    }
}

/// The message of a capture cut short at `cut`.
fn cut_message(cut: &anyhow::Error) -> String {
    format!("fastpath: error: {cut:#}: the records before it were written, none after it")
}

/// Runs `fix` on a single input: its exit status.
fn run_one(args: &Args, input: &Path) -> ExitCode {
    let fixed = destination(input, args.output.as_deref(), args.in_place)
        .and_then(|destination| fix(input, destination, only(args), true));
    let (line, cut) = match fixed {
        Ok(fixed) => fixed,
        Err(e) if crate::is_broken_pipe(&e) => return ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("fastpath: error: {e:#}");
            return ExitCode::from(2);
        }
    };
    if args.output.as_deref() == Some(Path::new("-")) {
        eprintln!("{line}");
    } else {
        println!("{line}");
    }
    match cut {
        None => ExitCode::SUCCESS,
        Some(cut) => {
            eprintln!("{}", cut_message(&cut));
            ExitCode::from(CUT_SHORT)
        }
    }
}

/// The protocols to fix: those of `--only`, or all of them.
fn only(args: &Args) -> ProtocolSet {
    if args.only.is_empty() {
        ProtocolSet::ALL
    } else {
        args.only.iter().copied().collect()
    }
}

/// Where `fix` writes.
enum Destination {
    /// Standard output, streamed.
    Stdout,
    /// A FIFO or a character device: opened and written, streamed.
    Stream(PathBuf),
    /// A regular file, replaced through a temporary file renamed into place;
    /// with the metadata of the file it replaces, if there is one.
    File(PathBuf, Option<fs::Metadata>),
}

/// Fixes the capture `input` into `destination`, with a progress bar if
/// `progress`: the line that tells what was fixed, and `Some` error if the
/// capture ended in a record that could not be read, the records before it
/// written.
fn fix(
    input: &Path,
    destination: Destination,
    only: ProtocolSet,
    progress: bool,
) -> Result<(String, Option<anyhow::Error>)> {
    let name = display_path(input);
    let mut capture = Capture::open_arg(input).with_context(|| name.clone())?;
    // The mode of a new output: the input's, or for standard input that of
    // a file created under the usual umask (022).
    let new_mode = if input == Path::new("-") {
        new_file_permissions()
    } else {
        fs::metadata(input)
            .with_context(|| name.clone())?
            .permissions()
    };
    let mut fixer = Fixer::new(only);
    let (shown, cut) = match destination {
        Destination::Stdout => {
            let mut out = BufWriter::with_capacity(1 << 20, io::stdout().lock());
            let cut = copy(
                &mut capture,
                &name,
                &mut fixer,
                &mut out,
                "standard output",
                progress,
            )?;
            (PathBuf::from("-"), cut)
        }
        Destination::Stream(path) => {
            let shown = display_path(&path);
            let file = fs::OpenOptions::new()
                .write(true)
                .open(&path)
                .with_context(|| format!("cannot open {shown}"))?;
            let mut out = BufWriter::with_capacity(1 << 20, file);
            let cut = copy(&mut capture, &name, &mut fixer, &mut out, &shown, progress)?;
            (path, cut)
        }
        Destination::File(path, existing) => {
            let cut = replace(&path, new_mode, existing.as_ref(), |out| {
                let shown = display_path(&path);
                copy(&mut capture, &name, &mut fixer, out, &shown, progress)
            })?;
            (path, cut)
        }
    };
    Ok((summary(&name, &shown, fixer.changes()), cut))
}

/// Where each of several inputs is written: each in place with
/// `--in-place`, else into the directory `-o` names under its file name.
/// Refused, before anything is written: standard input (no file name to
/// write it under), an input named twice, two inputs of the same file
/// name, an output that is an input, and `-o` that is no directory.
fn destinations(args: &Args) -> Result<Vec<Destination>> {
    let inputs = &args.inputs;
    if let Some(stdin) = inputs.iter().find(|i| *i == Path::new("-")) {
        bail!(
            "{}: standard input is fixed alone (fix - -o OUT), not among several inputs",
            display_path(stdin)
        );
    }
    let mut canonical: Vec<PathBuf> = Vec::with_capacity(inputs.len());
    for input in inputs {
        let path = input
            .canonicalize()
            .with_context(|| format!("{}: cannot open", display_path(input)))?;
        if let Some(j) = canonical
            .iter()
            .position(|c| same_file(c, &path).unwrap_or(*c == path))
        {
            bail!(
                "{} and {} are the same file: give it once",
                display_path(&inputs[j]),
                display_path(input)
            );
        }
        canonical.push(path);
    }
    let Some(dir) = args.output.as_deref() else {
        return inputs
            .iter()
            .map(|input| destination(input, None, true))
            .collect();
    };
    if args.in_place {
        bail!("--in-place replaces each input: -o is not given with several inputs");
    }
    if dir == Path::new("-") {
        bail!("-o -: several inputs are not written to standard output: give a directory");
    }
    if !fs::metadata(dir).is_ok_and(|m| m.is_dir()) {
        bail!(
            "{} is not an existing directory: with several inputs, -o names the directory \
             to write them in",
            display_path(dir)
        );
    }
    let mut names: HashMap<&std::ffi::OsStr, &Path> = HashMap::new();
    let mut destinations = Vec::with_capacity(inputs.len());
    for input in inputs {
        let Some(name) = input.file_name() else {
            bail!("{}: no file name to write it under", display_path(input));
        };
        if let Some(other) = names.insert(name, input) {
            bail!(
                "{} and {} have the same file name: both would be written as {}",
                display_path(other),
                display_path(input),
                display_path(&dir.join(name))
            );
        }
        let output = dir.join(name);
        if let Some(j) = canonical
            .iter()
            .position(|c| same_file(c, &output).unwrap_or(false))
        {
            bail!(
                "{} is the input file {}: not replaced (give --in-place, with no -o, to \
                 replace the inputs)",
                display_path(&output),
                display_path(&inputs[j])
            );
        }
        destinations.push(destination(input, Some(&output), false)?);
    }
    Ok(destinations)
}

/// Copies every block of `capture` through `fixer` to `out` and flushes it,
/// with a progress bar if `progress`: `Some` read error if a block could
/// not be read (the blocks before it written), after the first block.
fn copy(
    capture: &mut Capture,
    name: &str,
    fixer: &mut Fixer,
    out: &mut impl Write,
    shown: &str,
    progress: bool,
) -> Result<Option<anyhow::Error>> {
    let written = || format!("writing {shown}");
    let mut progress = progress.then(|| Progress::new(name, capture.size()));
    let mut cut = None;
    loop {
        if let Some(progress) = &mut progress {
            progress.update(capture.position());
        }
        // A stream may be live: what was fixed comes out before the read
        // waits for more.
        if capture.may_wait() {
            out.flush().with_context(written)?;
        }
        match capture.next_block() {
            Ok(Some(block)) => fixer.write(&block, out).with_context(written)?,
            Ok(None) => break,
            Err(e) => {
                cut = Some(anyhow::Error::new(e).context(name.to_owned()));
                break;
            }
        }
    }
    drop(progress);
    out.flush().with_context(written)?;
    Ok(cut)
}

/// The temporary files being written, one per input being fixed, removed
/// by the signal handler.
static TEMPORARY: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Removes the temporary files, if any, on SIGINT, SIGTERM or SIGHUP, then
/// exits with 128 + 2 (as after SIGINT). Installed once.
fn remove_temporary_on_signals() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        // Without the handler (another one installed by an embedding
        // program) a signal leaves the temporary file; nothing else changes.
        let _ = ctrlc::set_handler(|| {
            // Held until the exit: no temporary file is registered, or
            // renamed into place, after they are removed.
            let mut paths = TEMPORARY.lock().unwrap_or_else(|e| e.into_inner());
            for path in paths.drain(..) {
                let _ = fs::remove_file(path);
            }
            std::process::exit(130);
        });
    });
}

/// Replaces the regular file `target` with what `write` writes, through a
/// temporary file in its directory: with the mode and owner of `existing`,
/// the file it replaces, or `new_mode` if there is none; synced, renamed
/// into place, and the directory synced.
fn replace<T>(
    target: &Path,
    new_mode: fs::Permissions,
    existing: Option<&fs::Metadata>,
    write: impl FnOnce(&mut BufWriter<&fs::File>) -> Result<T>,
) -> Result<T> {
    let directory = match target.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    remove_temporary_on_signals();
    let mut registered = TEMPORARY.lock().unwrap_or_else(|e| e.into_inner());
    let temporary = tempfile::Builder::new()
        .prefix(".fastpath-fix-")
        .suffix(".tmp")
        .tempfile_in(directory)
        .with_context(|| {
            format!(
                "cannot create a temporary file in {}",
                display_path(directory)
            )
        })?;
    registered.push(temporary.path().to_owned());
    drop(registered);
    let shown = || format!("writing {}", display_path(temporary.path()));
    let result = {
        let mut out = BufWriter::with_capacity(1 << 20, temporary.as_file());
        let result = write(&mut out)?;
        out.flush().with_context(shown)?;
        result
    };
    let file = temporary.as_file();
    let mode = existing.map_or(new_mode, fs::Metadata::permissions);
    file.set_permissions(mode).with_context(shown)?;
    if let Some(existing) = existing {
        keep_owner(file, existing, target);
    }
    file.sync_all().with_context(shown)?;
    // Held across the rename: the handler then removes the temporary file
    // before it, or nothing after it.
    let mut registered = TEMPORARY.lock().unwrap_or_else(|e| e.into_inner());
    let path = temporary.path().to_owned();
    let renamed = temporary.persist(target);
    registered.retain(|p| *p != path);
    drop(registered);
    renamed.with_context(|| {
        format!(
            "cannot rename the output into place as {}",
            display_path(target)
        )
    })?;
    // The rename itself is durable once the directory is synced.
    if let Ok(dir) = fs::File::open(directory) {
        let _ = dir.sync_all();
    }
    Ok(result)
}

/// Gives `file` the owner and group of `keep`, warning if that is not
/// allowed (only root may give a file away).
fn keep_owner(file: &fs::File, keep: &fs::Metadata, target: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{MetadataExt, fchown};
        let current = file.metadata().ok();
        let (uid, gid) = (keep.uid(), keep.gid());
        if current.is_some_and(|m| m.uid() == uid && m.gid() == gid) {
            return;
        }
        if let Err(e) = fchown(file, Some(uid), Some(gid)) {
            eprintln!(
                "fastpath: warning: {}: cannot keep its owner {uid} and group {gid} ({e})",
                display_path(target)
            );
        }
    }
    #[cfg(not(unix))]
    let _ = (file, keep, target);
}

/// Whether `fix` writes this layer's field.
fn wanted(layer: &Layer, only: ProtocolSet) -> bool {
    layer.report.status.needs_fix() && only.contains(layer.report.protocol)
}

/// The permissions of a new file under the usual umask (022): 0644.
fn new_file_permissions() -> fs::Permissions {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::Permissions::from_mode(0o644)
    }
    #[cfg(not(unix))]
    {
        let file = tempfile::tempfile().expect("a temporary file");
        file.metadata().expect("its metadata").permissions()
    }
}

/// Where to write: INPUT itself (through symbolic links) with
/// `--in-place`; otherwise OUT, which must not be INPUT. INPUT `-` is
/// standard input: no file to replace, or to compare OUT with.
fn destination(input: &Path, output: Option<&Path>, in_place: bool) -> Result<Destination> {
    if input == Path::new("-") {
        if in_place {
            bail!("--in-place needs a file: the input is standard input");
        }
        let Some(output) = output else {
            bail!("-o OUT is needed when the input is standard input");
        };
        return output_destination(output);
    }
    let canonical_input = input
        .canonicalize()
        .with_context(|| format!("{}: cannot open", display_path(input)))?;
    let in_place_file = || {
        let metadata = fs::metadata(&canonical_input)
            .with_context(|| format!("{}: cannot open", display_path(input)))?;
        if !metadata.is_file() {
            bail!("--in-place: {} is not a regular file", display_path(input));
        }
        Ok(Destination::File(canonical_input.clone(), Some(metadata)))
    };
    let Some(output) = output else {
        return in_place_file();
    };
    // OUT is INPUT (a hard link, a symbolic link, another spelling)?
    let same = output != Path::new("-") && same_file(&canonical_input, output).unwrap_or(false);
    match (same, in_place) {
        (true, true) => in_place_file(),
        (true, false) => bail!(
            "{} is the input file: give --in-place to replace it",
            display_path(output)
        ),
        (false, true) => bail!(
            "--in-place replaces {}, and -o names another file ({})",
            display_path(input),
            display_path(output)
        ),
        (false, false) => output_destination(output),
    }
}

/// Where OUT, which is not the input, is written: standard output, a FIFO
/// or character device, or a regular file, existing or not; anything else
/// is refused.
fn output_destination(output: &Path) -> Result<Destination> {
    if output == Path::new("-") {
        return Ok(Destination::Stdout);
    }
    let metadata = match fs::symlink_metadata(output) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(e).with_context(|| display_path(output)),
        Ok(_) => Some(fs::metadata(output).with_context(|| {
            format!(
                "{}: a symbolic link that cannot be followed: not replaced",
                display_path(output)
            )
        })?),
    };
    let Some(metadata) = metadata else {
        return Ok(Destination::File(output.to_owned(), None));
    };
    if metadata.is_file() {
        let path = output
            .canonicalize()
            .with_context(|| display_path(output))?;
        return Ok(Destination::File(path, Some(metadata)));
    }
    if is_stream(&metadata) {
        return Ok(Destination::Stream(output.to_owned()));
    }
    bail!(
        "{} is not a regular file, a FIFO or a character device: not replaced",
        display_path(output)
    )
}

/// Whether `metadata` is of a FIFO or a character device, written directly.
fn is_stream(metadata: &fs::Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let kind = metadata.file_type();
        kind.is_fifo() || kind.is_char_device()
    }
    #[cfg(not(unix))]
    {
        let _ = metadata;
        false
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
        display_path(target),
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
