#!/usr/bin/env bash
# The node verdict on a GPU node (issue 20), from a build folder made elsewhere: does it
# fail closed, refuse bad input before running, and write the standard outputs? Each step
# states the exit code it expects; the table printed last says expected against got.
#   scripts/device/verdict_check.sh BUILD_DIR OUT_DIR
set -uo pipefail
source "$(dirname "$0")/lib/build_dir.sh"
require_build verdict_check.sh "${1:?build dir}"
BUILD="${1:?build dir}"; OUT="${2:?output dir}"
BIN="$BUILD/vsa-bench"; mkdir -p "$OUT"
step() { printf '\n===== %s\n' "$*"; }
source "$(dirname "$0")/lib/expectations.sh"
check() {  # check NAME WANT_EXIT COMMAND...: run it, keep its exit code beside the expected one
  local name="$1" want="$2"; shift 2
  step "$name (expect exit $want)"
  "$@"; expect "$name" "$want" "$?"
}

check qualify 0 "$BIN" run qualify --expect-gpus 1 --out "$OUT/qualify" --label qualify --quiet \
  --junit "$OUT/qualify.xml" --metrics "$OUT/qualify.prom" --jsonl "$OUT/qualify.jsonl"
check expect_two_gpus 4 "$BIN" run smoke --expect-gpus 2 --out "$OUT/two" --quiet
check cuda_hidden 4 env CUDA_VISIBLE_DEVICES= "$BIN" run smoke --out "$OUT/hidden" --quiet
check cuda_hidden_cpu_only 0 env CUDA_VISIBLE_DEVICES= "$BIN" run smoke --devices none --out "$OUT/cpu" --quiet
check unknown_probe 2 "$BIN" run smoke --probe fwd.red_s=100 --out "$OUT/probe" --quiet
check devices_absent 2 "$BIN" run smoke --devices 7 --out "$OUT/absent" --quiet

step "standard outputs (first lines)"
for f in "$OUT/qualify.xml" "$OUT/qualify.prom" "$OUT/qualify.jsonl"; do
  echo "--- $f"; head -5 "$f" 2>/dev/null || echo "(missing)"
done
step "summary"
expectations_table step
