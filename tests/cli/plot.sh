# scripts/plot.py: a TFLOPS-against-S chart from reports and a fleet-ratio chart from
# `vsa-bench fleet --format json`, both written as PNG. Runs with the project venv's python,
# where scripts/test.sh installs matplotlib; skipped (77) only in a ctest run without it.
source "$(dirname "$0")/lib.sh"
PY="${VSA_TOOLS_PYTHON:-$SRC/.tools/venv/bin/python}"
"$PY" -c "import matplotlib" 2>/dev/null \
  || { echo "SKIP: matplotlib is not installed for $PY (scripts/test.sh installs it)"; exit 77; }
python3() { "$PY" "$@"; }
PLOT="$SRC/scripts/plot.py"

"$BIN" run qualify --devices none --out "$WORK/run" --label plot >"$WORK/out" 2>&1 || { cat "$WORK/out"; fail "run"; }
report="$(ls "$WORK"/run/*.json)"

# Synthetic sweeps: the perf case at several S on two backends (CPU-only runs time nothing).
synthesize() {  # synthesize SRC DST HOST SCALE
  python3 - "$@" <<'PY'
import copy, json, sys
from synthetic_timing import timing
src, dst, host, scale = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
d = json.load(open(src))
template = next(c for c in d["cases"] if c["name"] == "qualify/fast/perf-16k")
d["cases"] = []
for s in (4096, 16384, 65536):
    c = copy.deepcopy(template)
    c["name"] = f"perf/S={s}"
    c["spec"]["S"] = s
    c["verdict"] = "PASS"
    c["backends"] = []
    for backend, base in (("sm90a", 400.0), ("sm90a-det", 380.0)):
        timings = [timing(op, c["flops_" + op], base * scale * (1 - 4096 / s / 4) * (0.9 if op == "bwd" else 1), 0.02)
                   for op in ("fwd", "bwd")]
        c["backends"].append({"backend": backend, "verdict": "PASS", "reason": "", "metrics": [],
                              "timings": timings, "stability": []})
    d["cases"].append(c)
d["node"]["hostname"] = host
json.dump(d, open(dst, "w"))
PY
}
mkdir -p "$WORK/fleet"
for i in 1 2 3 4; do synthesize "$report" "$WORK/fleet/n$i.json" "node$i" "1.0$i" || fail "python: n$i"; done
synthesize "$report" "$WORK/fleet/n5.json" node5 0.7 || fail "python: n5"

is_png() { python3 -c "import sys; sys.exit(open(sys.argv[1],'rb').read(8) != b'\x89PNG\r\n\x1a\n')" "$1"; }

python3 "$PLOT" tflops "$WORK/fleet/n1.json" "$WORK/fleet/n5.json" -o "$WORK/tflops.png" >"$WORK/out" 2>&1 \
  || { cat "$WORK/out"; fail "plot.py tflops"; }
is_png "$WORK/tflops.png" || fail "tflops.png is not a PNG"

"$BIN" fleet "$WORK/fleet" --format json >"$WORK/fleet.json" 2>"$WORK/err"
[ "$(json_get "$WORK/fleet.json" "d['outliers']")" -ge 1 ] || fail "the 30% slow GPU is not an outlier"
python3 "$PLOT" fleet "$WORK/fleet.json" -o "$WORK/fleet.png" >"$WORK/out" 2>&1 || { cat "$WORK/out"; fail "plot.py fleet"; }
is_png "$WORK/fleet.png" || fail "fleet.png is not a PNG"
grep -q "^P1: perf/S=4096 fwd sm90a" "$WORK/out" || { cat "$WORK/out"; fail "fleet chart legend"; }

# A report without timings is refused with a reason, not an empty chart.
python3 "$PLOT" tflops "$report" -o "$WORK/empty.png" >"$WORK/out" 2>&1 && fail "plot.py accepted a report without timings"
grep -q "no timed case" "$WORK/out" || { cat "$WORK/out"; fail "no reason given"; }
[ ! -e "$WORK/empty.png" ] || fail "an empty chart was written"
echo "ok"
