#!/usr/bin/env bash
# scripts/device/ncu_summary.py on two hand-made Nsight Compute raw pages: one column per file,
# the fixed rows as ncu printed them, pipes under 1% everywhere left out, stall reasons ranked
# by their largest value and cut at --min-stall, and a file without a raw page refused (exit 2).
# Usage: ncu_summary.sh <vsa-bench> <source dir>
source "$(dirname "$0")/lib.sh"
head='"ID","Kernel Name","gpu__time_duration.sum","launch__grid_size","sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active","sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active","smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio","smsp__average_warps_issue_stalled_wait_per_issue_active.ratio","smsp__average_warps_issue_stalled_sleeping_per_issue_active.ratio"'
units='"","","ns","","%","%","ratio","ratio","ratio"'
printf '%s\n%s\n"0","ours","23,712","132","44.1","0.2","3.10","0.40","0.01"\n' "$head" "$units" > "$WORK/ours-raw.csv"
printf '%s\n%s\n"0","peer","22,100","512","40.0","0.3","0.90","1.20","0.02"\n' "$head" "$units" > "$WORK/peer-raw.csv"
python3 "$SRC/scripts/device/ncu_summary.py" "$WORK/ours-raw.csv" "$WORK/peer-raw.csv" > "$WORK/out" || fail "exit $?"
cat "$WORK/out"
head -1 "$WORK/out" | grep -Eq "ours +peer" || fail "column names"
grep -Eq "^duration \(ns\) +23,712 +22,100" "$WORK/out" || fail "duration row"
grep -Eq "^grid +132 +512" "$WORK/out" || fail "grid row"
grep -Eq "^pipe_tensor_op_gmma_cycles_active % +44.1 +40.0" "$WORK/out" || fail "tensor pipe row"
grep -q "fp64" "$WORK/out" && fail "a pipe under 1% in every file must be left out"
stalls="$(grep '^stall' "$WORK/out" | awk '{print $2}' | tr '\n' ' ')"
[ "$stalls" = "long_scoreboard wait " ] || fail "stall rows, ranked and cut at 0.05: '$stalls'"
# ncu picks a unit per value: the row says the one it printed (a duration of 277 us once read
# as "duration (ns)"), and values in different units each carry theirs.
printf '%s\n%s\n"0","long","277.18","2048","56.2","0.2","1.9","1.4","0.0"\n' "$head" "${units/\"ns\"/\"us\"}" > "$WORK/long-raw.csv"
python3 "$SRC/scripts/device/ncu_summary.py" "$WORK/long-raw.csv" > "$WORK/out" || fail "exit $?"
grep -Eq "^duration \(us\) +277.18$" "$WORK/out" || { cat "$WORK/out"; fail "the duration's unit is not the one ncu printed"; }
python3 "$SRC/scripts/device/ncu_summary.py" "$WORK/ours-raw.csv" "$WORK/long-raw.csv" > "$WORK/out" || fail "exit $?"
grep -Eq "^duration +23,712 ns +277.18 us$" "$WORK/out" || { cat "$WORK/out"; fail "mixed units are not shown per value"; }
# A units row shorter than the names keeps the metrics past it (they print without a unit).
printf '%s\n"","","ns"\n"0","short","23,712","132","44.1","0.2","3.10","0.40","0.01"\n' "$head" > "$WORK/short-raw.csv"
python3 "$SRC/scripts/device/ncu_summary.py" "$WORK/short-raw.csv" > "$WORK/out" || fail "exit $?"
grep -Eq "^grid +132$" "$WORK/out" || { cat "$WORK/out"; fail "a short units row dropped the metrics past it"; }
printf '"ID","Kernel Name"\n"0","k"\n' > "$WORK/details.csv"
python3 "$SRC/scripts/device/ncu_summary.py" "$WORK/details.csv" > /dev/null 2>&1
[ $? = 2 ] || fail "a file without a raw page must exit 2"
echo "ok"
