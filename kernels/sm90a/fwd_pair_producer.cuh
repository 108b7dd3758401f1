#pragma once
// Producers of pair tiles: two warps, one streams the K tiles of the union, the other its V
// tiles, so a V stage still held by one consumer never delays the next K (run 35: one warp
// doing both lost 7-20%, with or without shared blocks). Both warps take the same pairs in
// the same static order (pair blockIdx.x + k x gridDim.x: no counter, so no kernel before
// the forward), each marks which kv blocks each row selected in its own maps, and both
// stream the union of the two lists in the cycle order of fwd_pair_order.hpp. The K warp
// also publishes both items with their Q tiles and each stage's vbs. A block both rows selected is loaded once: the
// saving is the reason for pair tiles (FlashInfer's SM90 VSA forward loads 17% fewer bytes this way, run 31b).
#include "fwd_pair_order.hpp"
#include "fwd_pair_ring.cuh"
#include "fwd_producer.cuh"

namespace vsa::sm90a::fwd {

// One queue of the union: the blocks of one row's list that are (or are not) in the other
// row's map, read 32 ids at a time (each lane one id and its vbs). Only the scan state lives
// here; the list and the map are passed in, so three queues fit the producer's 24 registers
// (the probe variant spilled with them inside).
struct PairQueue {
  int base = -32;
  std::uint32_t mask = 0u;  // lanes of the current 32 ids still to stream
  int block = 0;
  int valid = 0;
};

__device__ __forceinline__ bool pair_map_has(const std::uint32_t* map, int block, int num_blocks) {
  return map != nullptr && block >= 0 && block < num_blocks && ((map[block >> 5] >> (block & 31)) & 1u) != 0;
}

// The queue's next block and its vbs (warp-uniform): the ids of `list` (count of them) whose
// presence in `other` (null: no block is shared) is `want_shared`. Stops at the list's end
// even when the counts disagree with the lists (a row with repeated ids, outside
// docs/spec.md), so a bad input gives a wrong output, never a hang.
__device__ __forceinline__ int2 pair_queue_next(PairQueue& q, const std::int32_t* list, int count,
                                                const std::uint32_t* other, bool want_shared, const Params& p,
                                                int lane) {
  while (q.mask == 0u) {
    q.base += 32;
    if (q.base >= count) return make_int2(0, 0);
    const int i = q.base + lane;
    bool take = false;
    q.block = 0;
    q.valid = 0;
    if (i < count) {
      q.block = list[i];
      q.valid = p.vbs[q.block];
      take = pair_map_has(other, q.block, p.num_blocks) == want_shared;
    }
    q.mask = __ballot_sync(0xffffffffu, take);
  }
  const int e = __ffs(q.mask) - 1;
  q.mask &= q.mask - 1u;
  return make_int2(__shfl_sync(0xffffffffu, q.block, e), __shfl_sync(0xffffffffu, q.valid, e));
}

// Marks row `ids`'s blocks in `map` (cleared first); with `count_in`, also counts how many
// of them `count_in` holds. Warp-wide; ids outside the head are left out (never shared).
__device__ __forceinline__ int pair_mark(std::uint32_t* map, const std::int32_t* ids, int count, int num_blocks,
                                         const std::uint32_t* count_in, int lane) {
  for (int w = lane; w < kPairMapWords; w += 32) map[w] = 0u;
  __syncwarp();
  int in_other = 0;
  for (int base = 0; base < count; base += 32) {
    const int i = base + lane;
    int block = -1;
    if (i < count) block = ids[i];
    if (block >= 0 && block < num_blocks) atomicOr(&map[block >> 5], 1u << (block & 31));
    in_other += __popc(__ballot_sync(0xffffffffu, i < count && pair_map_has(count_in, block, num_blocks)));
  }
  __syncwarp();
  return in_other;
}

// Streams the queue's next block into the ring at `position` (then advanced): the K tile and
// its vbs (kKRole) or the V tile. `absent`: the slot that does not read it (-1: both do);
// the producer makes that slot's release of its tile by proxy.
template <class Cfg, bool kProbe, bool kKRole>
__device__ __forceinline__ void pair_emit(const PairRing<Cfg>& ring, const CUtensorMap* tm_kv, std::uint64_t kv_policy,
                                          PairQueue& queue, const std::int32_t* list, int count,
                                          const std::uint32_t* other, bool want_shared, int head_row, int absent,
                                          int& position, int r, int item, const Params& p, int lane) {
  const int2 next = pair_queue_next(queue, list, count, other, want_shared, p, lane);
  const typename PairRing<Cfg>::Stage st = PairRing<Cfg>::at(position);
  const int row = head_row + next.x * Cfg::kBlockKv;
  std::uint64_t* empty = kKRole ? ring.k_empty(st.index) : ring.v_empty(st.index);
  std::uint64_t* full = kKRole ? ring.k_full(st.index) : ring.v_full(st.index);
  constexpr HangSite kEmpty = hang_site("producer", kKRole ? "k_empty" : "v_empty");
  mbar_wait<kProbe>(empty, st.empty_parity(), p.hang_watch, kEmpty, {st.index, r, item});
  if (lane == 0) {
    mbar_arrive_expect_tx(full, Cfg::kTileBytes);
    load_tile<Cfg>(kKRole ? ring.k_tile(st.index) : ring.v_tile(st.index), tm_kv, row, full, kv_policy);
    if constexpr (kKRole) {
      ring.kv_valid(st.index) = next.y;
      mbar_arrive(full);  // k_full's second arrival releases the vbs word
    }
    // After this position's own empty wait, so the proxy arrivals count toward its phase.
    if (absent >= 0) mbar_arrive(empty, kConsumerWarps);
  }
  __syncwarp();
  ++position;
}

template <class Cfg, bool kProbe, bool kKRole>
__device__ void run_pair_producer(SharedStorage<Cfg>& smem, const CUtensorMap* tm_q, const CUtensorMap* tm_kv,
                                  const Params& p) {
  const PairRing<Cfg> ring{smem};
  const int lane = threadIdx.x % 32;
  PipelineState<1> q_state[Cfg::kConsumers];
  int position = 0;  // next union position of this CTA's ring
  const std::uint64_t q_policy = Cfg::kL2Hints ? l2_policy_evict_first() : 0;
  const std::uint64_t kv_policy = Cfg::kL2Hints ? l2_policy_evict_last() : 0;
  const int n_pairs = (p.n_items + 1) / 2;
  std::uint32_t* maps = smem.pair_maps.selected[kKRole ? 0 : 1][0];

  for (int ticket = int(blockIdx.x);; ticket += int(gridDim.x)) {
    int item[2] = {-1, -1}, count[2] = {0, 0};
    if (ticket < n_pairs) {
#pragma unroll
      for (int c = 0; c < 2; ++c) {
        item[c] = 2 * ticket + c;
        if (item[c] >= p.n_items) item[c] = -2;  // an odd item count: the last pair has one
        if (item[c] >= 0) count[c] = min(max(p.q2k_num[item[c]], 0), p.max_kv);
      }
    }
    const std::int32_t* ids[2] = {p.q2k_idx + std::int64_t(max(item[0], 0)) * p.max_kv,
                                  p.q2k_idx + std::int64_t(max(item[1], 0)) * p.max_kv};
    const bool same_head = p.pair_share && item[1] >= 0 && item[0] / p.num_blocks == item[1] / p.num_blocks &&
                           p.num_blocks <= kPairMaxBlocks && count[0] > 0 && count[1] > 0;
    std::uint32_t* map0 = maps;
    std::uint32_t* map1 = maps + kPairMapWords;
    PairCounts counts{};
    if (same_head) {
      pair_mark(map1, ids[1], count[1], p.num_blocks, nullptr, lane);
      counts.shared = pair_mark(map0, ids[0], count[0], p.num_blocks, map1, lane);
    }
    counts.only[0] = count[0] - counts.shared;
    counts.only[1] = count[1] - counts.shared;

    if constexpr (kKRole) {
#pragma unroll
      for (int c = 0; c < Cfg::kConsumers; ++c) {
        SlotBarriers<Cfg>& bars = smem.bars[c];
        SlotMailbox<Cfg>& mail = smem.mail[c];
        constexpr HangSite kQEmpty = hang_site("producer", "q_empty");
        mbar_wait<kProbe>(&bars.q_empty, q_state[c].empty_parity(), p.hang_watch, kQEmpty, {c, -1, item[c]});
        if (lane == 0) {
          mail.item = ticket < n_pairs ? item[c] : -1;
          mail.count = count[c];
          mail.pair_base = position;
          mail.pair_shared = counts.shared;
          mail.pair_only[0] = counts.only[0];
          mail.pair_only[1] = counts.only[1];
          if (count[c] > 0) {
            mbar_arrive_expect_tx(&bars.q_full, Cfg::kTileBytes);
            load_tile<Cfg>(smem.tiles[c].q, tm_q, item[c] * Cfg::kBlockQ, &bars.q_full, q_policy);
          } else {
            mbar_arrive(&bars.q_full);  // empty item, no item or end of work: mailbox only
          }
        }
        __syncwarp();
        q_state[c].advance();
      }
    }
    if (ticket >= n_pairs) return;

    // Rows of each item's head's first key in the [B*H*S, D] view.
    const int head_row[2] = {(max(item[0], 0) / p.num_blocks) * p.num_blocks * Cfg::kBlockKv,
                             (max(item[1], 0) / p.num_blocks) * p.num_blocks * Cfg::kBlockKv};
    const std::uint32_t* other0 = same_head ? map1 : nullptr;  // for slot 0's list
    const std::uint32_t* other1 = same_head ? map0 : nullptr;  // for slot 1's list
    PairQueue shared, own0, own1;
    const int cycles = max(counts.shared, max(counts.only[0], counts.only[1]));
    for (int r = 0; r < cycles; ++r) {
      if (r < counts.only[0])
        pair_emit<Cfg, kProbe, kKRole>(ring, tm_kv, kv_policy, own0, ids[0], count[0], other0, false, head_row[0], 1,
                                       position, r, item[0], p, lane);
      if (r < counts.shared)
        pair_emit<Cfg, kProbe, kKRole>(ring, tm_kv, kv_policy, shared, ids[0], count[0], other0, true, head_row[0], -1,
                                       position, r, item[0], p, lane);
      if (r < counts.only[1])
        pair_emit<Cfg, kProbe, kKRole>(ring, tm_kv, kv_policy, own1, ids[1], count[1], other1, false, head_row[1], 0,
                                       position, r, item[1], p, lane);
    }
  }
}

}  // namespace vsa::sm90a::fwd
