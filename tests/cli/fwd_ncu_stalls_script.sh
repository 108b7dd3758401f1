#!/usr/bin/env bash
# scripts/device/fwd_ncu_stalls.sh without a GPU or Nsight Compute: a stand-in ncu ($NCU)
# records each profiling call and answers --import with a details, raw or source page. Checked:
# a BUILD_DIR without vsa-bench is refused (exit 2); each default case profiles our forward by
# its demangled name (cuda-ref has a forward_kernel too) without --plugin, and TK's forward
# with it; clocks are left alone and passes fixed; without a plugin only ours runs; the hot
# lines and the side-by-side table are printed; a profile without a details page fails it.
# Usage: fwd_ncu_stalls_script.sh <vsa-bench> <source dir>
source "$(dirname "$0")/lib.sh"
T="$WORK/src"
mkdir -p "$T/scripts/device" "$T/peers/fastvideo_tk" "$T/build" "$WORK/empty"
cp "$SRC/scripts/device/fwd_ncu_stalls.sh" "$SRC/scripts/device/ncu_hotspots.py" "$SRC/scripts/device/ncu_summary.py" \
  "$T/scripts/device/" && cp -r "$SRC/scripts/device/lib" "$T/scripts/device/"
cp -r "$SRC/peers/fastvideo_tk/suites" "$T/peers/fastvideo_tk/"
printf '#!/usr/bin/env bash\nexit 0\n' > "$T/build/vsa-bench"
chmod +x "$T/build/vsa-bench"
export CALLS="$WORK/calls" NCU="$WORK/ncu"
cat > "$NCU" <<'FAKE'
#!/usr/bin/env bash
if [ "$1" = --import ]; then
  page=""; prev=""
  for a in "$@"; do [ "$prev" = --page ] && page="$a"; prev="$a"; done
  [ "$page" = details ] && [ -n "${FAKE_NO_DETAILS:-}" ] && exit 1
  case "$page" in
    details) printf '"ID","Section Name","Metric Name","Metric Unit","Metric Value"\n"0","SOL","Duration","us","25.2"\n' ;;
    raw) printf '"ID","Kernel Name","gpu__time_duration.sum","smsp__average_warps_issue_stalled_wait_per_issue_active.ratio"\n"","","ns","ratio"\n"0","k","25,184","1.93"\n' ;;
    source) printf '"Kernel Name","k",\n"Address","Source","Warp Stall Sampling (All Samples)","Warp Stall Sampling (Not-issued Samples)","Instructions Executed","stall_wait"\n"0x10","      MUFU.EX2 R1, R1","10","10","100","10"\n' ;;
  esac
  exit 0
fi
echo "ncu $*" >> "$CALLS"
prev=""; for a in "$@"; do [ "$prev" = -o ] && : > "$a.ncu-rep"; prev="$a"; done
exit 0
FAKE
chmod +x "$NCU"
S="$T/scripts/device/fwd_ncu_stalls.sh"

"$S" "$WORK/empty" "$WORK/out0" > /dev/null 2>&1
[ $? = 2 ] || fail "a BUILD_DIR without vsa-bench must exit 2"
[ -e "$CALLS" ] && fail "nothing may run before the BUILD_DIR check"

"$S" "$T/build" "$WORK/out" "$WORK/tk plugin.so" > "$WORK/log" 2>&1 || { cat "$WORK/log"; fail "exit $?"; }
cat "$WORK/log"
[ "$(wc -l < "$CALLS")" = 4 ] || fail "two default cases x two forwards: $(cat "$CALLS")"
for case in "S=4096,density=0.125" "S=16384,density=0.25"; do
  ours="$(grep -F -- "--case $case " "$CALLS" | grep -F -- "--backends sm90a ")" || fail "no profile of ours at $case"
  echo "$ours" | grep -q -- "--kernel-name-base demangled --kernel-name regex:sm90a::fwd::forward_kernel " \
    || fail "ours must be matched by its demangled name: $ours"
  echo "$ours" | grep -q -- "--plugin" && fail "ours runs without the plugin: $ours"
  tk="$(grep -F -- "--case $case " "$CALLS" | grep -F -- "--backends fastvideo-tk-h100 ")" || fail "no profile of TK at $case"
  echo "$tk" | grep -q -- "--kernel-name regex:fwd_attend_ker " || fail "TK's forward kernel: $tk"
  echo "$tk" | grep -qF -- "--plugin $WORK/tk plugin.so" || fail "TK runs with the plugin: $tk"
done
grep -v -- "--clock-control none" "$CALLS" && fail "every profile leaves the clocks alone"
grep -v -- "--set full .*--target-spread 0" "$CALLS" && fail "every profile takes the full set over fixed passes"
grep -q "where the warps wait" "$WORK/log" || fail "no hot lines printed"
head_row="$(grep -E "^ +fastvideo-tk-h100-S_16384" "$WORK/log")" || fail "no side-by-side table"
echo "$head_row" | grep -q "sm90a-S_4096_density_0.125" || fail "table columns: $head_row"
grep -Eq "^stall wait \(warps/issue\) +1.93" "$WORK/log" || fail "stall row"

rm -f "$CALLS"
"$S" "$T/build" "$WORK/out2" > "$WORK/log2" 2>&1 || fail "without a plugin: exit $?"
[ "$(wc -l < "$CALLS")" = 2 ] && ! grep -q -- "--backends fastvideo-tk-h100" "$CALLS" || fail "without a plugin only ours: $(cat "$CALLS")"

FAKE_NO_DETAILS=1 "$S" "$T/build" "$WORK/out3" - "S=4096,density=0.25" > /dev/null 2>&1
[ $? = 1 ] || fail "a profile without a details page must fail the script"
echo "ok"
