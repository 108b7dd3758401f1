"""Forward TFLOPS out of the `vsa-bench run` reports a device script wrote (one folder per run).

Shared by the summaries of scripts/device/four_ctas.sh and tk_occupancy.sh. Every backend whose
verdict is not PASS is printed, so a number never stands in a table without its failure beside it.
"""
import glob
import json
import sys


def forward_tflops(pattern, key_of):
    """{key: [TFLOPS per report]} over the reports matching `pattern`.

    key_of(report_path, case_name_after_suite, backend) gives the table key of one timing, or
    None to leave it out. Exits with a message when no report holds a forward timing.
    """
    fig = {}
    for path in sorted(glob.glob(pattern)):
        with open(path) as f:
            d = json.load(f)
        if d.get("schema") != "vsa-bench/report":
            continue
        for c in d["cases"]:
            case = c["name"].split("/", 1)[1]
            for b in c["backends"]:
                if b["verdict"] != "PASS":
                    print(f"{path}: {c['name']} {b['backend']} {b['verdict']}: {b.get('reason', '')[:160]}")
                key = key_of(path, case, b["backend"])
                for t in b.get("timings", []):
                    if t["op"] == "fwd" and key is not None:
                        fig.setdefault(key, []).append(t["tflops"])
    if not fig:
        sys.exit("summary: no forward timing in any report matching " + pattern)
    return fig


def case_order(names):
    """Cases as a person reads them: shorter names (smaller S) first."""
    return sorted(set(names), key=lambda n: (len(n), n))
