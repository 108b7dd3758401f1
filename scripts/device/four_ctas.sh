#!/usr/bin/env bash
# The sm90a forward's four-CTA layout (kernels/sm90a/fwd_cta4_kernel.cuh, VSA_SM90A_FWD_FOUR_CTAS=1)
# against its persistent layouts and against TK's forward (issue 22, run 62), in one call.
#   scripts/device/four_ctas.sh BUILD_DIR PLUGIN_SO OUT_DIR
# PLUGIN_SO: the fastvideo-tk plugin (peers/fastvideo_tk/build.sh).
# First the layout's correctness: the GPU conformance tests with it forced (every case, against
# the naive reference, and bitwise repeatable), then racecheck and synccheck on the sanitize
# suite's sm90a cases with it forced. Then peers/fastvideo_tk/suites/tk-fwd-four-ctas.json
# (S = 4096, 16384, 65536 at 25% and 12.5%, forward only, both kernels checked against cuda-ref)
# four times, A B B A: A with the persistent layouts (VSA_SM90A_FWD_FOUR_CTAS=0), B with four
# CTAs, so clock drift through the call weighs on both alike. Each run is its own `vsa-bench run`
# on GPU 0, cut off by `timeout`. Prints a short table last: per case, TK's forward TFLOPS (all
# four runs), sm90a's with either layout (two runs each), and each layout over TK.
# About 5-6 minutes on an H100. Exit 0 only if every step and the table succeeded.
set -uo pipefail
[ $# -eq 3 ] || { sed -n '2,16p' "$0"; exit 2; }
source "$(dirname "$0")/lib/build_dir.sh"
require_build four_ctas.sh "$1"
[ -f "$2" ] || { echo "four_ctas.sh: no plugin at $2" >&2; exit 2; }
BUILD="$(cd "$1" && pwd)"; BIN="$BUILD/vsa-bench"; SO="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"; OUT="$3"
SRC="$(cd "$(dirname "$0")/../.." && pwd)"
SUITE="$SRC/peers/fastvideo_tk/suites/tk-fwd-four-ctas.json"
mkdir -p "$OUT" || exit 2; OUT="$(cd "$OUT" && pwd)"
rm -rf "$OUT"/run-* "$OUT"/race "$OUT"/sync "$OUT/summary.txt"

main() {
  local bad=0 rc i=0 layout
  printf '\n===== conformance with four CTAs forced\n'
  if [ -x "$BUILD/tests/vsa_device_tests" ]; then
    timeout -s INT -k 20 240 "$BUILD/tests/vsa_device_tests" --gtest_filter='*FourCta*' --gtest_brief=1 2>&1 | tail -n 6
    rc=${PIPESTATUS[0]}; echo "exit $rc"; [ "$rc" -eq 0 ] || bad=1
  else
    echo "no $BUILD/tests/vsa_device_tests (pack_build.sh carries it): skipped"; bad=1
  fi
  for tool in racecheck synccheck; do
    printf '\n===== %s with four CTAs forced\n' "$tool"
    VSA_SM90A_FWD_FOUR_CTAS=1 timeout -s INT -k 20 200 "$BIN" sanitize --tool "$tool" --backends sm90a --devices 0 \
      -o "$OUT/${tool%check}" 2>&1 | tail -n 3
    rc=${PIPESTATUS[0]}; echo "exit $rc"; [ "$rc" -eq 0 ] || bad=1
  done
  for layout in persistent four four persistent; do
    i=$((i + 1))
    printf '\n===== run %s: sm90a forward layout %s\n' "$i" "$layout"
    VSA_SM90A_FWD_FOUR_CTAS="$([ "$layout" = four ] && echo 1 || echo 0)" timeout -s INT -k 20 150 \
      "$BIN" run "$SUITE" --plugin "$SO" --devices 0 --out "$OUT/run-$i-$layout" --label "$layout" --quiet
    rc=$?; echo "exit $rc"; [ "$rc" -eq 0 ] || bad=1
  done
  summarize "$OUT" > "$OUT/summary.txt" 2>&1 || bad=1
  cat "$OUT/summary.txt"
  return "$bad"
}

summarize() { python3 "$SRC/scripts/device/lib/four_ctas_summary.py" "$1"; }

main 2>&1 | tee "$OUT/four_ctas.log"
exit "${PIPESTATUS[0]}"
