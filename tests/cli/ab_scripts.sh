#!/usr/bin/env bash
# The device A/B drivers (scripts/device/ab_builds.sh, ab_switch.sh) with stand-in
# binaries that log how they were called: B is checked first, the runs go A B B A with
# the right binary and environment, the extra arguments reach every run, and a failing
# run gives the script's exit code.
# Usage: ab_scripts.sh <vsa-bench> <source dir>
source "$(dirname "$0")/lib.sh"
stub() {  # stub DIR NAME [EXIT]: a vsa-bench that logs "NAME VSA_AB_TEST=... args"
  mkdir -p "$1"
  cat > "$1/vsa-bench" <<STUB
#!/usr/bin/env bash
echo "$2 VSA_AB_TEST=\${VSA_AB_TEST-unset} \$*" >> "$WORK/log"
if [ "\$1" = run ]; then
  while [ \$# -gt 0 ]; do [ "\$1" = --out ] && mkdir -p "\$2" && echo '{}' > "\$2/r.json"; shift; done
fi
exit ${3:-0}
STUB
  chmod +x "$1/vsa-bench"
}
stub "$WORK/a" A
stub "$WORK/b" B

"$SRC/scripts/device/ab_builds.sh" "$WORK/a" "$WORK/b" "$WORK/out" perf --case S=4096 > "$WORK/stdout" ||
  fail "ab_builds.sh exited $?"
expected="B VSA_AB_TEST=unset run correctness
A VSA_AB_TEST=unset run perf
B VSA_AB_TEST=unset run perf
B VSA_AB_TEST=unset run perf
A VSA_AB_TEST=unset run perf"
got="$(grep ' run ' "$WORK/log" | cut -d' ' -f1-4)"
[ "$got" = "$expected" ] || fail "ab_builds.sh call order: $got"
[ "$(grep -c -- '--case S=4096' "$WORK/log")" = 4 ] || fail "extra arguments missing from the A/B runs"
[ "$(tail -1 "$WORK/log" | cut -d' ' -f3)" = compare ] || fail "no compare of the four runs at the end"

rm "$WORK/log"
VSA_AB_TEST=7 "$SRC/scripts/device/ab_switch.sh" "$WORK/b" "$WORK/out2" VSA_AB_TEST > "$WORK/stdout" ||
  fail "ab_switch.sh exited $?"
expected="B VSA_AB_TEST=1 run correctness
B VSA_AB_TEST=unset run perf
B VSA_AB_TEST=1 run perf
B VSA_AB_TEST=1 run perf
B VSA_AB_TEST=unset run perf"
got="$(grep ' run ' "$WORK/log" | cut -d' ' -f1-4)"
[ "$got" = "$expected" ] || fail "ab_switch.sh variants: $got"

stub "$WORK/bad" BAD 3
rm "$WORK/log"
"$SRC/scripts/device/ab_builds.sh" "$WORK/a" "$WORK/bad" "$WORK/out3" > "$WORK/stdout"
rc=$?
[ "$rc" = 3 ] || fail "a failing B run should give exit 3, got $rc"
# ab_variants.sh: v1 v2 v3 v3 v2 v1, each with its own settings, extra arguments after --.
rm "$WORK/log"
"$SRC/scripts/device/ab_variants.sh" "$WORK/b" "$WORK/out4" perf plain one:VSA_AB_TEST=1 two:VSA_AB_TEST=2 \
  -- --case S=4096 > "$WORK/stdout" || fail "ab_variants.sh exited $?"
expected="B VSA_AB_TEST=unset run perf
B VSA_AB_TEST=1 run perf
B VSA_AB_TEST=2 run perf
B VSA_AB_TEST=2 run perf
B VSA_AB_TEST=1 run perf
B VSA_AB_TEST=unset run perf"
got="$(grep ' run ' "$WORK/log" | cut -d' ' -f1-4)"
[ "$got" = "$expected" ] || fail "ab_variants.sh order or settings: $got"
[ "$(grep -c -- '--case S=4096' "$WORK/log")" = 6 ] || fail "ab_variants.sh: extra arguments missing"
[ "$(tail -1 "$WORK/log" | cut -d' ' -f3)" = compare ] || fail "ab_variants.sh: no compare at the end"
[ "$(tail -1 "$WORK/log" | wc -w)" = 9 ] || fail "ab_variants.sh: compare should get six reports"
"$SRC/scripts/device/ab_variants.sh" "$WORK/b" "$WORK/out5" perf only-one > /dev/null 2>&1
[ $? = 2 ] || fail "ab_variants.sh with one variant should exit 2"
stub "$WORK/bad2" BAD 4
"$SRC/scripts/device/ab_variants.sh" "$WORK/bad2" "$WORK/out6" perf x y:VSA_AB_TEST=1 > /dev/null
rc=$?
[ "$rc" = 4 ] || fail "a failing run should give ab_variants.sh exit 4, got $rc"

echo "ab_builds.sh, ab_switch.sh and ab_variants.sh: order, environment, arguments and exit codes as documented"
