#pragma once
// Launch geometry for the 1-D elementwise kernels of kernels/common: grid-stride
// loops over int64 counts, so tensors past 2^31 elements are fine and the grid
// stays bounded.
#include <cstdint>

namespace vsa::device {

inline constexpr int kElementwiseThreads = 256;
// Enough CTAs to fill any current GPU many times over; larger counts loop.
inline constexpr std::int64_t kMaxElementwiseBlocks = 1 << 16;

inline unsigned elementwise_blocks(std::int64_t count) {
  const std::int64_t needed = (count + kElementwiseThreads - 1) / kElementwiseThreads;
  return unsigned(needed < 1 ? 1 : (needed > kMaxElementwiseBlocks ? kMaxElementwiseBlocks : needed));
}

__device__ __forceinline__ std::int64_t grid_stride_begin() {
  return std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ std::int64_t grid_stride_step() { return std::int64_t(gridDim.x) * blockDim.x; }

}  // namespace vsa::device
