#pragma once
// Where the backward's accumulators leave the registers: bf16 row stores, the fp32 dQ
// reduction and the zero rows of blocks nobody selected.
#include <cstdint>

#include "bwd_config.cuh"
#include "bwd_mainloop.cuh"
#include "sm90a_common.cuh"

namespace vsa::sm90a::bwd {

// scale * acc[kFirst .. kFirst + kCount) -> bf16 rows of a [64][128] block (row stride 128).
template <int kFirst, int kCount, int N>
__device__ __forceinline__ void store_rows_bf16(bf16_bits* block, const Frag& f, const float (&acc)[N], float scale) {
#pragma unroll
  for (int i = kFirst; i < kFirst + kCount; i += 2) {
    const int row = f.row0 + Frag::row_offset(i);
    const int col = Frag::col_offset(i) + f.col0;
    *reinterpret_cast<std::uint32_t*>(block + row * kD + col) = pack_bf16x2(acc[i] * scale, acc[i + 1] * scale);
  }
}

// Exact zeros for a block that no list entry touches (one consumer, thread t = 0..127).
__device__ __forceinline__ void store_zero_block(bf16_bits* block, int t) {
  for (int i = t; i < kTileElems / 8; i += kWarpgroupThreads)
    reinterpret_cast<uint4*>(block)[i] = make_uint4(0u, 0u, 0u, 0u);
}

// PTX ISA "red" (red.global.add.v4.f32, sm_90): fire-and-forget fp32 reduction of four
// adjacent floats. Here until sm90a_common.cuh (which has the .v2 form) gains it.
__device__ __forceinline__ void red_add_v4(float* dst, float a, float b, float c, float d) {
  asm volatile("red.global.add.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"l"(dst), "f"(a), "f"(b), "f"(c), "f"(d) : "memory");
}

// dQ partial of one (q block, kv block) pair -> the fp32 accumulator tile of its q block,
// in fragment order (float4 group g of thread t at (g * 128 + t) * 4):
// each warp access is 512 contiguous bytes. Measured 3.05 TB/s against 2.14 for float2
// reductions into row-major rows (README.md, "Backward"); bwd_dq_postprocess.cuh undoes the order.
__device__ __forceinline__ void reduce_dq(float* accum_tile, int t, const float (&dq)[64]) {
#pragma unroll
  for (int g = 0; g < 16; ++g)
    red_add_v4(accum_tile + (g * kWarpgroupThreads + t) * 4, dq[4 * g], dq[4 * g + 1], dq[4 * g + 2], dq[4 * g + 3]);
}

}  // namespace vsa::sm90a::bwd
