# The console's summary says why backends were skipped (run/suite_runner.cpp, summary_table): a
# run of SKIPs must tell a missing GPU from a build without the backend.
source "$(dirname "$0")/lib.sh"
"$BIN" run smoke --devices none --quiet --out "$WORK/r" >"$WORK/out" 2>&1 || { cat "$WORK/out"; fail "run smoke"; }
grep -qE "^  SKIP [0-9]+ backend\(s\): no CUDA device$" "$WORK/out" || { cat "$WORK/out"; fail "no SKIP reason line"; }
cat >"$WORK/suite.json" <<'JSON'
{"name": "x", "cases": [{"name": "a", "S": 128, "D": 128, "backends": ["cpu-ref", "sm90a", "cuda-ref"], "reference": "cpu-naive"}]}
JSON
"$BIN" run "$WORK/suite.json" --devices none --quiet --out "$WORK/r2" >"$WORK/out2" 2>&1
python3 - "$WORK/r2" "$WORK/out2" <<'PY' || { cat "$WORK/out2"; fail "the reason line does not match the report"; }
import glob, json, sys
d = json.load(open(glob.glob(sys.argv[1] + "/*.json")[0]))
skips = [b["reason"] for c in d["cases"] for b in c["backends"] if b["verdict"] == "SKIP"]
out = open(sys.argv[2]).read()
for reason in set(skips):
    assert f"  SKIP {skips.count(reason)} backend(s): {reason[:160]}\n" in out, reason
PY
echo "ok"
