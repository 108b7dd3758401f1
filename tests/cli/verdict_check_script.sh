#!/usr/bin/env bash
# scripts/device/verdict_check.sh against a stand-in vsa-bench: every step is run, its
# expected and actual exit codes are in the summary, and a step whose code differs from
# the expected one reads "no" (so a fail-open node cannot look clean in the table).
# Usage: verdict_check_script.sh <vsa-bench> <source dir>
source "$(dirname "$0")/lib.sh"
mkdir -p "$WORK/build"
# The stand-in answers as a correct node would, except that it ignores --expect-gpus.
cat > "$WORK/build/vsa-bench" <<'FAKE'
#!/usr/bin/env bash
case " $* " in
  *" --probe fwd.red_s=100 "*) exit 2 ;;
  *" --devices 7 "*) exit 2 ;;
  *" --devices none "*) exit 0 ;;
esac
[ "${CUDA_VISIBLE_DEVICES-unset}" = "" ] && exit 4
for a in "$@"; do case "$a" in *.xml|*.prom|*.jsonl) echo "line of $a" > "$a" ;; esac; done
exit 0
FAKE
chmod +x "$WORK/build/vsa-bench"
bash "$SRC/scripts/device/verdict_check.sh" "$WORK/build" "$WORK/out" > "$WORK/log" 2>&1 || fail "exit $?"
for step in qualify cuda_hidden cuda_hidden_cpu_only unknown_probe devices_absent; do
  grep -q "^$step  *[0-9]  *[0-9]  *yes$" "$WORK/log" || { cat "$WORK/log"; fail "$step should read yes"; }
done
grep -q "^expect_two_gpus  *4  *0  *no$" "$WORK/log" || { cat "$WORK/log"; fail "a fail-open --expect-gpus must read no"; }
grep -q "line of .*qualify.prom" "$WORK/log" || { cat "$WORK/log"; fail "the standard outputs are not shown"; }
echo "ok"
