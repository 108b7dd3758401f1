#!/usr/bin/env bash
# A/B of two variants on a GPU node: checks B first (correctness suite, and its GPU tests
# when the build has them), then runs SUITE with A, B, B, A (clock and power drift cancel)
# and prints `vsa-bench compare` of the four runs last.
#   scripts/device/ab_builds.sh A B OUT_DIR [SUITE=perf] [extra args for the A/B runs...]
# A variant is a build folder, optionally with environment settings for its runs:
#   build-a                   a change against its parent: two builds
#   build-gpu:VSA_SWITCH=1    an experiment switch in one build (ab_switch.sh does this)
# Exit: 0 when every run passed, else the first failing run's exit code.
set -uo pipefail
SPEC_A="${1:?variant A}"; SPEC_B="${2:?variant B}"; OUT="${3:?output dir}"; SUITE="${4:-perf}"
shift $(( $# < 4 ? $# : 4 ))
source "$(dirname "$0")/lib/build_dir.sh"
require_build ab_builds.sh "${SPEC_A%%:*}"; require_build ab_builds.sh "${SPEC_B%%:*}"
rm -rf "$OUT"/{check,a1,b1,b2,a2}; mkdir -p "$OUT"
status=0
note() { [ "$status" = 0 ] && [ "$1" != 0 ] && status=$1; return 0; }
build_of() { echo "${1%%:*}"; }
# run_variant SPEC PROGRAM ARGS...: PROGRAM (relative to the build folder) with the
# variant's environment settings.
run_variant() {
  local spec="$1" program="$2"; shift 2
  local build settings=()
  build="$(build_of "$spec")"
  [ "$spec" != "$build" ] && IFS=: read -r -a settings <<<"${spec#*:}"
  env "${settings[@]}" "$build/$program" "$@"
}

echo "== correctness of B ($SPEC_B)"
run_variant "$SPEC_B" vsa-bench run correctness --out "$OUT/check" --label check-b --quiet | tail -3
check=${PIPESTATUS[0]}; note "$check"
if [ -x "$(build_of "$SPEC_B")/tests/vsa_device_tests" ]; then
  echo "== GPU tests of B"
  run_variant "$SPEC_B" tests/vsa_device_tests --gtest_brief=1 2>&1 | tail -5; note "${PIPESTATUS[0]}"
fi
for run in a1 b1 b2 a2; do
  spec="$SPEC_A"; [ "${run:0:1}" = b ] && spec="$SPEC_B"
  run_variant "$spec" vsa-bench run "$SUITE" --out "$OUT/$run" --label "$run" --quiet "$@" >/dev/null
  rc=$?; note "$rc"; echo "== $run exit $rc"
done
echo "== compare (A = a1; columns a1 b1 b2 a2)"
"$(build_of "$SPEC_B")/vsa-bench" compare "$OUT"/a1/*.json "$OUT"/b1/*.json "$OUT"/b2/*.json "$OUT"/a2/*.json |
  sed -n '/## Performance/,/## Backend/p'
echo "correctness of B: exit $check; overall exit $status"
exit "$status"
