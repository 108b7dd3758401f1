#!/usr/bin/env bash
# The node checks of docs/qualify.md on a real GPU, in one call (issue 20): a qualify run
# with its floors and NVML health gates, the same facts from nvidia-smi beside them,
# planted defects that each gate must catch (a floor table twice the baseline: slow node
# and clock hold; an illegal-address kernel: a real Xid; a neighbour in another pid namespace,
# which NVML does not list, there from the start or coming mid-run: the idle readings before and
# after the run, in health.exclusive), and the floors regenerated
# with the fresh report as a new baseline. Packed as OUT_DIR.tgz.
#   scripts/device/qualify_check.sh BUILD_DIR OUT_DIR
set -uo pipefail
source "$(dirname "$0")/lib/build_dir.sh"
require_build qualify_check.sh "${1:?build dir}"
BUILD="${1:?build dir}"; OUT="${2:?output dir}"
BIN="$BUILD/vsa-bench"; SRC="$(cd "$(dirname "$0")/../.." && pwd)"; mkdir -p "$OUT"
step() { printf '\n===== %s\n' "$*"; }
declare -A RC
source "$(dirname "$0")/lib/expectations.sh"
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

throttle() {  # throttle REPORT...: health.throttle's evidence (docs/qualify.md, "Throttle"), per report and per pass
  python3 - "$@" <<'PY'
import json, sys
def n(v, f="{:.0f}"):
    return "-" if v is None else f.format(v)
for path in sys.argv[1:]:
    d = json.load(open(path))
    t = next((c for c in d.get("checks", []) if c["name"] == "health.throttle"), None)
    if t is None:
        print(f"{path.split('/')[-1]}: no health.throttle"); continue
    v, th = t.get("value") or {}, t.get("threshold") or {}
    lim = v.get("temperature_thresholds_c") or {}
    print(f"{path.split('/')[-1]}: health.throttle {t['verdict']} {t['code']}")
    print(f"  reasons {v.get('reasons')}  thermal share {n(v.get('thermal_fraction'), '{:.1%}')} ({v.get('thermal_fraction_source')})"
          f"  violation {n(v.get('thermal_violation_seconds'), '{:.2f}')} s of {n(v.get('sustained_seconds'), '{:.2f}')} s sustained"
          f"  per-sample {v.get('reason_sample_fraction')}")
    print(f"  GPU max {n(v.get('gpu_temperature_max_c'))} C (max operating {n(lim.get('gpu_max'))}, slowdown {n(lim.get('slowdown'))},"
          f" shutdown {n(lim.get('shutdown'))})  memory max {n(v.get('memory_temperature_max_c'))} C (max operating {n(lim.get('memory_max'))})"
          f"  slow sustained floors {v.get('slow_sustained_floors')}  policy {th}")
    print(f"  reason: {t['reason']}")
    for c in d["cases"]:
        if not (c.get("spec", {}).get("timing", {}).get("min_pass_ms", 0) > 0): continue
        for b in c["backends"]:
            for tm in b.get("timings", []):
                for p in tm.get("clocks") or []:
                    if not isinstance(p, dict): continue
                    bf, af, du = p.get("before") or {}, p.get("after") or {}, p.get("during") or {}
                    viol = None
                    if bf.get("thermal_violation_ns") is not None and af.get("thermal_violation_ns") is not None:
                        viol = (af["thermal_violation_ns"] - bf["thermal_violation_ns"]) / 1e9
                    print(f"    {c['name'][-16:]:16s} {b['backend']:10s} {tm['op']} pass {p.get('pass')}: {n(p.get('seconds'), '{:.2f}')} s,"
                          f" thermal violation {n(viol, '{:.2f}')} s, GPU max {n((du.get('temperature_c') or {}).get('max'))} C,"
                          f" memory max {n((du.get('memory_temperature_c') or {}).get('max'))} C,"
                          f" SM {n((du.get('sm_clock_mhz') or {}).get('mean'))} MHz, {n((du.get('power_w') or {}).get('mean'))} W,"
                          f" samples with reason {du.get('reason_samples')} of {du.get('reason_sampled')}")
PY
}

step "nvidia-smi: the facts the health gates read, for comparison"
nvidia-smi -q -d ROW_REMAPPER,PAGE_RETIREMENT,ECC,PCIE,PERFORMANCE,TEMPERATURE >"$OUT/nvidia-smi-q.txt" 2>&1; RC[nvidia_smi]=$?
grep -iE "remap|pending|retire|Link|Gen|Width|Uncorr|Volatile|Slowdown|Thermal|Temp|Shutdown" "$OUT/nvidia-smi-q.txt" | head -80

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
throttle "$OUT"/q/qualify-*.json | tee "$OUT/throttle.txt"
expect throttle_evidence yes "$(python3 -c "
import json, sys
ok = False
for p in sys.argv[1:]:
    t = [c for c in json.load(open(p)).get('checks', []) if c['name'] == 'health.throttle']
    v = (t[0].get('value') or {}) if t else {}
    ok = ok or (v.get('thermal_fraction') is not None and (v.get('temperature_thresholds_c') or {}).get('gpu_max') is not None)
print('yes' if ok else 'no')" "$OUT"/q/qualify-*.json)"
nvidia-smi -q -d TEMPERATURE,PERFORMANCE >"$OUT/nvidia-smi-after.txt" 2>&1
grep -iE "Temp|Thermal|Slowdown" "$OUT/nvidia-smi-after.txt" | head -30

step "the sustained case with sw_thermal ignored (--throttle-ignore, as dcgmi diag --clocksevent-mask; expect exit 0)"
"$BIN" run --case sustained-16k --throttle-ignore sw_thermal --out "$OUT/ign" --label ign --quiet
RC[throttle_ignore]=$?; expect throttle_ignore_exit 0 "${RC[throttle_ignore]}"
throttle "$OUT"/ign/ign-*.json
if [ -x "$SRC/.tools/venv/bin/python" ] && "$SRC/.tools/venv/bin/python" -c "import jsonschema" 2>/dev/null; then
  "$SRC/.tools/venv/bin/python" "$SRC/scripts/check_schema.py" "$OUT"/q/qualify-*.json; RC[schema]=$?
else
  python3 -c "import jsonschema" 2>/dev/null && { python3 "$SRC/scripts/check_schema.py" "$OUT"/q/qualify-*.json; RC[schema]=$?; } \
    || RC[schema]="not run: no jsonschema here (run scripts/check_schema.py on the report afterwards)"
fi

# health.exclusive's idle readings (qualify/idle_utilization.hpp): the qualify run above had the GPU
# to itself, so its readings before the first case and after the last worker must end at 0.
expect idle_reading_quiet yes "$(python3 -c "
import json, sys
idle = [(json.load(open(p)).get('health') or {}).get(k) for p in sys.argv[1:] for k in ('idle_before', 'idle_after')]
print('yes' if idle and all(i and i['busy_percent'] and i['busy_percent'][-1] == 0 for i in idle) else 'no')" "$OUT"/q/qualify-*.json)"

step "planted: a neighbour this run's pid namespace cannot see (vsa-bench under unshare --pid; expect exit 1, VSA_E_SHARED_GPU from the idle reading)"
# The neighbour runs in the host's pid namespace and vsa-bench in a new one, so NVML lists the
# neighbour to nvidia-smi but not to vsa-bench: only its kernel time can show it.
if ! python3 -c "import torch" 2>/dev/null; then
  RC[planted_hidden]="not run: needs python3 with torch"
elif ! unshare --pid --fork --mount-proc true 2>/dev/null; then
  RC[planted_hidden]="not run: unshare --pid refused here (needs CAP_SYS_ADMIN)"
else
  rm -f "$OUT/hidden.ready"
  python3 -c "
import torch, sys
x = torch.zeros(1 << 24, device='cuda')
x.add_(1.0); torch.cuda.synchronize(); open(sys.argv[1], 'w').close()
while True:
    x.add_(1.0)
    torch.cuda.synchronize()" "$OUT/hidden.ready" & hidden=$!
  for _ in $(seq 120); do [ -e "$OUT/hidden.ready" ] && break; sleep 0.5; done
  nvidia-smi --query-compute-apps=pid,process_name --format=csv,noheader | sed 's/^/host namespace sees: /'
  # The premise: inside a new pid namespace the driver lists no process (the neighbour has no pid there).
  expect planted_hidden_unlisted yes "$(unshare --pid --fork --mount-proc nvidia-smi --query-compute-apps=pid \
    --format=csv,noheader | grep -q '[0-9]' && echo no || echo yes)"
  unshare --pid --fork --mount-proc "$BIN" run --case perf-16k --out "$OUT/hidden" --label hidden --quiet
  RC[planted_hidden]=$?
  kill "$hidden"; wait "$hidden" 2>/dev/null
  expect planted_hidden_exit 1 "${RC[planted_hidden]}"
  checks "$OUT"/hidden/hidden-*.json
  expect planted_hidden_VSA_E_SHARED_GPU yes "$(has_code VSA_E_SHARED_GPU "$OUT"/hidden/hidden-*.json)"
  # Caught by the idle reading, with the process list seeing no one.
  expect planted_hidden_by_idle_reading yes "$(python3 -c "
import json, sys
c = [c for p in sys.argv[1:] for c in json.load(open(p)).get('checks', []) if c['name'] == 'health.exclusive']
print('yes' if c and 'busy before this run launched any kernel' in c[0]['reason'] and (c[0].get('value') or {}).get('shared') == 0
      else 'no')" "$OUT"/hidden/hidden-*.json)"
fi

step "planted: the same neighbour, coming after the run began (expect exit 1, VSA_E_SHARED_GPU from the reading after the run)"
# The neighbour is ready (torch loaded, its context made) before the run and starts its kernels
# once the run's report has content, which is after the reading before the first case (the file
# itself exists earlier, empty: its name is reserved first), so only the reading after the last
# worker ended can show it.
if [[ "${RC[planted_hidden]}" == not\ run* ]]; then
  RC[planted_midrun]="${RC[planted_hidden]}"
else
  rm -f "$OUT/midrun.ready" "$OUT/midrun.go"; mkdir -p "$OUT/midrun"
  python3 -c "
import os, sys, time, torch
x = torch.zeros(1 << 24, device='cuda')
torch.cuda.synchronize(); open(sys.argv[1], 'w').close()
while not os.path.exists(sys.argv[2]):
    time.sleep(0.01)
while True:
    x.add_(1.0)
    torch.cuda.synchronize()" "$OUT/midrun.ready" "$OUT/midrun.go" & midrun=$!
  for _ in $(seq 120); do [ -e "$OUT/midrun.ready" ] && break; sleep 0.5; done
  unshare --pid --fork --mount-proc "$BIN" run --case perf-16k --out "$OUT/midrun" --label midrun --quiet & run=$!
  for _ in $(seq 600); do
    for f in "$OUT"/midrun/midrun-*.json; do [ -s "$f" ] && break 2; done
    sleep 0.05
  done
  touch "$OUT/midrun.go"; echo "neighbour started $(date +%T.%N | cut -c1-12), once the run's report had content"
  wait "$run"; RC[planted_midrun]=$?
  kill "$midrun"; wait "$midrun" 2>/dev/null
  expect planted_midrun_exit 1 "${RC[planted_midrun]}"
  checks "$OUT"/midrun/midrun-*.json
  expect planted_midrun_VSA_E_SHARED_GPU yes "$(has_code VSA_E_SHARED_GPU "$OUT"/midrun/midrun-*.json)"
  # Caught by the reading after the run, with the reading before quiet and the process list seeing no one.
  expect planted_midrun_by_reading_after yes "$(python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
c = [c for c in d.get('checks', []) if c['name'] == 'health.exclusive']
before = d['health']['idle_before']['busy_percent']
print('yes' if c and 'busy after this run' in c[0]['reason'] and (c[0].get('value') or {}).get('shared') == 0
      and before and before[-1] == 0 else 'no')" "$OUT"/midrun/midrun-*.json)"
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
  --gtest_filter='HealthGates*:ThrottleGate*:Floors*:BackendAlias*:Fleet*' 2>&1 | tail -5; RC[unit]=${PIPESTATUS[0]}; }

step "summary"
for k in "${!RC[@]}"; do printf '%-24s %s\n' "$k" "${RC[$k]}"; done | sort
printf '\nthrottle evidence of the qualify run (docs/qualify.md, "Throttle"):\n'
grep -v "^    " "$OUT/throttle.txt"
echo
expectations_table
abs="$(cd "$OUT" && pwd)"; tar czf "$abs.tgz" -C "$(dirname "$abs")" "$(basename "$abs")" && echo "archive: $abs.tgz"
