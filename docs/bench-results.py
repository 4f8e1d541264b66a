#!/usr/bin/env python3
"""Extract the results of a `fastpath bench` run for BENCHMARKS.md.

From the text output of `fastpath bench` (with `--check`), keep:
  - the header (the lines up to the first blank line: CPU, Active tier,
    Timer, Method, Calls, Rounds, Blocks, Bound),
  - each primitive's "<name>: median of N rounds per row" line,
  - every "... summary" block, from its title line to the blank line after
    its table,
  - the final `bench --check` lines.

Usage:
  extract.py RUN.txt
      print the extracted lines, as they are in RUN.txt
  extract.py --markdown RUN.txt
      print them as a section body of BENCHMARKS.md (code blocks under one
      heading per primitive)
  extract.py --targets NATIVE.txt AVX2.txt
      print the table of the issue's targets, read from the summaries
  extract.py --update PAGE native=NATIVE.txt avx2=AVX2.txt
      rewrite, in PAGE, what lies between `<!-- generated: NAME -->` and
      `<!-- end generated: NAME -->` for each NAME given (the runs' sections),
      and for `targets` (the targets table, from the native and avx2 runs)
"""

import re
import sys

# The heading of each primitive's summaries, by the name the bench prints
# (BENCHMARKS.md describes what each one measures).
TITLES = {
    "checksum": "Checksum",
    "copy": "Copy and checksum",
    "memcpy": "Copy",
    "fill": "Fill",
}


def parse(path):
    """The header lines, the primitives in order ({name: (rounds line,
    [summary blocks])}), and the `bench --check` lines of a run."""
    lines = open(path, encoding="utf-8").read().split("\n")
    header = []
    for line in lines:
        if not line.strip():
            break
        header.append(line)
    primitives = {}
    check = []
    i = len(header)
    while i < len(lines):
        line = lines[i]
        m = re.match(r"^(\S+): median of \d+ rounds per row$", line)
        if m:
            primitives.setdefault(m.group(1), [None, []])[0] = line
        m = re.match(r"^(\S+) summary, ", line)
        if m:
            block = []
            while i < len(lines) and lines[i].strip():
                block.append(lines[i])
                i += 1
            primitives.setdefault(m.group(1), [None, []])[1].append(block)
            continue
        if line.startswith("bench --check:"):
            check = []
            while i < len(lines) and lines[i].strip():
                check.append(lines[i])
                i += 1
            continue
        i += 1
    if not header or not primitives or not check:
        sys.exit(f"{path}: no header, summary or `bench --check` lines found")
    return header, primitives, check


def plain(path):
    header, primitives, check = parse(path)
    out = header + [""]
    for rounds, blocks in primitives.values():
        if rounds:
            out += [rounds, ""]
        for block in blocks:
            out += block + [""]
    return "\n".join(out + check) + "\n"


def markdown(path):
    header, primitives, check = parse(path)
    out = ["```text"] + header + ["```", ""]
    for name, (rounds, blocks) in primitives.items():
        out += [f"### {TITLES.get(name, name)}", ""]
        body = ([rounds, ""] if rounds else []) + sum((b + [""] for b in blocks), [])
        out += ["```text"] + body[:-1] + ["```", ""]
    out += ["### `bench --check`", "", "```text"] + check + ["```"]
    return "\n".join(out) + "\n"


# --- the targets ---------------------------------------------------------


def table(block):
    """A summary block as (columns, rows): each row a dict of its cells, the
    cells cut at the columns' start in the header line."""
    head = next(i for i, line in enumerate(block) if line.startswith("Block size"))
    starts = [m.start() for m in re.finditer(r"\S+(?: \S+)*", block[head])]
    bounds = list(zip(starts, starts[1:] + [None]))
    columns = [block[head][a:b].strip() for a, b in bounds]
    rows = [
        {c: line[a:b].strip() for c, (a, b) in zip(columns, bounds)}
        for line in block[head + 1 :]
    ]
    return columns, rows


def cell(text):
    """'1.62× (88%)' -> (1.62, 0.88); '1.62×' -> (1.62, None)."""
    m = re.match(r"([\d.]+)×(?: \((\d+)%\))?", text)
    return float(m.group(1)), (int(m.group(2)) / 100 if m.group(2) else None)


def rows_of(primitives, name, baseline=None):
    """The rows of primitive `name`'s summary (against `baseline`, if it has
    several), each as (block size label, size or None, ratio, efficiency)."""
    for block in primitives[name][1]:
        if baseline and f"× {baseline}" not in block[0]:
            continue
        columns, rows = table(block)
        column = next(c for c in columns if "(dispatch:" in c)
        out = []
        for row in rows:
            label = row["Block size"]
            size = None if label.startswith("random") else int(label.split()[0])
            ratio, efficiency = cell(row[column])
            out.append((label, size, ratio, efficiency))
        return out
    raise KeyError(f"no {name} summary against {baseline}")


def fmt(rows, value=lambda r: f"{r[2]:.2f}×"):
    return ", ".join(f"{value(r)} ({r[0]})" for r in rows)


def targets(native_path, avx2_path):
    runs = {"AVX-512 (native)": parse(native_path), "AVX2-only": parse(avx2_path)}
    out = [
        "| target | regime | measured (dispatch column) | |",
        "|---|---|---|---|",
    ]

    def verdict(ok):
        return "met" if ok else "**not met**"

    def checksum(regime, sizes, floor, what):
        rows = [r for r in rows_of(runs[regime][1], "checksum") if r[1] in sizes]
        short = [r[0] for r in rows if r[2] < floor]
        result = verdict(not short) + (f" at {', '.join(short)} B" if short else "")
        out.append(f"| checksum ≥ {floor}× the fastest baseline at {what} | {regime} | "
                   f"{fmt(rows)} | {result} |")

    checksum("AVX-512 (native)", (1500, 1501), 2.5, "1500 B")
    checksum("AVX-512 (native)", (9000, 9001), 3.0, "9000 B")
    checksum("AVX2-only", (1500, 1501), 2.2, "1500 B")
    checksum("AVX2-only", (9000, 9001), 2.6, "9000 B")
    checksum("AVX2-only", (65536, 65537), 2.0, "64 KiB")

    for regime, (_, primitives, check) in runs.items():
        rows = rows_of(primitives, "memcpy")
        low = min(rows, key=lambda r: r[2])
        failures = [line.strip() for line in check if line.startswith("  memcpy:")]
        failed = [re.sub(r"^memcpy: fastpath \(dispatch: \w+\), ", "", f)
                  .replace(" copy_from_slice", "") for f in failures]
        measured = f"lowest summary row {low[2]:.2f}× ({low[0]}); `--check`: " + (
            "every row ≥ 0.97×" if not failed else
            f"{len(failed)} rows below 0.97× in every measurement: " + ", ".join(failed))
        out.append(f"| copy ≥ 0.97× `copy_from_slice` on every row | {regime} | "
                   f"{measured} | {verdict(not failed)} |")

    for regime, (_, primitives, _) in runs.items():
        rows = rows_of(primitives, "memcpy")
        fixed = [r for r in rows if r[1] is not None and r[1] <= 64]
        mix = [r for r in rows if r[0] == "random 0..=64"]
        low = min(fixed, key=lambda r: r[2])
        ok = low[2] >= 1.3 and all(r[2] >= 1.3 for r in mix)
        out.append(f"| copy ≥ 1.3× `copy_from_slice` at fixed sizes ≤ 64 B and "
                   f"on random 0..=64 | {regime} | fixed: lowest {low[2]:.2f}× "
                   f"({low[0]}); {fmt(mix)} | {verdict(ok)} |")

    for name, what, bound in (("fill", "fill", "the store bound"),
                              ("memcpy", "copy", "the load+store bound")):
        for regime, (_, primitives, _) in runs.items():
            rows = [r for r in rows_of(primitives, name) if r[1] and 1500 <= r[1] <= 65536]
            low = min(rows, key=lambda r: r[3])
            ok = low[3] >= 0.85
            out.append(f"| {what} ≥ 85% of {bound} from 1500 B to 64 KiB | {regime} | "
                       f"lowest {low[3]:.0%} ({low[0]}) | {verdict(ok)} |")
    return "\n".join(out) + "\n"


def update(page, args):
    runs = dict(arg.split("=", 1) for arg in args)
    text = open(page, encoding="utf-8").read()
    blocks = {name: markdown(path) for name, path in runs.items()}
    if "native" in runs and "avx2" in runs:
        blocks["targets"] = targets(runs["native"], runs["avx2"])
    for name, body in blocks.items():
        pattern = re.compile(
            rf"(<!-- generated: {re.escape(name)} -->\n).*?(<!-- end generated: {re.escape(name)} -->)",
            re.S,
        )
        if not pattern.search(text):
            sys.exit(f"{page}: no `<!-- generated: {name} -->` block")
        text = pattern.sub(lambda m: m.group(1) + "\n" + body + "\n" + m.group(2), text)
    open(page, "w", encoding="utf-8").write(text)


def main(argv):
    if len(argv) == 2 and not argv[1].startswith("--"):
        sys.stdout.write(plain(argv[1]))
    elif len(argv) == 3 and argv[1] == "--markdown":
        sys.stdout.write(markdown(argv[2]))
    elif len(argv) == 4 and argv[1] == "--targets":
        sys.stdout.write(targets(argv[2], argv[3]))
    elif len(argv) >= 4 and argv[1] == "--update":
        update(argv[2], argv[3:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
