#pragma once
// MMA role (warp 9, lane 0 issues; the whole warp allocates and frees TMEM).
//
// Iteration n (from -1): S^T_{n+1} = K Q^T and dP^T_{n+1} = V dO^T, then the gradient MMAs
// of step n: dV (+)= P^T dO, dK (+)= dS^T Q, dQ_i = dS K. Every product is M = 64
// (cta_group::1, data-path layout F), D in TMEM at lane 0 of its columns.
#include "bwd_storage.cuh"
#include "protocol_cursor.cuh"
#include "umma_operands.hpp"

namespace vsa::sm100a::bwd {

// D[64 x 64] = A[64 x 128] B[64 x 128]^T, both K-major 128-byte-swizzled tiles
// ([half][row][64]); slice kk (k16) sits in half kk / 4 at byte 32 (kk % 4) of the row.
// S^T = K Q^T and dP^T = V dO^T.
template <class C>
__device__ __forceinline__ void issue_tile_tile_t(C c, std::uint32_t d_tmem, const bf16_bits* a, const bf16_bits* b) {
  const std::uint32_t aa = smem_addr(a), ba = smem_addr(b);
#pragma unroll
  for (int kk = 0; kk < Config::kHeadDim / Config::kMmaK; ++kk) {
    protocol::mma_issue(c, d_tmem, tile_k_major(aa, kk), tile_k_major(ba, kk), kTileTileIdesc, kk > 0);
  }
}

// D[64 x 128] (+)= A[64 x 64] B: A a K-major square ([m][64 k], one swizzle row per m),
// B a tile whose rows are K. dV += P^T dO and dK += dS^T Q.
template <class C>
__device__ __forceinline__ void issue_square_tile(C c, std::uint32_t d_tmem, const bf16_bits* a, const bf16_bits* b,
                                                  bool accumulate) {
  const std::uint32_t aa = smem_addr(a), ba = smem_addr(b);
#pragma unroll
  for (int kk = 0; kk < Config::kBlock / Config::kMmaK; ++kk)
    protocol::mma_issue(c, d_tmem, square_k_major(aa, kk), tile_mn_major(ba, kk), kSquareTileIdesc,
                        accumulate || kk > 0);
}

// D[64 x 128] = A[64 x 64] B with A given transposed: a_t is [k][64 m] (one swizzle row per
// k), so A is read MN-major (slice kk = rows 16kk.. of a_t); B a tile whose rows are K.
// dQ_i = dS K from the dS^T tile.
template <class C>
__device__ __forceinline__ void issue_square_t_tile(C c, std::uint32_t d_tmem, const bf16_bits* a_t,
                                                    const bf16_bits* b) {
  const std::uint32_t aa = smem_addr(a_t), ba = smem_addr(b);
#pragma unroll
  for (int kk = 0; kk < Config::kBlock / Config::kMmaK; ++kk)
    protocol::mma_issue(c, d_tmem, square_mn_major(aa, kk), tile_mn_major(ba, kk), kSquareTTileIdesc, kk > 0);
}

template <bool kProbe>
__device__ auto run_mma(SharedStorage& smem, const WorkItem& w, std::uint32_t tmem_base, const Params& p) {
  using namespace protocol;
  const int steps = w.steps;
  {
    auto c0 = Begin<kProtocol, WarpRole::mma, Section::prologue, kProbe>{};
    auto c1 = wait(c0, smem.bars, 0, steps);  // kv_full
    finish(fence_after(c1, 0, steps));
  }

  for (int n = -1; n < steps; ++n) {
    auto c0 = Begin<kProtocol, WarpRole::mma, Section::loop, kProbe>{};
    // S^T_{n+1}, dP^T_{n+1}
    auto c1 = wait(c0, smem.bars, n, steps);  // qdo_full
    auto c2 = wait(c1, smem.bars, n, steps);  // s_empty (previous use of the S^T / dP^T columns)
    auto c3 = fence_after(c2, n, steps);
    if constexpr (kProbe) {
      if (active(c3, n, steps)) probe_delay(p, kProbeHandOver);
    }
    if (active(c3, n, steps)) {
      static_assert(writes<decltype(c3), Buf::s>, "the first MMA writes S^T");
      const int stage = buffer_instance<decltype(c3), Buf::qdo>(n);
      (void)buffer_instance<decltype(c3), Buf::kv>(n);
      issue_tile_tile_t(c3, tmem_base + tmem_column<decltype(c3), Buf::s>(n), smem.k, smem.q[stage]);
    }
    auto c4 = expect<OpKind::mma>(c3);
    if (active(c4, n, steps)) {
      static_assert(writes<decltype(c4), Buf::dp>, "the second MMA writes dP^T");
      const int stage = buffer_instance<decltype(c4), Buf::qdo>(n);
      (void)buffer_instance<decltype(c4), Buf::kv>(n);
      issue_tile_tile_t(c4, tmem_base + tmem_column<decltype(c4), Buf::dp>(n), smem.v, smem.d_out[stage]);
    }
    auto c5 = expect<OpKind::mma>(c4);
    auto c6 = commit(c5, smem.bars, n, steps);  // s_full

    // Gradients of step n
    auto c7 = wait(c6, smem.bars, n, steps);  // ds_full
    auto c8 = fence_after(c7, n, steps);
    if constexpr (kProbe) {
      if (active(c8, n, steps)) probe_delay(p, kProbeHandOver);
    }
    if (active(c8, n, steps)) {
      static_assert(writes<decltype(c8), Buf::dv>, "the third MMA accumulates dV");
      const int stage = buffer_instance<decltype(c8), Buf::qdo>(n);
      const int ds = buffer_instance<decltype(c8), Buf::pds>(n);
      issue_square_tile(c8, tmem_base + tmem_column<decltype(c8), Buf::dv>(n), smem.p_t[ds], smem.d_out[stage], n > 0);
    }
    auto c9 = expect<OpKind::mma>(c8);
    if (active(c9, n, steps)) {
      static_assert(writes<decltype(c9), Buf::dk>, "the fourth MMA accumulates dK");
      const int stage = buffer_instance<decltype(c9), Buf::qdo>(n);
      const int ds = buffer_instance<decltype(c9), Buf::pds>(n);
      issue_square_tile(c9, tmem_base + tmem_column<decltype(c9), Buf::dk>(n), smem.ds_t[ds], smem.q[stage], n > 0);
    }
    auto c10 = expect<OpKind::mma>(c9);
    auto c11 = wait(c10, smem.bars, n, steps);  // dq_empty (previous use of the dQ columns)
    auto c12 = fence_after(c11, n, steps);
    if constexpr (kProbe) {
      if (active(c12, n, steps)) probe_delay(p, kProbeHandOver);
    }
    if (active(c12, n, steps)) {
      static_assert(writes<decltype(c12), Buf::dq>, "the fifth MMA writes dQ");
      const int ds = buffer_instance<decltype(c12), Buf::pds>(n);
      (void)buffer_instance<decltype(c12), Buf::kv>(n);
      // The tmem_overlap plant (model only, plants.hpp): the dQ accumulator 64 columns early,
      // at dP^T's column 64, so it covers dP^T_{n+1} while the dsoftmax warps still read it.
      issue_square_t_tile(c12,
                          tmem_base + VSA_PLANT(tmem_overlap, (tmem_column<decltype(c12), Buf::dq>(n)),
                                                (tmem_column<decltype(c12), Buf::dq>(n) - 64)),
                          smem.ds_t[ds], smem.k);
    }
    auto c13 = expect<OpKind::mma>(c12);
    auto c14 = commit(c13, smem.bars, n, steps);  // dq_full
    auto c15 = commit(c14, smem.bars, n, steps);  // ds_empty
    finish(commit(c15, smem.bars, n, steps));     // qdo_empty
  }

  // The epilogue's first op, still on the issuing lane: dV, dK final after the last step.
  // The cursor past it is where the whole warp's teardown (mma_teardown) starts.
  auto e0 = Begin<kProtocol, WarpRole::mma, Section::epilogue, kProbe>{};
  (void)p;
  return commit(e0, smem.bars, steps, steps);  // dkdv_done
}

}  // namespace vsa::sm100a::bwd
