#!/usr/bin/env bash
# The sm90a forward's timeline variant (kernels/sm90a/tile_config.hpp, TraceOnly) must be the
# normal kernel plus its stamps: the stamps there (more global stores than the normal kernel),
# and none of the probe variant's watched waits or delay points (its mbarrier instructions
# about those of the normal kernel, far fewer stores and branches than the probe variant, no
# NANOSLEEP), with the normal kernel's wgmma pipeline and no spills. Run 56
# (kernels/sm90a/notes/runs.md) found the timeline recorded on the probe variant, 1.55x the
# normal SASS and up to 19% slower. Read from `vsa-bench lint --json`'s SASS counts and the
# SASS itself (NANOSLEEP); which variant a launch picks is pinned by the unit tests of
# kernels/sm90a/fwd_variant.hpp. Skips (77)
# where no cuobjdump can be found or the build has no sm90a kernels.
source "$(dirname "$0")/lib.sh"
need_backend sm90a

"$BIN" lint --json >"$WORK/lint.json" 2>"$WORK/stderr"; rc=$?
if [ "$rc" = 2 ] && grep -qi "cuobjdump" "$WORK/stderr"; then
  echo "SKIP: no cuobjdump here ($(head -1 "$WORK/stderr"))"; exit 77
fi
[ "$rc" = 0 ] || { cat "$WORK/stderr"; fail "lint exited $rc"; }

cuobjdump="$(json_get "$WORK/lint.json" "d['cuobjdump']")"
"$cuobjdump" -sass "$BIN" >"$WORK/sass.txt" 2>&1 || fail "cuobjdump -sass $BIN failed"

python3 - "$WORK/lint.json" "$WORK/sass.txt" <<'PY' || fail "the trace-only forward is not the normal kernel plus stamps (above)"
import json, re, sys
kernels = json.load(open(sys.argv[1]))["kernels"]
prefix = "void vsa::sm90a::fwd::forward_kernel<"
def counts(config, probe):
    name = f"{prefix}{config}, {probe}, false>"
    found = [k["counts"] for k in kernels if k["kernel"].startswith(name)]
    if not found:
        sys.exit(f"no SASS of {name}")
    return found[0]
# NANOSLEEP (a delay point) per forward kernel of the two-group layout, from the SASS itself:
# lint's counts have no such column. Mangled: forward_kernel<TileConfig | TraceOnly<...>, kProbe, false>.
sleeps = {}
for section in re.split(r"\n\s+Function : ", open(sys.argv[2]).read())[1:]:
    name = section.split("\n", 1)[0].strip()
    m = re.match(r"_ZN3vsa5sm90a3fwd14forward_kernelI(NS1_9TraceOnlyINS1_10TileConfigEEE|NS1_10TileConfigE)Lb([01])ELb0E", name)
    if m:
        sleeps[("trace" if "TraceOnly" in m.group(1) else "probe" if m.group(2) == "1" else "normal")] = \
            len(re.findall(r"\bNANOSLEEP\b", section))
normal = counts("vsa::sm90a::fwd::TileConfig", "false")
probe = counts("vsa::sm90a::fwd::TileConfig", "true")
trace = counts("vsa::sm90a::fwd::TraceOnly<vsa::sm90a::fwd::TileConfig>", "false")
print("global_store / mbarrier / branch / NANOSLEEP: normal", normal["global_store"], normal["mbarrier"],
      normal["branch"], sleeps.get("normal"), "| trace-only", trace["global_store"], trace["mbarrier"], trace["branch"],
      sleeps.get("trace"), "| probe", probe["global_store"], probe["mbarrier"], probe["branch"], sleeps.get("probe"))
problems = []
if set(sleeps) != {"normal", "trace", "probe"}:
    problems.append(f"NANOSLEEP counts found for {sorted(sleeps)} only: the mangled names changed")
elif sleeps["trace"] != sleeps["normal"] or sleeps["probe"] == 0:
    problems.append(f"{sleeps['trace']} NANOSLEEP against the normal kernel's {sleeps['normal']}: delay points")
# The wgmma pipeline and the registers must be the normal kernel's: a timeline kernel that
# ptxas serialised or that spills would describe another kernel.
for column in ("mma", "wgmma_arrive", "wgmma_wait", "local"):
    if trace[column] != normal[column]:
        problems.append(f"{column} {trace[column]} against the normal kernel's {normal[column]}")
if trace["global_store"] <= normal["global_store"]:
    problems.append("no stamps: no more global stores than the normal kernel")
# The watched waits add about 25 mbarrier instructions (80 against 55 at 5dbd2c9) and the
# expiry paths about 100 branches; the compiler may place a few more or fewer in an otherwise
# equal kernel.
if trace["mbarrier"] - normal["mbarrier"] > (probe["mbarrier"] - normal["mbarrier"]) // 4:
    problems.append(f"{trace['mbarrier']} mbarrier instructions against the normal kernel's {normal['mbarrier']} "
                    f"and the probe variant's {probe['mbarrier']}: watched waits")
if trace["branch"] - normal["branch"] > (probe["branch"] - normal["branch"]) // 4 \
        or trace["global_store"] * 2 > probe["global_store"]:
    problems.append("branches or stores near the probe variant's: its hang-watch expiry paths")
if problems:
    sys.exit("; ".join(problems))
PY
echo "PASS"
