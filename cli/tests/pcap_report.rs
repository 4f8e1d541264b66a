//! What `fastpath pcap verify` reports besides each checksum's verdict:
//! what it could not verify, by reason (the summary text, the summary and
//! total objects of `--json-summary`, `--strict`); `computed` as the
//! checksum of the bytes as captured; either zero of ones' complement
//! arithmetic; file names and messages escaped; the exit status when bad
//! checksums and unreadable files come together.

mod capture;

use std::fs;
use std::process::{Command, Output};

use capture::*;
use fastpath_cli::pcap::layers;
use proptest::prelude::*;
use serde_json::Value;

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// Every line of stdout, as JSON.
fn json_lines(out: &Output) -> Vec<Value> {
    stdout(out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect()
}

/// The checksum lines of stdout: (frame, depth, proto, status, stored,
/// computed), each checked to be exactly in the contract's form: its 7 keys
/// in their order, spaced as they are.
fn checksum_lines(out: &Output) -> Vec<(u64, u64, String, String, u64, u64)> {
    stdout(out)
        .lines()
        .filter_map(|line| {
            let v: Value = serde_json::from_str(line).unwrap();
            v.get("frame")?;
            let file = &line["{\"file\": ".len()..line.find(", \"frame\": ").unwrap()];
            assert_eq!(serde_json::from_str::<Value>(file).unwrap(), v["file"]);
            let l = (
                v["frame"].as_u64().unwrap(),
                v["depth"].as_u64().unwrap(),
                v["proto"].as_str().unwrap().to_owned(),
                v["status"].as_str().unwrap().to_owned(),
                v["stored"].as_u64().unwrap(),
                v["computed"].as_u64().unwrap(),
            );
            assert_eq!(
                line,
                format!(
                    "{{\"file\": {file}, \"frame\": {}, \"depth\": {}, \"proto\": \"{}\", \
                     \"status\": \"{}\", \"stored\": {}, \"computed\": {}}}",
                    l.0, l.1, l.2, l.3, l.4, l.5
                )
            );
            Some(l)
        })
        .collect()
}

/// Checks that `keys` come in this order in `line`, each as `"key": `.
fn assert_keys_in_order(line: &str, keys: &[&str]) {
    let mut from = 0;
    for key in keys {
        let at = line[from..]
            .find(&format!("\"{key}\": "))
            .unwrap_or_else(|| panic!("{key} after {from}: {line}"));
        from += at + key.len();
    }
}

fn payload(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 7 + 3) as u8).collect()
}

/// `a + b` in ones' complement.
fn add(a: u16, b: u16) -> u16 {
    let s = u32::from(a) + u32::from(b);
    ((s & 0xffff) + (s >> 16)) as u16
}

fn pcap(frames: &[Frame]) -> Vec<u8> {
    capture::pcap(false, false, frames)
}

fn eth_frame(ip: &[u8]) -> Frame {
    frame(1, eth(ip))
}

fn good_tcp() -> Vec<u8> {
    ipv4(6, &tcp(&A4, &payload(40)))
}

fn bad_tcp() -> Vec<u8> {
    spoil(good_tcp(), 36)
}

/// An IPv4 packet whose header's Total Length is 0, as Linux hands TSO
/// (BIG TCP) packets to a capture on the sending host; its header checksum
/// right for it.
fn ipv4_total_length_0() -> Vec<u8> {
    let mut p = set16(good_tcp(), 2, 0);
    p[10..12].fill(0);
    let value = checksum(&p[..20]);
    set16(p, 10, value)
}

/// An IPv6 jumbogram (RFC 2675): Payload Length 0, a Hop-by-Hop header with
/// a Jumbo Payload option, then TCP.
fn ipv6_jumbogram() -> Vec<u8> {
    let segment = tcp(&A6, &payload(40));
    let mut hop_by_hop = vec![6, 0, 0xc2, 4];
    hop_by_hop.extend(((8 + segment.len()) as u32).to_be_bytes());
    set16(ipv6_with(0, &hop_by_hop, &segment), 4, 0)
}

/// `inner` in `n` IPv4-in-IPv4 tunnels.
fn nested(n: usize, inner: Vec<u8>) -> Vec<u8> {
    (0..n).fold(inner, |p, _| ipv4(4, &p))
}

/// Ethernet carrying `ethertype`.
fn ether(ethertype: u16, body: &[u8]) -> Frame {
    frame(1, ethernet(&[], ethertype, body))
}

/// A capture with one frame of every kind that is verified only in part,
/// and what the summary must count: (frames, the lines' statuses, the
/// unverified reasons, the gaps).
fn partly_verified() -> Vec<Frame> {
    let long = ipv4(6, &tcp(&A4, &payload(1000)));
    let whole_udp = udp(&A4, &payload(200));
    let snapped = |snaplen: usize| Frame {
        link: 1,
        bytes: eth(&long),
        snaplen: Some(snaplen),
    };
    vec![
        // 1: verified.
        eth_frame(&good_tcp()),
        // 2: bad.
        eth_frame(&bad_tcp()),
        // 3: the TCP checksum cut by the snap length: unverified.
        snapped(100),
        // 4: a first fragment: unverified.
        eth_frame(&ipv4_with(17, &[], 0x2000, &whole_udp[..80])),
        // 5: the snap length before the TCP checksum field: no line.
        snapped(14 + 20 + 10),
        // 6: inside the IPv4 header, before its checksum: no IP header.
        snapped(14 + 10),
        // 7: ARP: no IP, none expected.
        ether(0x0806, &[0; 28]),
        // 8: MACsec: may carry IP, not decoded.
        ether(0x88e5, &[0; 40]),
        // 9: TSO / BIG TCP over IPv4.
        eth_frame(&ipv4_total_length_0()),
        // 10: an IPv6 jumbogram.
        eth_frame(&ipv6_jumbogram()),
        // 11: BIG TCP over IPv6 without the Hop-by-Hop header.
        eth_frame(&set16(ipv6(6, &tcp(&A6, &payload(40))), 4, 0)),
        // 12: SCTP, whose CRC-32c is not verified here.
        eth_frame(&ipv4(132, &payload(32))),
        // 13: tunnels 9 deep: the last one is not followed.
        eth_frame(&nested(9, good_tcp())),
        // 14: an IHL of 4.
        ether(0x0800, &[0x44; 40]),
        // 15: IPv6's No Next Header: nothing to verify.
        eth_frame(&ipv6(59, &[])),
    ]
}

/// A TCP segment over IPv4 whose checksum computes to 0x0000 (the data
/// sums to 0xffff), with `stored` in its field.
fn tcp_computing_zero(stored: u16) -> Vec<u8> {
    // A first word of payload chosen so that the sum is 0xffff: the
    // checksum computed with it 0 is the sum's complement, which added to
    // it makes 0xffff.
    let data = |word: u16| [&word.to_be_bytes()[..], &payload(30)].concat();
    let zero = ipv4(6, &tcp(&A4, &data(0)));
    let c = u16::from_be_bytes([zero[36], zero[37]]);
    let p = ipv4(6, &tcp(&A4, &data(c)));
    assert_eq!(u16::from_be_bytes([p[36], p[37]]), 0);
    set16(p, 36, stored)
}

/// The same for UDP: the checksum computes to 0, sent as 0xffff.
fn udp_computing_zero() -> Vec<u8> {
    let data = |word: u16| [&word.to_be_bytes()[..], &payload(30)].concat();
    let zero = ipv4(17, &udp(&A4, &data(0)));
    let c = u16::from_be_bytes([zero[26], zero[27]]);
    let p = ipv4(17, &udp(&A4, &data(c)));
    assert_eq!(u16::from_be_bytes([p[26], p[27]]), 0xffff);
    p
}

/// An IPv4 header whose checksum computes to 0x0000, stored as 0xffff.
fn ipv4_header_computing_zero() -> Vec<u8> {
    let p = good_tcp();
    let c = u16::from_be_bytes([p[10], p[11]]);
    // The sum without the checksum is !c: adding c to the identification
    // makes it 0xffff.
    let id = add(u16::from_be_bytes([p[4], p[5]]), c);
    let p = set16(set16(p, 4, id), 10, 0);
    assert_eq!(checksum(&p[..20]), 0);
    set16(p, 10, 0xffff)
}

fn vxlan(inner_ethernet: &[u8]) -> Vec<u8> {
    let mut payload = vec![0x08, 0, 0, 0, 0, 0, 0x01, 0];
    payload.extend(inner_ethernet);
    ipv4(17, &udp_ports(&A4, 50000, 4789, &payload))
}

/// The number of the lines of each status.
fn count_status(lines: &[(u64, u64, String, String, u64, u64)], status: &str) -> u64 {
    lines.iter().filter(|l| l.3 == status).count() as u64
}

#[test]
fn json_without_the_summary_flag_is_only_checksum_lines() {
    let dir = temp_dir("json");
    let file = dir.join("a.pcap");
    fs::write(&file, pcap(&partly_verified())).unwrap();
    let out = fastpath(&["pcap", "verify", "--json", path(&file)]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let lines = json_lines(&out);
    assert_eq!(checksum_lines(&out).len(), lines.len());
    // --strict changes the exit status only.
    let strict = fastpath(&["pcap", "verify", "--json", "--strict", path(&file)]);
    assert_eq!(strict.stdout, out.stdout);
    fs::remove_dir_all(dir).unwrap();
}

#[test]
fn the_summary_object_counts_what_was_not_verified_by_reason() {
    let dir = temp_dir("summary");
    let file = dir.join("a.pcap");
    fs::write(&file, pcap(&partly_verified())).unwrap();
    let out = fastpath(&["pcap", "verify", "--json-summary", path(&file)]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let lines = json_lines(&out);
    let checksums = checksum_lines(&out);
    // The checksum lines, then one summary object with no "frame" key; a
    // single file has no total.
    assert_eq!(checksums.len() + 1, lines.len());
    let last = lines.last().unwrap();
    assert_eq!(last.as_object().unwrap().len(), 2);
    assert_eq!(last["file"], path(&file));
    let summary = &last["summary"];
    assert_eq!(summary.as_object().unwrap().len(), 13);
    let text = stdout(&out);
    let raw = text.lines().last().unwrap();
    assert!(raw.starts_with("{\"file\": "), "{raw}");
    assert_keys_in_order(
        raw,
        &[
            "file",
            "summary",
            "format",
            "frames",
            "not ip",
            "checksums",
            "good",
            "bad",
            "illegal",
            "absent",
            "unverified",
            "not verified",
            "stored 0xffff for 0x0000",
            "bad frames",
            "error",
        ],
    );
    assert_eq!(summary["format"], "pcap (µs, little-endian)");
    assert_eq!(summary["frames"], 15);
    assert_eq!(summary["not ip"], 2);
    assert_eq!(summary["checksums"], checksums.len() as u64);
    for status in ["good", "bad", "illegal", "absent"] {
        assert_eq!(
            summary[status],
            count_status(&checksums, status),
            "{status}"
        );
    }
    assert_eq!(
        (summary["good"].as_u64(), summary["bad"].as_u64()),
        (Some(17), Some(1))
    );
    assert_eq!(
        summary["unverified"],
        serde_json::json!({"snap length": 1, "first fragment": 1})
    );
    assert_eq!(
        summary["unverified"]
            .as_object()
            .unwrap()
            .values()
            .map(|n| n.as_u64().unwrap())
            .sum::<u64>(),
        count_status(&checksums, "unverified")
    );
    assert_eq!(
        summary["not verified"],
        serde_json::json!({
            "ethertype 0x88e5": 1,
            "headers cut": 2,
            "malformed ip header": 1,
            "ipv4 total length 0": 1,
            "ipv6 payload length 0": 2,
            "tunnel depth": 1,
            "protocol 132": 1,
        })
    );
    assert_eq!(summary["stored 0xffff for 0x0000"], 0);
    assert_eq!(summary["bad frames"], 1);
    assert!(summary["error"].is_null());
    // The unverified checksums' computed is their stored value.
    for l in checksums.iter().filter(|l| l.3 == "unverified") {
        assert_eq!(l.4, l.5, "{l:?}");
    }
    // The tunnels 9 deep: 9 IPv4 headers reported, depth 0 to 8.
    let deepest = checksums.iter().filter(|l| l.0 == 13).map(|l| l.1).max();
    assert_eq!(deepest, Some(8));
    fs::remove_dir_all(dir).unwrap();
}

#[test]
fn records_are_no_gap_and_other_link_types_are() {
    // pcapng: a custom block after the first packet counts as a frame (as
    // Wireshark numbers them) but is no packet; a frame of LINKTYPE_USER0
    // is not decoded.
    let dir = temp_dir("pcapng");
    let file = dir.join("a.pcapng");
    let frames = [eth_frame(&good_tcp()), frame(147, eth(&good_tcp()))];
    fs::write(&file, capture::pcapng(false, &frames)).unwrap();
    let out = fastpath(&["pcap", "verify", "--json-summary", path(&file)]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let lines = json_lines(&out);
    let summary = &lines.last().unwrap()["summary"];
    assert_eq!(summary["frames"], 3);
    assert_eq!(summary["format"], "pcapng");
    assert_eq!(summary["unverified"], serde_json::json!({}));
    assert_eq!(
        summary["not verified"],
        serde_json::json!({"link type 147": 1})
    );
    let text = fastpath(&["pcap", "verify", path(&file)]);
    assert!(
        stdout(&text).contains("not verified: 1 frame of link type 147 not decoded\n"),
        "{}",
        stdout(&text)
    );
    let strict = fastpath(&["pcap", "verify", "--strict", path(&file)]);
    assert_eq!(strict.status.code(), Some(1));
    assert!(
        stderr(&strict).contains("1 frame of link type 147 not decoded"),
        "{}",
        stderr(&strict)
    );
    fs::remove_dir_all(dir).unwrap();
}

#[test]
fn the_text_summary_says_what_was_not_verified() {
    let dir = temp_dir("text");
    let mut frames = partly_verified();
    frames.remove(1);
    let file = dir.join("unverified.pcap");
    fs::write(&file, pcap(&frames)).unwrap();
    let out = fastpath(&["pcap", "verify", path(&file)]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains(
            "  not verified: 1 checksum cut by the snap length, 1 checksum of a first fragment, \
             1 frame of EtherType 0x88e5 with no IP decoded, 2 packets cut short before a \
             checksum field, 1 packet with a malformed IP header, 1 IPv4 packet of total \
             length 0 (TSO or BIG TCP), 2 IPv6 packets of payload length 0 (jumbogram or BIG \
             TCP), 1 tunnel nested deeper than 8, 1 packet of IP protocol 132 (SCTP)\n"
        ),
        "{text}"
    );
    assert!(
        text.ends_with("  no bad checksum among those verified\n"),
        "{text}"
    );
    // Everything verified: no such line, and "no bad checksum" means it.
    let clean = dir.join("clean.pcap");
    let arp = ether(0x0806, &[0; 28]);
    fs::write(
        &clean,
        pcap(&[
            eth_frame(&good_tcp()),
            arp,
            eth_frame(&nested(8, good_tcp())),
        ]),
    )
    .unwrap();
    let out = fastpath(&["pcap", "verify", "--strict", path(&clean)]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(!text.contains("not verified"), "{text}");
    assert!(text.ends_with("  no bad checksum\n"), "{text}");
    assert!(out.stderr.is_empty());
    fs::remove_dir_all(dir).unwrap();
}

#[test]
fn strict_fails_on_anything_not_verified() {
    let dir = temp_dir("strict");
    let mut frames = partly_verified();
    frames.remove(1);
    let partly = dir.join("partly.pcap");
    fs::write(&partly, pcap(&frames)).unwrap();
    // One reason alone is enough: a first fragment.
    let whole_udp = udp(&A4, &payload(200));
    let fragment = dir.join("fragment.pcap");
    fs::write(
        &fragment,
        pcap(&[eth_frame(&ipv4_with(17, &[], 0x2000, &whole_udp[..80]))]),
    )
    .unwrap();
    for file in [&partly, &fragment] {
        let out = fastpath(&["pcap", "verify", "--json", path(file)]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert!(out.stderr.is_empty());
        let out = fastpath(&["pcap", "verify", "--json", "--strict", path(file)]);
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        let message = stderr(&out);
        assert!(
            message.starts_with(&format!("fastpath: strict: {}: not verified: ", path(file))),
            "{message}"
        );
        assert!(
            message.contains("1 checksum of a first fragment"),
            "{message}"
        );
    }
    // With a file that can't be read: both bits.
    let missing = dir.join("missing.pcap");
    let out = fastpath(&[
        "pcap",
        "verify",
        "--strict",
        path(&fragment),
        path(&missing),
    ]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    fs::remove_dir_all(dir).unwrap();
}

#[test]
fn several_files_end_in_a_total() {
    let dir = temp_dir("total");
    let (a, b, missing) = (
        dir.join("a.pcap"),
        dir.join("b.pcap"),
        dir.join("missing.pcap"),
    );
    fs::write(&a, pcap(&partly_verified())).unwrap();
    fs::write(&b, pcap(&[eth_frame(&good_tcp()), eth_frame(&bad_tcp())])).unwrap();
    let out = fastpath(&[
        "pcap",
        "verify",
        "--json-summary",
        path(&a),
        path(&missing),
        path(&b),
    ]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let lines = json_lines(&out);
    let summaries: Vec<&Value> = lines
        .iter()
        .filter(|v| v.get("summary").is_some())
        .collect();
    assert_eq!(summaries.len(), 3);
    assert_eq!(summaries[1]["file"], path(&missing));
    assert!(summaries[1]["summary"]["format"].is_null());
    assert_eq!(summaries[1]["summary"]["frames"], 0);
    let error = summaries[1]["summary"]["error"].as_str().unwrap();
    assert!(error.starts_with("cannot open: "), "{error}");
    // Each file's lines come before its summary.
    let b_summary = lines
        .iter()
        .position(|v| v.get("summary").is_some() && v["file"] == path(&b));
    let b_first = lines.iter().position(|v| v["file"] == path(&b));
    assert!(b_first < b_summary);
    let total = lines.last().unwrap();
    assert_eq!(total.as_object().unwrap().len(), 1);
    let text = stdout(&out);
    assert_keys_in_order(
        text.lines().last().unwrap(),
        &[
            "total",
            "files",
            "unreadable",
            "frames",
            "not ip",
            "checksums",
        ],
    );
    let total = &total["total"];
    assert_eq!(
        (total["files"].as_u64(), total["unreadable"].as_u64()),
        (Some(3), Some(1))
    );
    assert_eq!(total["frames"], 17);
    assert_eq!(total["bad"], 2);
    assert_eq!(total["bad frames"], 2);
    assert_eq!(total["checksums"], checksum_lines(&out).len() as u64);
    assert_eq!(total["unverified"]["snap length"], 1);
    assert_eq!(total["not verified"]["ipv6 payload length 0"], 2);
    // The total of the text summaries.
    let out = fastpath(&["pcap", "verify", path(&a), path(&missing), path(&b)]);
    assert_eq!(out.status.code(), Some(3));
    let text = stdout(&out);
    let last = text.lines().last().unwrap();
    assert!(
        last.starts_with(
            "total: 3 files (1 not read to the end), 17 frames; checksums: 20 good, 2 bad, \
             0 illegal, 2 unverified, 0 absent; not verified: 1 checksum cut by the snap length"
        ),
        "{last}"
    );
    // One file: no total.
    let out = fastpath(&["pcap", "verify", path(&b)]);
    assert!(!stdout(&out).contains("total:"), "{}", stdout(&out));
    fs::remove_dir_all(dir).unwrap();
}

#[test]
fn computed_is_the_checksum_of_the_bytes_as_captured() {
    let dir = temp_dir("computed");
    // VXLAN whose inner TCP checksum is wrong, its outer UDP checksum right
    // for the bytes as they are (as tshark judges it: good).
    let as_captured = vxlan(&eth(&bad_tcp()));
    let outer = u64::from(u16::from_be_bytes([as_captured[26], as_captured[27]]));
    let right_tcp = u64::from(u16::from_be_bytes([good_tcp()[36], good_tcp()[37]]));
    // The same with its outer UDP checksum wrong too.
    let both_bad = spoil(as_captured.clone(), 26);
    let file = dir.join("vxlan.pcap");
    fs::write(
        &file,
        pcap(&[eth_frame(&as_captured), eth_frame(&both_bad)]),
    )
    .unwrap();
    let out = fastpath(&["pcap", "verify", "--json", path(&file)]);
    assert_eq!(out.status.code(), Some(1));
    let lines = checksum_lines(&out);
    let line = |frame: u64, depth: u64, proto: &str| {
        lines
            .iter()
            .find(|l| l.0 == frame && l.1 == depth && l.2 == proto)
            .cloned()
            .unwrap_or_else(|| panic!("{frame} {depth} {proto}: {lines:?}"))
    };
    assert_eq!(
        line(1, 0, "udp"),
        (1, 0, "udp".into(), "good".into(), outer, outer)
    );
    assert_eq!(line(1, 1, "tcp").3, "bad");
    assert_eq!(line(1, 1, "tcp").5, right_tcp);
    let udp = line(2, 0, "udp");
    assert_eq!((udp.3.as_str(), udp.5), ("bad", outer));
    assert_ne!(udp.4, outer);
    // fix writes the inner TCP checksum, then keeps the outer one right:
    // it changes, and verify finds it good there.
    let fixed = dir.join("fixed.pcap");
    let out = fastpath(&["pcap", "fix", path(&file), "-o", path(&fixed)]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = fastpath(&["pcap", "verify", "--json", path(&fixed)]);
    assert_eq!(out.status.code(), Some(0));
    let after = checksum_lines(&out);
    for l in &after {
        assert_eq!((l.3.as_str(), l.4), ("good", l.5), "{l:?}");
    }
    let outer_after = after.iter().find(|l| l.0 == 1 && l.2 == "udp").unwrap();
    assert_ne!(outer_after.4, outer);
    let vxlan_right = vxlan(&eth(&good_tcp()));
    assert_eq!(
        outer_after.4,
        u64::from(u16::from_be_bytes([vxlan_right[26], vxlan_right[27]]))
    );
    fs::remove_dir_all(dir).unwrap();
}

#[test]
fn either_zero_is_good_and_computed_says_which_one_is_computed() {
    let dir = temp_dir("zeros");
    let file = dir.join("zeros.pcap");
    let frames = [
        // TCP stored as 0xffff where 0x0000 is computed.
        eth_frame(&tcp_computing_zero(0xffff)),
        eth_frame(&tcp_computing_zero(0)),
        // UDP: a computed 0 is sent as 0xffff (RFC 768).
        eth_frame(&udp_computing_zero()),
        // An IPv4 header stored as 0xffff where 0x0000 is computed.
        eth_frame(&ipv4_header_computing_zero()),
        // An all-zero ICMP message (an echo reply): its data sums to +0,
        // whose checksum is 0xffff.
        eth_frame(&ipv4(1, &[0, 0, 0xff, 0xff, 0, 0, 0, 0])),
    ];
    let bytes = pcap(&frames);
    fs::write(&file, &bytes).unwrap();
    let out = fastpath(&["pcap", "verify", "--json-summary", path(&file)]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json = json_lines(&out);
    let lines = checksum_lines(&out);
    let upper: Vec<_> = lines
        .iter()
        .filter(|l| (l.2 == "ipv4") == (l.0 == 4))
        .map(|l| (l.0, l.2.as_str(), l.3.as_str(), l.4, l.5))
        .collect();
    assert_eq!(
        upper,
        [
            (1, "tcp", "good", 0xffff, 0),
            (2, "tcp", "good", 0, 0),
            (3, "udp", "good", 0xffff, 0xffff),
            (4, "ipv4", "good", 0xffff, 0),
            (5, "icmp", "good", 0xffff, 0xffff),
        ]
    );
    assert_eq!(
        json.last().unwrap()["summary"]["stored 0xffff for 0x0000"],
        2
    );
    let text = stdout(&fastpath(&["pcap", "verify", path(&file)]));
    assert!(
        text.contains("(2 good ones stored as 0xffff where 0x0000 is computed"),
        "{text}"
    );
    assert!(text.ends_with("  no bad checksum\n"), "{text}");
    // fix leaves them as they are.
    let fixed = dir.join("fixed.pcap");
    let out = fastpath(&["pcap", "fix", path(&file), "-o", path(&fixed)]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(fs::read(&fixed).unwrap(), bytes);
    fs::remove_dir_all(dir).unwrap();
}

#[cfg(unix)]
#[test]
fn file_names_and_messages_are_escaped() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;

    let dir = temp_dir("escape");
    let name = "we\nird\x1b[31m\u{202e}\\x.pcap";
    let file = dir.join(name);
    fs::write(&file, pcap(&[eth_frame(&bad_tcp())])).unwrap();
    let shown = format!("{}/we\\nird\\x1b[31m\\u{{202e}}\\\\x.pcap", dir.display());
    let raw = |out: &Output| {
        let all = [&out.stdout[..], &out.stderr[..]].concat();
        assert!(!all.contains(&0x1b), "{}", String::from_utf8_lossy(&all));
        assert!(
            !String::from_utf8_lossy(&all).contains('\u{202e}'),
            "{}",
            String::from_utf8_lossy(&all)
        );
    };
    let out = fastpath(&["pcap", "verify", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    raw(&out);
    let text = stdout(&out);
    assert!(text.starts_with(&format!("{shown}: pcap")), "{text}");
    // JSON escapes too, and reads back as the name.
    for flag in ["--json", "--json-summary"] {
        let out = fastpath(&["pcap", "verify", flag, file.to_str().unwrap()]);
        raw(&out);
        for v in json_lines(&out) {
            assert_eq!(v["file"], file.to_str().unwrap());
        }
        assert!(
            stdout(&out).contains("\\u001b[31m\\u202e"),
            "{}",
            stdout(&out)
        );
    }
    // Errors: a name that can't be opened, a file cut short.
    let cut = dir.join("cut\x1b.pcap");
    let bytes = pcap(&[eth_frame(&good_tcp()), eth_frame(&good_tcp())]);
    fs::write(&cut, &bytes[..bytes.len() - 3]).unwrap();
    let missing = dir.join("missing\n\x1b.pcap");
    let out = fastpath(&["pcap", "verify", path(&cut), path(&missing)]);
    assert_eq!(out.status.code(), Some(2));
    raw(&out);
    let message = stderr(&out);
    assert!(
        message.contains(&format!("{}/cut\\x1b.pcap: truncated file", dir.display())),
        "{message}"
    );
    assert!(
        message.contains(&format!(
            "{}/missing\\n\\x1b.pcap: cannot open",
            dir.display()
        )),
        "{message}"
    );
    assert_eq!(message.lines().count(), 2, "{message}");
    // A name that is no UTF-8: its bytes.
    let odd = dir.join(OsStr::from_bytes(b"odd\xff.pcap"));
    fs::write(&odd, pcap(&[eth_frame(&good_tcp())])).unwrap();
    let out = Command::new(FASTPATH)
        .args(["pcap", "verify"])
        .arg(&odd)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stdout(&out).starts_with(&format!("{}/odd\\xff.pcap: ", dir.display())),
        "{}",
        stdout(&out)
    );
    fs::remove_dir_all(dir).unwrap();
}

#[test]
fn exit_status_has_a_bit_for_bad_and_one_for_unreadable() {
    let dir = temp_dir("status");
    let good = dir.join("good.pcap");
    let bad = dir.join("bad.pcap");
    let missing = dir.join("missing.pcap");
    fs::write(&good, pcap(&[eth_frame(&good_tcp())])).unwrap();
    fs::write(&bad, pcap(&[eth_frame(&bad_tcp())])).unwrap();
    // Cut short after a frame, bad or good.
    let cut_bad = dir.join("cut-bad.pcap");
    let cut_good = dir.join("cut-good.pcap");
    let with_bad = pcap(&[eth_frame(&bad_tcp()), eth_frame(&good_tcp())]);
    let all_good = pcap(&[eth_frame(&good_tcp()), eth_frame(&good_tcp())]);
    fs::write(&cut_bad, &with_bad[..with_bad.len() - 5]).unwrap();
    fs::write(&cut_good, &all_good[..all_good.len() - 5]).unwrap();
    for (files, status) in [
        (vec![&good], 0),
        (vec![&bad], 1),
        (vec![&good, &bad], 1),
        (vec![&missing], 2),
        (vec![&good, &missing], 2),
        (vec![&cut_good], 2),
        (vec![&missing, &bad], 3),
        (vec![&bad, &missing], 3),
        (vec![&cut_bad], 3),
        (vec![&cut_good, &bad], 3),
    ] {
        let names: Vec<&str> = files.iter().map(|f| path(f)).collect();
        for mode in [None, Some("--json"), Some("--json-summary")] {
            let mut args = vec!["pcap", "verify"];
            args.extend(mode);
            args.extend(&names);
            let out = fastpath(&args);
            assert_eq!(
                out.status.code(),
                Some(status),
                "{args:?}: {}",
                stderr(&out)
            );
        }
    }
    fs::remove_dir_all(dir).unwrap();
}

/// IP packets of every kind the walk meets: tunnels, fragments, cuts.
fn packets() -> Vec<Vec<u8>> {
    let frames = partly_verified();
    let mut packets: Vec<Vec<u8>> = frames
        .iter()
        .filter(|f| f.bytes.len() > 14)
        .map(|f| f.bytes[14..f.snaplen.unwrap_or(usize::MAX).min(f.bytes.len())].to_vec())
        .collect();
    packets.extend([
        vxlan(&eth(&bad_tcp())),
        ipv4(47, &[&[0, 0, 0x08, 0x00][..], &bad_tcp()].concat()),
        ipv4(41, &ipv6(17, &udp(&A6, &payload(20)))),
        nested(8, bad_tcp()),
        nested(3, vxlan(&eth(&nested(2, good_tcp())))),
        tcp_computing_zero(0xffff),
        ipv4(1, &[0, 0, 0xff, 0xff, 0, 0, 0, 0]),
    ]);
    packets
}

#[test]
fn inspect_walk_reports_what_inspect_reports() {
    for packet in packets() {
        for cut in 0..=packet.len() {
            let bytes = &packet[..cut];
            let (mut a, mut b) = (Vec::new(), Vec::new());
            let walked = layers::inspect_walk(bytes, &mut b);
            assert_eq!(layers::inspect(bytes, &mut a).is_ok(), walked.is_ok());
            assert_eq!(a, b);
            if let Ok(end) = walked {
                assert!(end.start < bytes.len().max(1));
                assert!(end.depth <= layers::MAX_DEPTH);
                assert!(b.iter().all(|l| l.depth <= end.depth + 1));
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn inspect_walk_reports_what_inspect_reports_on_mutations(
        pick in any::<prop::sample::Index>(),
        mutations in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
    ) {
        let packets = packets();
        let mut packet = pick.get(&packets).clone();
        for (at, value) in &mutations {
            let i = at.index(packet.len());
            packet[i] = *value;
        }
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let walked = layers::inspect_walk(&packet, &mut b);
        prop_assert_eq!(layers::inspect(&packet, &mut a).is_ok(), walked.is_ok());
        prop_assert_eq!(a, b);
    }
}

#[test]
fn frames_with_no_ip_are_told_apart_by_what_their_link_layer_names() {
    let dir = temp_dir("no-ip");
    let file = dir.join("a.pcapng");
    let stp = [0x42, 0x42, 0x03, 0, 0, 0, 0, 0];
    let frames = [
        // Protocols that carry no IP: no gap.
        frame(113, sll(0x0806, &[0; 28])),
        frame(1, ethernet(&[0x8100], 0x0806, &[0; 28])),
        frame(1, ethernet(&[], 0x0026, &stp)),
        // A protocol that may carry IP, not decoded: MACsec.
        frame(113, sll(0x88e5, &[0; 40])),
        frame(1, ethernet(&[0x8100], 0x88e5, &[0; 40])),
        // Raw IP of version 5.
        frame(101, vec![0x55; 20]),
        // Cut in the Ethernet header; an IPv4 EtherType with nothing after.
        frame(1, vec![2; 10]),
        frame(1, ethernet(&[], 0x0800, &[])),
    ];
    fs::write(&file, capture::pcapng(true, &frames)).unwrap();
    let out = fastpath(&["pcap", "verify", "--json-summary", path(&file)]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let summary = &json_lines(&out)[0]["summary"];
    // The custom block after the first frame is a frame too.
    assert_eq!(
        (summary["frames"].as_u64(), summary["not ip"].as_u64()),
        (Some(9), Some(8))
    );
    assert_eq!(summary["checksums"], 0);
    assert_eq!(
        summary["not verified"],
        serde_json::json!({
            "ethertype 0x88e5": 2,
            "no ip, link type 101": 1,
            "link header cut": 1,
            "headers cut": 1,
        })
    );
    fs::remove_dir_all(dir).unwrap();
}
