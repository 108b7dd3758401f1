"""The table scripts/device/four_ctas.sh prints last: TK's forward and sm90a's with either layout.

    python3 four_ctas_summary.py OUT_DIR    (reports under OUT_DIR/run-<i>-<layout>/)
"""
import os
import statistics
import sys

from forward_timings import case_order, forward_tflops

TK = "fastvideo-tk-h100"


def key_of(path, case, backend):
    layout = os.path.basename(os.path.dirname(path)).split("-", 2)[2]
    return case, backend if backend != "sm90a" else "sm90a-" + layout


def main(out):
    fig = forward_tflops(out + "/run-*/*.json", key_of)
    print(f"{'case':28s} {'TK':>7s} {'persist':>7s} {'four':>7s} {'pers/TK':>7s} {'four/TK':>7s} {'four/pers':>9s}"
          "  (means; four runs of TK, two of each layout)")
    missing = False
    for case in case_order(k[0] for k in fig):
        tk, per, four = (fig.get((case, b)) for b in (TK, "sm90a-persistent", "sm90a-four"))
        if not tk or not per or not four:
            print(f"{case:28s} missing")
            missing = True
            continue
        mt, mp, mf = statistics.mean(tk), statistics.mean(per), statistics.mean(four)
        runs = "/".join(f"{x:.0f}" for x in four)
        print(f"{case:28s} {mt:7.1f} {mp:7.1f} {mf:7.1f} {mp / mt:7.3f} {mf / mt:7.3f} {mf / mp:9.3f}  (four: {runs})")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
