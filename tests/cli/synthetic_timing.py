"""Synthetic timings for the CLI tests (tests/cli/lib.sh puts this folder on PYTHONPATH).

A report reader refuses a timing whose figures do not follow from its own pass medians
(app/report/timing_figures.hpp): two pass medians either side of the median, the spread
apart, give exactly the median and the spread asked for.
"""


def timing(op, median_ms, tflops, spread=0.01, **extra):
    half = median_ms * spread / 2
    t = {"op": op, "median_ms": median_ms, "spread": spread, "pass_medians_ms": [median_ms - half, median_ms + half],
         "tflops": tflops, "iterations": 10, "passes": 2, "l2_flush": False, "clocks": None}
    t.update(extra)
    return t
