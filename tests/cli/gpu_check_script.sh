#!/usr/bin/env bash
# scripts/device/gpu_check.sh against a stand-in vsa-bench that records its calls: quick
# runs no perf, full adds stability, perf and sustained, every step's exit code (and the GPU
# tests' counts) is in the summary, and everything written is packed as OUT_DIR.tgz beside
# OUT_DIR (also with a trailing slash or a space in its name).
# Usage: gpu_check_script.sh <vsa-bench> <source dir>
source "$(dirname "$0")/lib.sh"
mkdir -p "$WORK/build"
cat > "$WORK/build/vsa-bench" <<FAKE
#!/usr/bin/env bash
echo "\$*" >> "$WORK/calls"
# A report where a run would write one, so the archive has something to hold.
out=""; prev=""
for a in "\$@"; do [ "\$prev" = --out ] && out="\$a"; prev="\$a"; done
[ "\$1" = run ] && [ -n "\$out" ] && mkdir -p "\$out" && echo '{}' > "\$out/\$2.json"
# The codes the script expects of its "expect" steps: the fault suite 4, the regression gate 3.
case " \$* " in *" --label fault "*) exit 4 ;; esac
[ "\$1" = compare ] && exit 3
exit 0
FAKE
chmod +x "$WORK/build/vsa-bench"
# A stand-in GPU test binary: its counts must reach the summary and its log the archive.
mkdir -p "$WORK/build/tests"
printf '#!/usr/bin/env bash\necho "[  PASSED  ] 7 tests."\necho "[  SKIPPED ] 2 tests."\n' > "$WORK/build/tests/vsa_device_tests"
chmod +x "$WORK/build/tests/vsa_device_tests"
# A carried folder not yet unpacked (pack_build.sh --xz): exit 2 naming the step, before any work
# (twice a device call was spent on 127s in every step).
mkdir -p "$WORK/packed" && : > "$WORK/packed/slim.tar.xz"
bash "$SRC/scripts/device/gpu_check.sh" "$WORK/packed" "$WORK/packed-out" quick > "$WORK/packed.log" 2>&1
rc=$?
[ "$rc" -eq 2 ] || { cat "$WORK/packed.log"; fail "packed folder: exit $rc, expected 2"; }
grep -q "holds slim.tar.xz, not an unpacked build: run tar xJf" "$WORK/packed.log" || { cat "$WORK/packed.log"; fail "packed folder: no hint"; }
[ ! -e "$WORK/packed-out" ] || fail "packed folder: OUT_DIR was made"
bash "$SRC/scripts/device/gpu_check.sh" "$WORK/build" "$WORK/quick" quick > "$WORK/log" 2>&1 || fail "quick: exit $?"
grep -q "^correctness  *0" "$WORK/log" || { cat "$WORK/log"; fail "quick: the summary lacks the correctness step"; }
grep -q "run perf" "$WORK/calls" && fail "quick must not run perf"
[ -s "$WORK/quick.tgz" ] || fail "quick: no archive beside OUT_DIR"
# Listed to a file first: with pipefail, grep -q quitting early can SIGPIPE tar and fail the test.
tar tzf "$WORK/quick.tgz" > "$WORK/listing" || fail "quick: the archive does not list"
grep -q "^quick/smoke.json$" "$WORK/listing" || fail "quick: the archive lacks what the run wrote"
grep -q "^archive: $WORK/quick.tgz" "$WORK/log" || fail "quick: the archive's path is not printed"
grep -q "^device_tests: \[  PASSED  \] 7 tests.$" "$WORK/log" || { cat "$WORK/log"; fail "quick: the GPU tests' counts are not in the summary"; }
grep -q "^quick/device_tests.log$" "$WORK/listing" || fail "quick: the archive lacks the GPU tests' log"
: > "$WORK/calls"
bash "$SRC/scripts/device/gpu_check.sh" "$WORK/build" "$WORK/full/" full > "$WORK/log" 2>&1 || fail "full: exit $?"
for suite in stability perf sustained; do
  grep -q "^run $suite " "$WORK/calls" || fail "full must run $suite"
done
grep -q "^sustained  *0" "$WORK/log" || fail "full: the summary lacks the sustained step"
[ -s "$WORK/full.tgz" ] || fail "full: a trailing slash on OUT_DIR must still give OUT_DIR.tgz"
bash "$SRC/scripts/device/gpu_check.sh" "$WORK/build" "$WORK/o ut//" quick > "$WORK/log" 2>&1 || fail "a space in OUT_DIR: exit $?"
[ -s "$WORK/o ut.tgz" ] || fail "a space in OUT_DIR: no 'o ut.tgz' beside it"
grep -q "^gpu_check: every step gave the exit code it should$" "$WORK/log" || { cat "$WORK/log"; fail "no closing verdict line"; }
# Fail-closed: one failing step (here the GPU tests) makes the script exit 1 and name it; a
# stand-in that gives the fault suite 0 instead of its expected 4 is named too.
cp -r "$WORK/build" "$WORK/bad"
printf '#!/usr/bin/env bash\necho "[  FAILED  ] 1 test, listed below:"\nexit 1\n' > "$WORK/bad/tests/vsa_device_tests"
sed -i 's/\*" --label fault "\*) exit 4/*" --label fault "*) exit 0/' "$WORK/bad/vsa-bench"
bash "$SRC/scripts/device/gpu_check.sh" "$WORK/bad" "$WORK/bad-out" quick > "$WORK/log" 2>&1
rc=$?
[ "$rc" -eq 1 ] || { cat "$WORK/log"; fail "a failing step: exit $rc, expected 1"; }
grep -q "^gpu_check: FAILED: device_tests fault_expect_4 (see the table above)$" "$WORK/log" \
  || { tail -5 "$WORK/log"; fail "a failing step is not named"; }
[ -s "$WORK/bad-out.tgz" ] || fail "a failing step: the archive must still be written"
echo "ok"
