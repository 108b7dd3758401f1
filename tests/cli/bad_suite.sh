# A bad suite exits 2, names the file and JSON path, and writes no report.
source "$(dirname "$0")/lib.sh"
check() {  # $1 = case fields, $2 = expected message fragment
  printf '{"cases": [{"name": "x", "backends": ["cpu-ref"], %s}]}' "$1" >"$WORK/bad.json"
  "$BIN" run "$WORK/bad.json" --devices none --out "$WORK/out" >"$WORK/stdout" 2>"$WORK/stderr"
  rc=$?
  [ "$rc" -eq 2 ] || fail "exit $rc for [$1], expected 2"
  grep -qF "$2" "$WORK/stderr" || { cat "$WORK/stderr"; fail "message for [$1] lacks: $2"; }
  [ ! -e "$WORK/out" ] || fail "a report directory was written for a bad suite"
}
check '"S": 100' "bad.json: \$.cases[0].S: must be a multiple of blk (64), got 100"
check '"S": 512, "pattern": {"density": 2}' "\$.cases[0].pattern.density: must be in (0, 1]"
check '"S": 512, "colour": 1' "\$.cases[0].colour: unknown field"
check '"S": 256, "S": 128' "\$.cases[0].S: given twice in one object"  # nlohmann kept the last, silently
check '"S": 128, "pattern": {"density": 0.5, "density": 1}' "\$.cases[0].pattern.density: given twice"
check '"S": 128, "pattern": {"kind": "explicit", "rows": [[5], []]}' "\$.cases[0].pattern.rows[0][0]: kv block 5 out of range"
if grep -q '^  sm90a ' <<< "$("$BIN" list backends)"; then  # built with VSA_BUILD_SM90A (the default)
  printf '{"cases": [{"name": "x", "S": 512, "backends": ["sm90a"], "D": 96}]}' >"$WORK/bad.json"
  "$BIN" run "$WORK/bad.json" --devices none --out "$WORK/out" 2>"$WORK/stderr"; rc=$?
  [ "$rc" -eq 2 ] || fail "unsupported D for sm90a: exit $rc"
  grep -qF 'backends[0]: backend "sm90a" cannot run case "bad/x": needs D = 128, got 96' "$WORK/stderr" \
    || { cat "$WORK/stderr"; fail "D message"; }
else
  echo "note: sm90a not in this build; the unsupported-D check was not run"
fi
printf '{"cases": [{"name": "x", "S": 512, "backends": ["cuda-rf"]}]}' >"$WORK/bad.json"
"$BIN" run "$WORK/bad.json" --devices none --out "$WORK/out" 2>"$WORK/stderr"; rc=$?
[ "$rc" -eq 2 ] && grep -qF '$.cases[0].backends[0]: unknown backend "cuda-rf"' "$WORK/stderr" || fail "unknown backend"

printf '{ "cases": [' >"$WORK/bad.json"
"$BIN" run "$WORK/bad.json" --devices none --out "$WORK/out" 2>"$WORK/stderr"; rc=$?
[ "$rc" -eq 2 ] && grep -q "not valid JSON" "$WORK/stderr" || fail "unparsable suite"
"$BIN" run no-such-suite --out "$WORK/out" 2>"$WORK/stderr"; rc=$?
[ "$rc" -eq 2 ] && grep -q "no such built-in suite" "$WORK/stderr" || fail "unknown suite"
"$BIN" run --bogus-flag 2>/dev/null; [ $? -eq 2 ] || fail "bad flag must exit 2"
# One case name twice in a run (a suite given twice): the report's rows, repro --case and --resume
# find cases by name.
"$BIN" run smoke smoke --devices none --out "$WORK/dup" 2>"$WORK/stderr"; rc=$?
[ "$rc" -eq 2 ] && grep -q "case smoke/cpu-ref comes twice (from smoke and smoke)" "$WORK/stderr" \
  || { cat "$WORK/stderr"; fail "a case name twice: exit $rc"; }
echo "ok"
