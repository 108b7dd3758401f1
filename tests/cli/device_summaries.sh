#!/usr/bin/env bash
# The tables scripts/device/four_ctas.sh and tk_occupancy.sh print last, from stand-in reports
# (scripts/device/lib/*_summary.py over forward_timings.py): the means and ratios per case, a
# backend that did not PASS named beside the table, and a case that lacks a figure printed as
# "missing" with exit 1 (a table with a hole is not a result); no report at all is exit 1 too.
# Usage: device_summaries.sh <vsa-bench> <source dir>
source "$(dirname "$0")/lib.sh"
LIB="$SRC/scripts/device/lib"
# report DIR CASE BACKEND:TFLOPS[:VERDICT]...
report() {
  local dir="$1" case="$2"; shift 2
  mkdir -p "$dir"
  python3 - "$dir/report.json" "$case" "$@" <<'PY'
import json, sys
path, case, entries = sys.argv[1], sys.argv[2], sys.argv[3:]
backends = []
for e in entries:
    name, tflops, *verdict = e.split(":")
    backends.append({"backend": name, "verdict": verdict[0] if verdict else "PASS",
                     "timings": [{"op": "fwd", "tflops": float(tflops)}, {"op": "bwd", "tflops": 1.0}]})
json.dump({"schema": "vsa-bench/report", "cases": [{"name": "tk-fwd/" + case, "backends": backends}]}, open(path, "w"))
PY
}
F="$WORK/four"
report "$F/run-1-persistent" "S=4096" fastvideo-tk-h100:400 sm90a:420
report "$F/run-2-four" "S=4096" fastvideo-tk-h100:400 sm90a:380
report "$F/run-3-four" "S=4096" fastvideo-tk-h100:400 sm90a:400:FAIL
report "$F/run-4-persistent" "S=4096" fastvideo-tk-h100:400 sm90a:400
python3 "$LIB/four_ctas_summary.py" "$F" > "$WORK/log" 2>&1 || { cat "$WORK/log"; fail "four_ctas summary: exit $?"; }
cat "$WORK/log"
grep -Eq "^S=4096 +400\.0 +410\.0 +390\.0 +1\.025 +0\.975 +0\.951  \(four: 380/400\)$" "$WORK/log" || fail "four_ctas row"
grep -q "run-3-four/report.json: tk-fwd/S=4096 sm90a FAIL" "$WORK/log" || fail "four_ctas: the failed run must be named"
rm -r "$F/run-2-four" "$F/run-3-four"
python3 "$LIB/four_ctas_summary.py" "$F" > "$WORK/log" 2>&1 && fail "four_ctas: a layout without figures must exit 1"
grep -Eq "^S=4096 +missing$" "$WORK/log" || fail "four_ctas: the hole must read missing"

T="$WORK/occ"
for s in upstream 4 3 2 1; do
  report "$T/round-1/$s" "S=16384" fastvideo-tk-h100:500 sm90a:550
  report "$T/round-2/$s" "S=16384" fastvideo-tk-h100:520 sm90a:530
done
python3 "$LIB/tk_occupancy_summary.py" "$T" > "$WORK/log" 2>&1 || { cat "$WORK/log"; fail "tk_occupancy summary: exit $?"; }
cat "$WORK/log"
[ "$(grep -Ec "^S=16384 +(upstream|[1-4]) +510\.0 +540\.0 +1\.059  \(500\.0/550\.0, 520\.0/530\.0\)$" "$WORK/log")" = 5 ] ||
  fail "tk_occupancy: one row per setting"
rm -r "$T/round-1/3" "$T/round-2/3"
python3 "$LIB/tk_occupancy_summary.py" "$T" > "$WORK/log" 2>&1 && fail "tk_occupancy: a setting without figures must exit 1"
grep -Eq "^S=16384 +3 +missing$" "$WORK/log" || fail "tk_occupancy: the hole must read missing"

mkdir -p "$WORK/none"
python3 "$LIB/four_ctas_summary.py" "$WORK/none" > "$WORK/log" 2>&1 && fail "no reports must exit 1"
grep -q "no forward timing in any report" "$WORK/log" || fail "no reports must be said"
echo "ok"
