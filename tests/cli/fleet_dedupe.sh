# fleet counts each GPU once (issue 20): of several reports with the same GPU UUID (a node
# re-run after a repair), the newest stands and the older are listed as superseded. Two MIG
# instances of one GPU share its UUID and are two GPUs to the fleet (device.mig_uuid). A newer
# report supersedes only when it covers the older one's cases: a narrower re-run (--case) of a
# failed GPU leaves the failure in the fleet; an identical copy gives way to the first read.
source "$(dirname "$0")/lib.sh"
"$BIN" run --devices none --quiet --case cpu-ref/minimal-1-0 --out "$WORK/run" >"$WORK/out" 2>&1 || { cat "$WORK/out"; fail "run"; }
src="$(ls "$WORK"/run/*.json)"
mkdir -p "$WORK/fleet"
python3 - "$src" "$WORK/fleet" <<'PY' || fail "python"
import json, sys
src, out = sys.argv[1:3]
def gpu(name, uuid, finished, verdict, suite=None, mig=None, only=None):
    d = json.load(open(src))
    d["planned_cases"] = [c["name"] for c in d["cases"]]
    if only: d["planned_cases"] = [only]
    if suite: d["suites"] = [{"name": suite, "source": "builtin:" + suite, "description": ""}]
    d["device"] = {"uuid": uuid, "name": "NVIDIA H200", "cuda_ordinal": 0, "pci_bus_id": "0000:19:00.0"}
    if mig: d["device"].update({"mig_enabled": True, "mig_uuid": mig})
    d["finished_at"] = finished
    for c in d["cases"]:
        c["verdict"] = verdict
        for b in c["backends"]:
            b["verdict"], b["reason"] = verdict, "" if verdict == "PASS" else "synthetic " + verdict
    json.dump(d, open(f"{out}/{name}.json", "w"))
gpu("n1-old", "GPU-1111", "2026-11-01T10:00:00Z", "FAULT")   # before the repair
gpu("n1-new", "GPU-1111", "2026-11-02T10:00:00Z", "PASS")    # after it
gpu("n2", "GPU-2222", "2026-11-01T11:00:00Z", "PASS")
gpu("n2-perf", "GPU-2222", "2026-11-01T12:00:00Z", "PASS", suite="perf")  # another suite: kept
gpu("n3-mig-a", "GPU-3333", "2026-11-01T13:00:00Z", "PASS", mig="MIG-aaaa")  # two instances
gpu("n3-mig-b", "GPU-3333", "2026-11-01T14:00:00Z", "PASS", mig="MIG-bbbb")  # of one GPU: both kept
gpu("n4-all", "GPU-4444", "2026-11-01T15:00:00Z", "FAULT")                    # a failed GPU, then
gpu("n4-one", "GPU-4444", "2026-11-02T15:00:00Z", "PASS", only="another case")  # a narrower re-run: both kept
PY
cp "$WORK/fleet/n2.json" "$WORK/fleet/n2-copy.json"  # the same run twice: the copy gives way
"$BIN" fleet "$WORK/fleet" --format json >"$WORK/f.json" 2>"$WORK/err"; rc=$?
[ "$rc" -eq 1 ] || { cat "$WORK/f.json" "$WORK/err"; fail "fleet: exit $rc, expected 1 (n1's FAULT is superseded, n4's is not)"; }
[ "$(json_get "$WORK/f.json" "len(d['nodes'])")" = "7" ] \
  || fail "fleet: expected 7 reports (n1-new, n2, n2's run of another suite, two MIG instances of one GPU, both of n4)"
[ "$(json_get "$WORK/f.json" "sorted(n['mig_uuid'] for n in d['nodes'] if n['mig_uuid'])")" = "['MIG-aaaa', 'MIG-bbbb']" ] \
  || fail "fleet: the MIG instances are not named"
[ "$(json_get "$WORK/f.json" "len(d['superseded'])")" = "2" ] || fail "fleet: expected n1-old and n2-copy superseded"
json_get "$WORK/f.json" "d['superseded'][0]" | grep -q "n1-old.json (GPU GPU-1111, suites .*: a newer report of its cases is .*n1-new.json)" \
  || { json_get "$WORK/f.json" "d['superseded']"; fail "the older report is not named as superseded"; }
json_get "$WORK/f.json" "d['superseded'][1]" | grep -q "n2.json (GPU GPU-2222, suites .*: the same run as .*n2-copy.json)\|n2-copy.json (GPU GPU-2222, suites .*: the same run as .*n2.json)" \
  || { json_get "$WORK/f.json" "d['superseded']"; fail "the copy is not named as the same run"; }
"$BIN" fleet "$WORK/fleet" --failed-hosts >"$WORK/hosts" 2>/dev/null
[ -s "$WORK/hosts" ] || fail "fleet --failed-hosts: n4's failed GPU, hidden by a narrower re-run"
# A failed GPU whose report names no host cannot be drained by name: stderr says so.
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d['node']=None; json.dump(d,open(sys.argv[2],'w'))" \
  "$WORK/fleet/n4-all.json" "$WORK/nohost.json"
"$BIN" fleet "$WORK/nohost.json" --failed-hosts >"$WORK/hosts" 2>"$WORK/err"
grep -q "nohost.json failed but names no host" "$WORK/err" || { cat "$WORK/err"; fail "fleet --failed-hosts: a failed GPU without a host name is not named"; }
"$BIN" fleet "$WORK/fleet" >"$WORK/f.md" 2>&1
grep -q "^Superseded .*n1-old.json" "$WORK/f.md" || { cat "$WORK/f.md"; fail "Markdown lacks the superseded line"; }
# An interrupted CPU-only run (exit code 4 from its first write, cases done) ran: not "not run".
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d.update(complete=False, exit_code=4); json.dump(d,open(sys.argv[2],'w'))" \
  "$src" "$WORK/cut.json"
"$BIN" fleet "$WORK/cut.json" --format json >"$WORK/cut.out" 2>/dev/null
[ "$(json_get "$WORK/cut.out" "[p for n in d['nodes'] for p in n['problems'] if p.startswith('not run')]")" = "[]" ] \
  || { cat "$WORK/cut.out"; fail "an interrupted run is labelled as one that never ran"; }
[ "$(json_get "$WORK/cut.out" "d['nodes'][0]['verdict']")" = "INCOMPLETE" ] || fail "an interrupted run is not INCOMPLETE"
echo "ok"
