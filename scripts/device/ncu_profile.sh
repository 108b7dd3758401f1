#!/usr/bin/env bash
# Where the backward's time goes, from hardware counters (one call on a GPU node).
#   scripts/device/ncu_profile.sh BUILD_DIR OUT_DIR [full|seq]   (seq: part 2 only)
# 1. S = 16384, 25%: the main backward kernel of sm90a and sm90a-det, one launch after
#    two warm-ups, Nsight Compute's full set (pipes, shared-memory wavefronts, stalls).
# 2. S = 4096, 25%: every kernel of the backward sequence with its duration, so the fixed
#    costs (Delta, order, postprocess) can be read next to the main kernel.
# 3. For part 1's kernels, the SASS lines where the warps wait most (ncu_hotspots.py).
# Clocks are left alone (--clock-control none, as the device notes ask). Prints a table last.
set -uo pipefail
source "$(dirname "$0")/lib/build_dir.sh"
require_build ncu_profile.sh "${1:?build dir}"
BUILD="${1:?build dir}"; OUT="${2:?output dir}"; PARTS="${3:-full}"; mkdir -p "$OUT"
BIN="$BUILD/vsa-bench"
NCU="${NCU:-ncu}"
for backend in sm90a sm90a-det; do
  [ "$PARTS" = full ] && {
  timeout 240 "$NCU" --clock-control none --kernel-name regex:backward_kernel --launch-skip 2 --launch-count 1 \
    --set full --csv --page details -o "$OUT/bwd16k-$backend" -f \
    "$BIN" run perf --no-isolate --quiet --backends "$backend" --case "S=16384,density=0.25" \
      --out "$OUT/runs" --label "ncu-$backend" >"$OUT/bwd16k-$backend.log" 2>&1
  echo "ncu bwd16k $backend: exit $?"
  "$NCU" --import "$OUT/bwd16k-$backend.ncu-rep" --csv --page details >"$OUT/bwd16k-$backend.csv" 2>/dev/null
  "$NCU" --import "$OUT/bwd16k-$backend.ncu-rep" --page raw --csv >"$OUT/bwd16k-$backend-raw.csv" 2>/dev/null
  "$NCU" --import "$OUT/bwd16k-$backend.ncu-rep" --page source --csv --print-source sass \
    >"$OUT/bwd16k-$backend-src.csv" 2>/dev/null
  }
  timeout 120 "$NCU" --clock-control none --metrics gpu__time_duration.sum --csv --page raw \
    "$BIN" run perf --no-isolate --quiet --backends "$backend" --case "S=4096,density=0.25" \
      --out "$OUT/runs" --label "ncu4k-$backend" >"$OUT/seq4k-$backend.csv" 2>"$OUT/seq4k-$backend.err"
  echo "ncu seq4k $backend: exit $?"
done
python3 - "$OUT" <<'PY'
import csv, glob, io, statistics, sys
out = sys.argv[1]
want = ["Duration", "SM Frequency", "Compute (SM) Throughput", "Memory Throughput", "L2 Cache Throughput",
        "DRAM Throughput", "Executed Ipc Active", "Registers Per Thread", "Achieved Occupancy",
        "Shared Memory", "L1/TEX Hit Rate", "L2 Hit Rate", "Warp Cycles Per Issued Instruction",
        "Issue Slots Busy", "Mem Pipes Busy"]
for path in sorted(glob.glob(out + "/bwd16k-*.csv")):
    if path.endswith("-raw.csv") or path.endswith("-src.csv"): continue
    rows = list(csv.reader(open(path)))
    if not rows: print(path, "empty"); continue
    head = rows[0]
    try: ni, nu, nv, ns = head.index("Metric Name"), head.index("Metric Unit"), head.index("Metric Value"), head.index("Section Name")
    except ValueError: print(path, "no details page"); continue
    print(f"\n{path.split('/')[-1]}")
    for r in rows[1:]:
        if len(r) > nv and any(r[ni] == w or r[ni].startswith(w) for w in want):
            print(f"  {r[ns][:28]:28s} {r[ni][:44]:44s} {r[nv]:>12s} {r[nu]}")
# pipe utilisation and stall reasons straight from the raw page
for path in sorted(glob.glob(out + "/bwd16k-*-raw.csv")):
    rows = list(csv.reader(open(path)))
    if len(rows) < 3: continue
    head, units, vals = rows[0], rows[1], rows[2]
    print(f"\n{path.split('/')[-1]}: pipes and stalls")
    for name, unit, val in zip(head, units, vals):
        if (("pipe_" in name and "pct_of_peak_sustained_active" in name) or
            ("warp_issue_stalled" in name and name.endswith("ratio")) or
            ("mem_shared" in name and ("wavefronts" in name or "pct" in name))):
            try:
                if float(val.replace(",", "")) < 0.5: continue
            except ValueError: continue
            print(f"  {name[:90]:90s} {val:>10s} {unit}")
for path in sorted(glob.glob(out + "/seq4k-*.csv")):
    text = open(path).read()
    start = text.find('"ID"')
    if start < 0: print(path, "no kernels"); continue
    rows = list(csv.reader(io.StringIO(text[start:])))
    head = rows[0]; nk, nd = head.index("Kernel Name"), head.index("gpu__time_duration.sum")
    per = {}
    for r in rows[2:]:
        if len(r) > nd:
            try: per.setdefault(r[nk][:70], []).append(float(r[nd].replace(",", "")))
            except ValueError: pass
    print(f"\n{path.split('/')[-1]}: kernel, launches, median duration")
    for k, v in sorted(per.items(), key=lambda kv: -statistics.median(kv[1])):
        print(f"  {k:70s} {len(v):4d} {statistics.median(v):10.1f}")
PY
# where the warps wait, by SASS line (ncu_hotspots.py)
for f in "$OUT"/bwd16k-*-src.csv; do
  [ -s "$f" ] || continue
  printf '\n%s: where the warps wait\n' "$(basename "$f")"
  python3 "$(dirname "$0")/ncu_hotspots.py" "$f" --top 10
done
