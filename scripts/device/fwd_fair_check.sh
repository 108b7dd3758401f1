#!/usr/bin/env bash
# Ours and FlashInfer's SM90 VSA forward timed the same way, in one call on an H200: first in
# bursts (warm-up 5, 20 iterations, 4 passes: how scripts/peers timed FlashInfer in the
# committed peers table), then sustained (the same with every pass at least 1 s of
# back-to-back launches, as `vsa-bench run` does with timing.min_pass_ms). Each block runs
# ours, FlashInfer, ours again (A B A), with the SM clock logged by nvidia-smi throughout, so a
# gap between the two kernels can be told from a gap between two clock states (issue 22).
#   scripts/device/fwd_fair_check.sh BUILD_DIR OUT_DIR
# Needs BUILD_DIR/vsa-bench (made elsewhere) and .peers/flashinfer (python3
# scripts/peers/pack_flashinfer.py); builds nothing. Cases: B=1 H=8 D=128 random top-k, S = 4096
# and 16384 at 25% and 12.5% (FlashInfer takes at most 64 selected blocks per row, so no
# 65536). Writes OUT_DIR/fair-*.json (our report schema), clocks.csv, phases.txt,
# fwd-fair.md (the table, with this command) and the log; prints the table last.
set -uo pipefail
[ $# -eq 2 ] || { sed -n '2,13p' "$0"; exit 2; }
source "$(dirname "$0")/lib/build_dir.sh"
require_build fwd_fair_check.sh "$1"
BUILD="$(cd "$1" && pwd)"; OUT="$2"
SRC="$(cd "$(dirname "$0")/../.." && pwd)"
SITE=/tmp/peer-site; DUMPS=/tmp/fair-dumps; WORK=/tmp/fair-work
rm -rf "$DUMPS" "$WORK"; mkdir -p "$OUT" "$DUMPS" "$WORK"; OUT="$(cd "$OUT" && pwd)"
exec > >(tee "$OUT/fwd_fair_check.log") 2>&1
PY="${VSA_PYTHON:-python3}"
started=$(date +%s)
step() { printf '\n===== [%3d s] %s\n' "$(( $(date +%s) - started ))" "$*"; }

fi_archive="$(ls "$SRC"/.peers/flashinfer/flashinfer-*-vsa.tar.gz 2>/dev/null | head -1)"
[ -n "$fi_archive" ] || { echo "no .peers/flashinfer (python3 scripts/peers/pack_flashinfer.py)"; exit 2; }
mkdir -p "$SITE" && tar -xzf "$fi_archive" -C "$SITE" \
  && "$PY" -m pip install -q --no-index --no-deps --no-compile --target "$SITE" "$SRC"/.peers/flashinfer/*.whl || exit 2
export PYTHONPATH="$SITE${PYTHONPATH:+:$PYTHONPATH}" PATH="/usr/local/cuda/bin:$PATH"
step "FlashInfer JIT (background) and dumps"
"$PY" "$SRC/scripts/peers/flashinfer_warmup.py" >"$WORK/flashinfer-warmup.log" 2>&1 &
jit=$!
cases=(); dumps=()
for s in 4096 16384; do
  for density in 0.25 0.125; do
    c="perf/topk/S=$s,density=$density"; flags=(); [ "$s" -gt 4096 ] && flags=(--no-reference)
    d="$DUMPS/S${s}_d${density}"
    "$BUILD/vsa-bench" dump --case "$c" --out "$d" "${flags[@]}" >/dev/null || { echo "dump $c failed"; exit 2; }
    cases+=("$c"); dumps+=("$d")
  done
done
wait "$jit"; cat "$WORK/flashinfer-warmup.log"

nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active \
  --format=csv,noheader,nounits -lms 200 >"$OUT/clocks.csv" 2>/dev/null &
smi=$!
trap 'kill $smi 2>/dev/null' EXIT
phase() { echo "$1 $(date +%s.%N)" >>"$OUT/phases.txt"; }
: >"$OUT/phases.txt"

suite() {  # $1 min_pass_ms: the perf suite's cases, sm90a forward only, fixed passes
  cat >"$WORK/fair-$1.json" <<JSON
{"name": "fair", "defaults": {"mode": "perf", "op": "fwd", "B": 1, "H": 8, "D": 128, "blk": 64, "seed": 5,
  "backends": ["sm90a"], "reference": "cuda-ref", "timeout_s": 900,
  "timing": {"warmup": 5, "iterations": 20, "passes": 4, "target_spread": 0, "min_pass_ms": $1, "l2_flush": false}},
 "cases": [{"name": "topk", "sweep": {"S": [4096, 16384], "pattern.density": [0.25, 0.125]}}]}
JSON
  echo "$WORK/fair-$1.json"
}
ours() {  # $1 label, $2 min_pass_ms
  phase "$1-start"
  "$BUILD/vsa-bench" run "$(suite "$2")" --out "$WORK/$1" --quiet >"$WORK/$1.log" 2>&1
  echo "ours $1: exit $?"; phase "$1-end"
  cp "$(ls "$WORK/$1"/*.json | grep -v nvbench | head -1)" "$OUT/fair-$1.json"
}
flashinfer() {  # $1 label, $2 min_pass_ms
  phase "$1-start"
  "$PY" "$SRC/scripts/peers/peers.py" "${dumps[@]}" --peers flashinfer-vsa --warmup 5 --iterations 20 --passes 4 \
    --min-pass-ms "$2" --out "$OUT/fair-$1.json" >"$WORK/$1.log" 2>&1
  echo "flashinfer $1: exit $?"; phase "$1-end"
}

step "bursts: ours, FlashInfer, ours"
ours ours-burst-1 0; flashinfer fi-burst 0; ours ours-burst-2 0
step "sustained (passes >= 1 s): ours, FlashInfer, ours"
ours ours-sust-1 1000; flashinfer fi-sust 1000; ours ours-sust-2 1000
kill $smi 2>/dev/null; sleep 0.5

step "table"
"$PY" - "$OUT" <<'PY' | tee "$OUT/fwd-fair.md"
import csv, json, statistics, sys, pathlib
out = pathlib.Path(sys.argv[1])
phases = {}
for line in (out / "phases.txt").read_text().split("\n"):
    if line.strip():
        name, t = line.split()
        phases[name] = float(t)
from datetime import datetime
clocks = []
for row in csv.reader((out / "clocks.csv").read_text().splitlines()):
    try:
        t = datetime.strptime(row[0].strip(), "%Y/%m/%d %H:%M:%S.%f").timestamp()
        clocks.append((t, float(row[1]), float(row[2])))
    except (ValueError, IndexError):
        pass
labels = ["ours-burst-1", "fi-burst", "ours-burst-2", "ours-sust-1", "fi-sust", "ours-sust-2"]
def clock_of(label):
    a, b = phases.get(label + "-start"), phases.get(label + "-end")
    xs = [c for c in clocks if a is not None and b is not None and a <= c[0] <= b and c[2] > 200]
    if not xs:
        return "-"
    mhz = [c[1] for c in xs]
    return f"{min(mhz):.0f}-{max(mhz):.0f} (med {statistics.median(mhz):.0f}) MHz, {statistics.mean(c[2] for c in xs):.0f} W"
table = {}
for label in labels:
    path = out / f"fair-{label}.json"
    if not path.exists():
        continue
    for c in json.loads(path.read_text()).get("cases", []):
        spec = c["spec"]
        key = (spec["S"], spec["pattern"]["density"])
        for b in c["backends"]:
            for t in b.get("timings", []):
                if t["op"] == "fwd":
                    table.setdefault(key, {})[label] = (t["tflops"], t["spread"], b["verdict"], t.get("launches_per_iteration", 1))
print("# Ours (sm90a) and FlashInfer's SM90 VSA forward, timed the same way\n")
print("Made by `scripts/device/fwd_fair_check.sh build $OUT` (one call). B=1 H=8 D=128, random top-k; forward TFLOPS")
print("(docs/spec.md FLOPs over the median of 4 pass medians, ± their spread). Burst: warm-up 5, 20 iterations of one")
print("launch per pass. Sustained: the same, each iteration a batch of back-to-back launches so a pass lasts >= 1 s.")
print("Order A B A: ours, FlashInfer, ours.\n")
print("| S, density | " + " | ".join(labels) + " |")
print("|---|" + "---|" * len(labels))
for key in sorted(table):
    cells = []
    for label in labels:
        v = table[key].get(label)
        cells.append("-" if v is None else f"{v[0]:.1f} ±{100 * v[1]:.1f}%" + ("" if v[2] == "PASS" else f" {v[2]}"))
    print(f"| {key[0]}, {key[1]} | " + " | ".join(cells) + " |")
print("\n| block | SM clock during it (nvidia-smi, 200 ms samples above 200 W) |")
print("|---|---|")
for label in labels:
    print(f"| {label} | {clock_of(label)} |")
PY
