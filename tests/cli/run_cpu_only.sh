# `vsa-bench run` without GPUs: CPU checks PASS, GPU cases SKIP with a reason, exit 0, report + Markdown written.
source "$(dirname "$0")/lib.sh"
"$BIN" run qualify --devices none --out "$WORK/out" --label ci >"$WORK/stdout" 2>"$WORK/stderr"
rc=$?
cat "$WORK/stdout"
[ "$rc" -eq 0 ] || { cat "$WORK/stderr"; fail "exit $rc, expected 0"; }
report="$(ls "$WORK"/out/ci-*-cpu-*.json)" || fail "no report written"
[ -f "${report%.json}.md" ] || fail "no Markdown report"
[ "$(json_get "$report" "d['schema']")" = "vsa-bench/report" ] || fail "schema"
[ "$(json_get "$report" "d['complete']")" = "True" ] || fail "report not complete"
[ "$(json_get "$report" "sum(1 for c in d['cases'] if c['verdict']=='PASS')")" -ge 3 ] || fail "CPU cases did not pass"
[ "$(json_get "$report" "all(b['reason'] for c in d['cases'] for b in c['backends'] if b['verdict']=='SKIP')")" = "True" ] \
  || fail "a SKIP without a reason"
grep -q "no GPU" "$WORK/stdout" || fail "summary does not say GPU backends were skipped"
grep -q "$report" "$WORK/stdout" || fail "summary does not print the report path"
echo "ok"
