#!/usr/bin/env python3
"""Compares two sets of `fastpath bench --json` runs, row by row.

For every tier and dispatch row (each primitive, implementation, size and
placement), the ratio to its fastest baseline of the same run (as the bench's
summaries show it) is taken in each run, and its median over the runs of a
set. The script prints, per primitive and kind of row, the median, the
lowest and the highest of AFTER's ratio ÷ BEFORE's, and how many rows moved
by more than 10%; then the rows that moved most. Run it on two sets of runs
of the same binary to see the noise, then on a before and an after.

Usage:
  compare-runs.py BEFORE.jsonl[,BEFORE2.jsonl...] AFTER.jsonl[,AFTER2.jsonl...]
"""

import collections
import json
import statistics
import sys


def load(paths):
    """Each run as a dict from its row key to its JSON object."""
    runs = []
    for path in paths:
        rows = {}
        with open(path, encoding="utf-8") as lines:
            for line in lines:
                row = json.loads(line)
                key = (row["primitive"], row["kind"], row["impl"], str(row["size"]), row["alignment"])
                rows[key] = row
        runs.append(rows)
    return runs


def ratios(runs):
    """Each tier and dispatch row's median ratio to its fastest baseline."""
    out = collections.defaultdict(list)
    for rows in runs:
        for key, row in rows.items():
            if row["kind"] not in ("dispatch", "tier"):
                continue
            primitive, _, _, size, alignment = key
            names = row.get("compare_with") or []
            bases = [rows.get((primitive, "baseline", name, size, alignment)) for name in names]
            bases = [b for b in bases if b]
            if not bases:
                bases = [
                    other
                    for (p, kind, _, s, a), other in rows.items()
                    if (p, kind, s, a) == (primitive, "baseline", size, alignment)
                ]
            if bases:
                fastest = min(b["cycles_per_block"] for b in bases)
                out[key].append(fastest / row["cycles_per_block"])
    return {key: statistics.median(values) for key, values in out.items()}


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    before = ratios(load(sys.argv[1].split(",")))
    after = ratios(load(sys.argv[2].split(",")))
    groups = collections.defaultdict(list)
    for key, ratio in before.items():
        if key in after:
            groups[key[:2]].append((after[key] / ratio, key, ratio, after[key]))
    print("primitive, kind: rows, after ÷ before (each row × its baseline): median (lowest-highest), beyond ±10%")
    for (primitive, kind), moved in sorted(groups.items()):
        values = sorted(m[0] for m in moved)
        beyond = sum(1 for v in values if v < 0.9 or v > 1.1)
        print(
            f"{primitive}, {kind}: {len(values)} rows, {statistics.median(values):.2f} "
            f"({values[0]:.2f}-{values[-1]:.2f}), {beyond}"
        )
    everything = sorted(m for moved in groups.values() for m in moved)
    print("\nmoved most:")
    for change, key, was, now in everything[:5] + everything[-5:]:
        print(f"  {change:.2f}: {was:.2f}× → {now:.2f}×  {' / '.join(key)}")


if __name__ == "__main__":
    main()
