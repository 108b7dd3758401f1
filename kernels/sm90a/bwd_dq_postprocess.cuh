#pragma once
// Atomic mode's dQ postprocess: the fp32 accumulator holds one 64x128 tile per
// (b, h, q block) in fragment order (bwd_epilogue.cuh, reduce_dq), at the same offset as
// that block in [B, H, S, D]; this turns it into bf16 dQ rows, times the softmax scale.
// One thread per two float4 (accumulator groups 2gp and 2gp + 1 of one fragment thread):
// coalesced 16-byte reads; the four lanes of a quad then trade bf16 pairs so that each
// writes 16 contiguous bytes, and a quad fills whole 32-byte sectors of rows r and r + 8
// (the one-float4-per-thread version wrote 4-byte pieces: 10.2 us at S = 4096, ncu).
#include <cstdint>

#include "bwd_config.cuh"
#include "bwd_mainloop.cuh"
#include "grid_stride.cuh"
#include "sm90a_common.cuh"

namespace vsa::sm90a::bwd {

inline constexpr int kFloat4PerTile = kTileElems / 4;
inline constexpr int kFloat4PairsPerTile = kFloat4PerTile / 2;

// Word w of the four a lane holds, by a run-time index without local memory.
__device__ __forceinline__ std::uint32_t pick(const std::uint32_t (&x)[4], int w) {
  return w == 0 ? x[0] : w == 1 ? x[1] : w == 2 ? x[2] : x[3];
}

// `pair_count` = float4 count / 2; every thread of a warp runs the same number of loop
// trips (the shuffles), because the count is a multiple of a whole tile's pairs.
__global__ void dq_postprocess_kernel(std::int64_t pair_count, const float4* __restrict__ accum, float scale,
                                      bf16_bits* __restrict__ dq) {
  for (std::int64_t j = device::grid_stride_begin(); j < pair_count; j += device::grid_stride_step()) {
    const std::int64_t tile = j / kFloat4PairsPerTile;
    const int gp = int(j % kFloat4PairsPerTile) / kWarpgroupThreads;  // groups 2gp, 2gp + 1
    const int t = int(j % kWarpgroupThreads);
    const float4* src = accum + tile * kFloat4PerTile + 2 * gp * kWarpgroupThreads + t;
    const float4 a = src[0], b = src[kWarpgroupThreads];
    // x[0], x[1]: row r, columns 16gp + col0 and 16gp + 8 + col0; x[2], x[3]: row r + 8.
    const std::uint32_t x[4] = {pack_bf16x2(a.x * scale, a.y * scale), pack_bf16x2(b.x * scale, b.y * scale),
                                pack_bf16x2(a.z * scale, a.w * scale), pack_bf16x2(b.z * scale, b.w * scale)};
    // Lane k of the quad gathers x[k] of all four lanes (word w from lane w): row r
    // (k < 2) or r + 8, columns 16gp + 8 (k % 2) .. + 7.
    const int k = t % 4, quad = (threadIdx.x % 32) & ~3;
    std::uint32_t out[4];
#pragma unroll
    for (int s = 0; s < 4; ++s) {
      const int w = (k + s) % 4;  // the lane this lane reads in round s
      const std::uint32_t v = __shfl_sync(0xffffffffu, pick(x, (k - s + 4) % 4), quad + w);
#pragma unroll
      for (int u = 0; u < 4; ++u)
        if (u == w) out[u] = v;
    }
    const Frag f(t);
    bf16_bits* at = dq + tile * kTileElems + (f.row0 + 8 * (k / 2)) * kD + 16 * gp + 8 * (k % 2);
    // One 16-byte store (ptxas split the plain uint4 store into four 4-byte ones).
    asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};\n" ::"l"(at), "r"(out[0]), "r"(out[1]), "r"(out[2]),
                 "r"(out[3])
                 : "memory");
  }
}

}  // namespace vsa::sm90a::bwd
