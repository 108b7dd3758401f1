// Delta preprocess (backward_common.hpp): Delta[r] = dot(O[r], dO[r]) in fp32.
#include <cuda_runtime.h>

#include "backward_common.hpp"
#include "cuda_status.hpp"
#include "grid_stride.cuh"
#include "kernel_info.hpp"

namespace vsa::device {
namespace {

constexpr int kWarpSize = 32;
constexpr int kDeltaThreads = 256;

// Warp per row; each lane sums d = lane, lane + 32, ... in order, then an xor
// butterfly, so the result is the same bits on every run (and in every lane).
__global__ void __launch_bounds__(kDeltaThreads)
    compute_delta_kernel(std::int64_t rows, int head_dim, const bf16_bits* __restrict__ out,
                         const bf16_bits* __restrict__ d_out, float* __restrict__ delta) {
  const int lane = threadIdx.x % kWarpSize;
  const std::int64_t first = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / kWarpSize;
  const std::int64_t step = std::int64_t(gridDim.x) * blockDim.x / kWarpSize;
  for (std::int64_t r = first; r < rows; r += step) {
    const std::int64_t base = r * head_dim;
    float acc = 0.0f;
    for (int d = lane; d < head_dim; d += kWarpSize)
      acc = fmaf(bf16_to_float(out[base + d]), bf16_to_float(d_out[base + d]), acc);
    for (int m = kWarpSize / 2; m > 0; m /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, m);
    if (lane == 0) delta[r] = acc;
  }
}

}  // namespace

Status compute_delta(const Shape& s, const bf16_bits* out, const bf16_bits* d_out, float* delta, void* stream) {
  const std::int64_t rows = s.row_elems();
  if (rows == 0) return Status::success();
  const std::int64_t threads = rows * kWarpSize;
  const std::int64_t blocks = (threads + kDeltaThreads - 1) / kDeltaThreads;
  const unsigned grid = unsigned(blocks < kMaxElementwiseBlocks ? blocks : kMaxElementwiseBlocks);
  compute_delta_kernel<<<grid, kDeltaThreads, 0, cudaStream_t(stream)>>>(rows, s.head_dim, out, d_out, delta);
  return last_launch_status();
}

KernelInfo compute_delta_kernel_info() {
  return kernel_info(reinterpret_cast<const void*>(&compute_delta_kernel), "common.compute_delta", false);
}

}  // namespace vsa::device
