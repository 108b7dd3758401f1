#!/usr/bin/env bash
# ncu on the two fastest forwards at one case (default S = 16384, 25% top-k, B = 1, H = 8,
# D = 128): ours (sm90a: the order kernel and the persistent kernel) and FlashInfer's SM90 VSA
# forward (`cake`, from the pack of scripts/peers/pack_flashinfer.py in .peers/flashinfer).
# Kernel time, SM and memory throughput, L2 hit rate, DRAM bytes, grid, registers and shared
# memory side by side, so the forward lead (issue 22) starts from what differs.
#   scripts/device/fwd_peer_ncu.sh BUILD_DIR OUT_DIR [CASE]
set -uo pipefail
source "$(dirname "$0")/lib/build_dir.sh"
require_build fwd_peer_ncu.sh "${1:?build dir}"
BUILD="$(cd "${1:?build dir}" && pwd)"; OUT="${2:?output dir}"; CASE="${3:-perf/topk/S=16384,density=0.25}"
SRC="$(cd "$(dirname "$0")/../.." && pwd)"; mkdir -p "$OUT"; OUT="$(cd "$OUT" && pwd)"
SITE=/tmp/peer-site; DUMP=/tmp/fwd-ncu-dump
METRICS=gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct,dram__bytes_read.sum,lts__t_bytes.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,launch__shared_mem_per_block_dynamic,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum
NCU=(ncu --clock-control none --csv --metrics "$METRICS")

fi_archive="$(ls "$SRC"/.peers/flashinfer/flashinfer-*-vsa.tar.gz 2>/dev/null | head -1)"
[ -n "$fi_archive" ] || { echo "no .peers/flashinfer (python3 scripts/peers/pack_flashinfer.py)"; exit 2; }
mkdir -p "$SITE" && tar -xzf "$fi_archive" -C "$SITE" \
  && python3 -m pip install -q --no-index --no-deps --no-compile --target "$SITE" "$SRC"/.peers/flashinfer/*.whl || exit 2
export PYTHONPATH="$SITE:$SRC/scripts/peers${PYTHONPATH:+:$PYTHONPATH}" PATH="/usr/local/cuda/bin:$PATH"

"$BUILD/vsa-bench" dump --case "$CASE" --out "$DUMP" --no-reference >/dev/null || exit 2
echo "== ours (sm90a forward): $CASE"
"${NCU[@]}" --kernel-name-base demangled -k "regex:sm90a::fwd::(forward_kernel|order_longest)" --launch-skip 4 \
  --launch-count 4 "$BUILD/vsa-bench" run perf --case "${CASE#perf/topk/}" --backends sm90a --no-isolate \
  --out /tmp/fwd-ncu-ours --quiet >"$OUT/ncu-ours.csv" 2>"$OUT/ncu-ours.err"; echo "ncu ours rc=$?"
echo "== FlashInfer cake forward: $CASE"
"${NCU[@]}" --profile-from-start off python3 "$SRC/scripts/peers/profile_flashinfer.py" "$DUMP" --runs 3 \
  >"$OUT/ncu-flashinfer.csv" 2>"$OUT/ncu-flashinfer.err"; echo "ncu flashinfer rc=$?"

python3 - "$OUT/ncu-ours.csv" "$OUT/ncu-flashinfer.csv" <<'PY' | tee "$OUT/fwd-peer-ncu.md"
import csv, io, sys
for path in sys.argv[1:]:
    text = open(path).read()
    start = text.find('"ID"')
    rows = list(csv.DictReader(io.StringIO(text[start:]))) if start >= 0 else []
    print(f"\n## {path.split('/')[-1]}: {len({r['ID'] for r in rows})} kernel launches")
    by = {}
    for r in rows:
        by.setdefault((r["ID"], r["Kernel Name"][:60]), {})[r["Metric Name"]] = f"{r['Metric Value']} {r['Metric Unit']}"
    for (i, name), m in by.items():
        print(f"- launch {i} {name}")
        for k in sorted(m):
            print(f"    {k:60s} {m[k]}")
PY
