#!/usr/bin/env bash
# Issue 18, finding 1: role code reaches sm100a_ptx.cuh's synchronising instructions only
# through the protocol cursor. Clean on the real tree; a planted raw call in a role file
# (a scratch copy) must be reported with its file and line.
source "$(dirname "$0")/lib.sh"
CHECK="$SRC/scripts/sm100a/detail_callers.py"

python3 "$CHECK" "$SRC" >"$WORK/clean.txt" 2>&1 || { cat "$WORK/clean.txt"; fail "detail callers on the real tree"; }

mkdir -p "$WORK/tree/scripts" "$WORK/tree/kernels"
cp -r "$SRC/scripts/sm100a" "$WORK/tree/scripts/"
cp -r "$SRC/kernels/sm100a" "$WORK/tree/kernels/"
# The seed's bug class, written the old way: a raw wait beside the step.
python3 - "$WORK/tree/kernels/sm100a/bwd_dq_reduce.cuh" <<'PY' || fail "plant: the line it rewrites is gone"
import sys
p = sys.argv[1]; s = open(p).read()
old = "    auto c4 = wait_ld(c3, n, steps, r);"
assert old in s
open(p, "w").write(s.replace(old, "    ::vsa::sm100a::detail::tmem_wait_ld();\n" + old, 1))
PY
python3 "$CHECK" "$WORK/tree" >"$WORK/planted.txt" 2>&1 && { cat "$WORK/planted.txt"; fail "planted raw call not reported"; }
grep -q "kernels/sm100a/bwd_dq_reduce.cuh:[0-9]*: tmem_wait_ld called outside the protocol cursor" "$WORK/planted.txt" \
  || { cat "$WORK/planted.txt"; fail "planted raw call reported without its file and line"; }
echo "OK: $(tail -1 "$WORK/clean.txt"); the planted raw call is reported"
