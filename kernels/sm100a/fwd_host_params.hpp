#pragma once
// Host side shared by the two sm100a forwards (blk64 and blk128, which share fwd::Params):
// argument checks, the Q/K/V/O tensor maps and the kernel parameters. Plain C++ (no launch
// syntax), so the execution model (model/) reuses it; the launch is fwd_launch_common.cuh's.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "fwd_storage.cuh"
#include "launch.hpp"
#include "tensor_map.hpp"

namespace vsa::sm100a::fwd_host {

// TMA tensor maps need a 16-byte aligned global base (cuTensorMapEncodeTiled).
inline bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

// `backend` names the backend in messages ("sm100a-blk64"); `shape` is its shape rule's verdict.
[[nodiscard]] inline Status check_forward_args(const ForwardArgs& a, const Support& shape, const std::string& backend) {
  if (!shape.ok) return Status::failure(backend + ": " + shape.reason);
  const Shape& s = a.shape;
  if (s.batch < 0 || s.heads < 0 || s.num_blocks < 0 || s.max_kv < 0) return Status::failure("negative shape field");
  if (!a.q || !a.k || !a.v || !a.q2k_num || !a.vbs || !a.out || !a.lse) return Status::failure("null tensor pointer");
  if (s.max_kv > 0 && !a.q2k_idx) return Status::failure("null q2k_idx");
  if (!aligned16(a.q) || !aligned16(a.k) || !aligned16(a.v) || !aligned16(a.out))
    return Status::failure(backend + " forward: q, k, v and out must be 16-byte aligned (TMA tensor maps)");
  return Status::success();
}

// Q, K, V, O as [B * H * S, D] matrices, boxes of box_rows x half_cols (128-byte swizzle).
[[nodiscard]] inline Status encode_qkvo_maps(CUtensorMap (&maps)[4], const ForwardArgs& a, int head_dim, int box_rows,
                                             int half_cols) {
  const std::uint64_t rows = std::uint64_t(a.shape.row_elems());
  const void* bases[4] = {a.q, a.k, a.v, a.out};
  for (int i = 0; i < 4; ++i)
    if (Status st = device::make_tensor_map_bf16_sw128(&maps[i], bases[i], rows, head_dim, box_rows, half_cols);
        !st.ok())
      return st;
  return Status::success();
}

[[nodiscard]] inline fwd::Params forward_params(const ForwardArgs& a) {
  fwd::Params params{};
  params.q2k_idx = a.q2k_idx;
  params.q2k_num = a.q2k_num;
  params.vbs = a.vbs;
  params.lse = a.lse;
  params.num_blocks = a.shape.num_blocks;
  params.max_kv = a.shape.max_kv;
  params.scale_log2 = float(1.4426950408889634 / std::sqrt(double(a.shape.head_dim)));
  for (int i = 0; i < fwd::kProbeSlots; ++i) {
    params.probe_ns[i] = a.probes.nanoseconds[i];
    params.probe_warps[i] = a.probes.warps[i];
  }
  return params;
}

}  // namespace vsa::sm100a::fwd_host
