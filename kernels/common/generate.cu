// Device input generation and output poisoning (vsa/device_ops.hpp).
// generate_bf16 calls the same VSA_HD counter_bf16 the host uses, so the two agree bit for bit.
#include <cuda_runtime.h>

#include "cuda_status.hpp"
#include "grid_stride.cuh"
#include "vsa/device_ops.hpp"

namespace vsa::device {
namespace {

__global__ void generate_bf16_kernel(bf16_bits* dst, std::int64_t count, std::uint64_t seed, TensorId tensor,
                                     float scale) {
  for (std::int64_t i = grid_stride_begin(); i < count; i += grid_stride_step())
    dst[i] = counter_bf16(seed, tensor, std::uint64_t(i), scale);
}

template <class T>
__global__ void fill_kernel(T* dst, std::int64_t count, T pattern) {
  for (std::int64_t i = grid_stride_begin(); i < count; i += grid_stride_step()) dst[i] = pattern;
}

}  // namespace

Status generate_bf16(bf16_bits* dst, std::int64_t count, std::uint64_t seed, TensorId tensor, float scale,
                     void* stream) {
  if (count <= 0) return Status::success();
  generate_bf16_kernel<<<elementwise_blocks(count), kElementwiseThreads, 0, cudaStream_t(stream)>>>(dst, count, seed,
                                                                                                    tensor, scale);
  return last_launch_status();
}

Status poison_bf16(bf16_bits* dst, std::int64_t count, bf16_bits pattern, void* stream) {
  if (count <= 0) return Status::success();
  fill_kernel<bf16_bits>
      <<<elementwise_blocks(count), kElementwiseThreads, 0, cudaStream_t(stream)>>>(dst, count, pattern);
  return last_launch_status();
}

// The pattern is a bit pattern (a NaN payload), so fill as uint32 rather than float:
// no float conversion may quieten or canonicalise it.
Status poison_f32(float* dst, std::int64_t count, std::uint32_t pattern, void* stream) {
  if (count <= 0) return Status::success();
  fill_kernel<std::uint32_t><<<elementwise_blocks(count), kElementwiseThreads, 0, cudaStream_t(stream)>>>(
      reinterpret_cast<std::uint32_t*>(dst), count, pattern);
  return last_launch_status();
}

}  // namespace vsa::device
