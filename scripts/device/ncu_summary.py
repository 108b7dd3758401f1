#!/usr/bin/env python3
"""Nsight Compute raw pages side by side: time, launch shape, issue, pipes and stall reasons.

    ncu --import REPORT.ncu-rep --csv --page raw > NAME-raw.csv
    scripts/device/ncu_summary.py A-raw.csv B-raw.csv ... [--min-stall 0.05]

One column per file (its first profiled launch), named by the file without "-raw.csv". Rows:
the kernel's duration, SM clock, grid, block, registers, shared memory, warps active,
instructions, issue-slot use, L2 bytes; then every pipe at >= 1% of its peak in some file;
then the stall reasons (warps stalled per issued instruction, ncu's "warp cycles per issued
instruction" split by reason) at >= --min-stall in some file, largest first. Figures are as
ncu printed them. Exit 2 when a file holds no raw page.
"""
import argparse
import csv
import itertools
import os
import re
import sys

FIXED = [
    ("duration", "gpu__time_duration.sum"),
    ("SM clock", "smsp__cycles_elapsed.avg.per_second"),
    ("grid", "launch__grid_size"),
    ("block", "launch__block_size"),
    ("registers/thread", "launch__registers_per_thread"),
    ("dynamic smem/block", "launch__shared_mem_per_block_dynamic"),
    ("CTAs per SM (occupancy limit)", "launch__occupancy_limit_shared_mem"),
    ("warps active % of peak", "sm__warps_active.avg.pct_of_peak_sustained_active"),
    ("instructions", "smsp__inst_executed.sum"),
    ("issue slots busy %", "smsp__issue_active.avg.pct_of_peak_sustained_active"),
    ("L2 bytes", "lts__t_bytes.sum"),
    ("L2 hit %", "lts__t_sector_hit_rate.pct"),
    # What misses L2 (ncu flushes the caches before the profiled launch by default, so this is
    # the compulsory traffic plus the misses of the launch itself).
    ("DRAM bytes read", "dram__bytes_read.sum"),
    ("DRAM bytes written", "dram__bytes_write.sum"),
]
PIPE = re.compile(r"^sm__(\w*pipe_\w+)\.avg\.pct_of_peak_sustained_active$")
STALL = re.compile(r"^smsp__average_warps_issue_stalled_(\w+)_per_issue_active\.ratio$")


def load(path):
    rows = list(csv.reader(open(path, newline="")))
    for i, row in enumerate(rows):
        if "gpu__time_duration.sum" in row and len(rows) > i + 2:
            # The row after the names holds the units, which ncu picks per value (a duration
            # may come in ns or us, bytes in Kbyte or Mbyte): kept beside each value.
            # A short units row (or value row) leaves its tail blank, never drops the metrics past it.
            return {name: (value, unit) for name, unit, value in
                    itertools.zip_longest(row, rows[i + 1], rows[i + 2], fillvalue="") if name}
    return None


def num(text):
    try:
        return float(str(text).replace(",", ""))
    except ValueError:
        return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("raw", nargs="+")
    ap.add_argument("--min-stall", type=float, default=0.05)
    a = ap.parse_args()
    cols, names = [], []
    for path in a.raw:
        page = load(path)
        if page is None:
            print(f"ncu_summary.py: {path} holds no raw page (ncu --csv --page raw)", file=sys.stderr)
            return 2
        cols.append(page)
        names.append(os.path.basename(path).removesuffix("-raw.csv").removesuffix(".csv"))
    width = max(12, *(len(n) for n in names))
    print(f"{'':44s}" + "".join(f"{n:>{width + 2}s}" for n in names))

    def row(label, cells):
        """cells: (value, unit) or None per file; one unit for all goes into the label."""
        plain = ("", "%", "ratio")  # said by the label already
        units = {c[1] for c in cells if c is not None}
        if len(units) == 1 and next(iter(units)) not in plain:
            label, values = f"{label} ({next(iter(units))})", [c and c[0] for c in cells]
        else:
            values = [c and (f"{c[0]} {c[1]}" if c[1] not in plain else c[0]) for c in cells]
        print(f"{label[:44]:44s}" + "".join(f"{(v if v is not None else '-'):>{width + 2}}" for v in values))

    for label, metric in FIXED:
        if any(metric in c for c in cols):
            row(label, [c.get(metric) for c in cols])
    pipes = sorted({k for c in cols for k in c if PIPE.match(k)})
    for key in pipes:
        values = [c.get(key) for c in cols]
        if any((num(v[0] if v else None) or 0) >= 1.0 for v in values):
            row(f"{PIPE.match(key).group(1)} %", values)
    stalls = {m.group(1): k for c in cols for k in c if (m := STALL.match(k))}
    ranked = sorted(stalls, key=lambda s: -max(num((c.get(stalls[s]) or ("",))[0]) or 0 for c in cols))
    for reason in ranked:
        values = [c.get(stalls[reason]) for c in cols]
        if any((num(v[0] if v else None) or 0) >= a.min_stall for v in values):
            row(f"stall {reason} (warps/issue)", values)
    return 0


if __name__ == "__main__":
    sys.exit(main())
