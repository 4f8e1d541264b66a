#!/usr/bin/env python3
"""BENCHMARKS.md's tables, written from the measurements in benchmarks/results/.

Each file benchmarks/results/CPU.csv holds what was measured on one CPU, one
table cell a line, under the header `table,row,column,value,unit`:

  table   the table's name; BENCHMARKS.md shows it between the lines
          `<!-- table:CPU/TABLE -->` and `<!-- end -->`
  row     the cell's row label (the table's first column)
  column  the cell's column header; a line with an empty column names,
          in `row`, the header of the first column
  value   a number, a range `low-high` over the runs measured, or text
  unit    `×` (a ratio of speeds: the baseline's time ÷ the
          implementation's) or `%` (an efficiency: the bound's time ÷ the
          implementation's), shown right after the value; a unit of
          measure (`ns`, `ms`, `s`, `GB/s`, `M` for millions, ...), shown
          after a space; or empty

Rows and columns are shown in the order of their first line; a cell with no
line is empty. Only `python3` and its standard library are needed.

Usage:
  render.py [PAGE] [-o OUT]
      write every table of PAGE (by default the BENCHMARKS.md of the
      directory above this one) from the CSVs, in place or into OUT
  render.py import CPU REGIME RUN.jsonl [NOTES.txt]
      write into CPU.csv the summaries of a `fastpath bench --json` run
      (RUN.jsonl: its standard output), one table per summary the bench
      prints, named REGIME-PRIMITIVE, and REGIME-PRIMITIVE-vs-BASELINE for
      a primitive's second baseline, and REGIME-check, its `bench --check`
      verdict (NOTES.txt: its standard error, with `--check`): each in
      place of the table of that name, the others left as they are
  render.py targets CPU NATIVE AVX2 [NATIVE2 AVX2-2]
      write the table `targets` of CPU.csv: fastpath's targets against the
      tables of the runs imported as NATIVE (the AVX-512 regime) and AVX2
      (the AVX2-only regime); `-` for NATIVE on a CPU without AVX-512.
      With a second run of each regime imported as NATIVE2 and AVX2-2, a
      row of the short targets (fixed lengths up to 64 bytes, random
      lengths up to 64) misses only if it misses in both runs, as a row
      fails `--check` only if it fails when measured again
"""

import csv
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
PAGE = HERE.parent / "BENCHMARKS.md"
FIELDS = ["table", "row", "column", "value", "unit"]
# The floor of `fastpath bench --check` (cli/src/bench/check.rs, FLOOR).
FLOOR = 0.97


# --- the CSVs -------------------------------------------------------------


def read(cpu):
    """The lines of CPU.csv, as dicts of FIELDS, in order."""
    path = RESULTS / f"{cpu}.csv"
    with open(path, encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        if reader.fieldnames != FIELDS:
            sys.exit(f"{path}: the header is not {','.join(FIELDS)}")
        return list(reader)


def write(cpu, lines):
    path = RESULTS / f"{cpu}.csv"
    with open(path, "w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, FIELDS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(lines)


def replace(lines, belongs, new):
    """`lines` with those for which `belongs(table)` holds replaced by `new`,
    where the first of them was (at the end if there was none)."""
    at = next((i for i, line in enumerate(lines) if belongs(line["table"])), len(lines))
    kept = [line for line in lines if not belongs(line["table"])]
    at -= sum(1 for line in lines[:at] if belongs(line["table"]))
    return kept[:at] + new + kept[at:]


def table(lines, name):
    """Table `name` of `lines`: (first column's header, rows in order,
    columns in order, {(row, column): (value, unit)})."""
    head, rows, columns, cells = "", [], [], {}
    for line in lines:
        if line["table"] != name:
            continue
        row, column = line["row"], line["column"]
        if not column:
            head = row
            continue
        if row not in rows:
            rows.append(row)
        if column not in columns:
            columns.append(column)
        cells[(row, column)] = (line["value"], line["unit"])
    if not rows:
        raise KeyError(name)
    return head, rows, columns, cells


def shown(value, unit):
    return value + unit if unit in ("×", "%") else f"{value} {unit}".strip()


def numeric(text):
    return re.match(r"[-+]?\d", text) is not None


def markdown(lines, name):
    """Table `name` as a Markdown table: numbers right-aligned."""
    head, rows, columns, cells = table(lines, name)
    text = {
        (row, column): shown(*cells[(row, column)]) if (row, column) in cells else ""
        for row in rows
        for column in columns
    }
    right = [
        all(numeric(text[(row, column)]) for row in rows if text[(row, column)])
        for column in columns
    ]
    def line(cells):
        return "|" + "|".join(f" {cell} " if cell else " " for cell in cells) + "|"

    out = [line([head] + columns)]
    out.append("|---|" + "".join("---:|" if r else "---|" for r in right))
    out += [line([row] + [text[(row, c)] for c in columns]) for row in rows]
    return "\n".join(out) + "\n"


# --- rendering the page ---------------------------------------------------

MARKER = re.compile(r"(<!-- table:([\w.-]+)/([\w.-]+) -->\n).*?(<!-- end -->)", re.S)


def render(text):
    csvs = {}

    def fill(m):
        cpu, name = m.group(2), m.group(3)
        if cpu not in csvs:
            csvs[cpu] = read(cpu)
        try:
            body = markdown(csvs[cpu], name)
        except KeyError:
            sys.exit(f"benchmarks/results/{cpu}.csv has no table {name}")
        return m.group(1) + "\n" + body + "\n" + m.group(4)

    return MARKER.sub(fill, text)


# --- importing a run ------------------------------------------------------


def slug(text):
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def row_label(alignment, size):
    """The row's label as the bench's summary prints it (`Case::size_label`);
    None for the aligned rows, which the summary leaves out."""
    if alignment == "aligned":
        return None
    if alignment == "unaligned":
        return str(size)
    m = re.fullmatch(r"src(\d+)-dst(\d+)", alignment)
    if m:
        return f"{size} src+{m.group(1)} dst+{m.group(2)}"
    m = re.fullmatch(r"near-dst(\d+)", alignment)
    if m:
        return f"{size} dst {m.group(1)} past src"
    labels = {
        "random-uniform": f"random 0..={size}",
        "random-log-uniform": f"random log 1..={size}",
        "random-window": f"random 0..={size} in 32 KiB",
    }
    if alignment in labels:
        return labels[alignment]
    sys.exit(f"unknown alignment {alignment!r}")


def efficiency_column(dispatch, dispatches):
    """The header of the efficiency column after the entry point `dispatch`."""
    if len(dispatches) == 1:
        return "efficiency"
    return dispatch.split(" (")[0].removeprefix("fastpath::") + " efficiency"


def summaries(primitive, measured, regime):
    """The lines of the tables of one primitive's summaries, as the bench
    prints them (`report::summary`): for each row but the aligned ones, the
    baseline, its time, each tier's and entry point's ratio to it, and each
    entry point's efficiency."""
    impls, kinds, cases, times, effs = [], {}, [], {}, {}
    compare_with, unit = None, None
    for m in measured:
        if m["impl"] not in kinds:
            impls.append(m["impl"])
            kinds[m["impl"]] = m["kind"]
        case = (m["alignment"], m["size"])
        if case not in cases:
            cases.append(case)
        times[case + (m["impl"],)] = m["cycles_per_block"]
        effs[case + (m["impl"],)] = m["efficiency"]
        compare_with = m.get("compare_with")
        unit = m["unit"]
    if compare_with is None:
        sys.exit("the JSON lines name no compare_with: the run of an older fastpath")
    baselines = [i for i in impls if kinds[i] == "baseline"]
    ours = [i for i in impls if kinds[i] in ("tier", "dispatch")]
    dispatches = [i for i in ours if kinds[i] == "dispatch"]
    per_block = ("TSC cycles" if unit == "tsc_cycles" else "ns") + "/block"
    if not baselines or not ours:
        return []
    picks = [(None, "Fastest baseline")] if not compare_with else [(b, "Baseline") for b in compare_with]
    out = []
    for k, (named, header) in enumerate(picks):
        name = f"{regime}-{slug(primitive)}" + (f"-vs-{slug(named)}" if k else "")
        lines = [dict(table=name, row="Block size", column="", value="", unit="")]

        def cell(row, column, value, unit=""):
            lines.append(dict(table=name, row=row, column=column, value=value, unit=unit))

        for case in cases:
            label = row_label(*case)
            if label is None:
                continue
            base = named or min(baselines, key=lambda b: times[case + (b,)])
            best = times[case + (base,)]
            cell(label, header, base)
            cell(label, per_block, f"{best:.1f}")
            for i in ours:
                cell(label, i, f"{best / times[case + (i,)]:.2f}", "×")
                if kinds[i] == "dispatch" and effs[case + (i,)] is not None:
                    cell(label, efficiency_column(i, dispatches), f"{100 * effs[case + (i,)]:.0f}", "%")
        out += lines
    return out


CHECK_LINE = re.compile(r"^  (.+?): (.+? \(dispatch: [^)]*\)), (.+): ((?:[\d.]+×, )*[\d.]+×) (.+)$")


def check_table(notes, regime):
    """The `bench --check` verdict of a run's notes as table REGIME-check:
    a row per failing row, the ratio of each measurement."""
    name = f"{regime}-check"
    lines = [dict(table=name, row="row", column="", value="", unit="")]
    text = open(notes, encoding="utf-8").read().split("\n")
    start = next((i for i, line in enumerate(text) if line.startswith("bench --check:")), None)
    if start is None:
        sys.exit(f"{notes}: no `bench --check` verdict")
    for line in text[start + 1 :]:
        if not line.strip():
            break
        m = CHECK_LINE.match(line)
        if not m:
            sys.exit(f"{notes}: not a line of the verdict: {line!r}")
        primitive, implementation, row, ratios, baseline = m.groups()
        label = f"{primitive}: {row}"
        # `fill` and `fill_nontemporal` share the rows of their tables.
        if "fill_nontemporal" in implementation:
            label += " (fill_nontemporal)"
        lines.append(dict(table=name, row=label, column="entry point", value=implementation, unit=""))
        lines.append(dict(table=name, row=label, column="baseline", value=baseline, unit=""))
        for k, ratio in enumerate(ratios.split(", "), 1):
            lines.append(dict(table=name, row=label, column=str(k), value=ratio.rstrip("×"), unit="×"))
    if len(lines) == 1:
        lines.append(dict(table=name, row="every row", column="entry point",
                          value=f"every entry point at least {FLOOR}× its baseline's speed", unit=""))
    return lines


def import_run(cpu, regime, run, notes=None):
    measured = {}
    for line in open(run, encoding="utf-8"):
        if line.startswith("{"):
            m = json.loads(line)
            measured.setdefault(m["primitive"], []).append(m)
    if not measured:
        sys.exit(f"{run}: no JSON lines")
    new = []
    for primitive, lines in measured.items():
        new += summaries(primitive, lines, regime)
    if notes:
        new += check_table(notes, regime)
    path = RESULTS / f"{cpu}.csv"
    old = read(cpu) if path.exists() else []
    # Only the tables this import writes: a table of the CPU's file whose
    # name merely starts with REGIME- (one edited by hand) stays.
    written = {line["table"] for line in new}
    write(cpu, replace(old, lambda t: t in written, new))


# --- the targets ----------------------------------------------------------


def dispatch_rows(lines, name):
    """The rows of summary `name`: (label, size or None, the entry point's
    ratio, its efficiency), the entry point the first dispatch column."""
    _, rows, columns, cells = table(lines, name)
    dispatch = next(c for c in columns if "(dispatch:" in c)
    dispatches = [c for c in columns if "(dispatch:" in c]
    eff = efficiency_column(dispatch, dispatches)
    out = []
    for row in rows:
        size = None if row.startswith("random") else int(row.split()[0])
        ratio = float(cells[(row, dispatch)][0])
        e = cells.get((row, eff))
        out.append((row, size, ratio, float(e[0]) / 100 if e else None))
    return out


def check_rows(lines, name, primitive):
    """The failing rows of `primitive` in check table `name`, as the verdict
    names them: `ROW: r1×, r2×, ...`."""
    _, rows, columns, cells = table(lines, name)
    out = []
    for row in rows:
        if not row.startswith(f"{primitive}: "):
            continue
        ratios = [shown(*cells[(row, c)]) for c in columns if c.isdigit() and (row, c) in cells]
        out.append(row.removeprefix(f"{primitive}: ") + ": " + ", ".join(ratios))
    return out


def targets(cpu, native, avx2, native2=None, avx2_2=None):
    lines = read(cpu)
    # `-` for a regime the CPU does not have (no AVX-512: its native run is
    # the AVX2 one).
    regimes = {k: v for k, v in (("AVX-512 (native)", native), ("AVX2-only", avx2)) if v != "-"}
    # The second run of each regime, if imported: the short targets' rows
    # are judged on the better of the two (see the usage).
    seconds = {k: v for k, v in (("AVX-512 (native)", native2), ("AVX2-only", avx2_2))
               if v not in (None, "-") and k in regimes}
    name = "targets"
    out = [dict(table=name, row="regime: target", column="", value="", unit="")]

    def add(target, regime, measured, ok, why=""):
        row = f"{regime}: {target}"
        for column, value in (("measured (dispatch column)", measured),
                              ("verdict", "met" if ok else "**not met**" + why)):
            out.append(dict(table=name, row=row, column=column, value=value, unit=""))

    def fmt(rows):
        return ", ".join(f"{r[2]:.2f}× ({r[0]})" for r in rows)

    for regime, sizes, floor, what in (
        ("AVX-512 (native)", (1500, 1501), 2.5, "1500 B"),
        ("AVX-512 (native)", (9000, 9001), 3.0, "9000 B"),
        ("AVX2-only", (1500, 1501), 2.2, "1500 B"),
        ("AVX2-only", (9000, 9001), 2.6, "9000 B"),
        ("AVX2-only", (65536, 65537), 2.0, "64 KiB"),
    ):
        if regime not in regimes:
            continue
        rows = [r for r in dispatch_rows(lines, f"{regimes[regime]}-checksum") if r[1] in sizes]
        short = [r[0] for r in rows if r[2] < floor]
        add(f"checksum ≥ {floor}× the fastest baseline at {what}", regime, fmt(rows), not short,
            f" at {', '.join(short)} B" if short else "")

    for regime, prefix in regimes.items():
        rows = dispatch_rows(lines, f"{prefix}-memcpy")
        low = min(rows, key=lambda r: r[2])
        failed = check_rows(lines, f"{prefix}-check", "memcpy")
        measured = f"lowest summary row {low[2]:.2f}× ({low[0]}); `--check`: " + (
            f"every row ≥ {FLOOR}×" if not failed
            else f"{len(failed)} rows below {FLOOR}× in every measurement: " + ", ".join(failed))
        add(f"copy ≥ {FLOOR}× `copy_from_slice` on every row", regime, measured, not failed)

    # The fills, in both of the bench's styles (the check names the rows of
    # the second "fill, as applications call it").
    for regime, prefix in regimes.items():
        failed = check_rows(lines, f"{prefix}-check", "fill")
        failed += ["as applications call it: " + row for row in
                   check_rows(lines, f"{prefix}-check", "fill, as applications call it")]
        measured = "`--check`: " + (
            f"every row ≥ {FLOOR}×" if not failed
            else f"{len(failed)} rows below {FLOOR}× in every measurement: " + "; ".join(failed))
        add(f"fill and fill_nontemporal ≥ {FLOOR}× `memset` on every row, both styles", regime,
            measured, not failed)

    # Issue 29's short target, in the default build: every fixed length up
    # to 64 bytes and the random lengths up to 64, in each style the bench
    # has (the fill's two summaries; the copy's rows over a page and in a
    # 32 KiB window).
    short_floor = 1.5
    for primitive, what, baseline, tables in (
        ("memcpy", "copy", "`copy_from_slice`", ("memcpy",)),
        ("fill", "fill", "`memset`", ("fill", "fill-as-applications-call-it")),
    ):
        for regime, prefix in regimes.items():
            runs = [prefix] + ([seconds[regime]] if regime in seconds else [])
            fixed, mix = [], []
            for t in tables:
                best = {}
                for run in runs:
                    for r in dispatch_rows(lines, f"{run}-{t}"):
                        if r[0] not in best or r[2] > best[r[0]][2]:
                            best[r[0]] = r
                rows = list(best.values())
                fixed += [r for r in rows if r[1] is not None and r[1] <= 64]
                mix += [r for r in rows if r[0].startswith("random 0..=64")]
            low = min(fixed, key=lambda r: r[2])
            ok = low[2] >= short_floor and all(r[2] >= short_floor for r in mix)
            of = ", the better of two runs" if len(runs) > 1 else ""
            add(f"{what} ≥ {short_floor}× {baseline} at fixed sizes ≤ 64 B and on random 0..=64",
                regime, f"fixed: lowest {low[2]:.2f}× ({low[0]}){of}; {fmt(mix)}", ok)

    for primitive, what, bound in (("fill", "fill", "the store bound"),
                                   ("memcpy", "copy", "the load+store bound")):
        for regime, prefix in regimes.items():
            rows = [r for r in dispatch_rows(lines, f"{prefix}-{primitive}")
                    if r[1] and 1500 <= r[1] <= 65536]
            low = min(rows, key=lambda r: r[3])
            add(f"{what} ≥ 85% of {bound} from 1500 B to 64 KiB", regime,
                f"lowest {low[3]:.0%} ({low[0]})", low[3] >= 0.85)
    write(cpu, replace(lines, lambda t: t == name, out))


# --- the command line -----------------------------------------------------


def main(argv):
    args = argv[1:]
    if args[:1] == ["import"] and len(args) in (4, 5):
        import_run(*args[1:])
    elif args[:1] == ["targets"] and len(args) in (4, 6):
        targets(*args[1:])
    elif not args or args[0] not in ("import", "targets"):
        out = None
        if "-o" in args:
            i = args.index("-o")
            if i + 1 >= len(args):
                sys.exit(__doc__)
            out = args[i + 1]
            args = args[:i] + args[i + 2 :]
        if len(args) > 1 or any(arg.startswith("-") for arg in args):
            sys.exit(__doc__)
        page = Path(args[0]) if args else PAGE
        text = render(page.read_text(encoding="utf-8"))
        Path(out or page).write_text(text, encoding="utf-8")
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
