# The suites of the fastvideo-tk plugin (peers/fastvideo_tk/suites), without the plugin or its
# upstream sources (CI has neither): each expands, and every case stays within what the plugin
# accepts, so a run on the GPU node is not refused (exit 2) or left to hang: fastvideo-tk-h100
# in every case, B 1, blk 64, D 64 or 128, and no pattern that makes a q2k row empty (ragged,
# zero_rows: the TK forward hangs on one). tk-perf holds issue 22's cases (B=1 H=8 D=128,
# S 4096/16384/65536 at 25% and 12.5%) and tk-perf-kernels-only the same cases, reference none,
# with tk-perf's seed, op and timing block (budget, passes, ...), so the two runs time alike;
# tk-fwd-layouts the forward where sm90a's layout rule picks three consumer groups (run 41c).
source "$(dirname "$0")/lib.sh"
DIR="$SRC/peers/fastvideo_tk/suites"
for s in tk-correctness tk-stability tk-perf tk-perf-kernels-only tk-fwd-layouts; do
  "$BIN" list cases "$DIR/$s.json" --json >"$WORK/$s.json" 2>"$WORK/err" || { cat "$WORK/err"; fail "$s does not expand"; }
done
python3 - "$WORK" <<'PY' || fail "the tk suites do not hold what the plugin and issue 22 need"
import json, sys
work = sys.argv[1]
cases = {s: json.load(open(f"{work}/{s}.json"))["cases"] for s in
         ("tk-correctness", "tk-stability", "tk-perf", "tk-perf-kernels-only", "tk-fwd-layouts")}
bad = []
for s, cs in cases.items():
    for c in cs:
        where = f"{s}/{c['name']}"
        if "fastvideo-tk-h100" not in c["backends"]: bad.append(f"{where}: no fastvideo-tk-h100")
        if c["B"] != 1 or c["blk"] != 64 or c["D"] not in (64, 128): bad.append(f"{where}: B {c['B']} blk {c['blk']} D {c['D']}")
        p = c["pattern"]
        if p["kind"] == "ragged" or p.get("zero_rows", 0) > 0: bad.append(f"{where}: pattern may leave a row empty")
        if p["kind"] == "explicit" and any(len(r) == 0 for r in p["rows"]): bad.append(f"{where}: an empty explicit row")
counts = {s: len(cs) for s, cs in cases.items()}
if counts != {"tk-correctness": 18, "tk-stability": 2, "tk-perf": 6, "tk-perf-kernels-only": 6, "tk-fwd-layouts": 5}:
    bad.append(f"case counts {counts}")
want = {(S, d) for S in (4096, 16384, 65536) for d in (0.25, 0.125)}
for s in ("tk-perf", "tk-perf-kernels-only"):
    got = {(c["S"], c["pattern"]["density"]) for c in cases[s]
           if c["mode"] == "perf" and c["H"] == 8 and c["D"] == 128 and c["pattern"]["kind"] == "topk"}
    if got != want: bad.append(f"{s}: perf cases {sorted(got)}, want {sorted(want)}")
if [c["name"] for c in cases["tk-perf"]] != [c["name"] for c in cases["tk-perf-kernels-only"]]:
    bad.append("tk-perf-kernels-only does not have tk-perf's case names")
# The kernels-only run states what the adapter's conversions cost beside tk-perf: only the
# backends, the reference and the timeout may differ; same cases, inputs, op and timing block.
same = ("timing", "seed", "op", "mode", "B", "H", "D", "S", "blk", "pattern", "vbs", "scale")
for full, ko in zip(cases["tk-perf"], cases["tk-perf-kernels-only"]):
    for k in same:
        if full.get(k) != ko.get(k):
            bad.append(f"tk-perf-kernels-only/{ko['name']}: {k} {ko.get(k)}, tk-perf has {full.get(k)}")
if any(c["reference"] != "none" or c["backends"] != ["fastvideo-tk-h100"] for c in cases["tk-perf-kernels-only"]):
    bad.append("tk-perf-kernels-only: outputs are not valid there, so no reference and TK alone")
if any(set(c["backends"]) != {"fastvideo-tk-h100", "sm90a", "sm90a-det"} for c in cases["tk-perf"]):
    bad.append("tk-perf: every case times fastvideo-tk-h100, sm90a and sm90a-det")
print("\n".join(bad) if bad else "tk suites: ok")
sys.exit(1 if bad else 0)
PY
echo "ok"
