//! Where `fastpath pcap fix` writes, and what it leaves: standard output,
//! FIFOs and devices streamed, never replaced; what it cannot replace
//! refused; a replaced file's mode and owner kept; the complete records of
//! a capture cut short fixed and the rest copied, with their own exit
//! status; no temporary file left behind by a signal.

mod capture;

use std::fs;
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use capture::*;

fn bad_and_good() -> (Vec<u8>, Vec<u8>) {
    let (input, fixed) = one_bad_of_three();
    (
        capture::pcap(false, false, &input),
        capture::pcap(false, false, &fixed),
    )
}

/// The names in `dir` of temporary files of fix.
fn temporaries(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("fastpath-fix"))
        .collect()
}

#[cfg(unix)]
fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(status.success());
}

#[test]
fn fix_writes_standard_output_and_nothing_else_there() {
    let dir = temp_dir("stdout");
    let (bad, good) = bad_and_good();
    let input = dir.join("in.pcap");
    fs::write(&input, &bad).unwrap();
    let out = fastpath(&["pcap", "fix", path(&input), "-o", "-"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(out.stdout, good);
    // The summary goes to standard error.
    assert!(
        stderr(&out).contains("fixed 1 checksums"),
        "{}",
        stderr(&out)
    );
    // As when written to a file.
    let file = dir.join("out.pcap");
    let out = fastpath(&["pcap", "fix", path(&input), "-o", path(&file)]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(fs::read(&file).unwrap(), good);
    assert!(temporaries(&dir).is_empty());
    fs::remove_dir_all(dir).unwrap();
}

#[cfg(unix)]
#[test]
fn fix_streams_to_fifos_and_devices_and_never_replaces_them() {
    use std::os::unix::fs::FileTypeExt;

    let dir = temp_dir("streams");
    let (bad, good) = bad_and_good();
    let input = dir.join("in.pcap");
    fs::write(&input, &bad).unwrap();

    // A character device: /dev/null stays /dev/null.
    let null = Path::new("/dev/null");
    if fs::metadata(null).is_ok_and(|m| m.file_type().is_char_device()) {
        let out = fastpath(&["pcap", "fix", path(&input), "-o", "/dev/null"]);
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(fs::metadata(null).unwrap().file_type().is_char_device());
        assert!(temporaries(Path::new("/dev")).is_empty());
    }

    // A FIFO, read by another thread.
    let fifo = dir.join("fifo");
    mkfifo(&fifo);
    let reader = {
        let fifo = fifo.clone();
        thread::spawn(move || {
            let mut bytes = Vec::new();
            fs::File::open(fifo)
                .unwrap()
                .read_to_end(&mut bytes)
                .unwrap();
            bytes
        })
    };
    let out = fastpath(&["pcap", "fix", path(&input), "-o", path(&fifo)]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(reader.join().unwrap(), good);
    assert!(fs::metadata(&fifo).unwrap().file_type().is_fifo());

    // A link to this process's standard output, a pipe: a FIFO when
    // followed, written directly, and nothing else there.
    for name in ["/proc/self/fd/1", "/dev/stdout"] {
        if Path::new(name).exists() {
            let out = fastpath(&["pcap", "fix", path(&input), "-o", name]);
            assert!(out.status.success(), "{}", stderr(&out));
            assert_eq!(out.stdout, good, "{name}: {}", stderr(&out));
            assert!(stderr(&out).contains("fixed 1 checksums"), "{name}");
        }
    }
    assert!(temporaries(&dir).is_empty());
    fs::remove_dir_all(dir).unwrap();
}

#[cfg(unix)]
#[test]
fn fix_refuses_outputs_it_cannot_replace() {
    let dir = temp_dir("refuses");
    let (bad, _) = bad_and_good();
    let input = dir.join("in.pcap");
    fs::write(&input, &bad).unwrap();

    // A directory is never replaced: the output goes into it.
    let sub = dir.join("sub");
    fs::create_dir(&sub).unwrap();
    let out = fastpath(&["pcap", "fix", path(&input), "-o", path(&sub)]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(fs::metadata(&sub).unwrap().is_dir());
    assert!(sub.join("in.pcap").is_file());
    // A socket is refused.
    let socket = dir.join("socket");
    let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    let out = fastpath(&["pcap", "fix", path(&input), "-o", path(&socket)]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("not a regular file"),
        "{}",
        stderr(&out)
    );

    // A symbolic link that leads nowhere stays a link.
    let dangling = dir.join("dangling");
    std::os::unix::fs::symlink(dir.join("no such file"), &dangling).unwrap();
    let out = fastpath(&["pcap", "fix", path(&input), "-o", path(&dangling)]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("symbolic link"), "{}", stderr(&out));
    assert!(
        fs::symlink_metadata(&dangling)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(!dir.join("no such file").exists());

    // Standard output with --in-place.
    let out = fastpath(&["pcap", "fix", path(&input), "-o", "-", "--in-place"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(fs::read(&input).unwrap(), bad);
    assert!(temporaries(&dir).is_empty());
    fs::remove_dir_all(dir).unwrap();
}

#[cfg(unix)]
#[test]
fn fix_keeps_the_mode_and_owner_of_the_file_it_replaces() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};

    let dir = temp_dir("owner");
    let (bad, good) = bad_and_good();
    let input = dir.join("in.pcap");
    fs::write(&input, &bad).unwrap();
    fs::set_permissions(&input, fs::Permissions::from_mode(0o644)).unwrap();
    // Only root can give a file away: as root, to nobody (65534).
    let root = fs::metadata(&dir).unwrap().uid() == 0
        && std::os::unix::fs::chown(&input, Some(0), Some(0)).is_ok()
        && std::os::unix::fs::chown(&input, None, None).is_ok();

    let out_file = dir.join("out.pcap");
    fs::write(&out_file, b"old contents").unwrap();
    fs::set_permissions(&out_file, fs::Permissions::from_mode(0o600)).unwrap();
    if root {
        std::os::unix::fs::chown(&out_file, Some(65534), Some(65534)).unwrap();
    }
    let out = fastpath(&["pcap", "fix", path(&input), "-o", path(&out_file)]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(fs::read(&out_file).unwrap(), good);
    let meta = fs::metadata(&out_file).unwrap();
    assert_eq!(meta.mode() & 0o7777, 0o600);
    if root {
        assert_eq!((meta.uid(), meta.gid()), (65534, 65534));
    }

    // In place, the input's.
    fs::set_permissions(&input, fs::Permissions::from_mode(0o640)).unwrap();
    if root {
        std::os::unix::fs::chown(&input, Some(65534), Some(65534)).unwrap();
    }
    let out = fastpath(&["pcap", "fix", "--in-place", path(&input)]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(fs::read(&input).unwrap(), good);
    let meta = fs::metadata(&input).unwrap();
    assert_eq!(meta.mode() & 0o7777, 0o640);
    if root {
        assert_eq!((meta.uid(), meta.gid()), (65534, 65534));
    }

    // A new file takes the input's mode.
    let new = dir.join("new.pcap");
    let out = fastpath(&["pcap", "fix", path(&input), "-o", path(&new)]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(fs::metadata(&new).unwrap().mode() & 0o7777, 0o640);
    assert!(temporaries(&dir).is_empty());
    fs::remove_dir_all(dir).unwrap();
}

/// Where the blocks of a capture of `format` end (the file header, then
/// each record or block).
fn block_ends(format: Format, bytes: &[u8]) -> Vec<usize> {
    let u32_at = |at: usize, big_endian: bool| {
        let word: [u8; 4] = bytes[at..at + 4].try_into().unwrap();
        let value = if big_endian {
            u32::from_be_bytes(word)
        } else {
            u32::from_le_bytes(word)
        };
        value as usize
    };
    let (mut at, mut ends) = match format {
        Format::Pcap { .. } => (24, vec![24]),
        Format::PcapNg { .. } => (0, Vec::new()),
    };
    while at < bytes.len() {
        at += match format {
            Format::Pcap { big_endian, .. } => 16 + u32_at(at + 8, big_endian),
            Format::PcapNg { big_endian } => u32_at(at + 4, big_endian),
        };
        ends.push(at);
    }
    ends
}

#[test]
fn fix_writes_the_complete_records_of_a_capture_cut_short() {
    let dir = temp_dir("cut-short");
    let (input_frames, fixed_frames) = one_bad_of_three();
    for format in [
        Format::Pcap {
            nanosecond: false,
            big_endian: false,
        },
        Format::PcapNg { big_endian: true },
    ] {
        let whole = write(format, &input_frames);
        let fixed = write(format, &fixed_frames);
        assert_eq!(whole.len(), fixed.len());
        let ends = block_ends(format, &whole);
        // Cut inside every block after the first two, and one byte short.
        let mut cuts: Vec<usize> = ends[2..ends.len() - 1]
            .iter()
            .flat_map(|&end| [end + 1, end + 10])
            .filter(|&cut| cut < whole.len())
            .collect();
        cuts.push(whole.len() - 1);
        for cut in cuts {
            let complete = *ends.iter().filter(|&&end| end <= cut).max().unwrap();
            let input = dir.join("cut");
            fs::write(&input, &whole[..cut]).unwrap();
            let output = dir.join("out");
            let out = fastpath(&["pcap", "fix", path(&input), "-o", path(&output)]);
            assert_eq!(
                out.status.code(),
                Some(3),
                "{format:?} {cut}: {}",
                stderr(&out)
            );
            assert!(
                stderr(&out).contains("the records before it were fixed, and the"),
                "{}",
                stderr(&out)
            );
            // The complete records fixed, the partial one as it was.
            let expected = [&fixed[..complete], &whole[complete..cut]].concat();
            assert_eq!(
                fs::read(&output).unwrap(),
                expected,
                "{format:?} cut at {cut}"
            );
            // The same through standard output.
            let out = fastpath(&["pcap", "fix", path(&input), "-o", "-"]);
            assert_eq!(out.status.code(), Some(3));
            assert_eq!(out.stdout, expected);
        }
    }
    assert!(temporaries(&dir).is_empty());
    fs::remove_dir_all(dir).unwrap();
}

#[cfg(unix)]
#[test]
fn a_signal_leaves_no_temporary_file() {
    // The input is a FIFO that this test holds open after 1.5 MB of
    // records, more than the reader's first fill: fix has created its
    // temporary file and waits for more, when it gets the signal.
    let dir = temp_dir("signal");
    let record = frame(1, eth(&spoil(ipv4(6, &tcp(&A4, &[7; 1400])), 36)));
    let bad = capture::pcap(false, false, &vec![record; 1000]);
    let fifo = dir.join("in.pcap");
    mkfifo(&fifo);
    let output = dir.join("out.pcap");
    for (signal, number) in [("TERM", 15), ("INT", 2), ("HUP", 1)] {
        let mut child = Command::new(FASTPATH)
            .args(["pcap", "fix", path(&fifo), "-o", path(&output)])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut writer = fs::OpenOptions::new().write(true).open(&fifo).unwrap();
        writer.write_all(&bad).unwrap();
        writer.flush().unwrap();
        let start = Instant::now();
        while temporaries(&dir).is_empty() {
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "no temporary file"
            );
            thread::sleep(Duration::from_millis(10));
        }
        let status = Command::new("kill")
            .args([&format!("-{signal}"), &child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        let status = child.wait().unwrap();
        drop(writer);
        assert_eq!(status.code(), Some(128 + number), "SIG{signal}");
        assert!(temporaries(&dir).is_empty(), "SIG{signal}");
        assert!(!output.exists());
    }
    fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_fix_keeps_the_right_checksums_of_a_tunnel_right() {
    // VXLAN: a wrong inner TCP checksum under a right outer UDP one, which
    // covers it. `--only tcp` writes the inner one, and the outer one again.
    let dir = temp_dir("tunnel");
    let inner = eth(&spoil(ipv4(6, &tcp(&A4, b"inner")), 36));
    let mut vxlan = vec![0x08, 0, 0, 0, 0, 0, 0x01, 0];
    vxlan.extend(&inner);
    let outer = frame(1, eth(&ipv4(17, &udp_ports(&A4, 50000, 4789, &vxlan))));
    let input = dir.join("in.pcap");
    fs::write(&input, capture::pcap(false, false, &[outer])).unwrap();
    let verify = |file: &Path| fastpath(&["pcap", "verify", "--json", path(file)]);
    let before = String::from_utf8(verify(&input).stdout).unwrap();
    assert!(
        before.contains(r#""depth": 1, "proto": "tcp", "status": "bad""#),
        "{before}"
    );
    assert!(
        before.contains(r#""depth": 0, "proto": "udp", "status": "good""#),
        "{before}"
    );
    for only in ["tcp", "tcp,ipv4", "udp,tcp"] {
        let output = dir.join("out.pcap");
        let out = fastpath(&[
            "pcap",
            "fix",
            path(&input),
            "-o",
            path(&output),
            "--only",
            only,
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        let after = verify(&output);
        assert_eq!(
            after.status.code(),
            Some(0),
            "--only {only}: {}",
            String::from_utf8_lossy(&after.stdout)
        );
    }
    fs::remove_dir_all(dir).unwrap();
}

#[test]
fn fix_reads_standard_input() {
    // `cat F | fix - -o -` writes exactly what `fix F -o OUT` writes.
    let dir = temp_dir("stdin");
    let (bad, good) = bad_and_good();
    let input = dir.join("in.pcap");
    fs::write(&input, &bad).unwrap();
    let run = |args: &[&str]| {
        let mut child = Command::new(FASTPATH)
            .args(args)
            .current_dir(&dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let bytes = bad.clone();
        // A refusal closes standard input unread: a broken pipe then.
        let writer = thread::spawn(move || {
            let _ = stdin.write_all(&bytes);
        });
        let out = child.wait_with_output().unwrap();
        writer.join().unwrap();
        out
    };
    let out = run(&["pcap", "fix", "-", "-o", "-"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(out.stdout, good);
    let out = run(&["pcap", "fix", "-", "-o", "out.pcap"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(fs::read(dir.join("out.pcap")).unwrap(), good);
    // A new file from standard input: 0644.
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let mode = fs::metadata(dir.join("out.pcap")).unwrap().mode();
        assert_eq!(mode & 0o7777, 0o644);
    }
    for args in [
        &["pcap", "fix", "-", "--in-place"][..],
        &["pcap", "fix", "-", "-o", "-", "--in-place"][..],
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
    assert!(temporaries(&dir).is_empty());
    fs::remove_dir_all(dir).unwrap();
}
