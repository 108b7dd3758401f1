#!/usr/bin/env bash
# scripts/device/trace.sh against stand-in drivers (tools/sm90a_fwd_trace and
# tools/sm90a_bwd_timing): the forward table, the backward's TIMING/TRACE lines, and last the
# backward's trace cost per size (a traced launch's median against the untraced one of the
# same label and size; a label without a traced twin gets no row); a driver's failure is its
# exit code, and a build without the drivers is refused with exit 2 naming the file.
# Usage: trace_script.sh <vsa-bench> <source dir>
source "$(dirname "$0")/lib.sh"
mkdir -p "$WORK/build/tools"
cat > "$WORK/build/tools/sm90a_fwd_trace" <<'FAKE'
#!/usr/bin/env bash
echo "S         k   ev_us evtr_us |  slots  items |  skew rows"
echo "4096      8    24.7    25.6 |    264    512 |   1.4 shuffled"
echo "4096      8    22.1    22.9 |    264    512 |   1.3 ascend"
echo "us from the first consumer start: skew = latest start"
echo "to next arrival, done_m / done_x = a slot's last epilogue"
echo "rows: each row's blocks shuffled, or ascending (the harness's order)."
exit "${FAKE_FWD_EXIT:-0}"
FAKE
cat > "$WORK/build/tools/sm90a_bwd_timing" <<'FAKE'
#!/usr/bin/env bash
echo "TIMING sm90a             S=4096   k=16   pairs=8192     median 0.200 ms (min 0.1 max 0.3)  272.5 TFLOPS"
echo "TIMING sm90a traced      S=4096   k=16   pairs=8192     median 0.202 ms (min 0.1 max 0.3)  270.0 TFLOPS"
echo "TRACE  sm90a             S=4096   k=16   slots 264 kv 512 q 0 | dep 0.0/0.0"
echo "TIMING sm90a-det         S=4096   k=16   pairs=8192     median 0.125 ms (min 0.1 max 0.3)  342.7 TFLOPS"
echo "TIMING sm90a-det kv only S=4096   k=16   pairs=8192     median 0.108 ms (min 0.1 max 0.3)  399.5 TFLOPS"
echo "TIMING sm90a-det traced  S=4096   k=16   pairs=8192     median 0.124 ms (min 0.1 max 0.3)  345.0 TFLOPS"
echo "TRACE  sm90a-det         S=4096   k=16   slots 264 kv 512 q 512 | dep -0.1/0.0 arr1 3.1"
echo "TIMING sm90a-det         S=65536  k=256  pairs=2097152  median 24.834 ms (min 24 max 26)  442.8 TFLOPS"
[ "${FAKE_EXIT:-0}" = 0 ] || echo "FAILED: the traced launch stamped nothing"
exit "${FAKE_EXIT:-0}"
FAKE
chmod +x "$WORK/build/tools/sm90a_fwd_trace" "$WORK/build/tools/sm90a_bwd_timing"
bash "$SRC/scripts/device/trace.sh" "$WORK/build" "$WORK/out" > "$WORK/log" 2>&1 || fail "exit $? with a passing binary"
cat "$WORK/log"
grep -q "^4096      8    24.7" "$WORK/log" || fail "forward table row missing"
grep -q "^4096      8    22.1.* ascend$" "$WORK/log" || fail "the ascending-rows row of the forward table missing"
grep -q "^rows: each row" "$WORK/log" || fail "the forward table's legend must run to its last line"
grep -q "^TRACE  sm90a-det" "$WORK/log" || fail "backward TRACE line missing"
grep -q "^TIMING sm90a-det" "$WORK/log" || fail "backward TIMING line missing"
sed -n '/trace cost/,$p' "$WORK/log" > "$WORK/cost"
[ "$(head -1 "$WORK/cost" | cut -c1-14)" = "== backward: t" ] || fail "the trace cost table must come after the backward lines"
grep -Eq "^sm90a +S=4096 k=16 +\+1\.0%$" "$WORK/cost" || fail "no +1.0% row for sm90a"
grep -Eq "^sm90a-det +S=4096 k=16 +-0\.8%$" "$WORK/cost" || fail "no -0.8% row for sm90a-det"
[ "$(grep -c "S=" "$WORK/cost")" = 2 ] || fail "rows for labels without a traced twin"
[ "$(grep -n "^TRACE" "$WORK/log" | tail -1 | cut -d: -f1)" -lt "$(grep -n "trace cost" "$WORK/log" | cut -d: -f1)" ] ||
  fail "the backward lines must come before the cost table"
[ -s "$WORK/out/trace.log" ] || fail "the full log is not kept in OUT_DIR"
FAKE_EXIT=1 bash "$SRC/scripts/device/trace.sh" "$WORK/build" > "$WORK/log" 2>&1
[ $? = 1 ] || fail "the backward driver's failure must be the exit code"
grep -q "^FAILED: the traced launch" "$WORK/log" || fail "the driver's FAILED line must be shown"
FAKE_FWD_EXIT=1 bash "$SRC/scripts/device/trace.sh" "$WORK/build" > /dev/null 2>&1
[ $? = 1 ] || fail "the forward driver's failure must be the exit code"
bash "$SRC/scripts/device/trace.sh" "$WORK/nothing" > /dev/null 2> "$WORK/err"
[ $? = 2 ] || fail "a missing build folder must exit 2"
grep -q "nothing: no such folder" "$WORK/err" || fail "the refusal must name the missing folder"
mkdir -p "$WORK/no-drivers"
bash "$SRC/scripts/device/trace.sh" "$WORK/no-drivers" > /dev/null 2> "$WORK/err"
[ $? = 2 ] || fail "a build without the drivers must exit 2"
grep -q "no-drivers/tools/sm90a_fwd_trace is not an executable file" "$WORK/err" || fail "the refusal must name the missing binary"
echo "ok"
