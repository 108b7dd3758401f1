# `compare` and `fleet` end to end: three CPU-only `run qualify` reports with different
# labels, then both commands on them (exit codes, tables, JSON); a synthetic regression
# (a copy with a perf case's TFLOPS scaled down 30%) must make `compare --baseline` exit 3,
# and a slow GPU must make `fleet --gate` exit 3; bad input exits 2 naming the file.
source "$(dirname "$0")/lib.sh"

expect_rc() {  # expect_rc WANT WHAT: checks $rc after a command
  [ "$rc" -eq "$1" ] || { cat "$WORK/out" "$WORK/err" 2>/dev/null; fail "$2: exit $rc, expected $1"; }
}

for label in alpha beta gamma; do
  "$BIN" run qualify --devices none --out "$WORK/reports" --label "$label" >"$WORK/out" 2>"$WORK/err"
  rc=$?; expect_rc 0 "run --label $label"
done
mapfile -t reports < <(ls "$WORK"/reports/*.json)
[ "${#reports[@]}" -eq 3 ] || fail "expected 3 reports, found ${#reports[@]}"

# compare: configuration and per-case tables, no gate -> exit 0.
"$BIN" compare "${reports[@]}" >"$WORK/out" 2>"$WORK/err"; rc=$?; expect_rc 0 "compare"
host="$(json_get "${reports[0]}" "d['node']['hostname']")"
for text in "# vsa-bench compare" "## Configuration" "| column | report | GPU | finished | file |" "alpha $host cpu" \
            "| case | backend | A | B | C |" "| qualify/cpu-ref/x16 | cpu-ref | PASS (" "## Performance" \
            "No timed cases in these reports."; do
  grep -qF -- "$text" "$WORK/out" || { cat "$WORK/out"; fail "compare output lacks: $text"; }
done
grep -q "## Regression gate" "$WORK/out" && fail "gate section without --baseline/--threshold"
"$BIN" compare "${reports[@]}" --format json >"$WORK/out" 2>"$WORK/err"; rc=$?; expect_rc 0 "compare --format json"
[ "$(json_get "$WORK/out" "d['schema']")" = "vsa-bench/compare" ] || fail "compare JSON schema"
[ "$(json_get "$WORK/out" "[r['label'] for r in d['reports']]")" = "['alpha', 'beta', 'gamma']" ] || fail "compare JSON labels"
[ "$(json_get "$WORK/out" "any(r['title']=='label' and r['differs'] for r in d['configuration'])")" = "True" ] \
  || fail "labels not shown as differing"
[ "$(json_get "$WORK/out" "d['config_differences']")" = "[]" ] || fail "same build and node reported as a difference"

# fleet over the directory: one row per report, config groups, exit 0.
"$BIN" fleet "$WORK/reports" >"$WORK/out" 2>"$WORK/err"; rc=$?; expect_rc 0 "fleet"
for text in "# vsa-bench fleet" "## GPUs" "| GPU | model | PCI | verdict |" "## Configurations" \
            "| driver | GSP firmware | VBIOS | CUDA toolkit | plugins | GPUs | PASS |" "| - | - | - | 13.0" "| beta "; do
  grep -qF -- "$text" "$WORK/out" || { cat "$WORK/out"; fail "fleet output lacks: $text"; }
done
"$BIN" fleet "${reports[@]}" --format json >"$WORK/out" 2>"$WORK/err"; rc=$?; expect_rc 0 "fleet --format json"
[ "$(json_get "$WORK/out" "len(d['nodes'])")" = "3" ] || fail "fleet JSON: 3 nodes"
[ "$(json_get "$WORK/out" "d['failed_nodes']")" = "0" ] || fail "fleet JSON: failed nodes"

# Synthetic timings: the qualify perf case timed on sm90a at given TFLOPS (CPU-only runs time nothing).
with_tflops() {  # with_tflops SRC DST TFLOPS [HOST] [VERDICT]
  python3 - "$@" <<'PY'
import json, sys
from synthetic_timing import timing
src, dst, tflops = sys.argv[1], sys.argv[2], float(sys.argv[3])
host = sys.argv[4] if len(sys.argv) > 4 else None
verdict = sys.argv[5] if len(sys.argv) > 5 else "PASS"
d = json.load(open(src))
case = next(c for c in d["cases"] if c["name"] == "qualify/fast/perf-16k")
b = next(b for b in case["backends"] if b["backend"] == "sm90a")
b.update(verdict=verdict, reason="" if verdict == "PASS" else "synthetic " + verdict)
b["timings"] = [timing("fwd", case["flops_fwd"], tflops, 0.01)]
case["verdict"] = verdict
if host:
    d["node"]["hostname"] = host
json.dump(d, open(dst, "w"), indent=1)
PY
}
mkdir -p "$WORK/synthetic" "$WORK/fleet"
with_tflops "${reports[0]}" "$WORK/synthetic/base.json" 400 || fail "python: base"
with_tflops "${reports[0]}" "$WORK/synthetic/new.json" 280 || fail "python: new"   # 30% down

"$BIN" compare --baseline "$WORK/synthetic/base.json" "$WORK/synthetic/new.json" --threshold 5% >"$WORK/out" 2>"$WORK/err"
rc=$?; expect_rc 3 "compare with a 30% drop"
grep -qF "| qualify/fast/perf-16k | fwd | sm90a | 400 ±1.0% | 280 ±1.0% | **0.7 regression** |" "$WORK/out" \
  || { cat "$WORK/out"; fail "regression not marked in the table"; }
grep -q "1 regression (exit 3)" "$WORK/out" || fail "regression not listed"
"$BIN" compare --baseline "$WORK/synthetic/base.json" "$WORK/synthetic/new.json" --threshold 40% >"$WORK/out" 2>"$WORK/err"
rc=$?; expect_rc 0 "compare with a 30% drop under a 40% threshold"
# Missing data fails the gate (exit 4), naming what is missing: a report without timings,
# a report without the case.
"$BIN" compare --baseline "$WORK/synthetic/base.json" "$WORK/synthetic/base.json" "${reports[1]}" >"$WORK/out" 2>"$WORK/err"
rc=$?; expect_rc 4 "gate with a report without timings"
grep -qF "| qualify/fast/perf-16k | fwd | sm90a | B | no timing (verdict SKIP" "$WORK/out" \
  || { cat "$WORK/out"; fail "gate does not name the missing timing"; }
python3 - "$WORK/synthetic/new.json" "$WORK/synthetic/nocase.json" <<'PY' || fail "python: nocase"
import json, sys
d = json.load(open(sys.argv[1]))
d["cases"] = [c for c in d["cases"] if c["name"] != "qualify/fast/perf-16k"]
json.dump(d, open(sys.argv[2], "w"))
PY
"$BIN" compare --baseline "$WORK/synthetic/base.json" "$WORK/synthetic/nocase.json" --format json >"$WORK/out" 2>"$WORK/err"
rc=$?; expect_rc 4 "gate with a report missing the timed case"
[ "$(json_get "$WORK/out" "d['gate']['missing'][0]['case'] + ' ' + d['gate']['missing'][0]['why']")" = \
  "qualify/fast/perf-16k case not in the report" ] || { cat "$WORK/out"; fail "gate JSON does not name the missing case"; }
[ "$(json_get "$WORK/out" "d['exit_code']")" = "4" ] || fail "gate JSON exit_code"
# A proven drop with a figure missing beside it is still the regression (exit 3), and its JSON
# keeps to the schema; the Markdown says which exit the missing figure gives.
python3 - "$WORK/synthetic/base.json" "$WORK/synthetic/base2.json" <<'PY' || fail "python: base2"
import copy, json, sys
d = json.load(open(sys.argv[1]))
extra = copy.deepcopy(next(c for c in d["cases"] if c["name"] == "qualify/fast/perf-16k"))
extra["name"] = "qualify/fast/perf-extra"
d["cases"].append(extra)
json.dump(d, open(sys.argv[2], "w"))
PY
"$BIN" compare --baseline "$WORK/synthetic/base2.json" "$WORK/synthetic/new.json" --format json >"$WORK/out" 2>"$WORK/err"
rc=$?; expect_rc 3 "gate with a regression and a missing figure"
"${VSA_TOOLS_PYTHON:-$SRC/.tools/venv/bin/python}" "$SRC/scripts/check_schema.py" --schema compare "$WORK/out" >"$WORK/err" 2>&1 \
  || { cat "$WORK/err"; fail "compare JSON with a regression and a missing figure is off its schema"; }
"$BIN" compare --baseline "$WORK/synthetic/base2.json" "$WORK/synthetic/new.json" >"$WORK/out" 2>"$WORK/err"
grep -q "Missing data, the gate fails (exit 3: a regression below)" "$WORK/out" || { cat "$WORK/out"; fail "Markdown: the exit of missing data beside a regression"; }
"$BIN" compare "$WORK/synthetic/new.json" "$WORK/synthetic/base.json" --threshold 0.05 >"$WORK/out" 2>"$WORK/err"
rc=$?; expect_rc 0 "compare where the second report is faster"

# fleet: five GPUs, one 30% slow -> flagged; --gate exits 3; a FAULT exits 1.
for i in 1 2 3 4; do with_tflops "${reports[0]}" "$WORK/fleet/n$i.json" "40$i" "node$i" || fail "python: n$i"; done
with_tflops "${reports[0]}" "$WORK/fleet/n5.json" 280 node5 || fail "python: n5"
"$BIN" fleet "$WORK/fleet" >"$WORK/out" 2>"$WORK/err"; rc=$?; expect_rc 0 "fleet with an outlier, no --gate"
grep -qF "**0.697 slow**" "$WORK/out" || { cat "$WORK/out"; fail "slow GPU not flagged"; }
"$BIN" fleet "$WORK/fleet" --gate >"$WORK/out" 2>"$WORK/err"; rc=$?; expect_rc 3 "fleet --gate with an outlier"
"$BIN" fleet "$WORK/fleet" --gate --outlier-threshold 40% >"$WORK/out" 2>"$WORK/err"; rc=$?
expect_rc 3 "fleet --gate, 30% slow under a 40% threshold: still outside the IQR fences (5 GPUs)"
grep -qF "**0.697 below IQR fence**" "$WORK/out" || { cat "$WORK/out"; fail "fence outlier not flagged"; }
"$BIN" fleet "$WORK/fleet/n1.json" "$WORK/fleet/n2.json" "$WORK/fleet/n5.json" --gate --outlier-threshold 40% \
  >"$WORK/out" 2>"$WORK/err"; rc=$?
expect_rc 0 "fleet --gate, 3 GPUs (no fences), 30% slow under a 40% threshold"
with_tflops "${reports[0]}" "$WORK/fleet/n6.json" 400 node6 FAULT || fail "python: n6"
"$BIN" fleet "$WORK/fleet" --gate >"$WORK/out" 2>"$WORK/err"; rc=$?; expect_rc 1 "fleet with a FAULT node"
grep -qF "qualify/fast/perf-16k sm90a FAULT (1)" "$WORK/out" || { cat "$WORK/out"; fail "FAULT not in the config table"; }

# Bad input: exit 2 and the file named on stderr.
"$BIN" compare "${reports[0]}" "$WORK/missing.json" >"$WORK/out" 2>"$WORK/err"; rc=$?; expect_rc 2 "compare, missing file"
grep -qF "$WORK/missing.json" "$WORK/err" || fail "missing file not named: $(cat "$WORK/err")"
echo '{"schema": "vsa-bench/rep' >"$WORK/broken.json"
"$BIN" compare "${reports[0]}" "$WORK/broken.json" >"$WORK/out" 2>"$WORK/err"; rc=$?; expect_rc 2 "compare, broken JSON"
grep -qF "$WORK/broken.json" "$WORK/err" || fail "broken file not named: $(cat "$WORK/err")"
"$BIN" fleet "$WORK/reports" "$WORK/broken.json" >"$WORK/out" 2>"$WORK/err"; rc=$?; expect_rc 2 "fleet, broken JSON"
grep -qF "$WORK/broken.json" "$WORK/err" || fail "fleet: broken file not named"
"$BIN" compare "${reports[0]}" >"$WORK/out" 2>"$WORK/err"; rc=$?; expect_rc 2 "compare with one report"
"$BIN" compare "${reports[@]}" --threshold abc >"$WORK/out" 2>"$WORK/err"; rc=$?; expect_rc 2 "compare --threshold abc"
mkdir -p "$WORK/empty"
"$BIN" fleet "$WORK/empty" >"$WORK/out" 2>"$WORK/err"; rc=$?; expect_rc 2 "fleet on an empty directory"
# The message says why there are too few: a directory without reports, the baseline given twice.
"$BIN" compare "$WORK/empty" "${reports[0]}" >"$WORK/out" 2>"$WORK/err"; rc=$?; expect_rc 2 "compare with an empty directory"
grep -qF "$WORK/empty holds no vsa-bench report" "$WORK/err" || { cat "$WORK/err"; fail "compare: the empty directory not named"; }
"$BIN" compare --baseline "${reports[0]}" "${reports[0]}" >"$WORK/out" 2>"$WORK/err"; rc=$?
expect_rc 2 "compare --baseline X X"
grep -qF "is also among the reports, and counts once" "$WORK/err" || { cat "$WORK/err"; fail "compare: baseline twice"; }
echo "ok"
