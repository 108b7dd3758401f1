#!/usr/bin/env bash
# The perf baseline of issue 22 in one device call: `vsa-bench run perf` with the default
# adaptive sampling (target 2%, 30 s of passes per case and op), its report, its NVBench
# export, and a table last: per case, backend and op the TFLOPS, spread, passes, how
# sampling ended and, above 2%, why.
#   scripts/device/perf_baseline.sh BUILD_DIR OUT_DIR [REPORT_TO_RESUME]
#
# How long: from results/baselines/h200-sm90a-run27.json (8 cases, 2 backends, fwd + bwd), one
# round of passes (every backend once) takes 1 ms (S=4096 fwd) to 2.6 s (S=131072 bwd).
# Every figure converging at its first 3-4 passes: ~50 s in all, as that run took (the adaptive
# run of 2026-12-04, h200-sm90a.json, took 94 s: the S = 16384 backward ran to 100 passes). None
# converging: the budget bounds each case and op at 30 s (a round starts only if it fits),
# and only the 8 figures from S=65536 on can spend it (S <= 16384 reaches max_passes, 100,
# within 7 s): ~240 s of passes + ~25 s of checks, warm-up and workers = ~4.5 min.
# A guard (VSA_PERF_GUARD_S, default 540 s) ends the run before a device call's 10-minute
# limit; the report, rewritten after every case, then says incomplete: run this again with
# it as REPORT_TO_RESUME (`run --resume` keeps its finished cases).
# VSA_PERF_TARGET (e.g. 1%) and VSA_PERF_BUDGET (seconds) override the two settings.
# Everything it writes is also packed as OUT_DIR.tgz beside OUT_DIR.
# Exit: the run's exit code; 4 when it was cut short; 1 when a figure above 2% has no reason.
set -uo pipefail
source "$(dirname "$0")/lib/build_dir.sh"
require_build perf_baseline.sh "${1:?build dir}"
BUILD="${1:?build dir}"; OUT="${2:?output dir}"; RESUME="${3:-}"
BIN="$(cd "$BUILD" && pwd)/vsa-bench"; mkdir -p "$OUT"
GUARD="${VSA_PERF_GUARD_S:-540}"
args=(run perf --out "$OUT" --label perf-baseline --nvbench "$OUT/perf-baseline.nvbench.json"
      --jsonl "$OUT/perf-baseline.jsonl")
[ -n "${VSA_PERF_TARGET:-}" ] && args+=(--target-spread "$VSA_PERF_TARGET")
[ -n "${VSA_PERF_BUDGET:-}" ] && args+=(--timing-budget "$VSA_PERF_BUDGET")
if [ -n "$RESUME" ]; then  # resumed in a copy under OUT, so the finished report comes back with the rest
  cp "$RESUME" "$OUT/" || exit 2
  RESUME="$OUT/$(basename "$RESUME")"; args+=(--resume "$RESUME")
fi
"$BIN" info | head -12
echo "== vsa-bench ${args[*]} (guard ${GUARD} s)"
start=$(date +%s)
timeout --signal=TERM --kill-after=20 "$GUARD" "$BIN" "${args[@]}" 2>&1 | tee "$OUT/run.log" | grep -v '^\s*$' | tail -40
rc=${PIPESTATUS[0]}
echo "== run: exit $rc after $(( $(date +%s) - start )) s"
report="$(ls -t "$OUT"/perf-baseline-*.json 2>/dev/null | grep -v nvbench | head -1)"
[ -n "$RESUME" ] && [ -z "$report" ] && report="$RESUME"
[ -n "$report" ] || { echo "no report written"; exit 4; }
if [ "$rc" = 124 ] || [ "$rc" = 137 ] || [ ! -s "$OUT/perf-baseline.nvbench.json" ]; then
  echo "== cut short by the guard: the NVBench export from the incomplete report; resume with:"
  echo "   scripts/device/perf_baseline.sh $BUILD OUT_DIR $report"
  "$BIN" render "$report" --format nvbench --out "$OUT/perf-baseline.nvbench.json"
  rc=4
fi
echo "== report: $report"
# The table, read from the NVBench export (its summaries by tag, as NVBench's readers do).
python3 - "$OUT/perf-baseline.nvbench.json" "$rc" >"$OUT/table.txt" <<'PY'
import json, sys
root, rc = json.load(open(sys.argv[1])), int(sys.argv[2])
def value(state, tag):
    s = next((s for s in state["summaries"] if s["tag"] == tag), None)
    return None if s is None else s["data"][0]["value"]
rows, unexplained = [], 0
for bench in root["benchmarks"]:
    for st in bench["states"]:
        ax = {a["name"]: a["value"] for a in st["axis_values"]}
        case = f'{bench["name"]} S={ax.get("S", "?")} d={ax.get("density", "?")}'
        if st["is_skipped"]:
            rows.append((case, ax["backend"], ax["op"], "-", "-", "-", "skipped", st["skip_reason"]))
            continue
        spread = float(value(st, "vsa/time/gpu/median_interval/relative"))
        reason = value(st, "vsa/noise/reason") or ""
        target = float(value(st, "vsa/sampling/target_spread") or 0) or 0.02
        if spread > target and not reason:
            unexplained += 1
        rows.append((case, ax["backend"], ax["op"], f'{float(value(st, "vsa/tflops")):.1f}', f"{100 * spread:.2f}%",
                     value(st, "vsa/passes"), value(st, "vsa/sampling/stop"), reason))
head = ("case", "backend", "op", "TFLOPS", "spread", "passes", "sampling", "reason above the target")
width = [max(len(str(r[i])) for r in rows + [head]) for i in range(7)]
for r in [head] + rows:
    print("  ".join(str(c).ljust(width[i]) for i, c in enumerate(r[:7])) + "  " + r[7])
timed = [r for r in rows if r[6] != "skipped"]
within = sum(1 for r in timed if not r[7])
print(f"\ngoal (spread <= target, or a stated reason): {len(timed)} figures, {within} within, "
      f"{len(timed) - within - unexplained} above with a reason, {unexplained} above WITHOUT one")
sys.exit(1 if unexplained and rc == 0 else rc)
PY
table_rc=$?
cat "$OUT/table.txt"
# One file to copy off the node, however many the run wrote (a device call returns a bounded
# number of files: 2026-12-05's H100 call lost this folder's report that way).
abs="$(cd "$OUT" && pwd)"; tar czf "$abs.tgz" -C "$(dirname "$abs")" "$(basename "$abs")" && echo "archive: $abs.tgz"
exit "$table_rc"
