# `vsa-bench sanitize`: without compute-sanitizer exit 2 naming where it looked; with
# one (here a stand-in script that writes a memcheck-style log and runs the command
# it wraps) the run's report gains a "sanitizer" object with the counts and findings.
source "$(dirname "$0")/lib.sh"
cat >"$WORK/suite.json" <<'JSON'
{"name": "tiny", "cases": [{"name": "a", "B": 1, "H": 1, "S": 128, "D": 32, "backends": ["cpu-ref"]}]}
JSON

PATH=/usr/bin:/bin CUDA_HOME= CUDA_PATH= VSA_COMPUTE_SANITIZER= \
  "$BIN" sanitize --tool memcheck "$WORK/suite.json" --devices none --out "$WORK/none" \
  --compute-sanitizer "$WORK/missing" >/dev/null 2>"$WORK/stderr"
rc=$?
[ "$rc" -eq 2 ] || fail "missing tool: exit $rc, expected 2"
grep -q "not an executable file" "$WORK/stderr" || { cat "$WORK/stderr"; fail "no clear message"; }

# The stand-in: --log-file FILE gets a memcheck-style report; the wrapped command runs as is.
cat >"$WORK/compute-sanitizer" <<'SH'
#!/bin/bash
log=""
while [ $# -gt 0 ]; do
  case "$1" in
    --tool|--error-exitcode) shift 2 ;;
    --log-file) log="$2"; shift 2 ;;
    *) break ;;
  esac
done
"$@"
rc=$?
cat >"$log" <<'LOG'
========= COMPUTE-SANITIZER
========= Invalid __global__ write of size 2 bytes
=========     at vsa::selftest::planted(unsigned short *)+0x70 in planted.cu:16
=========     by thread (0,0,0) in block (0,0,0)
=========
========= ERROR SUMMARY: 1 error
LOG
exit 86
SH
chmod +x "$WORK/compute-sanitizer"
VSA_COMPUTE_SANITIZER="$WORK/compute-sanitizer" \
  "$BIN" sanitize --tool memcheck "$WORK/suite.json" --devices none --out "$WORK/out" >"$WORK/stdout" 2>"$WORK/stderr"
rc=$?
cat "$WORK/stdout"
[ "$rc" -eq 1 ] || { cat "$WORK/stderr"; fail "errors found: exit $rc, expected 1"; }
grep -q "ERROR SUMMARY: 1 error" "$WORK/stdout" || fail "summary not printed"
report="$(ls "$WORK"/out/sanitize-memcheck-*.json)" || fail "no report"
[ "$(json_get "$report" "d['sanitizer']['result']['errors']")" = "1" ] || fail "error count not in the report"
[ "$(json_get "$report" "d['sanitizer']['tool']")" = "memcheck" ] || fail "tool not in the report"
json_get "$report" "d['sanitizer']['result']['findings'][0][0]" | grep -q "Invalid __global__ write" || fail "finding"
[ "$(json_get "$report" "d['cases'][0]['verdict']")" = "PASS" ] || fail "the sanitized run's cases are gone"
grep -q "compute-sanitizer memcheck" "${report%.json}.md" || fail "no Markdown section"
echo "ok"
