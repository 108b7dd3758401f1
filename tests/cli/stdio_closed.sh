# Started with stdin, stdout or stderr closed (`<&-`, a daemon; issue 20: the pipe fds
# then landed on 0 and 1 and every case FAULTed). Cases run as usual, a crashed worker
# is replaced, and no log line reaches a report.
source "$(dirname "$0")/lib.sh"
cat >"$WORK/s.json" <<'JSON'
{"defaults": {"B": 1, "H": 1, "D": 32, "S": 128, "op": "fwd", "reference": "cpu-naive"},
 "cases": [{"name": "one", "backends": ["cpu-ref"]},
           {"name": "abort", "backends": ["selftest-abort", "cpu-ref"]},
           {"name": "three", "backends": ["cpu-ref"]}]}
JSON
for closed in "<&-" ">&-" "2>&-" "<&- >&-" "<&- >&- 2>&-"; do
  dir="$WORK/out$(echo "$closed" | tr -dc '0-9<>')"
  eval "\"$BIN\" -v run \"$WORK/s.json\" --devices none --out \"$dir\" $closed"
  rc=$?
  [ "$rc" -eq 4 ] || fail "$closed: exit $rc, expected 4 (the planted abort)"
  r="$(ls "$dir"/*.json)" || fail "$closed: no report"
  [ "$(json_get "$r" "[c['verdict'] for c in d['cases']]")" = "['PASS', 'FAULT', 'PASS']" ] \
    || { json_get "$r" "[(c['verdict'], c['message'][:200]) for c in d['cases']]"; fail "$closed: verdicts"; }
  [ "$(json_get "$r" "[b['verdict'] for b in d['cases'][1]['backends']]")" = "['FAULT', 'PASS']" ] \
    || fail "$closed: the backend after the abort did not run in a fresh worker"
  ! grep -q "\[debug\]" "$dir"/* || fail "$closed: a log line landed in a report"
  echo "ok: $closed"
done
echo "ok"
