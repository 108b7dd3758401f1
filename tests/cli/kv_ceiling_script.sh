#!/usr/bin/env bash
# scripts/device/kv_ceiling.sh against a stand-in driver (tools/sm90a_kv_ceiling) and a stand-in
# nvidia-smi: the table comes last but one, the clock and power range last; a driver's FAILED line
# is shown and its exit code is the script's, a plugin goes to the driver (a missing one is exit 2), a driver that does not finish is cut off (124); with no nvidia-smi the range line says so; a build
# without the driver is refused with exit 2 naming the file.
# Usage: kv_ceiling_script.sh <vsa-bench> <source dir>
source "$(dirname "$0")/lib.sh"
mkdir -p "$WORK/build/tools" "$WORK/bin"
cat > "$WORK/build/tools/sm90a_kv_ceiling" <<'FAKE'
#!/usr/bin/env bash
echo "S      density layout        pairs       us     TB/s   TFLOPS"
[ $# -eq 0 ] || echo "16384    25.0% $(basename "$1")  131072    520.0     8.26    528.6  (1.30x the fastest layout)"
echo "16384    25.0% 1x7         131072    400.0    10.74    687.2"
echo "16384    25.0% forward     131072    500.0     8.59    549.8  (1.25x the fastest layout)"
[ "${FAKE_EXIT:-0}" = 0 ] || echo "FAILED: S 4096 k 8 layout 4x1: wrong tiles moved"
sleep 1
exit "${FAKE_EXIT:-0}"
FAKE
# The stand-in nvidia-smi prints five samples in the query's csv format, then waits to be stopped.
cat > "$WORK/bin/nvidia-smi" <<'FAKE'
#!/usr/bin/env bash
printf '%s\n' "1755, 612.40" "1980, 98.10" "1500, 300.00" "1900, 200.00" "1800, 100.00"
exec sleep 100
FAKE
chmod +x "$WORK/build/tools/sm90a_kv_ceiling" "$WORK/bin/nvidia-smi"
PATH="$WORK/bin:$PATH" bash "$SRC/scripts/device/kv_ceiling.sh" "$WORK/build" "$WORK/out" > "$WORK/log" 2>&1 ||
  fail "exit $? with a passing driver"
cat "$WORK/log"
grep -q "^16384    25.0% 1x7 " "$WORK/log" || fail "layout row missing"
grep -q "^16384    25.0% forward .*(1.25x the fastest layout)$" "$WORK/log" || fail "forward row missing"
[ "$(tail -1 "$WORK/log")" = "SM clock 1500-1980 MHz (median 1800), peak power 612 W (5 samples)" ] ||
  fail "the last line must be the clock and power range"
[ -s "$WORK/out/kv_ceiling.log" ] || fail "the full log is not kept in OUT_DIR"
# No nvidia-smi on PATH (a machine whose PATH has only the basics).
mkdir -p "$WORK/min"
for t in bash dirname mktemp cp rm sed grep awk head cat mkdir kill sleep timeout sort; do ln -sf "$(command -v "$t")" "$WORK/min/$t"; done
PATH="$WORK/min" "$WORK/min/bash" "$SRC/scripts/device/kv_ceiling.sh" "$WORK/build" > "$WORK/log" 2>&1 || fail "exit $? without nvidia-smi"
[ "$(tail -1 "$WORK/log")" = "no clock samples" ] && ! grep -q "not found" "$WORK/log" || { cat "$WORK/log"; fail "without nvidia-smi the last line must say so, and nothing else be missing"; }
FAKE_EXIT=1 bash "$SRC/scripts/device/kv_ceiling.sh" "$WORK/build" > "$WORK/log" 2>&1
[ $? = 1 ] || fail "the driver's failure must be the exit code"
grep -q "^FAILED: S 4096 k 8 layout 4x1: wrong tiles moved" "$WORK/log" || fail "the driver's FAILED line must be shown"
[ "$(grep -c "^FAILED" "$WORK/log")" = 1 ] || fail "the FAILED line once, not again inside the table"
VSA_KV_CEILING_TIMEOUT_S=0.3 bash "$SRC/scripts/device/kv_ceiling.sh" "$WORK/build" > "$WORK/log" 2>&1
[ $? = 124 ] || fail "a driver that does not finish must be cut off with exit 124"
grep -q "^FAILED: sm90a_kv_ceiling did not finish in 0.3 s" "$WORK/log" || { cat "$WORK/log"; fail "the cut-off must be said"; }
# A plugin is handed to the driver, and its row comes out; a plugin that is not there is refused.
echo so > "$WORK/tk.so"
bash "$SRC/scripts/device/kv_ceiling.sh" "$WORK/build" "$WORK/out" "$WORK/tk.so" > "$WORK/log" 2>&1 || fail "exit $? with a plugin"
grep -q "^16384    25.0% tk.so .*(1.30x the fastest layout)$" "$WORK/log" || { cat "$WORK/log"; fail "the plugin's row"; }
bash "$SRC/scripts/device/kv_ceiling.sh" "$WORK/build" "$WORK/out" "$WORK/none.so" > "$WORK/log" 2>&1
[ $? = 2 ] && grep -q "^kv_ceiling.sh: no plugin at $WORK/none.so" "$WORK/log" || { cat "$WORK/log"; fail "a missing plugin"; }
mkdir -p "$WORK/no-driver"
bash "$SRC/scripts/device/kv_ceiling.sh" "$WORK/no-driver" > /dev/null 2> "$WORK/err"
[ $? = 2 ] || fail "a build without the driver must exit 2"
grep -q "no-driver/tools/sm90a_kv_ceiling is not an executable file" "$WORK/err" || fail "the refusal must name the missing binary"
echo "ok"
