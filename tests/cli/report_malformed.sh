# A report that parses but holds a field of the wrong type (report_input.hpp): render and
# --format nvbench refuse it as bad input (exit 2, naming the schema), never exit 4 with a raw
# library error.
source "$(dirname "$0")/lib.sh"
"$BIN" run smoke --devices none --quiet --out "$WORK/good" >"$WORK/out" 2>&1 || { cat "$WORK/out"; fail "run smoke"; }
good=$(ls "$WORK"/good/*.json | head -1)
edit() {  # edit OUT PYTHON: a copy of the good report with d changed
  python3 - "$good" "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
PY
}
refused() {  # refused WHAT COMMAND...
  local what="$1"; shift
  "$@" >"$WORK/stdout" 2>"$WORK/stderr"; local rc=$?
  [ "$rc" -eq 2 ] || { cat "$WORK/stdout" "$WORK/stderr"; fail "$what: exit $rc, expected 2"; }
  grep -q "does not follow docs/schema/report.schema.json" "$WORK/stderr" || { cat "$WORK/stderr"; fail "$what: message"; }
}
edit "$WORK/plugins.json" "d['plugins'] = 'x'"
refused "render, plugins a string" "$BIN" render "$WORK/plugins.json"
grep -qF "$WORK/plugins.json" "$WORK/stderr" || fail "render names the file"
edit "$WORK/aliases.json" "d['backend_aliases'] = 'x'"
refused "render, backend_aliases a string" "$BIN" render "$WORK/aliases.json"
edit "$WORK/spec.json" "d['cases'][0]['spec'] = None"
refused "render --format nvbench, a case without its spec" "$BIN" render --format nvbench "$WORK/spec.json"
"$BIN" render "$good" >/dev/null || fail "the good report renders"
echo "ok"
