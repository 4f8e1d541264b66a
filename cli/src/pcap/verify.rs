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
//! has no line at all is counted by reason too
//! ([`Gap`](super::inspect::Gap)): frames of link types not decoded,
//! frames with no IP decoded (but those of protocols that carry no IP:
//! ARP, LLDP, LLC, ...), IP headers cut short or malformed, TSO and BIG
//! TCP packets (IPv4 total length 0, IPv6 payload length 0), lengths that
//! don't fit, tunnels deeper than
//! [`MAX_DEPTH`](super::layers::MAX_DEPTH), upper layers whose checksum is
//! not verified here (SCTP, IGMP, ESP, ...). With `--strict`, any of them
//! makes the exit status 1, as a bad checksum does.

use std::io::{self, BufWriter, Write};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Receiver;

use super::inspect::{Inspector, Kind, Tally};
use super::output;
use super::parallel;
use super::progress::Progress;
use super::read::{Access, Capture, Format, ReadError};

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
