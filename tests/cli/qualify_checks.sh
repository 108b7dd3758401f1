# Node qualification without a GPU (docs/qualify.md): the committed speed-floor table is
# what `vsa-bench floors` makes from the reports it names; a CPU-only qualify run records
# what @fast became; `fleet` names GPUs by host and UUID and lists failed and slow hosts as
# a Slurm hostlist; bad floors tables and options are refused (exit 2) naming the input.
# The GPU half (checks in a real report) is scripts/device/qualify_check.sh.
source "$(dirname "$0")/lib.sh"

# 1. The committed table regenerates from its sources, byte for byte.
mapfile -t sources < <(python3 -c "
import json, sys
t = json.load(open(sys.argv[1]))
print(t['margin'])
for s in t['sources']: print(s['path'])" "$SRC/suites/floors/floors.json")
margin="${sources[0]}"; sources=("${sources[@]:1}")
[ "${#sources[@]}" -ge 1 ] || fail "the committed floors table names no source report"
(cd "$SRC" && "$BIN" floors "${sources[@]}" --margin "$margin") >"$WORK/floors.json" 2>"$WORK/err" \
  || { cat "$WORK/err"; fail "floors"; }
diff -u "$SRC/suites/floors/floors.json" "$WORK/floors.json" >"$WORK/diff" \
  || { head -40 "$WORK/diff"; fail "suites/floors/floors.json is not what \`vsa-bench floors ${sources[*]}\` makes"; }

# 2. Bad input names the file; a report without timings yields no floor (exit 1).
"$BIN" floors "$WORK/missing.json" >"$WORK/out" 2>&1; rc=$?
[ "$rc" -eq 2 ] && grep -q "missing.json" "$WORK/out" || { cat "$WORK/out"; fail "floors on a missing file: exit $rc"; }
"$BIN" floors "$SRC/results/baselines/h200-correctness.json" >"$WORK/out" 2>&1; rc=$?
[ "$rc" -eq 1 ] || { cat "$WORK/out"; fail "floors from a report without timings must exit 1, got $rc"; }
echo '{"schema": "vsa-bench/floors", "schema_version": 1, "margin": 0.1, "floors": [{"gpu": {}}]}' >"$WORK/bad.json"
"$BIN" run qualify --devices none --floors "$WORK/bad.json" --out "$WORK/r0" >"$WORK/out" 2>&1; rc=$?
[ "$rc" -eq 2 ] && grep -q 'bad.json: $.floors\[0\]' "$WORK/out" || { cat "$WORK/out"; fail "bad --floors: exit $rc"; }
# A --floors file that cannot be read is named, and refused even where node checks are off.
"$BIN" run smoke --devices none --floors "$WORK/missing.json" --out "$WORK/r0" >"$WORK/out" 2>&1; rc=$?
[ "$rc" -eq 2 ] && grep -qF -- "--floors $WORK/missing.json: cannot read" "$WORK/out" \
  || { cat "$WORK/out"; fail "missing --floors without node checks: exit $rc"; }
"$BIN" run qualify --devices none --node-checks sometimes --out "$WORK/r0" >"$WORK/out" 2>&1; rc=$?
[ "$rc" -ne 0 ] && grep -q "node-checks" "$WORK/out" || { cat "$WORK/out"; fail "bad --node-checks accepted"; }
# --require-floors without node checks would require nothing: refused, saying how to turn them on.
"$BIN" run smoke --devices none --require-floors --out "$WORK/r0" >"$WORK/out" 2>&1; rc=$?
[ "$rc" -eq 2 ] && grep -qF -- "--require-floors needs the node checks" "$WORK/out" \
  || { cat "$WORK/out"; fail "--require-floors without node checks: exit $rc"; }
# ... and with them, a node without a GPU has no speed to judge: FAIL, exit 1, in the report's checks.
"$BIN" run qualify --devices none --require-floors --quiet --out "$WORK/rf" >"$WORK/out" 2>&1; rc=$?
[ "$rc" -eq 1 ] || { cat "$WORK/out"; fail "--require-floors without a GPU: exit $rc, expected 1"; }
[ "$(json_get "$(ls "$WORK"/rf/*.json)" "[(c['name'], c['verdict'], c['code']) for c in d['checks']]")" = \
  "[('floor (any)', 'FAIL', 'VSA_E_NO_FLOOR')]" ] || fail "--require-floors without a GPU: the report's checks"

# 3. A CPU-only qualify run: @fast resolved, recorded, every fast backend SKIPs with its reason.
"$BIN" run qualify --devices none --out "$WORK/run" --label q --quiet >"$WORK/out" 2>&1 || { cat "$WORK/out"; fail "run qualify"; }
report="$(ls "$WORK"/run/*.json)"
python3 - "$report" <<'PY' || fail "qualify report: @fast"
import json, sys
d = json.load(open(sys.argv[1]))
aliases = d["backend_aliases"]
assert len(aliases) == 1 and aliases[0]["alias"] == "@fast", aliases
assert aliases[0]["rule"].startswith("no GPU"), aliases
fast = [c for c in d["cases"] if c["name"].startswith("qualify/fast/")]
assert len(fast) == 6, [c["name"] for c in d["cases"]]
for c in fast:
    names = [b["backend"] for b in c["backends"]]
    assert "@fast" not in c["spec"]["backends"], c["spec"]["backends"]
    assert "sm90a" in names and "sm100a-blk64" in names, (c["name"], names)
    for b in c["backends"]:
        if b["backend"] != "cuda-ref":
            assert b["verdict"] == "SKIP" and b["reason"], b
assert d["checks"] == [] and d["health"] is None, (d["checks"], d["health"])
PY
"$BIN" run qualify --devices none --backends sm90a-det --out "$WORK/narrow" --quiet >"$WORK/out" 2>&1 \
  || { cat "$WORK/out"; fail "run qualify --backends sm90a-det"; }
python3 - "$(ls "$WORK"/narrow/*.json)" <<'PY' || fail "--backends narrows @fast"
import json, sys
d = json.load(open(sys.argv[1]))
fast = [c for c in d["cases"] if c["name"].startswith("qualify/fast/")]
assert fast and all([b["backend"] for b in c["backends"]] == ["sm90a-det"] for c in fast), [
    (c["name"], [b["backend"] for b in c["backends"]]) for c in fast]
PY

# 4. fleet: GPUs by host and UUID; failed and slow hosts as one Slurm hostlist.
python3 - "$report" "$WORK/fleet" <<'PY' || fail "synthesize a fleet"
import copy, json, os, sys
from synthetic_timing import timing
src, out = sys.argv[1], sys.argv[2]
os.makedirs(out)
base = json.load(open(src))
case = next(c for c in base["cases"] if c["name"] == "qualify/fast/perf-16k")
def gpu(host, uuid, tflops, launcher=None, check=None):
    d = copy.deepcopy(base)
    d["node"]["hostname"] = host
    if launcher: d["node"]["launcher"] = launcher
    d["device"] = {"name": "NVIDIA H200", "cuda_ordinal": 0, "uuid": uuid, "pci_bus_id": "00000000:19:00.0"}
    c = next(c for c in d["cases"] if c["name"] == case["name"])
    b = next(b for b in c["backends"] if b["backend"] == "sm90a")
    b.update(verdict="PASS", reason="")
    b["timings"] = [timing("fwd", c["flops_fwd"], tflops, 0.001)]
    if check: d["checks"] = [check]
    json.dump(d, open(os.path.join(out, f"{host}-{uuid}.json"), "w"))
slow_check = {"name": "floor qualify/fast/perf-16k sm90a fwd", "kind": "floor", "verdict": "FAIL",
              "code": "VSA_E_SLOW_NODE", "reason": "measured 500 TFLOPS is below the floor 540", "value": 500,
              "threshold": {"floor": 540}}
gpu("n1", "GPU-a", 600); gpu("n1", "GPU-b", 601)       # one host, both "gpu0" under per-task binding
gpu("n2", "GPU-c", 599, check=slow_check)                # failed a node check
gpu("n3", "GPU-d", 420, launcher={"kind": "slurm", "node_name": "r3n3"})  # slow outlier, placed by Slurm
gpu("n4", "GPU-e", 602)
PY
"$BIN" fleet "$WORK/fleet" >"$WORK/fleet.md"; rc=$?
[ "$rc" -eq 1 ] || { cat "$WORK/fleet.md"; fail "fleet with a failed node check must exit 1, got $rc"; }
grep -q "| q n1 GPU-a |" "$WORK/fleet.md" && grep -q "| q n1 GPU-b |" "$WORK/fleet.md" \
  || { cat "$WORK/fleet.md"; fail "fleet does not name GPUs by host and UUID"; }
grep -q "VSA_E_SLOW_NODE" "$WORK/fleet.md" || { cat "$WORK/fleet.md"; fail "the failed node check is not a problem"; }
"$BIN" fleet "$WORK/fleet" --failed-hosts >"$WORK/hosts"; rc=$?
[ "$rc" -eq 1 ] || fail "--failed-hosts keeps the exit code, got $rc"
[ "$(cat "$WORK/hosts")" = "n2,r3n3" ] || { cat "$WORK/hosts"; fail "--failed-hosts: expected n2,r3n3"; }
echo "qualify_checks: floors regenerate, @fast recorded, fleet names and failed hosts ok"
