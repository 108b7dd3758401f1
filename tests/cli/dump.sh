# `vsa-bench dump`: a smoke case becomes .npy files + case.json (headers checked with the
# standard library); bad names and oversized cases exit 2 with the reason; --no-reference
# leaves the outputs out. Where python has numpy ($VSA_PYTHON, else .tools/torch-venv, else
# python3), the files are loaded and O and lse are recomputed from the dumped inputs and index lists.
source "$(dirname "$0")/lib.sh"
PY="$(peer_python)"
CASE="smoke/cpu-ref"  # B=1 H=2 S=512 D=64, top-k 50%

"$BIN" dump --case "$CASE" --out "$WORK/d" >"$WORK/out" 2>"$WORK/err"; rc=$?
[ "$rc" -eq 0 ] || { cat "$WORK/out" "$WORK/err"; fail "dump exit $rc"; }
grep -q "dumped \"$CASE\"" "$WORK/out" || { cat "$WORK/out"; fail "no summary line"; }
for f in q k v do q2k_idx q2k_num k2q_idx k2q_num vbs o lse dq dk dv; do
  [ -s "$WORK/d/$f.npy" ] || fail "missing $f.npy"
done
[ "$(json_get "$WORK/d/case.json" "d['schema']")" = "vsa-bench/case-dump" ] || fail "case.json schema"
[ "$(json_get "$WORK/d/case.json" "d['spec']['name']")" = "$CASE" ] || fail "case.json spec name"
[ "$(json_get "$WORK/d/case.json" "d['reference']['backend']")" = "cpu-ref" ] || fail "case.json reference"

# Headers and sizes, without numpy: magic, version 1.0, 64-byte aligned data, dtype, shape.
python3 - "$WORK/d" <<'PY' || fail "npy headers"
import ast, json, os, struct, sys
d = sys.argv[1]
meta = json.load(open(os.path.join(d, "case.json")))
sizes = {"uint16": 2, "int32": 4, "float32": 4}
descr = {"uint16": "<u2", "int32": "<i4", "float32": "<f4"}
for name, entry in meta["files"].items():
    raw = open(os.path.join(d, entry["file"]), "rb").read()
    assert raw[:6] == b"\x93NUMPY" and raw[6:8] == b"\x01\x00", name
    (hlen,) = struct.unpack("<H", raw[8:10])
    assert (10 + hlen) % 64 == 0, (name, hlen)
    header = ast.literal_eval(raw[10:10 + hlen].decode("latin1"))
    assert header["descr"] == descr[entry["dtype"]] and header["fortran_order"] is False, (name, header)
    assert list(header["shape"]) == entry["shape"], (name, header, entry)
    n = 1
    for x in entry["shape"]:
        n *= x
    assert len(raw) == 10 + hlen + n * sizes[entry["dtype"]], name
assert meta["files"]["q"]["shape"] == [1, 2, 512, 64], meta["files"]["q"]
PY

if "$PY" -c "import numpy" 2>/dev/null; then
  "$PY" - "$WORK/d" <<'PY' || fail "the dumped outputs are not the attention of the dumped inputs"
import json, math, os, sys
import numpy as np
d = sys.argv[1]
meta = json.load(open(os.path.join(d, "case.json")))
a = {n: np.load(os.path.join(d, e["file"])) for n, e in meta["files"].items()}
for n, e in meta["files"].items():
    assert a[n].dtype == np.dtype(e["dtype"]) and list(a[n].shape) == e["shape"], n
f32 = lambda bits: (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
q, k, v = f32(a["q"]), f32(a["k"]), f32(a["v"])
B, H, S, D = q.shape
blk = meta["shape"]["blk"]
scale = 1 / math.sqrt(D)
o = np.zeros_like(q); lse = np.full((B, H, S), -np.inf)
for b in range(B):
    for h in range(H):
        for i in range(S // blk):
            keys = [kb * blk + p for kb in a["q2k_idx"][b, h, i, :a["q2k_num"][b, h, i]] for p in range(a["vbs"][kb])]
            if not keys:
                continue
            s = q[b, h, i * blk:(i + 1) * blk] @ k[b, h, keys].T * scale
            m = s.max(axis=1, keepdims=True)
            e = np.exp(s - m)
            o[b, h, i * blk:(i + 1) * blk] = e @ v[b, h, keys] / e.sum(axis=1, keepdims=True)
            lse[b, h, i * blk:(i + 1) * blk] = (m[:, 0] + np.log(e.sum(axis=1))) / math.log(2)
rel = lambda got, ref: np.abs(got - ref).max() / np.abs(ref).max()
assert rel(a["o"], o) < 1e-5, rel(a["o"], o)
finite = np.isfinite(lse)
assert (np.isfinite(a["lse"]) == finite).all() and rel(a["lse"][finite], lse[finite]) < 1e-5
print(f"numpy: O and lse recomputed from the dump match (rel_max {rel(a['o'], o):.2e}, {rel(a['lse'][finite], lse[finite]):.2e})")
PY
else
  echo "SKIP (part): $PY has no numpy, so the dumped O was not recomputed (set VSA_PYTHON to a python with numpy)"
fi

"$BIN" dump --case no-such-case --out "$WORK/x" >"$WORK/out" 2>"$WORK/err"; rc=$?
[ "$rc" -eq 2 ] || fail "unknown case: exit $rc, expected 2"
grep -q 'no case named "no-such-case"' "$WORK/err" || { cat "$WORK/err"; fail "error does not name the case"; }

"$BIN" dump --case "$CASE" --out "$WORK/big" --reference-limit 1000 >"$WORK/out" 2>"$WORK/err"; rc=$?
[ "$rc" -eq 2 ] || fail "over the reference limit: exit $rc, expected 2"
grep -q -- "--no-reference" "$WORK/err" || { cat "$WORK/err"; fail "the refusal does not offer --no-reference"; }
"$BIN" dump --case "$CASE" --out "$WORK/big" --reference-limit 1000 --no-reference >"$WORK/out" 2>"$WORK/err" \
  || { cat "$WORK/err"; fail "--no-reference dump failed"; }
[ -s "$WORK/big/q.npy" ] && [ ! -e "$WORK/big/o.npy" ] || fail "--no-reference: wrong files"
[ "$(json_get "$WORK/big/case.json" "d['reference']")" = "None" ] || fail "--no-reference: case.json reference"
cmp -s "$WORK/big/q.npy" "$WORK/d/q.npy" || fail "the same case dumped twice differs"
# Dumped without outputs over a dump with them: no earlier reference is left to be loaded as
# this dump's; a file the earlier dump did not write stays.
cp -r "$WORK/d" "$WORK/again" && touch "$WORK/again/notes.txt"
"$BIN" dump --case "$CASE" --out "$WORK/again" --no-reference >"$WORK/out" 2>"$WORK/err" || { cat "$WORK/err"; fail "dump over a dump"; }
[ ! -e "$WORK/again/o.npy" ] && [ ! -e "$WORK/again/lse.npy" ] || fail "an earlier dump's reference outputs were left behind"
[ -s "$WORK/again/q.npy" ] && [ -e "$WORK/again/notes.txt" ] || fail "dump over a dump: its inputs, or a file not of a dump, missing"
echo "ok"
