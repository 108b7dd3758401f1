#pragma once
// Producer role: one warp per consumer. Takes work items from the scheduler, publishes
// each item in the mailbox with its Q tile, then streams the item's selected K/V blocks
// through the consumer's ring. Lane 0 issues; the other lanes fetch block ids and vbs
// 32 at a time so those dependent loads stay off the issue path.
#include "fwd_schedule.cuh"
#include "fwd_storage.cuh"
#include "fwd_tile_load.cuh"

namespace vsa::sm90a::fwd {

template <class Cfg, bool kProbe>
__device__ void run_producer(SharedStorage<Cfg>& smem, int slot, const CUtensorMap* tm_q, const CUtensorMap* tm_k,
                             const CUtensorMap* tm_v, const Params& p) {
  SlotTiles<Cfg>& tiles = smem.tiles[slot];
  SlotBarriers<Cfg>& bars = smem.bars[slot];
  SlotMailbox<Cfg>& mail = smem.mail[slot];
  const int lane = threadIdx.x % 32;
  PipelineState<1> q_state;
  PipelineState<1> q1_state;  // split Q: Q's half 1, one phase per item with blocks
  PipelineState<Cfg::kStages> kv_state;
  // Q is read once; K and V are read again by other query blocks of the head.
  const std::uint64_t q_policy = Cfg::kL2Hints ? l2_policy_evict_first() : 0;
  const std::uint64_t kv_policy = Cfg::kL2Hints ? l2_policy_evict_last() : 0;

  // Tickets below natural_first are items in natural order: the kernel before us (the sort
  // of the items after them, or only the counter reset) is waited for only before the first
  // ticket past them or the first counter access (fwd_schedule.cuh). Longest-first alone
  // (natural_first 0) waits at once.
  const int first = first_ticket<Cfg::kConsumers>(slot);
  bool waited = false;
  if (first >= p.natural_first && first < p.n_items) {
    grid_dependency_wait();
    stamp<Cfg, kProbe>(p, slot, kTraceDependency, lane == 0);
    waited = true;
  }
  for (int ticket = first;;) {
    int item = -1, count = 0;
    if (ticket < p.n_items) {
      if (ticket < p.natural_first) {
        item = ticket;
        count = p.q2k_num[item];
      } else {
        // Item and count in one round trip (two independent loads) where the sort wrote both.
        const int k = ticket - p.natural_first;
        item = p.natural_first + p.order[k];
        count = p.order_counts != nullptr ? p.order_counts[k] : p.q2k_num[item];
      }
      count = min(max(count, 0), p.max_kv);
    }

    constexpr HangSite kQEmpty = hang_site("producer", "q_empty");
    if constexpr (Cfg::kSplitQ) {
      // Half 0 goes into the buffer that holds the item before's half 1: wait for its last S.
      constexpr HangSite kQ1Empty = hang_site("producer", "q1_empty");
      if (count > 0)
        mbar_wait<kProbe>(&smem.q1[slot].empty, q1_state.empty_parity(), p.hang_watch, kQ1Empty, {1, -1, item});
    }
    mbar_wait<kProbe>(&bars.q_empty, q_state.empty_parity(), p.hang_watch, kQEmpty, {0, -1, item});
    if (lane == 0) {
      mail.item = item;
      mail.count = count;
      if (count > 0 && Cfg::kSplitQ) {  // half 0 now, half 1 once the consumer holds half 0
        mbar_arrive_expect_tx(&bars.q_full, Cfg::kHalfBytes);
        load_half<Cfg>(tiles.q, tm_q, 0, item * Cfg::kBlockQ, &bars.q_full, q_policy);
      } else if (count > 0) {
        mbar_arrive_expect_tx(&bars.q_full, Cfg::kTileBytes);
        load_tile<Cfg>(tiles.q, tm_q, item * Cfg::kBlockQ, &bars.q_full, q_policy);
      } else {
        mbar_arrive(&bars.q_full);  // empty item or end of work: mailbox only
      }
    }
    __syncwarp();
    q_state.advance();
    if (item < 0) return;

    // Row of this head's first key in the [B*H*S, D] view: (b*H + h) * S.
    const int head_row = (item / p.num_blocks) * p.num_blocks * Cfg::kBlockKv;
    const std::int32_t* ids = p.q2k_idx + std::int64_t(item) * p.max_kv;
    for (int base = 0; base < count; base += 32) {
      int block = 0, valid = 0;
      if (base + lane < count) {
        block = ids[base + lane];
        valid = p.vbs[block];
      }
      const int batch = min(32, count - base);
      for (int e = 0; e < batch; ++e) {
        const int block_e = __shfl_sync(0xffffffffu, block, e);
        const int s = kv_state.index;
        const int row = head_row + block_e * Cfg::kBlockKv;
        // K first: it is needed one iteration before V and its slot frees up earlier.
        constexpr HangSite kKEmpty = hang_site("producer", "k_empty");
        mbar_wait<kProbe>(&bars.k_empty[s], kv_state.empty_parity(), p.hang_watch, kKEmpty, {s, base + e, item});
        if (lane == 0) {
          mbar_arrive_expect_tx(&bars.k_full[s], Cfg::kTileBytes);
          load_tile<Cfg>(tiles.k[s], tm_k, row, &bars.k_full[s], kv_policy);
        }
        constexpr HangSite kVEmpty = hang_site("producer", "v_empty");
        mbar_wait<kProbe>(&bars.v_empty[s], kv_state.empty_parity(), p.hang_watch, kVEmpty, {s, base + e, item});
        if (lane == 0) {
          mbar_arrive_expect_tx(&bars.v_full[s], Cfg::kTileBytes);
          load_tile<Cfg>(tiles.v[s], tm_v, row, &bars.v_full[s], kv_policy);
        }
        // The block's vbs only now, after both loads are on their way: the vbs load
        // (dependent on the block id) no longer delays the first TMA of a batch. It goes
        // into the mailbox with k_full's second arrival, which releases the write.
        const int valid_e = __shfl_sync(0xffffffffu, valid, e);
        if (lane == 0) {
          mail.kv_valid[s] = valid_e;
          mbar_arrive(&bars.k_full[s]);
        }
        __syncwarp();
        kv_state.advance();
        if constexpr (Cfg::kSplitQ) {
          if (base + e == 0) {  // after the first block's loads: once half 0 is in the consumer's
                                // registers (q_empty), the buffer takes half 1
            mbar_wait<kProbe>(&bars.q_empty, q_state.empty_parity(), p.hang_watch, kQEmpty, {0, -1, item});
            if (lane == 0) {
              mbar_arrive_expect_tx(&smem.q1[slot].full, Cfg::kHalfBytes);
              load_half<Cfg>(tiles.q, tm_q, 1, item * Cfg::kBlockQ, &smem.q1[slot].full, q_policy);
            }
            __syncwarp();
            q1_state.advance();
          }
        }
      }
    }
    if (!waited) {  // the counter and the order come from the kernel before us
      grid_dependency_wait();
      stamp<Cfg, kProbe>(p, slot, kTraceDependency, lane == 0);
      waited = true;
    }
    ticket = next_ticket<Cfg::kConsumers>(p.next_work, lane);
  }
}

}  // namespace vsa::sm90a::fwd
