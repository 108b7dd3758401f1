#pragma once
// Shared-memory tiles as TMA writes them with 128-byte swizzle ([half][row][64 columns]),
// used by both sm100a forwards (64- and 128-row tiles): the byte offset of a 16-byte chunk,
// and one normalised O row staged for the TMA store.
#include <cstdint>

#include "sm100a_ptx.cuh"
#include "vsa/bf16.hpp"

namespace vsa::sm100a {

// Byte offset of 16-byte chunk `chunk` (columns 8 chunk .. 8 chunk + 7) of `row` in a tile
// whose 64-column halves are kHalfBytes apart.
template <int kHalfBytes>
__device__ __forceinline__ std::uint32_t swizzled_chunk(int row, int chunk) {
  return std::uint32_t((chunk / 8) * kHalfBytes + row * 128 + (((chunk % 8) ^ (row % 8)) << 4));
}

// O row (kHeadDim fp32 bit patterns, normalised by inv_sum, as bf16; exact zeros for a row
// that attended to nothing) into the staging tile.
template <int kHalfBytes, int kHeadDim>
__device__ __forceinline__ void stage_o_row(bf16_bits* tile, int row, const std::uint32_t (&o)[kHeadDim], float inv_sum,
                                            bool attended) {
  const std::uint32_t base = smem_addr(tile);
#pragma unroll
  for (int c = 0; c < kHeadDim / 8; ++c) {
    std::uint32_t v[4];
#pragma unroll
    for (int i = 0; i < 4; ++i)
      v[i] = attended ? pack_bf16x2(__uint_as_float(o[8 * c + 2 * i]) * inv_sum,
                                    __uint_as_float(o[8 * c + 2 * i + 1]) * inv_sum)
                      : 0u;
    st_shared_v4(base + swizzled_chunk<kHalfBytes>(row, c), v[0], v[1], v[2], v[3]);
  }
}

}  // namespace vsa::sm100a
