#!/usr/bin/env bash
# Every wrapper of kernels/sm100a/sm100a_ptx.cuh compiles, for sm_100a, to the PTX instruction
# of its entry in scripts/sm100a/wrapper_opcodes.py (opcode, direction, scope), and to no
# other synchronising one; every function of the header is in that table or named as issuing
# none (those are compiled too). The execution model replaces this layer and lint cannot tell the tcgen05 fences apart
# in SASS, so nothing else reads it (review of 2026-12-06: the after-fence emitting the
# before-fence passed). Then each planted wrapper defect (a scratch copy of the real header)
# must be reported, naming the wrapper.
source "$(dirname "$0")/lib.sh"
NVCC="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)"
[ -x "$NVCC" ] || { echo "SKIP: no nvcc (the CUDA toolkit builds the kernels; none at $NVCC)"; exit 77; }
CHECK="$SRC/scripts/sm100a/wrapper_opcodes.py"

python3 "$CHECK" --src "$SRC" --nvcc "$NVCC" >"$WORK/real.txt" 2>&1; rc=$?
cat "$WORK/real.txt"
[ "$rc" = 0 ] || fail "the real wrappers do not match their table (rc $rc)"
grep -q "; 0 problems$" "$WORK/real.txt" || fail "no summary line with 0 problems"

expect_plant() {  # PLANT WRAPPER: the plant must exit 1 and name that wrapper, and only it
  python3 "$CHECK" --src "$SRC" --nvcc "$NVCC" --plant "$1" >"$WORK/$1.txt" 2>&1; rc=$?
  [ "$rc" = 1 ] || { cat "$WORK/$1.txt"; fail "plant $1: exit $rc, expected 1"; }
  grep -Eq "^(MISMATCH|UNLISTED|GUARDED) $2:" "$WORK/$1.txt" || { cat "$WORK/$1.txt"; fail "plant $1 did not name $2"; }
  [ "$(grep -Ec '^(MISMATCH|UNLISTED|GUARDED|MISSING) ' "$WORK/$1.txt")" = 1 ] || { cat "$WORK/$1.txt"; fail "plant $1: more than one finding"; }
  echo "plant $1: $(grep -E '^(MISMATCH|UNLISTED|GUARDED) ' "$WORK/$1.txt")"
}
expect_plant after-fence-as-before tc_fence_after_sync
expect_plant wait-ld-as-st tmem_wait_ld
expect_plant arrive-expect-tx-as-arrive mbar_arrive_expect_tx
expect_plant commit-group-dropped tma_store_commit
expect_plant new-wrapper-unlisted tc_fence_unlisted
# Found by the review of this check: a second instruction after the first inline asm block, a
# fence issued by one thread only, an instruction hidden in a function listed as issuing none.
expect_plant try-wait-twice mbar_try_wait
expect_plant guarded-fence tc_fence_after_sync
expect_plant wait-in-compiler-barrier keep_after_wait
echo "PASS"
