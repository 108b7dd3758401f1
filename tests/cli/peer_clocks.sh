# scripts/peers/nvml_clocks.py: the NVML samples peers.py takes around each timed pass are in the
# shape of our reports' `clocks`, so `vsa-bench render` (and compare) print a peer's TFLOPS
# "at ... MHz, sw_power_cap" as ours, and summary_table.py's leads show both clocks. The
# reason table is the one of app/telemetry/clock_sample.cpp (bits from nvml_api.hpp), read
# from those sources here so the two cannot drift apart. Host-only: no NVML, no torch.
source "$(dirname "$0")/lib.sh"
PEERS="$SRC/scripts/peers"
(cd "$PEERS" && python3 - "$SRC") >"$WORK/out" 2>&1 <<'PY' || { cat "$WORK/out"; fail "nvml_clocks rules"; }
import pathlib, re, sys
import nvml_clocks as n
src = pathlib.Path(sys.argv[1])
bits = {m[0]: int(m[1], 16) for m in re.findall(r"constexpr std::uint64_t (nvmlClocks\w+) = (0x[0-9a-fA-F]+);",
                                               (src / "app/telemetry/nvml_api.hpp").read_text())}
table = re.findall(r'\{(nvmlClocks\w+), "(\w+)", (true|false)\}', (src / "app/telemetry/clock_sample.cpp").read_text())
assert len(table) >= 11, table
cpp = sorted((bits[sym], name, slow == "true") for sym, name, slow in table)
assert cpp == sorted(n.REASONS), (cpp, n.REASONS)
assert n.reason_names(0x4 | 0x1) == ["gpu_idle", "sw_power_cap"]
assert n.reason_names(0x800) == ["unknown_0x800"]
assert n.slowed_down(0x4) and not n.slowed_down(0x1 | 0x2 | 0x100)
fields = {"sm_clock_mhz": 1545, "mem_clock_mhz": 3201, "temperature_c": 55, "power_w": 690.5, "power_instant_w": 702.1,
          "event_reasons": 4}
s = n.sample_from(fields.get)
assert s == {**fields, "reasons": ["sw_power_cap"], "slowed_down": True}, s
# The instant power's field id and the value types are the C++ sampler's (nvml_api.hpp).
assert re.search(rf"NVML_FI_DEV_POWER_INSTANT = {n.POWER_INSTANT_FIELD};", (src / "app/telemetry/nvml_api.hpp").read_text())
import types
value = lambda **kw: types.SimpleNamespace(**{**{m: 0 for m in n.VALUE_MEMBERS.values()}, **kw})
assert n.field_number(types.SimpleNamespace(nvmlReturn=0, valueType=1, value=value(uiVal=702100))) == 702100.0
assert n.field_number(types.SimpleNamespace(nvmlReturn=0, valueType=0, value=value(dVal=1.5))) == 1.5
assert n.field_number(types.SimpleNamespace(nvmlReturn=3, valueType=1, value=value(uiVal=5))) is None
assert n.instant_power_w(types.SimpleNamespace(nvmlReturn=0, valueType=1, value=value(uiVal=702100))) == 702.1
assert n.instant_power_w(types.SimpleNamespace(nvmlReturn=3, valueType=1, value=value(uiVal=5))) is None
s = n.sample_from(lambda f: None)  # NVML could not say anything: nulls, no reasons
assert s["sm_clock_mhz"] is None and s["event_reasons"] is None and s["slowed_down"] is None and s["reasons"] == [], s
import peer_report
entry = peer_report.timing_entry("bwd", {"median_ms": 2.0, "spread": 0.01, "pass_medians_ms": [2.0], "iterations": 20,
                                         "passes": 1, "clocks": [{"pass": 0, "before": s, "after": s}]}, 1e12)
assert entry["clocks"] == [{"pass": 0, "before": s, "after": s}], entry
print("rules ok")
PY

# A peers report whose FastVideo Triton backward carries clocks, as peers.py now writes them.
R="$WORK/peers.json"
(cd "$PEERS" && python3 - "$SRC/results/baselines/h200-peers-2026-12-04.json" "$R") <<'PY' || fail "making the report"
import json, sys
import nvml_clocks as n
d = json.load(open(sys.argv[1]))
case = [c for c in d["cases"] if c["name"] == "perf/topk/S=65536,density=0.25"][0]
t = [t for b in case["backends"] if b["backend"] == "fastvideo-triton" for t in b["timings"] if t["op"] == "bwd"][0]
sample = lambda mhz: n.sample_from({"sm_clock_mhz": mhz, "power_w": 695.0, "event_reasons": 4}.get)
t["clocks"] = [{"pass": p, "before": sample(1800), "after": sample(mhz), "seconds": 0.7}
               for p, mhz in enumerate((1605, 1560, 1590, 1575))]
json.dump(d, open(sys.argv[2], "w"))
PY
"$BIN" render "$R" --out "$WORK/peers.md" >"$WORK/out" 2>&1 || { cat "$WORK/out"; fail "render exit"; }
grep -F "| perf/topk/S=65536,density=0.25 | fastvideo-triton |" "$WORK/peers.md" | grep -q "at 1560-1605 MHz, sw_power_cap" \
  || { grep -F "fastvideo-triton" "$WORK/peers.md"; fail "render does not show the peer's clocks"; }
python3 "$PEERS/summary_table.py" "$R" "$SRC/results/baselines/h200-peers-2026-12-04-ours.json" >"$WORK/table" \
  || fail "summary_table.py"
grep -E "^perf/topk/S=65536,density=0.25 +bwd +sm90a-det +436.3 +1575-1605 MHz +fastvideo-triton +338.7 +1560-1605 MHz +1.288" \
  "$WORK/table" >/dev/null || { tail -13 "$WORK/table"; fail "the leads do not show both clocks"; }
echo "peer clocks: ok"
