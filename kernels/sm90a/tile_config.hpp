#pragma once
// Tile constants of the sm_90a forward kernel, each with the reason for its value.
// Plain C++ so host code (launch, workspace size) and device code share one copy.
#include <cstddef>

#include "launch.hpp"

namespace vsa::sm90a::fwd {

// An SM of sm_90 has 228 KB of shared memory and reserves 1 KB of it for each resident CTA
// (CUDA C++ Programming Guide, "Compute Capability 9.0": shared memory). fwd_launch.cuh asserts
// the four-CTA layout's fit; tools/sm90a_kv_ceiling pins CTAs per SM with them.
inline constexpr std::size_t kSmemPerSm = 233472;
inline constexpr std::size_t kSmemReservedPerCta = 1024;

struct TileConfig {
  // One work item = one 64-row query block: exactly one wgmma M = 64 per consumer warp group.
  static constexpr int kBlockQ = kBlock;
  // One pipeline stage = one selected 64-key block (K and V, 16 KB each).
  static constexpr int kBlockKv = kBlock;
  static constexpr int kHeadDim = vsa::sm90a::kHeadDim;
  // 128-byte swizzle: a TMA box row is at most 128 bytes, so a 128-column tile is two
  // 64-column halves stored one after the other ([half][row][64]).
  static constexpr int kHalfCols = 64;
  static constexpr int kHalves = kHeadDim / kHalfCols;
  static constexpr int kTileElems = kBlockQ * kHeadDim;
  static constexpr int kTileBytes = kTileElems * 2;
  static constexpr int kHalfBytes = kBlockQ * kHalfCols * 2;
  // Two consumer warp groups per CTA, each with its own work item and K/V ring, so one
  // group's softmax overlaps the other's matrix products on the same tensor cores.
  static constexpr int kConsumers = 2;
  // K/V ring depth per consumer: 3 x 32 KB; 2 x (16 KB Q + 96 KB) fills 224 of 227 KB.
  // Measured on H200: 2 stages are 11-15% slower (notes/runs.md, run 1).
  static constexpr int kStages = 3;
  // Warp group 0 produces (warp p feeds consumer p), warp groups 1.. consume.
  static constexpr int kWarpGroupThreads = 128;
  static constexpr int kThreads = kWarpGroupThreads * (1 + kConsumers);
  // setmaxnreg budgets: 128 x 24 + 256 x 240 = 64512 <= 65536 registers per SM.
  static constexpr int kProducerRegs = 24;
  static constexpr int kConsumerRegs = 240;
  // L2 eviction hints: K/V evict_last (re-read by other query blocks), Q evict_first and
  // O streaming stores (touched once), so Q/O traffic does not push K/V out of L2.
  // Measured neutral on H200 (within noise at S = 4K..64K, notes/runs.md run 2); kept on.
  static constexpr bool kL2Hints = true;
  // K of a stage goes back to the producer as soon as S = Q K^T is done, one to two
  // iterations before its V: the producer refills K that much earlier (deeper prefetch
  // at no shared-memory cost). Measured neutral on H200 (notes/runs.md run 2); kept on.
  static constexpr bool kEarlyKRelease = true;
  // Lazy O rescale (fwd_softmax.cuh): the softmax reference max moves only when a row
  // grew by more than 2^8, so most blocks skip the 64 multiplies of the O rescale.
  // Measured on H200: +2-5% at every size, also where the 700 W cap holds the clock
  // (notes/runs.md run 11).
  static constexpr bool kLazyRescale = true;
  // Split Q (ThreeGroups below): Q's first 64 columns go to registers (RS wgmma), its last 64
  // stay in shared memory for the item (SS wgmma). The two-group layout keeps Q in registers.
  static constexpr bool kSplitQ = false;
  // Whether the normal (unwatched, undelayed) variant records the timeline: TraceOnly below.
  static constexpr bool kTraceOnly = false;
  // Shared memory a CTA may use on sm_90 (227 KB opt-in limit).
  static constexpr std::size_t kSmemLimit = 232448;
};

// The forward's second layout: three consumer groups per CTA, for long items in long launches
// (fwd_layout.hpp chooses; notes/runs.md runs 41-42). Registers: 128 x 24 + 384 x 160
// = 64512; at 160 the block loop is spill-free only with half of Q in registers (with all of
// Q, ptxas serialises the wgmmas: C7512). Shared memory: 3 x (8 KB of Q + 2 stages x 32 KB) =
// 216 KB; full Q tiles would make it 240 KB, past the 227 KB an SM has.
template <class Cfg>
struct ThreeGroups : Cfg {
  static constexpr int kConsumers = 3;
  static constexpr int kStages = 2;
  static constexpr int kThreads = Cfg::kWarpGroupThreads * (1 + kConsumers);
  static constexpr int kConsumerRegs = 160;
  static constexpr bool kSplitQ = true;
};
// The forward's third layout (fwd_cta4_kernel.cuh; fwd_layout.hpp picks it for short items in
// one wave): one warp group and one item per CTA, no producer group, one Q, K and V tile (48 KB),
// four CTAs per SM: TK's occupancy (notes/runs.md runs 61, 62). 4 x 128 threads x 128 registers
// fill the register file.
template <class Cfg>
struct FourCtas : Cfg {
  static constexpr int kConsumers = 1;
  static constexpr int kStages = 1;
  static constexpr int kThreads = Cfg::kWarpGroupThreads;
  static constexpr int kCtasPerSm = 4;
};
// The timeline (trace.hpp) on the normal variant's code: the stamps and nothing else. The
// probe variant also watches every mbarrier wait and has a delay point at every release,
// which made it 1.55x the normal variant's SASS and up to 19% slower (notes/runs.md, run 56),
// so a timeline recorded on it described a slower kernel than the one timed.
template <class Cfg>
struct TraceOnly : Cfg {
  static constexpr bool kTraceOnly = true;
};

static_assert(ThreeGroups<TileConfig>::kProducerRegs * 128 +
                      ThreeGroups<TileConfig>::kConsumerRegs * 128 * ThreeGroups<TileConfig>::kConsumers <=
                  65536,
              "register budget of one SM (three groups)");

static_assert(TileConfig::kBlockQ == 64, "one wgmma M=64 per consumer warp group");
static_assert(TileConfig::kHeadDim % TileConfig::kHalfCols == 0, "head dim in 64-column swizzle halves");
static_assert(TileConfig::kHalfCols * 2 == 128, "128-byte swizzle rows");
static_assert(TileConfig::kTileBytes == TileConfig::kHalves * TileConfig::kHalfBytes, "tile = halves");
static_assert(TileConfig::kThreads <= 1024, "CTA size");
static_assert(TileConfig::kProducerRegs * 128 + TileConfig::kConsumerRegs * 128 * TileConfig::kConsumers <= 65536,
              "register budget of one SM");
static_assert(TileConfig::kProducerRegs % 8 == 0 && TileConfig::kConsumerRegs % 8 == 0, "setmaxnreg granularity");

}  // namespace vsa::sm90a::fwd
