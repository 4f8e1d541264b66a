//! `fastpath pcap verify -` on a live capture: a pipe that a writer fills
//! as packets come, and leaves open. Each frame's lines come out as soon
//! as its record is in, not when a buffer is full or the input ends.

mod capture;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use capture::*;
use serde_json::Value;

/// How long the lines of frames written are awaited.
const PATIENCE: Duration = Duration::from_secs(10);

/// A running `fastpath`, killed if the test fails before it ends.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn payload(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 7 + 3) as u8).collect()
}

/// Six frames: UDP and TCP over IPv4 and IPv6, the fifth with a bad TCP
/// checksum.
fn frames() -> Vec<Frame> {
    let bad = spoil(tcp(&A4, &payload(90)), 16);
    [
        eth(&ipv4(17, &udp(&A4, &payload(20)))),
        eth(&ipv4(6, &tcp(&A4, &payload(300)))),
        eth(&ipv6(17, &udp(&A6, &payload(1200)))),
        eth(&ipv6(6, &tcp(&A6, &payload(40)))),
        eth(&ipv4(6, &bad)),
        eth(&ipv4(17, &udp(&A4, &payload(7)))),
    ]
    .into_iter()
    .map(|bytes| frame(1, bytes))
    .collect()
}

/// The frames as a pcap file, and where the fourth record starts.
fn pcap_file(frames: &[Frame]) -> (Vec<u8>, usize) {
    let head = pcap(false, false, &frames[..3]);
    let whole = pcap(false, false, frames);
    assert_eq!(whole[..head.len()], head);
    (whole, head.len())
}

/// The frames as a pcapng file (one interface), and where
/// the fourth Enhanced Packet Block starts.
fn pcapng_file(frames: &[Frame], big_endian: bool) -> (Vec<u8>, usize) {
    let mut out = section_header(big_endian);
    out.extend(interface(big_endian, 1, 262_144));
    let mut split = 0;
    for (i, f) in frames.iter().enumerate() {
        if i == 3 {
            split = out.len();
        }
        out.extend(enhanced_packet(big_endian, 0, i, f));
    }
    (out, split)
}

/// A JSON line of verify, and its `file`, then the line without it.
fn parse(line: &str) -> (String, Value) {
    let mut v: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{line}: {e}"));
    let file = v
        .as_object_mut()
        .and_then(|o| o.remove("file"))
        .and_then(|f| f.as_str().map(str::to_owned))
        .unwrap_or_else(|| panic!("no file: {line}"));
    (file, v)
}

/// Receives `count` lines from `lines`, each before `deadline`.
fn receive(lines: &Receiver<String>, count: usize, deadline: Instant, what: &str) -> Vec<String> {
    let mut got = Vec::new();
    while got.len() < count {
        let left = deadline.saturating_duration_since(Instant::now());
        match lines.recv_timeout(left) {
            Ok(line) => got.push(line),
            Err(RecvTimeoutError::Timeout) => panic!(
                "{what}: {} of {count} lines came out in {PATIENCE:?}: {got:?}",
                got.len()
            ),
            Err(RecvTimeoutError::Disconnected) => {
                panic!(
                    "{what}: the output ended after {} of {count} lines: {got:?}",
                    got.len()
                )
            }
        }
    }
    got
}

/// Starts `fastpath pcap verify --json -`, its standard output read line by
/// line into a channel by a thread.
fn spawn_verify() -> (Running, ChildStdin, Receiver<String>) {
    let mut child = Running(
        Command::new(FASTPATH)
            .args(["pcap", "verify", "--json", "-"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("run fastpath"),
    );
    let stdin = child.0.stdin.take().unwrap();
    let stdout = child.0.stdout.take().unwrap();
    let (send, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if send.send(line).is_err() {
                break;
            }
        }
    });
    (child, stdin, lines)
}

/// Verifies `bytes` written in two parts, split at `split` (after the
/// third frame's block), to a pipe left open between them: the lines of
/// the first three frames must come out before the rest is written. All
/// the lines and the exit status are then those of the file verified
/// whole.
fn verify_live(name: &str, bytes: &[u8], split: usize) {
    let dir = temp_dir(name);
    let file = dir.join("capture");
    std::fs::write(&file, bytes).unwrap();
    let whole = fastpath(&["pcap", "verify", "--json", path(&file)]);
    let expected: Vec<Value> = String::from_utf8(whole.stdout)
        .unwrap()
        .lines()
        .map(|line| parse(line).1)
        .collect();
    let first = expected
        .iter()
        .filter(|v| v["frame"].as_u64().is_some_and(|n| n <= 3))
        .count();
    assert!(first >= 3, "{expected:?}");
    assert_eq!(expected[first - 1]["frame"], 3);

    let (mut child, mut stdin, lines) = spawn_verify();
    stdin.write_all(&bytes[..split]).unwrap();
    stdin.flush().unwrap();
    let mut got = receive(
        &lines,
        first,
        Instant::now() + PATIENCE,
        "the first 3 frames",
    );
    // Nothing of frames not written yet.
    assert!(
        lines.recv_timeout(Duration::from_millis(200)).is_err(),
        "a line before the rest was written"
    );
    stdin.write_all(&bytes[split..]).unwrap();
    drop(stdin);
    got.extend(receive(
        &lines,
        expected.len() - first,
        Instant::now() + PATIENCE,
        "the other frames",
    ));
    let status: ExitStatus = child.0.wait().unwrap();
    assert!(lines.recv_timeout(PATIENCE).is_err(), "a line too many");
    let got: Vec<Value> = got
        .iter()
        .map(|line| {
            let (file, v) = parse(line);
            assert_eq!(file, "-", "{line}");
            v
        })
        .collect();
    assert_eq!(got, expected);
    assert_eq!(status.code(), whole.status.code());
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn verify_prints_each_frame_of_a_live_pcap_as_it_comes() {
    let (bytes, split) = pcap_file(&frames());
    verify_live("live-pcap", &bytes, split);
}

#[test]
fn verify_prints_each_frame_of_a_live_pcapng_as_it_comes() {
    for big_endian in [false, true] {
        let (bytes, split) = pcapng_file(&frames(), big_endian);
        verify_live("live-pcapng", &bytes, split);
    }
}
