# The JSON Schemas of docs/schema/ against what the project writes and reads: every committed
# baseline report and repro bundle, every built-in and test suite, fresh reports of this binary
# (a CPU-only run, a failing case and a run with the hang watch), repro bundles it writes, and `compare` / `fleet
# --format json` on the baselines. Then planted violations (a verdict "MAYBE", a missing
# required field, an unknown suite field, a compare without exit_code, a fleet verdict outside
# the enum, a report field the schema does not know) must each be rejected. The gate on the perf
# baseline against a copy of itself is too noisy to gate (exit 4, valid); a schema-2 report must
# say how each timing was sampled.
# Needs jsonschema (PyPI): scripts/test.sh installs it into .tools/venv; without it this test
# fails rather than skips.
source "$(dirname "$0")/lib.sh"

PY=""
for candidate in "${VSA_TOOLS_PYTHON:-}" "$SRC/.tools/venv/bin/python" python3; do
  [ -n "$candidate" ] && "$candidate" -c "import jsonschema" 2>/dev/null && { PY="$candidate"; break; }
done
[ -n "$PY" ] || fail "no Python with the jsonschema package (scripts/test.sh installs it into .tools/venv)"
CHECK=("$PY" "$SRC/scripts/check_schema.py")

valid() {  # valid [--schema KIND] FILE...
  "${CHECK[@]}" "$@" >"$WORK/out" 2>&1 || { cat "$WORK/out"; fail "schema check rejected: $*"; }
}
invalid() {  # invalid KIND FILE TEXT: the file must be rejected with TEXT in the message
  "${CHECK[@]}" --schema "$1" "$2" >"$WORK/out" 2>&1; local rc=$?
  [ "$rc" -eq 1 ] || { cat "$WORK/out"; fail "planted violation accepted ($3): exit $rc"; }
  grep -qF -- "$3" "$WORK/out" || { cat "$WORK/out"; fail "planted violation rejected without '$3'"; }
}
edit() {  # edit SRC DST PYTHON: DST = SRC with the statement applied to d
  "$PY" - "$1" "$2" "$3" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
PY
}

# Committed files: reports and the one-case bundles `repro --bundle` writes (NVBench exports,
# *.nvbench.json, are NVBench's format: tests/cli/nvbench_export.sh reads those).
shopt -s nullglob
reports=(); bundles=()
for f in "$SRC"/results/baselines/*.json; do
  case "$f" in *-bundle.json) bundles+=("$f") ;; *.nvbench.json) ;; *) reports+=("$f") ;; esac
done
[ "${#reports[@]}" -ge 10 ] || fail "expected the committed baseline reports, found ${#reports[@]}"
[ "${#bundles[@]}" -ge 1 ] || fail "expected a committed repro bundle"
valid --schema report "${reports[@]}"
# Without --schema, the whole folder at once (README's use): an NVBench export is named and
# passed over, not refused as a suite, and every other file still checked.
nvbench=("$SRC"/results/baselines/*.nvbench.json)
[ "${#nvbench[@]}" -ge 1 ] || fail "expected a committed NVBench export"
valid "$SRC"/results/baselines/*.json
grep -qF "${nvbench[0]}: an NVBench export" "$WORK/out" || { cat "$WORK/out"; fail "an NVBench export must be named as such"; }
echo '{"meta": {}, "benchmarks": [], "cases": 3}' >"$WORK/not-nvbench.json"  # a suite's key: still a suite
"${CHECK[@]}" "$WORK/not-nvbench.json" >"$WORK/out" 2>&1 && { cat "$WORK/out"; fail "a bad suite passed as an NVBench export"; }
grep -qF "suite: \$.cases" "$WORK/out" || { cat "$WORK/out"; fail "a document with cases must be checked as a suite"; }
valid --schema suite "${bundles[@]}"
suites=("$SRC"/suites/*.json "$SRC"/tests/suites/*.json)
[ "${#suites[@]}" -ge 8 ] || fail "expected the built-in and test suites, found ${#suites[@]}"
valid --schema suite "${suites[@]}"

# Fresh output of this binary: a CPU-only run (device null), and a case that fails.
"$BIN" run smoke --devices none --out "$WORK/run" --label schema >"$WORK/out" 2>&1 || { cat "$WORK/out"; fail "run smoke"; }
cat >"$WORK/failing.json" <<'JSON'
{"name": "schema-fail", "cases": [{"name": "zero-tolerance", "B": 1, "H": 1, "S": 128, "D": 32,
  "backends": ["cpu-ref"], "tolerance": {"rel_max": 1e-30, "rel_l2": 1e-30}}]}
JSON
valid --schema suite "$WORK/failing.json"
"$BIN" run "$WORK/failing.json" --devices none --out "$WORK/fail" >"$WORK/out" 2>&1
[ $? -eq 1 ] || { cat "$WORK/out"; fail "a zero-tolerance case must fail (exit 1)"; }
fresh=("$WORK"/run/*.json "$WORK"/fail/*.json)
[ "${#fresh[@]}" -eq 2 ] || fail "expected two fresh reports, found ${#fresh[@]}"
valid --schema report "${fresh[@]}"
grep -q '"verdict": "FAIL"' "${fresh[1]}" || fail "the failing run's report holds no FAIL"

# The case fields a report writes only when asked for (case_spec.cpp): the hang watch. Its report
# and the bundle `repro` makes of it must both pass (before, both schemas refused hang_watch_ms).
"$BIN" run smoke --case cpu-ref --devices none --hang-watch-ms 2000 --out "$WORK/watch" >"$WORK/out" 2>&1 \
  || { cat "$WORK/out"; fail "run smoke --hang-watch-ms"; }
watched=("$WORK"/watch/*.json)
grep -q '"hang_watch_ms": 2000' "${watched[0]}" || fail "the report does not carry hang_watch_ms"
valid --schema report "${watched[0]}"
"$BIN" repro "${watched[0]}" --case smoke/cpu-ref --bundle "$WORK/watch-bundle.json" >"$WORK/out" 2>&1 \
  || { cat "$WORK/out"; fail "repro --bundle of the watched report"; }
valid --schema suite "$WORK/watch-bundle.json"

# Node checks (docs/qualify.md): a CPU-only qualify run (what @fast became, no checks), and a
# GPU report carrying checks and NVML health in the shape qualify/health.cpp writes (a GPU run
# writes them for real: scripts/device/qualify_check.sh checks that report against the schema).
"$BIN" run qualify --devices none --out "$WORK/qualify" --quiet >"$WORK/out" 2>&1 || { cat "$WORK/out"; fail "run qualify"; }
valid --schema report "$WORK"/qualify/*.json
edit "$SRC/results/baselines/h200-qualify.json" "$WORK/checked.json" "
snap = {'remapped_rows': {'correctable': 0, 'uncorrectable': 0, 'pending': False, 'failure': False},
        'retired_pages_sbe': {'unavailable': 'nvmlDeviceGetRetiredPages: Not Supported (3)'},
        'retired_pages_dbe': {'unavailable': 'nvmlDeviceGetRetiredPages: Not Supported (3)'},
        'retired_pages_pending': {'unavailable': 'nvmlDeviceGetRetiredPagesPendingStatus: Not Supported (3)'},
        'ecc_corrected_volatile': 0, 'ecc_uncorrected_volatile': 0,
        'pcie_link': {'generation': 5, 'width': 16}, 'pcie_link_max': {'generation': 5, 'width': 16}}
d['health'] = {'monitored': True, 'seconds': 60.5, 'before': snap, 'after': snap,
               'xid': {'watched': True, 'note': '', 'events': []},
               'pcie_during': {'best': {'generation': 5, 'width': 16}, 'samples': 240, 'note': ''},
               'idle_before': {'busy_percent': [37, 0], 'seconds': 1.1, 'why': '', 'persistence_mode': True},
               'idle_after': {'busy_percent': [0], 'seconds': 0.0, 'why': '', 'persistence_mode': True}}
d['checks'] = [{'name': 'floor qualify/fast/perf-16k sm90a fwd', 'kind': 'floor', 'verdict': 'FAIL',
                'code': 'VSA_E_SLOW_NODE', 'reason': 'measured 400 TFLOPS is below the floor 543.5', 'value': 400,
                'threshold': {'floor': 543.5, 'baseline_median': 605.2, 'baseline_spread': 0.002, 'margin': 0.1},
                'case': 'qualify/fast/perf-16k', 'backend': 'sm90a', 'op': 'fwd'},
               {'name': 'health.retired_pages', 'kind': 'retired_pages', 'verdict': 'SKIP',
                'code': 'VSA_E_HEALTH_UNKNOWN', 'reason': 'NVML cannot say: Not Supported (3)', 'value': None,
                'threshold': None}]
d['checks_summary'] = {'checks': 2, 'PASS': 0, 'FAIL': 1, 'SKIP': 1}
d['backend_aliases'] = [{'alias': '@fast', 'backends': ['sm90a', 'sm90a-det'], 'rule': 'cc 9.0: the sm90a family',
                         'cases': ['qualify/fast/ragged']}]"
valid --schema report "$WORK/checked.json"
edit "$WORK/checked.json" "$WORK/pass-with-code.json" "d['checks'][0]['verdict'] = 'PASS'"
invalid report "$WORK/pass-with-code.json" "'VSA_OK' was expected"
edit "$WORK/checked.json" "$WORK/check-kind.json" "d['checks'][0]['kind'] = 'vibes'"
invalid report "$WORK/check-kind.json" "'vibes' is not one of"
edit "$WORK/checked.json" "$WORK/check-case.json" "d['checks'][0]['case'] = ''"
invalid report "$WORK/check-case.json" "'' should be non-empty"
edit "$WORK/checked.json" "$WORK/health-field.json" "d['health']['before']['temperature'] = 40"
invalid report "$WORK/health-field.json" "('temperature' was unexpected)"
edit "$WORK/checked.json" "$WORK/idle-pct.json" "d['health']['idle_before']['busy_percent'] = [140]"
invalid report "$WORK/idle-pct.json" "140 is greater than the maximum of 100"
edit "$WORK/checked.json" "$WORK/idle-after.json" "d['health']['idle_after']['when'] = 'later'"
invalid report "$WORK/idle-after.json" "Additional properties are not allowed ('when' was unexpected)"
# A MIG instance's report: the device names its instance, and a sample whose process list is
# unknown says why (telemetry/nvml_cuda.hpp).
edit "$WORK/checked.json" "$WORK/mig.json" "
d['device'].update(mig_enabled=True, mig_uuid='MIG-a65afc88-50b5-5ccf-b0a8-f93b3247ae9e')
t = next(t for c in d['cases'] for b in c['backends'] for t in b['timings'] if t.get('clocks'))
t['clocks'][0]['before'] = dict(t['clocks'][0]['before'] or {}, compute_pids=None,
                                compute_pids_why='MIG is on and NVML has no MIG device MIG-0 (nvmlDeviceGetHandleByUUID)')"
valid --schema report "$WORK/mig.json"
edit "$WORK/mig.json" "$WORK/mig-bad.json" "d['device']['mig_uuid'] = 7"
invalid report "$WORK/mig-bad.json" "7 is not of type"

correctness="$SRC/results/baselines/h200-correctness.json"
"$BIN" repro "$correctness" --case correctness/odd-nb --bundle "$WORK/bundle.json" >"$WORK/out" 2>&1 \
  || { cat "$WORK/out"; fail "repro --bundle"; }
valid --schema suite "$WORK/bundle.json"

# compare: baselines side by side, and a gate that finds a regression (a copy at half speed).
perf="$SRC/results/baselines/h200-sm90a-run27.json"
"$BIN" compare "$perf" "$SRC/results/baselines/h200-sm90a-final-check.json" "$SRC/results/baselines/h200-peers.json" \
  --format json >"$WORK/compare.json" 2>"$WORK/err"
rc=$?; [ "$rc" -eq 0 ] || { cat "$WORK/err"; fail "compare --format json: exit $rc"; }
valid --schema compare "$WORK/compare.json"
edit "$perf" "$WORK/slow.json" "
for c in d['cases']:
    for b in c['backends']:
        for t in b['timings']:  # every time doubled, so the figures still follow from each other
            t['tflops'] *= 0.5; t['median_ms'] *= 2; t['pass_medians_ms'] = [2 * x for x in t['pass_medians_ms']]"
"$BIN" compare --baseline "$perf" "$WORK/slow.json" --threshold 5% --format json >"$WORK/gate.json" 2>"$WORK/err"
rc=$?; [ "$rc" -eq 3 ] || { cat "$WORK/err"; fail "compare gate on a half-speed copy: exit $rc, expected 3"; }
valid --schema compare "$WORK/gate.json"

# The gate on the baseline against a copy of itself: its +-13% figures are too noisy to gate (exit 4).
cp "$perf" "$WORK/again.json"
"$BIN" compare --baseline "$perf" "$WORK/again.json" --threshold 5% --format json >"$WORK/noisy.json" 2>"$WORK/err"
rc=$?; [ "$rc" -eq 4 ] || { cat "$WORK/err"; fail "compare gate of the baseline against itself: exit $rc, expected 4"; }
valid --schema compare "$WORK/noisy.json"
[ "$(json_get "$WORK/noisy.json" "d['gate']['too_noisy'][0]['code']")" = "VSA_E_TOO_NOISY" ] || fail "no too-noisy entry"
edit "$WORK/noisy.json" "$WORK/noisy0.json" "d['exit_code'] = 0"
invalid compare "$WORK/noisy0.json" "\$.gate.too_noisy"

# Schema 2 reports must say how each timing was sampled; schema 1 ones need not.
edit "$perf" "$WORK/v2.json" "
d['schema_version'] = 2
for c in d['cases']:
    for b in c['backends']:
        for t in b['timings']:
            t.update(pass_range=t['spread'], off_clock_passes=[{'pass': 0, 'sm_clock_mhz': 1980, 'others_min_mhz': 1590,
                     'others_max_mhz': 1605}], sampling={'stop': 'converged', 'target_spread': 0.02, 'time_budget_s': 30,
                     'min_passes': 4, 'max_passes': 100, 'seconds': 1.5})"
valid --schema report "$WORK/v2.json"
edit "$WORK/v2.json" "$WORK/v2-unsampled.json" "del d['cases'][0]['backends'][0]['timings'][0]['sampling']"
invalid report "$WORK/v2-unsampled.json" "'sampling' is a required property"
edit "$WORK/v2.json" "$WORK/v2-stop.json" "d['cases'][0]['backends'][0]['timings'][0]['sampling']['stop'] = 'gave_up'"
invalid report "$WORK/v2-stop.json" "'gave_up' is not one of"

# fleet over the baselines (the bundle is skipped; the fault-isolation report fails: exit 1).
"$BIN" fleet "$SRC/results/baselines" --gate --format json >"$WORK/fleet.json" 2>"$WORK/err"
rc=$?; [ "$rc" -eq 1 ] || { cat "$WORK/err"; fail "fleet over the baselines: exit $rc, expected 1"; }
valid --schema fleet "$WORK/fleet.json"
[ "$(json_get "$WORK/fleet.json" "len(d['skipped']) >= 1 and d['failed_nodes'] >= 1")" = "True" ] \
  || fail "fleet JSON: expected a skipped bundle and a failed node"

# The schema's own "schema" tag picks the schema when none is named.
valid "${reports[0]}" "${suites[0]}" "$WORK/compare.json" "$WORK/fleet.json"

# Planted violations: each must be rejected, naming what is wrong.
edit "$correctness" "$WORK/maybe.json" "d['cases'][0]['verdict'] = 'MAYBE'"
invalid report "$WORK/maybe.json" "\$.cases[0].verdict: 'MAYBE' is not one of"
edit "$correctness" "$WORK/nosummary.json" "del d['summary']"
invalid report "$WORK/nosummary.json" "'summary' is a required property"
edit "$correctness" "$WORK/nofirmware.json" "del d['device']['gsp_firmware_version']"
invalid report "$WORK/nofirmware.json" "'gsp_firmware_version' is a required property"
edit "$correctness" "$WORK/string-metric.json" "d['cases'][0]['backends'][0]['metrics'][0]['rel_max'] = '0.01'"
invalid report "$WORK/string-metric.json" "is not of type 'number', 'null'"
edit "${fresh[0]}" "$WORK/drift.json" "d['cases'][0]['backends'][0]['kernel_ms'] = 1.0"
invalid report "$WORK/drift.json" "('kernel_ms' was unexpected)"
model="$SRC/results/baselines/cpu-model-schedules-100.json"
edit "$model" "$WORK/seed.json" "d['cases'][0]['backends'][0]['schedules']['finding_seed'] = 'seven'"
invalid report "$WORK/seed.json" "'seven' is not of type 'integer', 'null'"
edit "$model" "$WORK/noseed.json" "del d['cases'][0]['backends'][0]['schedules']['first_seed']"
invalid report "$WORK/noseed.json" "'first_seed' is a required property"
edit "$SRC/suites/model.json" "$WORK/schedules.json" "d['defaults']['schedules'] = 0"
invalid suite "$WORK/schedules.json" "0 is less than the minimum of 1"
edit "$SRC/suites/correctness.json" "$WORK/typo.json" "d['cases'][0]['pattrn'] = d['cases'][0].pop('pattern')"
invalid suite "$WORK/typo.json" "('pattrn' was unexpected)"
edit "$SRC/suites/correctness.json" "$WORK/backend.json" "d['defaults']['backends'] = ['sm90']"
invalid suite "$WORK/backend.json" "'sm90' is not one of"
edit "$WORK/gate.json" "$WORK/noexit.json" "del d['exit_code']"
invalid compare "$WORK/noexit.json" "'exit_code' is a required property"
edit "$WORK/gate.json" "$WORK/exit0.json" "d['exit_code'] = 0"
invalid compare "$WORK/exit0.json" "\$.gate.regressions"
edit "$WORK/fleet.json" "$WORK/ok.json" "d['nodes'][0]['verdict'] = 'OK'"
invalid fleet "$WORK/ok.json" "'OK' is not one of"
# The schema holds the tool's own rule: a tolerance must be above 0 (suite.cpp refuses 0).
edit "$WORK/failing.json" "$WORK/zero-tol.json" "d['cases'][0]['tolerance']['rel_max'] = 0"
invalid suite "$WORK/zero-tol.json" "less than or equal to the minimum of 0"
"$BIN" run "$WORK/zero-tol.json" --devices none --out "$WORK/zt" >"$WORK/out" 2>&1; [ $? -eq 2 ] || { cat "$WORK/out"; fail "the tool accepts a zero tolerance"; }
# NaN is no JSON (RFC 8259): Python's json reads it, vsa-bench refuses the file; so must the checker.
"$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); d['cases'][0]['seconds']=float('nan'); open(sys.argv[2],'w').write(json.dumps(d))" \
  "${reports[0]}" "$WORK/nan.json"
"${CHECK[@]}" "$WORK/nan.json" >"$WORK/out" 2>&1; rc=$?
[ "$rc" -eq 2 ] && grep -q "NaN is not JSON" "$WORK/out" || { cat "$WORK/out"; fail "a report with NaN: exit $rc, expected 2 naming NaN"; }
echo "ok"
