// Example plugin: a CUDA forward in the SDK's terms, self-contained (vsa/plugin.h and
// vsa/probe.cuh only). One thread per output element (row, d) recomputes its row's scores:
// slow and simple, so the interface is what this file shows. It declares a lint family so
// `vsa-bench lint --plugin` holds it to the hot-kernel rules, and a probe point.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>

#include "vsa/plugin.h"
#include "vsa/probe.cuh"

namespace example_cuda {

__device__ float bf16_to_float(uint16_t b) { return __uint_as_float(uint32_t(b) << 16); }
__device__ uint16_t float_to_bf16(float f) {  // round to nearest even (outputs here are finite)
  const uint32_t u = __float_as_uint(f);
  return uint16_t((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

__global__ void forward_kernel(vsa_plugin_forward_args a) {
  const vsa_plugin_shape s = a.shape;
  const int64_t S = int64_t(s.num_blocks) * s.block, D = s.head_dim;
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= int64_t(s.batch) * s.heads * S * D) return;
  const int64_t row = i / D, d = i % D, bh = row / S, list = bh * s.num_blocks + (row % S) / s.block;
  const float scale = rsqrtf(float(D)) * 1.4426950408889634f;  // base 2 throughout
  float m = -INFINITY, l = 0.0f, acc = 0.0f;
  for (int e = 0; e < a.q2k_num[list]; ++e) {
    const int kb = a.q2k_idx[list * s.max_kv + e];
    for (int t = 0; t < a.vbs[kb]; ++t) {
      const int64_t key = (bh * S + int64_t(kb) * s.block + t) * D;
      float dot = 0.0f;
      for (int64_t c = 0; c < D; ++c) dot += bf16_to_float(a.q[row * D + c]) * bf16_to_float(a.k[key + c]);
      const float x = dot * scale, m_new = fmaxf(m, x), rescale = exp2f(m - m_new), p = exp2f(x - m_new);
      acc = acc * rescale + p * bf16_to_float(a.v[key + d]);
      l = l * rescale + p;
      m = m_new;
    }
  }
  VSA_PROBE(a.probes, 0);  // "fwd.before_store"
  a.out[i] = float_to_bf16(l > 0.0f ? acc / l : 0.0f);
  if (d == 0) a.lse[row] = l > 0.0f ? m + log2f(l) : -INFINITY;
}

int supports(void*, const vsa_plugin_device* dev, const vsa_plugin_shape*, uint32_t, char* reason, size_t n) {
  if (dev->ordinal < 0) return std::snprintf(reason, n, "no CUDA device"), 0;
  if (dev->cc_major != 9 && dev->cc_major != 10)
    return std::snprintf(reason, n, "built for sm_90 and sm_100, device is %d.%d", dev->cc_major, dev->cc_minor), 0;
  return 1;
}

int forward(void*, const vsa_plugin_forward_args* a, char* error, size_t n) {
  const int64_t total =
      int64_t(a->shape.batch) * a->shape.heads * a->shape.num_blocks * a->shape.block * a->shape.head_dim;
  const int threads = 128;
  forward_kernel<<<unsigned((total + threads - 1) / threads), threads, 0, cudaStream_t(a->stream)>>>(*a);
  const cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) return 0;
  std::snprintf(error, n, "%s: %s", cudaGetErrorName(e), cudaGetErrorString(e));
  return 1;
}

const char* const kProbes[] = {"fwd.before_store", nullptr};
const char* const kImages[] = {"sm_90", "sm_100", nullptr};
// Mangled names of this namespace's kernels start with _ZN12example_cuda.
const vsa_plugin_lint_family kFamilies[] = {{"example_cuda", "_ZN12example_cuda", "sm_90", "", "", 1, nullptr}};
// Field by field (nvcc compiles this file as C++17: no designated initializers).
vsa_plugin_backend make_backend() {
  vsa_plugin_backend b{};
  b.name = "example-cuda";
  b.description = "example plugin: CUDA forward, one thread per output element (examples/plugins/cuda_forward.cu)";
  b.memory = VSA_PLUGIN_MEMORY_DEVICE;
  b.ops = VSA_PLUGIN_OP_FORWARD;
  b.probe_points = kProbes;
  b.probe_warp_masks = 1;
  b.compiled_images = kImages;
  b.lint_families = kFamilies;
  b.lint_family_count = 1;
  b.supports = supports;
  b.forward = forward;
  return b;
}
const vsa_plugin_backend kBackends[] = {make_backend()};
const vsa_plugin_build_item kBuild[] = {{"example", "cuda_forward.cu"}, {"cuda", VSA_EXAMPLE_CUDA_VERSION}};
const vsa_plugin_table kTable = {VSA_PLUGIN_ABI_VERSION, "example-cuda", kBuild, 2, kBackends, 1};

}  // namespace example_cuda

extern "C" VSA_PLUGIN_EXPORT const vsa_plugin_table* vsa_plugin_entry(uint32_t) { return &example_cuda::kTable; }
