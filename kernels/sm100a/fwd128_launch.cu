// Host side of the sm100a-blk128 forward (launch.hpp): argument checks, tensor maps with
// 128-row boxes, one launch of forward_kernel (normal or probe variant), and KernelInfo.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "cuda_status.hpp"
#include "fwd128_kernel.cuh"
#include "kernel_info.hpp"
#include "launch.hpp"
#include "tensor_map.hpp"

namespace vsa::sm100a {
namespace {

static_assert(fwd128::Config::kBlock == kBlock128 && fwd128::Config::kHeadDim == kHeadDim, "one tile contract");

// TMA tensor maps need a 16-byte aligned global base (cuTensorMapEncodeTiled).
bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

[[nodiscard]] Status check_args(const ForwardArgs& a) {
  if (const Support s = blk128_shape_support(a.shape); !s.ok) return Status::failure("sm100a-blk128: " + s.reason);
  const Shape& s = a.shape;
  if (s.batch < 0 || s.heads < 0 || s.num_blocks < 0 || s.max_kv < 0) return Status::failure("negative shape field");
  if (!a.q || !a.k || !a.v || !a.q2k_num || !a.vbs || !a.out || !a.lse) return Status::failure("null tensor pointer");
  if (s.max_kv > 0 && !a.q2k_idx) return Status::failure("null q2k_idx");
  if (!aligned16(a.q) || !aligned16(a.k) || !aligned16(a.v) || !aligned16(a.out))
    return Status::failure("sm100a-blk128 forward: q, k, v and out must be 16-byte aligned (TMA tensor maps)");
  return Status::success();
}

template <bool kProbe>
[[nodiscard]] Status launch(const CUtensorMap (&maps)[4], const fwd::Params& params, unsigned grid,
                            cudaStream_t stream) {
  auto* kernel = &fwd128::forward_kernel<kProbe>;
  if (Status st = device::status_from(
          cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(fwd128::kSmemBytes)));
      !st.ok())
    return Status::failure("cudaFuncSetAttribute(sm100a blk128 forward smem): " + st.error);
  kernel<<<grid, fwd128::Config::kThreads, fwd128::kSmemBytes, stream>>>(maps[0], maps[1], maps[2], maps[3], params);
  return device::last_launch_status();
}

}  // namespace

Status launch_forward_blk128(const ForwardArgs& a) {
  if (Status st = check_args(a); !st.ok()) return st;
  const Shape& s = a.shape;
  if (s.count_elems() == 0) return Status::success();

  // Q, K, V, O as [B * H * S, D] matrices, boxes of 128 rows x 64 columns (128-byte swizzle).
  const std::uint64_t rows = std::uint64_t(s.row_elems());
  const void* bases[4] = {a.q, a.k, a.v, a.out};
  CUtensorMap maps[4];
  for (int i = 0; i < 4; ++i)
    if (Status st = device::make_tensor_map_bf16_sw128(&maps[i], bases[i], rows, fwd128::Config::kHeadDim,
                                                       fwd128::Config::kBlock, fwd128::Config::kHalfCols);
        !st.ok())
      return st;

  fwd::Params params{};
  params.q2k_idx = a.q2k_idx;
  params.q2k_num = a.q2k_num;
  params.vbs = a.vbs;
  params.lse = a.lse;
  params.num_blocks = s.num_blocks;
  params.max_kv = s.max_kv;
  params.scale_log2 = float(1.4426950408889634 / std::sqrt(double(s.head_dim)));
  for (int i = 0; i < fwd::kProbeSlots; ++i) params.probe_ns[i] = a.probes.nanoseconds[i];

  const unsigned grid = unsigned(s.count_elems());  // one CTA per q block
  const auto stream = static_cast<cudaStream_t>(a.stream);
  return a.probes.any() ? launch<true>(maps, params, grid, stream) : launch<false>(maps, params, grid, stream);
}

std::vector<KernelInfo> forward_kernels_blk128() {
  return {
      device::kernel_info(reinterpret_cast<const void*>(&fwd128::forward_kernel<false>), "sm100a.fwd_blk128", true),
      device::kernel_info(reinterpret_cast<const void*>(&fwd128::forward_kernel<true>), "sm100a.fwd_blk128_probe",
                          false),
  };
}

bool forward_blk128_image_loads() {
  cudaFuncAttributes attr{};
  const cudaError_t e = cudaFuncGetAttributes(&attr, reinterpret_cast<const void*>(&fwd128::forward_kernel<false>));
  if (e != cudaSuccess) {
    (void)cudaGetLastError();  // not sticky: keep it out of the next launch's status
    return false;
  }
  return attr.binaryVersion == 100;
}

}  // namespace vsa::sm100a
