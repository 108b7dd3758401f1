// A CUDA plugin whose hot kernel spills (a local array indexed at run time lives in local
// memory): `vsa-bench lint --plugin` must report local-spill in its declared family, as a
// warning (exit 0; exit 1 under --strict).
#include <cuda_runtime.h>

#include "vsa/plugin.h"

namespace spill_plant {

__global__ void spilling_kernel(const float* in, float* out, int n, int pick) {
  float scratch[64];
  for (int i = 0; i < 64; ++i) scratch[i] = in[i];
  // Writes at indices known only at run time, a run-time number of times: local memory.
  for (int i = 0; i < n; ++i) scratch[(pick * i + threadIdx.x) & 63] += in[64 + i];
  out[threadIdx.x] = scratch[(pick + threadIdx.x) & 63];
}

int supports(void*, const vsa_plugin_device*, const vsa_plugin_shape*, uint32_t, char*, size_t) { return 1; }
int forward(void*, const vsa_plugin_forward_args* a, char*, size_t) {
  spilling_kernel<<<1, 32, 0, cudaStream_t(a->stream)>>>(reinterpret_cast<const float*>(a->q), a->lse, 1, 3);
  return 0;
}

const vsa_plugin_lint_family kFamilies[] = {{"spill_plant", "_ZN11spill_plant", "sm_90", "", "", 1, nullptr}};
vsa_plugin_backend make_backend() {
  vsa_plugin_backend b{};
  b.name = "test-spill";
  b.description = "a hot kernel that spills";
  b.ops = VSA_PLUGIN_OP_FORWARD;
  b.lint_families = kFamilies;
  b.lint_family_count = 1;
  b.supports = supports;
  b.forward = forward;
  return b;
}
const vsa_plugin_backend kBackends[] = {make_backend()};
const vsa_plugin_table kTable = {VSA_PLUGIN_ABI_VERSION, "test-spill", nullptr, 0, kBackends, 1};

}  // namespace spill_plant

extern "C" VSA_PLUGIN_EXPORT const vsa_plugin_table* vsa_plugin_entry(uint32_t) { return &spill_plant::kTable; }
