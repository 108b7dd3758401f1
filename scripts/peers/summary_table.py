#!/usr/bin/env python3
"""A short TFLOPS table from a peers report and, optionally, one of our reports:
one row per (case, backend) over the cases of the peers report, forward and
backward TFLOPS with their spread, worst rel_max and verdict; with --markdown, a
Markdown table that also gives each row's reason (why skipped, what was not checked).

    python3 scripts/peers/summary_table.py [--markdown] peers-report.json [ours.json]
"""
from __future__ import annotations

import json
import sys


def rows(report: dict, cases: set[str] | None) -> list[tuple]:
    out = []
    for c in report["cases"]:
        if cases is not None and c["name"] not in cases:
            continue
        for b in c["backends"]:
            tf = {t["op"]: f"{t['tflops']:.1f} ±{100 * t['spread']:.1f}%" for t in b["timings"]}
            worst = max(b["metrics"], key=lambda m: m["rel_max"], default=None)
            out.append((c["name"], b["backend"], b["verdict"], tf.get("fwd", "-"), tf.get("bwd", "-"),
                        f"{worst['tensor']} {worst['rel_max']:.1e}" if worst else "-",
                        c.get("reference", ""), b.get("reason", "")))
    return out


def main(argv: list[str]) -> int:
    markdown = "--markdown" in argv
    argv = [a for a in argv if a != "--markdown"]
    if not argv or len(argv) > 2:
        print(__doc__, file=sys.stderr)
        return 2
    peers = json.load(open(argv[0]))
    names = {c["name"] for c in peers["cases"]}
    table = rows(peers, None)
    if len(argv) == 2:
        table += rows(json.load(open(argv[1])), names)
    table.sort(key=lambda r: (r[0], r[1]))
    header = ("case", "backend", "verdict", "fwd TFLOPS", "bwd TFLOPS", "worst rel_max", "checked against", "note")
    if markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for r in table:
            print("| " + " | ".join(str(x).replace("|", "/").replace("\n", " ") for x in r) + " |")
        return 0
    header, table = header[:-1], [r[:-1] for r in table]
    widths = [max(len(str(r[i])) for r in table + [header]) for i in range(len(header))]
    for r in [header] + table:
        print("  ".join(str(x).ljust(w) for x, w in zip(r, widths)).rstrip())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
