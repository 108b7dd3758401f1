#!/usr/bin/env bash
# Is a burst pass's speed its clock? One call on a GPU node (issue 22, run 48). The perf
# suite's S = 16384 cases run four times with fixed passes (--target-spread 0): ours alone,
# ours with FastVideo's TK forward added (the plugin), ours alone, ours with TK again. Each
# burst pass's NVML samples taken while it ran (`during`, engine/timing.cpp) are set beside the
# samples before and after it, and nvidia-smi logs the SM clock every 20 ms throughout.
#   scripts/device/burst_clocks.sh BUILD_DIR OUT_DIR TK_PLUGIN.so
# Writes OUT_DIR/r{1..4}/ (reports), smi.csv and burst-clocks.md (the table, printed last).
set -uo pipefail
[ $# -eq 3 ] || { sed -n '2,8p' "$0"; exit 2; }
source "$(dirname "$0")/lib/build_dir.sh"
require_build burst_clocks.sh "$1"
BUILD="$1"; OUT="$2"; TK="$3"
mkdir -p "$OUT"
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu \
  --format=csv,noheader,nounits -lms 20 >"$OUT/smi.csv" 2>/dev/null &
smi=$!
trap 'kill $smi 2>/dev/null' EXIT
status=0
for r in 1 2 3 4; do
  extra=()
  [ $((r % 2)) = 0 ] && extra=(--plugin "$TK" --add-backend fastvideo-tk-h100)
  rm -rf "${OUT:?}/r$r"
  "$BUILD/vsa-bench" run perf --case "S=16384" --target-spread 0 --out "$OUT/r$r" --label "r$r" --quiet "${extra[@]}"
  rc=$?; echo "== r$r exit $rc"; [ "$status" = 0 ] && status=$rc
done
kill $smi 2>/dev/null
python3 - "$OUT" <<'PY' | tee "$OUT/burst-clocks.md"
import glob, json, sys
out = sys.argv[1]
print("# Burst passes at S = 16384: speed against the clock during each pass\n")
print("`scripts/device/burst_clocks.sh` (run 48). Per pass: median ms of its 20 launches, the SM clock in the")
print("NVML sample after it, and the min-max of the samples taken while it ran (`during`, n samples).\n")
print("| run | case | backend | op | TFLOPS | pass: ms @ after / during MHz (n) |")
print("|---|---|---|---|---|---|")
for r in range(1, 5):
    for path in glob.glob(f"{out}/r{r}/*.json"):
        if "nvbench" in path: continue
        rep = json.load(open(path))
        for c in rep.get("cases", []):
            for b in c.get("backends", []):
                for t in b.get("timings", []):
                    cells = []
                    for ms, p in zip(t.get("pass_medians_ms", []), t.get("clocks", [])):
                        after = (p.get("after") or {}).get("sm_clock_mhz")
                        d = p.get("during") or {}
                        sm = d.get("sm_clock_mhz") or {}
                        dur = f"{sm.get('min', 0):.0f}-{sm.get('max', 0):.0f} ({d.get('samples', 0)})" if sm else "-"
                        cells.append(f"{ms:.4f} @ {after} / {dur}")
                    name = c["name"].replace("perf/topk/", "")
                    print(f"| r{r} | {name} | {b['backend']} | {t['op']} | {t['tflops']:.1f} | {'; '.join(cells)} |")
PY
exit "$status"
