#!/usr/bin/env bash
# Ours and every available peer on issue 22's cases, in one call on an H200; builds nothing.
#   scripts/device/peers_check.sh BUILD_DIR OUT_DIR
# Cases: suites/perf.json "perf/topk", B=1 H=8 D=128, S = 4096, 16384, 65536 at 25% and
# 12.5% random top-k. S=4096 is dumped with the CPU reference; larger S without, and peers
# are checked there against torch fp32 on the GPU (scripts/peers/README.md).
# Ours: `vsa-bench run perf` on those cases with sm90a and sm90a-det (BUILD_DIR/vsa-bench,
# made elsewhere). Peers: scripts/peers/peers.py (each checked before it is timed):
#   flex-attention, flex-attention-flash (when .peers/flash_attn4 holds the manifest of
#   scripts/peers/pack_flash_attn4.py and its parts are carried or stashed: see that script;
#   else skipped with the reason), flashinfer-vsa (when .peers/flashinfer or the stash holds scripts/peers/pack_flashinfer.py's
#   output: unpacked to /tmp/peer-site, its kernels compiled by nvcc on the node) and
#   fastvideo-triton (when .peers/fastvideo_triton/block_sparse_attn_triton.py exists).
# FastVideo's ThunderKittens H100 kernels (peers/fastvideo_tk) run inside our `vsa-bench run`,
# interleaved with ours, when the plugin is carried: $VSA_TK_PLUGIN, else
# build-tk/fastvideo_tk_h100.so (peers/fastvideo_tk/build.sh .peers/fastvideo_tk build-tk).
# Writes into OUT_DIR (at most 8 files): h200-peers-DATE.md (the table for results/baselines,
# with this command), peers-report.json, ours.json, compare.md, and the logs; prints a short
# table last. Dumps (~1.5 GB) go to /tmp/peer-dumps.
set -uo pipefail
[ $# -eq 2 ] || { sed -n '2,15p' "$0"; exit 2; }
source "$(dirname "$0")/lib/build_dir.sh"
require_build peers_check.sh "$1"
BUILD="$(cd "$1" && pwd)"; OUT="$2"
SRC="$(cd "$(dirname "$0")/../.." && pwd)"
WORK=/tmp/peers-check; SITE=/tmp/peer-site
rm -rf "$WORK" /tmp/peer-dumps; mkdir -p "$OUT" "$WORK"
OUT="$(cd "$OUT" && pwd)"
exec > >(tee "$OUT/peers_check.log") 2>&1
started=$(date +%s)
step() { printf '\n===== [%3d s] %s\n' "$(( $(date +%s) - started ))" "$*"; }
PY="${VSA_PYTHON:-python3}"

step "carried python packages"
# Carried in .peers/flashinfer, or stashed by an earlier call (scripts/device/stash.sh) where
# one call cannot carry it beside the rest.
fi_dir=""
for d in "$SRC/.peers/flashinfer" "${VSA_STASH:-/tmp/vsa-stash}"; do
  ls "$d"/flashinfer-*-vsa.tar.gz >/dev/null 2>&1 && { fi_dir="$d"; break; }
done
fi_archive="$(ls "$fi_dir"/flashinfer-*-vsa.tar.gz 2>/dev/null | head -1)"
if [ -n "$fi_dir" ] && [ -n "$fi_archive" ]; then
  mkdir -p "$SITE" && tar -xzf "$fi_archive" -C "$SITE" \
    && "$PY" -m pip install -q --no-index --no-deps --no-compile --target "$SITE" "$fi_dir"/apache_tvm_ffi-*.whl \
    && export PYTHONPATH="$SITE${PYTHONPATH:+:$PYTHONPATH}" && echo "flashinfer: $fi_archive -> $SITE"
else
  echo "flashinfer: not carried (python3 scripts/peers/pack_flashinfer.py writes .peers/flashinfer)"
fi
# What this call ran from, for the table's first line: carried here, or stashed by calls before.
stash_dir="${VSA_STASH:-/tmp/vsa-stash}"
how="\`$(basename "$BUILD")/vsa-bench\`"
if [ -n "$fi_dir" ]; then
  [ "$fi_dir" = "$stash_dir" ] && how="$how; FlashInfer stashed by a call before" || how="$how; FlashInfer carried"
fi
fa4_manifest="$SRC/.peers/flash_attn4/flash-attn4-site.parts"
if [ -f "$fa4_manifest" ]; then
  # Parts carried by this call or stashed by earlier ones (scripts/device/stash.sh). The CuTe
  # DSL reaches its own packages through a .pth file, which PYTHONPATH folders do not read.
  "$SRC/scripts/peers/join_parts.sh" "$fa4_manifest" "$SITE" \
    && export PYTHONPATH="$SITE:$SITE/nvidia_cutlass_dsl/dsl_packages${PYTHONPATH:+:$PYTHONPATH}" \
    && echo "flash-attn-4: $fa4_manifest -> $SITE" \
    && how="$how; flash-attn-4 in parts ($(ls "$stash_dir"/flash-attn4-site.tar.xz.part* 2>/dev/null | wc -l) of them stashed by calls before; scripts/peers/README.md)"
else
  echo "flash-attn-4: not carried (python3 scripts/peers/pack_flash_attn4.py writes .peers/flash_attn4)"
fi
[ -d /usr/local/cuda/bin ] && export PATH="/usr/local/cuda/bin:$PATH"  # nvcc for FlashInfer's JIT
tk_plugin="${VSA_TK_PLUGIN:-$SRC/build-tk/fastvideo_tk_h100.so}"
ours_plugins=""; ours_added=""
if [ -f "$tk_plugin" ]; then
  ours_plugins="$tk_plugin"; ours_added=fastvideo-tk-h100
  how="$how; \`$(basename "$(dirname "$tk_plugin")")\` (the fastvideo-tk-h100 plugin, in our run)"
  echo "fastvideo-tk-h100: $tk_plugin"
else
  echo "fastvideo-tk-h100: not carried (peers/fastvideo_tk/README.md builds build-tk/fastvideo_tk_h100.so)"
fi
extra=()
fv="$SRC/.peers/fastvideo_triton/block_sparse_attn_triton.py"
[ -f "$fv" ] && extra+=(--fastvideo-triton "$fv")
versions="$("$PY" - <<'PY'
import importlib.metadata as m
import torch
def v(name):
    try:
        return m.version(name)
    except m.PackageNotFoundError:
        return "-"
gpu = torch.cuda.get_device_name() if torch.cuda.is_available() else "no GPU"
print(f"{gpu}; torch {torch.__version__} (CUDA {torch.version.cuda}), triton {v('triton')}, "
      f"flashinfer-python {v('flashinfer-python')}, flash-attn-4 {v('flash-attn-4')}, "
      f"nvidia-cutlass-dsl {v('nvidia-cutlass-dsl')}")
PY
)"
echo "$versions"

step "dump, ours, peers (scripts/peers/run_on_device.sh)"
cases=""
for s in 4096 16384 65536; do
  for density in 0.25 0.125; do
    c="perf/topk/S=$s,density=$density"; [ "$s" -gt 4096 ] && c="$c@noref"; cases="$cases $c"
  done
done
CASES="$cases" OURS=run OURS_BACKENDS=sm90a,sm90a-det OURS_PLUGINS="$ours_plugins" OURS_ADD_BACKENDS="$ours_added" DUMP_DIR=/tmp/peer-dumps VSA_PYTHON="$PY" \
  "$SRC/scripts/peers/run_on_device.sh" "$BUILD/vsa-bench" "$WORK" "${extra[@]}"
rc=$?
ours="$(ls "$WORK"/ours/*.json 2>/dev/null | head -1)"
[ -n "$ours" ] && cp "$ours" "$OUT/ours.json"
for f in peers-report.json compare.md peers.log ours.log; do [ -f "$WORK/$f" ] && cp "$WORK/$f" "$OUT/"; done

step "baseline table"
md="$OUT/h200-peers-$(date -u +%Y-%m-%d).md"
{
  echo "# Ours and peers on one H200, $(date -u +%Y-%m-%dT%H:%MZ)"
  echo
  echo "Made by \`scripts/device/peers_check.sh $(basename "$BUILD") \$OUT\` ($how)"
  echo "with $("$BUILD/vsa-bench" --version 2>/dev/null | head -1); peers.py exit $rc."
  echo "$versions."
  echo
  echo "B=1 H=8 D=128, random top-k (suites/perf.json perf/topk). TFLOPS are docs/spec.md FLOPs over the median"
  echo "of pass medians, ± the spread of pass medians. Ours: \`vsa-bench run perf --target-spread 0\` (the case's"
  echo "fixed warm-up, iterations and passes, as the peers are timed), checked against cuda-ref; FastVideo's"
  echo "ThunderKittens H100 kernels (fastvideo-tk-h100), where carried, run in that same run as a plugin."
  echo "Peers: scripts/peers/peers.py, each checked before it is timed, against the dump's CPU reference at"
  echo "S=4096 and torch fp32 on the GPU above (\"checked against\")."
  echo
  if [ -s "$OUT/peers-report.json" ]; then
    "$PY" "$SRC/scripts/peers/summary_table.py" --markdown "$OUT/peers-report.json" ${ours:+"$OUT/ours.json"}
  else
    echo "(no peers report: see peers_check.log)"
  fi
} >"$md"
echo "wrote $md"

step "summary"
if [ -s "$OUT/peers-report.json" ]; then
  "$PY" "$SRC/scripts/peers/summary_table.py" "$OUT/peers-report.json" ${ours:+"$OUT/ours.json"}
fi
exit "$rc"
