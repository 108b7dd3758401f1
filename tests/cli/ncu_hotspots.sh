#!/usr/bin/env bash
# scripts/device/ncu_hotspots.py on a hand-made Nsight Compute source page: the hottest
# SASS line comes first with its share and stall reason, `waits on` names the mbarrier
# try-wait above a spinning branch and the barrier above the line after it, and a file
# without a source page is refused with exit 2.
# Usage: ncu_hotspots.sh <vsa-bench> <source dir>
source "$(dirname "$0")/lib.sh"
cat > "$WORK/src.csv" <<'CSV'
"Kernel Name","void k(int)",
"Address","Source","Warp Stall Sampling (All Samples)","Warp Stall Sampling (Not-issued Samples)","Instructions Executed","stall_barrier","stall_long_sb","stall_wait","stall_barrier (Not Issued)"
"0x10","      SYNCS.PHASECHK.TRANS64.TRYWAIT P0, [R14+URZ+0x30800], R11","5","5","100","0","5","0","0"
"0x20","      VIADD R9, R12, 0xc000","5","5","100","0","0","5","0"
"0x30","      @!P0  BRA 0x200","60","60","100","0","60","0","0"
"0x40","      BAR.SYNC.DEFER_BLOCKING R15, 0x100","0","0","100","0","0","0","0"
"0x50","      UMOV UR13, 0x40000040","30","30","100","30","0","0","30"
CSV
python3 "$SRC/scripts/device/ncu_hotspots.py" "$WORK/src.csv" --top 2 > "$WORK/out" || fail "exit $?"
cat "$WORK/out"
head -1 "$WORK/out" | grep -q "^100 warp-state samples; top 2 SASS lines" || fail "sample total"
first="$(sed -n 3p "$WORK/out")"; second="$(sed -n 4p "$WORK/out")"
echo "$first" | grep -q "60.0%" || fail "hottest line's share: $first"
echo "$first" | grep -q "long_sb 60" || fail "hottest line's stall reason: $first"
echo "$first" | grep -q "\[-2\] SYNCS.PHASECHK.TRANS64.TRYWAIT" || fail "hottest line's wait: $first"
echo "$second" | grep -q "30.0%.*barrier 30.*\[-1\] BAR.SYNC" || fail "second line: $second"
printf '"ID","Kernel Name"\n"0","k"\n' > "$WORK/details.csv"
python3 "$SRC/scripts/device/ncu_hotspots.py" "$WORK/details.csv" > /dev/null 2>&1
[ $? = 2 ] || fail "a file without a source page must exit 2"
echo "ok"
