#!/usr/bin/env bash
# A/B of an experiment switch on a GPU node: SUITE without and with the environment
# variable VAR=1, in the order A B B A, B checked first (ab_builds.sh does the work).
#   scripts/device/ab_switch.sh BUILD_DIR OUT_DIR VAR [SUITE=perf] [extra args for the A/B runs...]
set -uo pipefail
source "$(dirname "$0")/lib/build_dir.sh"
require_build ab_switch.sh "${1:?build dir}"
BUILD="${1:?build dir}"; OUT="${2:?output dir}"; VAR="${3:?environment variable}"; SUITE="${4:-perf}"
shift $(( $# < 4 ? $# : 4 ))
unset "$VAR"  # A runs without it whatever the caller's environment holds
exec "$(dirname "$0")/ab_builds.sh" "$BUILD" "$BUILD:$VAR=1" "$OUT" "$SUITE" "$@"
