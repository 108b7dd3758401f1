#pragma once
// How every sm90a forward layout loads a 64 x 128 tile: TMA boxes of 64 columns, 128-byte
// swizzled ([half][row][64]). Apart from the producer (fwd_producer.cuh) so that code which
// only moves tiles (tools/kv_stream_kernel.cuh) loads them the same way without the scheduler.
#include <cstdint>

#include "sm90a_common.cuh"
#include "vsa/bf16.hpp"

namespace vsa::sm90a::fwd {

// A 64 x 128 tile as two 64-column TMA boxes ([half][row][64]), completing on `bar`,
// with an L2 eviction policy when the config asks for hints.
// One 64-column half `h` of such a tile into `dst` (split Q loads Q's halves one at a time).
template <class Cfg>
__device__ __forceinline__ void load_half(bf16_bits* dst, const CUtensorMap* map, int h, int row, std::uint64_t* bar,
                                          std::uint64_t policy) {
  if constexpr (Cfg::kL2Hints)
    tma_load_2d_hinted(dst, map, h * Cfg::kHalfCols, row, bar, policy);
  else
    tma_load_2d(dst, map, h * Cfg::kHalfCols, row, bar);
}
template <class Cfg>
__device__ __forceinline__ void load_tile(bf16_bits* dst, const CUtensorMap* map, int row, std::uint64_t* bar,
                                          std::uint64_t policy) {
#pragma unroll
  for (int h = 0; h < Cfg::kHalves; ++h) load_half<Cfg>(dst + h * (Cfg::kHalfBytes / 2), map, h, row, bar, policy);
}

}  // namespace vsa::sm90a::fwd
