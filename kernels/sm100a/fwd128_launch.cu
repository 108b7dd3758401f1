// Host side of the sm100a-blk128 forward (launch.hpp): argument checks, tensor maps with
// 128-row boxes, one launch of forward_kernel (normal or probe variant), and KernelInfo.
#include <cuda_runtime.h>

#include "cuda_status.hpp"
#include "fwd_launch_common.cuh"
#include "fwd_kernel.cuh"
#include "kernel_info.hpp"
#include "launch.hpp"

namespace vsa::sm100a {
namespace {

static_assert(fwd::Blk128::kBlock == kBlock128 && fwd::Blk128::kHeadDim == kHeadDim, "one tile contract");

template <bool kProbe>
[[nodiscard]] Status launch(const CUtensorMap (&maps)[4], const fwd::Params& params, unsigned grid,
                            cudaStream_t stream) {
  return fwd_host::launch_kernel(&fwd128::forward_kernel<kProbe>, "sm100a blk128 forward", fwd::Blk128::kThreads,
                                 fwd::kSmemBytes<fwd::Blk128>, maps, params, grid, stream);
}

}  // namespace

Status launch_forward_blk128(const ForwardArgs& a) {
  if (Status st = fwd_host::check_forward_args(a, blk128_shape_support(a.shape), "sm100a-blk128"); !st.ok()) return st;
  const Shape& s = a.shape;
  if (s.count_elems() == 0) return Status::success();

  // Boxes of 128 rows x 64 columns.
  CUtensorMap maps[4];
  if (Status st =
          fwd_host::encode_qkvo_maps(maps, a, fwd::Blk128::kHeadDim, fwd::Blk128::kBlock, fwd::Blk128::kHalfCols);
      !st.ok())
    return st;
  const fwd::Params params = fwd_host::forward_params(a);

  const unsigned grid = unsigned(s.count_elems());  // one CTA per q block
  const auto stream = static_cast<cudaStream_t>(a.stream);
  if (Status st = device::status_from(protocol::arm_hang_watch(a.hang_watch, stream)); !st.ok()) return st;
  // The probe variant also when a hang watch is set: only its waits are watched.
  return a.probes.any() || a.hang_watch.on() ? launch<true>(maps, params, grid, stream)
                                             : launch<false>(maps, params, grid, stream);
}

std::vector<KernelInfo> forward_kernels_blk128() {
  return {
      device::kernel_info(reinterpret_cast<const void*>(&fwd128::forward_kernel<false>), "sm100a.fwd_blk128", true),
      device::kernel_info(reinterpret_cast<const void*>(&fwd128::forward_kernel<true>), "sm100a.fwd_blk128_probe",
                          false),
  };
}

std::string forward_blk128_image_problem() {
  return device::image_problem(reinterpret_cast<const void*>(&fwd128::forward_kernel<false>), 100,
                               "the blk128 forward kernel");
}

}  // namespace vsa::sm100a
