#pragma once
// What the forward kernel's roles share: kernel parameters, shared-memory tiles, the
// mbarriers that hand them between roles, and the small mailbox that travels with them.
#include <cstdint>
#include <type_traits>

#include "sm90a_common.cuh"
#include "tile_config.hpp"
#include "trace.hpp"
#include "vsa/bf16.hpp"

namespace vsa::sm90a::fwd {

struct Params {
  const std::int32_t* q2k_idx;       // [B, H, nb, max_kv]
  const std::int32_t* q2k_num;       // [B, H, nb]
  const std::int32_t* vbs;           // [nb]
  bf16_bits* out;                    // [B, H, S, D]
  float* lse;                        // [B, H, S], M format
  const std::int32_t* order;         // items after natural_first, longest first (fwd_schedule.cuh), relative
  const std::int32_t* order_counts;  // q2k_num of order[k], written beside it; null: read q2k_num
  int natural_first;                 // tickets below it are items in natural order (no sort needed)
  int pair_share;                    // pair tiles: 0 streams both lists whole (a diagnostic, run 35)
  std::int32_t* next_work;           // scheduler counter, zeroed by the order kernel
  int n_items;                       // B * H * nb
  int num_blocks;                    // nb
  int max_kv;
  float scale_log2;                   // softmax scale * log2(e), computed on the host
  std::uint32_t probe_release_kv_ns;  // ProbeSlot kProbeFwdReleaseKv (probe variant only)
  std::uint32_t probe_epilogue_ns;    // ProbeSlot kProbeFwdEpilogue (probe variant only)
  std::uint64_t* trace;               // timeline records (trace.hpp; probe variant only), or null
  HangWatch hang_watch;               // bounded waits (probe variant only); last, so no field moves
};

// Located hangs: what a forward wait names when the watch expires (the barriers are
// SlotBarriers' members; roles as in fwd_kernel.cuh).
constexpr HangSite hang_site(const char* role, const char* barrier) {
  return {hang_label("sm90a.forward"), hang_label(role), hang_label(barrier)};
}

// One consumer's tiles, all 128-byte swizzled by TMA as [half][row][64 columns]; every
// tile starts on a 1024-byte boundary so the swizzle atoms line up with the wgmma
// descriptors (base offset 0).
template <class Cfg>
struct SlotTiles {
  // Split Q (Cfg::kSplitQ): one 64-column half at a time, half 0 (into registers) then half 1
  // (held for the item's SS products).
  alignas(1024) bf16_bits q[Cfg::kSplitQ ? Cfg::kTileElems / 2 : Cfg::kTileElems];
  alignas(1024) bf16_bits k[Cfg::kStages][Cfg::kTileElems];
  // The last V stage of an item doubles as the O staging tile of its epilogue.
  alignas(1024) bf16_bits v[Cfg::kStages][Cfg::kTileElems];
};

// Barriers of one producer warp -> consumer warp group pair, named after the edge.
template <class Cfg>
struct SlotBarriers {
  std::uint64_t q_full;                 // producer -> consumer: Q tile and mailbox item/count (1 arrival + tx)
  std::uint64_t q_empty;                // consumer -> producer: Q in registers, mailbox read (1 per warp)
  std::uint64_t k_full[Cfg::kStages];   // producer -> consumer: K tile (1 + tx) and kv_valid of the stage (1)
  std::uint64_t v_full[Cfg::kStages];   // producer -> consumer: V tile of the stage (1 + tx)
  std::uint64_t k_empty[Cfg::kStages];  // consumer -> producer: K tile and kv_valid no longer read (1 per warp)
  std::uint64_t v_empty[Cfg::kStages];  // consumer -> producer: V tile (or O staging) no longer read (1 per warp)
};

// Plain shared-memory words written by the producer before the arrive that publishes
// them (release) and read by the consumer after its wait (acquire).
template <class Cfg>
struct SlotMailbox {
  int item;                    // work item, -1: no more work, -2 (pair tiles): none for this slot in this pair
  int count;                   // its q2k_num (clamped to [0, max_kv])
  int kv_valid[Cfg::kStages];  // vbs of the kv block in each stage
  // Pair tiles only (fwd_pair_order.hpp): the pair's first position in the union ring and
  // the queue sizes the consumer's walk is computed from.
  int pair_base;
  int pair_shared;
  int pair_only[2];
};

// Pair tiles: which kv blocks each row of the pair selected, one bit per block of the head,
// so each producer warp (K and V, one copy each) can split the union into shared and own
// blocks. Sized for S <= 131072 (what is left of shared memory); longer heads run single
// items (fwd_launch.cuh).
inline constexpr int kPairMapWords = 64;
inline constexpr int kPairMaxBlocks = kPairMapWords * 32;
struct PairMaps {
  std::uint32_t selected[2][2][kPairMapWords];  // [producer warp: K, V][row of the pair]
};

// Split Q (three groups): Q's half 1 has a hand-off of its own. One barrier pair, each state
// advanced once per item; a second phase of q_full / q_empty per item moved the block loop's
// descriptor arithmetic off the uniform datapath (run 41). Absent from the two-group layout,
// whose shared memory stays as it was.
struct QHalf1Barriers {
  std::uint64_t full;   // producer -> consumer: Q's half 1 (1 arrival + tx)
  std::uint64_t empty;  // consumer -> producer: the item's last S product is done (1 per warp)
};
struct NoBarriers {};

template <class Cfg>
struct SharedStorage {
  SlotTiles<Cfg> tiles[Cfg::kConsumers];
  SlotBarriers<Cfg> bars[Cfg::kConsumers];
  SlotMailbox<Cfg> mail[Cfg::kConsumers];
  PairMaps pair_maps;
  [[no_unique_address]] std::conditional_t<Cfg::kSplitQ, QHalf1Barriers[Cfg::kConsumers], NoBarriers> q1;
};

// Dynamic shared memory is aligned by hand (the extra 1024 bytes) since its base is not
// guaranteed to sit on a swizzle-atom boundary.
template <class Cfg>
constexpr std::size_t kSmemBytes = sizeof(SharedStorage<Cfg>) + 1024;

static_assert(kSmemBytes<TileConfig> <= TileConfig::kSmemLimit, "forward tiles exceed the shared memory of an SM");
static_assert(kSmemBytes<ThreeGroups<TileConfig>> <= TileConfig::kSmemLimit, "three groups exceed shared memory");

// The lane that per-lane shared/global addresses are built from. The three-group layout (160
// registers) takes it from %laneid at each use, so ptxas rebuilds those addresses instead of
// holding them across the item loop, where they spilled (run 42); the two-group layout keeps
// the caller's lane.
template <class Cfg>
__device__ __forceinline__ int address_lane(int lane) {
  if constexpr (Cfg::kSplitQ) return lane_id_unhoisted();
  return lane;
}

// Consumer warp groups have 4 warps; barrier arrival counts follow from that.
inline constexpr int kConsumerWarps = 4;

// Timeline stamp of consumer/producer slot `slot` (trace.hpp): the probe variant and the
// trace-only one (TraceOnly), by the one thread the caller names.
template <class Cfg, bool kProbe>
__device__ __forceinline__ void stamp(const Params& p, int slot, int which, bool writer) {
  static_assert(Cfg::kConsumers <= kForwardTraceSlotsPerCta, "trace_buffer_words would size the timeline too small");
  if constexpr (kProbe || Cfg::kTraceOnly) {
    if (writer && p.trace != nullptr)
      trace_stamp(p.trace + std::int64_t(blockIdx.x * Cfg::kConsumers + slot) * kTraceWords, which);
  }
}

}  // namespace vsa::sm90a::fwd
