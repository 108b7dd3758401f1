#!/usr/bin/env bash
# The node checks of docs/qualify.md on a real GPU, in one call (issue 20): a qualify run
# with its floors and NVML health gates, the same facts from nvidia-smi beside them,
# planted defects that each gate must catch (a floor table twice the baseline: slow node
# and clock hold; an illegal-address kernel: a real Xid), and the floors regenerated
# with the fresh report as a new baseline. Packed as OUT_DIR.tgz.
#   scripts/device/qualify_check.sh BUILD_DIR OUT_DIR
set -uo pipefail
BUILD="${1:?build dir}"; OUT="${2:?output dir}"
BIN="$BUILD/vsa-bench"; SRC="$(cd "$(dirname "$0")/../.." && pwd)"; mkdir -p "$OUT"
step() { printf '\n===== %s\n' "$*"; }
declare -A RC GOT WANT
expect() {  # expect NAME WANT GOT: a row of the table printed last
  WANT[$1]="$2"; GOT[$1]="$3"
}
has_code() {  # has_code CODE REPORT...: "yes" when a node check of these reports FAILs with CODE
  python3 -c "
import json, sys
code, paths = sys.argv[1], sys.argv[2:]
print('yes' if any(c['verdict'] == 'FAIL' and c['code'] == code for p in paths for c in json.load(open(p)).get('checks', [])) else 'no')" "$@"
}
checks() {  # checks REPORT...: the node checks of each report, one line each
  python3 - "$@" <<'PY'
import json, sys
for path in sys.argv[1:]:
    d = json.load(open(path))
    print(f"{path.split('/')[-1]}: exit {d['exit_code']}, checks {d.get('checks_summary')}, @fast {[(a['backends'], a['rule']) for a in d.get('backend_aliases', [])]}")
    for c in d.get("checks", []):
        print(f"  {c['verdict']:4s} {c['code']:20s} {c['name'][:58]:58s} {c['reason'][:160]}")
PY
}

step "nvidia-smi: the facts the health gates read, for comparison"
nvidia-smi -q -d ROW_REMAPPER,PAGE_RETIREMENT,ECC,PCIE,PERFORMANCE >"$OUT/nvidia-smi-q.txt" 2>&1; RC[nvidia_smi]=$?
grep -iE "remap|pending|retire|Link|Gen|Width|Uncorr|Volatile|Slowdown|Thermal" "$OUT/nvidia-smi-q.txt" | head -60

step "qualify with node checks (expect exit 0; a FAIL names its code)"
"$BIN" run --out "$OUT/q" --label qualify --quiet --junit "$OUT/q.junit.xml" --metrics "$OUT/q.prom" --jsonl "$OUT/q.jsonl"
RC[qualify]=$?; expect qualify_exit 0 "${RC[qualify]}"
checks "$OUT"/q/qualify-*.json
python3 - "$OUT"/q/qualify-*.json <<'PY'
import json, sys
for path in sys.argv[1:]:
    print(json.dumps(json.load(open(path))["health"], indent=1)[:3000])
PY
grep -c "^vsa_check{" "$OUT/q.prom" | sed 's/^/prometheus vsa_check series: /'
if [ -x "$SRC/.tools/venv/bin/python" ] && "$SRC/.tools/venv/bin/python" -c "import jsonschema" 2>/dev/null; then
  "$SRC/.tools/venv/bin/python" "$SRC/scripts/check_schema.py" "$OUT"/q/qualify-*.json; RC[schema]=$?
else
  python3 -c "import jsonschema" 2>/dev/null && { python3 "$SRC/scripts/check_schema.py" "$OUT"/q/qualify-*.json; RC[schema]=$?; } \
    || RC[schema]="not run: no jsonschema here (run scripts/check_schema.py on the report afterwards)"
fi

step "planted: every floor twice its baseline (expect exit 1, VSA_E_SLOW_NODE and VSA_E_CLOCK_HOLD)"
python3 - "$SRC/suites/floors/floors.json" "$OUT/planted-floors.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
for f in t["floors"]: f["floor"] = 2 * f["baseline_median"]
json.dump(t, open(sys.argv[2], "w"))
PY
"$BIN" run --case perf-16k --case sustained-16k --floors "$OUT/planted-floors.json" --out "$OUT/slow" --label slow --quiet
RC[planted_slow]=$?; expect planted_slow_exit 1 "${RC[planted_slow]}"
checks "$OUT"/slow/slow-*.json
expect planted_slow_VSA_E_SLOW_NODE yes "$(has_code VSA_E_SLOW_NODE "$OUT"/slow/slow-*.json)"
expect planted_slow_VSA_E_CLOCK_HOLD yes "$(has_code VSA_E_CLOCK_HOLD "$OUT"/slow/slow-*.json)"

step "planted: an illegal-address kernel during the run (expect exit 4, health.xid FAIL naming the Xid)"
"$BIN" run "$SRC/tests/suites/gpu_fault.json" --case illegal-address --node-checks on --out "$OUT/xid" --label xid --quiet
RC[planted_xid]=$?; expect planted_xid_exit 4 "${RC[planted_xid]}"
checks "$OUT"/xid/xid-*.json
expect planted_xid_VSA_E_XID yes "$(has_code VSA_E_XID "$OUT"/xid/xid-*.json)"
dmesg 2>/dev/null | grep -i xid | tail -5

step "floors with the fresh report as a new baseline (commit it as results/baselines/h200-qualify-fast.json)"
(cd "$SRC" && "$BIN" floors results/baselines/h200-qualify.json results/baselines/h200-qualify-sustained.json \
  "$(cd "$OUT" && pwd)"/q/qualify-*.json) >"$OUT/floors-with-fresh.json"; RC[floors]=$?
python3 - "$OUT/floors-with-fresh.json" <<'PY'
import json, sys
for f in json.load(open(sys.argv[1]))["floors"]:
    print(f"{f['backend']:10s} {f['op']} S={f['workload'].get('S')} sustained={f['workload']['sustained']} {f['metric']:22s} "
          f"median {f['baseline_median']:.1f} spread {f['baseline_spread']:.3f} floor {f['floor']:.1f} ({len(f['samples'])} samples)")
PY

step "unit tests of the checks (host-only; the same binary CI runs)"
[ -x "$BUILD/tests/vsa_unit_tests" ] && { "$BUILD/tests/vsa_unit_tests" --gtest_brief=1 \
  --gtest_filter='HealthGates*:Floors*:BackendAlias*:Fleet*' 2>&1 | tail -5; RC[unit]=${PIPESTATUS[0]}; }

step "summary"
for k in "${!RC[@]}"; do printf '%-24s %s\n' "$k" "${RC[$k]}"; done | sort
printf '\n%-32s %-6s %-6s %s\n' expectation want got ok
for k in "${!GOT[@]}"; do
  ok=no; [ "${GOT[$k]}" = "${WANT[$k]}" ] && ok=yes
  printf '%-32s %-6s %-6s %s\n' "$k" "${WANT[$k]}" "${GOT[$k]}" "$ok"
done | sort
abs="$(cd "$OUT" && pwd)"; tar czf "$abs.tgz" -C "$(dirname "$abs")" "$(basename "$abs")" && echo "archive: $abs.tgz"
