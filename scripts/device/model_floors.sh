#!/usr/bin/env bash
# Speed floors for a GPU model the committed table lacks (docs/qualify.md, "Adding a floor for
# a new GPU model"), in one call on a known-good node of that model:
#   1. RUNS qualify runs (default 3) as baselines (a median and a spread from several runs say
#      more than one);
#   2. the table regenerated from the committed table's sources plus those runs;
#   3. qualify again under that table: every floor of this model must PASS (exit 0);
#   4. the same with this model's floors planted at twice their baseline: VSA_E_SLOW_NODE, exit 1.
# Then commit OUT_DIR/baselines/*.json as results/baselines/<model>-qualify-*.json and run
# `vsa-bench floors` over the table's sources again (the table embeds report paths).
# Packed as OUT_DIR.tgz; a table of expectations last.
#   scripts/device/model_floors.sh BUILD_DIR OUT_DIR [RUNS]
# Status: written 2026-12-05 and run only on the build machine (tests/cli/device_scripts.sh, no
# GPU); no device was lent after it was written. Its first GPU run is its real test.
set -uo pipefail
source "$(dirname "$0")/lib/build_dir.sh"
require_build model_floors.sh "${1:?build dir}"
BUILD="${1:?build dir}"; OUT="${2:?output dir}"; RUNS="${3:-3}"
BIN="$(cd "$BUILD" && pwd)/vsa-bench"; SRC="$(cd "$(dirname "$0")/../.." && pwd)"; mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
step() { printf '\n===== %s\n' "$*"; }
source "$(dirname "$0")/lib/expectations.sh"
floor_checks() {  # floor_checks REPORT: the floor and clock_hold checks, one line each
  python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(f"{sys.argv[1].split('/')[-1]}: exit {d['exit_code']}, checks {d.get('checks_summary')}")
for c in d.get("checks", []):
    if c["name"].startswith(("floor", "clock_hold")):
        print(f"  {c['verdict']:4s} {c['code']:16s} {c['name'][:52]:52s} {c['reason'][:110]}")
PY
}
count_code() {  # count_code CODE REPORT: how many floor / clock_hold checks carry CODE
  python3 -c "
import json, sys
d = json.load(open(sys.argv[2]))
print(sum(1 for c in d.get('checks', []) if c['name'].startswith(('floor', 'clock_hold')) and c['code'] == sys.argv[1]))" "$@"
}

"$BIN" info | head -8
model="$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
echo "GPU model: ${model:-unknown}"

for i in $(seq 1 "$RUNS"); do
  step "baseline qualify run $i of $RUNS"
  "$BIN" run qualify --out "$OUT/baselines" --label "qualify-$i" --quiet; echo "exit $?"
done

step "the table: the committed sources plus these runs"
mapfile -t sources < <(python3 -c "
import json, sys
print('\n'.join(s['path'] for s in json.load(open(sys.argv[1]))['sources']))" "$SRC/suites/floors/floors.json")
(cd "$SRC" && "$BIN" floors "${sources[@]}" "$OUT"/baselines/qualify-*.json) >"$OUT/floors.json"
expect floors_exit 0 "$?"
python3 - "$OUT/floors.json" <<'PY'
import json, sys
for f in json.load(open(sys.argv[1]))["floors"]:
    g = f["gpu"]
    print(f"{g['name'][:22]:22s} {f['backend']:10s} {f['op']} sustained={str(f['workload']['sustained'])[0]} "
          f"{f['metric']:22s} median {f['baseline_median']:8.1f} spread {f['baseline_spread']:.3f} "
          f"floor {f['floor']:8.1f} ({len(f['samples'])} samples)")
PY
expect floors_for_this_model yes "$(python3 -c "
import json, sys
print('yes' if any(f['gpu']['name'] == sys.argv[2] for f in json.load(open(sys.argv[1]))['floors']) else 'no')" "$OUT/floors.json" "$model")"

step "qualify under the new table (expect exit 0: this model's floors PASS)"
"$BIN" run qualify --floors "$OUT/floors.json" --out "$OUT/check" --label check --quiet
expect check_exit 0 "$?"
r="$(ls "$OUT"/check/check-*.json | head -1)"; floor_checks "$r"
expect check_no_floor_missing 0 "$(count_code VSA_E_NO_FLOOR "$r")"

step "planted: this model's floors at twice their baseline (expect exit 1, VSA_E_SLOW_NODE)"
python3 - "$OUT/floors.json" "$OUT/planted.json" "$model" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
for f in t["floors"]:
    if f["gpu"]["name"] == sys.argv[3]:
        f["floor"] = 2 * f["baseline_median"]
json.dump(t, open(sys.argv[2], "w"))
PY
"$BIN" run qualify --case perf-16k --case sustained-16k --floors "$OUT/planted.json" --out "$OUT/slow" --label slow --quiet
expect planted_exit 1 "$?"
r="$(ls "$OUT"/slow/slow-*.json | head -1)"; floor_checks "$r"
expect planted_slow_node_fires yes "$([ "$(count_code VSA_E_SLOW_NODE "$r")" -gt 0 ] && echo yes || echo no)"

step "summary"
expectations_table
tar czf "$OUT.tgz" -C "$(dirname "$OUT")" "$(basename "$OUT")" && echo "archive: $OUT.tgz"
