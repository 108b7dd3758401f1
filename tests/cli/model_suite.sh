# The built-in `model` suite: the sm100a kernels on the host execution model PASS against
# cpu-ref on a machine without GPUs, every case, both model backends.
source "$(dirname "$0")/lib.sh"
need_backend sm100a-blk64@model
# The suite's three schedules per op (seeds 1..3): interleavings and async completion points differ.
"$BIN" run model --devices none --out "$WORK/out" --label ci >"$WORK/stdout" 2>"$WORK/stderr"
rc=$?
cat "$WORK/stdout"
[ "$rc" -eq 0 ] || { cat "$WORK/stderr"; fail "exit $rc, expected 0"; }
report="$(ls "$WORK"/out/ci-*.json | head -n1)" || fail "no report written"
verdicts="$(json_get "$report" "sorted(set((b['backend'], b['verdict']) for c in d['cases'] for b in c['backends']))")"
echo "$verdicts"
case "$verdicts" in *"'sm100a-blk64@model', 'PASS'"*) ;; *) fail "blk64 model backend did not PASS";; esac
case "$verdicts" in *"'sm100a-blk128@model', 'PASS'"*) ;; *) fail "blk128 model backend did not PASS";; esac
case "$verdicts" in *FAIL*|*SKIP*|*FAULT*|*HANG*) fail "a model case did not PASS";; esac
echo "ok"
