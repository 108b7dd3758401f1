"""CUDA-event timing as app/engine/timing.cpp does it, for Python launchers.

Warm-up per launcher, then `passes` passes; in each pass every launcher runs
`iterations` times queued back to back, each iteration between its own pair of
events, read after one synchronisation (a host sync per iteration would charge
launch gaps to short kernels). Launchers are interleaved A B, then B A, ...
The result per launcher is the median of its pass medians and the spread
(max - min) / median over the pass medians, as in our reports.

min_pass_ms > 0 makes the passes sustained, as the suites' `timing.min_pass_ms` does for ours:
each iteration becomes a batch of back-to-back launches, sized by a calibration of up to
1 s that also brings the card to its steady (power-capped) clock, so that a pass lasts at
least min_pass_ms. A burst of a few launches runs at the boost clock; a sustained one at
the clock the power cap allows. Only runs timed the same way can be compared.
"""
from __future__ import annotations

import math
import statistics
import time
from typing import Callable

import torch


def pass_order(count: int, pass_index: int) -> list[int]:
    order = list(range(count))
    return order[::-1] if pass_index % 2 else order


# app/engine/timing.hpp's and case_spec.hpp's constants.
MAX_LAUNCHES_PER_ITERATION = 1 << 20
SOAK_MS = 1000.0


def launches_per_iteration(min_pass_ms: float, iterations: int, per_launch_ms: float) -> int:
    """Launches per timed iteration so that a pass of `iterations` lasts min_pass_ms
    (app/engine/timing.cpp's launches_per_iteration)."""
    if not min_pass_ms > 0 or iterations < 1:
        return 1
    if not per_launch_ms > 0:
        return MAX_LAUNCHES_PER_ITERATION
    n = math.ceil(min_pass_ms / (iterations * per_launch_ms))
    return int(min(max(n, 1), MAX_LAUNCHES_PER_ITERATION))


def calibrate_launch_ms(launch: Callable[[], object], min_pass_ms: float, warmup: int) -> float:
    """One launch's time: batches of doubling size until one lasts min(SOAK_MS, min_pass_ms);
    host time counts too (timing.cpp's calibrate_launch_ms)."""
    soak_ms = min(SOAK_MS, min_pass_ms)
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    n = max(2, warmup)
    while True:
        host_start = time.perf_counter()
        start.record()
        for _ in range(n):
            launch()
        stop.record()
        stop.synchronize()
        ms = max(start.elapsed_time(stop), (time.perf_counter() - host_start) * 1e3)
        if ms >= soak_ms or n >= MAX_LAUNCHES_PER_ITERATION:
            return ms / n
        n = min(2 * n, MAX_LAUNCHES_PER_ITERATION)


def time_interleaved(launchers: dict[str, Callable[[], object]], warmup: int, iterations: int,
                     passes: int, min_pass_ms: float = 0.0,
                     sample_clocks: Callable[[], dict] | None = None) -> dict[str, dict]:
    """sample_clocks (nvml_clocks.sampler_for): one NVML sample, taken before and after each
    launcher's pass, as our runner does; each result's `clocks` is then one entry per pass
    (`pass`, `before`, `after`, `seconds`), else None."""
    names = list(launchers)
    for name in names:
        for _ in range(warmup):
            launchers[name]()
    torch.cuda.synchronize()
    batch = {name: 1 for name in names}
    if min_pass_ms > 0:
        for name in names:
            batch[name] = launches_per_iteration(min_pass_ms, iterations,
                                                 calibrate_launch_ms(launchers[name], min_pass_ms, warmup))
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
              for _ in range(iterations)]
    pass_medians: dict[str, list[float]] = {name: [] for name in names}
    clocks: dict[str, list[dict]] = {name: [] for name in names}
    for p in range(passes):
        for i in pass_order(len(names), p):
            launch, n = launchers[names[i]], batch[names[i]]
            before, host_start = (sample_clocks() if sample_clocks else None), time.perf_counter()
            for start, stop in events:
                start.record()
                for _ in range(n):
                    launch()
                stop.record()
            events[-1][1].synchronize()
            if sample_clocks:
                clocks[names[i]].append({"pass": p, "before": before, "after": sample_clocks(),
                                         "seconds": time.perf_counter() - host_start})
            pass_medians[names[i]].append(statistics.median(s.elapsed_time(e) / n for s, e in events))
    result = {}
    for name, medians in pass_medians.items():
        median_ms = statistics.median(medians)
        result[name] = {
            "median_ms": median_ms,
            "spread": (max(medians) - min(medians)) / median_ms if median_ms > 0 else 0.0,
            "pass_medians_ms": medians,
            "iterations": iterations,
            "passes": passes,
            "launches_per_iteration": batch[name],
            "min_pass_ms": min_pass_ms,
            "clocks": clocks[name] if sample_clocks else None,
        }
    return result
