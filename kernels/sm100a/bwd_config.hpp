#pragma once
// Tile constants of the sm100a-blk64 backward kernel, each with the reason for its value.
// Plain C++ (no CUDA header): the protocol tables, the host launcher and the device code
// share this one copy.
#include <cstddef>

namespace vsa::sm100a::bwd {

struct Config {
  // The docs/spec.md fast-kernel contract: 64-token blocks, D = 128, bf16, BHSD.
  static constexpr int kBlock = 64;
  static constexpr int kHeadDim = 128;
  // One CTA = one kv block j of one head (the k2q row j), stationary K_j, V_j; it streams
  // the q blocks of its list. Every product is an M = 64 tcgen05.mma (cta_group::1), whose
  // accumulator uses data-path layout F: row m in TMEM lane 32 (m / 16) + m % 16. Only the
  // first 16 lanes of each warp's lane quarter hold rows; a warp's 32x32b loads return
  // rows in lanes 0..15 and nothing the kernel uses in lanes 16..31.
  static constexpr int kRowsPerQuarter = 16;
  // Q/dO (and lse/Delta) ring depth: K, V 32 KB + 3 x 32 KB + P^T/dS^T 2 x 16 KB + dQ
  // staging 33 KB + lse/Delta and barriers = 199,680 B (+ 1 KB alignment slack) of the 227 KB
  // an SM offers; a fourth stage (+32 KB) does not fit.
  static constexpr int kStages = 3;
  // P^T / dS^T smem tiles, double-buffered: the dsoftmax warps write step n+1 while the
  // gradient MMAs of step n still read step n's tiles.
  static constexpr int kDsBuffers = 2;
  // 128-byte swizzle: a 128-column tile is two 64-column halves ([half][row][64]).
  static constexpr int kHalfCols = 64;
  static constexpr int kHalves = kHeadDim / kHalfCols;
  static constexpr int kTileBytes = kBlock * kHeadDim * 2;   // one 64 x 128 bf16 tile: 16 KB
  static constexpr int kHalfBytes = kBlock * kHalfCols * 2;  // one 64 x 64 half: 8 KB
  static constexpr int kSquareBytes = kBlock * kBlock * 2;   // P^T or dS^T, 64 x 64 bf16: 8 KB
  static constexpr int kRowStatBytes = kBlock * 4;           // 64 fp32 lse or Delta values
  // dQ staging: one fp32 row of 128 columns per q row, rows 16 bytes apart more than their
  // 512 bytes so that eight threads storing 16-byte chunks of eight rows hit eight
  // different bank groups (the bulk reduce reads each row as one contiguous 512-byte run).
  static constexpr int kDqRowBytes = kHeadDim * 4;
  static constexpr int kDqStagingStride = kDqRowBytes + 16;
  // tcgen05.mma kind::f16 consumes K = 16 per instruction.
  static constexpr int kMmaK = 16;
  // Warps: 4 dsoftmax (one TMEM lane quarter each), 4 dq_reduce (likewise), 1 producer,
  // 1 MMA. 320 threads: ptxas caps them at 168 registers (10 warps put 3 on some of the 4
  // SM sub-partitions: 16384 / 3 / 32 = 170, rounded down to 8); both variants use 168
  // with no spill (cuobjdump --dump-resource-usage, NOTES.md "Backward (blk64)").
  static constexpr int kDsoftmaxWarps = 4;
  static constexpr int kDqReduceWarps = 4;
  static constexpr int kFirstDqReduceWarp = kDsoftmaxWarps;
  static constexpr int kProducerWarp = kDsoftmaxWarps + kDqReduceWarps;
  static constexpr int kMmaWarp = kProducerWarp + 1;
  static constexpr int kWarps = kMmaWarp + 1;
  static constexpr int kThreads = kWarps * 32;
  // TMEM: S^T 64 + dP^T 64 + dQ 128 + dV 128 + dK 128 = all 512 columns (bwd_protocol.hpp).
  static constexpr int kTmemColumns = 512;
  // Shared memory a CTA may use on sm_100 (227 KB opt-in limit).
  static constexpr std::size_t kSmemLimit = 232448;
  // From this many kv items (B * H * nb) on, items run longest k2q row first (a device
  // counting sort into the workspace); below, in natural order with no order buffer.
  static constexpr long long kOrderFromItems = 1024;
};

static_assert(Config::kHalfCols * 2 == 128, "128-byte swizzle rows");
static_assert(Config::kBlock * 2 == 128, "a P^T / dS^T row (64 q, bf16) is exactly one 128-byte swizzle row");
static_assert(Config::kTileBytes == Config::kHalves * Config::kHalfBytes, "tile = halves");
static_assert(Config::kRowsPerQuarter * 4 == Config::kBlock, "layout F: 16 rows per lane quarter");
static_assert(Config::kDsoftmaxWarps == 4 && Config::kDqReduceWarps == 4, "one warp per TMEM lane quarter");
static_assert(Config::kFirstDqReduceWarp % 4 == 0, "dq_reduce warp w reaches lane quarter w % 4");
static_assert(Config::kDqStagingStride % 16 == 0, "bulk copies need 16-byte aligned rows");
static_assert(Config::kThreads <= 1024, "CTA size");

}  // namespace vsa::sm100a::bwd
