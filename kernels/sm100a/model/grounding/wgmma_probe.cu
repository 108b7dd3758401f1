// See wgmma_probe.hpp. Hopper's wgmma reads shared memory through the same canonical
// layouts (PTX ISA 9.7.15.5.1, "Shared Memory Matrix Layout") that tcgen05.mma does; its
// descriptor differs only in the field positions of the swizzle mode (bits 62-63, 1 = 128B)
// and has no fixed version bits.
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda_status.hpp"
#include "wgmma_probe.hpp"

namespace vsa::model::grounding {
namespace {

#if defined(__CUDA_ARCH_FEAT_SM90_ALL) || !defined(__CUDA_ARCH__)
__device__ std::uint64_t hopper_desc(std::uint32_t addr, std::uint32_t lbo, std::uint32_t sbo) {
  return std::uint64_t((addr & 0x3FFFFu) >> 4) | (std::uint64_t((lbo & 0x3FFFFu) >> 4) << 16) |
         (std::uint64_t((sbo & 0x3FFFFu) >> 4) << 32) | (std::uint64_t(1) << 62);
}
#endif

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
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  __syncthreads();
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  const unsigned b_addr = unsigned(__cvta_generic_to_shared(base)) + b_off;
  const std::uint64_t da = hopper_desc(unsigned(__cvta_generic_to_shared(base)) + a_off, 16, a_sbo);
  const std::uint64_t db = hopper_desc(b_addr, b_lbo, b_sbo);
  float d[64];
  for (int i = 0; i < 64; ++i) d[i] = 0.0f;
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
  if (b_mn_major) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\nwgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {%0, %1, %2, "
        "%3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, "
        "%26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, p, 1, 1, 0, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]),
          "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]),
          "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),
          "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]),
          "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]),
          "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
          "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]),
          "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
        : "l"(da), "l"(db), "r"(0)
        : "memory");
  } else {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\nwgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {%0, %1, %2, "
        "%3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, "
        "%26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, p, 1, 1, 0, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]),
          "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]),
          "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),
          "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]),
          "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]),
          "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
          "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]),
          "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
        : "l"(da), "l"(db), "r"(0)
        : "memory");
  }
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
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
