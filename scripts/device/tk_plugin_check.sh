#!/usr/bin/env bash
# FastVideo's ThunderKittens H100 kernels as a vsa-bench plugin (peers/fastvideo_tk), checked and
# timed beside sm90a and sm90a-det on one H200, in one call; builds the plugin on the node.
#   scripts/device/tk_plugin_check.sh BUILD_DIR OUT_DIR
# Needs BUILD_DIR/vsa-bench (made elsewhere; self-contained), the upstream sources that
# scripts/peers/fetch_fastvideo_tk.sh wrote to .peers/fastvideo_tk (carried: ~2 MiB), and nvcc
# ($NVCC, PATH or /usr/local/cuda/bin; its version is printed). Steps, each exit code in the
# summary: build (peers/fastvideo_tk/build.sh, into /tmp/tk-plugin-build), list backends --plugin,
# lint --plugin, one run of tk-correctness tk-stability tk-perf with
# --backends fastvideo-tk-h100,sm90a,sm90a-det, and tk-perf-kernels-only with
# TK_PLUGIN_KERNELS_ONLY=1 (the TK kernels alone, without the backward's zeroing and casts; a
# second run, so its ratio to the first mixes their cost with the card's state: the first run
# heats it; the forward has nothing to skip since plugin ABI 2). Prints
# a short table last. Writes the log (tk_plugin_check.log), the build log and the reports (JSON +
# Markdown; the first run's in OUT_DIR/run, the kernels-only run's in OUT_DIR/kernels-only, both
# emptied first, so a reused OUT_DIR adds no old report to the table) to OUT_DIR. The exit code is
# 0 only if every step and the table's own reading of the reports succeeded.
# About 2-3 minutes on an H200 (each run is also cut off by `timeout`, INT then KILL 20 s later,
# so a hang cannot hold the node). TK_PLUGIN_BUILD overrides /tmp/tk-plugin-build.
set -uo pipefail
[ $# -eq 2 ] || { sed -n '2,18p' "$0"; exit 2; }
source "$(dirname "$0")/lib/build_dir.sh"
require_build tk_plugin_check.sh "$1"
BUILD="$(cd "$1" && pwd)"; OUT="$2"
SRC="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="$BUILD/vsa-bench"; SUITES="$SRC/peers/fastvideo_tk/suites"
PLUGIN_BUILD="${TK_PLUGIN_BUILD:-/tmp/tk-plugin-build}"; SO="$PLUGIN_BUILD/fastvideo_tk_h100.so"
mkdir -p "$OUT" || exit 2; OUT="$(cd "$OUT" && pwd)"
RUN_OUT="$OUT/run"; KO_OUT="$OUT/kernels-only"
rm -rf "$RUN_OUT" "$KO_OUT" "$OUT/summary.txt"

main() {
  started=$(date +%s)
  step() { printf '\n===== [%3d s] %s\n' "$(( $(date +%s) - started ))" "$*"; }
  declare -A RC
  local ran=()

  step "build the plugin (nvcc, sm_90a)"
  [ -z "${NVCC:-}" ] && ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ] && export NVCC=/usr/local/cuda/bin/nvcc
  rm -rf "$PLUGIN_BUILD"
  "$SRC/peers/fastvideo_tk/build.sh" "$SRC/.peers/fastvideo_tk" "$PLUGIN_BUILD"; RC[build]=$?
  cp "$PLUGIN_BUILD/build.log" "$OUT/plugin-build.log" 2>/dev/null
  "$BIN" --version | head -1

  if [ "${RC[build]}" -eq 0 ]; then
    step "list backends --plugin"
    "$BIN" list backends --plugin "$SO" | grep -A1 -E '^  (fastvideo-tk-h100|sm90a|sm90a-det) '; RC[list]=${PIPESTATUS[0]}

    step "lint --plugin (local-spill warnings on upstream's bwd kernels are expected: README)"
    "$BIN" lint --plugin "$SO"; RC[lint]=$?

    step "run: tk-correctness, tk-stability, tk-perf (one run)"
    timeout -s INT -k 20 170 "$BIN" run "$SUITES/tk-correctness.json" "$SUITES/tk-stability.json" "$SUITES/tk-perf.json" \
      --plugin "$SO" --backends fastvideo-tk-h100,sm90a,sm90a-det --out "$RUN_OUT" --label tk-h200 --quiet; RC[run]=$?
    ran+=("$RUN_OUT")

    step "the TK kernels alone (TK_PLUGIN_KERNELS_ONLY=1, outputs not valid)"
    TK_PLUGIN_KERNELS_ONLY=1 timeout -s INT -k 20 60 "$BIN" run "$SUITES/tk-perf-kernels-only.json" \
      --plugin "$SO" --out "$KO_OUT" --label tk-kernels-only --quiet; RC[kernels_only]=$?
    ran+=("$KO_OUT")
  fi

  step "summary"
  # The table is made first and printed last; its own exit code (a run folder without a report,
  # a report it cannot read, a report in which nothing passed) counts like a step's.
  summarize "$OUT" "${ran[@]}" > "$OUT/summary.txt" 2>&1; RC[summary]=$?
  local k bad=0
  for k in build list lint run kernels_only summary; do
    printf '%-14s exit %s\n' "$k" "${RC[$k]:-not run}"
    [ "${RC[$k]:-1}" -eq 0 ] || bad=1
  done
  cat "$OUT/summary.txt"
  return "$bad"
}

# summarize OUT_DIR RUN_DIR...: a table of the reports in each RUN_DIR (each must hold one).
summarize() {
python3 - "$@" <<'PY'
import glob, json, os, sys
out, run_dirs = sys.argv[1], sys.argv[2:]
reports = []
for run_dir in run_dirs:
    found = 0
    for path in sorted(glob.glob(run_dir + "/*.json")):
        try: d = json.load(open(path))
        except Exception as e: sys.exit(f"summary: {path} does not read as JSON: {e}")
        if d.get("schema") == "vsa-bench/report":
            reports.append((os.path.relpath(path, out), d)); found += 1
    if not found: sys.exit(f"summary: no vsa-bench report in {run_dir}")
def tflops(b):
    return {t["op"]: t["tflops"] for t in b.get("timings", [])}
tk_full = {}
for name, d in reports:
    for c in d["cases"]:
        for b in c["backends"]:
            if b["backend"] == "fastvideo-tk-h100" and b.get("timings") and "kernels-only" not in c["name"]:
                tk_full[c["name"].split("/", 1)[1]] = tflops(b)
for name, d in reports:
    s = d["summary"]
    print(f"{name[:66]:66s} PASS {s['PASS']:3d} FAIL {s['FAIL']:3d} FAULT {s['FAULT']:3d} HANG {s['HANG']:3d} SKIP {s['SKIP']:3d}")
    worst = {}
    for c in d["cases"]:
        for b in c["backends"]:
            if b["verdict"] not in ("PASS", "SKIP"):
                print(f"  {b['verdict']:5s} {c['name']} {b['backend']}: {b['reason'][:150]}")
            for m in b.get("metrics", []):
                if m["rel_max"] > worst.get(b["backend"], (0, ""))[0]:
                    worst[b["backend"]] = (m["rel_max"], f"{m['tensor']}, {c['name']}")
    for backend, (v, where) in sorted(worst.items()):
        print(f"  worst rel_max {backend:18s} {v:.2e} ({where})")
    rows = [(c, b) for c in d["cases"] for b in c["backends"] if b.get("timings")]
    if not rows: continue
    kernels_only = any("kernels-only" in c["name"] for c, _ in rows)
    head = "TK+adapter/TK fwd  bwd" if kernels_only else "TK/this fwd  bwd"
    print(f"  {'perf case':34s} {'backend':18s} {'fwd TFLOPS':>10s} {'bwd TFLOPS':>10s}   {head}")
    tk = {c["name"]: tflops(b) for c, b in rows if b["backend"] == "fastvideo-tk-h100"}
    for c, b in rows:
        t = tflops(b)
        ref = tk_full.get(c["name"].split("/", 1)[1], {}) if kernels_only else tk.get(c["name"], {})
        num, den = (ref, t) if kernels_only else (tk.get(c["name"], {}), t)
        ratio = lambda op: f"{num[op] / den[op]:5.2f}" if num.get(op) and den.get(op) else "    -"
        print(f"  {c['name'].split('/', 1)[1][:34]:34s} {b['backend']:18s} {t.get('fwd', 0):10.1f} {t.get('bwd', 0):10.1f}"
              f"   {ratio('fwd')} {ratio('bwd')}")# A run whose every case was skipped (no GPU, a plugin that refuses the card) exits 0 but
# checked nothing: that fails the check.
idle = [name for name, d in reports if d["summary"]["PASS"] == 0]
if idle:
    sys.exit("summary: no case passed in " + ", ".join(idle) + " (no GPU, or every backend refused the cases?)")
PY
}

# One pipeline, so the script ends only after tee has written the whole log.
main 2>&1 | tee "$OUT/tk_plugin_check.log"
exit "${PIPESTATUS[0]}"
