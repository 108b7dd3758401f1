#pragma once
// The backward's inner loop: operand descriptors, the three GEMM shapes, the
// elementwise softmax gradient and one list entry of each item kind, as a consumer
// warpgroup runs it. bwd_kernel.cuh puts them together; loads are in bwd_producer.cuh.
#include <cmath>
#include <cstdint>

#include "bwd_config.cuh"
#include "bwd_params.cuh"
#include "sm90a_common.cuh"

namespace vsa::sm90a::bwd {

// ---- where a consumer thread's accumulator elements sit ----------------------------
// wgmma m64nN f32 accumulator: element i of thread t is at row row0 + 8 * ((i >> 1) & 1),
// column 8 * (i >> 2) + col0 + (i & 1). The same places hold a bf16 A fragment.
struct Frag {
  int row0;
  int col0;
  __device__ explicit Frag(int thread_in_wg)
      : row0((thread_in_wg / 32) * 16 + (thread_in_wg % 32) / 4), col0(2 * (thread_in_wg % 4)) {}
  __device__ static constexpr int row_offset(int i) { return 8 * ((i >> 1) & 1); }
  __device__ static constexpr int col_offset(int i) { return 8 * (i >> 2); }
};

// Stage index and phase bit of the n-th entry of a consumer's ring (each stage's barrier
// completes once per use; use u waits for parity u & 1).
struct PipeSlot {
  int stage;
  std::uint32_t parity;
  __device__ static PipeSlot of(int n) { return {n % kStages, std::uint32_t(n / kStages) & 1u}; }
};

// Delay probe: compiled out of the normal variant.
template <bool kProbes>
__device__ __forceinline__ void probe_sleep(std::uint32_t ns) {
  if constexpr (kProbes) sleep_ns(ns);
}

// ---- operand descriptors of a [64 rows][128 cols] tile (two swizzled chunks) ---------
// K-major (K = the 128 columns): k-step kk covers columns 16kk .. 16kk + 15.
__device__ __forceinline__ std::uint64_t desc_k_major(std::uint32_t tile, int kk) {
  return smem_desc_sw128(tile + (kk / 4) * kChunkBytes + (kk % 4) * 32, 16, kSwizzleAtomBytes);
}
// MN-major (K = the 64 rows): k-step kk covers rows 16kk .. 16kk + 15; N runs over both chunks.
__device__ __forceinline__ std::uint64_t desc_mn_major(std::uint32_t tile, int kk) {
  return smem_desc_sw128(tile + kk * 2 * kSwizzleAtomBytes, kChunkBytes, kSwizzleAtomBytes);
}

// ---- the three GEMM shapes ---------------------------------------------------------
// acc[64x64] = A B^T over d: A, B are [64 rows][128 d] tiles (S = Q K^T, S^T = K Q^T, ...).
__device__ __forceinline__ void gemm_abt(float (&acc)[32], std::uint32_t a_tile, std::uint32_t b_tile) {
#pragma unroll
  for (int kk = 0; kk < kD / 16; ++kk)
    wgmma_m64n64k16_ss<0, 0>(acc, desc_k_major(a_tile, kk), desc_k_major(b_tile, kk), kk);
}
// acc[64x128] += A B: A (64 x 64) in registers as four k-step fragments, B a tile whose rows are K.
__device__ __forceinline__ void gemm_rs_ab(float (&acc)[64], const std::uint32_t (&a)[4][4], std::uint32_t b_tile) {
#pragma unroll
  for (int kk = 0; kk < kBlk / 16; ++kk) wgmma_m64n128k16_rs<1>(acc, a[kk], desc_mn_major(b_tile, kk), 1);
}
// acc[64x128] (+)= A B with A stored transposed ([K = 64 rows][M = 64 cols], one chunk) and
// B a tile whose rows are K. Without `accumulate` the first k-step overwrites acc.
__device__ __forceinline__ void gemm_atb(float (&acc)[64], std::uint32_t a_t_tile, std::uint32_t b_tile,
                                         bool accumulate) {
#pragma unroll
  for (int kk = 0; kk < kBlk / 16; ++kk)
    wgmma_m64n128k16_ss<1, 1>(acc, desc_mn_major(a_t_tile, kk), desc_mn_major(b_tile, kk),
                              accumulate || kk > 0 ? 1 : 0);
}

// 64x64 fp32 accumulator -> bf16 A fragments, k-step kk = columns 16kk .. 16kk + 15.
__device__ __forceinline__ void to_a_frags(const float (&acc)[32], std::uint32_t (&frag)[4][4]) {
#pragma unroll
  for (int kk = 0; kk < 4; ++kk)
#pragma unroll
    for (int j = 0; j < 4; ++j) frag[kk][j] = pack_bf16x2(acc[8 * kk + 2 * j], acc[8 * kk + 2 * j + 1]);
}

// lse = -inf marks a row with no selected key: map it to +inf so P = exp2(x - inf) = 0.
__device__ __forceinline__ float usable_lse(float lse) { return lse == -INFINITY ? INFINITY : lse; }

// ---- elementwise softmax gradient --------------------------------------------------
// Split in two so P can be computed while the dP wgmma is still running.

// kv items (rows = kv, columns = q): S^T -> P^T in place. Padded keys (row >= vbs of
// this kv block) get P = 0.
__device__ __forceinline__ void probs_kv(float (&s)[32], const float* lse, const Frag& f, int valid_rows,
                                         float scale_log2) {
  const bool row_valid[2] = {f.row0 < valid_rows, f.row0 + 8 < valid_rows};
#pragma unroll
  for (int c = 0; c < 8; ++c) {
    const float2 l = *reinterpret_cast<const float2*>(lse + 8 * c + f.col0);
    const float col_lse[2] = {usable_lse(l.x), usable_lse(l.y)};
#pragma unroll
    for (int r = 0; r < 2; ++r)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int i = 4 * c + 2 * r + e;
        s[i] = row_valid[r] ? fast_exp2(fmaf(s[i], scale_log2, -col_lse[e])) : 0.0f;
      }
  }
}
// kv items: dP^T -> dS^T = P^T (dP^T - Delta) in place, Delta per column.
__device__ __forceinline__ void dsoftmax_kv(float (&dp)[32], const float (&p)[32], const float* delta, const Frag& f) {
#pragma unroll
  for (int c = 0; c < 8; ++c) {
    const float2 d = *reinterpret_cast<const float2*>(delta + 8 * c + f.col0);
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      dp[4 * c + 2 * r] = p[4 * c + 2 * r] * (dp[4 * c + 2 * r] - d.x);
      dp[4 * c + 2 * r + 1] = p[4 * c + 2 * r + 1] * (dp[4 * c + 2 * r + 1] - d.y);
    }
  }
}

// dS^T fragments -> the consumer's [64 kv][64 q] swizzled tile (A of dQ = dS K, MN-major).
// Row kv at kv * 128 bytes; 16-byte chunk c of a row moves to c ^ (kv & 7).
__device__ __forceinline__ void store_ds_t(bf16_bits* tile, const std::uint32_t (&frag)[4][4], const Frag& f) {
  const std::uint32_t base = smem_addr(tile);
#pragma unroll
  for (int kk = 0; kk < 4; ++kk)
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int row = f.row0 + 8 * (j & 1);
      const int chunk = 2 * kk + (j >> 1);
      const std::uint32_t addr = base + row * 128 + ((chunk ^ (row & 7)) << 4) + f.col0 * 2;
      asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(addr), "r"(frag[kk][j]) : "memory");
    }
}

// Consumer -> producer: this thread is done with the stage (its wgmma reads completed and
// its lse/Delta loads consumed). Every consumer thread arrives (the barrier counts a warp
// group), so each thread's own reads are ordered by its own release: that is what
// compute-sanitizer racecheck follows, and it costs nothing measurable (notes/runs.md, run 4).
template <bool kProbes>
__device__ __forceinline__ void release_stage(std::uint64_t* empty, const Probes& probes) {
  probe_sleep<kProbes>(probes.release_stage_ns);
  mbar_arrive(empty);
}

// ---- one entry of a kv item -----------------------------------------------------------
// dV += P^T dO, dK += dS^T Q (unscaled); dS^T also goes to the consumer's tile. When
// kAccumulateDq, dq = dS K (this entry's partial, unscaled); otherwise the caller stores the
// tile for the q items (bwd_ds_handoff.cuh). The tile is single-buffered: kBarDsFree waits
// until the previous entry's readers (its dQ wgmma, or thread 0's bulk store) are done.
template <bool kAccumulateDq, bool kProbes>
__device__ __forceinline__ void kv_entry(SlotSmem& sm, const BwdParams& p, int stage, int consumer, int t,
                                         const Frag& f, int valid_rows, float (&dk)[64], float (&dv)[64],
                                         float (&dq)[64]) {
  const std::uint32_t k_tile = smem_addr(sm.resident.a);
  const std::uint32_t v_tile = smem_addr(sm.resident.b);
  const std::uint32_t q_tile = smem_addr(sm.stage[stage].a);
  const std::uint32_t do_tile = smem_addr(sm.stage[stage].b);

  float s[32], dp[32];
  wgmma_fence();
  gemm_abt(s, k_tile, q_tile);  // S^T = K Q^T
  wgmma_commit();
  gemm_abt(dp, v_tile, do_tile);  // dP^T = V dO^T
  wgmma_commit();
  // While the GEMMs run: the previous entry's bulk store has read the tile.
  if (!kAccumulateDq && t == 0) bulk_wait_read<0>();
  wgmma_wait<1>();
  keep_live(s);
  probs_kv(s, sm.stage_lse[stage], f, valid_rows, p.scale_log2);  // while dP^T is computed
  wgmma_wait<0>();
  keep_live(dp);
  dsoftmax_kv(dp, s, sm.stage_delta[stage], f);

  std::uint32_t p_frag[4][4], ds_frag[4][4];
  to_a_frags(s, p_frag);
  to_a_frags(dp, ds_frag);
  named_barrier_sync(kBarDsFree0 + consumer, kWarpgroupThreads);  // previous readers of the tile done
  store_ds_t(sm.ds_t, ds_frag, f);
  fence_proxy_async_smem();  // read by wgmma (atomic) or by a bulk store (deterministic)

  wgmma_fence();
  gemm_rs_ab(dv, p_frag, do_tile);  // dV += P^T dO
  gemm_rs_ab(dk, ds_frag, q_tile);  // dK += dS^T Q
  wgmma_commit();
  wgmma_wait<0>();
  keep_live(dv);
  keep_live(dk);
#pragma unroll
  for (int kk = 0; kk < 4; ++kk) {
    keep_live(p_frag[kk]);
    keep_live(ds_frag[kk]);
  }
  release_stage<kProbes>(&sm.empty[stage], p.probes);  // Q_i, dO_i, lse_i, Delta_i no longer read

  if constexpr (kAccumulateDq) {
    named_barrier_sync(kBarDsWritten0 + consumer, kWarpgroupThreads);  // all four warps' dS^T rows written
    wgmma_fence();
    gemm_atb(dq, smem_addr(sm.ds_t), k_tile, false);  // dQ_i partial = dS K
    wgmma_commit();
    wgmma_wait<0>();
    keep_live(dq);
  }
}

// ---- one entry of a q item --------------------------------------------------------------
// dq += dS K_j (unscaled), with dS^T the kv item's tile that the producer loaded beside K_j
// (bwd_ds_handoff.cuh). One GEMM.
template <bool kProbes>
__device__ __forceinline__ void q_entry(SlotSmem& sm, const BwdParams& p, int stage, float (&dq)[64]) {
  wgmma_fence();
  gemm_atb(dq, smem_addr(sm.stage[stage].b), smem_addr(sm.stage[stage].a), true);  // dQ += dS K
  wgmma_commit();
  wgmma_wait<0>();
  keep_live(dq);
  release_stage<kProbes>(&sm.empty[stage], p.probes);
}

}  // namespace vsa::sm90a::bwd
