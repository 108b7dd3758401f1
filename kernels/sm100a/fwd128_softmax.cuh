#pragma once
// Softmax role (warps 0..3) of the blk128 forward: one thread per query row. With the
// M = 128 layout D, warp w's 32x32b loads return TMEM lanes 32w..32w+31 = rows 32w..32w+31,
// each thread the full 128-key S row: row max and sum need no shuffles.
//
// Per step: S_n -> registers -> s_empty; mask keys at p >= vbs of the *key* block; online
// softmax (running max m in raw-score units, running sum l); wait PV_{n-1}; P_n (bf16)
// into smem; correct O in TMEM by alpha when any row of the warp needs it; p_full.
// Epilogue: normalise O, stage it as bf16 over the Q tile, TMA-store it, write lse (M
// format). A row with no valid key, or a block with count 0, gets O = +0 and lse = -inf.
#include <math_constants.h>

#include "fwd128_storage.cuh"
#include "protocol_cursor.cuh"
#include "swizzled_tile.cuh"

namespace vsa::sm100a::fwd128 {

// Named barrier of the four softmax warps (0 is __syncthreads).
inline constexpr int kSoftmaxBarrierId = 1;

struct OnlineRow {
  float m;  // running max of raw scores (-inf: no valid key yet)
  float l;  // running sum of 2^(scale_log2 s - scale_log2 m)

  __device__ __forceinline__ static OnlineRow start() { return {-CUDART_INF_F, 0.0f}; }

  // Folds a row of raw scores (bits in s) in and packs the unnormalised probabilities as
  // bf16 pairs into p (s is dead afterwards, which keeps the register peak at one row);
  // returns alpha, the factor for O accumulated so far. A row with no valid key so far keeps
  // m = -inf and takes 0 as its exponent base, so every term is 2^-inf = 0 rather than NaN.
  __device__ __forceinline__ float update(const std::uint32_t (&s)[Config::kBlock], int valid, float scale_log2,
                                          std::uint32_t (&p)[Config::kBlock / 2]) {
    float mx = m;
#pragma unroll
    for (int j = 0; j < Config::kBlock; ++j)
      if (j < valid) mx = fmaxf(mx, __uint_as_float(s[j]));
    const float base = mx == -CUDART_INF_F ? 0.0f : mx * scale_log2;
    const float alpha = fast_exp2(m * scale_log2 - base);
    float sum = 0.0f;
#pragma unroll
    for (int i = 0; i < Config::kBlock / 2; ++i) {
      const float e0 = 2 * i < valid ? fast_exp2(fmaf(__uint_as_float(s[2 * i]), scale_log2, -base)) : 0.0f;
      const float e1 = 2 * i + 1 < valid ? fast_exp2(fmaf(__uint_as_float(s[2 * i + 1]), scale_log2, -base)) : 0.0f;
      sum += e0;
      sum += e1;
      p[i] = pack_bf16x2(e0, e1);
    }
    m = mx;
    l = l * alpha + sum;
    return alpha;
  }
};

// One P row (128 keys, bf16 pairs) into the P tile: keys 64h.. go to half h, 16-byte chunk
// c of a half at chunk position c ^ (row % 8) (the layout TMA's 128-byte swizzle gives).
__device__ __forceinline__ void store_p_row(bf16_bits* tile, int row, const std::uint32_t (&p)[Config::kBlock / 2]) {
  const std::uint32_t base = smem_addr(tile);
#pragma unroll
  for (int c = 0; c < Config::kBlock / 8; ++c)
    st_shared_v4(base + swizzled_chunk<Config::kHalfBytes>(row, c), p[4 * c], p[4 * c + 1], p[4 * c + 2], p[4 * c + 3]);
}

// All 128 O columns of this warp's lanes: four 32-column loads (one wait after them).
__device__ __forceinline__ void load_o_row(std::uint32_t (&o)[Config::kHeadDim], std::uint32_t taddr) {
#pragma unroll
  for (int c = 0; c < Config::kHeadDim / 32; ++c)
    tmem_load_32cols(*reinterpret_cast<std::uint32_t(*)[32]>(&o[32 * c]), taddr + 32 * c);
}

template <bool kProbe>
__device__ void softmax_steps(SharedStorage& smem, const WorkItem& w, std::uint32_t lanes, const Params& p, int row,
                              OnlineRow& stats, int lane) {
  using namespace protocol;
  const int steps = w.steps;
  for (int n = 0; n < steps; ++n) {
    auto c0 = Begin<kProtocol, WarpRole::softmax, Section::loop>{};
    // vbs of the *key* block of entry n (docs/spec.md bug class 9), read before the wait.
    const int valid = min(max(p.vbs[w.kv_block(p, n)], 0), Config::kBlock);

    auto c1 = wait(c0, smem.bars, n, steps);  // s_full
    tc_fence_after_sync();
    auto c2 = expect<OpKind::fence_after>(c1);
    std::uint32_t s[Config::kBlock];
    __syncwarp();
    {
      const std::uint32_t col = lanes + std::uint32_t(tmem_column<decltype(c2), Buf::s>(n));
#pragma unroll
      for (int c = 0; c < Config::kBlock / 32; ++c)
        tmem_load_32cols(*reinterpret_cast<std::uint32_t(*)[32]>(&s[32 * c]), col + 32 * c);
    }
    auto c3 = expect<OpKind::tmem_load>(c2);
    tmem_wait_ld();
    keep_after_wait(s);
    auto c4 = expect<OpKind::wait_ld>(c3);
    tc_fence_before_sync();
    auto c5 = expect<OpKind::fence_before>(c4);
    if constexpr (kProbe) sleep_ns(p.probe_ns[kProbeReleaseS]);
    auto c6 = arrive_warp(c5, smem.bars, n, steps, lane);  // s_empty

    std::uint32_t probs[Config::kBlock / 2];
    const float alpha = stats.update(s, valid, p.scale_log2, probs);

    auto c7 = wait(c6, smem.bars, n, steps);  // pv_done of step n - 1
    if (active(c7, n, steps)) tc_fence_after_sync();
    auto c8 = expect<OpKind::fence_after>(c7);
    static_assert(writes<decltype(c8), Buf::p>, "P goes to its smem tile here");
    store_p_row(smem.p, row, probs);
    auto c9 = expect<OpKind::smem_store>(c8);

    // O correction after PV_{n-1} (none at n = 0: PV_0 overwrites O). A warp skips it only
    // when every alpha is exactly 1 (no row max moved), so skipping changes no bit.
    const bool correct = active(c9, n, steps) && __any_sync(0xffffffffu, alpha != 1.0f);
    const std::uint32_t o_addr = lanes + std::uint32_t(tmem_column<decltype(c9), Buf::o>(n));
    // The table's four ops (ld O, wait::ld, st O, then wait::st below) in one block: the
    // 128 O registers then never live across a branch merge (which made ptxas spill them).
    auto c10 = expect<OpKind::tmem_load>(c9);
    auto c11 = expect<OpKind::wait_ld>(c10);
    static_assert(writes<decltype(c11), Buf::o>, "the correction writes O");
    auto c12 = expect<OpKind::tmem_store>(c11);
    if (correct) {
      std::uint32_t o[Config::kHeadDim];
      load_o_row(o, o_addr);
      tmem_wait_ld();
      keep_after_wait(o);
#pragma unroll
      for (int d = 0; d < Config::kHeadDim; ++d) o[d] = __float_as_uint(__uint_as_float(o[d]) * alpha);
#pragma unroll
      for (int c = 0; c < Config::kHeadDim / 32; ++c)
        tmem_store_32cols(o_addr + 32 * c, *reinterpret_cast<const std::uint32_t(*)[32]>(&o[32 * c]));
    } else if (active(c10, n, steps)) {
      tmem_wait_ld();
    }
    if (active(c12, n, steps)) tmem_wait_st();
    auto c13 = expect<OpKind::wait_st>(c12);

    fence_proxy_async_smem();
    auto c14 = expect<OpKind::fence_async>(c13);
    tc_fence_before_sync();
    auto c15 = expect<OpKind::fence_before>(c14);
    if constexpr (kProbe) sleep_ns(p.probe_ns[kProbeReleaseP]);
    finish(arrive_warp(c15, smem.bars, n, steps, lane));  // p_full
  }
}

template <bool kProbe>
__device__ void softmax_epilogue(SharedStorage& smem, const WorkItem& w, std::uint32_t lanes, const Params& p,
                                 const CUtensorMap* tm_o, int row, const OnlineRow& stats, int warp, int lane) {
  using namespace protocol;
  const int steps = w.steps;
  const int it = steps;  // the epilogue's iteration: step_offset -1 names the last kv step
  auto c0 = Begin<kProtocol, WarpRole::softmax, Section::epilogue>{};
  auto c1 = wait(c0, smem.bars, it, steps);  // pv_done of the last step
  if (active(c1, it, steps)) tc_fence_after_sync();
  auto c2 = expect<OpKind::fence_after>(c1);

  std::uint32_t o[Config::kHeadDim] = {};
  const bool have_o = active(c2, it, steps);
  __syncwarp();
  if (have_o) load_o_row(o, lanes + std::uint32_t(tmem_column<decltype(c2), Buf::o>(it)));
  auto c3 = expect<OpKind::tmem_load>(c2);
  if (have_o) {
    tmem_wait_ld();
    keep_after_wait(o);
  }
  auto c4 = expect<OpKind::wait_ld>(c3);
  if (have_o) tc_fence_before_sync();
  auto c5 = expect<OpKind::fence_before>(c4);

  // lse in M format: log2(sum_j 2^(scale_log2 s_j)) = scale_log2 m + log2(l).
  const bool attended = have_o && stats.l > 0.0f;
  const float inv_sum = attended ? 1.0f / stats.l : 0.0f;
  p.lse[std::int64_t(w.item) * Config::kBlock + row] =
      attended ? stats.m * p.scale_log2 + log2f(stats.l) : -CUDART_INF_F;

  static_assert(writes<decltype(c5), Buf::q>, "O is staged over the Q tile");
  stage_o_row<Config::kHalfBytes, Config::kHeadDim>(smem.q, row, o, inv_sum, attended);  // over Q
  auto c6 = expect<OpKind::smem_store>(c5);
  fence_proxy_async_smem();
  auto c7 = expect<OpKind::fence_async>(c6);
  named_barrier_sync(kSoftmaxBarrierId, Config::kSoftmaxWarps * 32);
  auto c8 = expect<OpKind::role_sync>(c7);

  static_assert(decltype(c8)::op().lead_only, "one thread stores the tile");
  const bool lead = warp == 0 && lane == 0;
  if (lead) {
    if constexpr (kProbe) sleep_ns(p.probe_ns[kProbeEpilogue]);
    for (int h = 0; h < Config::kHalves; ++h)
      tma_store_2d(tm_o, h * Config::kHalfCols, w.item * Config::kBlock, smem.q + h * (Config::kHalfBytes / 2));
    tma_store_commit();
  }
  auto c9 = expect<OpKind::tma_store>(c8);
  if (lead) tma_store_wait_read();
  auto c10 = expect<OpKind::wait_store>(c9);
  __syncwarp();
  __syncthreads();
  finish(expect<OpKind::cta_sync>(c10));
}

template <bool kProbe>
__device__ void run_softmax(SharedStorage& smem, const WorkItem& w, std::uint32_t tmem_base, const Params& p,
                            const CUtensorMap* tm_o, int warp, int lane) {
  const int row = 32 * warp + lane;  // layout D: row i of the q block in TMEM lane i
  const std::uint32_t lanes = tmem_at(tmem_base, 32 * warp, 0);
  OnlineRow stats = OnlineRow::start();
  softmax_steps<kProbe>(smem, w, lanes, p, row, stats, lane);
  softmax_epilogue<kProbe>(smem, w, lanes, p, tm_o, row, stats, warp, lane);
}

}  // namespace vsa::sm100a::fwd128
