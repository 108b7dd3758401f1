# fleet counts each GPU once (issue 20): of several reports with the same GPU UUID (a node
# re-run after a repair), the newest stands and the older are listed as superseded. Two MIG
# instances of one GPU share its UUID and are two GPUs to the fleet (device.mig_uuid). A newer
# report supersedes only when it covers the older one's cases; an identical copy gives way to the
# first read. A narrower re-run (--case) on the same configuration merges with the report it
# re-ran part of: each case's newest result counts, so a repaired case clears and a failure in a
# case not re-run stays. On another configuration (a driver update) the GPU shows once per report.
source "$(dirname "$0")/lib.sh"
"$BIN" run --devices none --quiet --case cpu-ref/minimal-1-0 --out "$WORK/run" >"$WORK/out" 2>&1 || { cat "$WORK/out"; fail "run"; }
src="$(ls "$WORK"/run/*.json)"
mkdir -p "$WORK/fleet"
python3 - "$src" "$WORK/fleet" <<'PY' || fail "python"
import json, sys
src, out = sys.argv[1:3]
def gpu(name, uuid, finished, verdicts, suite=None, mig=None, driver=None):
    """verdicts: {case name: verdict}, the cases this run planned and ran."""
    d = json.load(open(src))
    template = d["cases"][0]
    d["cases"] = []
    for case, verdict in verdicts.items():
        c = json.loads(json.dumps(template))
        c["name"], c["verdict"] = case, verdict
        for b in c["backends"]:
            b["verdict"], b["reason"] = verdict, "" if verdict == "PASS" else "synthetic " + verdict
        d["cases"].append(c)
    d["planned_cases"] = list(verdicts)
    if suite: d["suites"] = [{"name": suite, "source": "builtin:" + suite, "description": ""}]
    d["device"] = {"uuid": uuid, "name": "NVIDIA H200", "cuda_ordinal": 0, "pci_bus_id": "0000:19:00.0",
                   "driver_version": driver or "580.1"}
    if mig: d["device"].update({"mig_enabled": True, "mig_uuid": mig})
    d["finished_at"] = finished
    v = set(verdicts.values())  # the exit code `run` writes: 4 for a FAULT or HANG, 1 for a FAIL
    d["exit_code"] = 4 if v & {"FAULT", "HANG"} else 1 if "FAIL" in v else 0
    json.dump(d, open(f"{out}/{name}.json", "w"))
A, B = "case-a", "case-b"
gpu("n1-old", "GPU-1111", "2026-11-01T10:00:00Z", {A: "FAULT", B: "PASS"})   # before the repair
gpu("n1-new", "GPU-1111", "2026-11-02T10:00:00Z", {A: "PASS", B: "PASS"})    # after it
gpu("n2", "GPU-2222", "2026-11-01T11:00:00Z", {A: "PASS"})
gpu("n2-perf", "GPU-2222", "2026-11-01T12:00:00Z", {A: "PASS"}, suite="perf")  # another suite: kept
gpu("n3-mig-a", "GPU-3333", "2026-11-01T13:00:00Z", {A: "PASS"}, mig="MIG-aaaa")  # two instances
gpu("n3-mig-b", "GPU-3333", "2026-11-01T14:00:00Z", {A: "PASS"}, mig="MIG-bbbb")  # of one GPU: both kept
gpu("n4-all", "GPU-4444", "2026-11-01T15:00:00Z", {A: "FAULT", B: "PASS"})  # a faulted case, then
gpu("n4-one", "GPU-4444", "2026-11-02T15:00:00Z", {A: "PASS"})             # only it re-run: one PASS node
gpu("n5-all", "GPU-5555", "2026-11-01T16:00:00Z", {A: "FAULT", B: "FAIL"})  # two failed cases, then
gpu("n5-one", "GPU-5555", "2026-11-02T16:00:00Z", {A: "PASS"})             # one re-run: B's FAIL stays
gpu("n6-all", "GPU-6666", "2026-11-01T17:00:00Z", {A: "FAULT", B: "PASS"})  # a fault, a driver update,
gpu("n6-one", "GPU-6666", "2026-11-02T17:00:00Z", {A: "PASS"}, driver="580.2")  # a re-run: two nodes
PY
cp "$WORK/fleet/n2.json" "$WORK/fleet/n2-copy.json"  # the same run twice: the copy gives way
"$BIN" fleet "$WORK/fleet" --format json >"$WORK/f.json" 2>"$WORK/err"; rc=$?
[ "$rc" -eq 1 ] || { cat "$WORK/f.json" "$WORK/err"; fail "fleet: exit $rc, expected 1 (n5's FAIL and n6's FAULT stay)"; }
"${VSA_TOOLS_PYTHON:-$SRC/.tools/venv/bin/python}" "$SRC/scripts/check_schema.py" --schema fleet "$WORK/f.json" >"$WORK/out" 2>&1 \
  || { cat "$WORK/out"; fail "fleet JSON off schema"; }
nodes() { json_get "$WORK/f.json" "sorted((n['path'].split('/')[-1], n['verdict']) for n in d['nodes'])"; }
[ "$(nodes)" = "[('n1-new.json', 'PASS'), ('n2-copy.json', 'PASS'), ('n2-perf.json', 'PASS'), ('n3-mig-a.json', 'PASS'), ('n3-mig-b.json', 'PASS'), ('n4-one.json', 'PASS'), ('n5-one.json', 'FAIL'), ('n6-all.json', 'FAULT'), ('n6-one.json', 'PASS')]" ] \
  || { nodes; fail "fleet: expected n1-new, n2's copy, n2's other suite, two MIG instances, n4 and n5 merged, n6 twice"; }
[ "$(json_get "$WORK/f.json" "sorted(n['mig_uuid'] for n in d['nodes'] if n['mig_uuid'])")" = "['MIG-aaaa', 'MIG-bbbb']" ] \
  || fail "fleet: the MIG instances are not named"
[ "$(json_get "$WORK/f.json" "len(d['superseded'])")" = "2" ] || fail "fleet: expected n1-old and n2-copy superseded"
json_get "$WORK/f.json" "d['superseded'][0]" | grep -q "n1-old.json (GPU GPU-1111, suites .*: a newer report of its cases is .*n1-new.json)" \
  || { json_get "$WORK/f.json" "d['superseded']"; fail "the older report is not named as superseded"; }
json_get "$WORK/f.json" "d['superseded'][1]" | grep -q "n2.json (GPU GPU-2222, suites .*: the same run as .*n2-copy.json)\|n2-copy.json (GPU GPU-2222, suites .*: the same run as .*n2.json)" \
  || { json_get "$WORK/f.json" "d['superseded']"; fail "the copy is not named as the same run"; }
node() { json_get "$WORK/f.json" "[n for n in d['nodes'] if n['path'].endswith('/$1.json')][0]$2"; }
[ "$(json_get "$WORK/f.json" "[(n['counts']['PASS'], n['counts']['FAULT'], [(m['path'].split('/')[-1], m['cases']) for m in n['merged_from']]) for n in d['nodes'] if n['path'].endswith('/n4-one.json')]")" = "[(2, 0, [('n4-all.json', ['case-b'])])]" ] \
  || { node n4-one ""; fail "n4: the re-run's PASS of case-a and the older run's case-b are not one node of 2 PASS"; }
[ "$(json_get "$WORK/f.json" "[n['problems'] for n in d['nodes'] if n['path'].endswith('/n5-one.json')][0][0][:20]")" = "case-b cpu-ref: FAIL" ] \
  || { node n5-one ""; fail "n5: the FAIL of the case not re-run is not in the merged node's problems"; }
[ "$(json_get "$WORK/f.json" "[n['merged_from'] for n in d['nodes'] if n['path'].split('/')[-1].startswith('n6')]")" = "[[], []]" ] \
  || fail "n6: reports of two driver versions were merged"
"$BIN" fleet "$WORK/fleet" --failed-hosts >"$WORK/hosts" 2>/dev/null
[ -s "$WORK/hosts" ] || fail "fleet --failed-hosts: n5's failed GPU, hidden by a narrower re-run"
# A failed GPU whose report names no host cannot be drained by name: stderr says so.
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d['node']=None; json.dump(d,open(sys.argv[2],'w'))" \
  "$WORK/fleet/n4-all.json" "$WORK/nohost.json"
"$BIN" fleet "$WORK/nohost.json" --failed-hosts >"$WORK/hosts" 2>"$WORK/err"
grep -q "nohost.json failed but names no host" "$WORK/err" || { cat "$WORK/err"; fail "fleet --failed-hosts: a failed GPU without a host name is not named"; }
"$BIN" fleet "$WORK/fleet" >"$WORK/f.md" 2>&1
grep -q "^Superseded .*n1-old.json" "$WORK/f.md" || { cat "$WORK/f.md"; fail "Markdown lacks the superseded line"; }
grep -q "^Merged .*n4-one.json (newest) with, from .*n4-all.json, cases case-b$" "$WORK/f.md" \
  || { cat "$WORK/f.md"; fail "Markdown lacks the merged line"; }
# An interrupted CPU-only run (exit code 4 from its first write, cases done) ran: not "not run".
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d.update(complete=False, exit_code=4); json.dump(d,open(sys.argv[2],'w'))" \
  "$src" "$WORK/cut.json"
"$BIN" fleet "$WORK/cut.json" --format json >"$WORK/cut.out" 2>/dev/null
[ "$(json_get "$WORK/cut.out" "[p for n in d['nodes'] for p in n['problems'] if p.startswith('not run')]")" = "[]" ] \
  || { cat "$WORK/cut.out"; fail "an interrupted run is labelled as one that never ran"; }
[ "$(json_get "$WORK/cut.out" "d['nodes'][0]['verdict']")" = "INCOMPLETE" ] || fail "an interrupted run is not INCOMPLETE"
echo "ok"
