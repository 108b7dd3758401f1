// Planted bad writes: one far out of bounds (an illegal address), one NaN.
#include <cuda_runtime.h>

#include "cuda_status.hpp"
#include "kernel_info.hpp"
#include "planted_launch.hpp"

namespace vsa::selftest {
namespace {

// 2^39 bf16 elements = 1 TiB past the buffer: no allocation of this process reaches
// that far, so the store is an illegal address on every GPU.
constexpr std::int64_t kFarPastEnd = std::int64_t(1) << 39;

__global__ void out_of_bounds_write_kernel(bf16_bits* out) {
  if (blockIdx.x == 0 && threadIdx.x == 0) out[kFarPastEnd] = 0;
}

// 0x7fc0 is the canonical bf16 quiet NaN, distinct from the poison sentinel (0x7fa5),
// so the harness counts it as a NaN the kernel produced, not as an unwritten element.
constexpr bf16_bits kQuietNan = 0x7fc0;

__global__ void write_nan_kernel(bf16_bits* out, std::int64_t index) {
  if (blockIdx.x == 0 && threadIdx.x == 0) out[index] = kQuietNan;
}

}  // namespace

Status launch_out_of_bounds_write(bf16_bits* out, void* stream) {
  out_of_bounds_write_kernel<<<1, 32, 0, cudaStream_t(stream)>>>(out);
  return device::last_launch_status();
}

Status launch_write_nan(bf16_bits* out, std::int64_t index, void* stream) {
  write_nan_kernel<<<1, 32, 0, cudaStream_t(stream)>>>(out, index);
  return device::last_launch_status();
}

KernelInfo out_of_bounds_kernel_info() {
  return device::kernel_info(reinterpret_cast<const void*>(&out_of_bounds_write_kernel), "selftest.out_of_bounds_write",
                             false);
}

KernelInfo write_nan_kernel_info() {
  return device::kernel_info(reinterpret_cast<const void*>(&write_nan_kernel), "selftest.write_nan", false);
}

}  // namespace vsa::selftest
