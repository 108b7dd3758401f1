# The out dir stops being writable mid-run (issue 20: the write threw in the target's
# thread and the parent aborted, losing the report). The run goes on, says it could not
# write, saves the report in $TMPDIR under the same name, and exits 4.
source "$(dirname "$0")/lib.sh"
cat >"$WORK/s.json" <<'JSON'
{"defaults": {"B": 1, "H": 1, "D": 32, "S": 128, "op": "fwd", "reference": "cpu-naive"},
 "cases": [{"name": "first", "backends": ["cpu-ref"]},
           {"name": "slow", "backends": ["selftest-hang"], "timeout_s": 4},
           {"name": "third", "backends": ["cpu-ref"]}]}
JSON
mkdir -p "$WORK/tmp"
TMPDIR="$WORK/tmp" "$BIN" run "$WORK/s.json" --devices none --quiet --out "$WORK/out" >"$WORK/stdout" 2>"$WORK/stderr" &
pid=$!
for _ in $(seq 100); do  # until the first case is in the report
  r="$(ls "$WORK"/out/*.json 2>/dev/null | head -1)"
  [ -n "$r" ] && python3 -c "import json,sys; sys.exit(len(json.load(open('$r'))['cases']) < 1)" 2>/dev/null && break
  sleep 0.1
done
name="$(basename "$r")"
mv "$WORK/out" "$WORK/out.gone" && touch "$WORK/out"   # the folder is now a file: every write fails
wait $pid; rc=$?
[ "$rc" -eq 4 ] || { cat "$WORK/stdout" "$WORK/stderr"; fail "exit $rc, expected 4 (134: the parent aborted)"; }
grep -q "the run goes on and the write is tried again" "$WORK/stderr" || { cat "$WORK/stderr"; fail "no write error logged"; }
grep -qF "not saved where asked: $WORK/out/$name" "$WORK/stdout" || { cat "$WORK/stdout"; fail "summary does not say"; }
copy="$WORK/tmp/$name"
[ -f "$copy" ] || { ls -R "$WORK"; fail "no copy in TMPDIR"; }
[ "$(json_get "$copy" "[c['verdict'] for c in d['cases']]")" = "['PASS', 'HANG', 'PASS']" ] || fail "copy lacks cases"
[ "$(json_get "$copy" "d['complete']")" = "True" ] || fail "copy not complete"
echo "ok"
