# `render` end to end: a CPU-only `run qualify` report's JSON rendered again equals the .md
# that `run` wrote beside it, byte for byte (stdout and --out); a missing or invalid report
# exits 2 naming the file, and the command needs its argument. The committed reports of
# `sanitize` render with their compute-sanitizer section, as their .md.
source "$(dirname "$0")/lib.sh"
"$BIN" run qualify --devices none --out "$WORK/reports" --label render >"$WORK/out" 2>"$WORK/err" ||
  { cat "$WORK/out" "$WORK/err"; fail "run qualify: exit $?"; }
json="$(ls "$WORK"/reports/*.json | head -1)"
md="${json%.json}.md"
[ -s "$md" ] || fail "run wrote no Markdown beside $json"
"$BIN" render "$json" >"$WORK/rendered.md" 2>"$WORK/err" || { cat "$WORK/err"; fail "render to stdout: exit $?"; }
cmp -s "$md" "$WORK/rendered.md" || { diff "$md" "$WORK/rendered.md" | head; fail "stdout rendering differs from run's .md"; }
"$BIN" render "$json" --out "$WORK/again.md" >"$WORK/out" 2>"$WORK/err" || fail "render --out: exit $?"
cmp -s "$md" "$WORK/again.md" || fail "--out rendering differs from run's .md"
[ -s "$WORK/out" ] && fail "render --out must print nothing"
"$BIN" render "$WORK/none.json" >"$WORK/out" 2>"$WORK/err"; rc=$?
[ "$rc" = 2 ] || fail "a missing report must exit 2, got $rc"
grep -q "none.json" "$WORK/err" || fail "the error must name the missing file"
echo '{"schema": "something-else"}' >"$WORK/other.json"
"$BIN" render "$WORK/other.json" >"$WORK/out" 2>"$WORK/err"; rc=$?
[ "$rc" = 2 ] || fail "a JSON that is not a report must exit 2, got $rc"
grep -q "other.json" "$WORK/err" || fail "the error must name the file that is not a report"
"$BIN" render >"$WORK/out" 2>"$WORK/err"; rc=$?
[ "$rc" != 0 ] || fail "render without a report must fail"
# A report `sanitize` annotated: its compute-sanitizer section comes from the JSON, so render
# gives the committed .md whole (the section was appended to the .md alone, and render lost it).
for t in memcheck racecheck synccheck; do
  "$BIN" render "$SRC/results/baselines/h200-sanitize-$t.json" >"$WORK/s.md" 2>"$WORK/err" || { cat "$WORK/err"; fail "render $t"; }
  cmp -s "$SRC/results/baselines/h200-sanitize-$t.md" "$WORK/s.md" ||
    { diff "$SRC/results/baselines/h200-sanitize-$t.md" "$WORK/s.md" | head; fail "render of the $t report differs from its .md"; }
done
grep -q "^## compute-sanitizer synccheck$" "$WORK/s.md" || fail "the sanitizer section is not rendered"
echo "ok"
