#pragma once
// Where the backward's accumulators leave the registers: the fixed-order combine of
// the two consumers' dK/dV (or dQ) partials, bf16 row stores, the fp32 dQ reduction
// and the zero rows of blocks nobody selected.
#include <cstdint>

#include "bwd_config.cuh"
#include "bwd_mainloop.cuh"
#include "sm90a_common.cuh"

namespace vsa::sm90a::bwd {

// Accumulator elements [first, first + count) of one thread <-> shared memory in fragment
// order: float4 group g of thread t at (g * 128 + t) * 4, so a warp moves 512 contiguous
// bytes per access (no bank conflicts) and both consumers' threads t meet at the same place.
template <int kFirst, int kCount, int N>
__device__ __forceinline__ void frag_to_smem(float* buf, int t, const float (&acc)[N]) {
  static_assert(kFirst % 4 == 0 && kCount % 4 == 0 && kFirst + kCount <= N);
#pragma unroll
  for (int g = 0; g < kCount / 4; ++g)
    *reinterpret_cast<float4*>(buf + (g * kWarpgroupThreads + t) * 4) =
        make_float4(acc[kFirst + 4 * g], acc[kFirst + 4 * g + 1], acc[kFirst + 4 * g + 2], acc[kFirst + 4 * g + 3]);
}
template <int kFirst, int kCount, int N>
__device__ __forceinline__ void add_from_smem(float (&acc)[N], const float* buf, int t) {
  static_assert(kFirst % 4 == 0 && kCount % 4 == 0 && kFirst + kCount <= N);
#pragma unroll
  for (int g = 0; g < kCount / 4; ++g) {
    const float4 o = *reinterpret_cast<const float4*>(buf + (g * kWarpgroupThreads + t) * 4);
    acc[kFirst + 4 * g] += o.x;
    acc[kFirst + 4 * g + 1] += o.y;
    acc[kFirst + 4 * g + 2] += o.z;
    acc[kFirst + 4 * g + 3] += o.w;
  }
}

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

// Exact zeros for a block that no list entry touches (both consumers, thread c = 0..255).
__device__ __forceinline__ void store_zero_block(bf16_bits* block, int c) {
  for (int i = c; i < kTileElems / 8; i += kConsumerThreads)
    reinterpret_cast<uint4*>(block)[i] = make_uint4(0u, 0u, 0u, 0u);
}

// kv items: dK = dK_0 + dK_1 and dV = dV_0 + dV_1 (fp32 addition commutes, so the bits
// do not depend on who adds): consumer 0 ends with dK, consumer 1 with dV. The exchange
// buffer aliases the dS^T tiles: call after the item's first epilogue barrier.
__device__ __forceinline__ void combine_dkdv(BwdSmem& sm, int consumer, int t, float (&dk)[64], float (&dv)[64]) {
  float* ex = sm.scratch.exchange;
  if (consumer == 1) frag_to_smem<0, 64>(ex, t, dk);
  named_barrier_sync(kBarConsumers, kConsumerThreads);
  if (consumer == 0) add_from_smem<0, 64>(dk, ex, t);
  named_barrier_sync(kBarConsumers, kConsumerThreads);
  if (consumer == 0) frag_to_smem<0, 64>(ex, t, dv);
  named_barrier_sync(kBarConsumers, kConsumerThreads);
  if (consumer == 1) add_from_smem<0, 64>(dv, ex, t);
}
// Then consumer 0 writes dK (scaled), consumer 1 dV.
__device__ __forceinline__ void store_dkdv(int consumer, const Frag& f, const float (&dk)[64], const float (&dv)[64],
                                           float scale, bf16_bits* dk_block, bf16_bits* dv_block) {
  if (consumer == 0)
    store_rows_bf16<0, 64>(dk_block, f, dk, scale);
  else
    store_rows_bf16<0, 64>(dv_block, f, dv, 1.0f);
}

// q items: consumer 0 finishes columns 0..63, consumer 1 columns 64..127; each first
// sends the other half to its partner (two halves of the exchange buffer). Call after
// the item's first epilogue barrier.
__device__ __forceinline__ void combine_store_dq(BwdSmem& sm, int consumer, int t, const Frag& f, float (&dq)[64],
                                                 float scale, bf16_bits* dq_block) {
  constexpr int kHalf = kWarpgroupThreads * 32;
  float* to_partner = sm.scratch.exchange + consumer * kHalf;
  const float* from_partner = sm.scratch.exchange + (1 - consumer) * kHalf;
  if (consumer == 0)
    frag_to_smem<32, 32>(to_partner, t, dq);
  else
    frag_to_smem<0, 32>(to_partner, t, dq);
  named_barrier_sync(kBarConsumers, kConsumerThreads);
  if (consumer == 0) {
    add_from_smem<0, 32>(dq, from_partner, t);
    store_rows_bf16<0, 32>(dq_block, f, dq, scale);
  } else {
    add_from_smem<32, 32>(dq, from_partner, t);
    store_rows_bf16<32, 32>(dq_block, f, dq, scale);
  }
}

// PTX ISA "red" (red.global.add.v4.f32, sm_90): fire-and-forget fp32 reduction of four
// adjacent floats. Here until sm90a_common.cuh (which has the .v2 form) gains it.
__device__ __forceinline__ void red_add_v4(float* dst, float a, float b, float c, float d) {
  asm volatile("red.global.add.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"l"(dst), "f"(a), "f"(b), "f"(c), "f"(d)
               : "memory");
}

// dQ partial of one (q block, kv block) pair -> the fp32 accumulator tile of its q block,
// in fragment order (float4 group g of thread t at (g * 128 + t) * 4, the exchange layout):
// each warp access is 512 contiguous bytes. Measured 3.05 TB/s against 2.14 for float2
// reductions into row-major rows (NOTES.md); bwd_dq_postprocess.cuh undoes the order.
__device__ __forceinline__ void reduce_dq(float* accum_tile, int t, const float (&dq)[64]) {
#pragma unroll
  for (int g = 0; g < 16; ++g)
    red_add_v4(accum_tile + (g * kWarpgroupThreads + t) * 4, dq[4 * g], dq[4 * g + 1], dq[4 * g + 2], dq[4 * g + 3]);
}

}  // namespace vsa::sm90a::bwd
