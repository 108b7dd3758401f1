#!/usr/bin/env bash
# scripts/device/tk_plugin_check.sh without a GPU, nvcc or the upstream sources: the script runs
# from a copy of the source tree whose peers/fastvideo_tk/build.sh is a stand-in, against a
# stand-in vsa-bench that records its calls and writes a small report where a run would, with a
# `timeout` on PATH that records its arguments and a `tee` that starts a second late. Checked: a
# BUILD_DIR without vsa-bench is refused (exit 2) before anything runs; both runs are cut off by
# timeout INT with a 20 s kill-after; the steps run in order into their own report folders; a
# reused OUT_DIR's old reports stay out of the table; a failing run, a failing build and a report
# the table cannot read each fail the script; the script ends only when its log (and stdout) hold
# everything it printed, the table last.
# Usage: tk_plugin_check_script.sh <vsa-bench> <source dir>
source "$(dirname "$0")/lib.sh"
REAL_TIMEOUT="$(command -v timeout)" || fail "no timeout on this machine"
REAL_TEE="$(command -v tee)" || fail "no tee on this machine"
T="$WORK/src"
mkdir -p "$T/scripts/device" "$T/peers/fastvideo_tk" "$T/build" "$WORK/bin"
cp "$SRC/scripts/device/tk_plugin_check.sh" "$T/scripts/device/" && cp -r "$SRC/scripts/device/lib" "$T/scripts/device/"
cp -r "$SRC/peers/fastvideo_tk/suites" "$T/peers/fastvideo_tk/"
export CALLS="$WORK/calls" TK_PLUGIN_BUILD="$WORK/plugin build"

cat > "$T/peers/fastvideo_tk/build.sh" <<'FAKE'
#!/usr/bin/env bash
echo "build $*" >> "$CALLS"
mkdir -p "$2" && echo "nvcc: stand-in" > "$2/build.log" && : > "$2/fastvideo_tk_h100.so"
echo "$2/fastvideo_tk_h100.so"
exit "${FAKE_BUILD_RC:-0}"
FAKE
cat > "$T/build/vsa-bench" <<'FAKE'
#!/usr/bin/env bash
echo "vsa-bench $* (TK_PLUGIN_KERNELS_ONLY=${TK_PLUGIN_KERNELS_ONLY:-})" >> "$CALLS"
case "$1" in
  --version) echo "vsa-bench stand-in" ;;
  list) printf '  fastvideo-tk-h100  plugin\n    stand-in\n  sm90a  built in\n    stand-in\n' ;;
  run)
    out=""; label=""; prev=""; suites=()
    for a in "$@"; do
      case "$prev" in --out) out="$a" ;; --label) label="$a" ;; esac
      case "$a" in *.json) suites+=("$(basename "$a" .json)") ;; esac
      prev="$a"
    done
    mkdir -p "$out"
    if [ "${FAKE_REPORT:-}" = bad ]; then echo '{"schema": "vsa-bench/report", "cases": []}' > "$out/$label-x.json"
    elif [ "${FAKE_REPORT:-}" = skipped ]; then
      echo '{"schema": "vsa-bench/report", "summary": {"PASS": 0, "FAIL": 0, "FAULT": 0, "HANG": 0, "SKIP": 3}, "cases": []}' > "$out/$label-x.json"
    else python3 - "$out/$label-x.json" "${suites[@]}" <<'PY'
import json, sys
cases = [{"name": f"{s}/topk/S=4096,density=0.25", "backends": [
    {"backend": "fastvideo-tk-h100", "verdict": "PASS", "reason": "", "metrics": [{"tensor": "o", "rel_max": 1e-3}],
     "timings": [{"op": "fwd", "tflops": 400.0}, {"op": "bwd", "tflops": 200.0}]}]} for s in sys.argv[2:]]
json.dump({"schema": "vsa-bench/report", "summary": {"PASS": len(cases), "FAIL": 0, "FAULT": 0, "HANG": 0, "SKIP": 0},
           "cases": cases}, open(sys.argv[1], "w"))
PY
    fi
    exit "${FAKE_RUN_RC:-0}" ;;
esac
exit 0
FAKE
# A tee that starts late, so a script that exits without waiting for its tee loses its log's end.
cat > "$WORK/bin/tee" <<FAKE
#!/usr/bin/env bash
sleep 1
exec "$REAL_TEE" "\$@"
FAKE
cat > "$WORK/bin/timeout" <<FAKE
#!/usr/bin/env bash
echo "timeout \$*" >> "\$CALLS"
exec "$REAL_TIMEOUT" "\$@"
FAKE
chmod +x "$T/peers/fastvideo_tk/build.sh" "$T/build/vsa-bench" "$WORK/bin/timeout" "$WORK/bin/tee"
export PATH="$WORK/bin:$PATH"
CHECK="$T/scripts/device/tk_plugin_check.sh"

# A BUILD_DIR without vsa-bench: refused before anything runs, with the reason.
: > "$CALLS"
bash "$CHECK" "$WORK/nothing-here" "$WORK/o0" > "$WORK/log" 2>&1; rc=$?
[ $rc -eq 2 ] || { cat "$WORK/log"; fail "a BUILD_DIR without vsa-bench: exit $rc, want 2"; }
grep -q "nothing-here: no such folder" "$WORK/log" || { cat "$WORK/log"; fail "a BUILD_DIR without vsa-bench: no reason given"; }
[ -s "$CALLS" ] && { cat "$CALLS"; fail "a BUILD_DIR without vsa-bench: steps ran anyway"; }

# The whole check, OUT_DIR with a space, reused: old reports in it and in its run folder.
OUT="$WORK/o ut"
mkdir -p "$OUT/run"
old='{"schema": "vsa-bench/report", "summary": {"PASS": 0, "FAIL": 9, "FAULT": 0, "HANG": 0, "SKIP": 0}, "cases": []}'
echo "$old" > "$OUT/old-top.json"; echo "$old" > "$OUT/run/old-run.json"
: > "$CALLS"
bash "$CHECK" "$T/build" "$OUT" > "$WORK/log" 2>&1; rc=$?
[ $rc -eq 0 ] || { cat "$WORK/log"; fail "the check: exit $rc"; }
grep -q "^build $T/.peers/fastvideo_tk $TK_PLUGIN_BUILD$" "$CALLS" || { cat "$CALLS"; fail "build.sh not called with the upstream and plugin build dirs"; }
[ "$(grep -c '^timeout -s INT -k 20 ' "$CALLS")" = 2 ] || { cat "$CALLS"; fail "both runs need timeout -s INT -k 20"; }
grep -q "^vsa-bench run .*/tk-correctness.json .*/tk-stability.json .*/tk-perf.json .*--backends fastvideo-tk-h100,sm90a,sm90a-det --out $OUT/run .*(TK_PLUGIN_KERNELS_ONLY=)$" "$CALLS" \
  || { cat "$CALLS"; fail "the first run: suites, backends or its own report folder"; }
grep -q "^vsa-bench run .*/tk-perf-kernels-only.json .*--out $OUT/kernels-only .*(TK_PLUGIN_KERNELS_ONLY=1)$" "$CALLS" \
  || { cat "$CALLS"; fail "the kernels-only run: suite, TK_PLUGIN_KERNELS_ONLY=1 or its own report folder"; }
for k in build list lint run kernels_only summary; do
  grep -q "^$k  *exit 0$" "$WORK/log" || { cat "$WORK/log"; fail "the summary lacks '$k exit 0'"; }
done
grep -q "old-" "$WORK/log" && { cat "$WORK/log"; fail "old reports in a reused OUT_DIR reached the table"; }
[ -e "$OUT/run/old-run.json" ] && fail "the run folder was not emptied first"
grep -q "^run/tk-h200-x.json  *PASS   3 FAIL   0" "$WORK/log" || { cat "$WORK/log"; fail "the first run's report is not in the table"; }
last="$(tail -1 "$WORK/log")"
[[ "$last" =~ ^\ \ topk/S=4096,density=0.25\ +fastvideo-tk-h100\ .*\ 1.00\ \ 1.00$ ]] \
  || { cat "$WORK/log"; fail "the kernels-only table is not last (last line: $last)"; }
cmp -s "$WORK/log" "$OUT/tk_plugin_check.log" || { diff "$WORK/log" "$OUT/tk_plugin_check.log" | tail; fail "the log file differs from what the script printed"; }

# A failing run, a report the table cannot read, a failing build: each fails the check.
FAKE_RUN_RC=1 bash "$CHECK" "$T/build" "$OUT" > "$WORK/log" 2>&1 && fail "a failing run: exit 0"
grep -q "^run  *exit 1$" "$WORK/log" || { cat "$WORK/log"; fail "a failing run: not in the summary"; }
FAKE_REPORT=bad bash "$CHECK" "$T/build" "$OUT" > "$WORK/log" 2>&1 && { cat "$WORK/log"; fail "an unreadable report: exit 0"; }
grep -q "^summary  *exit 1$" "$WORK/log" || { cat "$WORK/log"; fail "an unreadable report: the table's exit code is not in the summary"; }
FAKE_REPORT=skipped bash "$CHECK" "$T/build" "$OUT" > "$WORK/log" 2>&1 && { cat "$WORK/log"; fail "runs in which nothing passed (no GPU): exit 0"; }
grep -q "no case passed in run/tk-h200-x.json" "$WORK/log" || { cat "$WORK/log"; fail "runs in which nothing passed: not named"; }
: > "$CALLS"
FAKE_BUILD_RC=1 bash "$CHECK" "$T/build" "$OUT" > "$WORK/log" 2>&1 && fail "a failing build: exit 0"
grep -q "^vsa-bench run" "$CALLS" && fail "a failing build: the runs ran anyway"
grep -q "^run  *exit not run$" "$WORK/log" || { cat "$WORK/log"; fail "a failing build: the runs are not 'not run'"; }
echo "ok"
