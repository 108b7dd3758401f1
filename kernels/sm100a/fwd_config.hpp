#pragma once
// Tile constants of the sm100a-blk64 forward kernel, each with the reason for its value.
// Plain C++ (no CUDA header): the protocol tables, the host launcher and the device code
// share this one copy.
#include <cstddef>

namespace vsa::sm100a::fwd {

struct Config {
  // The docs/spec.md fast-kernel contract: 64-token blocks, D = 128, bf16, BHSD.
  static constexpr int kBlock = 64;
  static constexpr int kHeadDim = 128;
  // One CTA = one pair of neighbouring q blocks (2p, 2p + 1) of one head, each with its own
  // kv list. Each is an M = 64 tcgen05.mma (data-path layout F: rows 16w..16w+15 in TMEM
  // lanes 32w..32w+15); block B's accumulators sit 16 lanes further (lanes 32w+16..32w+31),
  // so the pair fills all 128 lanes of the same columns and one warp's tcgen05.ld returns
  // 16 rows of each block at once.
  static constexpr int kQBlocks = 2;
  static constexpr int kRows = kBlock * kQBlocks;
  static constexpr int kLaneOffsetB = 16;
  // K and V ring depth. 2 x (K pair 32 KB + V pair 32 KB) + Q pair 32 KB + P pair 16 KB =
  // 176 KB; a third stage (240 KB) does not fit the 227 KB an SM offers.
  static constexpr int kKvStages = 2;
  // S accumulators in TMEM: the MMA warp computes S_{n+1} while the softmax reads S_n.
  static constexpr int kSBuffers = 2;
  // 128-byte swizzle: a TMA box row is at most 128 bytes, so a 128-column tile is two
  // 64-column halves stored one after the other ([half][row][64]).
  static constexpr int kHalfCols = 64;
  static constexpr int kHalves = kHeadDim / kHalfCols;
  static constexpr int kTileBytes = kBlock * kHeadDim * 2;   // one 64 x 128 bf16 tile: 16 KB
  static constexpr int kHalfBytes = kBlock * kHalfCols * 2;  // one 64 x 64 half: 8 KB
  static constexpr int kPTileBytes = kBlock * kBlock * 2;    // P of one q block, 64 x 64 bf16: 8 KB
  // tcgen05.mma kind::f16 consumes K = 16 per instruction.
  static constexpr int kMmaK = 16;
  // Warps: 4 softmax (one TMEM lane quarter each), 1 producer, 1 MMA. No register
  // reallocation needed: 192 threads x 255 registers fit the register file.
  static constexpr int kSoftmaxWarps = 4;
  static constexpr int kWarps = kSoftmaxWarps + 2;
  static constexpr int kThreads = kWarps * 32;
  // TMEM: S[0] 64 + S[1] 64 + O 128 columns (fwd_protocol.hpp).
  static constexpr int kTmemColumns = 256;
  // Shared memory a CTA may use on sm_100 (227 KB opt-in limit).
  static constexpr std::size_t kSmemLimit = 232448;
};

static_assert(Config::kRows == 128, "the pair of q blocks fills the 128 TMEM lanes");
static_assert(Config::kHalfCols * 2 == 128, "128-byte swizzle rows");
static_assert(Config::kBlock * 2 == 128, "a P row (64 keys, bf16) is exactly one 128-byte swizzle row");
static_assert(Config::kTileBytes == Config::kHalves * Config::kHalfBytes, "tile = halves");
static_assert(Config::kSoftmaxWarps == 4, "one softmax warp per TMEM lane quarter");
static_assert(Config::kThreads <= 1024, "CTA size");

}  // namespace vsa::sm100a::fwd
