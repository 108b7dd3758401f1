#pragma once
// Consumer role with chained items (Cfg::kChainItems, an A/B variant; notes/runs.md run 39).
//
// The default consumer (fwd_mainloop.cuh, run_consumer) runs an item's first block alone:
// Q into registers, S_0 = Q K_0^T with nothing else in flight, and at the item's end its
// last P.V alone, then the epilogue. About 1.5 us per item is spent so (run 37's timeline),
// where a block in steady state takes 1.0 us. Here a slot's items form one stream of blocks:
//     ... softmax of the last block of item i; its P packed
//     next item: wait for its Q, load it into the Q registers (item i's last S is done)
//     issue S_0 = Q' K'_0^T                 (item i + 1)
//     issue O += P_last V_last             (item i)
//     wait for S_0; softmax of S_0 while the P.V runs
//     wait for the P.V; item i's epilogue; O = 0, and on as in steady state
// so an item boundary costs one steady-state step plus the epilogue, and the first S of
// an item and its softmax overlap the last P.V of the one before.
// Registers at the boundary are those of a steady-state step (S, O, P and Q each once).
// Single items only: pair tiles keep run_consumer.
#include "fwd_mainloop.cuh"

namespace vsa::sm90a::fwd {

struct SlotItem {
  int item;   // -1: no work left
  int count;  // > 0 unless item is -1
};

// The slot's next item with at least one block. Count-0 items met on the way are finished
// here (O = 0, lse = -inf) and their Q buffer handed back; `traced` counts them as items.
template <class Cfg, bool kProbe>
__device__ __forceinline__ SlotItem next_item(SlotBarriers<Cfg>& bars, const SlotMailbox<Cfg>& mail,
                                              PipelineState<1>& q_state, int& traced, int slot, const Params& p,
                                              int warp, int lane, int tid) {
  constexpr HangSite kQFull = hang_site("consumer", "q_full");
  for (;; ++traced) {
    mbar_wait<kProbe>(&bars.q_full, q_state.full_parity(), p.hang_watch, kQFull, {0, -1, -1});
    const int item = read_mailbox(mail.item, lane);
    const int count = read_mailbox(mail.count, lane);
    if (item == -1) return {-1, 0};
    stamp<Cfg, kProbe>(p, slot, trace_item_stamp(traced, 0), tid == 0);
    if (count > 0) return {item, count};
    release_stage<false>(&bars.q_empty, lane, 0);
    q_state.advance();
    store_empty_item<Cfg>(item, p, warp, lane);
  }
}

// The item's Q tile into the A fragments of every S product, and its buffer back to the
// producer (which may then publish the item after it).
template <class Cfg>
__device__ __forceinline__ void take_q(SlotTiles<Cfg>& tiles, SlotBarriers<Cfg>& bars, PipelineState<1>& q_state,
                                       std::uint32_t (&q)[8][4], int warp, int lane) {
  load_q_fragments<Cfg>(tiles.q, q, warp, lane);
  fence_proxy_async_smem();  // ordinary reads of Q before the next TMA write into it
  release_stage<false>(&bars.q_empty, lane, 0);
  q_state.advance();
}

template <class Cfg, bool kProbe>
__device__ void run_consumer_chained(SharedStorage<Cfg>& smem, int slot, const Params& p) {
  constexpr HangSite kKFull = hang_site("consumer", "k_full");
  constexpr HangSite kVFull = hang_site("consumer", "v_full");
  SlotTiles<Cfg>& tiles = smem.tiles[slot];
  SlotBarriers<Cfg>& bars = smem.bars[slot];
  const SlotMailbox<Cfg>& mail = smem.mail[slot];
  const int tid = threadIdx.x - Cfg::kWarpGroupThreads * (1 + slot);
  const int warp = tid / 32, lane = tid % 32;
  PipelineState<1> q_state;
  PipelineState<Cfg::kStages> kv_state;
  const SlotRing<Cfg> ring{tiles, bars, smem.mail[slot]};
  SlotStages<Cfg> stages{kv_state};

  std::uint32_t q[8][4];
  std::uint32_t pfrag[4][4];
  float s[32];
  float o[64];
#pragma unroll
  for (int i = 0; i < 32; ++i) s[i] = 0.0f;

  stamp<Cfg, kProbe>(p, slot, kTraceConsumerStart, tid == 0);
  int traced = 0;
  SlotItem cur = next_item<Cfg, kProbe>(bars, mail, q_state, traced, slot, p, warp, lane, tid);
  if (cur.item == -1) {
    stamp<Cfg, kProbe>(p, slot, kTraceConsumerEnd, tid == 0);
    return;
  }
  // The slot's first item starts alone, as in run_item.
  take_q<Cfg>(tiles, bars, q_state, q, warp, lane);
  OnlineSoftmax softmax;
  softmax.reset();
#pragma unroll
  for (int i = 0; i < 64; ++i) o[i] = 0.0f;
  auto first = stages.take();
  first_block<Cfg, kProbe>(ring, first, q, s, softmax, cur.item, p, lane);
  stamp<Cfg, kProbe>(p, slot, trace_item_stamp(traced, 1), tid == 0);
  pack_probabilities(s, pfrag);  // steady_blocks is entered with block 0's P packed

  // The item before `cur` whose last P.V is still in flight (item -1: none): its epilogue
  // waits at the top of the next trip, behind the back edge, so ptxas cannot hoist that
  // wait above the softmax it overlaps (as in steady_blocks). P of `cur`'s first block is
  // packed before the epilogue, so S's registers are free while it runs (without that,
  // S, O, Q and the epilogue's temporaries spill).
  OnlineSoftmax ending_softmax;
  int ending_item = -1, ending_traced = 0;
  auto ending = first;
  for (;;) {
    if (ending_item >= 0) {
      wgmma_wait<0>();
      keep_live(o);
      keep_live(pfrag);
      pack_probabilities(s, pfrag);
      if constexpr (!Cfg::kEarlyKRelease)
        release_stage<kProbe>(ring.k_empty(ending.index), lane, p.probe_release_kv_ns);
      store_output<Cfg, kProbe>(o, ending_softmax, ring.v_tile(ending.index), ring.v_empty(ending.index), slot,
                                ending_item, p, warp, lane);
      stamp<Cfg, kProbe>(p, slot, trace_item_stamp(ending_traced, 2), tid == 0);
#pragma unroll
      for (int i = 0; i < 64; ++i) o[i] = 0.0f;
    }
    const auto last =
        steady_blocks<Cfg, kProbe, true>(ring, stages, first, q, pfrag, s, o, softmax, cur.item, cur.count, p, lane);
    // Every product of the item is done but its last P.V, whose P is in pfrag.
    const int cur_traced = traced++;
    const SlotItem next = next_item<Cfg, kProbe>(bars, mail, q_state, traced, slot, p, warp, lane, tid);
    mbar_wait<kProbe>(ring.v_full(last.index), last.full_parity(), p.hang_watch, kVFull,
                      {last.index, cur.count - 1, cur.item});
    if (next.item == -1) {  // the slot's last item ends alone
      keep_live(o);
      keep_live(pfrag);
      wgmma_fence();
      issue_pv<Cfg>(o, pfrag, ring.v_tile(last.index));
      wgmma_commit();
      wgmma_wait<0>();
      keep_live(o);
      if constexpr (!Cfg::kEarlyKRelease) release_stage<kProbe>(ring.k_empty(last.index), lane, p.probe_release_kv_ns);
      store_output<Cfg, kProbe>(o, softmax, ring.v_tile(last.index), ring.v_empty(last.index), slot, cur.item, p, warp,
                                lane);
      stamp<Cfg, kProbe>(p, slot, trace_item_stamp(cur_traced, 2), tid == 0);
      stamp<Cfg, kProbe>(p, slot, kTraceConsumerEnd, tid == 0);
      return;
    }

    // The boundary is a steady-state step: S_0 of the next item, then the current item's
    // last P.V, and the softmax of S_0 while that P.V runs. The next item's Q goes into
    // the Q registers first: the current item's last S is done.
    take_q<Cfg>(tiles, bars, q_state, q, warp, lane);
    first = stages.take();
    // Both waits before the fence, the two products back to back (as in steady_blocks).
    mbar_wait<kProbe>(ring.k_full(first.index), first.full_parity(), p.hang_watch, kKFull, {first.index, 0, next.item});
    keep_live(o);
    keep_live(pfrag);
    keep_live(s);
    wgmma_fence();
    issue_scores<Cfg>(s, q, ring.k_tile(first.index));
    wgmma_commit();
    issue_pv<Cfg>(o, pfrag, ring.v_tile(last.index));
    wgmma_commit();

    wgmma_wait<1>();  // S_0 ready (K'_0 free); the last P.V may still run
    keep_live(s);
    mask_scores_release_k<Cfg, kProbe>(ring, first.index, s, lane, p);
    ending_softmax = softmax;
    softmax.reset();
    float alpha[2];
    softmax.update<Cfg::kLazyRescale>(s, p.scale_log2, alpha);  // a fresh row: no rescale
    stamp<Cfg, kProbe>(p, slot, trace_item_stamp(traced, 1), tid == 0);
    ending_item = cur.item;
    ending_traced = cur_traced;
    ending = last;
    cur = next;
  }
}

}  // namespace vsa::sm90a::fwd
