#!/usr/bin/env python3
"""Where a kernel's warps wait, by SASS line, from Nsight Compute's source page.

    ncu --import REPORT.ncu-rep --page source --csv --print-source sass > src.csv
    scripts/device/ncu_hotspots.py src.csv [--top 12]

Prints the SASS lines with the most warp-state samples: their share of all samples, the
two largest stall reasons there, how often the line ran, and the instruction the stall
belongs to. A sample lands on the instruction that cannot issue, so for a branch after
an mbarrier try-wait or the instruction after a BAR.SYNC the wait is the line before;
the `waits on` column names the nearest synchronising instruction above the hot line
(mbarrier wait, barrier, wgmma wait, HGMMA) so a table reads without the listing.
Exit 2 when the file has no source page (wrong export or empty report).
"""
import argparse
import csv
import re
import sys

SYNC = re.compile(r"SYNCS\.PHASECHK|BAR\.SYNC|BAR\.ARV|WARPGROUP\.DEPBAR|DEPBAR|HGMMA|ACQBULK|MEMBAR")


def load(path):
    rows = list(csv.reader(open(path, newline="")))
    for i, row in enumerate(rows):  # the header row follows a "Kernel Name" line
        if "Source" in row and "Warp Stall Sampling (All Samples)" in row:
            return row, rows[i + 1:]
    return None, []


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", help="ncu --page source --csv --print-source sass output")
    ap.add_argument("--top", type=int, default=12, help="lines to print (default 12)")
    args = ap.parse_args()
    head, data = load(args.csv)
    if head is None:
        print(f"{args.csv}: no source page (export with --page source --print-source sass)", file=sys.stderr)
        return 2
    src, samples = head.index("Source"), head.index("Warp Stall Sampling (All Samples)")
    executed = head.index("Instructions Executed") if "Instructions Executed" in head else None
    reasons = [(i, h[len("stall_"):]) for i, h in enumerate(head) if h.startswith("stall_") and "Not Issued" not in h]
    lines = [r for r in data if len(r) > samples]
    total = sum(number(r[samples]) for r in lines)
    if total <= 0:
        print(f"{args.csv}: no warp-state samples", file=sys.stderr)
        return 2
    order = sorted(range(len(lines)), key=lambda k: -number(lines[k][samples]))[: args.top]
    print(f"{int(total)} warp-state samples; top {len(order)} SASS lines")
    print(f"{'share':>6} {'samples':>8} {'runs':>9}  {'top stall reasons':34}  {'line':48}  waits on")
    for k in order:
        r = lines[k]
        top = sorted(((number(r[i]), name) for i, name in reasons), reverse=True)[:2]
        why = ", ".join(f"{name} {int(v)}" for v, name in top if v > 0)
        ran = r[executed] if executed is not None else "-"
        context = ""
        for j in range(k, max(-1, k - 12), -1):
            if SYNC.search(lines[j][src]):
                context = f"[{j - k:+d}] {lines[j][src].strip()[:60]}"
                break
        print(f"{100 * number(r[samples]) / total:5.1f}% {int(number(r[samples])):8d} {ran:>9}  {why[:34]:34}  "
              f"{r[src].strip()[:48]:48}  {context}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
