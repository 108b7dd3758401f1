#!/usr/bin/env bash
# Peers on a GPU node, in one call: dump perf cases with `vsa-bench dump`, run ours on them
# (`vsa-bench run perf`), run the peer kernels on them (scripts/peers/peers.py), write
# OUT_DIR/peers-report.json in our report schema, compare it with ours, and print a table last.
#
#   scripts/peers/run_on_device.sh VSA_BENCH OUT_DIR [peers.py options...]
#
# Cases (names from suites/perf.json, so `vsa-bench compare` lines them up with
# `vsa-bench run perf`): B=1 H=8 D=128, 25% top-k, S=4096 and S=16384.
#   - S=4096 is dumped with the CPU reference (6e10 FLOPs); peers are checked against
#     it, and so is the torch fp32 GPU reference (--check-torch-reference: backend
#     "torch-fp32-ref" in the report), which is what larger cases rely on.
#   - S=16384 (1e12 FLOPs of CPU reference) is dumped without outputs ("@noref"); peers
#     are checked against the torch fp32 reference computed on the GPU (the report's
#     "reference" field says which reference each case used).
# When flashinfer imports, its SM90 VSA kernels are compiled in the background
# (flashinfer_warmup.py) while the cases are dumped and ours run, before the peers start.
# Environment:
#   VSA_PYTHON  python with torch (default python3)
#   DUMP_DIR    where the dumps go (default OUT_DIR/dumps; ~250 MB at S=16384, ~1 GB at
#               S=65536; keep it out of OUT_DIR when OUT_DIR is copied back)
#   OURS        one of our reports to compare with (e.g. results/baselines/h200-sm90a.json);
#               "run": run `vsa-bench run perf` on these cases first;
#               unset: run only when the binary has a usable sm90a backend
#   OURS_BACKENDS  the backends of that run, comma-separated (default sm90a)
#   OURS_PLUGINS   plugin libraries loaded into that run (space-separated; `--plugin` each)
#   OURS_ADD_BACKENDS  backends added to every case of that run (comma-separated;
#               `--add-backend`), e.g. a plugin's fastvideo-tk-h100, timed interleaved with ours
#   CASES       space-separated case names instead of the two above; NAME@noref dumps
#               without CPU reference outputs
set -uo pipefail
[ $# -ge 2 ] || { sed -n '2,27p' "$0"; exit 2; }
BIN="$(readlink -f "$1")"; OUT="$2"; shift 2
HERE="$(cd "$(dirname "$0")" && pwd)"
PY="${VSA_PYTHON:-python3}"
DUMPS="${DUMP_DIR:-$OUT/dumps}"
CASES="${CASES:-perf/topk/S=4096,density=0.25 perf/topk/S=16384,density=0.25@noref}"
mkdir -p "$OUT" "$DUMPS"
[ -x "$BIN" ] || { echo "run_on_device.sh: $BIN is not an executable" >&2; exit 2; }
"$PY" -c "import torch; assert torch.cuda.is_available()" 2>/dev/null \
  || { echo "run_on_device.sh: $PY has no torch with a CUDA device" >&2; exit 4; }

warmup=""
if "$PY" -c "import flashinfer" 2>/dev/null; then
  "$PY" "$HERE/flashinfer_warmup.py" >"$OUT/flashinfer-warmup.log" 2>&1 &
  warmup=$!
fi

dirs=(); names=()
for entry in $CASES; do
  c="${entry%@noref}"; flags=(); [ "$c" != "$entry" ] && flags=(--no-reference)
  d="$DUMPS/$(echo "$c" | tr '/,=' '___')"
  start=$(date +%s%N)
  "$BIN" dump --case "$c" --out "$d" "${flags[@]}" >"$OUT/dump.log" 2>&1 || { rc=$?; cat "$OUT/dump.log"; exit "$rc"; }
  echo "$(cat "$OUT/dump.log") in $(( ($(date +%s%N) - start) / 1000000 )) ms"
  dirs+=("$d"); names+=("$c")
done

ours="${OURS:-}"
if [ -z "$ours" ] && "$BIN" list backends --json 2>/dev/null | "$PY" -c "import json, sys
d = json.load(sys.stdin)
sys.exit(0 if any(s['supported'] for b in d['backends'] if b['name'] == 'sm90a' for s in b['support']) else 1)"; then
  ours=run
fi
if [ "$ours" = "run" ]; then
  filters=(); for c in "${names[@]}"; do filters+=(--case "$c"); done
  for p in ${OURS_PLUGINS:-}; do filters+=(--plugin "$p"); done
  [ -n "${OURS_ADD_BACKENDS:-}" ] && filters+=(--add-backend "$OURS_ADD_BACKENDS")
  start=$(date +%s)
  # --target-spread 0: the case's fixed warm-up, iterations and passes, as peers.py times the
  # peers; adaptive sampling would run ours longer, on a hotter card (notes/runs.md run 32).
  "$BIN" run perf "${filters[@]}" --backends "${OURS_BACKENDS:-sm90a}" --target-spread 0 --out "$OUT/ours" \
    --label ours --quiet >"$OUT/ours.log" 2>&1
  echo "ours (vsa-bench run perf, ${OURS_BACKENDS:-sm90a}${OURS_ADD_BACKENDS:+,$OURS_ADD_BACKENDS}): exit $? in $(( $(date +%s) - start )) s"
  ours="$(ls "$OUT"/ours/*.json 2>/dev/null | head -1)"
fi

if [ -n "$warmup" ]; then
  wait "$warmup"
  cat "$OUT/flashinfer-warmup.log"
fi
start=$(date +%s)
"$PY" "$HERE/peers.py" "${dirs[@]}" --out "$OUT/peers-report.json" --check-torch-reference "$@" \
  2>"$OUT/peers.log" | tee "$OUT/peers-table.md"
rc=${PIPESTATUS[0]}
echo "peers.py: exit $rc in $(( $(date +%s) - start )) s"
[ -s "$OUT/peers-report.json" ] || { tail -50 "$OUT/peers.log"; [ "$rc" != 0 ] || rc=4; exit "$rc"; }

if [ -n "$ours" ] && [ -f "$ours" ]; then
  "$BIN" compare "$ours" "$OUT/peers-report.json" >"$OUT/compare.md" 2>&1 \
    && echo "compare: $OUT/compare.md (ours: $ours)" || { echo "compare failed:"; cat "$OUT/compare.md"; }
fi
echo
"$PY" "$HERE/summary_table.py" "$OUT/peers-report.json" ${ours:+"$ours"}
exit "$rc"
