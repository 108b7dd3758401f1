# `vsa-bench selftest`: every planted fault that can run here is detected, exit 0.
# Without a GPU the GPU rows read SKIP with a reason and the host rows (a worker that
# aborts, one that hangs) still run; without cuobjdump the lint rows read SKIP.
source "$(dirname "$0")/lib.sh"
"$BIN" selftest --json --hang-timeout 3 --race-runs 10 >"$WORK/rows.json" 2>"$WORK/stderr"
rc=$?
cat "$WORK/rows.json"
[ "$rc" -eq 0 ] || { cat "$WORK/stderr"; fail "exit $rc, expected 0"; }
python3 - "$WORK/rows.json" <<'PY' || fail "selftest rows"
import json, sys
d = json.load(open(sys.argv[1]))
rows = {r["fault"]: r for r in d["rows"]}
expected = ["out-of-bounds write", "barrier that never completes", "cross-warp overlap race + probe", "NaN output",
            "unwritten output row", "empty kernel image", "arrive before wait", "stream-unsafe cache, two streams",
            "host abort", "host hang"]
model = ["sm100a on the model: S MMA descriptor SBO 512", "sm100a on the model: k_full expect-tx 16 bytes short",
         "sm100a on the model: dq_empty released before wait::ld", "sm100a on the model: tcgen05.alloc of 1024 columns",
         "sm100a on the model: TMEM freed by another warp",
         "sm100a on the model: dQ accumulator over the dP^T being read",
         "sm100a on the model: softmax loads S with no tcgen05.fence::after_thread_sync",
         "sm100a on the model: dsoftmax releases S^T with no tcgen05.fence::before_thread_sync",
         "sm100a on the model: lse / Delta read from the stage being filled",
         "sm100a on the model: O stores waited for by another lane than their issuer",
         "sm100a on the model: one key block past a row's count"]
expected += model  # the planted sm100a kernels on the execution model (host rows: run everywhere it is built)
assert [r["fault"] for r in d["rows"]] == expected, [r["fault"] for r in d["rows"]]
for r in d["rows"]:
    assert r["outcome"] in ("detected", "SKIP"), r
    assert r["observed"], r
for host in ["host abort", "host hang"] + [m for m in model if "not compiled into this build" not in rows[m]["observed"]]:
    assert rows[host]["outcome"] == "detected", rows[host]
assert "signal" in rows["host abort"]["observed"], rows["host abort"]
gpu_rows = [r for r in d["rows"] if r["planted"].startswith("selftest-") and not r["fault"].startswith("host")]
if any(r["outcome"] == "SKIP" for r in gpu_rows):
    print("GPU rows skipped:", {r["fault"]: r["observed"] for r in gpu_rows if r["outcome"] == "SKIP"})
assert d["exit_code"] == 0
PY
# The table form names every row and says "detected".
"$BIN" selftest --quiet --hang-timeout 3 --race-runs 10 >"$WORK/table" 2>"$WORK/stderr" || { cat "$WORK/stderr"; fail "table run failed"; }
cat "$WORK/table"
[ "$(grep -c '^detected' "$WORK/table")" -ge 2 ] || fail "table has fewer than 2 detected rows"
grep -q "MISSED" "$WORK/table" && fail "a MISSED row"
# A GPU named by its ordinal must be usable, as `run --devices N` requires: on a host without it
# the selftest is refused with exit 4, not passed on SKIP rows (review of 2026-12-06). No node
# here has a GPU 99, with or without a GPU.
"$BIN" selftest --devices 99 --quiet >"$WORK/refused" 2>"$WORK/stderr"
rc=$?
cat "$WORK/refused"
[ "$rc" -eq 4 ] || { cat "$WORK/stderr"; fail "--devices 99: exit $rc, expected 4"; }
grep -q '^not run: --devices 99 asked for a GPU, but ' "$WORK/refused" || fail "--devices 99: no refusal line"
"$BIN" selftest --devices 99 --json >"$WORK/refused.json" 2>/dev/null
python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
assert d['exit_code'] == 4 and d['rows'] == [] and d['refusal'].startswith('--devices 99 asked for a GPU'), d
" "$WORK/refused.json" || fail "--devices 99 --json"
echo "ok"
