#!/usr/bin/env bash
# app/'s libraries include only what they link (scripts/check_layers.py), and the check
# catches an include against the layering: a copy of app/ with report/ including run/ (the
# layer that writes reports; report links engine for the pass statistics, never run) must fail,
# naming the file and line.
# Usage: layers.sh <vsa-bench> <source dir>
source "$(dirname "$0")/lib.sh"
python3 "$SRC/scripts/check_layers.py" || fail "the tree breaks the layering"
mkdir -p "$WORK/scripts" && cp "$SRC/scripts/check_layers.py" "$WORK/scripts/" && cp -r "$SRC/app" "$WORK/app"
sed -i '1a #include "run/suite_runner.hpp"' "$WORK/app/report/report.cpp"
python3 "$WORK/scripts/check_layers.py" > "$WORK/out" 2>&1
[ $? = 1 ] || fail "an include of run/ from report/ must fail the check"
grep -q "app/report/report.cpp:2: includes run/" "$WORK/out" || fail "the finding must name the file and line: $(cat "$WORK/out")"
echo "layering holds; a planted report -> run include is caught"
