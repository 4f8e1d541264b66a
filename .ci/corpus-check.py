#!/usr/bin/env python3
"""Agreement of `fastpath pcap verify` with tshark on a corpus of captures.

Run by hand, not in CI (the corpora are public test captures kept out of
the repository): every *.pcap, *.pcapng and *.cap file under the given
directories (and every file given) is read by tshark (checksum validation
on, IP reassembly off, as .ci/tshark-check.sh runs it) and by `fastpath
pcap verify --json`, and their verdicts are compared as .ci/tshark-check.sh
compares them: for each frame and protocol, tshark's occurrences in order
against fastpath's lines in the order of their depth (a tunnel's inner
headers after the outer ones), one by one. A verdict that only one of them
gives counts as a difference. The verdicts at depth 0 are also counted
apart.

    python3 .ci/corpus-check.py [--fastpath BIN] [--list N] DIR|FILE...

Prints the agreement, the differences by kind (fastpath's verdict, then
tshark's), and the first N differences (default 40) with their files and
frames.
"""

import argparse
import collections
import json
import os
import subprocess
import sys

# tshark's *.checksum.status values.
TSHARK = {"0": "bad", "1": "good", "2": "unverified", "3": "absent", "4": "illegal"}
PROTOS = ["ipv4", "tcp", "udp", "icmp", "icmpv6"]
FIELDS = ["ip", "tcp", "udp", "icmp", "icmpv6"]


def tshark_verdicts(path):
    """{(frame, proto): [status, ...]} in order of occurrence, or None if
    tshark cannot read the file."""
    args = ["tshark", "-n", "-r", path,
            "-o", "ip.check_checksum:TRUE", "-o", "tcp.check_checksum:TRUE",
            "-o", "udp.check_checksum:TRUE", "-o", "udplite.check_checksum:TRUE",
            "-o", "ip.defragment:FALSE", "-o", "ipv6.defragment:FALSE",
            "-T", "fields", "-E", "occurrence=a", "-E", "aggregator=,",
            "-e", "frame.number"]
    for field in FIELDS:
        args += ["-e", f"{field}.checksum.status"]
    run = subprocess.run(args, capture_output=True, text=True)
    verdicts = {}
    for line in run.stdout.splitlines():
        cells = line.split("\t")
        if len(cells) < 6 or not cells[0].isdigit():
            continue
        for proto, cell in zip(PROTOS, cells[1:]):
            if cell:
                verdicts[(int(cells[0]), proto)] = [TSHARK.get(c, c) for c in cell.split(",")]
    if run.returncode != 0 and not verdicts:
        return None
    return verdicts


def fastpath_verdicts(binary, path):
    """({(frame, proto): [status, ...]} by depth, exit status, stderr)."""
    run = subprocess.run([binary, "pcap", "verify", "--json", path],
                         capture_output=True, text=True)
    verdicts = {}
    for line in run.stdout.splitlines():
        try:
            obj = json.loads(line)
        except json.JSONDecodeError:
            continue
        if "frame" not in obj:
            continue
        # tshark reports UDP-Lite's checksum in udp.checksum.status.
        proto = "udp" if obj["proto"] == "udplite" else obj["proto"]
        verdicts.setdefault((obj["frame"], proto), []).append((obj["depth"], obj["status"]))
    ordered = {key: [status for _, status in sorted(v, key=lambda x: x[0])]
               for key, v in verdicts.items()}
    depth0 = {key for key, v in verdicts.items() if any(d == 0 for d, _ in v)}
    return ordered, depth0, run.returncode, run.stderr.strip()


def captures(dirs):
    for top in dirs:
        if os.path.isfile(top):
            yield top
            continue
        for root, _, files in os.walk(top):
            for name in sorted(files):
                if name.endswith((".pcap", ".pcapng", ".cap")):
                    yield os.path.join(root, name)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dirs", nargs="+", metavar="DIR|FILE")
    parser.add_argument("--fastpath", default="target/release/fastpath")
    parser.add_argument("--list", type=int, default=40)
    args = parser.parse_args()

    total = agree = total0 = agree0 = 0
    kinds = collections.Counter()
    differences = []
    files = unreadable = errors = 0
    for path in captures(args.dirs):
        theirs = tshark_verdicts(path)
        if theirs is None:
            unreadable += 1
            continue
        files += 1
        ours, depth0, status, stderr = fastpath_verdicts(args.fastpath, path)
        if status == 2:
            errors += 1
            differences.append((path, 0, "-", "error: " + stderr.splitlines()[-1]
                                if stderr else "error", "read"))
        for key in sorted(set(theirs) | set(ours)):
            mine, their = ours.get(key, []), theirs.get(key, [])
            for i in range(max(len(mine), len(their))):
                a = mine[i] if i < len(mine) else "none"
                b = their[i] if i < len(their) else "none"
                total += 1
                # Depth 0: fastpath's line at depth 0, or tshark's first
                # occurrence where fastpath has none.
                first = i == 0 and (key in depth0 or not mine)
                total0 += first
                if a == b:
                    agree += 1
                    agree0 += first
                    continue
                kinds[(key[1], a, b)] += 1
                differences.append((path, key[0], key[1] + ("" if i == 0 else f"#{i + 1}"), a, b))

    print(f"{files} captures tshark reads ({unreadable} it does not), "
          f"{errors} that fastpath stops on")
    share = 100.0 * agree / total if total else 100.0
    print(f"verdicts: {agree} of {total} agree ({share:.2f}%)")
    share0 = 100.0 * agree0 / total0 if total0 else 100.0
    print(f"depth-0 verdicts: {agree0} of {total0} agree ({share0:.2f}%)")
    print("differences by kind (protocol: fastpath / tshark):")
    for (proto, a, b), n in kinds.most_common():
        print(f"  {n:6}  {proto}: {a} / {b}")
    print(f"first {args.list} differences:")
    for path, frame, proto, a, b in differences[:args.list]:
        print(f"  {path} frame {frame} {proto}: fastpath {a}, tshark {b}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
