# Runs started at the same moment with the same --out and --label (issue 20: they shared
# one report name and one .tmp: cases vanished or a rename failed). Each gets its own
# report (-2, -3 ...), complete with all its cases, and no temp file is left.
source "$(dirname "$0")/lib.sh"
n=8
pids=()
for i in $(seq $n); do
  "$BIN" run --devices none --quiet --case cpu-ref/minimal --case cpu-ref/ragged --out "$WORK/out" --label same \
    >"$WORK/run$i.out" 2>&1 &
  pids+=($!)
done
for i in $(seq $n); do
  wait "${pids[$((i - 1))]}" || { cat "$WORK/run$i.out"; fail "run $i failed"; }
done
ls "$WORK/out"
[ "$(ls "$WORK"/out/*.json | wc -l)" -eq "$n" ] || fail "expected $n reports"
[ "$(ls "$WORK"/out/*.md | wc -l)" -eq "$n" ] || fail "expected $n Markdown reports"
[ -z "$(ls "$WORK/out" | grep -v -E '\.(json|md)$')" ] || fail "files left behind"
for r in "$WORK"/out/*.json; do
  [ "$(json_get "$r" "(d['complete'], len(d['cases']))")" = "(True, 2)" ] || fail "$r: incomplete or cases missing"
done
# Every run's summary names its own report.
[ "$(cat "$WORK"/run*.out | grep -o "$WORK/out/[^ ]*\.json" | sort -u | wc -l)" -eq "$n" ] || fail "runs share a report"
echo "ok"
