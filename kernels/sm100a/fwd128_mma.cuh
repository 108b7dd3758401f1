#pragma once
// MMA role (warp 5, lane 0 issues; the whole warp allocates and frees TMEM) of the blk128
// forward. Iteration n (from -1): S_{n+1} = Q K_{n+1}^T into S[(n+1) % 2], then
// O (+)= P_n V_n. Both are M = 128 (cta_group::1, layout D: row i in lane i), N = 128.
#include "fwd128_storage.cuh"
#include "protocol_cursor.cuh"

namespace vsa::sm100a::fwd128 {

// Slice kk (k16) of a K-major [half][128 rows][64] tile: half kk / 4, byte 32 (kk % 4) of
// each 128-byte row; 8-row groups 1024 bytes apart.
__device__ __forceinline__ std::uint64_t k_major(std::uint32_t tile, int kk) {
  return smem_desc_sw128(tile + (kk / 4) * Config::kHalfBytes + (kk % 4) * 32, 16, 1024);
}

// S[128 x 128] = Q[128 x 128 d] K[128 keys x 128 d]^T: both K-major.
__device__ __forceinline__ void issue_scores(std::uint32_t d_tmem, const bf16_bits* q, const bf16_bits* k) {
  constexpr std::uint32_t idesc = idesc_bf16_f32(Config::kBlock, Config::kBlock, false, false);
  const std::uint32_t qa = smem_addr(q), ka = smem_addr(k);
#pragma unroll
  for (int kk = 0; kk < Config::kHeadDim / Config::kMmaK; ++kk)
    umma_bf16_ss(d_tmem, k_major(qa, kk), k_major(ka, kk), idesc, kk > 0);
}

// O[128 x 128 d] (+)= P[128 x 128 keys] V[128 keys x 128 d]: P K-major (two key halves);
// V read MN-major (rows = keys = K): slice kk is keys 16kk..16kk+15 = two 8-row groups
// (SBO 1024 B) in each d-half, N = 128 spans the two halves (LBO = one half, 16 KB).
__device__ __forceinline__ void issue_pv(std::uint32_t d_tmem, const bf16_bits* p, const bf16_bits* v,
                                         bool accumulate) {
  constexpr std::uint32_t idesc = idesc_bf16_f32(Config::kBlock, Config::kHeadDim, false, true);
  const std::uint32_t pa = smem_addr(p), va = smem_addr(v);
#pragma unroll
  for (int kk = 0; kk < Config::kBlock / Config::kMmaK; ++kk)
    umma_bf16_ss(d_tmem, k_major(pa, kk), smem_desc_sw128(va + kk * Config::kMmaK * 128, Config::kHalfBytes, 1024),
                 idesc, accumulate || kk > 0);
}

template <bool kProbe>
__device__ void run_mma(SharedStorage& smem, const WorkItem& w, std::uint32_t tmem_base, const Params& p) {
  using namespace protocol;
  const int steps = w.steps;
  {
    auto c0 = Begin<kProtocol, WarpRole::mma, Section::prologue>{};
    auto c1 = wait(c0, smem.bars, 0, steps);  // q_full
    if (active(c1, 0, steps)) tc_fence_after_sync();
    finish(expect<OpKind::fence_after>(c1));
  }

  for (int n = -1; n < steps; ++n) {
    auto c0 = Begin<kProtocol, WarpRole::mma, Section::loop>{};
    auto c1 = wait(c0, smem.bars, n, steps);  // k_full
    auto c2 = wait(c1, smem.bars, n, steps);  // s_empty (previous use of this S buffer)
    if (active(c2, n, steps)) tc_fence_after_sync();
    auto c3 = expect<OpKind::fence_after>(c2);
    if (active(c3, n, steps)) {
      static_assert(writes<decltype(c3), Buf::s>, "the S MMA writes S");
      (void)buffer_instance<decltype(c3), Buf::q>(n);
      issue_scores(tmem_base + std::uint32_t(tmem_column<decltype(c3), Buf::s>(n)), smem.q,
                   smem.k[buffer_instance<decltype(c3), Buf::k>(n)]);
    }
    auto c4 = expect<OpKind::mma>(c3);
    auto c5 = commit(c4, smem.bars, n, steps);  // s_full
    auto c6 = commit(c5, smem.bars, n, steps);  // k_empty

    auto c7 = wait(c6, smem.bars, n, steps);  // p_full
    auto c8 = wait(c7, smem.bars, n, steps);  // v_full
    if (active(c8, n, steps)) tc_fence_after_sync();
    auto c9 = expect<OpKind::fence_after>(c8);
    if (active(c9, n, steps)) {
      if constexpr (kProbe) sleep_ns(p.probe_ns[kProbeIssuePv]);
      static_assert(writes<decltype(c9), Buf::o>, "the PV MMA writes O");
      (void)buffer_instance<decltype(c9), Buf::p>(n);
      issue_pv(tmem_base + std::uint32_t(tmem_column<decltype(c9), Buf::o>(n)), smem.p,
               smem.v[buffer_instance<decltype(c9), Buf::v>(n)], n > 0);
    }
    auto c10 = expect<OpKind::mma>(c9);
    auto c11 = commit(c10, smem.bars, n, steps);  // pv_done
    finish(commit(c11, smem.bars, n, steps));     // v_empty
  }
  (void)p;
}

}  // namespace vsa::sm100a::fwd128
