#!/usr/bin/env bash
# Every device script that takes a build folder stops with exit 2 and the tar command, before it
# writes anything, when the folder is a carried `pack_build.sh --xz` folder not yet unpacked
# (scripts/device/lib/build_dir.sh). A new script in scripts/device/ must be listed here, either
# with its arguments or as taking no build folder, or this test fails.
# Usage: device_scripts_unpacked.sh <vsa-bench> <source dir>
source "$(dirname "$0")/lib.sh"
P="$WORK/packed"; O="$WORK/out"
mkdir -p "$P" && : > "$P/slim.tar.xz"
declare -A ARGS=(
  [ab_builds.sh]="$P $P:VSA_X=1 $O"
  [ab_switch.sh]="$P $O VSA_X"
  [ab_variants.sh]="$P $O perf"
  [burst_clocks.sh]="$P $O $WORK/tk.so"
  [four_ctas.sh]="$P $WORK/tk.so $O"
  [fwd_fair_check.sh]="$P $O"
  [fwd_ncu_stalls.sh]="$P $O"
  [fwd_peer_ncu.sh]="$P $O"
  [gpu_check.sh]="$P $O quick"
  [kv_ceiling.sh]="$P $O"
  [locality.sh]="$P $O"
  [model_floors.sh]="$P $O"
  [ncu_profile.sh]="$P $O"
  [neighbour_check.sh]="$P/vsa-bench $O"
  [peers_check.sh]="$P $O"
  [perf_baseline.sh]="$P $O"
  [qualify_check.sh]="$P $O"
  [tk_occupancy.sh]="$P $WORK/tk.so $O"
  [tk_plugin_check.sh]="$P $O"
  [trace.sh]="$P $O"
  [verdict_check.sh]="$P $O"
)
NO_BUILD_FOLDER=" pack_build.sh stash.sh "
checked=0
for path in "$SRC"/scripts/device/*.sh; do
  name="$(basename "$path")"
  case "$NO_BUILD_FOLDER" in *" $name "*) continue ;; esac
  [ -n "${ARGS[$name]:-}" ] || fail "$name: a device script this test does not know; list its arguments in ARGS"
  rm -rf "$O"
  # shellcheck disable=SC2086 # the arguments are split on purpose (no spaces in $WORK's paths)
  bash "$path" ${ARGS[$name]} > "$WORK/log" 2>&1
  rc=$?
  [ "$rc" -eq 2 ] || { cat "$WORK/log"; fail "$name on a packed folder: exit $rc, expected 2"; }
  grep -q "^$name: $P holds slim.tar.xz, not an unpacked build: run tar xJf $P/slim.tar.xz -C $P first$" "$WORK/log" \
    || { cat "$WORK/log"; fail "$name on a packed folder: no tar hint"; }
  [ ! -e "$O" ] || fail "$name on a packed folder: it made its output folder first"
  checked=$((checked + 1))
done
[ "$checked" -eq "${#ARGS[@]}" ] || fail "checked $checked scripts, ARGS lists ${#ARGS[@]}: a listed script is gone"
# A folder that is not there, and one without vsa-bench, are named as such.
bash "$SRC/scripts/device/perf_baseline.sh" "$WORK/nowhere" "$O" > "$WORK/log" 2>&1
[ $? -eq 2 ] && grep -q "^perf_baseline.sh: $WORK/nowhere: no such folder" "$WORK/log" || { cat "$WORK/log"; fail "a missing folder"; }
mkdir -p "$WORK/empty"
bash "$SRC/scripts/device/verdict_check.sh" "$WORK/empty" "$O" > "$WORK/log" 2>&1
[ $? -eq 2 ] && grep -q "^verdict_check.sh: $WORK/empty/vsa-bench is not an executable file" "$WORK/log" || { cat "$WORK/log"; fail "a folder without vsa-bench"; }
# trace.sh needs the timeline drivers, not vsa-bench: it names the one it lacks.
bash "$SRC/scripts/device/trace.sh" "$WORK/empty" "$O" > "$WORK/log" 2>&1
[ $? -eq 2 ] && grep -q "^trace.sh: $WORK/empty/tools/sm90a_fwd_trace is not an executable file" "$WORK/log" || { cat "$WORK/log"; fail "trace.sh: a folder without its drivers"; }
echo "ok ($checked scripts)"
