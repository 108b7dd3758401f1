#!/usr/bin/env bash
# Where a forward kernel's warps wait, ours against FastVideo's TK H100 forward (one call on a
# GPU node): Nsight Compute's full set on one launch of each forward kernel, per case, then the
# pipes, the stall reasons and the SASS lines where the warps wait most (ncu_hotspots.py).
#   scripts/device/fwd_ncu_stalls.sh BUILD_DIR OUT_DIR [TK_PLUGIN_SO] [CASE ...]
# Cases are tk-perf cases (peers/fastvideo_tk/suites/tk-perf.json), default
# "S=4096,density=0.125" and "S=16384,density=0.25". Without TK_PLUGIN_SO (or with "-") only
# ours (sm90a) is profiled. Clocks are left alone (--clock-control none, as the device notes
# ask). Writes OUT_DIR/<backend>-<case>.{ncu-rep,csv,-raw.csv,-src.csv}; prints a table last.
# Exit 0 only when every profile produced a details page.
set -uo pipefail
[ $# -ge 2 ] || { sed -n '2,10p' "$0"; exit 2; }
source "$(dirname "$0")/lib/build_dir.sh"
require_build fwd_ncu_stalls.sh "$1"
BUILD="$(cd "$1" && pwd)"; OUT="$2"; SO="${3:--}"; shift $(( $# >= 3 ? 3 : 2 ))
CASES=("$@"); [ ${#CASES[@]} -gt 0 ] || CASES=("S=4096,density=0.125" "S=16384,density=0.25")
SRC="$(cd "$(dirname "$0")/../.." && pwd)"; SUITE="$SRC/peers/fastvideo_tk/suites/tk-perf.json"
mkdir -p "$OUT" || exit 2; OUT="$(cd "$OUT" && pwd)"
NCU="${NCU:-ncu}"; command -v "$NCU" >/dev/null || NCU=/usr/local/cuda/bin/ncu
rc_all=0

profile() {  # backend kernel-regex case
  local backend="$1" kernel="$2" case="$3" tag plugin=()
  tag="$backend-$(printf '%s' "$case" | tr -c 'A-Za-z0-9.' '_')"
  [ "$backend" = fastvideo-tk-h100 ] && plugin=(--plugin "$SO")
  timeout 300 "$NCU" --clock-control none --kernel-name-base demangled --kernel-name "regex:$kernel" --launch-skip 2 --launch-count 1 \
    --set full --import-source yes -o "$OUT/$tag" -f \
    "$BUILD/vsa-bench" run "$SUITE" "${plugin[@]}" --backends "$backend" --case "$case" --target-spread 0 \
      --no-isolate --quiet --out "$OUT/runs-$tag" >"$OUT/$tag.log" 2>&1
  echo "ncu $tag: exit $?"
  "$NCU" --import "$OUT/$tag.ncu-rep" --csv --page details >"$OUT/$tag.csv" 2>/dev/null
  "$NCU" --import "$OUT/$tag.ncu-rep" --csv --page raw >"$OUT/$tag-raw.csv" 2>/dev/null
  "$NCU" --import "$OUT/$tag.ncu-rep" --csv --page source --print-source sass >"$OUT/$tag-src.csv" 2>/dev/null
  [ -s "$OUT/$tag.csv" ] || rc_all=1
}

for case in "${CASES[@]}"; do
  profile sm90a 'sm90a::fwd::forward_kernel' "$case"  # not cuda-ref's forward_kernel
  [ "$SO" != - ] && profile fastvideo-tk-h100 'fwd_attend_ker' "$case"
done

for f in "$OUT"/*-src.csv; do
  [ -s "$f" ] || continue
  printf '\n%s: where the warps wait\n' "$(basename "$f")"
  python3 "$SRC/scripts/device/ncu_hotspots.py" "$f" --top 12
done
python3 "$SRC/scripts/device/ncu_summary.py" "$OUT"/*-raw.csv || rc_all=1
exit "$rc_all"
