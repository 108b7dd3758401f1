#!/usr/bin/env bash
# Compile spike, build machine only (run 61b in kernels/sm90a/notes/runs.md): does the sm90a
# forward fit N consumer groups per CTA without spilling? Instantiates forward_kernel with N
# groups, K/V stages per group, the consumers' setmaxnreg budget and split or whole Q, on a copy
# of kernels/ in a temporary folder (the copy raises the timeline's slots per CTA to N, which
# only the trace-only variant uses), and prints ptxas's resource lines for the kernel: its
# stack frame and spill bytes are the answer. Nothing in the repository changes.
#   scripts/dev/fwd_groups_spike.sh GROUPS STAGES CONSUMER_REGS SPLIT_Q   (e.g. 4 1 120 true)
# The register file bounds the budget: 128 x 24 (the producer warp group) + GROUPS x 128 x
# CONSUMER_REGS <= 65536, so 4 groups get at most 120. nvcc: $NVCC, PATH or /usr/local/cuda/bin.
set -euo pipefail
[ $# -eq 4 ] || { sed -n '2,10p' "$0"; exit 2; }
groups="$1" stages="$2" regs="$3" split="$4"
case "$split" in true|false) ;; *) echo "fwd_groups_spike.sh: SPLIT_Q must be true or false" >&2; exit 2 ;; esac
for n in "$groups" "$stages" "$regs"; do
  [[ "$n" =~ ^[1-9][0-9]{0,3}$ ]] || { echo "fwd_groups_spike.sh: \"$n\" is not a number from 1 to 9999" >&2; exit 2; }
done
(( 128 * 24 + groups * 128 * regs <= 65536 )) \
  || { echo "fwd_groups_spike.sh: 128 x 24 + $groups x 128 x $regs registers exceed an SM's 65536" >&2; exit 2; }
SRC="$(cd "$(dirname "$0")/../.." && pwd)"
NVCC="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
cp -r "$SRC/kernels" "$work/k"
sed -i "s/kForwardTraceSlotsPerCta = [0-9]*/kForwardTraceSlotsPerCta = $groups/" "$work/k/sm90a/trace.hpp"
cat >"$work/spike.cu" <<CU
#include "fwd_kernel.cuh"
namespace vsa::sm90a::fwd {
struct SpikeGroups : TileConfig {
  static constexpr int kConsumers = $groups;
  static constexpr int kStages = $stages;
  static constexpr int kThreads = kWarpGroupThreads * (1 + kConsumers);
  static constexpr int kConsumerRegs = $regs;
  static constexpr bool kSplitQ = $split;
};
static_assert(kSmemBytes<SpikeGroups> <= TileConfig::kSmemLimit, "the spike's tiles do not fit an SM's shared memory");
template __global__ void forward_kernel<SpikeGroups, false, false>(const __grid_constant__ CUtensorMap,
    const __grid_constant__ CUtensorMap, const __grid_constant__ CUtensorMap, const Params);
}
CU
echo "forward, $groups consumer groups, $stages K/V stage(s) each, $regs registers, split Q $split:"
if ! "$NVCC" -I"$work/k/sm90a" -I"$work/k/include" -I"$work/k/common" -O3 -DNDEBUG -std=c++17 \
  --expt-relaxed-constexpr -gencode=arch=compute_90a,code=sm_90a -Xptxas -v -c "$work/spike.cu" -o "$work/spike.o" \
  >"$work/nvcc.log" 2>&1; then
  cat "$work/nvcc.log" >&2
  echo "fwd_groups_spike.sh: the spike does not compile (nvcc's output above)" >&2
  exit 1
fi
grep -A2 'forward_kernel' "$work/nvcc.log" | grep -E 'stack frame|Used' | head -2
