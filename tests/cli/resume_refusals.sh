# --resume continues only the run a report came from (issue 20: a different suite was
# marked complete with cases never run; another machine's resume nulled the GPU and the
# label). Each mismatch exits 2 naming it, runs nothing and leaves the report as it was.
source "$(dirname "$0")/lib.sh"
cat >"$WORK/s.json" <<'JSON'
{"name": "rs", "defaults": {"B": 1, "H": 1, "D": 32, "S": 128, "op": "fwd", "reference": "cpu-naive", "backends": ["cpu-ref"]},
 "cases": [{"name": "a"}, {"name": "b"}, {"name": "c"}]}
JSON
"$BIN" run "$WORK/s.json" --devices none --quiet --out "$WORK/out" --label lab >/dev/null 2>&1 || fail "first run"
done_report="$(ls "$WORK"/out/*.json)"
# An interrupted report: the first case only.
interrupted() {  # interrupted PYTHON-EDIT: $WORK/r.json from the finished report, edited
  python3 - "$done_report" "$WORK/r.json" "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["cases"] = d["cases"][:1]; d["complete"] = False
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
PY
}
refused() {  # refused WHAT FRAGMENT [run args...]
  local what="$1" fragment="$2"; shift 2
  cp "$WORK/r.json" "$WORK/before.json"
  "$BIN" run "$@" --devices none --quiet --out "$WORK/out2" --resume "$WORK/r.json" >"$WORK/stdout" 2>"$WORK/stderr"; rc=$?
  [ "$rc" -eq 2 ] || { cat "$WORK/stdout" "$WORK/stderr"; fail "$what: exit $rc, expected 2"; }
  grep -qF -- "$fragment" "$WORK/stderr" || { cat "$WORK/stderr"; fail "$what: message lacks: $fragment"; }
  cmp -s "$WORK/r.json" "$WORK/before.json" || fail "$what: the report was changed"
  [ ! -e "$WORK/out2" ] || fail "$what: something was written"
  echo "refused: $what"
}
interrupted ""
cat >"$WORK/other.json" <<'JSON'
{"name": "other", "cases": [{"name": "a", "S": 128, "D": 32, "op": "fwd", "backends": ["cpu-ref"], "reference": "cpu-naive"}]}
JSON
refused "another suite" "it ran suites" "$WORK/other.json"
refused "another case list" "it planned 3 cases, this run has 2" "$WORK/s.json" --case rs/a --case rs/b
refused "another label" 'its label is "lab", not "other"' "$WORK/s.json" --label other
interrupted 'd["node"]["hostname"] = "elsewhere"'
refused "another node" 'it ran on node "elsewhere"' "$WORK/s.json"
interrupted 'd["tool"]["git_sha"] = "0000000"'
refused "another binary" "it was written by another vsa-bench binary" "$WORK/s.json"
interrupted 'd["device"] = {"uuid": "GPU-5ee1", "name": "NVIDIA H200", "pci_bus_id": "0000:19:00.0", "cuda_ordinal": 0}'
refused "another GPU" "its GPU, NVIDIA H200 GPU-5ee1, is not one this run can use" "$WORK/s.json"
interrupted 'd["complete"] = True'
refused "a complete report" "the report is complete already" "$WORK/s.json"
# The same run is accepted and completes the report.
interrupted ""
"$BIN" run "$WORK/s.json" --devices none --quiet --resume "$WORK/r.json" >"$WORK/stdout" 2>&1 || { cat "$WORK/stdout"; fail "a valid resume failed"; }
[ "$(json_get "$WORK/r.json" "(d['complete'], len(d['cases']), d['label'])")" = "(True, 3, 'lab')" ] || fail "resume result"
echo "ok"
