#!/usr/bin/env bash
# Where a small problem's time goes, from the kernels' own timelines (one call on a GPU
# node, about a minute: the backward is timed in batches of 10 launches up to S = 65536): the trace-only variants (the normal code plus the stamps,
# kernels/sm90a/variant.hpp) stamp %globaltimer at each hand-off of a launch (trace.hpp), and the two drivers print the stamps' summary beside the
# event-timed launches, so the trace's own cost shows too.
#   scripts/device/trace.sh BUILD_DIR [OUT_DIR]
# 1. Forward, S = 4096 .. 16384 at several densities, each on shuffled rows and then on ascending
#    rows (the harness's order), named in the table's last column (tools/sm90a_fwd_trace).
# 2. Backward, both modes, S = 4096 / 16384 / 65536 (tools/sm90a_bwd_timing: the whole
#    backward, the det mode's kv phase alone, and a TRACE line up to 16384).
# Prints the two tables last, then the backward's trace cost per size. Exit: the drivers' exit code.
set -uo pipefail
# The drivers are built with VSA_BUILD_TESTS=ON and the sm90a kernels.
source "$(dirname "$0")/lib/build_dir.sh"
require_build trace.sh "${1:?build dir}" tools/sm90a_fwd_trace
require_build trace.sh "$1" tools/sm90a_bwd_timing
BUILD="$1"; OUT="${2:-}"
FWD="$BUILD/tools/sm90a_fwd_trace"; BWD="$BUILD/tools/sm90a_bwd_timing"
log="$(mktemp)"
"$FWD" >"$log" 2>&1
status=$?
"$BWD" >>"$log" 2>&1
bwd_status=$?
[ "$status" = 0 ] && status=$bwd_status
[ -n "$OUT" ] && { mkdir -p "$OUT"; cp "$log" "$OUT/trace.log"; }
grep -E "FAILED|Failure|error" "$log" | head -5
echo "== forward timeline (us)"
sed -n '/^S  *k  *ev_us/,/^rows: /p' "$log"
echo "== backward: event timing and timeline (us)"
grep -E "^(TIMING|TRACE)" "$log"
# The stamps' own cost per backward size: the traced launch's median against the untraced one
# (the forward's table has it as ev_us against evtr_us).
echo "== backward: trace cost (traced median / untraced median - 1)"
grep -E "^TIMING" "$log" | awk '{
  at = index($0, "S="); label = substr($0, 8, at - 8); sub(/ +$/, "", label)
  match($0, /S=[0-9]+ +k=[0-9]+/); size = substr($0, RSTART, RLENGTH); gsub(/ +/, " ", size)
  match($0, /median [0-9.]+/); median = substr($0, RSTART + 7, RLENGTH - 7) + 0
  if (label ~ / traced$/) { sub(/ traced$/, "", label); traced[label SUBSEP size] = median; order[++n] = label SUBSEP size }
  else plain[label SUBSEP size] = median
} END {
  for (i = 1; i <= n; i++) if ((order[i] in plain) && plain[order[i]] > 0) {
    split(order[i], part, SUBSEP)
    printf "%-10s %-16s %+.1f%%\n", part[1], part[2], 100 * (traced[order[i]] / plain[order[i]] - 1)
  }
}'
rm -f "$log"
exit "$status"
