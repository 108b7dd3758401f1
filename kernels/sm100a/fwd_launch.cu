// Host side of the sm100a-blk64 forward (launch.hpp): argument checks, tensor maps, one
// launch of forward_kernel (normal or probe variant), and KernelInfo.
#include <cuda_runtime.h>

#include <string>

#include "cuda_status.hpp"
#include "fwd_launch_common.cuh"
#include "fwd_kernel.cuh"
#include "kernel_info.hpp"
#include "launch.hpp"

namespace vsa::sm100a {
namespace {

static_assert(fwd::Blk64::kBlock == kBlock && fwd::Blk64::kHeadDim == kHeadDim, "one tile contract");
static_assert(fwd::kProbeSlots <= kFirstBwdProbeSlot, "forward probe slots come before the backward's");

template <bool kProbe>
[[nodiscard]] Status launch(const CUtensorMap (&maps)[4], const fwd::Params& params, unsigned grid,
                            cudaStream_t stream) {
  return fwd_host::launch_kernel(&fwd::forward_kernel<kProbe>, "sm100a forward", fwd::Blk64::kThreads,
                                 fwd::kSmemBytes<fwd::Blk64>, maps, params, grid, stream);
}

}  // namespace

Status launch_forward_blk64(const ForwardArgs& a) {
  if (Status st = fwd_host::check_forward_args(a, blk64_shape_support(a.shape), "sm100a-blk64"); !st.ok()) return st;
  const Shape& s = a.shape;
  if (s.count_elems() == 0) return Status::success();

  // Boxes of 64 rows x 64 columns.
  CUtensorMap maps[4];
  if (Status st = fwd_host::encode_qkvo_maps(maps, a, fwd::Blk64::kHeadDim, fwd::Blk64::kBlock, fwd::Blk64::kHalfCols);
      !st.ok())
    return st;
  const fwd::Params params = fwd_host::forward_params(a);

  // One CTA per pair of q blocks; nb is even, so a pair never straddles two heads.
  const unsigned grid = unsigned(s.count_elems() / fwd::Blk64::kQBlocks);
  const auto stream = static_cast<cudaStream_t>(a.stream);
  if (Status st = device::status_from(protocol::arm_hang_watch(a.hang_watch, stream)); !st.ok()) return st;
  // The probe variant also when a hang watch is set: only its waits are watched.
  return a.probes.any() || a.hang_watch.on() ? launch<true>(maps, params, grid, stream)
                                             : launch<false>(maps, params, grid, stream);
}

std::vector<KernelInfo> forward_kernels_blk64() {
  return {
      device::kernel_info(reinterpret_cast<const void*>(&fwd::forward_kernel<false>), "sm100a.fwd_blk64", true),
      device::kernel_info(reinterpret_cast<const void*>(&fwd::forward_kernel<true>), "sm100a.fwd_blk64_probe", false),
  };
}

std::string forward_image_problem() {
  return device::image_problem(reinterpret_cast<const void*>(&fwd::forward_kernel<false>), 100, "the forward kernel");
}

std::vector<std::string> forward_probe_names() {
  return {"fwd.release_s", "fwd.release_p", "fwd.issue_pv", "fwd.refill_kv",
          "fwd.epilogue",  "fwd.read_s",    "fwd.read_o",   "fwd.read_k"};
}

}  // namespace vsa::sm100a
