#pragma once
// Every tcgen05.mma descriptor the sm100a kernels issue, one function per operand, plain
// C++17 constexpr: the MMA roles (fwd_mma.cuh, fwd128_mma.cuh, bwd_mma.cuh) call exactly
// these, and tests/unit/sm100a_descriptor_test.cpp compares them with CUTLASS's encoders.
// `tile` is the operand tile's shared-memory address, `kk` the k16 slice.
#include <cstdint>

#include "bwd_config.hpp"
#include "fwd128_config.hpp"
#include "fwd_config.hpp"
#include "umma_desc.hpp"

namespace vsa::sm100a {

namespace fwd {
// S[64 x 64] = Q K^T: both 64 x 128 K-major tiles.
constexpr std::uint64_t scores_operand(std::uint32_t tile, int kk) {
  return k_major_sw128(tile, Config::kHalfBytes, kk);
}
// O[64 x 128] += P V: P a 64 x 64 K-major square; V read MN-major (rows = keys = K, N = 128
// over two 64-column halves: LBO one half).
constexpr std::uint64_t pv_a_operand(std::uint32_t p, int kk) { return k_major_sw128(p, Config::kHalfBytes, kk); }
constexpr std::uint64_t pv_b_operand(std::uint32_t v, int kk) { return mn_major_sw128(v, Config::kHalfBytes, kk); }
inline constexpr std::uint32_t kScoresIdesc = idesc_bf16_f32(Config::kBlock, Config::kBlock, false, false);
inline constexpr std::uint32_t kPvIdesc = idesc_bf16_f32(Config::kBlock, Config::kHeadDim, false, true);
}  // namespace fwd

namespace fwd128 {
// S[128 x 128] = Q K^T: both 128 x 128 K-major tiles (halves 16 KB apart).
constexpr std::uint64_t scores_operand(std::uint32_t tile, int kk) {
  return k_major_sw128(tile, Config::kHalfBytes, kk);
}
// O[128 x 128] += P V: P 128 x 128 K-major (two key halves); V MN-major, LBO one 16 KB half.
constexpr std::uint64_t pv_a_operand(std::uint32_t p, int kk) { return k_major_sw128(p, Config::kHalfBytes, kk); }
constexpr std::uint64_t pv_b_operand(std::uint32_t v, int kk) { return mn_major_sw128(v, Config::kHalfBytes, kk); }
inline constexpr std::uint32_t kScoresIdesc = idesc_bf16_f32(Config::kBlock, Config::kBlock, false, false);
inline constexpr std::uint32_t kPvIdesc = idesc_bf16_f32(Config::kBlock, Config::kHeadDim, false, true);
}  // namespace fwd128

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
