#!/usr/bin/env bash
# scripts/device/locality.sh with the real vsa-bench (no GPU here: its cases skip) and a
# stand-in ncu writing the raw CSV page: the suite file parses and runs, the ncu rows
# come back as the six metrics asked for (not every device attribute), and the suite
# run's exit code is the script's.
# Usage: locality_script.sh <vsa-bench> <source dir>
source "$(dirname "$0")/lib.sh"
mkdir -p "$WORK/build"
cp "$BIN" "$WORK/build/vsa-bench"
cat > "$WORK/ncu" <<'FAKE'
#!/usr/bin/env bash
echo '==PROF== Connected to process 1'
echo '"ID","Kernel Name","device__attribute_chip","dram__bytes_read.sum","gpu__time_duration.sum","lts__t_sector_hit_rate.pct"'
echo '"","","","byte","ns","%"'
echo '"0","forward_kernel","384","1,275,822,080","7,031,456","96.25"'
FAKE
chmod +x "$WORK/ncu"
NCU="$WORK/ncu" bash "$SRC/scripts/device/locality.sh" "$WORK/build" "$WORK/out" > "$WORK/log" 2>&1
status=$?
cat "$WORK/log"
[ "$status" = 0 ] || fail "exit $status with every case skipped"
grep -q "^run locality: exit 0" "$WORK/log" || fail "the suite run's exit line is missing"
grep -q "^| locality/kv32MiB/S=65536,H=8 | sm90a | SKIP" "$WORK/log" || fail "the suite's table rows are missing"
grep -q "^S=65536,H=8,again dram__bytes_read.sum=1,275,822,080 byte gpu__time_duration.sum=7,031,456 ns lts__t_sector_hit_rate.pct=96.25 %" \
  "$WORK/log" || fail "ncu row for S=65536 not summarised"
grep -q "device__attribute" "$WORK/log" && fail "device attributes must be left out"
echo "ok"
