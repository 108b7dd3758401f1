#!/usr/bin/env bash
# Issue 18, finding 1: deleting any synchronising instruction from any sm100a role file
# must fail the build. scripts/sm100a/deletions.py tries every such deletion (each cursor
# step and any raw call, one at a time, compiling the kernel translation units that
# instantiate the file, through the device pass of nvcc: the forward's role files for both
# block sizes) and exits 1 when one still compiles.
# Then the check is shown to fail: with the cursor's wait_ld step unbound (the
# pre-issue-18 marker style, planted in a scratch copy), deleting the raw
# tcgen05.wait::ld in bwd_dq_reduce.cuh compiles and must be reported UNDETECTED.
source "$(dirname "$0")/lib.sh"
NVCC="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)"
[ -x "$NVCC" ] || { echo "SKIP: no nvcc (the CUDA toolkit builds the kernels; none at $NVCC)"; exit 77; }
CHECK="$SRC/scripts/sm100a/deletions.py"

python3 "$CHECK" --src "$SRC" --nvcc "$NVCC" >"$WORK/all.txt" 2>&1; rc=$?
tail -1 "$WORK/all.txt"
[ "$rc" = 0 ] || { grep -v '^detected' "$WORK/all.txt"; fail "a deletion went undetected (or the sources do not compile): rc $rc"; }
n="$(sed -n 's/^\([0-9]*\) deletions, \1 detected, 0 undetected$/\1/p' "$WORK/all.txt")"
# 104 since issue 21 (151 before: the blk128 forward's 48 went with its forked role files).
[ -n "$n" ] && [ "$n" -ge 100 ] || fail "expected at least 100 deletions tried, all detected; got: $(tail -1 "$WORK/all.txt")"

python3 "$CHECK" --src "$SRC" --nvcc "$NVCC" --plant unbound-wait-ld --files bwd_dq_reduce.cuh >"$WORK/plant.txt" 2>&1; rc=$?
[ "$rc" = 1 ] || { cat "$WORK/plant.txt"; fail "the planted binding gap was not reported (rc $rc, expected 1)"; }
grep -q '^UNDETECTED bwd_dq_reduce.cuh:[0-9]*: delete ::vsa::sm100a::detail::tmem_wait_ld' "$WORK/plant.txt" \
  || { cat "$WORK/plant.txt"; fail "the planted raw tcgen05.wait::ld deletion is not the one reported"; }
[ "$(grep -c '^UNDETECTED' "$WORK/plant.txt")" = 1 ] || { cat "$WORK/plant.txt"; fail "the plant should leave exactly one deletion undetected"; }
echo "OK: $n deletions all break the build; the planted unbound wait_ld is reported: $(grep '^UNDETECTED' "$WORK/plant.txt")"
