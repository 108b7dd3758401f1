"""The table scripts/device/tk_occupancy.sh prints last: TK's forward per CTAs-per-SM setting, beside sm90a's.

    python3 tk_occupancy_summary.py OUT_DIR    (reports under OUT_DIR/round-<r>/<setting>/)
"""
import os
import statistics
import sys

from forward_timings import case_order, forward_tflops

TK = "fastvideo-tk-h100"
SETTINGS = ["upstream", "4", "3", "2", "1"]


def key_of(path, case, backend):
    return case, os.path.basename(os.path.dirname(path)), backend


def main(out):
    fig = forward_tflops(out + "/round-*/*/*.json", key_of)
    print(f"{'case':28s} {'TK CTAs/SM':>10s} {'TK fwd':>8s} {'sm90a fwd':>9s} {'ours/TK':>7s}  (mean of rounds; each round)")
    missing = False
    for case in case_order(k[0] for k in fig):
        for s in SETTINGS:
            tk, ours = fig.get((case, s, TK)), fig.get((case, s, "sm90a"))
            if not tk or not ours:
                print(f"{case:28s} {s:>10s}   missing")
                missing = True
                continue
            mt, mo = statistics.mean(tk), statistics.mean(ours)
            rounds = ", ".join(f"{a:.1f}/{b:.1f}" for a, b in zip(tk, ours))
            print(f"{case:28s} {s:>10s} {mt:8.1f} {mo:9.1f} {mo / mt:7.3f}  ({rounds})")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
