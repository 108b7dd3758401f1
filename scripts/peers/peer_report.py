"""Peers results in OUR report schema ("vsa-bench/report", version 1), so that
`vsa-bench compare ours.json peers.json` and `vsa-bench fleet` read them.

Shapes follow app/report/report.cpp (to_json) and app/model/case_result.hpp: the
C++ reader requires every field of CaseResult, BackendResult, TensorMetrics and
Timing, so each is always written. A case's "spec" is the dumped spec (backends
replaced by the peers): compare puts TFLOPS side by side only when the specs
other than the backend list are equal, and the name matches the suite's.
"""
from __future__ import annotations

import datetime
import json
import os
import tempfile

SEVERITY = {"SKIP": 0, "PASS": 1, "FAIL": 2, "FAULT": 3, "HANG": 4}  # app/model/case_result.cpp


def utc_now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def backend_result(name: str, verdict: str, reason: str = "", metrics=None, timings=None) -> dict:
    return {"backend": name, "verdict": verdict, "reason": reason, "metrics": list(metrics or []),
            "timings": list(timings or []), "stability": []}


def timing_entry(op: str, measured: dict, flops: float) -> dict:
    ms = measured["median_ms"]
    return {"op": op, "median_ms": ms, "spread": measured["spread"], "pass_medians_ms": measured["pass_medians_ms"],
            "tflops": flops / (ms * 1e-3) / 1e12 if ms > 0 else 0.0, "iterations": measured["iterations"],
            "passes": measured["passes"], "launches_per_iteration": measured.get("launches_per_iteration", 1),
            "l2_flush": False, "clocks": measured.get("clocks")}


def aggregate_verdict(backends: list[dict], message: str) -> str:
    """As app/model/case_result.cpp: the most severe verdict (PASS beats SKIP); a case-level message fails it."""
    worst = "FAIL" if message else "SKIP"
    for b in backends:
        if SEVERITY.get(b["verdict"], 5) > SEVERITY.get(worst, 5):
            worst = b["verdict"]
    return worst


def case_result(case, peers: list[str], reference: str, message: str, backends: list[dict], seconds: float) -> dict:
    spec = dict(case.spec)
    spec["backends"] = peers
    verdict = aggregate_verdict(backends, message)
    return {"name": case.name, "spec": spec, "verdict": verdict, "reference": reference, "message": message,
            "pairs": int(case.meta["pairs"]), "flops_fwd": float(case.meta["flops_fwd"]),
            "flops_bwd": float(case.meta["flops_bwd"]), "seconds": seconds, "backends": backends}


def summary(cases: list[dict]) -> dict:
    s = {"cases": len(cases), "PASS": 0, "FAIL": 0, "FAULT": 0, "HANG": 0, "SKIP": 0}
    for c in cases:
        s[c["verdict"]] = s.get(c["verdict"], 0) + 1
    return s


def exit_code(cases: list[dict]) -> int:
    """0 all passed (skips allowed), 1 a check failed, 4 a peer faulted (docs/design.md exit codes)."""
    verdicts = {b["verdict"] for c in cases for b in c["backends"]} | {c["verdict"] for c in cases}
    if verdicts & {"FAULT", "HANG"}:
        return 4
    return 1 if "FAIL" in verdicts else 0


def report(*, argv, label, started_at, node, device, devices_note, dumps, backends, cases, tool,
           complete: bool) -> dict:
    return {
        "schema": "vsa-bench/report",
        "schema_version": 1,
        "tool": tool,
        "argv": argv,
        "label": label,
        "started_at": started_at,
        "finished_at": utc_now(),
        "node": node,
        "device": device,
        "devices_note": devices_note,
        "suites": [{"name": "peers", "source": "vsa-bench dump: " + ", ".join(dumps),
                    "description": "peer kernels on cases dumped by vsa-bench dump"}],
        "backends": backends,
        "probes": {},
        "cases": cases,
        "summary": summary(cases),
        "complete": complete,
        "exit_code": exit_code(cases),
    }


def write_atomic(path: str, doc: dict) -> None:
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=directory, suffix=".tmp")
    with os.fdopen(fd, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    os.replace(tmp, path)


def table(cases: list[dict]) -> str:
    """A short Markdown table: case, peer, verdict, worst rel_max, TFLOPS."""
    lines = ["| case | peer | verdict | reference | worst rel_max | fwd TFLOPS | bwd TFLOPS | note |",
             "|---|---|---|---|---|---|---|---|"]
    for c in cases:
        for b in c["backends"]:
            worst = max(b["metrics"], key=lambda m: m["rel_max"], default=None)
            worst_text = f"{worst['tensor']} {worst['rel_max']:.2g}" if worst else ""
            tf = {t["op"]: f"{t['tflops']:.1f} (±{100 * t['spread']:.1f}%)" for t in b["timings"]}
            note = b["reason"].replace("|", " ").replace("\n", " ")
            lines.append(f"| {c['name']} | {b['backend']} | {b['verdict']} | {c['reference']} | {worst_text} | "
                         f"{tf.get('fwd', '')} | {tf.get('bwd', '')} | {note} |")
    return "\n".join(lines) + "\n"
