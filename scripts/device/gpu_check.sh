#!/usr/bin/env bash
# One call on a GPU node: everything the GPU issues need, from a build folder
# made elsewhere (the binaries are self-contained). Prints a short table last.
#   scripts/device/gpu_check.sh BUILD_DIR OUT_DIR [quick|full]
# quick: info, backends, GPU tests, smoke + correctness, a short stability run,
#        sanitizer on a small case. full: also stability (1000 runs), perf and sustained.
# Everything it writes is also packed as OUT_DIR.tgz beside OUT_DIR (one file to copy off
# the node, however many reports the run wrote). Exit 0 only when every step that ran gave the
# exit code it should (the table's "expect" steps a code of their own); else 1, naming them.
set -uo pipefail
BUILD="${1:?build dir}"; OUT="${2:?output dir}"; LEVEL="${3:-quick}"
source "$(dirname "$0")/lib/build_dir.sh"
require_build gpu_check.sh "$BUILD"
BUILD="$(cd "$BUILD" && pwd)"  # absolute: suites written under OUT refer to its plugins
BIN="$BUILD/vsa-bench"
mkdir -p "$OUT"
step() { printf '\n===== %s\n' "$*"; }
declare -A RC

step "info"; "$BIN" info --json >"$OUT/info.json"; RC[info]=$?; "$BIN" info | head -40
step "backends"; "$BIN" list backends; RC[list]=$?
if [ -x "$BUILD/tests/vsa_device_tests" ]; then
  step "GPU tests"; "$BUILD/tests/vsa_device_tests" --gtest_brief=1 >"$OUT/device_tests.log" 2>&1
  RC[device_tests]=$?; tail -25 "$OUT/device_tests.log"
fi
step "correctness"; "$BIN" run smoke correctness --out "$OUT" --label correctness --quiet; RC[correctness]=$?
step "fault isolation (expect exit 4: FAULT then PASS, HANG then PASS)"
SRC="$(cd "$(dirname "$0")/../.." && pwd)"
"$BIN" run "$SRC/tests/suites/gpu_fault.json" --out "$OUT" --label fault; RC[fault_expect_4]=$?
step "plugins (the example CUDA plugin beside cuda-ref; its probe point at 1 ms must slow its perf case by >= 1 ms)"
sed "s|\.\./\.\./build/plugins|$BUILD/plugins|" "$SRC/tests/suites/plugin_example_cuda.json" >"$OUT/plugin_example_cuda.json"
"$BIN" run "$OUT/plugin_example_cuda.json" --out "$OUT" --label plugin --quiet; RC[plugin]=$?
"$BIN" run "$OUT/plugin_example_cuda.json" --case perf --probe fwd.before_store=1000000 --out "$OUT" --label plugin-probe \
  --quiet; RC[plugin_probe]=$?
"$BIN" lint --plugin "$BUILD/plugins/vsa_example_cuda.so" | tail -2; RC[plugin_lint]=${PIPESTATUS[0]}
step "GPU processes: a run holds one CUDA context (its worker's, none in the supervisor), and a run beside another is marked shared"
one_case=("$SRC/tests/suites/perf_fwd.json" --case "S=16384,density=0.25" --target-spread 0)
if command -v nvidia-smi >/dev/null; then
  "$BIN" run "${one_case[@]}" --out "$OUT/alone" --label alone --quiet >/dev/null & alone=$!
  sleep 2; nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv,noheader | tee "$OUT/alone.apps"
  wait "$alone"; contexts=$(grep -c . "$OUT/alone.apps")
  echo "CUDA contexts 2 s into the run: $contexts (expect 1)"
  [ "$contexts" = 1 ] && ! grep -q "## Shared GPU" "$OUT"/alone/alone-*.md; RC[one_context]=$?
  # The neighbour runs longer (both densities), so it holds its context through the other's passes.
  "$BIN" run "$SRC/tests/suites/perf_fwd.json" --case "S=16384" --target-spread 0 --out "$OUT/neighbour" \
    --label neighbour --quiet >/dev/null & neighbour=$!
  sleep 1; "$BIN" run "${one_case[@]}" --out "$OUT/shared" --label shared --quiet >/dev/null
  wait "$neighbour"; sed -n '/^## Shared GPU/,/^## [^S]/p' "$OUT"/shared/shared-*.md | head -6
  grep -q "## Shared GPU" "$OUT"/shared/shared-*.md; RC[shared_marked]=$?
else
  RC[one_context]="not run: no nvidia-smi"
fi
step "selftest (every planted fault must read detected)"; "$BIN" selftest; RC[selftest]=$?
step "lint (the binary's own kernels)"; "$BIN" lint | tail -3; RC[lint]=${PIPESTATUS[0]}
for tool in memcheck racecheck synccheck; do
  step "vsa-bench sanitize --tool $tool (suites/sanitize.json)"
  "$BIN" sanitize --tool "$tool" --out "$OUT/sanitize-$tool" | tail -6; RC[sanitize_$tool]=${PIPESTATUS[0]}
done
step "repro (one correctness case re-run from its report)"
report="$(ls "$OUT"/correctness-*.json 2>/dev/null | head -1)"
if [ -n "$report" ]; then
  "$BIN" repro "$report" --case odd-nb --out "$OUT/repro" --quiet; RC[repro]=$?
  "$BIN" repro "$report" --case odd-nb --bundle "$OUT/repro/odd-nb-bundle.json"; RC[repro_bundle]=$?
else
  RC[repro]="not run: no correctness report"
fi
if [ "$LEVEL" = full ]; then
  step "stability"; "$BIN" run stability --out "$OUT" --label stability --quiet; RC[stability]=$?
  step "perf"; "$BIN" run perf --out "$OUT" --label perf --quiet; RC[perf]=$?
  step "sustained (2 s passes: clock and power under load)"
  "$BIN" run sustained --out "$OUT" --label sustained --quiet; RC[sustained]=$?
  step "regression gate: one perf case slowed by a delay probe against the perf run (expect exit 3)"
  "$BIN" run perf --case "S=16384,density=0.25" --probe bwd.release_q=2000 --out "$OUT/slow" --label slow --quiet
  RC[slow_run]=$?
  "$BIN" compare --baseline "$(ls "$OUT"/perf-*.json | head -1)" "$(ls "$OUT"/slow/slow-*.json | head -1)" \
    --threshold 5% >"$OUT/gate.md"; RC[gate_expect_3]=$?; tail -8 "$OUT/gate.md"
else
  step "stability (short)"
  "$BIN" run stability --out "$OUT" --label stability --quiet --case sm90a --case cuda-ref; RC[stability]=$?
fi
step "summary"
printf '%-22s %s\n' step "exit code (0 = ok)"
for k in "${!RC[@]}"; do printf '%-22s %s\n' "$k" "${RC[$k]}"; done | sort
# The GPU tests' counts beside their exit code (the table above has only the code).
[ -f "$OUT/device_tests.log" ] && grep -E '^\[ *(PASSED|FAILED|SKIPPED) *\] [0-9]+ test' "$OUT/device_tests.log" | sed 's/^/device_tests: /'
python3 - "$OUT" <<'PY'
import glob, json, sys
for path in sorted(glob.glob(sys.argv[1] + "/*.json")):
    try: d = json.load(open(path))
    except Exception: continue
    if d.get("schema") != "vsa-bench/report": continue
    s = d["summary"]
    print(f"{path.split('/')[-1][:60]:60s} PASS {s['PASS']:3d} FAIL {s['FAIL']:3d} FAULT {s['FAULT']:3d} HANG {s['HANG']:3d} SKIP {s['SKIP']:3d}")
    for c in d["cases"]:
        for b in c["backends"]:
            t = {x["op"]: x["tflops"] for x in b.get("timings", [])}
            if t: print(f"   {c['name'][:44]:44s} {b['backend']:10s} fwd {t.get('fwd',0):7.1f}  bwd {t.get('bwd',0):7.1f} TFLOPS")
            if b["verdict"] not in ("PASS", "SKIP"): print(f"   {b['verdict']:5s} {c['name']} {b['backend']}: {b['reason'][:150]}")
PY
abs="$(cd "$OUT" && pwd)"; archive="$abs.tgz"
tar czf "$archive" -C "$(dirname "$abs")" "$(basename "$abs")" && echo "archive: $archive"
# Exit 0 only when every step that ran gave the code it should (0, or the N of a step named
# *_expect_N); a step that could not run ("not run: ...") is named, not failed. The summary
# table above once read "device_tests 1" under a script that exited 0.
failed=(); skipped=()
for k in "${!RC[@]}"; do
  want=0; [[ "$k" == *_expect_* ]] && want="${k##*_expect_}"
  case "${RC[$k]}" in "not run"*) skipped+=("$k"); continue ;; esac
  [ "${RC[$k]}" = "$want" ] || failed+=("$k")
done
[ "${#skipped[@]}" -eq 0 ] || echo "gpu_check: not run: $(printf '%s\n' "${skipped[@]}" | sort | tr '\n' ' ')"
if [ "${#failed[@]}" -gt 0 ]; then
  echo "gpu_check: FAILED: $(printf '%s\n' "${failed[@]}" | sort | tr '\n' ' ')(see the table above)"
  exit 1
fi
echo "gpu_check: every step gave the exit code it should"
