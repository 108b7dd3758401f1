#pragma once
// Atomic mode's dQ postprocess: the fp32 accumulator holds one 64x128 tile per
// (b, h, q block) in fragment order (bwd_epilogue.cuh, reduce_dq), at the same offset as
// that block in [B, H, S, D]; this turns it into bf16 dQ rows, times the softmax scale.
// One thread per float4: coalesced reads, two 4-byte stores (rows r and r + 8).
#include <cstdint>

#include "bwd_config.cuh"
#include "bwd_mainloop.cuh"
#include "grid_stride.cuh"
#include "sm90a_common.cuh"

namespace vsa::sm90a::bwd {

inline constexpr int kFloat4PerTile = kTileElems / 4;

__global__ void dq_postprocess_kernel(std::int64_t float4_count, const float4* __restrict__ accum, float scale,
                                      bf16_bits* __restrict__ dq) {
  for (std::int64_t i = device::grid_stride_begin(); i < float4_count; i += device::grid_stride_step()) {
    const float4 v = accum[i];
    const int g = int(i % kFloat4PerTile) / kWarpgroupThreads;  // group g of thread t: accumulator elements 4g .. 4g+3
    const int t = int(i % kWarpgroupThreads);
    const Frag f(t);
    bf16_bits* at = dq + (i / kFloat4PerTile) * kTileElems + f.row0 * kD + Frag::col_offset(4 * g) + f.col0;
    *reinterpret_cast<std::uint32_t*>(at) = pack_bf16x2(v.x * scale, v.y * scale);
    *reinterpret_cast<std::uint32_t*>(at + 8 * kD) = pack_bf16x2(v.z * scale, v.w * scale);
  }
}

}  // namespace vsa::sm90a::bwd
