# NVBench JSON export (report/nvbench_json.hpp; docs/report-schema.md, "NVBench export"):
# two committed H200 perf reports rendered with `render --format nvbench`, then read
# (1) by a reader of ours that follows nvbench_compare's reading rules (benchmarks matched by
#     name, states by name, summaries by tag, the "value" datum parsed from its string) and
# (2) by NVBench's own nvbench_compare (PyPI cuda-bench, `nvbench-compare-legacy`), where
#     scripts/lib/common.sh's install_python_test_tools could install it; both must see the
#     same 32 states and agree on every SAME / FAST / SLOW.
# Then `run perf --nvbench` on a CPU-only run: every state skipped, with the reason; and the
# inputs `render` refuses (exit 2).
source "$(dirname "$0")/lib.sh"
PY="${VSA_TOOLS_PYTHON:-$SRC/.tools/venv/bin/python}"
[ -x "$PY" ] || PY=python3
BASE="$SRC/results/baselines"
"$BIN" render "$BASE/h200-sm90a-run27.json" --format nvbench --out "$WORK/ref.json" >"$WORK/out" 2>&1 ||
  { cat "$WORK/out"; fail "render --format nvbench --out: exit $?"; }
"$BIN" render "$BASE/h200-sm90a-final-check.json" --format nvbench >"$WORK/cmp.json" 2>"$WORK/err" ||
  { cat "$WORK/err"; fail "render --format nvbench to stdout: exit $?"; }

"$PY" - "$WORK/ref.json" "$WORK/cmp.json" "$BASE/h200-sm90a-run27.json" >"$WORK/ours.txt" <<'PY' || fail "our NVBench reader"
import json, sys
ref, cmp, report = (json.load(open(p)) for p in sys.argv[1:4])
for root in (ref, cmp):
    assert root["meta"]["version"]["json"]["string"] == "1.0.0", root["meta"]
    assert [d["id"] for d in root["devices"]] == [0] and root["devices"][0]["name"] == "NVIDIA H200"
assert ref["devices"] == cmp["devices"], "one GPU model, one fingerprint: the device blocks must be equal"

def value(state, tag):
    summary = next((s for s in state["summaries"] if s["tag"] == tag), None)
    if summary is None:
        return None
    datum = next(d for d in summary["data"] if d["name"] == "value")
    assert isinstance(datum["value"], str), datum  # numbers travel as strings
    return datum["value"]

# The committed report's own numbers for one figure, against the export's.
case = next(c for c in report["cases"] if c["name"] == "perf/topk/S=16384,density=0.25")
t = next(t for t in case["backends"][0]["timings"] if t["op"] == "fwd")
bench = next(b for b in ref["benchmarks"] if b["name"] == "perf/topk")
axes = {a["name"]: a for a in bench["axes"]}
assert list(axes) == ["B", "H", "S", "D", "density", "backend", "op"], list(axes)
assert [v["value"] for v in axes["S"]["values"]] == [4096, 16384, 65536], axes["S"]
state = next(s for s in bench["states"] if s["name"] == "Device=0 B=1 H=8 S=16384 D=128 density=0.25 backend=sm90a op=fwd")
mean = sum(t["pass_medians_ms"]) / len(t["pass_medians_ms"]) / 1e3
assert abs(float(value(state, "nv/cold/time/gpu/mean")) - mean) < 1e-15, (value(state, "nv/cold/time/gpu/mean"), mean)
assert abs(float(value(state, "nv/cold/time/gpu/median")) - t["median_ms"] / 1e3) < 1e-15
assert abs(float(value(state, "vsa/tflops")) - t["tflops"]) < 1e-9
assert value(state, "vsa/noise/reason").startswith("±13% > 2% target: 4 fixed passes (adaptive sampling off); the SM clock held still"), value(state, "vsa/noise/reason")

# nvbench_compare's rule: SAME when |diff| <= the smaller relative stdev, else FAST / SLOW.
counts = {"SAME": 0, "FAST": 0, "SLOW": 0, "????": 0}
for cb in cmp["benchmarks"]:
    rb = next(b for b in ref["benchmarks"] if b["name"] == cb["name"])
    for cs in cb["states"]:
        rs = next(s for s in rb["states"] if s["name"] == cs["name"])
        if not cs["summaries"] or not rs["summaries"]:
            continue
        rt, ct = float(value(rs, "nv/cold/time/gpu/mean")), float(value(cs, "nv/cold/time/gpu/mean"))
        noise = min(float(value(rs, "nv/cold/time/gpu/stdev/relative")), float(value(cs, "nv/cold/time/gpu/stdev/relative")))
        frac = (ct - rt) / rt
        counts["????" if not noise else "SAME" if abs(frac) <= noise else "FAST" if frac < 0 else "SLOW"] += 1
assert sum(counts.values()) == 32, counts
print(" ".join(f"{k}={v}" for k, v in sorted(counts.items())))
PY
echo "our reader: $(cat "$WORK/ours.txt")"

NVBENCH_COMPARE="$(dirname "$PY")/nvbench-compare-legacy"
if [ -x "$NVBENCH_COMPARE" ]; then
  "$NVBENCH_COMPARE" --no-color "$WORK/ref.json" "$WORK/cmp.json" >"$WORK/compare.md" 2>&1; rc=$?
  grep -q "Total Matches: 32" "$WORK/compare.md" || { tail -20 "$WORK/compare.md"; fail "nvbench_compare did not match 32 states"; }
  grep -q "WARNING" "$WORK/compare.md" && { grep -A3 WARNING "$WORK/compare.md"; fail "nvbench_compare warned about the file"; }
  theirs="????=$(grep -c '🟡 ????' "$WORK/compare.md") FAST=$(grep -c '🟢 FAST' "$WORK/compare.md")"
  theirs+=" SAME=$(grep -c '🔵 SAME' "$WORK/compare.md") SLOW=$(grep -c '🔴 SLOW' "$WORK/compare.md")"
  echo "nvbench_compare: $theirs (exit $rc)"
  [ "$theirs" = "$(cat "$WORK/ours.txt")" ] || fail "nvbench_compare ($theirs) and our reader ($(cat "$WORK/ours.txt")) disagree"
  failures="$(grep -o 'Failure (diff > min_noise): *[0-9]*' "$WORK/compare.md" | grep -o '[0-9]*$')"
  [ "$rc" = "$failures" ] || fail "nvbench_compare exits with its failure count: $rc vs $failures"
else
  echo "note: nvbench-compare-legacy is not installed beside $PY (PyPI cuda-bench): checked with our reader only"
fi

# A CPU-only perf run: the export is written, every state skipped with its reason.
"$BIN" run perf --devices none --quiet --out "$WORK/run" --nvbench "$WORK/run.json" >"$WORK/out" 2>&1; rc=$?
[ "$rc" = 0 ] || { cat "$WORK/out"; fail "CPU-only run perf: exit $rc"; }
"$PY" - "$WORK/run.json" <<'PY' || fail "CPU-only export"
import json, sys
root = json.load(open(sys.argv[1]))
assert [d["id"] for d in root["devices"]] == [-1], root["devices"]
assert [b["name"] for b in root["benchmarks"]] == ["perf/topk", "perf/topk-long"], [b["name"] for b in root["benchmarks"]]
states = [s for b in root["benchmarks"] for s in b["states"]]
assert len(states) == 32 and all(s["is_skipped"] and s["skip_reason"].startswith("SKIP: ") for s in states), states[0]
PY

# What render refuses: two reports on one CUDA ordinal in one NVBench file; two for Markdown.
"$BIN" render "$BASE/h200-sm90a-run27.json" "$BASE/h200-sm90a-final-check.json" --format nvbench >"$WORK/out" 2>"$WORK/err"; rc=$?
[ "$rc" = 2 ] || fail "two reports on device 0: exit $rc, expected 2"
grep -q "device 0" "$WORK/err" || { cat "$WORK/err"; fail "the error must name the device"; }
"$BIN" render "$BASE/h200-sm90a-run27.json" "$BASE/h200-sm90a-final-check.json" >"$WORK/out" 2>"$WORK/err"; rc=$?
[ "$rc" = 2 ] || fail "Markdown of two reports: exit $rc, expected 2"
"$BIN" render "$BASE/h200-sm90a-run27.json" --format csv >"$WORK/out" 2>&1; rc=$?
[ "$rc" != 0 ] || fail "an unknown format must fail"
echo "ok"
