#pragma once
// Consumer role: one warp group per slot, one 64-row query block at a time.
//
// Per item: Q -> registers (A operand of every S = Q K^T), then for each selected kv
// block n the pipelined step
//     wait P_{n-2} V_{n-2}; hand stage n-2 back; rescale O; P_{n-1} = bf16(S_{n-1})
//     issue S_n = Q K_n^T          (wgmma m64n64k16 x 8, A = Q registers)
//     issue O  += P_{n-1} V_{n-1}  (wgmma m64n128k16 x 4, A = P registers, V N-major)
//     wait S_n; online softmax of S_n while P_{n-1} V_{n-1} still runs
// so the softmax of one block overlaps the P.V product of the previous one.
#include "fwd_epilogue.cuh"
#include "fwd_pair_order.hpp"
#include "fwd_pair_ring.cuh"
#include "fwd_softmax.cuh"
#include "fwd_storage.cuh"

namespace vsa::sm90a::fwd {

// Q tile (swizzled [half][row][64]) into the A fragments of 8 k16 slices: ldmatrix.x4
// matrices (rows 0-7 | 8-15) x (k 0-7 | 8-15) of this warp's 16 rows.
template <class Cfg, int kSlices = 8>
__device__ __forceinline__ void load_q_fragments(const bf16_bits* q_tile, std::uint32_t (&q)[8][4], int warp,
                                                 int lane_arg) {
  const int lane = address_lane<Cfg>(lane_arg);
  const std::uint32_t base = smem_addr(q_tile);
  const int row = warp * 16 + lane % 8 + 8 * ((lane / 8) % 2);
#pragma unroll
  for (int kk = 0; kk < kSlices; ++kk) {
    const int chunk = (kk % 4) * 2 + lane / 16;  // 16-byte chunk within the 128-byte half row
    const std::uint32_t addr = base + (kk / 4) * Cfg::kHalfBytes + row * 128 + ((chunk ^ (row % 8)) << 4);
    ldmatrix_x4(q[kk], addr);
  }
}

// S = Q K^T: K is K-major (rows = keys, 128-byte rows); slice kk sits in half kk/4 at
// byte 32 * (kk % 4) of the swizzle atom.
// Split Q (Cfg::kSplitQ): slices 4-7 read Q's half 1 from shared memory (SS).
template <class Cfg>
__device__ __forceinline__ void issue_scores(float (&s)[32], const std::uint32_t (&q)[8][4], const bf16_bits* q_half1,
                                             const bf16_bits* k_tile) {
  const std::uint32_t base = smem_addr(k_tile);
#pragma unroll
  for (int kk = 0; kk < 8; ++kk) {
    const std::uint64_t desc = smem_desc_sw128(base + (kk / 4) * Cfg::kHalfBytes + (kk % 4) * 32, 16, 1024);
    if constexpr (Cfg::kSplitQ) {
      if (kk < 4) {
        wgmma_m64n64k16_rs<0>(s, q[kk], desc, kk > 0);
      } else {
        const std::uint64_t qd = smem_desc_sw128(smem_addr(q_half1) + (kk % 4) * 32, 16, 1024);
        wgmma_m64n64k16_ss<0, 0>(s, qd, desc, 1);
      }
    } else {
      wgmma_m64n64k16_rs<0>(s, q[kk], desc, kk > 0);
    }
  }
}

// O += P V: V is N-major for this product (rows = keys = K dimension); slice kk is
// keys 16kk..16kk+15, 2 x 8-row groups (sbo 1024 B), N = 128 spans both halves (lbo).
template <class Cfg>
__device__ __forceinline__ void issue_pv(float (&o)[64], const std::uint32_t (&p)[4][4], const bf16_bits* v_tile) {
  const std::uint32_t base = smem_addr(v_tile);
#pragma unroll
  for (int kk = 0; kk < 4; ++kk) {
    const std::uint64_t desc = smem_desc_sw128(base + kk * 16 * 128, Cfg::kHalfBytes, 1024);
    wgmma_m64n128k16_rs<1>(o, p[kk], desc, 1);
  }
}

// A mailbox word, read by lane 0 only and broadcast: the lane that reads is the lane that
// later arrives on the barrier handing the word back (what racecheck can follow).
__device__ __forceinline__ int read_mailbox(const int& word, int lane) {
  int v = 0;
  if (lane == 0) v = *static_cast<const volatile int*>(&word);
  return __shfl_sync(0xffffffffu, v, 0);
}

// Each warp hands a buffer back once its own reads are done; barriers count 4 arrivals.
template <bool kProbe>
__device__ __forceinline__ void release_stage(std::uint64_t* empty, int lane, std::uint32_t delay_ns) {
  __syncwarp();
  if (lane == 0) {
    if constexpr (kProbe) sleep_ns(delay_ns);
    mbar_arrive(empty);
  }
  __syncwarp();
}

// One slot's own ring (single items): stage i of the slot's kStages, as PairRing's accessors.
template <class Cfg>
struct SlotRing {
  SlotTiles<Cfg>& tiles;
  SlotBarriers<Cfg>& b;
  SlotMailbox<Cfg>& mail;
  __device__ __forceinline__ std::uint64_t* k_full(int i) const { return &b.k_full[i]; }
  __device__ __forceinline__ std::uint64_t* v_full(int i) const { return &b.v_full[i]; }
  __device__ __forceinline__ std::uint64_t* k_empty(int i) const { return &b.k_empty[i]; }
  __device__ __forceinline__ std::uint64_t* v_empty(int i) const { return &b.v_empty[i]; }
  __device__ __forceinline__ bf16_bits* k_tile(int i) const { return tiles.k[i]; }
  __device__ __forceinline__ bf16_bits* v_tile(int i) const { return tiles.v[i]; }
  __device__ __forceinline__ int& kv_valid(int i) const { return mail.kv_valid[i]; }
  __device__ __forceinline__ const bf16_bits* q_half1() const { return tiles.q; }
};

// The stages of one item, in order. Single items: the next stages of the slot's own ring,
// which carries on into the next item. Pair tiles: the slot's entries of the pair's union,
// by the arithmetic of fwd_pair_order.hpp from the pair's first position.
template <class Cfg>
struct SlotStages {
  PipelineState<Cfg::kStages>& state;
  __device__ __forceinline__ PipelineState<Cfg::kStages> take() {
    const PipelineState<Cfg::kStages> st = state;
    state.advance();
    return st;
  }
};
template <class Cfg>
struct PairStages {
  PairWalk walk;
  int base;
  __device__ __forceinline__ typename PairRing<Cfg>::Stage take() {
    const auto st = PairRing<Cfg>::at(base + walk.position());
    walk.advance();
    return st;
  }
};

// Stage s after its P.V: V goes back, and K too unless it went back right after Q K^T.
template <class Cfg, bool kProbe, class Ring>
__device__ __forceinline__ void release_kv(const Ring& ring, int s, int lane, std::uint32_t delay_ns) {
  if constexpr (!Cfg::kEarlyKRelease) release_stage<false>(ring.k_empty(s), lane, 0);
  release_stage<kProbe>(ring.v_empty(s), lane, delay_ns);
}

// S of a stage is in registers: keys past the stage's vbs are masked, then K goes back
// (early release). The branch on `valid` comes before the K release that lets the producer
// rewrite the word: the load has completed before the arrive (no arrive-before-wait).
template <class Cfg, bool kProbe, class Ring>
__device__ __forceinline__ void mask_scores_release_k(const Ring& ring, int stage, float (&s)[32], int lane,
                                                      const Params& p) {
  const int valid = read_mailbox(ring.kv_valid(stage), lane);
  if (valid < Cfg::kBlockKv) OnlineSoftmax::mask_padding(s, valid, lane);
  if constexpr (Cfg::kEarlyKRelease) release_stage<kProbe>(ring.k_empty(stage), lane, p.probe_release_kv_ns);
}

// The previous P.V is done: its stage goes back and O takes the rescale the softmax asked for.
template <class Cfg, bool kProbe, class Ring>
__device__ __forceinline__ void retire_pv(const Ring& ring, int stage, float (&o)[64], bool rescale,
                                          const float (&alpha)[2], int lane, const Params& p) {
  wgmma_wait<0>();
  keep_live(o);
  release_kv<Cfg, kProbe>(ring, stage, lane, p.probe_release_kv_ns);
  if (rescale) rescale_rows(o, alpha);  // warp-uniform; no wgmma in flight here
}

// An item's first block: its scores alone (nothing of the item is in flight yet), masked,
// then the softmax's first update, which needs no O rescale (O is still zero).
template <class Cfg, bool kProbe, class Ring, class Stage>
__device__ __forceinline__ void first_block(const Ring& ring, const Stage& cur, const std::uint32_t (&q)[8][4],
                                            const bf16_bits* q_half1, float (&s)[32], OnlineSoftmax& softmax, int item,
                                            const Params& p, int lane) {
  constexpr HangSite kKFull = hang_site("consumer", "k_full");
  float alpha[2];
  mbar_wait<kProbe>(ring.k_full(cur.index), cur.full_parity(), p.hang_watch, kKFull, {cur.index, 0, item});
  keep_live(s);
  wgmma_fence();
  issue_scores<Cfg>(s, q, q_half1, ring.k_tile(cur.index));
  wgmma_commit();
  wgmma_wait<0>();
  keep_live(s);
  mask_scores_release_k<Cfg, kProbe>(ring, cur.index, s, lane, p);
  softmax.update<Cfg::kLazyRescale>(s, p.scale_log2, alpha);
}

// Blocks 1..count-1 of an item whose block 0 (stage `cur`) has been through the softmax.
// On return every product is done, O holds blocks 0..count-2 (rescaled to the softmax's
// reference), pfrag the last block's P, and the last block's stage is returned: its
// P.V is the caller's to issue.
template <class Cfg, bool kProbe, class Ring, class Stages, class Stage>
__device__ __forceinline__ Stage steady_blocks(const Ring& ring, Stages& stages, Stage cur,
                                               const std::uint32_t (&q)[8][4], const bf16_bits* q_half1,
                                               std::uint32_t (&pfrag)[4][4], float (&s)[32], float (&o)[64],
                                               OnlineSoftmax& softmax, int item, int count, const Params& p, int lane) {
  constexpr HangSite kKFull = hang_site("consumer", "k_full");
  constexpr HangSite kVFull = hang_site("consumer", "v_full");
  float alpha[2];
  bool rescale = false;  // O needs alpha before the next P.V (softmax.update)
  auto prev = cur;
  // The wait for P_{n-2} V_{n-2} sits at the top of iteration n, behind the loop's
  // back edge: ptxas schedules a wgmma wait as early as its basic block allows, and
  // in the same block as the softmax it would hoist it above the softmax.
  for (int n = 1; n < count; ++n) {
    if (n > 1) retire_pv<Cfg, kProbe>(ring, prev.index, o, rescale, alpha, lane, p);
    pack_probabilities(s, pfrag);
    const auto next = stages.take();
    // Both waits before the fence: the two products are issued back to back in one
    // block (a wait between them makes ptxas inject another warpgroup.arrive).
    mbar_wait<kProbe>(ring.k_full(next.index), next.full_parity(), p.hang_watch, kKFull, {next.index, n, item});
    mbar_wait<kProbe>(ring.v_full(cur.index), cur.full_parity(), p.hang_watch, kVFull, {cur.index, n - 1, item});
    keep_live(o);
    keep_live(pfrag);
    wgmma_fence();
    issue_scores<Cfg>(s, q, q_half1, ring.k_tile(next.index));
    wgmma_commit();
    issue_pv<Cfg>(o, pfrag, ring.v_tile(cur.index));
    wgmma_commit();

    wgmma_wait<1>();  // S_n ready (K_n free); P_{n-1} V_{n-1} may still run
    keep_live(s);
    mask_scores_release_k<Cfg, kProbe>(ring, next.index, s, lane, p);
    rescale = softmax.update<Cfg::kLazyRescale>(s, p.scale_log2, alpha);
    prev = cur;
    cur = next;
  }
  if (count > 1) retire_pv<Cfg, kProbe>(ring, prev.index, o, rescale, alpha, lane, p);
  pack_probabilities(s, pfrag);
  return cur;
}

// One item's main loop and epilogue on the stages `stages` hands out (count of them).
template <class Cfg, bool kProbe, bool kPair, class Ring, class Stages>
__device__ __forceinline__ void run_item(const Ring& ring, Stages& stages, const std::uint32_t (&q)[8][4],
                                         std::uint32_t (&pfrag)[4][4], float (&s)[32], float (&o)[64], int slot,
                                         int item, int count, int traced, const Params& p, int warp, int lane, int tid,
                                         const bf16_bits* q_half1 = nullptr, std::uint64_t* q_release = nullptr) {
  OnlineSoftmax softmax;
  softmax.reset();
#pragma unroll
  for (int i = 0; i < 64; ++i) o[i] = 0.0f;

  const auto first = stages.take();
  first_block<Cfg, kProbe>(ring, first, q, q_half1, s, softmax, item, p, lane);
  stamp<Cfg, kProbe>(p, slot, trace_item_stamp(traced, 1), tid == 0);
  const auto cur =
      steady_blocks<Cfg, kProbe>(ring, stages, first, q, q_half1, pfrag, s, o, softmax, item, count, p, lane);
  // Split Q: every S product of the item is done, so Q's half 1 goes back for the next item.
  if constexpr (Cfg::kSplitQ) release_stage<false>(q_release, lane, 0);

  // Last block: its P.V, then the epilogue.
  constexpr HangSite kVFull = hang_site("consumer", "v_full");
  mbar_wait<kProbe>(ring.v_full(cur.index), cur.full_parity(), p.hang_watch, kVFull, {cur.index, count - 1, item});
  keep_live(o);
  keep_live(pfrag);
  wgmma_fence();
  issue_pv<Cfg>(o, pfrag, ring.v_tile(cur.index));
  wgmma_commit();
  wgmma_wait<0>();
  keep_live(o);
  if constexpr (!Cfg::kEarlyKRelease) release_stage<kProbe>(ring.k_empty(cur.index), lane, p.probe_release_kv_ns);
  if constexpr (kPair) {
    // The other slot may still read this V (a shared block): O goes straight from registers.
    release_stage<kProbe>(ring.v_empty(cur.index), lane, p.probe_release_kv_ns);
    store_output_direct<Cfg, kProbe>(o, softmax, item, p, warp, lane);
  } else {
    // The item's last V stage doubles as the O staging tile.
    store_output<Cfg, kProbe>(o, softmax, ring.v_tile(cur.index), ring.v_empty(cur.index), slot, item, p, warp, lane);
  }
  stamp<Cfg, kProbe>(p, slot, trace_item_stamp(traced, 2), tid == 0);
}

template <class Cfg, bool kProbe, bool kPair>
__device__ void run_consumer(SharedStorage<Cfg>& smem, int slot, const Params& p) {
  SlotTiles<Cfg>& tiles = smem.tiles[slot];
  SlotBarriers<Cfg>& bars = smem.bars[slot];
  const SlotMailbox<Cfg>& mail = smem.mail[slot];
  const int tid = threadIdx.x - Cfg::kWarpGroupThreads * (1 + slot);
  const int warp = tid / 32, lane = tid % 32;
  PipelineState<1> q_state;
  PipelineState<1> q1_state;  // split Q only
  PipelineState<Cfg::kStages> kv_state;

  std::uint32_t q[8][4];
  std::uint32_t pfrag[4][4];
  float s[32];
  float o[64];
#pragma unroll
  for (int i = 0; i < 32; ++i) s[i] = 0.0f;

  stamp<Cfg, kProbe>(p, slot, kTraceConsumerStart, tid == 0);
  for (int traced = 0;; ++traced) {
    constexpr HangSite kQFull = hang_site("consumer", "q_full");
    mbar_wait<kProbe>(&bars.q_full, q_state.full_parity(), p.hang_watch, kQFull, {0, -1, -1});
    const int item = read_mailbox(mail.item, lane);
    const int count = read_mailbox(mail.count, lane);
    if (item == -1) {
      stamp<Cfg, kProbe>(p, slot, kTraceConsumerEnd, tid == 0);
      return;
    }
    if (item >= 0) stamp<Cfg, kProbe>(p, slot, trace_item_stamp(traced, 0), tid == 0);
    if (item < 0 || count == 0) {  // no item for this slot in this pair (-2), or an empty row
      release_stage<false>(&bars.q_empty, lane, 0);
      q_state.advance();
      if (item >= 0) store_empty_item<Cfg>(item, p, warp, lane);
      continue;
    }
    PairCounts counts{};
    int base = 0;
    if constexpr (kPair) {
      base = read_mailbox(mail.pair_base, lane);
      counts.shared = read_mailbox(mail.pair_shared, lane);
      counts.only[0] = read_mailbox(mail.pair_only[0], lane);
      counts.only[1] = read_mailbox(mail.pair_only[1], lane);
    }
    load_q_fragments<Cfg, Cfg::kSplitQ ? 4 : 8>(tiles.q, q, warp, lane);  // split Q: half 0, slices 0-3
    fence_proxy_async_smem();  // ordinary reads of Q before the next TMA write into it
    release_stage<false>(&bars.q_empty, lane, 0);
    q_state.advance();
    if constexpr (Cfg::kSplitQ) {
      constexpr HangSite kQ1Full = hang_site("consumer", "q1_full");
      mbar_wait<kProbe>(&smem.q1[slot].full, q1_state.full_parity(), p.hang_watch, kQ1Full, {1, -1, item});  // half 1
      q1_state.advance();  // run_item releases it (q1_empty) after the item's last S product
    }

    if constexpr (kPair) {
      PairStages<Cfg> stages{PairWalk::start(counts, slot), base};
      run_item<Cfg, kProbe, true>(PairRing<Cfg>{smem}, stages, q, pfrag, s, o, slot, item, count, traced, p, warp, lane,
                                  tid);
    } else {
      SlotStages<Cfg> stages{kv_state};
      std::uint64_t* q_half1_empty = nullptr;
      if constexpr (Cfg::kSplitQ) q_half1_empty = &smem.q1[slot].empty;
      run_item<Cfg, kProbe, false>(SlotRing<Cfg>{tiles, bars, smem.mail[slot]}, stages, q, pfrag, s, o, slot, item,
                                   count, traced, p, warp, lane, tid, tiles.q, q_half1_empty);
    }
  }
}

}  // namespace vsa::sm90a::fwd
