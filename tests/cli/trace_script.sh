#!/usr/bin/env bash
# scripts/device/trace.sh with stand-in drivers on a machine without a GPU: it prints both
# tables, the backward's trace cost per size (the traced launch's median against the untraced
# one, matched by label and size; a label without a traced twin gets no row), keeps the log
# in OUT_DIR, and exits with the drivers' status.
# Usage: trace_script.sh <vsa-bench> <source dir>
source "$(dirname "$0")/lib.sh"
B="$WORK/build"; mkdir -p "$B/tools"
cat > "$B/tools/sm90a_fwd_trace" <<'SH'
#!/bin/sh
echo "S         k   ev_us evtr_us |  slots  items"
echo "4096      8    26.1    26.3 |    264    512"
echo "to next arrival"
SH
cat > "$B/tools/sm90a_bwd_timing" <<'SH'
#!/bin/sh
echo "TIMING sm90a             S=4096   k=16   pairs=8192     median 0.200 ms (min 0.1 max 0.3)  272.5 TFLOPS"
echo "TIMING sm90a traced      S=4096   k=16   pairs=8192     median 0.202 ms (min 0.1 max 0.3)  270.0 TFLOPS"
echo "TRACE  sm90a             S=4096   k=16   slots 264 kv 512 q 0 | dep 0.0/0.0"
echo "TIMING sm90a-det         S=4096   k=16   pairs=8192     median 0.125 ms (min 0.1 max 0.3)  342.7 TFLOPS"
echo "TIMING sm90a-det kv only S=4096   k=16   pairs=8192     median 0.108 ms (min 0.1 max 0.3)  399.5 TFLOPS"
echo "TIMING sm90a-det traced  S=4096   k=16   pairs=8192     median 0.124 ms (min 0.1 max 0.3)  345.0 TFLOPS"
echo "TIMING sm90a-det         S=65536  k=256  pairs=2097152  median 24.834 ms (min 24 max 26)  442.8 TFLOPS"
exit ${BWD_EXIT:-0}
SH
chmod +x "$B/tools/"*

bash "$SRC/scripts/device/trace.sh" "$B" "$WORK/out" > "$WORK/log" 2>&1 || { cat "$WORK/log"; fail "trace.sh exited $?"; }
grep -q "^4096      8    26.1" "$WORK/log" || { cat "$WORK/log"; fail "no forward table"; }
sed -n '/trace cost/,$p' "$WORK/log" > "$WORK/cost"
grep -Eq "^sm90a +S=4096 k=16 +\+1\.0%$" "$WORK/cost" || { cat "$WORK/log"; fail "no +1.0% row for sm90a"; }
grep -Eq "^sm90a-det +S=4096 k=16 +-0\.8%$" "$WORK/cost" || { cat "$WORK/log"; fail "no -0.8% row for sm90a-det"; }
[ "$(grep -c "S=" "$WORK/cost")" = 2 ] || { cat "$WORK/cost"; fail "rows for labels without a traced twin"; }
[ -s "$WORK/out/trace.log" ] || fail "no trace.log in OUT_DIR"
BWD_EXIT=3 bash "$SRC/scripts/device/trace.sh" "$B" > "$WORK/log" 2>&1
[ $? = 3 ] || fail "the drivers' exit status is not passed on"
echo "trace.sh: tables, trace cost per size, log kept, status passed on"
