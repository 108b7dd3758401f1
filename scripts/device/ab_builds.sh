#!/usr/bin/env bash
# A/B of two builds on a GPU node (a change against its parent, no switch in the code):
# checks B first (correctness suite, and its GPU tests when the build has them), then runs
# SUITE with A, B, B, A (clock and power drift cancel) and prints `vsa-bench compare` last.
#   scripts/device/ab_builds.sh BUILD_A BUILD_B OUT_DIR [SUITE=perf] [extra args for the A/B runs...]
# Exit: 0 when every run passed, else the first failing run's exit code.
set -uo pipefail
A="${1:?build dir A}/vsa-bench"; BUILD_B="${2:?build dir B}"; OUT="${3:?output dir}"; SUITE="${4:-perf}"
shift $(( $# < 4 ? $# : 4 ))
B="$BUILD_B/vsa-bench"
rm -rf "$OUT"/{check,a1,b1,b2,a2}; mkdir -p "$OUT"
status=0
note() { [ "$status" = 0 ] && [ "$1" != 0 ] && status=$1; return 0; }

echo "== correctness of B"
"$B" run correctness --out "$OUT/check" --label check-b --quiet | tail -3
check=${PIPESTATUS[0]}; note "$check"
if [ -x "$BUILD_B/tests/vsa_device_tests" ]; then
  echo "== GPU tests of B"
  "$BUILD_B/tests/vsa_device_tests" --gtest_brief=1 2>&1 | tail -4; note "${PIPESTATUS[0]}"
fi
for run in a1 b1 b2 a2; do
  bin="$A"; [ "${run:0:1}" = b ] && bin="$B"
  "$bin" run "$SUITE" --out "$OUT/$run" --label "$run" --quiet "$@" >/dev/null
  rc=$?; note "$rc"; echo "== $run exit $rc"
done
echo "== compare (A = a1; columns a1 b1 b2 a2)"
"$B" compare "$OUT"/a1/*.json "$OUT"/b1/*.json "$OUT"/b2/*.json "$OUT"/a2/*.json | sed -n '/## Performance/,/## Backend/p'
echo "correctness of B: exit $check; overall exit $status"
exit "$status"
