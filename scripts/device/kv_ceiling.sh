#!/usr/bin/env bash
# The forward's data-movement floor (one call on a GPU node, about a minute): for issue 22's top-k
# cases, tools/sm90a_kv_ceiling times a kernel that moves only the forward's K/V tiles (32 KB per
# pair, L2 -> shared memory) in five layouts, and the forward itself, in alternating batches, on
# rows in ascending order (the harness's) and shuffled.
# nvidia-smi samples the SM clock and power meanwhile, since both bound what either can reach.
#   scripts/device/kv_ceiling.sh BUILD_DIR [OUT_DIR [PLUGIN_SO]]
# PLUGIN_SO: a plugin whose forward is timed beside ours against the same floor (e.g. the
# fastvideo-tk plugin, peers/fastvideo_tk/build.sh); checked on O first.
# Prints the table last (per case: each layout, the deepest one again without its checksum, two
# layouts on query blocks paired by list overlap, each pair's union moved once (fewer bytes; their
# time and pairs over the single layouts'), then each forward and its time over the fastest checked
# layout's), then the clock range and median
# and the peak power. Exit: the driver's exit code (124: cut off after VSA_KV_CEILING_TIMEOUT_S,
# default 300 s); 2 for a missing build or plugin.
set -uo pipefail
source "$(dirname "$0")/lib/build_dir.sh"
require_build kv_ceiling.sh "${1:?build dir}" tools/sm90a_kv_ceiling
BUILD="$1"; OUT="${2:-}"; PLUGIN="${3:-}"
[ -z "$PLUGIN" ] || [ -f "$PLUGIN" ] || { echo "kv_ceiling.sh: no plugin at $PLUGIN" >&2; exit 2; }
log="$(mktemp)"; clocks="$(mktemp)"
smi_pid=""
if command -v nvidia-smi >/dev/null; then
  nvidia-smi --query-gpu=clocks.sm,power.draw --format=csv,noheader,nounits -lms 200 >"$clocks" 2>/dev/null &
  smi_pid=$!
fi
# A TMA fault leaves an mbarrier waiting forever: the driver is cut off rather than the call.
timeout -s INT -k 10 "${VSA_KV_CEILING_TIMEOUT_S:-300}" "$BUILD/tools/sm90a_kv_ceiling" ${PLUGIN:+"$PLUGIN"} >"$log" 2>&1
status=$?
[ "$status" = 124 ] && echo "FAILED: sm90a_kv_ceiling did not finish in ${VSA_KV_CEILING_TIMEOUT_S:-300} s" >>"$log"
[ -n "$smi_pid" ] && kill "$smi_pid" 2>/dev/null
[ -n "$OUT" ] && { mkdir -p "$OUT"; cp "$log" "$OUT/kv_ceiling.log"; cp "$clocks" "$OUT/kv_ceiling_clocks.csv"; }
grep -E "FAILED|skipped" "$log" | head -5
echo "== K/V movement floor and the forward (us, K/V TB/s, forward TFLOPS at that time)"
sed -n '/^S  *density/,$p' "$log" | grep -v FAILED
awk -F', *' 'NF >= 2 && $1 + 0 > 0 { print $1, $2 }' "$clocks" | sort -n | awk '
  { c[++n] = $1; if ($2 > pw) pw = $2 }
  END { if (n) printf "SM clock %d-%d MHz (median %d), peak power %.0f W (%d samples)\n", c[1], c[n], c[int((n + 1) / 2)], pw, n
        else print "no clock samples" }'
rm -f "$log" "$clocks"
exit "$status"
