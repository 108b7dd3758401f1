// dQ postprocess (backward_common.hpp): fp32 accumulator * scale -> bf16.
#include <cuda_runtime.h>

#include "backward_common.hpp"
#include "cuda_status.hpp"
#include "grid_stride.cuh"
#include "kernel_info.hpp"

namespace vsa::device {
namespace {

__global__ void postprocess_dq_kernel(std::int64_t count, const float* __restrict__ dq_accum, float scale,
                                      bf16_bits* __restrict__ dq) {
  for (std::int64_t i = grid_stride_begin(); i < count; i += grid_stride_step())
    dq[i] = float_to_bf16(dq_accum[i] * scale);
}

}  // namespace

Status postprocess_dq(const Shape& s, const float* dq_accum, float scale, bf16_bits* dq, void* stream) {
  const std::int64_t count = s.tensor_elems();
  if (count == 0) return Status::success();
  postprocess_dq_kernel<<<elementwise_blocks(count), kElementwiseThreads, 0, cudaStream_t(stream)>>>(count, dq_accum,
                                                                                                     scale, dq);
  return last_launch_status();
}

KernelInfo postprocess_dq_kernel_info() {
  return kernel_info(reinterpret_cast<const void*>(&postprocess_dq_kernel), "common.postprocess_dq", false);
}

}  // namespace vsa::device
