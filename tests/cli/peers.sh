# scripts/peers/peers.py on a tiny dumped case: FlexAttention is checked against the dump's
# CPU reference (on the CPU here: forward only, not timed), FastVideo is skipped with its
# reason, the report is in our schema (`vsa-bench compare` and `fleet` read it), and a
# corrupted reference makes the check fail (exit 1). Needs a python with torch: $VSA_PYTHON,
# else the venv scripts/test.sh installs (.tools/torch-venv, scripts/lib/common.sh), else
# python3; skipped (77) at once without it.
source "$(dirname "$0")/lib.sh"
PY="$(peer_python)"
"$PY" -c "import torch" 2>/dev/null \
  || { echo "SKIP: $PY cannot import torch (run scripts/test.sh, or set VSA_PYTHON to a python that has it)"; exit 77; }
PEERS="$SRC/scripts/peers/peers.py"

cat >"$WORK/tiny.json" <<'JSON'
{"name": "tiny", "defaults": {"B": 1, "H": 2, "D": 64, "seed": 3, "backends": ["cpu-ref"]},
 "cases": [
   {"name": "ragged", "S": 384, "pattern": {"kind": "ragged", "density": 0.5, "zero_rows": 0.2}, "vbs": {"kind": "random"}},
   {"name": "topk", "S": 384, "D": 128, "pattern": {"kind": "topk", "density": 0.5}}
 ]}
JSON
"$BIN" dump "$WORK/tiny.json" --case tiny/ragged --out "$WORK/d" >"$WORK/out" 2>"$WORK/err" \
  || { cat "$WORK/err"; fail "dump"; }
"$BIN" dump "$WORK/tiny.json" --case tiny/topk --out "$WORK/full" >"$WORK/out" 2>"$WORK/err" \
  || { cat "$WORK/err"; fail "dump tiny/topk"; }

"$PY" "$PEERS" "$WORK/d" --device cpu --out "$WORK/peers/peers-report.json" >"$WORK/out" 2>"$WORK/err"; rc=$?
cat "$WORK/out"
[ "$rc" -eq 0 ] || { cat "$WORK/err"; fail "peers.py exit $rc"; }
R="$WORK/peers/peers-report.json"
[ "$(json_get "$R" "d['schema']")" = "vsa-bench/report" ] || fail "schema"
[ "$(json_get "$R" "d['cases'][0]['name']")" = "tiny/ragged" ] || fail "case name"
[ "$(json_get "$R" "d['cases'][0]['reference']")" = "cpu-ref (vsa-bench dump)" ] || fail "reference"
flex="[b for b in d['cases'][0]['backends'] if b['backend']=='flex-attention'][0]"
[ "$(json_get "$R" "$flex['verdict']")" = "PASS" ] || { cat "$WORK/err"; fail "flex-attention did not pass"; }
[ "$(json_get "$R" "sorted(m['tensor'] for m in $flex['metrics'])")" = "['lse', 'o']" ] || fail "flex metrics"
[ "$(json_get "$R" "max(m['rel_max'] for m in $flex['metrics']) < 1e-2")" = "True" ] || fail "flex rel_max"
json_get "$R" "$flex['reason']" | grep -q "no CPU backward" || fail "the unchecked backward is not stated"
for peer in fastvideo-triton flashinfer-vsa flex-attention-flash; do  # GPU-only peers: skipped, with the reason
  b="[b for b in d['cases'][0]['backends'] if b['backend']=='$peer'][0]"
  [ "$(json_get "$R" "$b['verdict']")" = "SKIP" ] || fail "$peer not skipped on the CPU"
  [ -n "$(json_get "$R" "$b['reason']")" ] || fail "$peer skipped without a reason"
done

# The library's rules, on the dumped tensors: a forward-only peer returning no lse is checked
# on O alone with both omissions stated; FlashInfer's backend takes only full 64-token
# blocks, head_dim 128 and 1..64 selected blocks per row, and names what a case breaks.
(cd "$SRC/scripts/peers" && "$PY" - "$WORK/d" "$WORK/full") >"$WORK/out" 2>"$WORK/err" <<'PY' || { cat "$WORK/out" "$WORK/err"; fail "peer rules"; }
import sys
import torch
import peers
from case_tensors import case_tensors, to_tensor
from dumped_case import load_dump
from flashinfer_peer import FlashInferVsaPeer
from flex_flash_peer import FlexFlashPeer
from flex_peer import FlexPeer

class OutputOnly(FlexPeer):
    lse_unavailable = "lse not returned (test peer)"
    def forward(self):
        return super().forward()[0], None
    def backward_unavailable(self, device):
        return "forward only (test peer)"

cpu = torch.device("cpu")
ragged, full = (load_dump(p) for p in sys.argv[1:])
t = case_tensors(full, cpu)
ref = {n: to_tensor(full.arrays[n], cpu) for n in ("o", "lse")}
tol = (full.spec["tolerance"]["rel_max"], full.spec["tolerance"]["rel_l2"])
p = OutputOnly(); p.prepare(t)
verdict, why, metrics, backward_checked = peers.check_peer(p, t, ref, tol, True)
assert verdict == "PASS" and [m["tensor"] for m in metrics] == ["o"] and not backward_checked, (verdict, metrics)
assert "lse not returned" in why and "forward only" in why, why

# A backward that refuses the case (the peer's backward_refused names it): the forward stands,
# checked, and the reason carries the refusal; any other error is the peer's FAULT.
class Refusing(FlexPeer):
    def backward_unavailable(self, device):
        return None
    def backward(self):
        raise self.error
    def backward_refused(self, error):
        return FlexFlashPeer.backward_refused(self, error)

p = Refusing(); p.prepare(t)
p.error = ValueError("Block sparsity expects sparse_block_size[1]=128 for kv_subtile_factor=1.")
verdict, why, metrics, backward_checked = peers.check_peer(p, t, ref, tol, True)
assert verdict == "PASS" and [m["tensor"] for m in metrics] == ["o", "lse"] and not backward_checked, (verdict, metrics)
assert "refused the case's 64-token blocks (ValueError: Block sparsity expects" in why, why
p.error = RuntimeError("illegal memory access")
try:
    peers.check_peer(p, t, ref, tol, True)
    raise AssertionError("a crash in the backward was taken for a refusal")
except RuntimeError:
    pass

# FLASH's lse in torch < 2.12 is scaled by ln 2 once too often (pytorch/pytorch#181645).
from flex_flash_peer import lse_scaled_by_ln2
assert lse_scaled_by_ln2("2.11.0+cu130") and lse_scaled_by_ln2("2.9.1")
assert not lse_scaled_by_ln2("2.12.0") and not lse_scaled_by_ln2("3.0.0a0+git1234")

fi = FlashInferVsaPeer()
assert fi.case_unsupported(t) is None, fi.case_unsupported(t)
assert "head_dim 128" in fi.case_unsupported(case_tensors(ragged, cpu))
t.vbs[-1] = 17
assert "1 of the case's 6 key blocks are padded" in fi.case_unsupported(t), fi.case_unsupported(t)
t.vbs[-1] = 64; t.q2k_num[0, 1, 2] = 0
assert "1..64 selected key blocks" in fi.case_unsupported(t), fi.case_unsupported(t)
print("peer rules ok")
PY

# Our tools read it: compare next to a vsa-bench report of the same case, fleet over both.
"$BIN" run "$WORK/tiny.json" --devices none --out "$WORK/ours" --label ours --quiet >"$WORK/out" 2>"$WORK/err" \
  || { cat "$WORK/err"; fail "run"; }
ours="$(ls "$WORK"/ours/*.json)"
"$BIN" compare "$ours" "$R" >"$WORK/out" 2>"$WORK/err"; rc=$?
[ "$rc" -eq 0 ] || { cat "$WORK/out" "$WORK/err"; fail "compare exit $rc"; }
grep -qF "| tiny/ragged | flex-attention |" "$WORK/out" || { cat "$WORK/out"; fail "compare has no flex-attention row"; }
grep -qF "| tiny/ragged | cpu-ref |" "$WORK/out" || { cat "$WORK/out"; fail "compare has no cpu-ref row"; }
cp "$ours" "$WORK/peers/"
"$BIN" fleet "$WORK/peers" >"$WORK/out" 2>"$WORK/err"; rc=$?
[ "$rc" -eq 0 ] || { cat "$WORK/out" "$WORK/err"; fail "fleet exit $rc"; }

# A wrong reference must fail the check: scale the dumped O by 1.5.
python3 - "$WORK/d/o.npy" <<'PY' || fail "corrupting o.npy"
import array, struct, sys
raw = bytearray(open(sys.argv[1], "rb").read())
start = 10 + struct.unpack("<H", raw[8:10])[0]
values = array.array("f", raw[start:])
open(sys.argv[1], "wb").write(raw[:start] + array.array("f", (x * 1.5 for x in values)).tobytes())
PY
"$PY" "$PEERS" "$WORK/d" --device cpu --peers flex-attention --out "$WORK/bad.json" >"$WORK/out" 2>"$WORK/err"; rc=$?
[ "$rc" -eq 1 ] || { cat "$WORK/out" "$WORK/err"; fail "corrupted reference: exit $rc, expected 1"; }
json_get "$WORK/bad.json" "d['cases'][0]['backends'][0]['reason']" | grep -q "^o: rel_max" || fail "FAIL reason"

# Sustained peer timing sizes its batches as app/engine/timing.cpp does (the values of
# tests/unit/model/metrics_test.cpp's SustainedPassesBatchEnoughLaunchesPerIteration).
(cd "$SRC/scripts/peers" && "$PY" - ) >"$WORK/out" 2>"$WORK/err" <<'PY' || { cat "$WORK/out" "$WORK/err"; fail "sustained sizing"; }
from measure import launches_per_iteration as n, MAX_LAUNCHES_PER_ITERATION as cap
assert n(0, 20, 0.5) == 1
assert n(2000, 20, 0.5) == 200
assert n(2001, 20, 0.5) == 201
assert n(5, 20, 30.0) == 1
assert n(2000, 20, 0.0) == cap
assert n(1e12, 20, 1e-9) == cap
PY
"$PY" "$PEERS" "$WORK/d" --device cpu --peers flex-attention --min-pass-ms -1 --out "$WORK/x.json" \
  >"$WORK/out" 2>"$WORK/err"; rc=$?
[ "$rc" -eq 2 ] && grep -q -- "--min-pass-ms" "$WORK/err" || { cat "$WORK/err"; fail "negative --min-pass-ms: exit $rc"; }

"$PY" "$PEERS" "$WORK/nowhere" --device cpu --out "$WORK/x.json" >"$WORK/out" 2>"$WORK/err"; rc=$?
[ "$rc" -eq 2 ] || fail "missing dump: exit $rc, expected 2"
"$PY" "$PEERS" "$WORK/d" --device cpu --peers nope --out "$WORK/x.json" >"$WORK/out" 2>"$WORK/err"; rc=$?
[ "$rc" -eq 2 ] || fail "unknown peer: exit $rc, expected 2"
grep -q "unknown peer" "$WORK/err" || fail "unknown peer not named"
echo "ok"
