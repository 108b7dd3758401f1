# Where a run writes is checked before it runs (run/output_paths.hpp): a bad --junit, --out,
# render --out or repro --bundle is bad input (exit 2, the flag named), and no case runs first.
source "$(dirname "$0")/lib.sh"
refused() {  # refused TEXT COMMAND...: exit 2, TEXT on stderr, no report written
  local text="$1"; shift
  "$@" >"$WORK/out" 2>&1; local rc=$?
  [ "$rc" -eq 2 ] || { cat "$WORK/out"; fail "$*: exit $rc, expected 2"; }
  grep -qF -- "$text" "$WORK/out" || { cat "$WORK/out"; fail "$*: no \"$text\" in the message"; }
}
touch "$WORK/a-file"
refused "--junit $WORK/nodir/j.xml: no directory $WORK/nodir" \
  "$BIN" run smoke --devices none --quiet --out "$WORK/r1" --junit "$WORK/nodir/j.xml"
[ -z "$(ls -A "$WORK/r1" 2>/dev/null)" ] || fail "a report was written before the refusal"
# ... but an export directly in the --out the run makes is fine.
"$BIN" run smoke --devices none --quiet --out "$WORK/fresh" --junit "$WORK/fresh/j.xml" >"$WORK/out" 2>&1 \
  || { cat "$WORK/out"; fail "--junit inside a new --out"; }
[ -s "$WORK/fresh/j.xml" ] || fail "--junit inside a new --out: not written"
refused "--nvbench $WORK: is a directory" "$BIN" run smoke --devices none --quiet --out "$WORK/r2" --nvbench "$WORK"
# An export on the --out folder itself, not yet made: refused before the run, which used to run
# every case and then fail to write it (exit 4; review of 2026-12-06).
refused "--jsonl $WORK/r5 is the --out folder $WORK/r5: give a file name" \
  "$BIN" run smoke --devices none --quiet --out "$WORK/r5" --jsonl "$WORK/r5"
[ ! -e "$WORK/r5" ] || fail "the refused run made its --out"
refused "--jsonl $WORK/r8 is a folder above the --out folder $WORK/r8/sub" \
  "$BIN" run smoke --devices none --quiet --out "$WORK/r8/sub" --jsonl "$WORK/r8"
ln -s "$WORK/r6" "$WORK/lnk6"  # dangling until the run makes r6
refused "--jsonl $WORK/lnk6 is the --out folder $WORK/r6" \
  "$BIN" run smoke --devices none --quiet --out "$WORK/r6" --jsonl "$WORK/lnk6"
refused "--out $WORK/a-file: is a file, not a directory" "$BIN" run smoke --devices none --quiet --out "$WORK/a-file"
# A good run, then render and repro with bad destinations.
"$BIN" run smoke --devices none --quiet --out "$WORK/good" >"$WORK/out" 2>&1 || { cat "$WORK/out"; fail "run smoke"; }
report=$(ls "$WORK"/good/*.json | head -1)
refused "--out $WORK: is a directory" "$BIN" render "$report" --out "$WORK"
refused "--bundle $WORK: is a directory" "$BIN" repro "$report" --case smoke/cpu-ref --bundle "$WORK"
# An output on one of the command's own inputs is refused, and the input is left as it was
# (review of 2026-12-06: the report and the suite file were replaced).
before=$(sha256sum "$report")
refused "--bundle $report is the report $report this command reads" \
  "$BIN" repro "$report" --case smoke/cpu-ref --bundle "$report"
[ "$(sha256sum "$report")" = "$before" ] || fail "repro --bundle replaced the report it read"
cat >"$WORK/s.json" <<'JSON'
{"defaults": {"B": 1, "H": 1, "D": 32, "S": 128, "op": "fwd", "reference": "cpu-naive"}, "cases": [{"name": "a", "backends": ["cpu-ref"]}]}
JSON
before=$(sha256sum "$WORK/s.json")
(cd "$WORK" && refused "--jsonl ./s.json is the suite file $WORK/s.json" \
  "$BIN" run "$WORK/s.json" --devices none --quiet --out "$WORK/r3" --jsonl ./s.json)
[ "$(sha256sum "$WORK/s.json")" = "$before" ] || fail "run --jsonl replaced the suite file"
# A built-in suite's name is read from the binary even where a file of that name is here: that
# file is no input, and may be written.
echo "not a suite" >"$WORK/smoke"
(cd "$WORK" && "$BIN" run smoke --devices none --quiet --out "$WORK/r4" --jsonl smoke >"$WORK/out" 2>&1) ||
  { cat "$WORK/out"; fail "run smoke --jsonl smoke beside a file named smoke"; }
grep -q '"case":"smoke/' "$WORK/smoke" || fail "--jsonl smoke: not written"
echo "ok"
