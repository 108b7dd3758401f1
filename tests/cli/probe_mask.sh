#!/usr/bin/env bash
# Warp-masked delay probes (issue 18, finding 4): a bad --probe or a bad suite `probes` key
# exits 2 and names the bad input; a good masked probe is carried by the report and by
# `repro` (its bundle). (A backend whose probes take no mask skips such a case:
# tests/unit/probe_spec_test.cpp, ProbeSpec.MaskRefusal.) sm100a-blk64 is in the case because
# a probe must be a probe point of one of the case's backends; without a Blackwell GPU it SKIPs.
source "$(dirname "$0")/lib.sh"
need_backend sm100a-blk64
cat >"$WORK/small.json" <<'JSON'
{"name": "small", "defaults": {"B": 1, "H": 1, "D": 128, "op": "fwd", "backends": ["cpu-ref", "sm100a-blk64"]},
 "cases": [{"name": "dense", "S": 128, "pattern": {"kind": "dense"}}]}
JSON

for bad in "fwd.read_s=100@warps:7-4|runs backwards" "fwd.read_s=100@warps:40|outside warps 0..31" \
           "fwd.read_s=1e3|'1e3'" "fwd.read_s=100@wraps:1|expected @warps:LIST"; do
  arg="${bad%%|*}"; says="${bad#*|}"
  "$BIN" run "$WORK/small.json" --devices none --probe "$arg" --out "$WORK/bad" --quiet >/dev/null 2>"$WORK/stderr"
  rc=$?
  [ "$rc" = 2 ] || { cat "$WORK/stderr"; fail "--probe $arg exited $rc, expected 2"; }
  grep -qF -- "$says" "$WORK/stderr" || { cat "$WORK/stderr"; fail "--probe $arg: the error does not say '$says'"; }
done

python3 - "$WORK/small.json" "$WORK/bad_suite.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d["cases"][0]["probes"] = {"fwd.read_s@warps:3-": 100}
json.dump(d, open(sys.argv[2], "w"))
PY
"$BIN" run "$WORK/bad_suite.json" --devices none --out "$WORK/bad" --quiet >/dev/null 2>"$WORK/stderr"; rc=$?
[ "$rc" = 2 ] || { cat "$WORK/stderr"; fail "suite with a bad probe key exited $rc, expected 2"; }
grep -q 'bad_suite.json: $.cases\[0\].probes.fwd.read_s@warps:3-: .*3-' "$WORK/stderr" \
  || { cat "$WORK/stderr"; fail "the suite error does not name the file, the JSON path and the bad list"; }

# A good mask: the report's case spec and the repro bundle carry it (canonical form).
"$BIN" run "$WORK/small.json" --devices none --probe "fwd.read_s=100@warps:3,1-2" --out "$WORK/good" --quiet \
  >/dev/null 2>"$WORK/stderr" || { cat "$WORK/stderr"; fail "a run with a masked probe failed"; }
report="$(ls "$WORK"/good/*.json)"
[ "$(json_get "$report" "d['cases'][0]['spec']['probes']")" = "{'fwd.read_s@warps:1-3': 100}" ] \
  || fail "the report does not carry the masked probe: $(json_get "$report" "d['cases'][0]['spec'].get('probes')")"
"$BIN" repro "$report" --case small/dense --bundle "$WORK/bundle.json" >/dev/null 2>"$WORK/stderr" \
  || { cat "$WORK/stderr"; fail "repro --bundle failed"; }
[ "$(json_get "$WORK/bundle.json" "d['cases'][0]['probes']")" = "{'fwd.read_s@warps:1-3': 100}" ] \
  || fail "the repro bundle does not carry the masked probe"

echo "OK: bad probes exit 2 naming the input; the mask is carried by the report and repro"
