#pragma once
// Consumer epilogue: normalise O, write it as bf16 through a 128-byte-swizzled staging
// tile (the item's last V stage) so global stores are 16-byte and coalesced, write lse,
// and hand the staging stage back to the producer. Also the count-0 item: O = 0, lse = -inf.
#include "fwd_softmax.cuh"
#include "fwd_storage.cuh"

namespace vsa::sm90a::fwd {

// Byte offset of the 16-byte chunk `chunk` (0..15) of row `row` in a [half][row][64] tile
// written by TMA with 128-byte swizzle: chunk index within the 128-byte row XOR row % 8.
template <class Cfg>
__device__ __forceinline__ std::uint32_t swizzled_chunk(int row, int chunk) {
  return std::uint32_t((chunk / 8) * Cfg::kHalfBytes + row * 128 + (((chunk % 8) ^ (row % 8)) << 4));
}

// Each warp copies its own 16 rows (4 KB) from staging to global: 8 x 16 bytes per lane,
// a warp instruction covering two whole 256-byte rows.
template <class Cfg>
__device__ __forceinline__ void copy_rows_to_global(std::uint32_t staging, bf16_bits* out_rows, int warp, int lane) {
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int id = i * 32 + lane;
    const int row = warp * 16 + id / 16, chunk = id % 16;
    uint4 v;
    asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "r"(staging + swizzled_chunk<Cfg>(row, chunk)));
    uint4* dst = reinterpret_cast<uint4*>(out_rows + std::int64_t(row) * Cfg::kHeadDim + chunk * 8);
    if constexpr (Cfg::kL2Hints)
      __stcs(dst, v);  // st.global.cs: written once, evict first, keep L2 for K/V
    else
      *dst = v;
  }
}

template <class Cfg, bool kProbe>
__device__ __forceinline__ void store_output(const float (&o)[64], const OnlineSoftmax& softmax,
                                             bf16_bits* staging_tile, std::uint64_t* staging_empty, int slot, int item,
                                             const Params& p, int warp, int lane_arg) {
  const int lane = address_lane<Cfg>(lane_arg);
  float inv_sum[2], lse[2];
  softmax.finish(p.scale_log2, inv_sum, lse);

  // Every warp's P.V wgmma has read the V tile before anyone overwrites it with O.
  named_barrier_sync(1 + slot, Cfg::kWarpGroupThreads);
  const std::uint32_t staging = smem_addr(staging_tile);
  const int t = lane % 4;
#pragma unroll
  for (int j = 0; j < 16; ++j) {
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const int row = warp * 16 + lane / 4 + 8 * r;
      const std::uint32_t v = pack_bf16x2(o[4 * j + 2 * r] * inv_sum[r], o[4 * j + 2 * r + 1] * inv_sum[r]);
      asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(staging + swizzled_chunk<Cfg>(row, j) + 4 * t), "r"(v) : "memory");
    }
  }
  __syncwarp();  // a warp reads back only the 16 rows it wrote
  if constexpr (kProbe) sleep_ns(p.probe_epilogue_ns);

  bf16_bits* out_rows = p.out + std::int64_t(item) * Cfg::kBlockQ * Cfg::kHeadDim;
  copy_rows_to_global<Cfg>(staging, out_rows, warp, lane);
  if (t == 0) {
    float* lse_rows = p.lse + std::int64_t(item) * Cfg::kBlockQ;
    lse_rows[warp * 16 + lane / 4] = lse[0];
    lse_rows[warp * 16 + lane / 4 + 8] = lse[1];
  }
  // Ordinary reads and writes of the stage come before the producer's next TMA into it.
  fence_proxy_async_smem();
  __syncwarp();
  if (lane == 0) mbar_arrive(staging_empty);
  __syncwarp();
}

// Pair tiles: O straight from the accumulators to global memory, 4 bytes per store (a quad
// of lanes writes 16 contiguous bytes of a row). No staging tile: the item's last V stage
// may still be read by the other slot (a block both rows selected), and no other shared
// memory is free (fwd_storage.cuh).
template <class Cfg, bool kProbe>
__device__ __forceinline__ void store_output_direct(const float (&o)[64], const OnlineSoftmax& softmax, int item,
                                                    const Params& p, int warp, int lane) {
  float inv_sum[2], lse[2];
  softmax.finish(p.scale_log2, inv_sum, lse);
  if constexpr (kProbe) sleep_ns(p.probe_epilogue_ns);
  const int t = lane % 4;
  bf16_bits* out_rows = p.out + std::int64_t(item) * Cfg::kBlockQ * Cfg::kHeadDim;
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const int row = warp * 16 + lane / 4 + 8 * r;
    auto* dst = reinterpret_cast<unsigned int*>(out_rows + std::int64_t(row) * Cfg::kHeadDim + 2 * t);
#pragma unroll
    for (int j = 0; j < 16; ++j) {
      const std::uint32_t v = pack_bf16x2(o[4 * j + 2 * r] * inv_sum[r], o[4 * j + 2 * r + 1] * inv_sum[r]);
      if constexpr (Cfg::kL2Hints)
        __stcs(dst + 4 * j, v);  // written once: evict first, keep L2 for K/V
      else
        dst[4 * j] = v;
    }
  }
  if (t == 0) {
    float* lse_rows = p.lse + std::int64_t(item) * Cfg::kBlockQ;
    lse_rows[warp * 16 + lane / 4] = lse[0];
    lse_rows[warp * 16 + lane / 4 + 8] = lse[1];
  }
}

// Count-0 item: attends to nothing, O rows exactly +0, lse -inf (docs/spec.md).
template <class Cfg>
__device__ __forceinline__ void store_empty_item(int item, const Params& p, int warp, int lane_arg) {
  const int lane = address_lane<Cfg>(lane_arg);
  bf16_bits* out_rows = p.out + std::int64_t(item) * Cfg::kBlockQ * Cfg::kHeadDim;
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int id = i * 32 + lane;
    const int row = warp * 16 + id / 16, chunk = id % 16;
    *reinterpret_cast<uint4*>(out_rows + std::int64_t(row) * Cfg::kHeadDim + chunk * 8) = make_uint4(0, 0, 0, 0);
  }
  if (lane < 16) p.lse[std::int64_t(item) * Cfg::kBlockQ + warp * 16 + lane] = -CUDART_INF_F;
}

}  // namespace vsa::sm90a::fwd
