#!/usr/bin/env bash
# Does the forward lose at S >= 65536 to the 700 W cap alone, or to L2 misses as well?
#   scripts/device/locality.sh BUILD_DIR OUT_DIR
# 1. `vsa-bench run tests/suites/locality.json`: the forward at 32, 16 and 8 MiB
#    of K/V per head, 2 s passes so the power cap acts (clock and power sampled during them).
# 2. ncu, one launch of each shape after its 5 warm-ups, L2 left as the run left it
#    (--cache-control none): DRAM bytes, L2 hit rate, SM clock.
# Prints a table last; exit: the suite run's exit code. About 2 minutes of device time.
set -uo pipefail
source "$(dirname "$0")/lib/build_dir.sh"
require_build locality.sh "${1:?build dir}"
BUILD="${1:?build dir}"; OUT="${2:?output dir}"; mkdir -p "$OUT"
BIN="$BUILD/vsa-bench"; SUITE="$(dirname "$0")/../../tests/suites/locality.json"; NCU="${NCU:-ncu}"
timeout 500 "$BIN" run "$SUITE" --out "$OUT/run" --label locality --quiet >"$OUT/run.log" 2>&1
status=$?
echo "run locality: exit $status"
metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,sm__cycles_elapsed.avg.per_second,lts__t_bytes.sum
for c in "S=65536,H=8,again" "S=32768,H=16" "S=16384,H=32"; do
  timeout 200 "$NCU" --clock-control none --cache-control none --kernel-name regex:forward_kernel --launch-skip 5 --launch-count 1 \
    --metrics "$metrics" --csv --page raw "$BIN" run "$SUITE" --no-isolate --quiet --case "$c" \
    --out "$OUT/ncu-runs" --label ncu >"$OUT/ncu-$c.csv" 2>"$OUT/ncu-$c.err"
  echo "ncu $c: exit $?"
done
python3 - "$OUT" "$metrics" <<'PY'
import csv, glob, io, sys
out, wanted = sys.argv[1], sys.argv[2].split(",")
for md in glob.glob(out + "/run/*.md"):
    print("".join(l for l in open(md) if l.startswith("| locality/")))
for path in sorted(glob.glob(out + "/ncu-*.csv")):
    text = open(path).read()
    start = text.find('"ID"')
    if start < 0: print(path, "no ncu rows"); continue
    rows = list(csv.reader(io.StringIO(text[start:])))
    if len(rows) < 3: print(path.split("/")[-1][4:-4], "no values"); continue
    head, units, vals = rows[0], rows[1], rows[2]
    got = {h: (v, u) for h, u, v in zip(head, units, vals) if h in wanted}
    print(path.split("/")[-1][4:-4], " ".join(f"{k}={v} {u}".strip() for k, (v, u) in got.items()))
PY
exit "$status"
