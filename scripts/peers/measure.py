"""CUDA-event timing as app/engine/timing.cpp does it, for Python launchers.

Warm-up per launcher, then `passes` passes; in each pass every launcher runs
`iterations` times queued back to back, each iteration between its own pair of
events, read after one synchronisation (a host sync per iteration would charge
launch gaps to short kernels). Launchers are interleaved A B, then B A, ...
The result per launcher is the median of its pass medians and the spread
(max - min) / median over the pass medians, as in our reports.
"""
from __future__ import annotations

import statistics
from typing import Callable

import torch


def pass_order(count: int, pass_index: int) -> list[int]:
    order = list(range(count))
    return order[::-1] if pass_index % 2 else order


def time_interleaved(launchers: dict[str, Callable[[], object]], warmup: int, iterations: int,
                     passes: int) -> dict[str, dict]:
    names = list(launchers)
    for name in names:
        for _ in range(warmup):
            launchers[name]()
    torch.cuda.synchronize()
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
              for _ in range(iterations)]
    pass_medians: dict[str, list[float]] = {name: [] for name in names}
    for p in range(passes):
        for i in pass_order(len(names), p):
            launch = launchers[names[i]]
            for start, stop in events:
                start.record()
                launch()
                stop.record()
            events[-1][1].synchronize()
            pass_medians[names[i]].append(statistics.median(s.elapsed_time(e) for s, e in events))
    result = {}
    for name, medians in pass_medians.items():
        median_ms = statistics.median(medians)
        result[name] = {
            "median_ms": median_ms,
            "spread": (max(medians) - min(medians)) / median_ms if median_ms > 0 else 0.0,
            "pass_medians_ms": medians,
            "iterations": iterations,
            "passes": passes,
        }
    return result
