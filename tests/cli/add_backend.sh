# `run --add-backend NAME` puts a backend (e.g. a plugin's kernel) on every selected case of
# any suite, after the suite's own backends, so it is checked and timed beside them; and
# `--backends NAME` where no selected case lists NAME is an error naming it, not a run that
# silently leaves that backend out (scripts/device/peers_check.sh lost FastVideo's TK kernel
# from a peer table that way, and docs/plugins.md's own `--backends my-fwd` ran nothing of
# my-fwd). An added backend SKIPs, with its reason, the cases whose shape it refuses, and a
# case of cpu-ref alone keeps cpu-naive as its automatic reference. Host-only: the example CPU
# plugin and cpu-ref (sm90a's shape refusal where the build has sm90a).
source "$(dirname "$0")/lib.sh"
BIN="$(readlink -f "$BIN")"
CPU="$(dirname "$BIN")/plugins/vsa_example_cpu.so"
[ -f "$CPU" ] || fail "$CPU was not built"
cat >"$WORK/s.json" <<'JSON'
{"name": "s", "defaults": {"B": 1, "H": 1, "D": 64, "seed": 3, "backends": ["cpu-ref"], "reference": "cpu-naive"},
 "cases": [{"name": "a", "S": 128, "reference": "auto", "pattern": {"kind": "topk", "density": 0.5}},
           {"name": "b", "S": 192, "backends": ["cpu-ref", "cuda-ref"], "pattern": {"kind": "topk", "density": 0.5}}]}
JSON
backends_of() { python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
print(';'.join(c['name'] + ':' + ','.join(b['backend'] + '=' + b['verdict'] for b in c['backends']) for c in d['cases']))" "$1"; }

# Added to both cases, after each case's own list; the plugin's forward checked against the reference.
"$BIN" run "$WORK/s.json" --devices none --plugin "$CPU" --add-backend example-cpu --out "$WORK/r1" --quiet \
  >"$WORK/out" 2>&1 || { rc=$?; cat "$WORK/out"; fail "run --add-backend exit $rc"; }
got="$(backends_of "$(ls "$WORK"/r1/*.json)")"
[ "$got" = "s/a:cpu-ref=PASS,example-cpu=PASS;s/b:cpu-ref=PASS,cuda-ref=SKIP,example-cpu=PASS" ] || fail "added: $got"
# Case a's automatic reference stays the one for cpu-ref alone (not cpu-ref itself, which would SKIP).
[ "$(json_get "$(ls "$WORK"/r1/*.json)" "d['cases'][0]['reference']")" = "cpu-naive" ] || fail "case a's reference moved"

# With --backends: the suite's list is narrowed first, then the added one joins; a case whose
# own backends were all filtered out still runs the added one.
"$BIN" run "$WORK/s.json" --devices none --plugin "$CPU" --backends cuda-ref --add-backend example-cpu \
  --out "$WORK/r2" --quiet >"$WORK/out" 2>&1 || { rc=$?; cat "$WORK/out"; fail "run --backends --add-backend exit $rc"; }
got="$(backends_of "$(ls "$WORK"/r2/*.json)")"
[ "$got" = "s/a:example-cpu=PASS;s/b:cuda-ref=SKIP,example-cpu=PASS" ] || fail "narrowed and added: $got"

# Listed twice (by the suite and by the option): once.
"$BIN" run "$WORK/s.json" --devices none --add-backend cpu-ref --out "$WORK/r3" --quiet >"$WORK/out" 2>&1 \
  || { rc=$?; cat "$WORK/out"; fail "run --add-backend cpu-ref exit $rc"; }
got="$(backends_of "$(ls "$WORK"/r3/*.json)")"
[ "$got" = "s/a:cpu-ref=PASS;s/b:cpu-ref=PASS,cuda-ref=SKIP" ] || fail "a backend the suite lists, added again: $got"

# Refusals, exit 2 before anything runs, each naming the bad input.
"$BIN" run "$WORK/s.json" --devices none --plugin "$CPU" --backends example-cpu --out "$WORK/r4" >"$WORK/out" 2>&1
rc=$?; cat "$WORK/out"
[ "$rc" -eq 2 ] || fail "--backends with a name no case lists: exit $rc, expected 2"
grep -q -- "--backends example-cpu: no selected case lists this backend (they list: cpu-ref, cuda-ref)" "$WORK/out" \
  || fail "the unmatched --backends name is not named with what the cases list"
grep -q -- "--add-backend example-cpu" "$WORK/out" || fail "the refusal does not point to --add-backend"
[ ! -d "$WORK/r4" ] || [ -z "$(ls "$WORK/r4")" ] || fail "a refused run wrote a report"
"$BIN" run "$WORK/s.json" --devices none --add-backend example-cpu --out "$WORK/r5" >"$WORK/out" 2>&1
rc=$?; cat "$WORK/out"
[ "$rc" -eq 2 ] || fail "--add-backend of a plugin backend without its --plugin: exit $rc, expected 2"
grep -q -- "--add-backend example-cpu: unknown backend" "$WORK/out" || fail "the unknown added backend is not named as the option"
# --backends still narrows as before where the name is listed.
"$BIN" run "$WORK/s.json" --devices none --backends cuda-ref --out "$WORK/r6" --quiet >"$WORK/out" 2>&1 \
  || { rc=$?; cat "$WORK/out"; fail "run --backends cuda-ref exit $rc"; }
got="$(backends_of "$(ls "$WORK"/r6/*.json)")"
[ "$got" = "s/b:cuda-ref=SKIP" ] || fail "--backends narrowing: $got"
# A shape the added backend cannot take: that case SKIPs with the backend's reason, the run goes on
# (sm90a needs D = 128; a suite that lists it for D = 64 is refused, exit 2, as before).
if "$BIN" list backends --json | python3 -c "import json, sys; sys.exit(0 if any(b['name'] == 'sm90a' for b in json.load(sys.stdin)['backends']) else 1)"; then
  "$BIN" run "$WORK/s.json" --devices none --add-backend sm90a --out "$WORK/r7" --quiet >"$WORK/out" 2>&1 \
    || { rc=$?; cat "$WORK/out"; fail "run --add-backend sm90a on D = 64 cases: exit $rc"; }
  R="$(ls "$WORK"/r7/*.json)"
  [ "$(json_get "$R" "[b['verdict'] + ': ' + b['reason'] for b in d['cases'][0]['backends'] if b['backend'] == 'sm90a'][0]")" = \
    "SKIP: needs D = 128, got 64" ] || fail "the added backend's shape refusal is not its SKIP reason"
  sed 's/"backends": \["cpu-ref"\]/"backends": ["cpu-ref", "sm90a"]/' "$WORK/s.json" >"$WORK/listed.json"
  "$BIN" run "$WORK/listed.json" --devices none --out "$WORK/r8" >"$WORK/out" 2>&1
  [ $? -eq 2 ] && grep -q 'backend "sm90a" cannot run case' "$WORK/out" || { cat "$WORK/out"; fail "a suite's own sm90a on D = 64 is no longer refused"; }
  # A backend the suite lists AND --add-backend names is still the suite's: its shape refusal stands.
  "$BIN" run "$WORK/listed.json" --devices none --add-backend sm90a --out "$WORK/r9" >"$WORK/out" 2>&1
  [ $? -eq 2 ] || { cat "$WORK/out"; fail "a listed backend, also added, lost its shape refusal"; }
  # repro of a case whose added backend SKIPped for its shape: the report's spec says which were
  # added (added_backends), so the bundle runs as the case did instead of being refused.
  [ "$(json_get "$R" "d['cases'][0]['spec']['added_backends']")" = "['sm90a']" ] || fail "the spec does not record the added backend"
  "$BIN" repro "$R" --case s/a --devices none --out "$WORK/rp" >"$WORK/out" 2>&1 || { rc=$?; cat "$WORK/out"; fail "repro of a case with an added, skipped backend: exit $rc"; }
  # The suite's probes are checked against its own backends: an added backend's probe point does
  # not make a typo for sm90a valid (example-cpu has fwd.before_store, sm90a has not) ...
  cat >"$WORK/probes.json" <<'JSON'
{"name": "p", "defaults": {"B": 1, "H": 1, "D": 128, "seed": 3, "reference": "cpu-ref"},
 "cases": [{"name": "typo", "S": 256, "backends": ["sm90a"], "probes": {"fwd.before_store": 100}, "pattern": {"kind": "topk", "density": 0.5}},
           {"name": "ok", "S": 256, "backends": ["sm90a"], "probes": {"fwd.release_kv": 100}, "pattern": {"kind": "topk", "density": 0.5}},
           {"name": "other", "S": 256, "backends": ["cuda-ref"], "pattern": {"kind": "topk", "density": 0.5}}]}
JSON
  "$BIN" run "$WORK/probes.json" --case p/typo --devices none --plugin "$CPU" --add-backend example-cpu --out "$WORK/r10" >"$WORK/out" 2>&1
  [ $? -eq 2 ] && grep -q 'probes.fwd.before_store: no backend of case "p/typo"' "$WORK/out" \
    || { cat "$WORK/out"; fail "an added backend's probe point made the suite's mistyped probe valid"; }
  # ... nor a case's probe of its own (filtered out) backend an error for want of it in the added one.
  "$BIN" run "$WORK/probes.json" --case p/ok --case p/other --devices none --plugin "$CPU" --backends cuda-ref --add-backend example-cpu \
    --out "$WORK/r11" --quiet >"$WORK/out" 2>&1 || { rc=$?; cat "$WORK/out"; fail "a suite probe checked against an added backend: exit $rc"; }
else
  echo "note: this build has no sm90a backend (the asan preset); the added backend's shape SKIP, repro and probes are checked in the others"
fi
# A suite's added_backends (what repro bundles carry) must name backends of the case.
sed 's/"backends": \["cpu-ref"\]/"backends": ["cpu-ref"], "added_backends": ["cuda-ref"]/' "$WORK/s.json" >"$WORK/bad_added.json"
"$BIN" run "$WORK/bad_added.json" --devices none --out "$WORK/r15" >"$WORK/out" 2>&1
[ $? -eq 2 ] && grep -q 'added_backends: "cuda-ref" is not one of the case' "$WORK/out" \
  || { cat "$WORK/out"; fail "added_backends outside backends was not refused"; }
# --case matching nothing stays "no case matches", not a --backends complaint about an empty list.
"$BIN" run "$WORK/s.json" --devices none --case zzz --backends cpu-ref --out "$WORK/r12" >"$WORK/out" 2>&1
[ $? -eq 2 ] && grep -q "no case matches" "$WORK/out" || { cat "$WORK/out"; fail "--case zzz --backends cpu-ref"; }
# sanitize passes --add-backend to its run, and a refused run is exit 2 there too (a stand-in for
# compute-sanitizer that runs the command as it is).
printf '#!/bin/sh\n# --tool T --error-exitcode N --log-file F cmd...\nlog="$6"; shift 6; : > "$log"; exec "$@"\n' >"$WORK/cs"
chmod +x "$WORK/cs"
"$BIN" sanitize "$WORK/s.json" --compute-sanitizer "$WORK/cs" --devices none --plugin "$CPU" --add-backend example-cpu \
  --out "$WORK/r13" >"$WORK/out" 2>&1
got="$(backends_of "$(ls "$WORK"/r13/*.json)")"
[ "$got" = "s/a:cpu-ref=PASS,example-cpu=PASS;s/b:cpu-ref=PASS,cuda-ref=SKIP,example-cpu=PASS" ] || { cat "$WORK/out"; fail "sanitize --add-backend: $got"; }
"$BIN" sanitize "$WORK/s.json" --compute-sanitizer "$WORK/cs" --devices none --plugin "$CPU" --backends example-cpu \
  --out "$WORK/r14" >"$WORK/out" 2>&1
rc=$?; [ "$rc" -eq 2 ] || { cat "$WORK/out"; fail "sanitize whose run refused its input: exit $rc, expected 2"; }
echo "add-backend: ok"
