# Schedule exploration end to end: a planted fault of the real sm100a backward on the model
# (selftest-model-tmem-overlap: the dQ accumulator over the dP^T being read) under
# `run --schedules --schedule-seed`; the report names the finding's seed in the backend's
# `schedules`; `repro` replays exactly that schedule: the same race, the same scheduler
# steps. A different seed gives other steps, so equal steps mean the same schedule.
source "$(dirname "$0")/lib.sh"
need_backend selftest-model-tmem-overlap
cat >"$WORK/overlap.json" <<'JSON'
{"name": "replay", "cases": [
  {"name": "tmem-overlap", "op": "bwd", "B": 1, "H": 1, "S": 256, "D": 128, "blk": 64, "seed": 11,
   "reference": "cpu-ref", "pattern": {"kind": "topk", "density": 0.5}, "timeout_s": 120,
   "backends": ["selftest-model-tmem-overlap"]}]}
JSON
run_case() {  # run_case OUT ARGS...: runs the suite, prints the report path
  local out="$1"; shift
  "$BIN" run "$WORK/overlap.json" --devices none --out "$WORK/$out" --quiet "$@" >"$WORK/stdout" 2>"$WORK/stderr"
  local rc=$?
  [ "$rc" -eq 4 ] || { cat "$WORK/stdout" "$WORK/stderr"; fail "$out: exit $rc, expected 4 (a FAULT)"; }
  ls "$WORK/$out"/*.json
}
first="$(run_case first --schedules 3 --schedule-seed 7)" || exit 1
b="d['cases'][0]['backends'][0]"
verdict="$(json_get "$first" "$b['verdict']")"
seed="$(json_get "$first" "$b['schedules']['finding_seed']")"
count="$(json_get "$first" "$b['schedules']['count']")"
reason="$(json_get "$first" "$b['reason']")"
echo "$verdict seed=$seed count=$count: $reason"
[ "$verdict" = FAULT ] || fail "planted overlap: $verdict, expected FAULT"
[ "$count" = 3 ] || fail "--schedules 3 not in the report: count $count"
[ "$seed" = 7 ] || fail "finding seed $seed, expected 7 (the first schedule of --schedule-seed 7)"
case "$reason" in *"race in sm100a.bwd_blk64"*"TMEM lane"*) ;; *) fail "not a TMEM race: $reason";; esac

"$BIN" repro "$first" --case replay/tmem-overlap --devices none --out "$WORK/again" --quiet >"$WORK/stdout" \
  2>"$WORK/stderr"
rc=$?
[ "$rc" -eq 4 ] || { cat "$WORK/stdout" "$WORK/stderr"; fail "repro exit $rc, expected 4 (a FAULT)"; }
again="$(ls "$WORK"/again/repro-*cpu*.json)" || fail "repro wrote no report"
python3 - "$first" "$again" <<'PY' || fail "the replay is not the same finding"
import json, sys
first, again = (json.load(open(p)) for p in sys.argv[1:3])
a, b = first["cases"][0]["backends"][0], again["cases"][0]["backends"][0]
spec = again["cases"][0]["spec"]
assert spec.get("schedules", 1) == 1 and spec["schedule_seed"] == 7, spec
assert b["schedules"]["finding_seed"] == 7, b["schedules"]
assert (a["verdict"], a["reason"]) == (b["verdict"], b["reason"]), (a["reason"], b["reason"])
PY

# Another seed: the same race, at other scheduler steps.
other="$(run_case other --schedules 1 --schedule-seed 8)" || exit 1
python3 - "$first" "$other" <<'PY' || fail "seeds 7 and 8 gave the same steps: the replay proves nothing"
import json, sys
a, b = (json.load(open(p))["cases"][0]["backends"][0]["reason"] for p in sys.argv[1:3])
assert "race in sm100a.bwd_blk64" in b, b
assert a != b, a
PY

# The unplanted kernel on the same case and seeds: PASS, no finding.
sed 's/"selftest-model-tmem-overlap"/"sm100a-blk64@model"/' "$WORK/overlap.json" >"$WORK/good.json"
"$BIN" run "$WORK/good.json" --devices none --out "$WORK/good" --quiet --schedules 3 --schedule-seed 7 \
  >"$WORK/stdout" 2>"$WORK/stderr" || { cat "$WORK/stdout" "$WORK/stderr"; fail "the unplanted backward did not pass"; }
good="$(ls -t "$WORK"/good/*.json | head -n1)"
[ "$(json_get "$good" "($b['verdict'], $b['schedules']) == ('PASS', {'count': 3, 'first_seed': 7, 'finding_seed': None, 'baseline_seed': None})")" = True ] \
  || fail "unplanted: $(json_get "$good" "$b")"
echo "ok"
