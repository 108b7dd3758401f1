#!/usr/bin/env python3
"""A short TFLOPS table from a peers report and, optionally, one of our reports:
one row per (case, backend) over the cases of the peers report, forward and
backward TFLOPS with their spread, worst rel_max and verdict; with --markdown, a
Markdown table that also gives each row's reason (why skipped, what was not checked).
Then the leads (issue 22's measure): per case and op, our fastest backend over the fastest
peer, where both passed their check and were timed. "Ours" are the backends named by
--ours (default sm90a,sm90a-det,sm100a,sm100a-det); every other backend in either report is
a peer (a plugin such as fastvideo-tk-h100 in our report too), except the references
(cuda-ref, cpu-ref, torch-fp32-ref), which are not timed as peers.

    python3 scripts/peers/summary_table.py [--markdown] [--ours A,B] peers-report.json [ours.json]
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


DEFAULT_OURS = ("sm90a", "sm90a-det", "sm100a", "sm100a-det")
REFERENCES = ("cuda-ref", "cpu-ref", "torch-fp32-ref")


def clock_range(timing: dict) -> str:
    """The SM clocks a timing's passes ran at (the sample after each pass, or the mean during a
    sustained one), as "1470-1575 MHz"; "-" where nothing was sampled (a peers report made
    before peers.py sampled NVML, or a node without it)."""
    mhz = []
    for c in timing.get("clocks") or []:
        if not isinstance(c, dict):
            continue
        during = (c.get("during") or {}).get("sm_clock_mhz") or {}
        value = during.get("mean") if during else (c.get("after") or {}).get("sm_clock_mhz")
        if isinstance(value, (int, float)):
            mhz.append(value)
    if not mhz:
        return "-"
    lo, hi = round(min(mhz)), round(max(mhz))
    return f"{lo} MHz" if lo == hi else f"{lo}-{hi} MHz"


def leads(reports: list[dict], cases: set[str], ours: tuple[str, ...]) -> list[tuple]:
    """(case, op, our best backend, its TFLOPS, its clocks, best peer, its TFLOPS, its clocks,
    ratio) per case and op where ours has a passing, timed backend; the peer's fields and the
    ratio are None where no peer has one."""
    best: dict[tuple[str, str, bool], tuple[str, float, str]] = {}
    for report in reports:
        for c in report["cases"]:
            if c["name"] not in cases:
                continue
            for b in c["backends"]:
                if b["verdict"] != "PASS" or b["backend"] in REFERENCES:
                    continue
                for t in b["timings"]:
                    key = (c["name"], t["op"], b["backend"] in ours)
                    if key not in best or t["tflops"] > best[key][1]:
                        best[key] = (b["backend"], t["tflops"], clock_range(t))
    out = []
    for name in sorted(cases):
        for op in ("fwd", "bwd"):
            mine, peer = best.get((name, op, True)), best.get((name, op, False))
            if mine is None:
                continue
            out.append((name, op, mine[0], mine[1], mine[2], peer[0] if peer else "-", peer[1] if peer else None,
                        peer[2] if peer else "-", mine[1] / peer[1] if peer else None))
    return out


def print_leads(table: list[tuple], markdown: bool) -> None:
    header = ("case", "op", "ours", "TFLOPS", "at", "best peer", "TFLOPS", "at", "ours / peer")
    body = [(c, op, m, f"{mt:.1f}", mc, p, f"{pt:.1f}" if pt else "-", pc, f"{r:.3f}" if r else "no peer timed")
            for c, op, m, mt, mc, p, pt, pc, r in table]
    if markdown:
        print()
        print("Leads: our fastest backend over the fastest peer that passed its check, per case and op, with the SM")
        print("clocks each was timed at (NVML, after each pass): a ratio across different clocks compares power states")
        print("as well as kernels.")
        print()
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for r in body:
            print("| " + " | ".join(r) + " |")
        return
    widths = [max(len(str(r[i])) for r in body + [header]) for i in range(len(header))]
    print()
    for r in [header] + body:
        print("  ".join(str(x).ljust(w) for x, w in zip(r, widths)).rstrip())


def main(argv: list[str]) -> int:
    markdown = "--markdown" in argv
    argv = [a for a in argv if a != "--markdown"]
    ours = DEFAULT_OURS
    if "--ours" in argv:
        i = argv.index("--ours")
        if i + 1 >= len(argv):
            print("summary_table.py: --ours needs a comma-separated list of backends", file=sys.stderr)
            return 2
        ours = tuple(x for x in argv[i + 1].split(",") if x)
        del argv[i:i + 2]
    if not argv or len(argv) > 2:
        print(__doc__, file=sys.stderr)
        return 2
    peers = json.load(open(argv[0]))
    names = {c["name"] for c in peers["cases"]}
    table = rows(peers, None)
    reports = [peers]
    if len(argv) == 2:
        reports.append(json.load(open(argv[1])))
        table += rows(reports[1], names)
    lead_table = leads(reports, names, ours)
    table.sort(key=lambda r: (r[0], r[1]))
    header = ("case", "backend", "verdict", "fwd TFLOPS", "bwd TFLOPS", "worst rel_max", "checked against", "note")
    if markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for r in table:
            print("| " + " | ".join(str(x).replace("|", "/").replace("\n", " ") for x in r) + " |")
        if lead_table:
            print_leads(lead_table, True)
        return 0
    header, table = header[:-1], [r[:-1] for r in table]
    widths = [max(len(str(r[i])) for r in table + [header]) for i in range(len(header))]
    for r in [header] + table:
        print("  ".join(str(x).ljust(w) for x, w in zip(r, widths)).rstrip())
    if lead_table:
        print_leads(lead_table, False)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
