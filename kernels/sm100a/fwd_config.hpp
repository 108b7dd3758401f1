#pragma once
// Tile constants of the sm100a forwards, each with the reason for its value. The two
// backends differ only in the block size, so one TileConfig holds both: Blk64
// (sm100a-blk64, a pair of 64-row q blocks per CTA) and Blk128 (sm100a-blk128, one 128-row
// q block per CTA). The role files are templates over it (fwd_kernel.cuh). Plain C++ (no
// CUDA header): the protocol tables, the host launchers and the device code share this copy.
#include <cstddef>

namespace vsa::sm100a::fwd {

// What does not depend on the block size: the warp roles, the rings, the head dimension.
struct CommonConfig {
  // The docs/spec.md fast-kernel contract: D = 128, bf16, BHSD.
  static constexpr int kHeadDim = 128;
  // A CTA fills the 128 TMEM lanes with 128 q rows.
  static constexpr int kRows = 128;
  // K and V ring depth. Both block sizes: 2 stages fit the 227 KB an SM offers, a third
  // does not (blk64: 176 KB with 2, 240 KB with 3; blk128: 192 KB with 2, 256 KB with 3).
  static constexpr int kKvStages = 2;
  // S accumulators in TMEM: the MMA warp computes S_{n+1} while the softmax reads S_n.
  static constexpr int kSBuffers = 2;
  // 128-byte swizzle: a TMA box row is at most 128 bytes, so a 128-column tile is two
  // 64-column halves stored one after the other ([half][row][64]); the same holds for a
  // 128-key P row.
  static constexpr int kHalfCols = 64;
  static constexpr int kHalves = kHeadDim / kHalfCols;
  // tcgen05.mma kind::f16 consumes K = 16 per instruction.
  static constexpr int kMmaK = 16;
  // Warps: 4 softmax (one TMEM lane quarter each), 1 producer, 1 MMA. No register
  // reallocation needed: 192 threads x 255 registers fit the register file.
  static constexpr int kSoftmaxWarps = 4;
  static constexpr int kWarps = kSoftmaxWarps + 2;
  static constexpr int kThreads = kWarps * 32;
  // Shared memory a CTA may use on sm_100 (227 KB opt-in limit).
  static constexpr std::size_t kSmemLimit = 232448;
};

template <int kBlockTokens>
struct TileConfig : CommonConfig {
  static constexpr int kBlock = kBlockTokens;
  // q blocks per CTA (the work item). blk64: a pair of neighbouring q blocks (2p, 2p + 1)
  // of one head, each with its own kv list, each an M = 64 tcgen05.mma (data-path layout F:
  // rows 16w..16w+15 in TMEM lanes 32w..32w+15); block B's accumulators sit kLaneOffsetB
  // lanes further (lanes 32w+16..32w+31), so the pair fills all 128 lanes of the same
  // columns and one warp's tcgen05.ld returns 16 rows of each block at once. blk128: one q
  // block, one M = 128 MMA per product (layout D: row i in lane i), so softmax warp w owns
  // rows 32w..32w+31, one per thread.
  static constexpr int kQBlocks = kRows / kBlock;
  static constexpr int kLaneOffsetB = 16;                    // lane offset of the second block (kQBlocks == 2)
  static constexpr int kTileBytes = kBlock * kHeadDim * 2;   // one kBlock x 128 bf16 tile
  static constexpr int kHalfBytes = kBlock * kHalfCols * 2;  // one kBlock x 64 half
  static constexpr int kPTileBytes = kBlock * kBlock * 2;    // P of one q block, bf16
  // TMEM: S[0] + S[1] (kBlock columns each) + O (128) = 256 (blk64) or 384 (blk128)
  // columns; tcgen05.alloc takes a power of two (fwd_protocol.hpp).
  static constexpr int kTmemColumns = kBlock == 64 ? 256 : 512;
  // The protocol table's name (reports, the hang watch's record).
  static constexpr const char* kName = kBlock == 64 ? "sm100a-blk64 forward" : "sm100a-blk128 forward";

  static_assert(kBlock == 64 || kBlock == 128, "the two sm100a forwards");
  static_assert(kQBlocks * kBlock == kRows, "the q blocks of a CTA fill the 128 TMEM lanes");
  static_assert(kTileBytes == kHalves * kHalfBytes, "tile = halves");
  static_assert(kPTileBytes == (kBlock / kHalfCols) * kHalfBytes, "a P row is one or two 128-byte swizzle rows");
};

using Blk64 = TileConfig<64>;    // sm100a-blk64
using Blk128 = TileConfig<128>;  // sm100a-blk128

static_assert(CommonConfig::kHalfCols * 2 == 128, "128-byte swizzle rows");
static_assert(CommonConfig::kSoftmaxWarps == 4, "one softmax warp per TMEM lane quarter");
static_assert(CommonConfig::kThreads <= 1024, "CTA size");

}  // namespace vsa::sm100a::fwd
