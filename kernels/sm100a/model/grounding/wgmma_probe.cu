// See wgmma_probe.hpp. Hopper's wgmma reads shared memory through the same canonical
// layouts (PTX ISA 9.7.15.5.1, "Shared Memory Matrix Layout") that tcgen05.mma does; its
// descriptor differs only in the field positions of the swizzle mode (bits 62-63, 1 = 128B)
// and has no fixed version bits. The probe issues it through the sm90a kernels' own wrappers
// (kernels/sm90a/sm90a_common.cuh: the descriptor, fence, mma, commit, wait), so the model is
// grounded on the instruction path the Hopper kernels take, not on a copy of it.
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda_status.hpp"
#include "sm90a_common.cuh"
#include "wgmma_probe.hpp"

namespace vsa::model::grounding {
namespace {

// One warpgroup: D[64 x 128] = A[64 x 16] B (B K-major or MN-major), f32 accumulators,
// written out as row-major D with the m64nNk16 f32 fragment layout (thread t: warp w = t / 32,
// lane l; register 4i + {0,1,2,3} holds (16w + l/4 + {0,0,8,8}, 8i + 2 (l%4) + {0,1,0,1})).
__global__ void __launch_bounds__(128)
    wgmma_kernel(const unsigned char* image, unsigned image_bytes, unsigned a_off, unsigned a_sbo, unsigned b_off,
                 unsigned b_lbo, unsigned b_sbo, int b_mn_major, float* out) {
  extern __shared__ __align__(1024) unsigned char smem[];
  const unsigned raw = unsigned(__cvta_generic_to_shared(smem));
  unsigned char* base = smem + ((1024u - (raw & 1023u)) & 1023u);
  for (unsigned i = threadIdx.x; i < image_bytes; i += blockDim.x) base[i] = image[i];
  sm90a::fence_proxy_async_smem();
  __syncthreads();
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using namespace vsa::sm90a;
  const std::uint64_t da = smem_desc_sw128(smem_addr(base) + a_off, 16, a_sbo);
  const std::uint64_t db = smem_desc_sw128(smem_addr(base) + b_off, b_lbo, b_sbo);
  float d[64];
  for (int i = 0; i < 64; ++i) d[i] = 0.0f;
  wgmma_fence();
  if (b_mn_major)
    wgmma_m64n128k16_ss<0, 1>(d, da, db, 0);
  else
    wgmma_m64n128k16_ss<0, 0>(d, da, db, 0);
  wgmma_commit();
  wgmma_wait<0>();
  keep_live(d);
  const int w = int(threadIdx.x) / 32, l = int(threadIdx.x) % 32;
  for (int i = 0; i < 16; ++i)
    for (int e = 0; e < 4; ++e) {
      const int row = 16 * w + l / 4 + (e >= 2 ? 8 : 0), col = 8 * i + 2 * (l % 4) + (e % 2);
      out[row * 128 + col] = d[4 * i + e];
    }
#else
  __trap();  // wgmma exists on sm_90a only
#endif
}

Status launch(const unsigned char* image, unsigned bytes, const WgmmaOperands& o, float* out) {
  const int smem = int(bytes) + 1024;
  if (const Status st =
          device::status_from(cudaFuncSetAttribute(wgmma_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
      !st.ok())
    return st;
  wgmma_kernel<<<1, 128, smem>>>(image, bytes, o.a_offset, o.a_sbo, o.b_offset, o.b_lbo, o.b_sbo, o.b_mn_major ? 1 : 0,
                                 out);
  return device::status_from(cudaDeviceSynchronize());
}

}  // namespace

Status run_on(unsigned char* dev_image, float* dev_out, const std::vector<unsigned char>& image, const WgmmaOperands& o,
              std::vector<float>& d) {
  if (const Status st = device::status_from(cudaMemcpy(dev_image, image.data(), image.size(), cudaMemcpyHostToDevice));
      !st.ok())
    return st;
  if (const Status st = launch(dev_image, unsigned(image.size()), o, dev_out); !st.ok()) return st;
  d.resize(64 * 128);
  return device::status_from(cudaMemcpy(d.data(), dev_out, d.size() * sizeof(float), cudaMemcpyDeviceToHost));
}

Status wgmma_on_device(const std::vector<unsigned char>& image, const WgmmaOperands& o, std::vector<float>& d) {
  unsigned char* dev_image = nullptr;
  float* dev_out = nullptr;
  if (const Status st = device::status_from(cudaMalloc(&dev_image, image.size())); !st.ok()) return st;
  if (const Status st = device::status_from(cudaMalloc(&dev_out, 64 * 128 * sizeof(float))); !st.ok()) {
    (void)cudaFree(dev_image);
    return st;
  }
  const Status st = run_on(dev_image, dev_out, image, o, d);
  (void)cudaFree(dev_image);
  (void)cudaFree(dev_out);
  return st;
}

}  // namespace vsa::model::grounding
