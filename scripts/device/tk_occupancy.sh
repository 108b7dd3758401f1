#!/usr/bin/env bash
# TK's forward at 1, 2, 3 and 4 resident CTAs per SM beside sm90a (issue 22, run 61): how much of
# TK's forward speed at small S comes from four CTAs per SM, where sm90a holds two items per SM.
#   scripts/device/tk_occupancy.sh BUILD_DIR PLUGIN_SO OUT_DIR
# PLUGIN_SO: the fastvideo-tk plugin (peers/fastvideo_tk/build.sh) with TK_PLUGIN_FWD_CTAS_PER_SM.
# Runs peers/fastvideo_tk/suites/tk-fwd-occupancy.json (forward only, checked against cuda-ref,
# S = 4096 and 16384 at 25% and 12.5%) once per setting (upstream's launch, then 4, 3, 2, 1 CTAs
# per SM), then again in the reverse order, so a card that heats through the call weighs on both
# ends alike. Each run is its own `vsa-bench run` on GPU 0 (the plugin reads the variable at
# load), cut off by `timeout`. Prints a short table last: per case and setting, TK's and sm90a's forward TFLOPS
# (the mean of the two rounds) and ours / TK. Writes the log and every report under OUT_DIR.
# About 2-3 minutes on an H200. Exit 0 only if every run and the table succeeded.
set -uo pipefail
[ $# -eq 3 ] || { sed -n '2,13p' "$0"; exit 2; }
source "$(dirname "$0")/lib/build_dir.sh"
require_build tk_occupancy.sh "$1"
[ -f "$2" ] || { echo "tk_occupancy.sh: no plugin at $2" >&2; exit 2; }
BIN="$(cd "$1" && pwd)/vsa-bench"; SO="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"; OUT="$3"
SRC="$(cd "$(dirname "$0")/../.." && pwd)"
SUITE="$SRC/peers/fastvideo_tk/suites/tk-fwd-occupancy.json"
mkdir -p "$OUT" || exit 2; OUT="$(cd "$OUT" && pwd)"
rm -rf "$OUT"/round-* "$OUT/summary.txt"

main() {
  local bad=0 round setting dir
  for round in 1 2; do
    local order=(upstream 4 3 2 1)
    [ "$round" -eq 2 ] && order=(1 2 3 4 upstream)
    for setting in "${order[@]}"; do
      dir="$OUT/round-$round/$setting"
      printf '\n===== round %s, TK CTAs per SM: %s\n' "$round" "$setting"
      if [ "$setting" = upstream ]; then
        timeout -s INT -k 20 150 "$BIN" run "$SUITE" --plugin "$SO" --devices 0 --out "$dir" --label "tk-$setting" \
          --quiet
      else
        TK_PLUGIN_FWD_CTAS_PER_SM="$setting" timeout -s INT -k 20 150 \
          "$BIN" run "$SUITE" --plugin "$SO" --devices 0 --out "$dir" --label "tk-$setting" --quiet
      fi
      rc=$?; echo "exit $rc"; [ "$rc" -eq 0 ] || bad=1
    done
  done
  summarize "$OUT" > "$OUT/summary.txt" 2>&1 || bad=1
  cat "$OUT/summary.txt"
  return "$bad"
}

summarize() { python3 "$SRC/scripts/device/lib/tk_occupancy_summary.py" "$1"; }

main 2>&1 | tee "$OUT/tk_occupancy.log"
exit "${PIPESTATUS[0]}"
