#pragma once
// Producers of pair tiles: two warps, one streams the K tiles of the union, the other its V
// tiles, so a V stage still held by one consumer never delays the next K (run 35: one warp
// doing both lost 7-20%, with or without shared blocks). Both warps take the same pairs in
// the same static order (pair blockIdx.x + k x gridDim.x: no counter, so no kernel before
// the forward), each marks which kv blocks each row selected in its own maps, and both
// stream the union of the two lists in the cycle order of fwd_pair_order.hpp. The K warp
// also publishes both items with their Q tiles and each stage's vbs. A block both rows selected is loaded once: the
// saving is the reason for pair tiles (FlashInfer's SM90 VSA forward loads 17% fewer bytes this way, run 31b).
// A pair start costs the producers few dependent round trips (run 36): both rows' ids load
// side by side, the shared count comes from the maps, the three queues' first batches load
// together, and the K warp reads a block's vbs only after the block's TMA is issued.
#include "fwd_pair_order.hpp"
#include "fwd_pair_ring.cuh"
#include "fwd_producer.cuh"

namespace vsa::sm90a::fwd {

// One queue of the union: the entries of one row's list that are (or are not) in the other
// row's map, 32 ids at a time (lane i holds entry base + i, and for the K warp its vbs). Only
// the scan state lives here; the list and the map are passed in, so three queues fit the
// producer's 24 registers (the probe variant spilled with them inside).
struct PairQueue {
  int base = -32;
  std::uint32_t mask = 0u;  // lanes of the current 32 ids still to stream
  int block = 0;
  int valid = 0;
};

__device__ __forceinline__ bool pair_map_has(const std::uint32_t* map, int block, int num_blocks) {
  return map != nullptr && block >= 0 && block < num_blocks && ((map[block >> 5] >> (block & 31)) & 1u) != 0;
}

// A queue's next 32 ids, in two steps so a caller can put several queues' loads in flight
// before it waits on any: the ids, then (K warp only) each id's vbs, which depends on the id
// but is read only after the entry's TMA is issued (pair_emit), as in fwd_producer.cuh.
__device__ __forceinline__ void pair_queue_load_ids(PairQueue& q, const std::int32_t* list, int count, int lane) {
  q.base += 32;
  const int i = q.base + lane;
  q.block = i < count ? list[i] : 0;
}
template <bool kVbs>
__device__ __forceinline__ void pair_queue_load_vbs(PairQueue& q, const Params& p) {
  if constexpr (kVbs) q.valid = unsigned(q.block) < unsigned(p.num_blocks) ? p.vbs[q.block] : 0;
}
__device__ __forceinline__ void pair_queue_select(PairQueue& q, int count, const std::uint32_t* other, bool want_shared,
                                                  int num_blocks, int lane) {
  const bool take = q.base + lane < count && pair_map_has(other, q.block, num_blocks) == want_shared;
  q.mask = __ballot_sync(0xffffffffu, take);
}

// The lane of the queue's next entry (warp-uniform), loading batches as needed, or -1 at the
// list's end. Stops at the end even when the counts disagree with the lists (a row with
// repeated ids, outside docs/spec.md), so a bad input gives a wrong output, never a hang.
template <bool kVbs>
__device__ __forceinline__ int pair_queue_next(PairQueue& q, const std::int32_t* list, int count,
                                               const std::uint32_t* other, bool want_shared, const Params& p,
                                               int lane) {
  while (q.mask == 0u) {
    if (q.base + 32 >= count) return -1;
    pair_queue_load_ids(q, list, count, lane);
    pair_queue_load_vbs<kVbs>(q, p);
    pair_queue_select(q, count, other, want_shared, p.num_blocks, lane);
  }
  const int e = __ffs(q.mask) - 1;
  q.mask &= q.mask - 1u;
  return e;
}

// Marks both rows' blocks in their maps (cleared first) and returns how many blocks both
// selected. The two rows' ids are loaded side by side, up to 64 entries a row per round trip
// (run 36: the serial loads of run 35 cost a pair start several round trips).
// Warp-wide; ids outside the head are left out (never shared).
__device__ __forceinline__ int pair_mark_both(std::uint32_t* map0, std::uint32_t* map1, const std::int32_t* ids0,
                                              int count0, const std::int32_t* ids1, int count1, int num_blocks,
                                              int lane) {
  for (int w = lane; w < kPairMapWords; w += 32) map0[w] = map1[w] = 0u;
  __syncwarp();
  const int longest = max(count0, count1);
  for (int base = 0; base < longest; base += 64) {
    int b[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) {  // rows 0, 0, 1, 1: entries base + lane and base + 32 + lane
      const int i = base + (j % 2) * 32 + lane;
      b[j] = i < (j < 2 ? count0 : count1) ? (j < 2 ? ids0 : ids1)[i] : -1;
    }
#pragma unroll
    for (int j = 0; j < 4; ++j)
      if (b[j] >= 0 && b[j] < num_blocks) atomicOr(&(j < 2 ? map0 : map1)[b[j] >> 5], 1u << (b[j] & 31));
  }
  __syncwarp();
  int both = 0;
  for (int w = lane; w < kPairMapWords; w += 32) both += __popc(map0[w] & map1[w]);
  return __reduce_add_sync(0xffffffffu, both);
}

// Streams the queue's next block into the ring at `position` (then advanced): the K tile and
// its vbs (kKRole) or the V tile. `absent`: the slot that does not read it (-1: both do);
// the producer makes that slot's release of its tile by proxy.
template <class Cfg, bool kProbe, bool kKRole>
__device__ __forceinline__ void pair_emit(const PairRing<Cfg>& ring, const CUtensorMap* tm_kv, std::uint64_t kv_policy,
                                          PairQueue& queue, const std::int32_t* list, int count,
                                          const std::uint32_t* other, bool want_shared, int head_row, int absent,
                                          int& position, int r, int item, const Params& p, int lane) {
  const int e = pair_queue_next<kKRole>(queue, list, count, other, want_shared, p, lane);
  const int block = e >= 0 ? __shfl_sync(0xffffffffu, queue.block, e) : 0;
  const typename PairRing<Cfg>::Stage st = PairRing<Cfg>::at(position);
  const int row = head_row + block * Cfg::kBlockKv;
  std::uint64_t* empty = kKRole ? ring.k_empty(st.index) : ring.v_empty(st.index);
  std::uint64_t* full = kKRole ? ring.k_full(st.index) : ring.v_full(st.index);
  constexpr HangSite kEmpty = hang_site("producer", kKRole ? "k_empty" : "v_empty");
  mbar_wait<kProbe>(empty, st.empty_parity(), p.hang_watch, kEmpty, {st.index, r, item});
  if (lane == 0) {
    mbar_arrive_expect_tx(full, Cfg::kTileBytes);
    load_tile<Cfg>(kKRole ? ring.k_tile(st.index) : ring.v_tile(st.index), tm_kv, row, full, kv_policy);
  }
  if constexpr (kKRole) {
    // The vbs only now, with the tile on its way; k_full's second arrival releases the word.
    const int valid = e >= 0 ? __shfl_sync(0xffffffffu, queue.valid, e) : 0;
    if (lane == 0) {
      ring.kv_valid(st.index) = valid;
      mbar_arrive(full);
    }
  }
  if (lane == 0 && absent >= 0) mbar_arrive(empty, kConsumerWarps);  // after this position's own empty wait
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
    if (same_head) counts.shared = pair_mark_both(map0, map1, ids[0], count[0], ids[1], count[1], p.num_blocks, lane);
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
    // The three queues' first batches load side by side: each first read of a queue in the
    // cycle order would otherwise cost its own round trips at the pair's first positions.
    PairQueue shared, own0, own1;
    pair_queue_load_ids(own0, ids[0], count[0], lane);
    pair_queue_load_ids(shared, ids[0], count[0], lane);
    pair_queue_load_ids(own1, ids[1], count[1], lane);
    pair_queue_load_vbs<kKRole>(own0, p);
    pair_queue_load_vbs<kKRole>(shared, p);
    pair_queue_load_vbs<kKRole>(own1, p);
    pair_queue_select(own0, count[0], other0, false, p.num_blocks, lane);
    pair_queue_select(shared, count[0], other0, true, p.num_blocks, lane);
    pair_queue_select(own1, count[1], other1, false, p.num_blocks, lane);
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
