#pragma once
// Host side of the sm100a-blk64 backward that needs no launch syntax: argument checks, the
// Q/K/V/dO tensor maps and the kernel parameters. Shared by bwd_launch.cu and the execution
// model (model/).
#include <cmath>
#include <cstdint>
#include <string>

#include "bwd_storage.cuh"
#include "launch.hpp"
#include "tensor_map.hpp"

namespace vsa::sm100a::bwd_host {

inline bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

[[nodiscard]] inline Status check_args(const BackwardArgs& a) {
  if (const Support s = blk64_backward_shape_support(a.shape); !s.ok)
    return Status::failure("sm100a-blk64 backward: " + s.reason);
  const Shape& s = a.shape;
  if (s.batch < 0 || s.heads < 0 || s.num_blocks < 0 || s.max_q < 0) return Status::failure("negative shape field");
  if (!a.q || !a.k || !a.v || !a.out || !a.d_out || !a.lse || !a.k2q_num || !a.vbs || !a.dq || !a.dk || !a.dv)
    return Status::failure("sm100a-blk64 backward: a required pointer is null");
  if (s.max_q > 0 && !a.k2q_idx) return Status::failure("sm100a-blk64 backward: null k2q_idx");
  if (!a.workspace) return Status::failure("sm100a-blk64 backward: workspace is null");
  if (!aligned16(a.q) || !aligned16(a.k) || !aligned16(a.v) || !aligned16(a.d_out) || !aligned16(a.lse) ||
      !aligned16(a.dk) || !aligned16(a.dv) || !aligned16(a.workspace))
    return Status::failure("sm100a-blk64 backward: tensors and workspace must be 16-byte aligned (TMA, bulk copies)");
  return Status::success();
}

// Q, K, V, dO as [B * H * S, D] matrices, boxes of 64 rows x 64 columns (128-byte swizzle).
[[nodiscard]] inline Status encode_maps(CUtensorMap (&maps)[4], const BackwardArgs& a) {
  const std::uint64_t rows = std::uint64_t(a.shape.row_elems());
  const void* bases[4] = {a.q, a.k, a.v, a.d_out};
  for (int i = 0; i < 4; ++i)
    if (Status st = device::make_tensor_map_bf16_sw128(&maps[i], bases[i], rows, bwd::Config::kHeadDim,
                                                       bwd::Config::kBlock, bwd::Config::kHalfCols);
        !st.ok())
      return st;
  return Status::success();
}

// `delta` and `dq_accum` ([B, H, S] and [B, H, S, D] fp32) come from the workspace; `order`
// is the longest-first item order or null.
[[nodiscard]] inline bwd::Params backward_params(const BackwardArgs& a, const float* delta, float* dq_accum,
                                                 const std::int32_t* order) {
  const Shape& s = a.shape;
  bwd::Params params{};
  params.k2q_idx = a.k2q_idx;
  params.k2q_num = a.k2q_num;
  params.vbs = a.vbs;
  params.lse = a.lse;
  params.delta = delta;
  params.dq_accum = dq_accum;
  params.dk = a.dk;
  params.dv = a.dv;
  params.order = order;
  params.num_blocks = s.num_blocks;
  params.max_q = s.max_q;
  params.scale = float(1.0 / std::sqrt(double(s.head_dim)));
  params.scale_log2 = float(1.4426950408889634 / std::sqrt(double(s.head_dim)));
  for (int i = 0; i < bwd::kProbeSlots; ++i) {
    params.probe_ns[i] = a.probes.nanoseconds[kFirstBwdProbeSlot + i];
    params.probe_warps[i] = a.probes.warps[kFirstBwdProbeSlot + i];
  }
  return params;
}

}  // namespace vsa::sm100a::bwd_host
