# A case that crashes its worker (out-of-range index with validation off) ends
# FAULT; the run goes on to the next case; exit code 4 (incomplete).
source "$(dirname "$0")/lib.sh"
cat >"$WORK/fault.json" <<'JSON'
{"defaults": {"B": 1, "H": 1, "D": 32, "S": 128, "backends": ["cpu-ref"], "reference": "cpu-naive"},
 "cases": [
   {"name": "crash", "validate": false, "pattern": {"kind": "explicit", "rows": [[0], [1000000000]]}},
   {"name": "after", "pattern": {"kind": "explicit", "rows": [[1], []]}}
 ]}
JSON
"$BIN" run "$WORK/fault.json" --devices none --out "$WORK/out" >"$WORK/stdout" 2>"$WORK/stderr"
rc=$?
cat "$WORK/stdout"
[ "$rc" -eq 4 ] || { cat "$WORK/stderr"; fail "exit $rc, expected 4"; }
report="$(ls "$WORK"/out/*.json)"
[ "$(json_get "$report" "d['cases'][0]['verdict']")" = "FAULT" ] || fail "crash case not FAULT"
json_get "$report" "d['cases'][0]['message']" | grep -q "signal" || fail "FAULT message lacks the signal"
[ "$(json_get "$report" "d['cases'][1]['verdict']")" = "PASS" ] || fail "the run did not continue after the fault"
echo "ok"
