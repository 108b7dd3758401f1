#pragma once
// MMA role (warp 5, lane 0 issues; the whole warp allocates and frees TMEM) of the blk128
// forward. Iteration n (from -1): S_{n+1} = Q K_{n+1}^T into S[(n+1) % 2], then
// O (+)= P_n V_n. Both are M = 128 (cta_group::1, layout D: row i in lane i), N = 128.
#include "fwd128_storage.cuh"
#include "protocol_cursor.cuh"
#include "umma_operands.hpp"

namespace vsa::sm100a::fwd128 {

// S[128 x 128] = Q[128 x 128 d] K[128 keys x 128 d]^T: both K-major.
template <class C>
__device__ __forceinline__ void issue_scores(C c, std::uint32_t d_tmem, const bf16_bits* q, const bf16_bits* k) {
  const std::uint32_t qa = smem_addr(q), ka = smem_addr(k);
#pragma unroll
  for (int kk = 0; kk < Config::kHeadDim / Config::kMmaK; ++kk)
    protocol::mma_issue(c, d_tmem, scores_operand(qa, kk), scores_operand(ka, kk), kScoresIdesc, kk > 0);
}

// O[128 x 128 d] (+)= P[128 x 128 keys] V[128 keys x 128 d]: P K-major (two key halves);
// V read MN-major (rows = keys = K): slice kk is keys 16kk..16kk+15 = two 8-row groups
// (SBO 1024 B) in each d-half, N = 128 spans the two halves (LBO = one half, 16 KB).
template <class C>
__device__ __forceinline__ void issue_pv(C c, std::uint32_t d_tmem, const bf16_bits* p, const bf16_bits* v,
                                         bool accumulate) {
  const std::uint32_t pa = smem_addr(p), va = smem_addr(v);
#pragma unroll
  for (int kk = 0; kk < Config::kBlock / Config::kMmaK; ++kk)
    protocol::mma_issue(c, d_tmem, pv_a_operand(pa, kk), pv_b_operand(va, kk), kPvIdesc, accumulate || kk > 0);
}

template <bool kProbe>
__device__ void run_mma(SharedStorage& smem, const WorkItem& w, std::uint32_t tmem_base, const Params& p) {
  using namespace protocol;
  const int steps = w.steps;
  {
    auto c0 = Begin<kProtocol, WarpRole::mma, Section::prologue, kProbe>{};
    auto c1 = wait(c0, smem.bars, 0, steps);  // q_full
    auto c2 = fence_after(c1, 0, steps);
    if constexpr (kProbe) {
      if (active(c1, 0, steps)) probe_delay(p, kProbeReadK);
    }
    finish(c2);
  }

  for (int n = -1; n < steps; ++n) {
    auto c0 = Begin<kProtocol, WarpRole::mma, Section::loop, kProbe>{};
    auto c1 = wait(c0, smem.bars, n, steps);  // k_full
    auto c2 = wait(c1, smem.bars, n, steps);  // s_empty (previous use of this S buffer)
    auto c3 = fence_after(c2, n, steps);
    if (active(c3, n, steps)) {
      if constexpr (kProbe) probe_delay(p, kProbeReadK);
      static_assert(writes<decltype(c3), Buf::s>, "the S MMA writes S");
      (void)buffer_instance<decltype(c3), Buf::q>(n);
      issue_scores(c3, tmem_base + std::uint32_t(tmem_column<decltype(c3), Buf::s>(n)), smem.q,
                   smem.k[buffer_instance<decltype(c3), Buf::k>(n)]);
    }
    auto c4 = expect<OpKind::mma>(c3);
    auto c5 = commit(c4, smem.bars, n, steps);  // s_full
    auto c6 = commit(c5, smem.bars, n, steps);  // k_empty

    auto c7 = wait(c6, smem.bars, n, steps);  // p_full
    auto c8 = wait(c7, smem.bars, n, steps);  // v_full
    auto c9 = fence_after(c8, n, steps);
    if (active(c9, n, steps)) {
      if constexpr (kProbe) probe_delay(p, kProbeIssuePv);
      static_assert(writes<decltype(c9), Buf::o>, "the PV MMA writes O");
      (void)buffer_instance<decltype(c9), Buf::p>(n);
      issue_pv(c9, tmem_base + std::uint32_t(tmem_column<decltype(c9), Buf::o>(n)), smem.p,
               smem.v[buffer_instance<decltype(c9), Buf::v>(n)], n > 0);
    }
    auto c10 = expect<OpKind::mma>(c9);
    auto c11 = commit(c10, smem.bars, n, steps);  // pv_done
    finish(commit(c11, smem.bars, n, steps));     // v_empty
  }
  (void)p;
}

}  // namespace vsa::sm100a::fwd128
