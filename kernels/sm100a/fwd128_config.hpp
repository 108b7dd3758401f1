#pragma once
// Tile constants of the sm100a-blk128 forward kernel (128-token blocks), each with the
// reason for its value. Plain C++ (no CUDA header).
#include <cstddef>

namespace vsa::sm100a::fwd128 {

struct Config {
  // 128-token blocks (the Blackwell forward variant of docs/spec.md), D = 128, bf16, BHSD.
  static constexpr int kBlock = 128;
  static constexpr int kHeadDim = 128;
  // One CTA = one q block of one head: one M = 128 tcgen05.mma per product (data-path
  // layout D: row i in TMEM lane i), so softmax warp w owns rows 32w..32w+31, one per thread.
  static constexpr int kRows = kBlock;
  // K and V ring depth. Q 32 KB + 2 x (K 32 KB + V 32 KB) + P 32 KB = 192 KB; a third stage
  // (256 KB) does not fit the 227 KB an SM offers.
  static constexpr int kKvStages = 2;
  // S accumulators in TMEM: the MMA warp computes S_{n+1} while the softmax reads S_n.
  static constexpr int kSBuffers = 2;
  // 128-byte swizzle: a 128-column tile is two 64-column halves stored one after the other
  // ([half][row][64]); the same holds for P (128 keys = two halves of 64).
  static constexpr int kHalfCols = 64;
  static constexpr int kHalves = kHeadDim / kHalfCols;
  static constexpr int kTileBytes = kBlock * kHeadDim * 2;   // one 128 x 128 bf16 tile: 32 KB
  static constexpr int kHalfBytes = kBlock * kHalfCols * 2;  // one 128 x 64 half: 16 KB
  static constexpr int kPTileBytes = kBlock * kBlock * 2;    // P, 128 x 128 bf16: 32 KB
  // tcgen05.mma kind::f16 consumes K = 16 per instruction.
  static constexpr int kMmaK = 16;
  // Warps: 4 softmax (one TMEM lane quarter each), 1 producer, 1 MMA (the blk64 roles).
  static constexpr int kSoftmaxWarps = 4;
  static constexpr int kWarps = kSoftmaxWarps + 2;
  static constexpr int kThreads = kWarps * 32;
  // TMEM: S[0] 128 + S[1] 128 + O 128 = 384 columns; tcgen05.alloc takes a power of two.
  static constexpr int kTmemColumns = 512;
  // Shared memory a CTA may use on sm_100 (227 KB opt-in limit).
  static constexpr std::size_t kSmemLimit = 232448;
};

static_assert(Config::kRows == 128, "one q block fills the 128 TMEM lanes");
static_assert(Config::kHalfCols * 2 == 128, "128-byte swizzle rows");
static_assert(Config::kTileBytes == Config::kHalves * Config::kHalfBytes, "tile = halves");
static_assert(Config::kPTileBytes == 2 * Config::kHalfBytes, "P = two 64-key halves");
static_assert(Config::kSoftmaxWarps == 4, "one softmax warp per TMEM lane quarter");

}  // namespace vsa::sm100a::fwd128
