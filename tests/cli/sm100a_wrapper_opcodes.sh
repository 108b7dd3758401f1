#!/usr/bin/env bash
# Every wrapper of kernels/sm100a/sm100a_ptx.cuh compiles, for sm_100a, to the PTX instruction
# of its entry in scripts/sm100a/wrapper_opcodes.py (opcode, direction, scope), and to no
# other synchronising one; every function of the header is in that table or named as issuing
# none (those are compiled too). The execution model replaces this layer and lint cannot tell the tcgen05 fences apart
# in SASS, so nothing else reads it (review of 2026-12-06: the after-fence emitting the
# before-fence passed). Then each planted wrapper defect (a scratch copy of the real header)
# must be reported, naming the wrapper, and so must a wrapper that hands its instruction another
# value or two values swapped (the operand check).
source "$(dirname "$0")/lib.sh"
NVCC="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)"
[ -x "$NVCC" ] || { echo "SKIP: no nvcc (the CUDA toolkit builds the kernels; none at $NVCC)"; exit 77; }
CHECK="$SRC/scripts/sm100a/wrapper_opcodes.py"

python3 "$CHECK" --src "$SRC" --nvcc "$NVCC" >"$WORK/real.txt" 2>&1; rc=$?
cat "$WORK/real.txt"
[ "$rc" = 0 ] || fail "the real wrappers do not match their table (rc $rc)"
grep -q "; 0 problems$" "$WORK/real.txt" || fail "no summary line with 0 problems"

FINDINGS='^(MISMATCH|UNLISTED|GUARDED|MISSING|CALLED|OVERLOAD|DEFAULT|UNREAD|OPERANDS|OUTPUTS|UNEXPECTED|VOLATILE|ASM) '
expect_plant() {  # PLANT FINDING [more]: the plant must exit 1 with that finding ("KIND name"), and only
  # it unless a third argument says others may come with it. PEER_ARGS: --peer-tk DIR for tk- plants.
  python3 "$CHECK" --src "$SRC" --nvcc "$NVCC" ${PEER_ARGS:-} --plant "$1" >"$WORK/$1.txt" 2>&1; rc=$?
  [ "$rc" = 1 ] || { cat "$WORK/$1.txt"; fail "plant $1: exit $rc, expected 1"; }
  grep -Eq "^$2" "$WORK/$1.txt" || { cat "$WORK/$1.txt"; fail "plant $1 did not report $2"; }
  [ $# -gt 2 ] || [ "$(grep -Ec "$FINDINGS" "$WORK/$1.txt")" = 1 ] || { cat "$WORK/$1.txt"; fail "plant $1: more than one finding"; }
  echo "plant $1: $(grep -E "^$2" "$WORK/$1.txt")"
}
expect_plant after-fence-as-before "MISMATCH tc_fence_after_sync:"
expect_plant wait-ld-as-st "MISMATCH tmem_wait_ld:"
expect_plant arrive-expect-tx-as-arrive "MISMATCH mbar_arrive_expect_tx:"
expect_plant commit-group-dropped "MISMATCH tma_store_commit:"
expect_plant new-wrapper-unlisted "UNLISTED tc_fence_unlisted:"
# Found by the review of this check: a second instruction after the first inline asm block, a
# fence issued by one thread only, an instruction hidden in a function listed as issuing none.
expect_plant try-wait-twice "MISMATCH mbar_try_wait:"
expect_plant guarded-fence "GUARDED tc_fence_after_sync:"
expect_plant wait-in-compiler-barrier "MISMATCH keep_after_wait:" more
# And by the second review: two instructions in one asm string, a helper left out of line (its
# .func belongs to no kernel), an overload the table does not call, a wrapper made by a macro.
expect_plant two-per-asm-string "MISMATCH named_barrier_sync:"
expect_plant noinline-helper "CALLED" more
expect_plant overload "OVERLOAD tc_fence_after_sync:"
expect_plant macro-wrapper "UNREAD"
# Operands: each input traced back to the wrapper kernel's parameter (moves and address-space
# conversions only), in the order the ISA's syntax gives them.
expect_plant barrier-offset "OPERANDS mbar_arrive:"
expect_plant load-coords-swapped "OPERANDS tma_load_2d:"
expect_plant mma-descriptors-swapped "OPERANDS umma_bf16_ss:"
expect_plant bf16-halves-swapped "OPERANDS pack_bf16x2:"
expect_plant wait-read-allows-one "OPERANDS tma_store_wait_read:"
# Found by the review of the operand check: a state space or width lost on the way, and results
# (stores of a returned value or loaded registers, a wait loop's back edge) not followed.
expect_plant generic-address "OPERANDS mbar_arrive:"
expect_plant descriptor-cut "OPERANDS umma_bf16_ss:"
expect_plant try-wait-negated "OUTPUTS mbar_try_wait:"
expect_plant wait-parity-flips "OPERANDS mbar_wait:"
expect_plant load-reversed "OUTPUTS tmem_load_32cols:"
expect_plant smem-addr-unconverted "OUTPUTS smem_addr:"
# And by the second review: what a wait loop does after its wait, asm the compiler may merge or
# move memory across, statements outside the table's families, a count made a bool.
expect_plant wait-spins-stale "OUTPUTS mbar_wait:"
expect_plant try-wait-not-volatile "ASM mbar_try_wait:" more
expect_plant barrier-no-clobber "ASM named_barrier_sync:"
expect_plant keep-input-only "ASM keep_after_wait:"
expect_plant volatile-store-after-init "UNEXPECTED mbar_init:"
expect_plant fence-exit "UNEXPECTED tc_fence_after_sync:" more
expect_plant count-as-bool "OPERANDS mbar_init:"
expect_plant sleep-never-ends "OUTPUTS sleep_ns:" more
# And by the third: a back edge that lands on a jump out, a return when the wait completed, an
# acquire load among the harness's plain ones, `__asm__` without a clobber.
expect_plant wait-back-edge-to-exit "OUTPUTS mbar_wait:"
expect_plant wait-returns-on-success "OUTPUTS mbar_wait:"
expect_plant acquire-load-added "UNEXPECTED bulk_reduce_add_f32:"
expect_plant underscore-asm-no-clobber "ASM named_barrier_sync:"
# And by a review of the source reader: a digit separator that hid the asm after it, a macro
# standing for __device__, an asm in a macro.
expect_plant digit-separator-hides-asm "ASM named_barrier_sync:"
expect_plant device-macro-wrapper "UNREAD tc_store_unlisted:" more
expect_plant asm-in-macro "ASM VSA_BAR_SYNC:" more
# And rewrites that mean the same (hand-written asm for CCCL, the bool as a 0/1 register,
# ThunderKittens' loop shape, spellings the ISA defines as one instruction, a parenthesis inside
# an asm template, a raw-string template over several lines, an asm inside `if constexpr`) pass.
for same in hand-asm-arrive hand-asm-mma wait-other-loop-shape arrive-spelled-out barrier-sync-aligned \
    paren-in-asm-template raw-string-template asm-in-if-constexpr; do
  python3 "$CHECK" --src "$SRC" --nvcc "$NVCC" --plant "$same" >"$WORK/$same.txt" 2>&1 \
    || { cat "$WORK/$same.txt"; fail "the same-meaning rewrite $same was reported"; }
  echo "rewrite $same: $(tail -1 "$WORK/$same.txt")"
done

# Quiet on code nobody here wrote: ThunderKittens' own sm_100a wrappers, read the same way
# (scripts/peers/fetch_tk_blackwell.sh fetches them; it needs the network or a mirror).
TK="${VSA_PEER_TK:-$SRC/.peers/thunderkittens_sm100}"
if [ -f "$TK/include/kittens.cuh" ]; then
  python3 "$CHECK" --nvcc "$NVCC" --peer-tk "$TK" >"$WORK/peer.txt" 2>&1; rc=$?
  cat "$WORK/peer.txt"
  [ "$rc" = 0 ] || fail "the check reported ThunderKittens' wrappers (rc $rc)"
  grep -q "wrappers read; 0 problems$" "$WORK/peer.txt" || fail "no peer summary with 0 problems"
  # And each defect planted in a copy of those headers is reported.
  PEER_ARGS="--peer-tk $TK"
  expect_plant tk-mma-descriptors-swapped "OPERANDS st_st:"
  expect_plant tk-accumulate-inverted "OPERANDS st_st:"
  expect_plant tk-commit-without-cvta "OPERANDS tensor_commit:"
  expect_plant tk-wait-inverted "OUTPUTS wait:"
  expect_plant tk-wait-spins-stale "OUTPUTS wait:"
  expect_plant tk-arrive-count-dropped "OPERANDS arrive_count:"
  expect_plant tk-after-fence-as-before "MISMATCH tensor_after_thread_sync:"
  expect_plant tk-init-count-as-bool "OPERANDS init_semaphore:"
  PEER_ARGS=""
else
  echo "peer run skipped: no ThunderKittens headers at $TK (scripts/peers/fetch_tk_blackwell.sh, or set VSA_PEER_TK)"
fi
echo "PASS"
