#pragma once
// MMA role (warp 5, lane 0 issues; the whole warp allocates and frees TMEM).
//
// Iteration n (from -1): S_{n+1} = Q K_{n+1}^T into S[(n+1) % 2], then O (+)= P_n V_n.
// Each q block is its own MMA of M = kBlock rows. blk64: block A's accumulators at TMEM
// lane offset 0, block B's at lane offset 16 (data-path layout F puts an M = 64 tile's rows
// 16w..16w+15 in lanes 32w..32w+15, leaving lanes 32w+16..32w+31 for a second tile).
// blk128: one M = 128 MMA per product (layout D: row i in lane i). A block with no entry at
// a step issues nothing; the commits are per step, as the table says.
#include "fwd_storage.cuh"
#include "protocol_cursor.cuh"
#include "umma_operands.hpp"

namespace vsa::sm100a::fwd {

// S[kBlock x kBlock] = Q[kBlock x 128] K[kBlock x 128]^T: both operands K-major
// 128-byte-swizzled tiles ([half][row][64]); slice kk (k16) sits in half kk / 4 at byte
// 32 (kk % 4) of the row.
template <class T, class C>
__device__ __forceinline__ void issue_scores(C c, std::uint32_t d_tmem, const bf16_bits* q, const bf16_bits* k) {
  const std::uint32_t qa = smem_addr(q), ka = smem_addr(k);
#pragma unroll
  for (int kk = 0; kk < T::kHeadDim / T::kMmaK; ++kk) {
    protocol::mma_issue(
        c, d_tmem, scores_operand<T>(qa, kk),
        VSA_PLANT(wrong_sbo, scores_operand<T>(ka, kk), ::vsa::model::with_sbo(scores_operand<T>(ka, kk), 512u)),
        kScoresIdesc<T>, kk > 0);
  }
}

// O[kBlock x 128] (+)= P[kBlock x kBlock] V[kBlock x 128]: P K-major (blk64 one 128-byte
// row per query row, blk128 two key halves); V is MN-major for this product (rows = keys =
// K): slice kk is keys 16kk..16kk+15 = 2 groups of 8 rows (SBO 1024 B) in each d-half,
// N = 128 spans the two 64-column halves (LBO = one half).
template <class T, class C>
__device__ __forceinline__ void issue_pv(C c, std::uint32_t d_tmem, const bf16_bits* p, const bf16_bits* v,
                                         bool accumulate) {
  const std::uint32_t pa = smem_addr(p), va = smem_addr(v);
#pragma unroll
  for (int kk = 0; kk < T::kBlock / T::kMmaK; ++kk)
    protocol::mma_issue(c, d_tmem, pv_a_operand<T>(pa, kk), pv_b_operand<T>(va, kk), kPvIdesc<T>, accumulate || kk > 0);
}

// TMEM address of q block `block`'s accumulator at `column`.
template <class T>
__device__ __forceinline__ std::uint32_t block_tmem(std::uint32_t tmem_base, int block, int column) {
  return tmem_at(tmem_base, block * T::kLaneOffsetB, column);
}

template <bool kProbe, class T>
__device__ void run_mma(SharedStorage<T>& smem, const WorkItem<T>& w, std::uint32_t tmem_base, const Params& p) {
  using namespace protocol;
  const int steps = w.steps;
  {
    auto c0 = Begin<ProtocolOf<T>::value, WarpRole::mma, Section::prologue, kProbe>{};
    auto c1 = wait(c0, smem.bars, 0, steps);  // q_full
    auto c2 = fence_after(c1, 0, steps);
    if constexpr (kProbe) {
      if (active(c1, 0, steps)) probe_delay(p, kProbeReadK);
    }
    finish(c2);
  }

  for (int n = -1; n < steps; ++n) {
    auto c0 = Begin<ProtocolOf<T>::value, WarpRole::mma, Section::loop, kProbe>{};
    // S_{n+1}
    auto c1 = wait(c0, smem.bars, n, steps);  // k_full
    auto c2 = wait(c1, smem.bars, n, steps);  // s_empty (previous use of this S buffer)
    auto c3 = fence_after(c2, n, steps);
    if (active(c3, n, steps)) {
      if constexpr (kProbe) probe_delay(p, kProbeReadK);
      const int step = op_step<decltype(c3)>(n);
      const int s_col = tmem_column<decltype(c3), Buf::s>(n);
      const int stage = buffer_instance<decltype(c3), Buf::k>(n);
      static_assert(writes<decltype(c3), Buf::s>, "the S MMA writes S");
      for (int b = 0; b < T::kQBlocks; ++b)
        if (w.active(b, step)) issue_scores<T>(c3, block_tmem<T>(tmem_base, b, s_col), smem.q[b], smem.k[stage][b]);
      (void)buffer_instance<decltype(c3), Buf::q>(n);
    }
    auto c4 = expect<OpKind::mma>(c3);
    auto c5 = commit(c4, smem.bars, n, steps);  // s_full
    auto c6 = commit(c5, smem.bars, n, steps);  // k_empty

    // PV_n
    auto c7 = wait(c6, smem.bars, n, steps);  // p_full
    auto c8 = wait(c7, smem.bars, n, steps);  // v_full
    auto c9 = fence_after(c8, n, steps);
    if (active(c9, n, steps)) {
      if constexpr (kProbe) probe_delay(p, kProbeIssuePv);
      const int o_col = tmem_column<decltype(c9), Buf::o>(n);
      const int stage = buffer_instance<decltype(c9), Buf::v>(n);
      static_assert(writes<decltype(c9), Buf::o>, "the PV MMA writes O");
      (void)buffer_instance<decltype(c9), Buf::p>(n);
      for (int b = 0; b < T::kQBlocks; ++b)
        if (w.active(b, n)) issue_pv<T>(c9, block_tmem<T>(tmem_base, b, o_col), smem.p[b], smem.v[stage][b], n > 0);
    }
    auto c10 = expect<OpKind::mma>(c9);
    auto c11 = commit(c10, smem.bars, n, steps);  // pv_done
    finish(commit(c11, smem.bars, n, steps));     // v_empty
  }
  (void)p;
}

}  // namespace vsa::sm100a::fwd
