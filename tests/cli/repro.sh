# `vsa-bench repro`: a case of a report re-runs exactly (same spec), and its bundle
# is a one-case suite that `vsa-bench run` accepts; bad names exit 2.
source "$(dirname "$0")/lib.sh"
cat >"$WORK/small.json" <<'JSON'
{"name": "small", "defaults": {"B": 1, "H": 2, "D": 32, "op": "both", "backends": ["cpu-ref"]},
 "cases": [
   {"name": "ragged", "S": 256, "seed": 5, "scale": 4, "pattern": {"kind": "ragged", "density": 0.5, "zero_rows": 0.25}},
   {"name": "dense", "S": 128, "pattern": {"kind": "dense"}}
 ]}
JSON
"$BIN" run "$WORK/small.json" --devices none --out "$WORK/first" --quiet >/dev/null 2>"$WORK/stderr" \
  || { cat "$WORK/stderr"; fail "first run failed"; }
report="$(ls "$WORK"/first/*.json)"

"$BIN" repro "$report" --case small/ragged --devices none --out "$WORK/again" >"$WORK/stdout" 2>"$WORK/stderr"
rc=$?
cat "$WORK/stdout"
[ "$rc" -eq 0 ] || { cat "$WORK/stderr"; fail "repro exit $rc"; }
# The case as resolved from the filter, whether or not it ran (the table below says which).
grep -qF "case \"small/ragged\" of $report" "$WORK/stdout" || fail "repro does not name the resolved case"
again="$(ls "$WORK"/again/repro-*cpu*.json)" || fail "repro wrote no report"
python3 - "$report" "$again" <<'PY' || fail "the re-run is not the same case"
import json, sys
first, again = (json.load(open(p)) for p in sys.argv[1:3])
orig = next(c for c in first["cases"] if c["name"] == "small/ragged")
assert len(again["cases"]) == 1, again["cases"]
rerun = again["cases"][0]
a, b = dict(orig["spec"]), dict(rerun["spec"])
a.pop("name"); b.pop("name")
assert a == b, (a, b)
assert rerun["verdict"] == orig["verdict"] == "PASS", (rerun["verdict"], orig["verdict"])
PY

"$BIN" repro "$report" --case dense --bundle "$WORK/bundle.json" >"$WORK/stdout" 2>"$WORK/stderr" \
  || { cat "$WORK/stderr"; fail "bundle exit $?"; }
[ "$(json_get "$WORK/bundle.json" "d['origin']['case']")" = "small/dense" ] || fail "bundle origin"
[ "$(json_get "$WORK/bundle.json" "len(d['cases'])")" = "1" ] || fail "bundle is not one case"
# A report's spec holds every block of its case; the bundle of a check case keeps no `timing` or
# `stability`, which the suite reader would warn about there (it does nothing in a check case).
[ "$(json_get "$WORK/bundle.json" "sorted(set(d['cases'][0]) & {'timing', 'stability'})")" = "[]" ] \
  || fail "the bundle of a check case carries timing or stability"
grep -q 'warning' "$WORK/stderr" && { cat "$WORK/stderr"; fail "repro --bundle warned"; }
"$BIN" run "$WORK/bundle.json" --devices none --out "$WORK/bundled" --quiet >"$WORK/stdout" 2>"$WORK/stderr" \
  || { cat "$WORK/stderr"; fail "the bundle does not run"; }

"$BIN" repro "$report" --case nope --devices none >/dev/null 2>"$WORK/stderr"
rc=$?
[ "$rc" -eq 2 ] || fail "unknown case: exit $rc, expected 2"
grep -q 'no case named "nope"' "$WORK/stderr" || { cat "$WORK/stderr"; fail "error does not name the case"; }
echo "ok"
