#pragma once
// One item with two S tiles in flight (Cfg::kTwoScores, an A/B variant; notes/runs.md run 40).
//
// The default step n (fwd_mainloop.cuh, steady_blocks) issues S_n and P_{n-1} V_{n-1}, then
// waits for S_n before its softmax: S_n's latency is on every block's chain. Here S_{n+1} is
// issued a step early, so S_n is (nearly) done when step n needs it:
//     top: wait for P_{n-2} V_{n-2} (S_n may still run); V_{n-2} back; O rescaled if asked
//     pack P_{n-1} (its S registers are then free)
//     issue O += P_{n-1} V_{n-1}, then S_{n+1} = Q K_{n+1}^T into those registers
//     wait for S_n; mask; softmax of S_n while both products run
// The registers of the second S tile (32) come from Q, which stays in shared memory as the
// A operand of every S product (SS wgmma) instead of 32 registers of fragments. So the Q
// buffer is held until the item's last S product is done, not released at the item's start.
// S tiles alternate between two arrays, so the loop is unrolled by two.
#include "fwd_mainloop.cuh"

namespace vsa::sm90a::fwd {

// S = Q K^T with Q from shared memory: both K-major, slice kk at byte 32 * (kk % 4) of half kk / 4.
template <class Cfg>
__device__ __forceinline__ void issue_scores_ss(float (&s)[32], std::uint32_t q_base, const bf16_bits* k_tile) {
  const std::uint32_t k_base = smem_addr(k_tile);
#pragma unroll
  for (int kk = 0; kk < 8; ++kk) {
    const std::uint32_t offset = (kk / 4) * Cfg::kHalfBytes + (kk % 4) * 32;
    wgmma_m64n64k16_ss<0, 0>(s, smem_desc_sw128(q_base + offset, 16, 1024), smem_desc_sw128(k_base + offset, 16, 1024),
                             kk > 0);
  }
}

// What a step hands the next: the stages of blocks n-2, n-1 and n, and the rescale the
// softmax of the last block asked for.
template <class Stage>
struct TwoScoresState {
  Stage older;  // block n - 2: its P.V may still run
  Stage prev;   // block n - 1: its P is packed at the step's top
  Stage cur;    // block n: its S is in flight
  bool rescale = false;
  float alpha[2] = {1.0f, 1.0f};
};

// Step n of the item (1 <= n < count): S_n is in `s_cur`, S_{n-1} (softmax taken) in `s_other`.
// kMore: n + 1 < count, so S_{n+1} is issued into `s_other` (a template parameter, not a
// branch: ptxas serialises every wgmma of a kernel whose issues sit in data-dependent branches
// between a group and its wait, C7514).
template <class Cfg, bool kProbe, bool kMore, class Ring, class Stages, class Stage>
__device__ __forceinline__ void two_scores_step(const Ring& ring, Stages& stages, TwoScoresState<Stage>& st,
                                                std::uint32_t q_base, std::uint64_t* q_empty, float (&s_cur)[32],
                                                float (&s_other)[32], std::uint32_t (&pfrag)[4][4], float (&o)[64],
                                                OnlineSoftmax& softmax, int n, int count, int item, const Params& p,
                                                int lane) {
  constexpr HangSite kKFull = hang_site("consumer", "k_full");
  constexpr HangSite kVFull = hang_site("consumer", "v_full");
  if (n >= 2) {
    wgmma_wait<1>();  // P_{n-2} V_{n-2} done; S_n may still run (O is not read here)
    release_kv<Cfg, kProbe>(ring, st.older.index, lane, p.probe_release_kv_ns);
    if (st.rescale) {  // rare (lazy rescale): wait for S_n too, then O may be read
      wgmma_wait<0>();
      keep_live(o);
      rescale_rows(o, st.alpha);
    }
  }
  pack_probabilities(s_other, pfrag);  // P_{n-1}
  Stage next = st.cur;
  if constexpr (kMore) {
    next = stages.take();
    mbar_wait<kProbe>(ring.k_full(next.index), next.full_parity(), p.hang_watch, kKFull, {next.index, n + 1, item});
  }
  mbar_wait<kProbe>(ring.v_full(st.prev.index), st.prev.full_parity(), p.hang_watch, kVFull,
                    {st.prev.index, n - 1, item});
  keep_live(o);
  keep_live(pfrag);
  keep_live(s_other);
  wgmma_fence();
  issue_pv<Cfg>(o, pfrag, ring.v_tile(st.prev.index));
  wgmma_commit();
  if constexpr (kMore) {
    issue_scores_ss<Cfg>(s_other, q_base, ring.k_tile(next.index));
    wgmma_commit();
    wgmma_wait<2>();  // S_n done; P_{n-1} V_{n-1} and S_{n+1} may still run
  } else {
    wgmma_wait<1>();  // S_n done; P_{n-1} V_{n-1} may still run
  }
  keep_live(s_cur);
  mask_scores_release_k<Cfg, kProbe>(ring, st.cur.index, s_cur, lane, p);
  if constexpr (!kMore) release_stage<false>(q_empty, lane, 0);  // the item's last S product is done
  st.rescale = softmax.update<Cfg::kLazyRescale>(s_cur, p.scale_log2, st.alpha);
  st.older = st.prev;
  st.prev = st.cur;
  st.cur = next;
}

// One item, Q already in shared memory (q_full waited for); hands Q back itself.
template <class Cfg, bool kProbe, class Ring, class Stages>
__device__ __forceinline__ void run_item_two_scores(const Ring& ring, Stages& stages, const bf16_bits* q_tile,
                                                    std::uint64_t* q_empty, std::uint32_t (&pfrag)[4][4],
                                                    float (&s_a)[32], float (&s_b)[32], float (&o)[64], int slot,
                                                    int item, int count, int traced, const Params& p, int warp,
                                                    int lane, int tid) {
  constexpr HangSite kKFull = hang_site("consumer", "k_full");
  constexpr HangSite kVFull = hang_site("consumer", "v_full");
  const std::uint32_t q_base = smem_addr(q_tile);
  OnlineSoftmax softmax;
  softmax.reset();
#pragma unroll
  for (int i = 0; i < 64; ++i) o[i] = 0.0f;

  // S_0 into s_a and, for two blocks or more, S_1 into s_b, back to back. A one-block item
  // takes its own path, so no wgmma issue sits in a branch between a group and its wait.
  using Stage = decltype(stages.take());
  TwoScoresState<Stage> st;
  st.prev = stages.take();
  st.cur = st.prev;
  if (count == 1) {
    mbar_wait<kProbe>(ring.k_full(st.prev.index), st.prev.full_parity(), p.hang_watch, kKFull,
                      {st.prev.index, 0, item});
    keep_live(s_a);
    wgmma_fence();
    issue_scores_ss<Cfg>(s_a, q_base, ring.k_tile(st.prev.index));
    wgmma_commit();
    wgmma_wait<0>();
    keep_live(s_a);
    mask_scores_release_k<Cfg, kProbe>(ring, st.prev.index, s_a, lane, p);
    release_stage<false>(q_empty, lane, 0);
    float alpha[2];
    softmax.update<Cfg::kLazyRescale>(s_a, p.scale_log2, alpha);
    stamp<Cfg, kProbe>(p, slot, trace_item_stamp(traced, 1), tid == 0);
  } else {
    st.cur = stages.take();
    mbar_wait<kProbe>(ring.k_full(st.prev.index), st.prev.full_parity(), p.hang_watch, kKFull,
                      {st.prev.index, 0, item});
    mbar_wait<kProbe>(ring.k_full(st.cur.index), st.cur.full_parity(), p.hang_watch, kKFull, {st.cur.index, 1, item});
    keep_live(s_a);
    keep_live(s_b);
    wgmma_fence();
    issue_scores_ss<Cfg>(s_a, q_base, ring.k_tile(st.prev.index));
    wgmma_commit();
    issue_scores_ss<Cfg>(s_b, q_base, ring.k_tile(st.cur.index));
    wgmma_commit();
    wgmma_wait<1>();  // S_0 done; S_1 may still run
    keep_live(s_a);
    mask_scores_release_k<Cfg, kProbe>(ring, st.prev.index, s_a, lane, p);
    float alpha[2];
    softmax.update<Cfg::kLazyRescale>(s_a, p.scale_log2, alpha);  // O is still zero: no rescale
    stamp<Cfg, kProbe>(p, slot, trace_item_stamp(traced, 1), tid == 0);

    // Steps 1 .. count-2 issue the S after theirs; S_n is in s_b for odd n, in s_a for even n.
    int n = 1;
    for (; n + 2 < count; n += 2) {
      two_scores_step<Cfg, kProbe, true>(ring, stages, st, q_base, q_empty, s_b, s_a, pfrag, o, softmax, n, count,
                                         item, p, lane);
      two_scores_step<Cfg, kProbe, true>(ring, stages, st, q_base, q_empty, s_a, s_b, pfrag, o, softmax, n + 1,
                                         count, item, p, lane);
    }
    if (n + 1 < count) {  // one more step that issues the last S (n odd)
      two_scores_step<Cfg, kProbe, true>(ring, stages, st, q_base, q_empty, s_b, s_a, pfrag, o, softmax, n, count,
                                         item, p, lane);
      ++n;
    }
    // Step count-1 issues no S.
    if (n % 2 == 1)
      two_scores_step<Cfg, kProbe, false>(ring, stages, st, q_base, q_empty, s_b, s_a, pfrag, o, softmax, n, count,
                                          item, p, lane);
    else
      two_scores_step<Cfg, kProbe, false>(ring, stages, st, q_base, q_empty, s_a, s_b, pfrag, o, softmax, n, count,
                                          item, p, lane);
  }

  // The last block (st.prev): P_{count-2} V_{count-2} retires, then its own P.V and the epilogue.
  if (count > 1) {
    wgmma_wait<0>();
    keep_live(o);
    release_kv<Cfg, kProbe>(ring, st.older.index, lane, p.probe_release_kv_ns);
    if (st.rescale) rescale_rows(o, st.alpha);
  }
  if ((count - 1) % 2 == 0)
    pack_probabilities(s_a, pfrag);
  else
    pack_probabilities(s_b, pfrag);
  mbar_wait<kProbe>(ring.v_full(st.prev.index), st.prev.full_parity(), p.hang_watch, kVFull,
                    {st.prev.index, count - 1, item});
  keep_live(o);
  keep_live(pfrag);
  wgmma_fence();
  issue_pv<Cfg>(o, pfrag, ring.v_tile(st.prev.index));
  wgmma_commit();
  wgmma_wait<0>();
  keep_live(o);
  if constexpr (!Cfg::kEarlyKRelease)
    release_stage<kProbe>(ring.k_empty(st.prev.index), lane, p.probe_release_kv_ns);
  store_output<Cfg, kProbe>(o, softmax, ring.v_tile(st.prev.index), ring.v_empty(st.prev.index), slot, item, p, warp,
                            lane);
  stamp<Cfg, kProbe>(p, slot, trace_item_stamp(traced, 2), tid == 0);
}

}  // namespace vsa::sm90a::fwd
