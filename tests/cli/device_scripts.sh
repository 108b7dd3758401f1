#!/usr/bin/env bash
# scripts/device/perf_baseline.sh and model_floors.sh with the real binary on a machine without
# a GPU: the mechanics a device call depends on. perf_baseline prints its table and packs its
# folder as OUT_DIR.tgz with the report and the NVBench export in it (a device call returns a
# bounded number of files); model_floors regenerates the table from the committed sources plus
# its own runs, prints its expectations and packs its folder.
# Usage: device_scripts.sh <vsa-bench> <source dir>
source "$(dirname "$0")/lib.sh"
mkdir -p "$WORK/build"
ln -s "$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")" "$WORK/build/vsa-bench"

bash "$SRC/scripts/device/perf_baseline.sh" "$WORK/build" "$WORK/pb" > "$WORK/log" 2>&1 || { cat "$WORK/log"; fail "perf_baseline: exit $?"; }
grep -q "^goal (spread <= target" "$WORK/log" || { cat "$WORK/log"; fail "perf_baseline: no table"; }
[ "$(tail -1 "$WORK/log")" = "archive: $WORK/pb.tgz" ] || { tail -3 "$WORK/log"; fail "perf_baseline: the archive is not named last"; }
tar tzf "$WORK/pb.tgz" > "$WORK/listing" || fail "perf_baseline: the archive does not list"
grep -q "^pb/perf-baseline-.*\.json$" "$WORK/listing" || { cat "$WORK/listing"; fail "perf_baseline: no report in the archive"; }
grep -q "^pb/perf-baseline.nvbench.json$" "$WORK/listing" || fail "perf_baseline: no NVBench export in the archive"
grep -q "^pb/table.txt$" "$WORK/listing" || fail "perf_baseline: no table in the archive"

bash "$SRC/scripts/device/model_floors.sh" "$WORK/build" "$WORK/mf" 2 > "$WORK/log" 2>&1
[ -s "$WORK/mf/floors.json" ] || { cat "$WORK/log"; fail "model_floors: no table"; }
[ "$(ls "$WORK"/mf/baselines/qualify-*.json | wc -l)" = 2 ] || fail "model_floors: two baseline runs asked for"
# The committed table's sources were found from the source tree: its floors are all there.
python3 - "$SRC/suites/floors/floors.json" "$WORK/mf/floors.json" <<'PY' || fail "model_floors: the committed floors are not in the new table"
import json, sys
key = lambda f: (f["gpu"]["name"], f["backend"], f["op"], f["metric"], f["workload"]["sustained"], round(f["floor"], 6))
old, new = ({key(f) for f in json.load(open(p))["floors"]} for p in sys.argv[1:])
sys.exit(0 if old <= new else 1)
PY
grep -q "^floors_exit  *0  *0  *yes$" "$WORK/log" || { cat "$WORK/log"; fail "model_floors: the expectations table"; }
[ -s "$WORK/mf.tgz" ] || fail "model_floors: no archive beside OUT_DIR"
echo "ok"
