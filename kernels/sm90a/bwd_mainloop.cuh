#pragma once
// The backward's inner loops: operand descriptors, the three GEMM shapes, the
// elementwise softmax gradient, the producer's load loops and one list entry of
// each consumer. bwd_kernel.cuh and bwd_dq_kernel.cuh put them together.
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

// Stage index and phase bit of the n-th entry of a list (each stage's barrier
// completes once per use; use u waits for parity u & 1). Computed from n rather than
// stepped like PipelineState because each consumer takes every other entry.
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
  for (int kk = 0; kk < kD / 16; ++kk) wgmma_m64n64k16_ss<0, 0>(acc, desc_k_major(a_tile, kk), desc_k_major(b_tile, kk), kk);
}
// acc[64x128] += A B: A (64 x 64) in registers as four k-step fragments, B a tile whose rows are K.
__device__ __forceinline__ void gemm_rs_ab(float (&acc)[64], const std::uint32_t (&a)[4][4], std::uint32_t b_tile) {
#pragma unroll
  for (int kk = 0; kk < kBlk / 16; ++kk) wgmma_m64n128k16_rs<1>(acc, a[kk], desc_mn_major(b_tile, kk), 1);
}
// acc[64x128] = A B with A stored transposed ([K = 64 rows][M = 64 cols], one chunk) and B a tile whose rows are K.
__device__ __forceinline__ void gemm_atb(float (&acc)[64], std::uint32_t a_t_tile, std::uint32_t b_tile) {
#pragma unroll
  for (int kk = 0; kk < kBlk / 16; ++kk)
    wgmma_m64n128k16_ss<1, 1>(acc, desc_mn_major(a_t_tile, kk), desc_mn_major(b_tile, kk), kk);
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
// kv-stationary (rows = kv, columns = q): on entry s = S^T, dp = dP^T; on exit s = P^T,
// dp = dS^T. Padded keys (row >= vbs of this kv block) get P = 0.
__device__ __forceinline__ void softmax_grad_kv(float (&s)[32], float (&dp)[32], const float* lse, const float* delta,
                                                const Frag& f, int valid_rows, float scale_log2) {
  const bool row_valid[2] = {f.row0 < valid_rows, f.row0 + 8 < valid_rows};
#pragma unroll
  for (int c = 0; c < 8; ++c) {
    const float2 l = *reinterpret_cast<const float2*>(lse + 8 * c + f.col0);
    const float2 d = *reinterpret_cast<const float2*>(delta + 8 * c + f.col0);
    const float col_lse[2] = {usable_lse(l.x), usable_lse(l.y)};
    const float col_delta[2] = {d.x, d.y};
#pragma unroll
    for (int r = 0; r < 2; ++r)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int i = 4 * c + 2 * r + e;
        const float p = row_valid[r] ? fast_exp2(fmaf(s[i], scale_log2, -col_lse[e])) : 0.0f;
        dp[i] = p * (dp[i] - col_delta[e]);
        s[i] = p;
      }
  }
}

// q-stationary (rows = q, columns = kv): on entry s = S, dp = dP; on exit dp = dS
// (P itself is not needed). Padded keys (column >= vbs of this kv block) get P = 0.
__device__ __forceinline__ void softmax_grad_q(const float (&s)[32], float (&dp)[32], const float* lse,
                                               const float* delta, const Frag& f, int valid_cols, float scale_log2) {
  const float row_lse[2] = {usable_lse(lse[f.row0]), usable_lse(lse[f.row0 + 8])};
  const float row_delta[2] = {delta[f.row0], delta[f.row0 + 8]};
#pragma unroll
  for (int c = 0; c < 8; ++c)
#pragma unroll
    for (int e = 0; e < 2; ++e) {
      const bool col_valid = 8 * c + f.col0 + e < valid_cols;
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        const int i = 4 * c + 2 * r + e;
        const float p = col_valid ? fast_exp2(fmaf(s[i], scale_log2, -row_lse[r])) : 0.0f;
        dp[i] = p * (dp[i] - row_delta[r]);
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

// ---- producer ------------------------------------------------------------------------
// A [64 rows][128 cols] tile = two 64-column boxes, one per swizzled chunk.
__device__ __forceinline__ void load_tile(bf16_bits* dst, const CUtensorMap* map, int row, std::uint64_t* bar) {
  tma_load_2d(dst, map, 0, row, bar);
  tma_load_2d(dst + kChunkBytes / 2, map, kChunkCols, row, bar);
}

// kv-stationary: K_j, V_j once, then (Q_i, dO_i, lse_i, Delta_i) for every i of the k2q row.
__device__ __forceinline__ void produce_kv(KvSmem& sm, const KvParams& p, int kv_row, int row_base,
                                           const std::int32_t* list, int count) {
  mbar_arrive_expect_tx(&sm.kv_full, 2 * kTileBytes);
  load_tile(sm.k, &p.maps.k, kv_row, &sm.kv_full);
  load_tile(sm.v, &p.maps.v, kv_row, &sm.kv_full);
  for (int n = 0; n < count; ++n) {
    const PipeSlot slot = PipeSlot::of(n);
    if (n >= kStages) mbar_wait(&sm.empty[slot.stage], slot.parity ^ 1u);
    const int q_row = row_base + list[n] * kBlk;
    std::uint64_t* bar = &sm.full[slot.stage];
    mbar_arrive_expect_tx(bar, 2 * kTileBytes + 2 * kRowStatBytes);
    load_tile(sm.stage[slot.stage].q, &p.maps.q, q_row, bar);
    load_tile(sm.stage[slot.stage].d_out, &p.maps.d_out, q_row, bar);
    bulk_load(sm.lse[slot.stage], p.lse + q_row, kRowStatBytes, bar);
    bulk_load(sm.delta[slot.stage], p.delta + q_row, kRowStatBytes, bar);
  }
}

// q-stationary: Q_i, dO_i, lse_i, Delta_i once, then (K_j, V_j) for every j of the q2k row.
__device__ __forceinline__ void produce_dq(DqSmem& sm, const DqParams& p, int q_row, int row_base,
                                           const std::int32_t* list, int count) {
  mbar_arrive_expect_tx(&sm.q_full, 2 * kTileBytes + 2 * kRowStatBytes);
  load_tile(sm.q, &p.maps.q, q_row, &sm.q_full);
  load_tile(sm.d_out, &p.maps.d_out, q_row, &sm.q_full);
  bulk_load(sm.lse, p.lse + q_row, kRowStatBytes, &sm.q_full);
  bulk_load(sm.delta, p.delta + q_row, kRowStatBytes, &sm.q_full);
  for (int n = 0; n < count; ++n) {
    const PipeSlot slot = PipeSlot::of(n);
    if (n >= kStages) mbar_wait(&sm.empty[slot.stage], slot.parity ^ 1u);
    const int kv_row = row_base + list[n] * kBlk;
    std::uint64_t* bar = &sm.full[slot.stage];
    mbar_arrive_expect_tx(bar, 2 * kTileBytes);
    load_tile(sm.stage[slot.stage].k, &p.maps.k, kv_row, bar);
    load_tile(sm.stage[slot.stage].v, &p.maps.v, kv_row, bar);
  }
}

// Consumer -> producer: this warp is done with the stage (its wgmma reads completed).
template <bool kProbes>
__device__ __forceinline__ void release_stage(std::uint64_t* empty, const Probes& probes) {
  probe_sleep<kProbes>(probes.release_stage_ns);
  __syncwarp();
  if (threadIdx.x % 32 == 0) mbar_arrive(empty);
}

// ---- one entry of a kv-stationary consumer ----------------------------------------------
// dV += P^T dO, dK += dS^T Q (unscaled), and, when kAccumulateDq, dq = dS K (this entry's
// partial, unscaled). ds_t is this consumer's dS^T tile for this entry (double-buffered
// across entries: the kBarDsWritten barrier of entry n+1 orders entry n's dQ reads before
// entry n+2's writes).
template <bool kAccumulateDq, bool kProbes>
__device__ __forceinline__ void kv_entry(KvSmem& sm, const KvParams& p, int stage, int consumer, bf16_bits* ds_t,
                                         const Frag& f, int valid_rows, float (&dk)[64], float (&dv)[64],
                                         float (&dq)[64]) {
  const std::uint32_t k_tile = smem_addr(sm.k);
  const std::uint32_t v_tile = smem_addr(sm.v);
  const std::uint32_t q_tile = smem_addr(sm.stage[stage].q);
  const std::uint32_t do_tile = smem_addr(sm.stage[stage].d_out);

  float s[32], dp[32];
  wgmma_fence();
  gemm_abt(s, k_tile, q_tile);    // S^T = K Q^T
  gemm_abt(dp, v_tile, do_tile);  // dP^T = V dO^T
  wgmma_commit();
  wgmma_wait<0>();
  keep_live(s);
  keep_live(dp);

  softmax_grad_kv(s, dp, sm.lse[stage], sm.delta[stage], f, valid_rows, p.scale_log2);
  std::uint32_t p_frag[4][4], ds_frag[4][4];
  to_a_frags(s, p_frag);
  to_a_frags(dp, ds_frag);
  if constexpr (kAccumulateDq) {
    store_ds_t(ds_t, ds_frag, f);
    fence_proxy_async_smem();
  }

  wgmma_fence();
  gemm_rs_ab(dv, p_frag, do_tile);  // dV += P^T dO
  gemm_rs_ab(dk, ds_frag, q_tile);  // dK += dS^T Q
  wgmma_commit();
  wgmma_wait<0>();
  keep_live(dv);
  keep_live(dk);
  keep_live(p_frag[0]);
  keep_live(p_frag[1]);
  keep_live(p_frag[2]);
  keep_live(p_frag[3]);
  keep_live(ds_frag[0]);
  keep_live(ds_frag[1]);
  keep_live(ds_frag[2]);
  keep_live(ds_frag[3]);
  release_stage<kProbes>(&sm.empty[stage], p.probes);  // Q_i, dO_i, lse_i, Delta_i no longer read

  if constexpr (kAccumulateDq) {
    named_barrier_sync(kBarDsWritten0 + consumer, kWarpgroupThreads);  // all four warps' dS^T rows written
    wgmma_fence();
    gemm_atb(dq, smem_addr(ds_t), k_tile);  // dQ_i partial = dS K
    wgmma_commit();
    wgmma_wait<0>();
    keep_live(dq);
  }
}

// ---- one entry of a q-stationary consumer -----------------------------------------------
// dq += dS K_j (unscaled).
template <bool kProbes>
__device__ __forceinline__ void dq_entry(DqSmem& sm, const DqParams& p, int stage, const Frag& f, int valid_cols,
                                         float (&dq)[64]) {
  const std::uint32_t k_tile = smem_addr(sm.stage[stage].k);
  const std::uint32_t v_tile = smem_addr(sm.stage[stage].v);

  float s[32], dp[32];
  wgmma_fence();
  gemm_abt(s, smem_addr(sm.q), k_tile);       // S = Q K^T
  gemm_abt(dp, smem_addr(sm.d_out), v_tile);  // dP = dO V^T
  wgmma_commit();
  wgmma_wait<0>();
  keep_live(s);
  keep_live(dp);

  softmax_grad_q(s, dp, sm.lse, sm.delta, f, valid_cols, p.scale_log2);
  std::uint32_t ds_frag[4][4];
  to_a_frags(dp, ds_frag);

  wgmma_fence();
  gemm_rs_ab(dq, ds_frag, k_tile);  // dQ += dS K
  wgmma_commit();
  wgmma_wait<0>();
  keep_live(dq);
  keep_live(ds_frag[0]);
  keep_live(ds_frag[1]);
  keep_live(ds_frag[2]);
  keep_live(ds_frag[3]);
  release_stage<kProbes>(&sm.empty[stage], p.probes);
}

}  // namespace vsa::sm90a::bwd
