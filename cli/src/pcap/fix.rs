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
//! any error, or SIGINT, SIGTERM or SIGHUP (exit status 128 + the
//! signal's number: 130, 143, 129), the output and the input are as they
//! were and the temporary file is gone. A file replaced keeps its mode
//! and owner: where the owner cannot be kept (only root gives a file away),
//! it is not replaced, unless `--allow-new-owner` says so. A new file takes
//! the input's permission bits less the umask, as `cp` does, never setuid,
//! setgid or sticky. Standard output (`-o -`), FIFOs and character devices
//! are written directly, streamed; other kinds of file (directories,
//! sockets, block devices, symbolic links that lead nowhere) are refused,
//! never replaced.
//!
//! With `--in-place`, a capture that needs no fix is left as it is (same
//! inode, same times), and one that changed while it was read (a capture
//! still being written) is not replaced.
//!
//! A capture cut short (a partial last record, as a killed writer leaves)
//! or with a record that cannot be read is fixed up to that record; from
//! there to its end, its bytes are copied as they are, so that the output
//! has every byte of the input. The error is reported, and the exit status
//! is 3.
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

use super::inspect::{Inspector, Kind};
use super::layers::{self, Layer};
use super::link::{self, Network};
use super::output::display_path;
use super::parallel;
use super::progress::Progress;
use super::read::{Access, Block, Capture};

/// The exit statuses of fix.
const EXIT_HELP: &str = "\
Exit status: 0 if every input was fixed; 2 on an error, with nothing
replaced; 3 if an input was cut short or had a record that could not be
read (the records before it fixed, every byte from there on copied as it
is). With several inputs, the worst of them: 2 if one could not be fixed
(its output not replaced, the others written), else 3 if one was cut short.";

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
    /// Refused if it is INPUT, unless --in-place is given. A directory (an
    /// existing one, or any name ending in `/`): each input is written
    /// there under its file name (two inputs of the same name, or an input
    /// there, are refused); with several inputs, -o must be one. An input
    /// that cannot be fixed is reported, and the others are written.
    #[arg(short, long, value_name = "OUT", required_unless_present = "in_place")]
    output: Option<PathBuf>,
    /// Replace INPUT with the fixed capture, keeping its mode and owner. The
    /// new file takes INPUT's name: other hard links to INPUT keep the old
    /// contents. A capture with nothing to fix is left as it is; one that
    /// changed while it was fixed (still being written) is not replaced.
    /// With several inputs, each is replaced (no -o).
    #[arg(long)]
    in_place: bool,
    /// Replace a file whose owner cannot be kept (one owned by another
    /// user, when not run as root): the new file is then owned by whoever
    /// runs fix. Without it, such a file is not replaced.
    #[arg(long)]
    allow_new_owner: bool,
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
    /// Whether any byte written differs from the input's.
    pub changed: bool,
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
        changes.changed |= self.copy != block.raw;
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
    #[cfg(unix)]
    umask();
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
    let destinations: Vec<Mutex<Option<Result<Destination>>>> = destinations
        .into_iter()
        .map(|d| Mutex::new(Some(d)))
        .collect();
    let work = |i: usize, job: &parallel::Job<'_, Fixed>| {
        let taken = destinations[i]
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        let Some(destination) = taken else { return };
        job.send(destination.and_then(|destination| {
            fix(
                &args.inputs[i],
                destination,
                only,
                args.allow_new_owner,
                false,
            )
        }));
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
                // The outputs are files, but a line that could not be
                // written is output lost all the same.
                if let Err(e) = writeln!(io::stdout().lock(), "{line}") {
                    report_write_error(&e);
                    worst = 2;
                }
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
    format!("fastpath: error: {cut:#}")
}

/// Runs `fix` on a single input: its exit status.
fn run_one(args: &Args, input: &Path) -> ExitCode {
    // `-o DIR/` or an existing directory: the output goes into it.
    let output = match args.output.as_deref() {
        Some(dir) if is_directory(dir) => match input.file_name() {
            Some(name) if input != Path::new("-") => Some(dir.join(name)),
            _ => {
                eprintln!(
                    "fastpath: error: {}: standard input has no file name to write it under in \
                     a directory: give -o FILE",
                    display_path(dir)
                );
                return ExitCode::from(2);
            }
        },
        output => output.map(Path::to_owned),
    };
    let destination = destination(input, output.as_deref(), args.in_place);
    // Whatever its name (`-`, /dev/stdout, /proc/self/fd/1), the capture
    // alone goes to standard output: the line goes to standard error then.
    let to_stdout = match &destination {
        Ok(Destination::Stdout) => true,
        Ok(Destination::Stream(path) | Destination::File(path, _)) => is_stdout(path),
        Err(_) => false,
    };
    if to_stdout && crate::stdout_closed() {
        eprintln!("fastpath: error: standard output is closed: the capture cannot be written");
        return ExitCode::from(2);
    }
    let fixed = destination
        .and_then(|destination| fix(input, destination, only(args), args.allow_new_owner, true));
    let (line, cut) = match fixed {
        Ok(fixed) => fixed,
        Err(e) => {
            eprintln!("fastpath: error: {e:#}");
            return ExitCode::from(2);
        }
    };
    let printed = if to_stdout {
        writeln!(io::stderr(), "{line}")
    } else {
        writeln!(io::stdout(), "{line}").and_then(|()| io::stdout().flush())
    };
    if let Err(e) = printed {
        report_write_error(&e);
        return ExitCode::from(2);
    }
    match cut {
        None => ExitCode::SUCCESS,
        Some(cut) => {
            eprintln!("{}", cut_message(&cut));
            ExitCode::from(CUT_SHORT)
        }
    }
}

/// Whether `-o` names a directory: it ends in a slash, or is one.
fn is_directory(output: &Path) -> bool {
    output != Path::new("-")
        && (output.as_os_str().to_string_lossy().ends_with('/')
            || fs::metadata(output).is_ok_and(|m| m.is_dir()))
}

/// Says that the summary line could not be written.
fn report_write_error(e: &io::Error) {
    eprintln!("fastpath: error: writing standard output: {e}");
}

/// Whether `path` is the file that standard output is open on.
fn is_stdout(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        let Ok(fd) = io::stdout().as_fd().try_clone_to_owned() else {
            return false;
        };
        let stdout = fs::File::from(fd).metadata();
        match (stdout, fs::metadata(path)) {
            (Ok(stdout), Ok(path)) => same_inode(&stdout, &path),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        false
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
    allow_new_owner: bool,
    progress: bool,
) -> Result<(String, Option<anyhow::Error>)> {
    let name = display_path(input);
    // Taken before the capture is read: a file replaced in place must be
    // the same then and at the rename.
    let input_metadata = if input == Path::new("-") {
        None
    } else {
        Some(fs::metadata(input).with_context(|| name.clone())?)
    };
    let mut capture = Capture::open_arg(input, Access::Read).with_context(|| name.clone())?;
    let new_mode = new_file_permissions(input_metadata.as_ref());
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
            // In place: the output is the input file itself.
            let in_place = existing
                .as_ref()
                .zip(input_metadata.as_ref())
                .is_some_and(|(a, b)| same_inode(a, b));
            let replace = Replace {
                new_mode,
                existing: existing.as_ref(),
                allow_new_owner,
                input: in_place.then_some(input_metadata.as_ref()).flatten(),
            };
            let (cut, replaced) = replace.run(&path, |out| {
                let shown = display_path(&path);
                let cut = copy(&mut capture, &name, &mut fixer, out, &shown, progress)?;
                Ok((cut, fixer.changes().changed))
            })?;
            let mut line = summary(&name, &path, fixer.changes());
            if !replaced {
                line += "; nothing to change: left as it is";
            }
            return Ok((line, cut));
        }
    };
    Ok((summary(&name, &shown, fixer.changes()), cut))
}

/// Where each of several inputs is written: each in place with
/// `--in-place`, else into the directory `-o` names under its file name.
/// Refused, before anything is written: standard input (no file name to
/// write it under), an input named twice, two inputs of the same file
/// name, an output that is an input, and `-o` that is no directory. An
/// input that cannot be fixed (missing, a directory) is an error of its
/// own, and the others are written.
fn destinations(args: &Args) -> Result<Vec<Result<Destination>>> {
    let inputs = &args.inputs;
    if let Some(stdin) = inputs.iter().find(|i| *i == Path::new("-")) {
        bail!(
            "{}: standard input is fixed alone (fix - -o OUT), not among several inputs",
            display_path(stdin)
        );
    }
    // The inputs that exist, as canonical paths, with their index.
    let mut canonical: Vec<(usize, PathBuf)> = Vec::with_capacity(inputs.len());
    for (i, input) in inputs.iter().enumerate() {
        let Ok(path) = input.canonicalize() else {
            continue;
        };
        if let Some((j, _)) = canonical
            .iter()
            .find(|(_, c)| same_file(c, &path).unwrap_or(*c == path))
        {
            bail!(
                "{} and {} are the same file: give it once",
                display_path(&inputs[*j]),
                display_path(input)
            );
        }
        canonical.push((i, path));
    }
    let Some(dir) = args.output.as_deref() else {
        return Ok(inputs
            .iter()
            .map(|input| destination(input, None, true))
            .collect());
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
        if let Some((j, _)) = canonical
            .iter()
            .find(|(_, c)| same_file(c, &output).unwrap_or(false))
        {
            bail!(
                "{} is the input file {}: not replaced (give --in-place, with no -o, to \
                 replace the inputs)",
                display_path(&output),
                display_path(&inputs[*j])
            );
        }
        destinations.push(destination(input, Some(&output), false));
    }
    Ok(destinations)
}

/// Copies every block of `capture` through `fixer` to `out` and flushes it,
/// with a progress bar if `progress`: `Some` read error if a block could
/// not be read, after the first block; the blocks before it are written
/// fixed, and every byte from it to the end of the input as it is.
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
                let rest = capture
                    .copy_rest(out)
                    .with_context(|| format!("copying the rest of {name} to {shown}"))?;
                cut = Some(anyhow::anyhow!(
                    "{name}: {e}: the records before it were fixed, and the {rest} bytes from \
                     there to the end copied as they are"
                ));
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
/// exits with 128 + the signal's number, as the shell reports a process
/// the signal ended. Installed once.
fn remove_temporary_on_signals() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        #[cfg(unix)]
        {
            use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
            // Without the handler a signal ends the process and leaves the
            // temporary file; nothing else changes.
            let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])
            else {
                return;
            };
            std::thread::spawn(move || {
                if let Some(signal) = signals.forever().next() {
                    // Held until the exit: no temporary file is registered,
                    // or renamed into place, after they are removed.
                    let mut paths = TEMPORARY.lock().unwrap_or_else(|e| e.into_inner());
                    for path in paths.drain(..) {
                        let _ = fs::remove_file(path);
                    }
                    std::process::exit(128 + signal);
                }
            });
        }
    });
}

/// How a regular file is replaced.
struct Replace<'a> {
    /// The permissions of a new file.
    new_mode: fs::Permissions,
    /// The file replaced, if there is one: its mode and owner are kept.
    existing: Option<&'a fs::Metadata>,
    /// Whether a file whose owner cannot be kept is replaced all the same.
    allow_new_owner: bool,
    /// In place, the input as it was before it was read: it is replaced
    /// only if it is still the same file, of the same size and time.
    input: Option<&'a fs::Metadata>,
}

impl Replace<'_> {
    /// Replaces the regular file `target` with what `write` writes, through
    /// a temporary file in its directory: with the owner and mode of the
    /// file it replaces (refused if the owner cannot be kept, unless
    /// allowed), or the new file's mode if there is none; synced, renamed
    /// into place, and the directory synced. `write` says whether what it
    /// wrote differs from the input: in place, a file that would not
    /// change, is not replaced. What `write` returned, and whether the file
    /// was replaced.
    fn run<T>(
        &self,
        target: &Path,
        write: impl FnOnce(&mut BufWriter<&fs::File>) -> Result<(T, bool)>,
    ) -> Result<(T, bool)> {
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
        let path = temporary.path().to_owned();
        let unregister = || {
            let mut registered = TEMPORARY.lock().unwrap_or_else(|e| e.into_inner());
            registered.retain(|p| *p != path);
        };
        let shown = || format!("writing {}", display_path(temporary.path()));
        let written = (|| {
            let mut out = BufWriter::with_capacity(1 << 20, temporary.as_file());
            let result = write(&mut out)?;
            out.flush().with_context(shown)?;
            Ok(result)
        })();
        let (result, changed) = match written {
            Ok(written) => written,
            Err(e) => {
                unregister();
                return Err(e);
            }
        };
        if self.input.is_some() && !changed {
            // The temporary file is removed as it is dropped.
            unregister();
            return Ok((result, false));
        }
        let file = temporary.as_file();
        let prepared = (|| {
            // The owner first: a change of owner clears setuid and setgid.
            if let Some(existing) = self.existing {
                keep_owner(file, existing, target, self.allow_new_owner)?;
            }
            let mode = self
                .existing
                .map_or(self.new_mode.clone(), |m| m.permissions());
            file.set_permissions(mode).with_context(shown)?;
            file.sync_all().with_context(shown)
        })();
        if let Err(e) = prepared {
            unregister();
            return Err(e);
        }
        // Held across the check and the rename: the handler then removes the
        // temporary file before them, or nothing after them.
        let mut registered = TEMPORARY.lock().unwrap_or_else(|e| e.into_inner());
        registered.retain(|p| *p != path);
        if let Some(before) = self.input {
            let now = fs::metadata(target).ok();
            if now.as_ref().is_none_or(|now| changed_since(before, now)) {
                drop(registered);
                bail!(
                    "{}: changed while it was being fixed (a capture still being written?): \
                     left as it is",
                    display_path(target)
                );
            }
        }
        let renamed = temporary.persist(target);
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
        Ok((result, true))
    }
}

/// Gives `file` the owner and group of `keep`, the file it replaces: an
/// error if that is not allowed (only root may give a file away), unless
/// `allow_new_owner`, when a warning says so.
fn keep_owner(
    file: &fs::File,
    keep: &fs::Metadata,
    target: &Path,
    allow_new_owner: bool,
) -> Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{MetadataExt, fchown};
        let current = file.metadata().ok();
        let (uid, gid) = (keep.uid(), keep.gid());
        if current.is_some_and(|m| m.uid() == uid && m.gid() == gid) {
            return Ok(());
        }
        if let Err(e) = fchown(file, Some(uid), Some(gid)) {
            let shown = display_path(target);
            if !allow_new_owner {
                bail!(
                    "{shown}: cannot keep its owner {uid} and group {gid} ({e}): not replaced \
                     (--allow-new-owner replaces it as a file of your own)"
                );
            }
            eprintln!(
                "fastpath: warning: {shown}: cannot keep its owner {uid} and group {gid} ({e}): \
                 replaced as a file of your own (--allow-new-owner)"
            );
        }
    }
    #[cfg(not(unix))]
    let _ = (file, keep, target, allow_new_owner);
    Ok(())
}

/// Whether the file `before` describes is not the one `now` describes, or
/// has changed since: another inode, size or modification time.
fn changed_since(before: &fs::Metadata, now: &fs::Metadata) -> bool {
    !same_inode(before, now)
        || before.len() != now.len()
        || before.modified().ok() != now.modified().ok()
}

/// Whether two files' metadata are of the same inode.
fn same_inode(a: &fs::Metadata, b: &fs::Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        a.dev() == b.dev() && a.ino() == b.ino()
    }
    #[cfg(not(unix))]
    {
        let _ = (a, b);
        false
    }
}

/// Whether `fix` writes this layer's field.
fn wanted(layer: &Layer, only: ProtocolSet) -> bool {
    layer.report.status.needs_fix() && only.contains(layer.report.protocol)
}

/// The permissions of a new output, as `cp` gives a copy of `input`: its
/// permission bits (0666 for standard input) less the umask, never
/// setuid, setgid or sticky.
fn new_file_permissions(input: Option<&fs::Metadata>) -> fs::Permissions {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let bits = input.map_or(0o666, |m| m.permissions().mode() & 0o777);
        fs::Permissions::from_mode(bits & !umask())
    }
    #[cfg(not(unix))]
    {
        match input {
            Some(m) => m.permissions(),
            None => {
                let file = tempfile::tempfile().expect("a temporary file");
                file.metadata().expect("its metadata").permissions()
            }
        }
    }
}

/// The process's umask, read once. `umask(2)` reads it only by setting
/// it: the first call, from [`run`] before any thread starts, puts it back
/// at once.
#[cfg(unix)]
fn umask() -> u32 {
    static UMASK: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    *UMASK.get_or_init(|| {
        // SAFETY: umask has no preconditions; it is set back to the value
        // it returns at once.
        let mask = unsafe { libc::umask(0o022) };
        // SAFETY: as above.
        unsafe { libc::umask(mask) };
        // mode_t is u32 on Linux, u16 elsewhere.
        #[allow(clippy::useless_conversion)]
        let mask = u32::from(mask);
        mask & 0o777
    })
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
