# `run --junit`, `--metrics`, `--jsonl` (issue 20): what CI and monitoring read, checked
# by real parsers: Python's xml.etree for JUnit, prometheus_client's text-format parser
# (PyPI, installed into .tools/venv by scripts/test.sh) for the textfile. A run with a
# PASS, a FAIL (a planted stray event) and SKIPs, and a refused run (fail-closed).
source "$(dirname "$0")/lib.sh"
PY="${VSA_TOOLS_PYTHON:-$SRC/.tools/venv/bin/python}"
"$PY" -c "import prometheus_client" 2>/dev/null \
  || { echo "SKIP: prometheus_client is not installed in $PY (scripts/test.sh installs it)"; exit 77; }
cat >"$WORK/suite.json" <<'JSON'
{"name": "x", "defaults": {"S": 128, "D": 32, "op": "fwd", "reference": "cpu-naive"},
 "cases": [{"name": "pass|<&\"odd\u001b[31m", "backends": ["cpu-ref"]},
           {"name": "stray", "backends": ["selftest-stray-event"], "timeout_s": 20},
           {"name": "gpu", "backends": ["cuda-ref"]}]}
JSON
"$BIN" run "$WORK/suite.json" --devices none --quiet --out "$WORK/out" --junit "$WORK/j.xml" --metrics "$WORK/m.prom" \
  --jsonl "$WORK/rows.jsonl" >"$WORK/stdout" 2>&1; rc=$?
[ "$rc" -eq 1 ] || { cat "$WORK/stdout"; fail "run: exit $rc, expected 1"; }
"$PY" - "$WORK/j.xml" "$WORK/m.prom" "$WORK/rows.jsonl" <<'PY' || fail "exports"
import json, sys, xml.etree.ElementTree as ET
from prometheus_client.parser import text_string_to_metric_families
junit, prom, jsonl = sys.argv[1:4]
suites = ET.parse(junit).getroot().findall("testsuite")
assert len(suites) == 1, suites
cases = {c.get("name"): c for c in suites[0].findall("testcase")}
# The stray event ends its case before any backend result: one case-level testcase.
assert set(cases) == {"x/pass|<&\"odd\\x1b[31m [cpu-ref]", "x/stray", "x/gpu [cuda-ref]"}, set(cases)
assert not list(cases["x/pass|<&\"odd\\x1b[31m [cpu-ref]"]), "PASS testcase has a child"
failure = cases["x/stray"].find("failure")
assert failure is not None and failure.get("type") == "VSA_E_CASE_ERROR", ET.tostring(cases["x/stray"])
assert "planted stray error event" in failure.get("message"), failure.get("message")
skipped = cases["x/gpu [cuda-ref]"].find("skipped")
assert skipped is not None and skipped.get("message").startswith("VSA_E_"), ET.tostring(cases["x/gpu [cuda-ref]"])
assert suites[0].get("tests") == "3" and suites[0].get("failures") == "1" and suites[0].get("skipped") == "1"
import re  # time as the JUnit XSDs type it: a decimal, no exponent
assert all(re.fullmatch(r"[0-9]+\.[0-9]{3}", c.get("time")) for c in cases.values()), [c.get("time") for c in cases.values()]

families = {f.name: f for f in text_string_to_metric_families(open(prom).read())}
assert {"vsa_verdict", "vsa_last_run_timestamp_seconds"} <= set(families), set(families)
verdicts = {(s.labels["case"], s.labels["verdict"], s.labels["code"]) for s in families["vsa_verdict"].samples}
assert ("x/stray", "FAIL", "VSA_E_CASE_ERROR") in verdicts, verdicts
assert ("x/pass|<&\"odd\x1b[31m", "PASS", "VSA_OK") in verdicts, verdicts
assert all(s.labels["gpu_uuid"] == "cpu" for s in families["vsa_verdict"].samples)
assert families["vsa_last_run_timestamp_seconds"].samples[0].value > 1.7e9

rows = [json.loads(l) for l in open(jsonl)]
assert rows and all({"host", "gpu_uuid", "case", "backend", "verdict", "code", "kind"} <= set(r) for r in rows), rows[:2]
assert any(r["kind"] == "metric" and r["verdict"] == "PASS" for r in rows)
assert any(r["case"] == "x/stray" and r["code"] == "VSA_E_CASE_ERROR" for r in rows)
PY

# A refused run (GPUs on the PCI bus, CUDA unusable) still writes all three, saying why.
mkdir -p "$WORK/pci/0000:19:00.0"; echo 0x10de >"$WORK/pci/0000:19:00.0/vendor"; echo 0x030200 >"$WORK/pci/0000:19:00.0/class"
VSA_SYSFS_PCI_DEVICES="$WORK/pci" "$BIN" run --quiet --out "$WORK/out2" --junit "$WORK/j2.xml" --metrics "$WORK/m2.prom" \
  --jsonl "$WORK/r2.jsonl" >"$WORK/stdout" 2>&1; rc=$?
[ "$rc" -eq 4 ] || { cat "$WORK/stdout"; fail "refused run: exit $rc, expected 4"; }
"$PY" - "$WORK/j2.xml" "$WORK/m2.prom" "$WORK/r2.jsonl" <<'PY' || fail "refused-run exports"
import json, sys, xml.etree.ElementTree as ET
from prometheus_client.parser import text_string_to_metric_families
err = ET.parse(sys.argv[1]).getroot().find("testsuite/testcase/error")
assert err is not None and err.get("type") == "VSA_E_GPU_UNUSABLE", err
samples = [s for f in text_string_to_metric_families(open(sys.argv[2]).read()) if f.name == "vsa_verdict" for s in f.samples]
assert samples and samples[0].labels["code"] == "VSA_E_GPU_UNUSABLE", samples
assert json.loads(open(sys.argv[3]).readline())["code"] == "VSA_E_GPU_UNUSABLE"
PY
# An export that cannot be written (/dev/full: every write fails with ENOSPC) costs neither the
# other exports nor the summary: the table and report path still print, the failure is named,
# and the run ends with exit 4 (a result the caller asked for is missing).
if [ -c /dev/full ]; then
  "$BIN" run "$WORK/suite.json" --devices none --quiet --out "$WORK/out3" --jsonl /dev/full --junit "$WORK/j3.xml" \
    >"$WORK/stdout" 2>&1; rc=$?
  [ "$rc" -eq 4 ] || { cat "$WORK/stdout"; fail "export to /dev/full: exit $rc, expected 4"; }
  grep -qF -- "--jsonl not written: write failed: /dev/full" "$WORK/stdout" || { cat "$WORK/stdout"; fail "no export failure line"; }
  grep -qE "^(cpu|gpu)" "$WORK/stdout" && grep -qF "$WORK/out3/" "$WORK/stdout" || { cat "$WORK/stdout"; fail "summary table lost"; }
  [ -s "$WORK/j3.xml" ] || fail "--junit not written beside the failed --jsonl"
fi
echo "ok"
