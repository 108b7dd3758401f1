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

template <bool kProbe>
__device__ void softmax_steps(SharedStorage& smem, const WorkItem& w, std::uint32_t lanes, const Params& p, int row,
                              OnlineRow& stats, int lane) {
  using namespace protocol;
  const int steps = w.steps;
  for (int n = 0; n < steps; ++n) {
    auto c0 = Begin<kProtocol, WarpRole::softmax, Section::loop, kProbe>{};
    // vbs of the *key* block of entry n (docs/spec.md bug class 9), read before the wait.
    const int valid = min(max(p.vbs[w.kv_block(p, n)], 0), Config::kBlock);

    auto c1 = wait(c0, smem.bars, n, steps);  // s_full
    auto c2 = fence_after(c1, n, steps);
    if constexpr (kProbe) probe_delay(p, kProbeReadS);
    std::uint32_t s[Config::kBlock];
    __syncwarp();
    auto c3 = tmem_load(c2, s, lanes, n, steps);
    auto c4 = wait_ld(c3, n, steps, s);
    auto c5 = fence_before(c4, n, steps);
    if constexpr (kProbe) probe_delay(p, kProbeReleaseS);
    auto c6 = arrive_warp(c5, smem.bars, n, steps, lane);  // s_empty

    std::uint32_t probs[Config::kBlock / 2];
    const float alpha = stats.update(s, valid, p.scale_log2, probs);

    auto c7 = wait(c6, smem.bars, n, steps);  // pv_done of step n - 1
    auto c8 = fence_after(c7, n, steps);
    if constexpr (kProbe) {
      if (active(c8, n, steps)) probe_delay(p, kProbeReadO);
    }
    static_assert(writes<decltype(c8), Buf::p>, "P goes to its smem tile here");
    store_p_row(smem.p, row, probs);
    auto c9 = expect<OpKind::smem_store>(c8);

    // O correction after PV_{n-1} (none at n = 0: PV_0 overwrites O). A warp skips it only
    // when every alpha is exactly 1 (no row max moved), so skipping changes no bit.
    const bool correct = active(c9, n, steps) && __any_sync(0xffffffffu, alpha != 1.0f);
    // The table's ld O, wait::ld, st O in one block per path: the 128 O registers then
    // never live across a branch merge (which made ptxas spill them). Without a
    // correction the warp still waits (the wait_ld op is not optional) and skips the
    // optional accesses.
    const auto c12 = [&] {
      if (correct) {
        std::uint32_t o[Config::kHeadDim];
        auto loaded = tmem_load(c9, o, lanes, n, steps);
        auto waited = wait_ld(loaded, n, steps, o);
#pragma unroll
        for (int d = 0; d < Config::kHeadDim; ++d) o[d] = __float_as_uint(__uint_as_float(o[d]) * alpha);
        static_assert(writes<decltype(waited), Buf::o>, "the correction writes O");
        return tmem_store(waited, o, lanes, n, steps);
      }
      return skip(wait_ld(skip(c9), n, steps));
    }();
    auto c13 = wait_st(c12, n, steps);
    auto c14 = fence_async(c13, n, steps);
    auto c15 = fence_before(c14, n, steps);
    if constexpr (kProbe) probe_delay(p, kProbeReleaseP);
    finish(arrive_warp(c15, smem.bars, n, steps, lane));  // p_full
  }
}

template <bool kProbe>
__device__ void softmax_epilogue(SharedStorage& smem, const WorkItem& w, std::uint32_t lanes, const Params& p,
                                 const CUtensorMap* tm_o, int row, const OnlineRow& stats, int warp, int lane) {
  using namespace protocol;
  const int steps = w.steps;
  const int it = steps;  // the epilogue's iteration: step_offset -1 names the last kv step
  auto c0 = Begin<kProtocol, WarpRole::softmax, Section::epilogue, kProbe>{};
  auto c1 = wait(c0, smem.bars, it, steps);  // pv_done of the last step
  auto c2 = fence_after(c1, it, steps);

  std::uint32_t o[Config::kHeadDim] = {};
  const bool have_o = active(c2, it, steps);
  if constexpr (kProbe) {
    if (have_o) probe_delay(p, kProbeReadO);
  }
  __syncwarp();
  auto c3 = tmem_load(c2, o, lanes, it, steps);
  auto c4 = wait_ld(c3, it, steps, o);
  auto c5 = fence_before(c4, it, steps);

  // lse in M format: log2(sum_j 2^(scale_log2 s_j)) = scale_log2 m + log2(l).
  const bool attended = have_o && stats.l > 0.0f;
  const float inv_sum = attended ? 1.0f / stats.l : 0.0f;
  p.lse[std::int64_t(w.item) * Config::kBlock + row] =
      attended ? stats.m * p.scale_log2 + log2f(stats.l) : -CUDART_INF_F;

  static_assert(writes<decltype(c5), Buf::q>, "O is staged over the Q tile");
  stage_o_row<Config::kHalfBytes, Config::kHeadDim>(smem.q, row, o, inv_sum, attended);  // over Q
  auto c6 = expect<OpKind::smem_store>(c5);
  auto c7 = fence_async(c6, it, steps);
  auto c8 = role_sync(c7, it, steps, kSoftmaxBarrierId);

  static_assert(decltype(c8)::op().lead_only, "one thread stores the tile");
  const bool lead = warp == 0 && lane == 0;
  if (lead) {
    if constexpr (kProbe) probe_delay(p, kProbeEpilogue);
    for (int h = 0; h < Config::kHalves; ++h)
      tma_store_tile(c8, tm_o, h * Config::kHalfCols, w.item * Config::kBlock, smem.q + h * (Config::kHalfBytes / 2));
  }
  auto c9 = store_commit(c8, it, steps, lead);
  auto c10 = wait_store_read(c9, it, steps, lead);
  __syncwarp();
  finish(cta_sync(c10));
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
