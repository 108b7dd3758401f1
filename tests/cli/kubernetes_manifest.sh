# The Kubernetes Job (scripts/kubernetes/vsa-bench-job.yaml) parsed as YAML (PyPI pyyaml,
# installed into .tools/venv by scripts/test.sh): a deadline, a TTL, a podFailurePolicy
# whose exit codes are vsa-bench's verdicts (app/model/exit_codes.hpp) and fail the index
# without a retry, disruptions ignored, one pod per node, and a README that says how to
# cover every node.
source "$(dirname "$0")/lib.sh"
PY="${VSA_TOOLS_PYTHON:-$SRC/.tools/venv/bin/python}"
"$PY" -c "import yaml" 2>/dev/null || { echo "SKIP: pyyaml is not installed in $PY (scripts/test.sh installs it)"; exit 77; }
"$PY" - "$SRC/scripts/kubernetes/vsa-bench-job.yaml" "$SRC/app/model/exit_codes.hpp" "$SRC/scripts/kubernetes/README.md" <<'PY' \
  || fail "manifest"
import re, sys, yaml
manifest, exit_codes, readme = sys.argv[1:4]
docs = [d for d in yaml.safe_load_all(open(manifest)) if d]
jobs = [d for d in docs if d.get("kind") == "Job"]
assert len(jobs) == 1, [d.get("kind") for d in docs]
spec = jobs[0]["spec"]
assert isinstance(spec.get("activeDeadlineSeconds"), int) and spec["activeDeadlineSeconds"] > 0, spec
assert isinstance(spec.get("ttlSecondsAfterFinished"), int) and spec["ttlSecondsAfterFinished"] > 0, spec
pod = spec["template"]["spec"]
assert pod["restartPolicy"] == "Never", "podFailurePolicy needs restartPolicy Never"
assert spec.get("backoffLimitPerIndex") == 0 and spec.get("completionMode") == "Indexed", spec
rules = spec["podFailurePolicy"]["rules"]
on_codes = [r for r in rules if "onExitCodes" in r]
assert len(on_codes) == 1 and on_codes[0]["action"] == "FailIndex", rules
codes = on_codes[0]["onExitCodes"]
assert codes["operator"] == "In" and codes["containerName"] in [c["name"] for c in pod["containers"]], codes
# Every non-zero exit code vsa-bench defines is a verdict, and only those.
defined = {int(v) for v in re.findall(r"kExit\w+ = (\d+)", open(exit_codes).read())} - {0}
assert defined and set(codes["values"]) == defined, (codes["values"], defined)
assert any(r["action"] == "Ignore" and any(c["type"] == "DisruptionTarget" for c in r.get("onPodConditions", []))
           for r in rules), rules
terms = pod["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
assert any(t["topologyKey"] == "kubernetes.io/hostname" for t in terms), terms
text = open(readme).read()
for needed in ("activeDeadlineSeconds", "ttlSecondsAfterFinished", "podFailurePolicy", "one Job per node pool",
               "DaemonSet"):
    assert needed in text, f"README.md does not mention {needed}"
print("manifest ok:", spec["activeDeadlineSeconds"], spec["ttlSecondsAfterFinished"], codes["values"])
PY
echo "ok"
