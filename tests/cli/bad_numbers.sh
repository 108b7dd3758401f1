# Bad input (issue 20): numbers that do not fit their field, values the tool would
# ignore, inputs that hang or exhaust the machine. Each exits 2 naming the file and
# the JSON path (or the figure), writes no report, and runs nothing. Each check runs
# under `timeout` so a blocking input fails the test instead of hanging it.
source "$(dirname "$0")/lib.sh"
refused() {  # refused WHAT FRAGMENT SUITE [run args...]: `run SUITE` must exit 2 with FRAGMENT in stderr
  local what="$1" fragment="$2" suite="$3"; shift 3
  rm -rf "$WORK/out"
  timeout 60 "$BIN" run "$suite" --devices none --quiet --out "$WORK/out" "$@" >"$WORK/stdout" 2>"$WORK/stderr"
  local rc=$?
  [ "$rc" -eq 2 ] || { cat "$WORK/stdout" "$WORK/stderr" | head -20; fail "$what: exit $rc, expected 2"; }
  grep -qF -- "$fragment" "$WORK/stderr" || { head -c 2000 "$WORK/stderr"; fail "$what: message lacks: $fragment"; }
  [ ! -e "$WORK/out" ] || fail "$what: a report directory was written"
  echo "refused: $what"
}
one_case() {  # one_case BASE FIELDS: a one-case suite at $WORK/bad.json, FIELDS over BASE (a key
  # given twice in one object is refused as such, so FIELDS replace BASE's keys rather than repeat them)
  python3 - "$1" "$2" "$WORK/bad.json" <<'PY'
import json, sys
case = json.loads("{" + sys.argv[1] + "}")
extra = sys.argv[2]
# Kept as text: some FIELDS are numbers JSON allows but Python would round (1e400, 2^64).
keys = json.loads("{" + extra + "}", parse_float=str, parse_int=str, parse_constant=str)
body = ", ".join(json.dumps(k) + ": " + json.dumps(v) for k, v in case.items() if k not in keys)
open(sys.argv[3], "w").write('{"cases": [{' + body + (", " if body and extra else "") + extra + "}]}")
PY
  echo "$WORK/bad.json"
}
case_with() {  # case_with FIELDS: a one-case suite file at $WORK/bad.json
  one_case '"name": "x", "S": 128, "D": 32, "op": "fwd", "backends": ["cpu-ref"], "reference": "cpu-naive"' "$1"
}
race_case() {  # a case on the planted race backend, which has the probe point selftest.overlap
  one_case '"name": "x", "S": 128, "D": 128, "op": "fwd", "mode": "stability", "backends": ["selftest-overlap-race"], "reference": "cpu-naive"' "$1"
}
f="bad.json: \$.cases[0]"
refused "S = 8M" "$f: needs an estimated" "$(case_with '"S": 8388608, "D": 128, "pattern": {"kind": "dense"}')"
grep -qE "needs an estimated [0-9.e+]+ GB of host memory \(B=1 H=1 S=8388608 D=128\), more than this machine's" "$WORK/stderr" \
  || { cat "$WORK/stderr"; fail "S = 8M: the estimate and the machine's memory are not stated"; }
refused "B = 1e5, H = 1000" "$f: needs an estimated" "$(case_with '"B": 100000, "H": 1000')"
# Schedule exploration: the suite fields and the run flags that set them on every case.
refused "schedules 0" "$f.schedules: must be in [1, 100000]" "$(case_with '"schedules": 0')"
refused "schedules 1e6" "$f.schedules: must be in [1, 100000]" "$(case_with '"schedules": 1000000')"
refused "schedule_seed -1" "$f.schedule_seed: must be an integer in [0, 18446744073709551615], got -1" \
  "$(case_with '"schedule_seed": -1')"
refused "--schedules 0" "--schedules: Value 0 not in range 1 to 100000" "$(case_with '"seed": 1')" --schedules 0
refused "--schedule-seed -1" '--schedule-seed: must be an integer in [0, 18446744073709551615], got "-1"' \
  "$(case_with '"seed": 1')" --schedule-seed -1
refused "--schedule-seed 2^64" "--schedule-seed: must be an integer in [0, 18446744073709551615]" \
  "$(case_with '"seed": 1')" --schedule-seed 18446744073709551616
refused "S = 2^40" "$f.S: 17179869184 blocks of 64 do not fit an int" "$(case_with '"S": 1099511627776')"
refused "B = 2^32+1" "$f.B: must be an integer in [-2147483648, 2147483647], got 4294967297" "$(case_with '"B": 4294967297')"
refused "probe -1" "$f.probes.selftest.overlap: must be an integer in [0, 4294967295], got -1" \
  "$(race_case '"probes": {"selftest.overlap": -1}')"
refused "probe 1e20" "$f.probes.selftest.overlap: must be an integer" "$(race_case '"probes": {"selftest.overlap": 1e20}')"
refused "timeout_s 1e17" "$f.timeout_s: must be in (0, 604800] s" "$(case_with '"timeout_s": 1e17')"
refused "vbs 1.5" "$f.vbs.values[0]: must be an integer, got 1.5" "$(case_with '"vbs": {"kind": "explicit", "values": [1.5, 64]}')"
refused "scale 1e39 (inf as float)" "$f.scale: must be a finite number" "$(case_with '"scale": 1e39')"
refused "scale 1e400" "bad.json: not valid JSON: \$.cases[0].scale: number overflow parsing '1e400'" "$(case_with '"scale": 1e400')"
refused "latent 2^31" "$f.pattern.latent[0]: must be an integer in" "$(case_with '"pattern": {"kind": "video", "latent": [2147483648, 1, 1]}')"
refused "unknown probe in a suite" "$f.probes.selftest.overlapp: no backend of case \"bad/x\" has this probe point (known: selftest.overlap" \
  "$(race_case '"probes": {"selftest.overlapp": 100}')"
refused "unknown --probe" "--probe fwd.release_kvv: no backend of this run (in this build) has this probe point" \
  "$(race_case '"tolerance": {"rel_max": 0.1}')" --probe fwd.release_kvv=2000
refused "unknown stability band" "$f.stability.bands.dx: unknown output (bands are for o, lse, dq, dk, dv)" \
  "$(case_with '"mode": "stability", "stability": {"runs": 2, "bands": {"dx": 0.1}}')"
refused "sweep of 10^12" "\$.cases[0].sweep: expands to 1e+12 cases, more than the limit of 10000" "$(python3 - "$WORK/sweep.json" <<'PY'
import json, sys
values = list(range(1, 1001))
json.dump({"cases": [{"name": "s", "S": 128, "backends": ["cpu-ref"],
                      "sweep": {"seed": values, "B": values, "H": values, "timing.warmup": values}}]}, open(sys.argv[1], "w"))
print(sys.argv[1])
PY
)"
python3 -c "print('{\"cases\": ' + '[' * 100000 + ']' * 100000 + '}')" >"$WORK/deep.json"
refused "nesting 10^5 deep" "deep.json: not valid JSON: \$.cases[0][0]" "$WORK/deep.json"
grep -qF "nested deeper than 64 levels" "$WORK/stderr" || fail "deep suite: no depth figure"
mkfifo "$WORK/fifo.json"
refused "a FIFO as suite" "fifo.json: not a regular file" "$WORK/fifo.json"
refused "/dev/zero as suite" "/dev/zero: not a regular file" /dev/zero
python3 -c "import sys; sys.stdout.write('{\"cases\": [' + ' ' * (17 << 20) + ']}')" >"$WORK/big.json"
refused "a 17 MB suite" "big.json: is 17825805 bytes, more than the limit of 16777216" "$WORK/big.json"

# Reports read by compare/fleet/render: the same bounds.
cp "$WORK/deep.json" "$WORK/deep-report.json"
timeout 60 "$BIN" render "$WORK/deep-report.json" >"$WORK/stdout" 2>"$WORK/stderr"; rc=$?
[ "$rc" -eq 2 ] && grep -qF "nested deeper than 64 levels" "$WORK/stderr" || { cat "$WORK/stderr"; fail "deep report: exit $rc"; }
timeout 60 "$BIN" fleet "$WORK/fifo.json" >"$WORK/stdout" 2>"$WORK/stderr"; rc=$?
[ "$rc" -eq 2 ] && grep -qF "not a regular file" "$WORK/stderr" || { cat "$WORK/stderr"; fail "FIFO report: exit $rc"; }
echo "ok"
