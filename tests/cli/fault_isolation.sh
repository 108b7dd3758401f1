# Isolation: a backend that aborts its process ends FAULT (with the signal), one
# that never returns ends HANG at its timeout, a backend that reports an error
# ends FAULT with it; the run goes on after each; exit code 4 (incomplete).
source "$(dirname "$0")/lib.sh"
cat >"$WORK/fault.json" <<'JSON'
{"defaults": {"B": 1, "H": 1, "D": 32, "S": 128, "op": "fwd", "backends": ["cpu-ref"], "reference": "cpu-naive"},
 "cases": [
   {"name": "abort", "backends": ["selftest-abort", "cpu-ref"]},
   {"name": "hang", "backends": ["selftest-hang"], "timeout_s": 3},
   {"name": "bad-index", "validate": false, "pattern": {"kind": "explicit", "rows": [[0], [1000000000]]}},
   {"name": "after", "pattern": {"kind": "explicit", "rows": [[1], []]}}
 ]}
JSON
"$BIN" run "$WORK/fault.json" --devices none --out "$WORK/out" >"$WORK/stdout" 2>"$WORK/stderr"
rc=$?
cat "$WORK/stdout"
[ "$rc" -eq 4 ] || { cat "$WORK/stderr"; fail "exit $rc, expected 4"; }
report="$(ls "$WORK"/out/*.json)"
v() { json_get "$report" "$1"; }
[ "$(v "d['cases'][0]['verdict']")" = "FAULT" ] || fail "abort case not FAULT"
v "[b['reason'] for b in d['cases'][0]['backends'] if b['backend']=='selftest-abort'][0]" | grep -q "signal 6" \
  || fail "abort FAULT does not name the signal"
[ "$(v "[b['verdict'] for b in d['cases'][0]['backends'] if b['backend']=='cpu-ref'][0]")" = "PASS" ] \
  || fail "the other backend of the faulting case was not re-run in a fresh worker"
[ "$(v "d['cases'][1]['verdict']")" = "HANG" ] || fail "hang case not HANG"
[ "$(v "d['cases'][2]['verdict']")" = "FAULT" ] || fail "bad-index case not FAULT"
v "d['cases'][2]['message']" | grep -q "1000000000" || fail "bad-index message does not name the index"
[ "$(v "d['cases'][3]['verdict']")" = "PASS" ] || fail "the run did not continue after the faults"
echo "ok"
