#!/usr/bin/env bash
# A/B of an experiment switch on a GPU node: runs SUITE without and with the environment
# variable VAR=1, in the order A B B A (clock and power drift cancel), checks the B
# variant's correctness first, and prints `vsa-bench compare` of the runs last.
#   scripts/device/ab_switch.sh BUILD_DIR OUT_DIR VAR [SUITE=perf] [extra args for the A/B runs...]
# Exit: 0 when every run passed, else the first failing run's exit code.
set -uo pipefail
BUILD="${1:?build dir}"; OUT="${2:?output dir}"; VAR="${3:?environment variable}"; SUITE="${4:-perf}"
shift $(( $# < 4 ? $# : 4 ))
BIN="$BUILD/vsa-bench"
rm -rf "$OUT"/{check,a1,b1,b2,a2}; mkdir -p "$OUT"
status=0
note() { [ "$status" = 0 ] && [ "$1" != 0 ] && status=$1; return 0; }

echo "== correctness with $VAR=1"
env "$VAR=1" "$BIN" run correctness --out "$OUT/check" --label "check-$VAR" --quiet | tail -3
check=${PIPESTATUS[0]}; note "$check"
for run in a1 b1 b2 a2; do
  if [ "${run:0:1}" = b ]; then
    env "$VAR=1" "$BIN" run "$SUITE" --out "$OUT/$run" --label "$run-$VAR" --quiet "$@" >/dev/null
  else
    env -u "$VAR" "$BIN" run "$SUITE" --out "$OUT/$run" --label "$run" --quiet "$@" >/dev/null
  fi
  rc=$?; note "$rc"; echo "== $run exit $rc"
done
echo "== compare (A = a1; columns a1 b1 b2 a2)"
"$BIN" compare "$OUT"/a1/*.json "$OUT"/b1/*.json "$OUT"/b2/*.json "$OUT"/a2/*.json | sed -n '/## Performance/,/## Backend/p'
echo "correctness with $VAR=1: exit $check; overall exit $status"
exit "$status"
