#pragma once
// Every tcgen05.mma descriptor the sm100a kernels issue, one function per operand, plain
// C++17 constexpr: the MMA roles (fwd_mma.cuh, bwd_mma.cuh) call exactly
// these, and tests/unit/sm100a_descriptor_test.cpp compares them with CUTLASS's encoders.
// `tile` is the operand tile's shared-memory address, `kk` the k16 slice.
#include <cstdint>

#include "bwd_config.hpp"
#include "fwd_config.hpp"
#include "umma_desc.hpp"

namespace vsa::sm100a {

namespace fwd {
// T: the forward's tile config (Blk64, Blk128).
// S[kBlock x kBlock] = Q K^T: both kBlock x 128 K-major tiles (halves kHalfBytes apart).
template <class T>
constexpr std::uint64_t scores_operand(std::uint32_t tile, int kk) {
  return k_major_sw128(tile, T::kHalfBytes, kk);
}
// O[kBlock x 128] += P V: P a kBlock x kBlock K-major tile (blk64 one 64-key half, blk128
// two); V read MN-major (rows = keys = K, N = 128 over two 64-column halves: LBO one half,
// 8 KB for blk64, 16 KB for blk128).
template <class T>
constexpr std::uint64_t pv_a_operand(std::uint32_t p, int kk) {
  return k_major_sw128(p, T::kHalfBytes, kk);
}
template <class T>
constexpr std::uint64_t pv_b_operand(std::uint32_t v, int kk) {
  return mn_major_sw128(v, T::kHalfBytes, kk);
}
template <class T>
inline constexpr std::uint32_t kScoresIdesc = idesc_bf16_f32(T::kBlock, T::kBlock, false, false);
template <class T>
inline constexpr std::uint32_t kPvIdesc = idesc_bf16_f32(T::kBlock, T::kHeadDim, false, true);
}  // namespace fwd

namespace bwd {
// S^T = K Q^T, dP^T = V dO^T: 64 x 128 K-major tiles.
constexpr std::uint64_t tile_k_major(std::uint32_t tile, int kk) { return k_major_sw128(tile, Config::kHalfBytes, kk); }
// A of dV += P^T dO, dK += dS^T Q: a 64 x 64 K-major square (one swizzle row per m).
constexpr std::uint64_t square_k_major(std::uint32_t square, int kk) {
  return k_major_sw128(square, Config::kHalfBytes, kk);
}
// B of dV, dK, dQ: a [half][64 rows][64] tile whose rows are K, read MN-major; N = 128
// spans the two halves (LBO one half).
constexpr std::uint64_t tile_mn_major(std::uint32_t tile, int kk) {
  return mn_major_sw128(tile, Config::kHalfBytes, kk);
}
// A of dQ = dS K: the dS^T square ([k][64 m]) read MN-major. M = 64 is one 64-element MN
// chunk, so there is no next chunk to stride to: LBO 0 (NOTES.md, "Descriptors against
// CUTLASS").
constexpr std::uint64_t square_mn_major(std::uint32_t square, int kk) { return mn_major_sw128(square, 0, kk); }
inline constexpr std::uint32_t kTileTileIdesc = idesc_bf16_f32(Config::kBlock, Config::kBlock, false, false);
inline constexpr std::uint32_t kSquareTileIdesc = idesc_bf16_f32(Config::kBlock, Config::kHeadDim, false, true);
inline constexpr std::uint32_t kSquareTTileIdesc = idesc_bf16_f32(Config::kBlock, Config::kHeadDim, true, true);
}  // namespace bwd

}  // namespace vsa::sm100a
