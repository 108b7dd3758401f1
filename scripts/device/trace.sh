#!/usr/bin/env bash
# Where a small problem's time goes, from the kernels' own timelines (one call on a GPU
# node, about 15 s): the trace-only variants (the normal code plus the stamps,
# kernels/sm90a/variant.hpp) stamp %globaltimer at each hand-off of a launch (trace.hpp), and the two drivers print the stamps' summary beside the
# event-timed launches, so the trace's own cost shows too.
#   scripts/device/trace.sh BUILD_DIR [OUT_DIR]
# 1. Forward, S = 4096 .. 16384 at several densities (tools/sm90a_fwd_trace).
# 2. Backward, both modes, S = 4096 / 16384 / 65536 (tools/sm90a_bwd_timing: the whole
#    backward, the det mode's kv phase alone, and a TRACE line up to 16384).
# Prints the two tables last. Exit: the drivers' exit code.
set -uo pipefail
BUILD="${1:?build dir}"; OUT="${2:-}"
FWD="$BUILD/tools/sm90a_fwd_trace"; BWD="$BUILD/tools/sm90a_bwd_timing"
for tool in "$FWD" "$BWD"; do
  [ -x "$tool" ] || { echo "trace.sh: $tool not built (configure with VSA_BUILD_TESTS=ON and the sm90a kernels)" >&2; exit 2; }
done
log="$(mktemp)"
"$FWD" >"$log" 2>&1
status=$?
"$BWD" >>"$log" 2>&1
bwd_status=$?
[ "$status" = 0 ] && status=$bwd_status
[ -n "$OUT" ] && { mkdir -p "$OUT"; cp "$log" "$OUT/trace.log"; }
grep -E "FAILED|Failure|error" "$log" | head -5
echo "== forward timeline (us)"
sed -n '/^S  *k  *ev_us/,/^to next arrival/p' "$log"
echo "== backward: event timing and timeline (us)"
grep -E "^(TIMING|TRACE)" "$log"
rm -f "$log"
exit "$status"
