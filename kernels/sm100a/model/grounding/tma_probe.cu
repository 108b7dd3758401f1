// See tma_probe.hpp. The load is issued exactly as the sm100a kernels issue theirs (the CCCL
// cuda::ptx wrappers of sm100a_ptx.cuh), on a tensor map from the real driver encoder.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cuda/ptx>

#include "cuda_status.hpp"
#include "tensor_map.hpp"
#include "tma_probe.hpp"

namespace vsa::model::grounding {
namespace {

__global__ void tma_box_kernel(const __grid_constant__ CUtensorMap map, int x, int y, unsigned bytes,
                               unsigned char* out) {
  extern __shared__ __align__(1024) unsigned char smem[];
  __shared__ std::uint64_t bar;
  const unsigned raw = unsigned(__cvta_generic_to_shared(smem));
  unsigned char* box = smem + ((1024u - (raw & 1023u)) & 1023u);  // a swizzle-atom boundary
  if (threadIdx.x == 0) {
    cuda::ptx::mbarrier_init(&bar, 1);
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    (void)cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared,
                                               &bar, bytes);
    const std::int32_t coords[2] = {x, y};
    cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, box, &map, coords, &bar);
  }
  while (!cuda::ptx::mbarrier_try_wait_parity(&bar, 0)) {
  }
  for (unsigned i = threadIdx.x; i < bytes; i += blockDim.x) out[i] = box[i];
}

Status launch_and_copy(const CUtensorMap& map, int x, int y, unsigned bytes, int smem, unsigned char* out,
                       std::vector<unsigned char>& smem_bytes) {
  if (const Status st =
          device::status_from(cudaFuncSetAttribute(tma_box_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
      !st.ok())
    return st;
  tma_box_kernel<<<1, 128, smem>>>(map, x, y, bytes, out);
  if (const Status st = device::status_from(cudaDeviceSynchronize()); !st.ok()) return st;
  smem_bytes.resize(bytes);
  return device::status_from(cudaMemcpy(smem_bytes.data(), out, bytes, cudaMemcpyDeviceToHost));
}

}  // namespace

Status tma_box_on_device(const void* matrix, std::uint64_t rows, std::uint64_t cols, std::uint32_t box_rows, int x,
                         int y, std::vector<unsigned char>& smem_bytes) {
  CUtensorMap map;
  if (Status st = device::make_tensor_map_bf16_sw128(&map, matrix, rows, cols, box_rows, 64); !st.ok()) return st;
  const unsigned bytes = box_rows * 64u * 2u;
  unsigned char* out = nullptr;
  if (Status st = device::status_from(cudaMalloc(&out, bytes)); !st.ok()) return st;
  const int smem = int(bytes) + 1024;
  const Status st = launch_and_copy(map, x, y, bytes, smem, out, smem_bytes);
  (void)cudaFree(out);
  return st;
}

}  // namespace vsa::model::grounding
