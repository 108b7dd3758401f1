#!/usr/bin/env python3
"""Charts from vsa-bench output (a tool script; the harness never needs it).

  plot.py tflops REPORT.json [REPORT.json ...] [-o tflops.png]
      TFLOPS against sequence length S, one line per backend (and per report,
      sparsity pattern and density when several are present), one panel per op.
  plot.py fleet FLEET.json [-o fleet.png]
      Each GPU's TFLOPS as a ratio to the fleet median (to the fastest in a row of two or
      three GPUs, as `vsa-bench fleet` takes it): a heat map with one row per
      GPU and one column per timed case; outliers (as `vsa-bench fleet` decided
      them) framed.
      FLEET.json is `vsa-bench fleet DIR --format json > FLEET.json`.

Needs matplotlib (pip install matplotlib). Only figures the reports hold are drawn.
"""
import argparse
import json
import sys
from collections import defaultdict

try:
    import matplotlib
except ModuleNotFoundError:
    sys.exit("plot.py needs matplotlib: pip install matplotlib (scripts/test.sh installs it into .tools/venv)")

matplotlib.use("Agg")  # files only: no display on cluster nodes
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.colors import TwoSlopeNorm  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402


def load_json(path, schema):
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"plot.py: {path}: {e}")
    if doc.get("schema") != schema:
        sys.exit(f'plot.py: {path}: not a {schema} document (no "schema": "{schema}")')
    return doc


def report_name(report, path):
    node = report.get("node") or {}
    device = report.get("device") or {}
    parts = [report.get("label") or "", node.get("hostname") or ""]
    if device.get("cuda_ordinal") is not None:
        parts.append(f"gpu{device['cuda_ordinal']}")
    return " ".join(p for p in parts if p) or path


def series_points(reports):
    """{(report, backend, op, pattern): [(S, tflops, spread)]} from every timing."""
    series = defaultdict(list)
    for name, report in reports:
        for case in report.get("cases", []):
            spec = case.get("spec") or {}
            pattern = spec.get("pattern") or {}
            shape = f"{pattern.get('kind', '?')} {pattern.get('density', '')}".strip()
            for backend in case.get("backends", []):
                for t in backend.get("timings", []):
                    if t.get("tflops", 0) > 0 and "S" in spec:
                        key = (name, backend["backend"], t["op"], shape)
                        series[key].append((spec["S"], t["tflops"], t.get("spread", 0)))
    return series


def plot_tflops(args):
    reports, seen = [], set()
    for path in args.reports:
        report = load_json(path, "vsa-bench/report")
        name = report_name(report, path)
        name = path if name in seen else name  # two runs of one GPU: tell them apart by file
        seen.add(name)
        reports.append((name, report))
    series = series_points(reports)
    if not series:
        sys.exit("plot.py: no timed case in these reports (run a perf suite on a GPU)")
    ops = sorted({key[2] for key in series}, key=lambda op: ["fwd", "bwd"].index(op) if op in ("fwd", "bwd") else 9)
    several_reports = len({key[0] for key in series}) > 1
    several_shapes = len({key[3] for key in series}) > 1
    fig, axes = plt.subplots(1, len(ops), figsize=(6.5 * len(ops), 4.5), squeeze=False)
    for ax, op in zip(axes[0], ops):
        for (name, backend, key_op, shape), points in sorted(series.items()):
            if key_op != op:
                continue
            points.sort()
            s = [p[0] for p in points]
            tflops = [p[1] for p in points]
            errors = [p[1] * p[2] / 2 for p in points]  # half the relative spread either side
            label = " ".join(x for x in (name if several_reports else "", backend, shape if several_shapes else "") if x)
            ax.errorbar(s, tflops, yerr=errors, marker="o", capsize=3, label=label)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("S (tokens)")
        ax.set_ylabel("TFLOPS (docs/spec.md FLOP count)")
        ax.set_title(f"{op}")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="small")
    fig.suptitle("vsa-bench: TFLOPS against S")
    fig.tight_layout()
    fig.savefig(args.output, dpi=120)
    print(args.output)


def gpu_name(node):
    index = node.get("gpu_index")
    gpu = f"gpu{index}" if index not in (None, "", "cpu") else (index or "")
    return " ".join(p for p in (node.get("label"), node.get("hostname"), gpu) if p) or node["path"]


def plot_fleet(args):
    fleet = load_json(args.fleet, "vsa-bench/fleet")
    rows = fleet.get("performance", [])
    if not rows:
        sys.exit("plot.py: the fleet has no timed case")
    nodes = fleet["nodes"]
    node_of_path = {n["path"]: i for i, n in enumerate(nodes)}
    # A heat map scales to many GPUs and many cases: one row per GPU, one column per
    # timed case (P-numbers as in the fleet table), colour = TFLOPS / fleet median.
    ratios = [[float("nan")] * len(rows) for _ in nodes]
    outliers = []
    for col, row in enumerate(rows):
        for sample in row["samples"]:
            r = node_of_path[sample["path"]]
            ratios[r][col] = sample["ratio"]
            if sample.get("outlier"):
                outliers.append((col, r))
    known = [v for line in ratios for v in line if v == v]
    threshold = fleet.get("outlier_threshold", 0.1)
    low = min(min(known), 1 - threshold)
    high = max(max(known), 1 + threshold / 2)
    fig, ax = plt.subplots(figsize=(min(40, 3 + 0.6 * len(rows)), min(60, 2 + 0.32 * len(nodes))))
    image = ax.imshow(ratios, cmap="RdYlGn", norm=TwoSlopeNorm(vmin=low, vcenter=1.0, vmax=high), aspect="auto")
    fig.colorbar(image, ax=ax, label="TFLOPS / fleet median (fastest, below 4 GPUs)")
    if len(rows) * len(nodes) <= 400:
        for r, line in enumerate(ratios):
            for col, value in enumerate(line):
                if value == value:
                    ax.text(col, r, f"{value:.2f}", ha="center", va="center", fontsize="x-small")
    for col, r in outliers:
        ax.add_patch(Rectangle((col - 0.5, r - 0.5), 1, 1, fill=False, edgecolor="black", linewidth=2))
    ax.set_xticks(range(len(rows)), [f"P{i + 1} {row['backend']} {row['op']}" for i, row in enumerate(rows)],
                  rotation=60, ha="right", fontsize="small")
    ax.set_yticks(range(len(nodes)), [gpu_name(n) for n in nodes], fontsize="small")
    ax.set_title(f"vsa-bench fleet: {len(nodes)} GPUs, {fleet.get('outliers', 0)} outliers framed "
                 f"(threshold {threshold:.0%} below the median, below 4 GPUs the fastest, or outside the IQR fences)")
    fig.tight_layout()
    fig.savefig(args.output, dpi=120)
    for x, row in enumerate(rows):  # the P-numbers, as the fleet table numbers them
        print(f"P{x + 1}: {row['case']} {row['op']} {row['backend']} ({row['gpu'] or 'no GPU'})")
    print(args.output)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="chart", required=True)
    tflops = sub.add_parser("tflops", help="TFLOPS against S per backend")
    tflops.add_argument("reports", nargs="+", help="vsa-bench report JSON files")
    tflops.add_argument("-o", "--output", default="tflops.png", help="PNG to write")
    fleet = sub.add_parser("fleet", help="each GPU's ratio to the fleet median")
    fleet.add_argument("fleet", help="output of `vsa-bench fleet DIR --format json`")
    fleet.add_argument("-o", "--output", default="fleet.png", help="PNG to write")
    args = parser.parse_args()
    if args.chart == "tflops":
        plot_tflops(args)
    else:
        plot_fleet(args)


if __name__ == "__main__":
    main()
