//! Several files in one `fastpath pcap verify` or `fix`, one per thread:
//! the output is what running each file alone prints, in argument order,
//! and what one thread prints (the run pinned to one core); the exit
//! statuses combined; `fix` into a directory writes what fixing each input
//! alone writes, and refuses what it cannot write.

mod capture;

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use capture::*;

fn payload(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 7 + 3) as u8).collect()
}

/// A capture of `n` frames, every `bad`th with a wrong TCP checksum (none
/// if 0), and a UDP datagram with no checksum now and then.
fn capture_of(format: Format, n: usize, bad: usize) -> Vec<u8> {
    let frames: Vec<Frame> = (0..n)
        .map(|i| {
            let tcp = ipv4(6, &tcp(&A4, &payload(40 + i % 200)));
            match i {
                _ if bad > 0 && i % bad == 1 => frame(1, eth(&spoil(tcp, 36))),
                _ if i % 7 == 3 => frame(1, eth(&ipv6(17, &udp(&A6, &payload(i % 90))))),
                _ if i % 11 == 5 => frame(1, eth(&set16(ipv4(17, &udp(&A4, b"none")), 26, 0))),
                _ => frame(1, eth(&tcp)),
            }
        })
        .collect();
    write(format, &frames)
}

const PCAP: Format = Format::Pcap {
    nanosecond: false,
    big_endian: false,
};
const PCAPNG: Format = Format::PcapNg { big_endian: false };

/// Runs fastpath with `args`, `input` (if any) on its standard input, and
/// pinned to one core if `one_core` (then it reads its files one after
/// another, on one thread).
fn run(args: &[impl AsRef<std::ffi::OsStr>], input: Option<Vec<u8>>, one_core: bool) -> Output {
    let mut command = Command::new(FASTPATH);
    command
        .args(args)
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if one_core {
        pin_to_one_core(&mut command);
    }
    let mut child = command.spawn().expect("run fastpath");
    let writer = input.map(|input| {
        let mut stdin = child.stdin.take().unwrap();
        // fastpath may stop reading early: a broken pipe.
        thread::spawn(move || {
            let _ = stdin.write_all(&input);
        })
    });
    let out = child.wait_with_output().unwrap();
    if let Some(writer) = writer {
        writer.join().unwrap();
    }
    out
}

/// Has the command run on the first core the test may use only:
/// `available_parallelism` is then 1.
#[cfg(target_os = "linux")]
fn pin_to_one_core(command: &mut Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: an all-zero cpu_set_t is a valid, empty set, and
    // sched_getaffinity writes at most its size into it.
    let mut allowed: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: `allowed` is a cpu_set_t of the size given.
    let got = unsafe { libc::sched_getaffinity(0, size_of::<libc::cpu_set_t>(), &mut allowed) };
    assert_eq!(got, 0, "sched_getaffinity");
    // SAFETY: CPU_ISSET reads a bit of the set, below CPU_SETSIZE.
    let first = (0..libc::CPU_SETSIZE as usize)
        .find(|&cpu| unsafe { libc::CPU_ISSET(cpu, &allowed) })
        .expect("a core");
    // SAFETY: as above; CPU_SET sets a bit below CPU_SETSIZE.
    let mut one: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: `first` is below CPU_SETSIZE.
    unsafe { libc::CPU_SET(first, &mut one) };
    // SAFETY: the closure runs in the child between fork and exec, and
    // only calls sched_setaffinity, which is async-signal-safe.
    unsafe {
        command.pre_exec(move || {
            if libc::sched_setaffinity(0, size_of::<libc::cpu_set_t>(), &one) == 0 {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        });
    }
}

/// Elsewhere the single-thread run is not checked against.
#[cfg(not(target_os = "linux"))]
fn pin_to_one_core(_: &mut Command) {}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The files of a verify run: a big one first (its JSON lines are many
/// times what the channel between threads holds), small ones after, bad,
/// good, cut short, not a capture, missing.
fn verify_files(dir: &Path) -> Vec<PathBuf> {
    let big = dir.join("big.pcap");
    fs::write(&big, capture_of(PCAP, 30_000, 97)).unwrap();
    let bad = dir.join("bad.pcapng");
    fs::write(&bad, capture_of(PCAPNG, 20, 3)).unwrap();
    let good = dir.join("good.pcap");
    fs::write(&good, capture_of(PCAP, 50, 0)).unwrap();
    let cut = dir.join("cut.pcap");
    let whole = capture_of(PCAP, 40, 0);
    fs::write(&cut, &whole[..whole.len() - 30]).unwrap();
    let not = dir.join("not-a-capture.txt");
    fs::write(&not, b"hello, this is text\n").unwrap();
    let medium = dir.join("medium.pcapng");
    fs::write(&medium, capture_of(PCAPNG, 3_000, 0)).unwrap();
    vec![big, bad, good, cut, not, dir.join("missing.pcap"), medium]
}

/// The exit status of `out`.
fn code(out: &Output) -> i32 {
    out.status.code().expect("an exit status")
}

/// `pcap verify`, `options`, then `files`.
fn verify_args(options: &[&str], files: &[&str]) -> Vec<String> {
    let mut args = vec!["pcap".to_owned(), "verify".to_owned()];
    args.extend(options.iter().map(|o| o.to_string()));
    args.extend(files.iter().map(|f| f.to_string()));
    args
}

/// Checks that verifying `files` with `options` prints what verifying each
/// alone prints, in order, then the total; exactly what one thread prints;
/// and exits with the statuses of the files combined.
fn check_verify(options: &[&str], files: &[PathBuf]) {
    let names: Vec<&str> = files.iter().map(|f| path(f)).collect();
    let args = |files: &[&str]| verify_args(options, files);
    let all = run(&args(&names), None, false);
    let serial = run(&args(&names), None, true);
    assert_eq!(text(&all.stdout), text(&serial.stdout), "{options:?}");
    assert_eq!(text(&all.stderr), text(&serial.stderr), "{options:?}");
    assert_eq!(code(&all), code(&serial), "{options:?}");
    let (mut stdout, mut stderr, mut status) = (Vec::new(), Vec::new(), 0);
    for name in &names {
        let alone = run(&args(&[name]), None, false);
        status |= code(&alone);
        stdout.extend(alone.stdout);
        stderr.extend(alone.stderr);
    }
    assert_eq!(code(&all), status, "{options:?}");
    assert_eq!(text(&all.stderr), text(&stderr), "{options:?}");
    let printed = text(&all.stdout);
    let each = text(&stdout);
    assert!(printed.starts_with(&each), "{options:?}");
    let total = &printed[each.len()..];
    let json = options.contains(&"--json");
    if json {
        assert_eq!(total, "", "{options:?}");
    } else if options.contains(&"--json-summary") {
        assert!(total.starts_with("{\"total\": {\"files\": 7, \"unreadable\": 3, "));
        assert_eq!(total.lines().count(), 1, "{total}");
    } else {
        assert!(total.starts_with("total: 7 files"), "{total}");
    }
}

#[test]
fn several_files_print_what_each_prints_alone_in_order() {
    let dir = temp_dir("parallel-verify");
    let files = verify_files(&dir);
    for options in [
        &[][..],
        &["--json"][..],
        &["--json-summary"][..],
        &["--strict"][..],
        &["--json-summary", "--strict"][..],
    ] {
        check_verify(options, &files);
    }
    // The big file last, and first again after the small ones.
    let mut reordered = files.clone();
    reordered.rotate_left(1);
    check_verify(&["--json-summary"], &reordered);
    fs::remove_dir_all(dir).unwrap();
}

#[test]
fn exit_statuses_are_combined() {
    let dir = temp_dir("parallel-status");
    let files = verify_files(&dir);
    let [big, bad, good, cut, ..] = &files[..] else {
        unreachable!()
    };
    for (list, expected) in [
        (vec![good, good], 0),
        (vec![good, bad], 1),
        (vec![cut, good], 2),
        (vec![good, cut, big], 3),
        (vec![bad, good, cut], 3),
    ] {
        let mut args = vec!["pcap", "verify"];
        args.extend(list.iter().map(|f| path(f)));
        let out = run(&args, None, false);
        assert_eq!(code(&out), expected, "{list:?}");
    }
    fs::remove_dir_all(dir).unwrap();
}

#[test]
fn standard_input_among_files_is_read_once_in_its_turn() {
    let dir = temp_dir("parallel-stdin");
    let files = verify_files(&dir);
    let input = capture_of(PCAPNG, 5_000, 13);
    let big = path(&files[0]);
    let bad = path(&files[1]);
    for args in [
        vec!["pcap", "verify", "--json-summary", big, "-", bad],
        vec!["pcap", "verify", "-", big],
        vec!["pcap", "verify", "--json", bad, "-", big, "-"],
        vec!["pcap", "verify", "-", "-", bad],
    ] {
        let all = run(&args, Some(input.clone()), false);
        let serial = run(&args, Some(input.clone()), true);
        assert_eq!(text(&all.stdout), text(&serial.stdout), "{args:?}");
        assert_eq!(text(&all.stderr), text(&serial.stderr), "{args:?}");
        assert_eq!(code(&all), code(&serial), "{args:?}");
        assert!(text(&all.stdout).contains("\"-\"") || !args.contains(&"--json"));
    }
    // A capture cut short on standard input: the second `-` reads what the
    // first left, as one thread does.
    let mut cut = capture_of(PCAP, 100, 0);
    cut.truncate(cut.len() - 10);
    cut.extend(capture_of(PCAP, 10, 0));
    let args = ["pcap", "verify", "--json-summary", "-", bad, "-"];
    let all = run(&args, Some(cut.clone()), false);
    let serial = run(&args, Some(cut), true);
    assert_eq!(text(&all.stdout), text(&serial.stdout));
    assert_eq!(text(&all.stderr), text(&serial.stderr));
    assert_eq!(code(&all), code(&serial));
    fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_reader_that_goes_away_ends_the_run_with_the_error_bit() {
    let dir = temp_dir("parallel-pipe");
    let files = verify_files(&dir);
    let big = path(&files[0]);
    let mut child = Command::new(FASTPATH)
        .args(["pcap", "verify", "--json", big, big, big])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0; 100];
    stdout.read_exact(&mut first).unwrap();
    drop(stdout);
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(start.elapsed() < Duration::from_secs(60), "no exit");
        thread::sleep(Duration::from_millis(10));
    };
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    // Nothing was reported of the first file when its output failed, but
    // the output was not all delivered: the error bit, quietly.
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert_eq!(stderr, "");
    fs::remove_dir_all(dir).unwrap();
}

/// Inputs for fix in two directories: a big one, two small ones (pcap,
/// pcapng), one cut short.
fn fix_inputs(dir: &Path) -> Vec<PathBuf> {
    let a = dir.join("a");
    let b = dir.join("b");
    fs::create_dir_all(&a).unwrap();
    fs::create_dir_all(&b).unwrap();
    let big = a.join("big.pcap");
    fs::write(&big, capture_of(PCAP, 20_000, 5)).unwrap();
    let small = b.join("small.pcapng");
    fs::write(&small, capture_of(PCAPNG, 30, 4)).unwrap();
    let good = a.join("good.pcap");
    fs::write(&good, capture_of(PCAP, 30, 0)).unwrap();
    let cut = b.join("cut.pcap");
    let whole = capture_of(PCAP, 40, 3);
    fs::write(&cut, &whole[..whole.len() - 30]).unwrap();
    vec![big, small, good, cut]
}

/// The files of `dir` and their bytes, by name.
fn contents(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let name = e.file_name().to_string_lossy().into_owned();
            (name, fs::read(e.path()).unwrap_or_default())
        })
        .collect();
    files.sort();
    files
}

#[test]
fn fix_of_several_inputs_into_a_directory_writes_what_each_alone_writes() {
    let dir = temp_dir("parallel-fix");
    let inputs = fix_inputs(&dir);
    let out = dir.join("out");
    fs::create_dir(&out).unwrap();
    // Each alone, into the same directory: the lines and files expected.
    let (mut stdout, mut stderr, mut expected) = (Vec::new(), Vec::new(), Vec::new());
    for input in &inputs {
        let name = input.file_name().unwrap();
        let target = out.join(name);
        let alone = run(
            &["pcap", "fix", path(input), "-o", path(&target)],
            None,
            false,
        );
        let cut = name == "cut.pcap";
        assert_eq!(code(&alone), if cut { 3 } else { 0 }, "{input:?}");
        stdout.extend(alone.stdout);
        stderr.extend(alone.stderr);
        expected.push((
            name.to_string_lossy().into_owned(),
            fs::read(&target).unwrap(),
        ));
    }
    expected.sort();
    let alone_files = contents(&out);
    assert_eq!(alone_files, expected);
    for (_, bytes) in &alone_files {
        assert!(!bytes.is_empty());
    }
    fs::remove_dir_all(&out).unwrap();
    fs::create_dir(&out).unwrap();
    let mut args = vec!["pcap", "fix"];
    args.extend(inputs.iter().map(|i| path(i)));
    args.extend(["-o", path(&out)]);
    let all = run(&args, None, false);
    assert_eq!(text(&all.stdout), text(&stdout));
    assert_eq!(text(&all.stderr), text(&stderr));
    assert_eq!(code(&all), 3);
    assert_eq!(contents(&out), expected);
    // Pinned to one core: the same.
    fs::remove_dir_all(&out).unwrap();
    fs::create_dir(&out).unwrap();
    let serial = run(&args, None, true);
    assert_eq!(text(&serial.stdout), text(&stdout));
    assert_eq!(text(&serial.stderr), text(&stderr));
    assert_eq!(code(&serial), 3);
    assert_eq!(contents(&out), expected);

    // An input that is not a capture: 2, its output not written, the
    // others written.
    fs::remove_dir_all(&out).unwrap();
    fs::create_dir(&out).unwrap();
    let text_file = dir.join("a").join("notes.txt");
    fs::write(&text_file, b"no capture here\n").unwrap();
    let good = &inputs[2];
    let small = &inputs[1];
    let failed = run(
        &[
            "pcap",
            "fix",
            path(good),
            path(&text_file),
            path(small),
            "-o",
            path(&out),
        ],
        None,
        false,
    );
    assert_eq!(code(&failed), 2, "{}", text(&failed.stderr));
    let lines = text(&failed.stdout);
    let lines: Vec<&str> = lines.lines().collect();
    assert_eq!(lines.len(), 2);
    assert!(lines[0].starts_with(path(good)), "{lines:?}");
    assert!(lines[1].starts_with(path(small)), "{lines:?}");
    assert!(text(&failed.stderr).contains("notes.txt"));
    let written: Vec<String> = contents(&out).into_iter().map(|(n, _)| n).collect();
    assert_eq!(written, ["good.pcap", "small.pcapng"]);
    // The cut one and the unreadable one: 2 is the worst.
    let worst = run(
        &[
            "pcap",
            "fix",
            path(&inputs[3]),
            path(&text_file),
            "-o",
            path(&out),
        ],
        None,
        false,
    );
    assert_eq!(code(&worst), 2);
    fs::remove_dir_all(dir).unwrap();
}

#[test]
fn fix_in_place_of_several_inputs_fixes_each() {
    let dir = temp_dir("parallel-in-place");
    let inputs = fix_inputs(&dir);
    let mut expected = Vec::new();
    for input in &inputs {
        let target = dir.join("expected");
        let alone = run(
            &["pcap", "fix", path(input), "-o", path(&target)],
            None,
            false,
        );
        assert!(matches!(code(&alone), 0 | 3));
        expected.push(fs::read(&target).unwrap());
    }
    let mut args = vec!["pcap", "fix", "--in-place"];
    args.extend(inputs.iter().map(|i| path(i)));
    let all = run(&args, None, false);
    assert_eq!(code(&all), 3, "{}", text(&all.stderr));
    for (input, expected) in inputs.iter().zip(&expected) {
        assert_eq!(&fs::read(input).unwrap(), expected, "{input:?}");
    }
    fs::remove_dir_all(dir).unwrap();
}

#[test]
fn fix_of_several_inputs_refuses_what_it_cannot_write() {
    let dir = temp_dir("parallel-refuse");
    let inputs = fix_inputs(&dir);
    let a = dir.join("a");
    let b = dir.join("b");
    let big = path(&inputs[0]);
    let small = path(&inputs[1]);
    let a_file = fs::read(&inputs[0]).unwrap();
    let plain = dir.join("plain-file");
    fs::write(&plain, b"x").unwrap();
    let twin = b.join("big.pcap");
    fs::write(&twin, capture_of(PCAP, 10, 2)).unwrap();
    let before_a = contents(&a);
    let before_b = contents(&b);
    let missing = dir.join("missing");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec![big, small, "-o", path(&missing)],
            "is not an existing directory",
        ),
        (
            vec![big, small, "-o", path(&plain)],
            "is not an existing directory",
        ),
        (vec![big, small, "-o", "-"], "standard output"),
        (
            vec![big, path(&twin), "-o", path(&dir)],
            "the same file name",
        ),
        (vec![big, small, "-o", path(&a)], "is the input file"),
        (vec![big, "-", "-o", path(&dir)], "standard input"),
        (
            vec![big, small, "--in-place", "-o", path(&dir)],
            "--in-place",
        ),
        (vec![big, big, "-o", path(&dir)], "same file"),
        (vec![big, big, "--in-place"], "same file"),
    ];
    for (list, message) in cases {
        let mut args = vec!["pcap", "fix"];
        args.extend(list.iter());
        let out = run(&args, None, false);
        let stderr = text(&out.stderr);
        assert_eq!(code(&out), 2, "{list:?}: {stderr}");
        assert!(stderr.starts_with("fastpath: error: "), "{stderr}");
        assert!(stderr.contains(message), "{list:?}: {stderr}");
        assert_eq!(text(&out.stdout), "", "{list:?}");
        assert_eq!(contents(&a), before_a, "{list:?}");
        assert_eq!(contents(&b), before_b, "{list:?}");
        assert!(!dir.join("big.pcap").exists(), "{list:?}");
        assert!(!dir.join("small.pcapng").exists(), "{list:?}");
    }
    assert_eq!(fs::read(&inputs[0]).unwrap(), a_file);
    // With one input too, a directory is where the output goes.
    let out = run(&["pcap", "fix", big, "-o", path(&dir)], None, false);
    assert_eq!(code(&out), 0, "{}", text(&out.stderr));
    assert!(fs::metadata(&dir).unwrap().is_dir());
    assert!(dir.join("big.pcap").is_file());
    fs::remove_dir_all(dir).unwrap();
}

#[cfg(unix)]
#[test]
fn a_signal_leaves_no_temporary_file_of_any_input() {
    // Two FIFOs held open after 1.5 MB of records each: both inputs are
    // being fixed, each into its temporary file, when the signal comes.
    if thread::available_parallelism().map_or(1, |n| n.get()) < 2 {
        return;
    }
    let dir = temp_dir("parallel-signal");
    let out = dir.join("out");
    fs::create_dir(&out).unwrap();
    let record = frame(1, eth(&spoil(ipv4(6, &tcp(&A4, &[7; 1400])), 36)));
    let bad = capture::pcap(false, false, &vec![record; 1000]);
    let fifos = [dir.join("one.pcap"), dir.join("two.pcap")];
    for fifo in &fifos {
        let status = Command::new("mkfifo").arg(fifo).status().unwrap();
        assert!(status.success());
    }
    let temporaries = || {
        fs::read_dir(&out)
            .unwrap()
            .filter(|e| {
                let name = e.as_ref().unwrap().file_name();
                name.to_string_lossy().contains("fastpath-fix")
            })
            .count()
    };
    let mut child = Command::new(FASTPATH)
        .args([
            "pcap",
            "fix",
            path(&fifos[0]),
            path(&fifos[1]),
            "-o",
            path(&out),
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut writers = Vec::new();
    for fifo in &fifos {
        let mut writer = fs::OpenOptions::new().write(true).open(fifo).unwrap();
        writer.write_all(&bad).unwrap();
        writer.flush().unwrap();
        writers.push(writer);
    }
    let start = Instant::now();
    while temporaries() < 2 {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "no temporary files"
        );
        thread::sleep(Duration::from_millis(10));
    }
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let status = child.wait().unwrap();
    drop(writers);
    // 128 + SIGTERM's 15.
    assert_eq!(status.code(), Some(143));
    assert_eq!(temporaries(), 0);
    assert_eq!(fs::read_dir(&out).unwrap().count(), 0);
    fs::remove_dir_all(dir).unwrap();
}
