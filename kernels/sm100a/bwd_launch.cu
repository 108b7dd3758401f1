// Host side of the sm100a-blk64 backward (launch.hpp): argument checks, workspace layout,
// tensor maps and the launch sequence, all stream-ordered on args.stream with no host sync
// and nothing kept between calls:
//   Delta preprocess (kernels/common) -> zero the fp32 dQ accumulator -> [from 1024 kv items:
//   longest-first order (kernels/common)] -> backward_kernel (one CTA per kv item) ->
//   dQ postprocess (kernels/common).
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "backward_common.hpp"
#include "bwd_host_params.hpp"
#include "bwd_kernel.cuh"
#include "cuda_status.hpp"
#include "kernel_info.hpp"
#include "launch.hpp"
#include "order_by_count.hpp"

namespace vsa::sm100a {
namespace {

static_assert(bwd::Config::kBlock == kBlock && bwd::Config::kHeadDim == kHeadDim, "one tile contract");
static_assert(kFirstBwdProbeSlot + bwd::kProbeSlots <= kMaxProbePoints, "backward probe slots fit ProbeDelays");

constexpr std::size_t kWorkspaceAlign = 256;
constexpr std::size_t align_up(std::size_t bytes) {
  return (bytes + kWorkspaceAlign - 1) / kWorkspaceAlign * kWorkspaceAlign;
}

[[nodiscard]] bool ordered(const Shape& s) { return s.count_elems() >= bwd::Config::kOrderFromItems; }

// Workspace, in this order (each part 256-byte aligned):
//   Delta [B*H*S] fp32 | dQ accumulator [B*H*S*D] fp32 | from 1024 kv items: order [B*H*nb] int32
struct WorkspaceLayout {
  std::size_t delta = 0, dq_accum = 0, order = 0, total = 0;
  explicit WorkspaceLayout(const Shape& s) {
    dq_accum = delta + align_up(std::size_t(s.row_elems()) * sizeof(float));
    order = dq_accum + align_up(std::size_t(s.tensor_elems()) * sizeof(float));
    total = order + (ordered(s) ? align_up(std::size_t(s.count_elems()) * sizeof(std::int32_t)) : 0);
  }
};

template <bool kProbe>
[[nodiscard]] Status launch(const CUtensorMap (&maps)[4], const bwd::Params& params, unsigned grid,
                            cudaStream_t stream) {
  auto* kernel = &bwd::backward_kernel<kProbe>;
  if (Status st = device::status_from(
          cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bwd::kSmemBytes)));
      !st.ok())
    return Status::failure("cudaFuncSetAttribute(sm100a backward smem): " + st.error);
  kernel<<<grid, bwd::Config::kThreads, bwd::kSmemBytes, stream>>>(maps[0], maps[1], maps[2], maps[3], params);
  return device::last_launch_status();
}

}  // namespace

std::size_t backward_workspace_bytes_blk64(const Shape& shape) { return WorkspaceLayout(shape).total; }

Status launch_backward_blk64(const BackwardArgs& a) {
  if (Status st = bwd_host::check_args(a); !st.ok()) return st;
  const Shape& s = a.shape;
  if (s.count_elems() == 0) return Status::success();
  const auto stream = static_cast<cudaStream_t>(a.stream);
  const WorkspaceLayout layout(s);
  auto* ws = static_cast<unsigned char*>(a.workspace);
  auto* delta = reinterpret_cast<float*>(ws + layout.delta);
  auto* dq_accum = reinterpret_cast<float*>(ws + layout.dq_accum);
  auto* order = ordered(s) ? reinterpret_cast<std::int32_t*>(ws + layout.order) : nullptr;

  CUtensorMap maps[4];
  if (Status st = bwd_host::encode_maps(maps, a); !st.ok()) return st;
  const bwd::Params params = bwd_host::backward_params(a, delta, dq_accum, order);
  // The probe variant also when a hang watch is set: only its waits are watched.
  bool probed = a.hang_watch.on();
  for (std::uint32_t ns : params.probe_ns) probed = probed || ns != 0;

  if (Status st = device::compute_delta(s, a.out, a.d_out, delta, a.stream); !st.ok()) return st;
  if (Status st =
          device::status_from(cudaMemsetAsync(dq_accum, 0, std::size_t(s.tensor_elems()) * sizeof(float), stream));
      !st.ok())
    return st;
  if (order != nullptr)
    if (Status st = device::order_by_count_desc(a.k2q_num, s.count_elems(), s.max_q, order, a.stream); !st.ok())
      return st;
  const unsigned grid = unsigned(s.count_elems());  // one CTA per (b, h, kv block)
  if (Status st = device::status_from(protocol::arm_hang_watch(a.hang_watch, stream)); !st.ok()) return st;
  if (Status st = probed ? launch<true>(maps, params, grid, stream) : launch<false>(maps, params, grid, stream);
      !st.ok())
    return st;
  return device::postprocess_dq(s, dq_accum, params.scale, a.dq, a.stream);
}

std::vector<KernelInfo> backward_kernels_blk64() {
  return {
      device::compute_delta_kernel_info(),
      device::order_by_count_kernel_info(),
      device::kernel_info(reinterpret_cast<const void*>(&bwd::backward_kernel<false>), "sm100a.bwd_blk64", true),
      device::kernel_info(reinterpret_cast<const void*>(&bwd::backward_kernel<true>), "sm100a.bwd_blk64_probe", false),
      device::postprocess_dq_kernel_info(),
  };
}

std::string backward_image_problem() {
  return device::image_problem(reinterpret_cast<const void*>(&bwd::backward_kernel<false>), 100, "the backward kernel");
}

std::vector<std::string> backward_probe_names() {
  return {"bwd.release", "bwd.hand_over", "bwd.store", "bwd.read_st", "bwd.read_dq", "bwd.read_dkdv", "bwd.read_stat"};
}

}  // namespace vsa::sm100a
