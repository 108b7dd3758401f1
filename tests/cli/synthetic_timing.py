"""Synthetic timings for the CLI tests (tests/cli/lib.sh puts this folder on PYTHONPATH).

A report reader refuses a timing whose figures do not follow from its own pass medians and
the case's FLOPs (app/report/timing_figures.hpp): the median is the FLOPs over the TFLOPS, and
two pass medians either side of it, the spread apart, give exactly the median and spread asked for.
"""


def timing(op, flops, tflops, spread=0.01, **extra):
    """A timing of `flops` (the case's flops_fwd or flops_bwd) at `tflops`."""
    median_ms = flops / tflops / 1e9
    half = median_ms * spread / 2
    t = {"op": op, "median_ms": median_ms, "spread": spread, "pass_medians_ms": [median_ms - half, median_ms + half],
         "tflops": tflops, "iterations": 10, "passes": 2, "l2_flush": False, "clocks": None}
    t.update(extra)
    return t
