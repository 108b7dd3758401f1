# SKIP means only "stated reason, not runnable here" (issue 20): a case-level error
# in an isolated worker must end FAIL (exit 1), as it does with --no-isolate, and
# never SKIP with exit 0. Ways a case errors: an allocation fails before any backend
# is planned, the worker emits a stray error event. (The third of issue 20, a scale of
# 1e39 sent to the worker as null, is now refused when the suite is read:
# tests/cli/bad_numbers.sh.)
source "$(dirname "$0")/lib.sh"
expect_fail() {  # expect_fail NAME SUITE_FILE MESSAGE_PART [run args...]
  local name="$1" suite="$2" part="$3"; shift 3
  "$BIN" run "$suite" --devices none --quiet --out "$WORK/$name" "$@" >"$WORK/$name.out" 2>&1
  local rc=$?
  [ "$rc" -eq 1 ] || { cat "$WORK/$name.out"; fail "$name: exit $rc, expected 1 (FAIL)"; }
  local report; report="$(ls "$WORK/$name"/*.json)" || fail "$name: no report"
  [ "$(json_get "$report" "d['cases'][0]['verdict']")" = "FAIL" ] || fail "$name: case verdict not FAIL"
  json_get "$report" "d['cases'][0]['message']" | grep -q -- "$part" \
    || { json_get "$report" "d['cases'][0]"; fail "$name: message does not contain '$part'"; }
}
# 1. bad_alloc while building the block map (2e6 heads under a 300 MB address-space limit; the
#    case fits the machine, so the up-front memory estimate lets it through).
cat >"$WORK/alloc.json" <<'JSON'
{"cases": [{"name": "alloc", "B": 2000, "H": 1000, "S": 128, "D": 1, "op": "fwd", "backends": ["cpu-ref"], "reference": "none"}]}
JSON
# Not under AddressSanitizer (the asan preset): it reserves terabytes of shadow address space
# at start, so no sanitized process starts under an address-space limit.
if sanitized; then
  echo "part 1 (bad_alloc under ulimit -v) left out: $BIN is built with AddressSanitizer"
else
  for isolate in "" --no-isolate; do
    (ulimit -v 300000; expect_fail "alloc$isolate" "$WORK/alloc.json" "bad_alloc" $isolate) || exit 1
  done
fi
# 2. A stray error event on the worker's stdout (the planted backend writes one, then stalls).
cat >"$WORK/stray.json" <<'JSON'
{"cases": [{"name": "stray", "B": 1, "H": 1, "S": 128, "D": 32, "op": "fwd", "backends": ["selftest-stray-event"],
            "reference": "cpu-naive", "timeout_s": 20},
           {"name": "after", "B": 1, "H": 1, "S": 128, "D": 32, "op": "fwd", "backends": ["cpu-ref"], "reference": "cpu-naive"}]}
JSON
expect_fail stray "$WORK/stray.json" "planted stray error event"
report="$(ls "$WORK/stray"/*.json)"
[ "$(json_get "$report" "d['cases'][1]['verdict']")" = "PASS" ] \
  || fail "the case after a stray event did not get its own answer (stale worker output read as its result?)"
echo "ok"
