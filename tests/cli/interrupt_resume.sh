# kill -9, SIGINT and SIGTERM mid-run (issue 20, "what already holds"): the report on
# disk is whole JSON with every finished case, no worker outlives the run, and --resume
# completes it with the same cases, specs and verdicts as an uninterrupted run, keeping
# the label and the first argv.
source "$(dirname "$0")/lib.sh"
# A copy of the binary under a path of this test's own, so its workers can be told apart.
cp "$BIN" "$WORK/vsa-bench-ir" && BIN="$WORK/vsa-bench-ir"
cat >"$WORK/s.json" <<'JSON'
{"name": "ir", "defaults": {"B": 1, "H": 2, "D": 32, "S": 256, "op": "both", "reference": "cpu-naive", "backends": ["cpu-ref"]},
 "cases": [{"name": "a", "seed": 1}, {"name": "b", "seed": 2},
           {"name": "stall", "backends": ["selftest-hang"], "op": "fwd", "timeout_s": 3},
           {"name": "c", "seed": 3}, {"name": "d", "seed": 4, "pattern": {"kind": "dense"}}]}
JSON
"$BIN" run "$WORK/s.json" --devices none --quiet --out "$WORK/ref" --label lab >/dev/null 2>&1
[ $? -eq 4 ] || fail "reference run: expected exit 4 (the planted hang)"
ref="$(ls "$WORK"/ref/*.json)"
workers() { pgrep -f "$BIN __worker" | wc -l; }
for sig in KILL INT TERM; do
  out="$WORK/out-$sig"
  # Its own process group (setsid), with SIGINT at its default action (a script's background
  # jobs start with it ignored): INT goes to the whole group as a Ctrl-C would, TERM and KILL
  # to the parent alone.
  setsid env --default-signal=INT,TERM "$BIN" run "$WORK/s.json" --devices none --quiet --out "$out" --label lab \
    >/dev/null 2>"$WORK/stderr-$sig" &
  pid=$!
  # until a and b are in the report (the stall case is running)
  r="$(wait_for_cases "$out" 2 200)" || fail "$sig: the report never showed the two finished cases while the run went on"
  [ "$(workers)" -ge 1 ] || fail "$sig: no worker running mid-run (the test does not interrupt a case)"
  if [ "$sig" = INT ]; then kill -s INT -- "-$pid"; else kill -s "$sig" "$pid"; fi
  wait "$pid" 2>/dev/null
  for _ in $(seq 50); do [ "$(workers)" -eq 0 ] && break; sleep 0.1; done
  [ "$(workers)" -eq 0 ] || fail "$sig: a worker outlived the killed run"
  got="$(json_get "$r" "(d['complete'], [c['name'] for c in d['cases']])")"; [ "$got" = "(False, ['ir/a', 'ir/b'])" ] \
    || fail "$sig: the interrupted report does not hold exactly the finished cases: $got"
  [ "$(json_get "$r" "d['exit_code']")" = 4 ] || fail "$sig: the interrupted report's exit_code is not 4 (incomplete)"
  # INT and TERM (not KILL) say where the finished cases are and how to go on (review of 2026-12-06).
  if [ "$sig" != KILL ]; then
    grep -qF "vsa-bench run: interrupted" "$WORK/stderr-$sig" && grep -qF "  $r" "$WORK/stderr-$sig" ||
      { cat "$WORK/stderr-$sig"; fail "$sig: no notice naming the report"; }
  fi
  # As `sanitize` annotates a report it ran, cut short or not: the resumed cases were not under
  # compute-sanitizer, so the finished report must not carry the annotation on.
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d['sanitizer']={'tool': 'memcheck'}; json.dump(d,open(sys.argv[1],'w'))" "$r"
  "$BIN" run "$WORK/s.json" --devices none --quiet --out "$out" --resume "$r" >"$WORK/resume.out" 2>&1; rc=$?
  [ "$rc" -eq 4 ] || { cat "$WORK/resume.out"; fail "$sig: resume exit $rc, expected 4 as the reference"; }
  [ "$(ls "$out")" = "$(basename "$r")
$(basename "${r%.json}").md" ] || { ls "$out"; fail "$sig: the resume left other files"; }
  python3 - "$ref" "$r" <<'PY' || fail "$sig: the resumed report differs from the uninterrupted one"
import json, sys
ref, got = (json.load(open(p)) for p in sys.argv[1:3])
assert got["complete"] is True and got["exit_code"] == ref["exit_code"], (got["complete"], got["exit_code"])
key = lambda d: [(c["name"], c["spec"], c["verdict"], [(b["backend"], b["verdict"]) for b in c["backends"]])
                 for c in d["cases"]]
assert key(got) == key(ref), (key(got), key(ref))
assert got["label"] == "lab" and got["node"]["label"] == "lab", (got["label"], got["node"].get("label"))
assert "--resume" not in got["argv"] and "--label" in got["argv"], got["argv"]
assert len(got["resumed"]) == 1 and "--resume" in got["resumed"][0]["argv"], got["resumed"]
assert got["planned_cases"] == [c["name"] for c in ref["cases"]], got["planned_cases"]
assert "sanitizer" not in got, "a resumed report kept the sanitize annotation of its first part"
PY
  echo "ok: $sig"
done
echo "ok"
