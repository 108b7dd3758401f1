#!/usr/bin/env bash
# Build the fastvideo-tk plugin with nvcc alone (no CMake, no torch): one .so for sm_90a.
#   peers/fastvideo_tk/build.sh [UPSTREAM_DIR [OUT_DIR]]
# UPSTREAM_DIR: what scripts/peers/fetch_fastvideo_tk.sh wrote (default .peers/fastvideo_tk);
# OUT_DIR: where fastvideo_tk_h100.so goes (default UPSTREAM_DIR/build). nvcc: $NVCC, else
# PATH, else /usr/local/cuda/bin. Prints the .so's path last. The link mirrors
# cmake/VsaPlugin.cmake's vsa_add_plugin: hidden visibility, only vsa_plugin_entry exported,
# --no-undefined, static CUDA runtime (runs where only a driver is installed).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
SRC="$(cd "$HERE/../.." && pwd)"
UP="${1:-$SRC/.peers/fastvideo_tk}"
OUT="${2:-$UP/build}"
[ -f "$UP/UPSTREAM" ] || { echo "build.sh: no $UP/UPSTREAM: run scripts/peers/fetch_fastvideo_tk.sh first" >&2; exit 2; }
UP="$(cd "$UP" && pwd)"
# shellcheck disable=SC1091
. "$UP/UPSTREAM"   # fastvideo_commit, thunderkittens_commit, fastvideo_file, fastvideo_blob
pinned_fv=2f3d4074064e4d86f99dc784ebbaa296e6f5925f pinned_tk=6c27e28c8115d1839d9eeeb530913c184a75fc87
[ "$fastvideo_commit" = "$pinned_fv" ] && [ "$thunderkittens_commit" = "$pinned_tk" ] \
  || { echo "build.sh: $UP holds FastVideo $fastvideo_commit / ThunderKittens $thunderkittens_commit, not the pinned $pinned_fv / $pinned_tk: fetch again" >&2; exit 2; }
if command -v git >/dev/null; then
  blob="$(git hash-object "$UP/FastVideo/$fastvideo_file")"
  [ "$blob" = "$fastvideo_blob" ] || { echo "build.sh: $UP/FastVideo/$fastvideo_file differs from the fetched blob $fastvideo_blob (now $blob)" >&2; exit 2; }
fi

NVCC="${NVCC:-$(command -v nvcc || true)}"
[ -n "$NVCC" ] || NVCC=/usr/local/cuda/bin/nvcc
[ -x "$NVCC" ] || { echo "build.sh: no nvcc (set NVCC, PATH or install CUDA in /usr/local/cuda)" >&2; exit 2; }
nvcc_version="$("$NVCC" --version | sed -n 's/.*release [0-9.]*, V\([0-9.]*\).*/\1/p')"
echo "nvcc: $NVCC ($nvcc_version; $("$NVCC" --version | tail -1))"

# The flags of the recorded build (results/baselines/h200-tk-plugin.md), recorded again in the
# plugin's build information.
FLAGS="-DNDEBUG -O3 -std=c++20 --use_fast_math --expt-extended-lambda --expt-relaxed-constexpr -Xcompiler=-fno-strict-aliasing -DKITTENS_HOPPER -Xptxas=--warn-on-spills"
mkdir -p "$OUT"
map="$OUT/exports.map"
printf '{\n  global: vsa_plugin_entry;\n  local: *;\n};\n' > "$map"
so="$OUT/fastvideo_tk_h100.so"
# Include order matters: torch_stub/ first, so the torch header names in the upstream file
# reach the stand-ins (torch_stub/fastvideo_tk_torch_stub.h); then ThunderKittens, then
# FastVideo's csrc/ for "attention/block_sparse_h100.cu".
log="$OUT/build.log"
# shellcheck disable=SC2086
if ! "$NVCC" $FLAGS -gencode arch=compute_90a,code=sm_90a \
  -shared -Xcompiler=-fPIC,-fvisibility=hidden,-fvisibility-inlines-hidden --cudart static \
  -I "$HERE/torch_stub" -I "$UP/ThunderKittens/include" -I "$UP/FastVideo/fastvideo-kernel/csrc" \
  -I "$SRC/kernels/include" \
  -DFVTK_FASTVIDEO_COMMIT="\"$fastvideo_commit\"" -DFVTK_TK_COMMIT="\"$thunderkittens_commit\"" \
  -DFVTK_FLAGS="\"$FLAGS\"" -DFVTK_NVCC="\"$nvcc_version\"" \
  -Xlinker --no-undefined -Xlinker "--version-script=$map" \
  -o "$so" "$HERE/fastvideo_tk_plugin.cu" > "$log" 2>&1; then
  cat "$log"; echo "build.sh: nvcc failed" >&2; exit 1
fi
cat "$log"
# Warning-free but for one line: ptxas' report (asked for by --warn-on-spills) that upstream's
# bwd_attend_ker<64> spills a few bytes, as in the recorded build; any other warning fails.
unexpected="$(grep -i 'warning' "$log" | grep -v "^ptxas warning : Registers are spilled to local memory in function '_Z14bwd_attend_kerILi64EEv11bwd_globalsIXT_EE'" || true)"
if [ -n "$unexpected" ]; then
  echo "build.sh: unexpected warnings (the build must be warning-free but for the known upstream spill):" >&2
  echo "$unexpected" >&2; exit 1
fi
echo "$so"
