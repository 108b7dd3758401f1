#!/usr/bin/env bash
# `vsa-bench lint` on this build's own executable must be clean (issue #5: "lint clean
# on the real kernels", checked in CI), and a planted fixture must make it exit 1.
# Skips (77) where no cuobjdump can be found, saying so.
source "$(dirname "$0")/lib.sh"

"$BIN" lint --json >"$WORK/lint.json" 2>"$WORK/stderr"; rc=$?
if [ "$rc" = 2 ] && grep -qi "cuobjdump" "$WORK/stderr"; then
  echo "SKIP: no cuobjdump here ($(head -1 "$WORK/stderr"))"; exit 77
fi
[ "$rc" = 0 ] || { cat "$WORK/stderr"; head -c 2000 "$WORK/lint.json"; fail "lint of the real binary exited $rc"; }
[ "$(json_get "$WORK/lint.json" "len(d['findings'])")" = 0 ] || fail "findings on the real binary"
kernels="$(json_get "$WORK/lint.json" "len(d['kernels'])")"
[ "$kernels" -gt 0 ] || fail "no kernel images found in the binary"
# Every fast family this build compiled must be among the linted images.
for family in sm90a sm100a; do
  if "$BIN" list backends --json | python3 -c "import json,sys; sys.exit(0 if any(b['name'].startswith('$family') for b in json.load(sys.stdin)['backends']) else 1)"; then
    json_get "$WORK/lint.json" "sum('vsa::$family' in k['kernel'] for k in d['kernels'])" | grep -qv '^0$' \
      || fail "$family backend registered but none of its kernels were linted"
  fi
done

# SASS counts: every kernel has them in JSON; against itself nothing changed; against a
# fixture cubin the binary's kernels read as "only in B".
json_get "$WORK/lint.json" "all('counts' in k and 'mma' in k['counts'] for k in d['kernels'])" | grep -q True \
  || fail "kernels without SASS counts in lint --json"
"$BIN" lint --against "$BIN" "$BIN" >"$WORK/self.txt" 2>&1 || fail "lint --against itself exited $?"
grep -q "no kernel's counts changed" "$WORK/self.txt" || fail "a binary against itself shows changes"

fixture="$(dirname "$BIN")/tests/fixtures/lint_shared_arrive.cubin"
if [ -f "$fixture" ]; then
  "$BIN" lint --against "$fixture" "$BIN" >"$WORK/against.txt" 2>&1
  grep -q "only in B" "$WORK/against.txt" || fail "kernels missing from the A build are not reported"
fi
# A real defect (tcgen05.ld released before tcgen05.wait::ld); a shared load before a
# release arrive is ordered by the release and is no finding (LINT.md).
planted="$(dirname "$BIN")/tests/fixtures/lint_tmem_arrive.cubin"
if [ -f "$planted" ]; then
  "$BIN" lint "$planted" >"$WORK/planted.txt" 2>&1; rc=$?
  [ "$rc" = 1 ] || fail "planted arrive-before-wait: exit $rc, expected 1"
  grep -q "arrive-before-wait" "$WORK/planted.txt" || fail "planted finding not named"
  echo "lint: planted fixture flagged"
fi
echo "lint: $kernels kernel images, 0 findings"
