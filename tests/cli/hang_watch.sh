# Located hangs from the command line: `run --hang-watch-ms` (and the case field
# hang_watch_ms) must be below the case timeout, or nothing runs (exit 2, naming it). On a
# GPU, the planted deadlock (selftest-deadlock: a q block with no entries never completes
# its mbarrier hand-off) then ends FAULT, not HANG, with a message that names the barrier,
# role, step and CTA, well inside the case timeout. Without a GPU that part skips (77).
source "$(dirname "$0")/lib.sh"
cat >"$WORK/deadlock.json" <<'JSON'
{"cases": [{"name": "deadlock", "op": "fwd", "B": 1, "H": 1, "S": 128, "D": 64, "reference": "cpu-naive",
            "pattern": {"kind": "explicit", "rows": [[1], []]}, "backends": ["selftest-deadlock"], "timeout_s": 30}]}
JSON

# Usage errors name what is wrong, before anything runs.
"$BIN" run "$WORK/deadlock.json" --hang-watch-ms 30000 --out "$WORK/bad" >"$WORK/stdout" 2>"$WORK/stderr"
rc=$?
[ "$rc" -eq 2 ] || { cat "$WORK/stdout" "$WORK/stderr"; fail "--hang-watch-ms at the timeout: exit $rc, expected 2"; }
grep -q -- "--hang-watch-ms 30000 is not below" "$WORK/stderr" || { cat "$WORK/stderr"; fail "message does not name the option"; }
python3 - "$WORK/deadlock.json" "$WORK/field.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d["cases"][0]["hang_watch_ms"] = 30000
json.dump(d, open(sys.argv[2], "w"))
PY
"$BIN" run "$WORK/field.json" --out "$WORK/bad" >"$WORK/stdout" 2>"$WORK/stderr"
rc=$?
[ "$rc" -eq 2 ] || { cat "$WORK/stdout" "$WORK/stderr"; fail "hang_watch_ms at the timeout: exit $rc, expected 2"; }
grep -q '\$.cases\[0\].hang_watch_ms: must be below timeout_s' "$WORK/stderr" || { cat "$WORK/stderr"; fail "message does not name the field"; }

# The watched run.
start=$(date +%s)
"$BIN" run "$WORK/deadlock.json" --hang-watch-ms 1000 --out "$WORK/out" >"$WORK/stdout" 2>"$WORK/stderr"
rc=$?
elapsed=$(( $(date +%s) - start ))
cat "$WORK/stdout"
report="$(ls "$WORK"/out/*.json)"
verdict="$(json_get "$report" "d['cases'][0]['backends'][0]['verdict']")"
reason="$(json_get "$report" "d['cases'][0]['backends'][0]['reason']")"
if [ "$verdict" = "SKIP" ]; then
  echo "SKIP: the watched deadlock needs a GPU: $reason"
  exit 77
fi
[ "$rc" -eq 4 ] || { cat "$WORK/stderr"; fail "exit $rc, expected 4 (a case faulted)"; }
[ "$verdict" = "FAULT" ] || fail "verdict $verdict, expected FAULT (the watch should fire before the 30 s timeout): $reason"
echo "$reason" | grep -Eq '^hang: cta 1 warp 1 \(consumer\) waited on row_done\[0\] parity 0 at step 0 for 1[0-9]{3} ms \(selftest\.row_handshake, item 1\)' \
  || fail "FAULT message does not locate the wait: $reason"
[ "$elapsed" -lt 25 ] || fail "took $elapsed s: the watch did not end the case early"
echo "ok: $reason"
