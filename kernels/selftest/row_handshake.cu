// Planted hang (docs/spec.md bug class 7): a producer -> consumer hand-off that a row
// with no selected kv blocks never completes. With a hang watch the consumer's wait is
// bounded (kernels/common/hang_watch.cuh) and the record names row_done, the consumer
// role, step 0 and the q block; without one it spins until the harness calls it HANG.
#include <cuda_runtime.h>

#include "cuda_status.hpp"
#include "hang_watch.cuh"
#include "kernel_info.hpp"
#include "mbarrier.cuh"
#include "planted_launch.hpp"

namespace vsa::selftest {
namespace {

constexpr int kWarpSize = 32;
constexpr int kHandshakeThreads = 2 * kWarpSize;  // warp 0 produces, warp 1 consumes

// One CTA per (b, h, q block).
__global__ void __launch_bounds__(kHandshakeThreads)
    row_handshake_kernel(const std::int32_t* q2k_num, HangWatch watch) {
  __shared__ std::uint64_t row_done;  // producer -> consumer: every entry of this q block's list is in
  if (threadIdx.x == 0) mbarrier_init(&row_done, 1);
  __syncthreads();
  const int entries = q2k_num[blockIdx.x];
  if (threadIdx.x / kWarpSize == 0) {
    if (threadIdx.x == 0)
      for (int n = 0; n < entries; ++n) {
        // (a real producer would issue entry n's loads here)
        // Planted: the arrive sits inside the loop, so a row with 0 entries never arrives.
        if (n == entries - 1) mbarrier_arrive(&row_done);
      }
  } else {
    constexpr HangSite kSite{hang_label("selftest.row_handshake"), hang_label("consumer"), hang_label("row_done")};
    hang::wait_parity([&] { return mbarrier_test_wait(&row_done, 0); }, 0, watch, kSite,
                      hang::WaitPoint{0, entries, int(blockIdx.x)});
  }
}

}  // namespace

Status launch_row_handshake(const Shape& shape, const std::int32_t* q2k_num, const HangWatch& watch, void* stream) {
  const std::int64_t ctas = shape.count_elems();
  if (ctas <= 0) return Status::success();
  if (ctas > 0x7fffffff) return Status::failure("selftest-deadlock: B*H*nb too large for one grid");
  row_handshake_kernel<<<unsigned(ctas), kHandshakeThreads, 0, cudaStream_t(stream)>>>(q2k_num, watch);
  return device::last_launch_status();
}

KernelInfo row_handshake_kernel_info() {
  return device::kernel_info(reinterpret_cast<const void*>(&row_handshake_kernel), "selftest.row_handshake", false);
}

}  // namespace vsa::selftest
