#!/usr/bin/env bash
# Does another process on the GPU slow our burst passes, and does the report say so? One call
# on a GPU node (issue 22, run 49). The perf suite's S = 16384 cases (fixed passes) run alone, beside FlashInfer's JIT
# warm-up (as in run 46's third call, when ours read 8% slow), beside a process that only holds
# a CUDA context, and beside one that keeps launching small kernels. nvidia-smi lists the
# compute processes before each run and 3 s into it (the supervisor should hold no context); then each report's "Shared GPU" section, and
# `compare --threshold 5%` of the small-kernels run against the first (4: cannot gate).
#   scripts/device/neighbour_check.sh VSA_BENCH OUT_DIR
# Needs python3 with torch; the FlashInfer run needs .peers/flashinfer (else it is skipped).
set -uo pipefail
[ $# -eq 2 ] || { sed -n '2,8p' "$0"; exit 2; }
source "$(dirname "$0")/lib/build_dir.sh"
require_program neighbour_check.sh "$1"
BIN="$1"; OUT="$2"; mkdir -p "$OUT"
SRC="$(cd "$(dirname "$0")/../.." && pwd)"; SITE=/tmp/neighbour-site
fi_archive="$(ls "$SRC"/.peers/flashinfer/flashinfer-*-vsa.tar.gz 2>/dev/null | head -1)"
if [ -n "$fi_archive" ]; then
  mkdir -p "$SITE" && tar -xzf "$fi_archive" -C "$SITE" \
    && python3 -m pip install -q --no-index --no-deps --no-compile --target "$SITE" "$SRC"/.peers/flashinfer/apache_tvm_ffi-*.whl
fi
neighbour=""
start_neighbour() {
  case "$1" in
    none) neighbour="" ;;
    flashinfer-jit) PYTHONPATH="$SITE" python3 "$SRC/scripts/peers/flashinfer_warmup.py" >"$OUT/jit.log" 2>&1 & neighbour=$! ;;
    idle-context) python3 -c "import torch, time; torch.zeros(1, device='cuda'); time.sleep(600)" & neighbour=$! ;;
    small-kernels) python3 -c "
import torch, time
x = torch.zeros(1 << 20, device='cuda')
while True:
    x.add_(1.0); torch.cuda.synchronize(); time.sleep(0.002)" & neighbour=$! ;;
  esac
  sleep 5  # the neighbour's CUDA context exists before ours is timed
}
stop_neighbour() { [ -n "$neighbour" ] && kill "$neighbour" 2>/dev/null; wait "$neighbour" 2>/dev/null; neighbour=""; }
trap stop_neighbour EXIT
k=0
for n in none flashinfer-jit none idle-context small-kernels none; do
  [ "$n" = flashinfer-jit ] && [ -z "$fi_archive" ] && continue
  label="$n-$((++k))"
  start_neighbour "$n"
  nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv,noheader >"$OUT/$label.apps" 2>&1
  rm -rf "${OUT:?}/$label"
  (sleep 3; nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv,noheader >"$OUT/$label.during" 2>&1) &
  "$BIN" run perf --case "S=16384" --target-spread 0 --out "$OUT/$label" --label "$label" --quiet >/dev/null
  echo "== $label exit $? (other compute processes before: $(grep -c . "$OUT/$label.apps"); 3 s in: $(tr '\n' ';' <"$OUT/$label.during"))"
  stop_neighbour
done
python3 - "$OUT" <<'PY' | tee "$OUT/neighbours.md"
import glob, json, os, sys
out = sys.argv[1]
print("| run | case | backend | op | TFLOPS | pass medians ms | during MHz |")
print("|---|---|---|---|---|---|---|")
for d in sorted(glob.glob(f"{out}/*-[0-9]"), key=lambda p: int(p.rsplit("-", 1)[1])):
    for path in glob.glob(f"{d}/*.json"):
        if "nvbench" in path: continue
        for c in json.load(open(path)).get("cases", []):
            for b in c.get("backends", []):
                if b["backend"] != "sm90a-det": continue
                for t in b.get("timings", []):
                    mhz = sorted({round(p["during"]["sm_clock_mhz"]["mean"]) for p in t.get("clocks") or []
                                  if isinstance(p.get("during"), dict) and "sm_clock_mhz" in p["during"]})
                    print(f"| {os.path.basename(d)} | {c['name'].replace('perf/topk/', '')} | {b['backend']} | {t['op']} | "
                          f"{t['tflops']:.1f} | {' '.join(f'{x:.4f}' for x in t['pass_medians_ms'])} | "
                          f"{mhz[0] if mhz else '-'}-{mhz[-1] if mhz else '-'} |")
PY
for d in "$OUT"/*-[0-9]; do
  rows="$(sed -n '/^## Shared GPU/,/^## /p' "$d"/*.md | grep '^| perf')"
  echo "== $(basename "$d"): $(printf '%s' "$rows" | grep -c .) shared timings"; printf '%s\n' "$rows" | head -4
done
base="$(ls "$OUT"/none-1/*.json | grep -v nvbench | head -1)"; shared="$(ls "$OUT"/small-kernels-*/*.json | grep -v nvbench | head -1)"
"$BIN" compare "$base" "$shared" --threshold 5% >"$OUT/compare.md"; echo "== compare none-1 small-kernels: exit $?"
grep -i "too noisy\|regress" "$OUT/compare.md" | head -6
