//! What `fastpath pcap` never does: shorten or drop a byte of a file it
//! rewrites, rewrite a file with nothing to fix, replace a capture that
//! changed while it was read, give a file away or add setuid/setgid to a
//! new one, mix anything into a capture it writes to standard output,
//! exit 0 when its output was not fully written, or call a capture it did
//! not read to its end free of bad checksums.

mod capture;

use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Command, Output, Stdio};

use capture::*;

/// A pcap file of `frames` repeated `n` times: as captured, and fixed.
fn pcaps(n: usize) -> (Vec<u8>, Vec<u8>) {
    let (bad, good) = one_bad_of_three();
    let repeat =
        |f: &[Frame]| -> Vec<Frame> { f.iter().cycle().take(f.len() * n).cloned().collect() };
    (
        capture::pcap(false, false, &repeat(&bad)),
        capture::pcap(false, false, &repeat(&good)),
    )
}

#[cfg(unix)]
fn inode(path: &Path) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    let m = fs::metadata(path).unwrap();
    (m.dev(), m.ino())
}

#[cfg(unix)]
#[test]
fn in_place_keeps_every_byte_after_a_record_it_cannot_read() {
    let dir = temp_dir("no-loss-corrupt");
    let (bad, good) = pcaps(200);
    // A record header with an absurd captured length after 100 records:
    // the records before are fixed, the rest copied as it is.
    let at = 24 + (bad.len() - 24) / 600 * 300;
    let mut broken = bad.clone();
    let corrupt = |bytes: &mut Vec<u8>| {
        // The first record header at or after `at`.
        let mut offset = 24;
        while offset < at {
            let caplen = u32::from_le_bytes(bytes[offset + 8..offset + 12].try_into().unwrap());
            offset += 16 + caplen as usize;
        }
        bytes[offset + 8..offset + 12].copy_from_slice(&0xffff_fff0u32.to_le_bytes());
        offset
    };
    let offset = corrupt(&mut broken);
    let mut expected = good.clone();
    corrupt(&mut expected);
    expected[offset..].copy_from_slice(&broken[offset..]);
    let input = dir.join("corrupt.pcap");
    fs::write(&input, &broken).unwrap();
    let out = fastpath(&["pcap", "fix", "--in-place", path(&input)]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!("byte offset {offset}"))
            && stderr(&out).contains("copied as they are"),
        "{}",
        stderr(&out)
    );
    let after = fs::read(&input).unwrap();
    assert_eq!(after.len(), broken.len());
    assert_eq!(after, expected);

    // The first record corrupt: nothing can be fixed, and the file is left
    // as it is, the same inode.
    let mut first = bad.clone();
    first[24 + 8..24 + 12].copy_from_slice(&0xffff_fff0u32.to_le_bytes());
    fs::write(&input, &first).unwrap();
    let before = inode(&input);
    let out = fastpath(&["pcap", "fix", "--in-place", path(&input)]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert_eq!(fs::read(&input).unwrap(), first);
    assert_eq!(inode(&input), before);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("left as it is"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    fs::remove_dir_all(dir).unwrap();
}

/// A pcapng capture: a section, an Ethernet interface, `frames` as
/// enhanced packet blocks, with a custom block (copiable, PEN 32473) of
/// `custom` bytes of data after the first.
fn pcapng_with_custom(frames: &[Frame], custom: usize) -> Vec<u8> {
    let mut out = section_header(false);
    out.extend(interface(false, 1, 0));
    for (i, f) in frames.iter().enumerate() {
        out.extend(enhanced_packet(false, 0, i, f));
        if i == 0 {
            let mut body = 32473u32.to_le_bytes().to_vec();
            body.extend((0..custom).map(|i| (i * 7) as u8));
            out.extend(block(false, 0x0000_0bad, &body));
        }
    }
    out
}

#[test]
fn a_block_over_4_mib_passes_through_and_the_packets_after_it_are_fixed() {
    let dir = temp_dir("no-loss-large-block");
    let (bad, good) = one_bad_of_three();
    let custom = 5 << 20;
    let input_bytes = pcapng_with_custom(&bad, custom);
    let fixed_bytes = pcapng_with_custom(&good, custom);
    let input = dir.join("large.pcapng");
    fs::write(&input, &input_bytes).unwrap();
    // verify reads it all: 4 frames (the custom block is one, as in
    // Wireshark), the bad checksum after it found.
    let out = fastpath(&["pcap", "verify", path(&input)]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("4 frames"), "{stdout}");
    // fix writes it all, in place, the packet after it fixed.
    let out = fastpath(&["pcap", "fix", "--in-place", path(&input)]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(fs::read(&input).unwrap(), fixed_bytes);
    // The same from a pipe, to standard output.
    let mut child = Command::new(FASTPATH)
        .args(["pcap", "fix", "-", "-o", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(&input_bytes));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(out.stdout == fixed_bytes);
    fs::remove_dir_all(dir).unwrap();
}

#[cfg(unix)]
#[test]
fn in_place_with_nothing_to_fix_leaves_the_file_alone() {
    let dir = temp_dir("no-loss-unchanged");
    let (_, good) = pcaps(3);
    let input = dir.join("good.pcap");
    fs::write(&input, &good).unwrap();
    let link = dir.join("link.pcap");
    fs::hard_link(&input, &link).unwrap();
    let old = filetime(&input);
    std::thread::sleep(std::time::Duration::from_millis(20));
    let before = inode(&input);
    let out = fastpath(&["pcap", "fix", "--in-place", path(&input)]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(inode(&input), before);
    assert_eq!(inode(&link), before);
    assert_eq!(filetime(&input), old);
    assert_eq!(fs::read(&input).unwrap(), good);
    assert!(String::from_utf8_lossy(&out.stdout).contains("nothing to change"));
    fs::remove_dir_all(dir).unwrap();
}

fn filetime(path: &Path) -> std::time::SystemTime {
    fs::metadata(path).unwrap().modified().unwrap()
}

#[cfg(unix)]
#[test]
fn in_place_refuses_a_capture_that_grows_while_it_is_fixed() {
    let dir = temp_dir("no-loss-growing");
    // Large enough that the fix takes a while; every record is whole, so
    // that the file is a capture whenever it is read.
    let (bad, _) = pcaps(20_000);
    let input = dir.join("live.pcap");
    fs::write(&input, &bad).unwrap();
    let (frames, _) = one_bad_of_three();
    let record = capture::pcap(false, false, &frames[..1])[24..].to_vec();
    let mut child = Command::new(FASTPATH)
        .args(["pcap", "fix", "--in-place", path(&input)])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A writer appending records until fix is done, as tcpdump does.
    let mut appended = 0;
    let mut file = fs::OpenOptions::new().append(true).open(&input).unwrap();
    while child.try_wait().unwrap().is_none() {
        file.write_all(&record).unwrap();
        appended += 1;
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("changed while"), "{}", stderr(&out));
    let after = fs::read(&input).unwrap();
    assert_eq!(after.len(), bad.len() + appended * record.len());
    assert_eq!(after[..bad.len()], bad);
    let entries: Vec<_> = fs::read_dir(&dir).unwrap().collect();
    assert_eq!(entries.len(), 1, "a temporary file left");
    fs::remove_dir_all(dir).unwrap();
}

/// Runs `script` with `sh -c` (fastpath as `$FP`), nothing on standard
/// input, its output captured.
fn sh(script: &str) -> Output {
    Command::new("sh")
        .args(["-c", script])
        .env("FP", FASTPATH)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

#[cfg(unix)]
#[test]
fn a_new_output_takes_the_umask_and_never_setuid() {
    use std::os::unix::fs::PermissionsExt;
    let dir = temp_dir("no-loss-mode");
    let (bad, _) = pcaps(1);
    let input = dir.join("in.pcap");
    fs::write(&input, &bad).unwrap();
    let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o7777;
    for (input_mode, umask, expected) in [
        (0o6777, "077", 0o700),
        (0o4755, "022", 0o755),
        (0o640, "022", 0o640),
        (0o666, "027", 0o640),
    ] {
        fs::set_permissions(&input, fs::Permissions::from_mode(input_mode)).unwrap();
        let output = dir.join("out.pcap");
        let _ = fs::remove_file(&output);
        let out = sh(&format!(
            "umask {umask}; exec \"$FP\" pcap fix '{}' -o '{}'",
            path(&input),
            path(&output)
        ));
        assert!(out.status.success(), "{}", stderr(&out));
        assert_eq!(mode(&output), expected, "{input_mode:o} under {umask}");
        // A file replaced keeps its own mode, whatever the umask.
        fs::set_permissions(&output, fs::Permissions::from_mode(0o604)).unwrap();
        let out = sh(&format!(
            "umask 077; exec \"$FP\" pcap fix '{}' -o '{}'",
            path(&input),
            path(&output)
        ));
        assert!(out.status.success(), "{}", stderr(&out));
        assert_eq!(mode(&output), 0o604);
    }
    fs::remove_dir_all(dir).unwrap();
}

/// As root: a file of root's in a directory of another user, fixed in
/// place by that user, is not replaced (its owner cannot be kept) unless
/// `--allow-new-owner` says so. Skipped when not run as root.
#[cfg(unix)]
#[test]
fn an_owner_that_cannot_be_kept_is_refused_unless_allowed() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt, chown};
    use std::os::unix::process::CommandExt;
    let dir = temp_dir("no-loss-owner");
    if fs::metadata(&dir).unwrap().uid() != 0 {
        eprintln!("skipped: not run as root");
        return;
    }
    let nobody = 65534;
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).unwrap();
    let own = dir.join("nobody");
    fs::create_dir(&own).unwrap();
    chown(&own, Some(nobody), Some(nobody)).unwrap();
    let (bad, good) = pcaps(1);
    let input = own.join("root.pcap");
    fs::write(&input, &bad).unwrap();
    fs::set_permissions(&input, fs::Permissions::from_mode(0o644)).unwrap();
    let run = |extra: &[&str]| {
        Command::new(FASTPATH)
            .args(["pcap", "fix", "--in-place"])
            .args(extra)
            .arg(&input)
            .uid(nobody)
            .gid(nobody)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    let out = run(&[]);
    // The test binary may sit where nobody cannot reach it.
    if out.status.code() == Some(126) || stderr(&out).contains("Permission denied (os error 13)") {
        eprintln!("skipped: nobody cannot run {FASTPATH}");
        fs::remove_dir_all(dir).unwrap();
        return;
    }
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("--allow-new-owner"),
        "{}",
        stderr(&out)
    );
    assert_eq!(fs::read(&input).unwrap(), bad);
    assert_eq!(fs::metadata(&input).unwrap().uid(), 0);
    let out = run(&["--allow-new-owner"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("warning"), "{}", stderr(&out));
    assert_eq!(fs::read(&input).unwrap(), good);
    assert_eq!(fs::metadata(&input).unwrap().uid(), nobody);
    fs::remove_dir_all(dir).unwrap();
}

#[cfg(unix)]
#[test]
fn no_exit_status_0_when_the_output_was_not_all_written() {
    let dir = temp_dir("no-loss-pipes");
    // Large enough to outgrow a pipe's buffer many times over.
    let (bad, _) = pcaps(30_000);
    let input = dir.join("big.pcap");
    fs::write(&input, &bad).unwrap();

    // A reader that takes one line of JSON and goes away.
    let mut child = Command::new(FASTPATH)
        .args(["pcap", "verify", "--json", path(&input)])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(
        status.code().map(|c| c & 2),
        Some(2),
        "verify | head -1: {status:?}"
    );

    // A reader that takes 100 bytes of the capture and goes away.
    let mut child = Command::new(FASTPATH)
        .args(["pcap", "fix", path(&input), "-o", "-"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut head = [0; 100];
    child.stdout.take().unwrap().read_exact(&mut head).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(2), "fix -o - | head -c 100");

    // A closed standard output.
    let out = sh(&format!(
        "exec \"$FP\" pcap fix '{}' -o - >&-",
        path(&input)
    ));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let out = sh(&format!("exec \"$FP\" pcap verify '{}' >&-", path(&input)));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    // /dev/null is an output like any other.
    let out = sh(&format!(
        "exec \"$FP\" pcap fix '{}' -o - >/dev/null",
        path(&input)
    ));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_capture_not_read_to_its_end_is_not_called_free_of_bad_checksums() {
    let dir = temp_dir("no-loss-unread");
    let (bad, _) = pcaps(1);
    let mut first = bad.clone();
    first[24 + 8..24 + 12].copy_from_slice(&0xffff_fff0u32.to_le_bytes());
    let input = dir.join("unreadable.pcap");
    fs::write(&input, &first).unwrap();
    let out = fastpath(&["pcap", "verify", path(&input)]);
    assert_eq!(out.status.code(), Some(2));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!stdout.contains("  no bad checksum\n"), "{stdout}");
    assert!(
        stdout.contains("not read: from byte offset 24")
            && stdout.contains("no bad checksum in the 0 frames read"),
        "{stdout}"
    );
    fs::remove_dir_all(dir).unwrap();
}

#[test]
fn one_rule_for_inputs_that_cannot_be_fixed_and_outputs_into_a_directory() {
    let dir = temp_dir("no-loss-inputs");
    let (bad, good) = pcaps(1);
    let (a, c) = (dir.join("a.pcap"), dir.join("c.pcap"));
    fs::write(&a, &bad).unwrap();
    fs::write(&c, &bad).unwrap();
    let out_dir = dir.join("fixed");
    fs::create_dir(&out_dir).unwrap();
    // A missing input, and a directory as input: each reported, the others
    // written, exit status 2.
    for other in [dir.join("missing.pcap"), dir.join("fixed")] {
        let out = fastpath(&[
            "pcap",
            "fix",
            path(&a),
            path(&other),
            path(&c),
            "-o",
            path(&out_dir),
        ]);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(stderr(&out).contains(path(&other)), "{}", stderr(&out));
        assert_eq!(fs::read(out_dir.join("a.pcap")).unwrap(), good);
        assert_eq!(fs::read(out_dir.join("c.pcap")).unwrap(), good);
        fs::remove_file(out_dir.join("a.pcap")).unwrap();
        fs::remove_file(out_dir.join("c.pcap")).unwrap();
    }
    // One input into an existing directory, or one named with a slash.
    let out = fastpath(&["pcap", "fix", path(&a), "-o", path(&out_dir)]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(fs::read(out_dir.join("a.pcap")).unwrap(), good);
    let slash = format!("{}/", path(&dir.join("new")));
    let out = fastpath(&["pcap", "fix", path(&c), "-o", &slash]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(!dir.join("new").exists());
    fs::create_dir(dir.join("new")).unwrap();
    let out = fastpath(&["pcap", "fix", path(&c), "-o", &slash]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(fs::read(dir.join("new/c.pcap")).unwrap(), good);
    fs::remove_dir_all(dir).unwrap();
}

/// verify reads a regular file through a window mapped into memory: a
/// capture cut short under it (by another program) ends it with exit
/// status 2 and a message that says so, not a crash. verify is held in
/// mid-file by a full standard output that nobody reads, and the file is
/// cut then.
#[cfg(target_os = "linux")]
#[test]
fn a_capture_cut_short_while_verify_reads_it_is_an_error() {
    let dir = temp_dir("no-loss-cut-under-verify");
    let (bad, _) = pcaps(30_000);
    let input = dir.join("cut.pcap");
    fs::write(&input, &bad).unwrap();
    let mut child = Command::new(FASTPATH)
        .args(["pcap", "verify", "--json", path(&input)])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Its first line says it is reading; the lines of the next few hundred
    // frames fill the pipe, and it waits there.
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    assert!(line.starts_with('{'), "{line}");
    fs::OpenOptions::new()
        .write(true)
        .open(&input)
        .unwrap()
        .set_len(24)
        .unwrap();
    stdout.read_to_end(&mut Vec::new()).unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("a capture file was cut short while it was read"),
        "{stderr}"
    );
    fs::remove_dir_all(dir).unwrap();
}
