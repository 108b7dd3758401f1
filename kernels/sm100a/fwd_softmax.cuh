#pragma once
// Softmax role (warps 0..3): one thread per row. Warp w's tcgen05.ld of a 32x32b shape
// returns TMEM lanes 32w..32w+31, i.e. lane l < 16 holds row 16w + l of q block A and
// lane l >= 16 row 16w + l - 16 of block B, each with the full 64-key S row in registers:
// row max and sum need no shuffles.
//
// Per step: S_n -> registers -> s_empty; mask keys at p >= vbs of the *key* block; online
// softmax (running max m in raw-score units, running sum l); wait PV_{n-1}; P_n (bf16)
// into smem; correct O in TMEM by alpha = 2^(scale_log2 (m_old - m_new)) when any row of
// the warp needs it; p_full.
#include <math_constants.h>

#include "fwd_storage.cuh"
#include "protocol_cursor.cuh"

namespace vsa::sm100a::fwd {

// The calling thread's row: q block (0 = A, 1 = B) and row within the block.
struct RowOwner {
  int block;
  int row;
  std::uint32_t lane_quarter;  // TMEM lane offset of this warp: 32 * warp
  __device__ __forceinline__ static RowOwner of(int warp, int lane) {
    return {lane / 16, warp * 16 + lane % 16, std::uint32_t(warp * 32)};
  }
};

struct OnlineRow {
  float m;  // running max of raw scores (-inf: no valid key yet)
  float l;  // running sum of 2^(scale_log2 s - scale_log2 m)

  __device__ __forceinline__ static OnlineRow start() { return {-CUDART_INF_F, 0.0f}; }

  // Folds a masked score row in: s becomes the unnormalised probabilities; returns alpha,
  // the factor for O accumulated so far. A row with no valid key so far keeps m = -inf and
  // takes 0 as its exponent base, so every term is 2^-inf = 0 rather than NaN.
  __device__ __forceinline__ float update(float (&s)[Config::kBlock], int valid, float scale_log2) {
    float mx = m;
#pragma unroll
    for (int j = 0; j < Config::kBlock; ++j) {
      if (j >= valid) s[j] = -CUDART_INF_F;
      mx = fmaxf(mx, s[j]);
    }
    const float base = mx == -CUDART_INF_F ? 0.0f : mx * scale_log2;
    const float alpha = fast_exp2(m * scale_log2 - base);
    float sum = 0.0f;
#pragma unroll
    for (int j = 0; j < Config::kBlock; ++j) {
      s[j] = fast_exp2(fmaf(s[j], scale_log2, -base));
      sum += s[j];
    }
    m = mx;
    l = l * alpha + sum;
    return alpha;
  }
};

// One P row (64 keys, bf16) into its 128-byte-swizzled row of the P tile: 16-byte chunk c
// (keys 8c..8c+7) at chunk position c ^ (row % 8), the layout TMA's 128-byte swizzle gives
// and the MMA descriptor expects.
__device__ __forceinline__ void store_p_row(bf16_bits* tile, int row, const float (&s)[Config::kBlock]) {
  const std::uint32_t base = smem_addr(tile) + std::uint32_t(row) * 128;
#pragma unroll
  for (int c = 0; c < 8; ++c) {
    const std::uint32_t x = pack_bf16x2(s[8 * c + 0], s[8 * c + 1]);
    const std::uint32_t y = pack_bf16x2(s[8 * c + 2], s[8 * c + 3]);
    const std::uint32_t z = pack_bf16x2(s[8 * c + 4], s[8 * c + 5]);
    const std::uint32_t t = pack_bf16x2(s[8 * c + 6], s[8 * c + 7]);
    st_shared_v4(base + ((c ^ (row % 8)) << 4), x, y, z, t);
  }
}

template <bool kProbe>
__device__ void softmax_steps(SharedStorage& smem, const WorkItem& w, std::uint32_t tmem_base, const Params& p,
                              const RowOwner& me, OnlineRow& row, int lane) {
  using namespace protocol;
  const int steps = w.steps;
  const std::uint32_t my_lanes = tmem_at(tmem_base, int(me.lane_quarter), 0);

  for (int n = 0; n < steps; ++n) {
    auto c0 = Begin<kProtocol, WarpRole::softmax, Section::loop, kProbe>{};
    const bool mine = w.active(me.block, n);
    // vbs of the *key* block of this row's entry n (docs/spec.md bug class 9), read before the
    // wait so its latency hides behind the MMA.
    const int valid = mine ? min(max(p.vbs[w.kv_block(p, me.block, n)], 0), Config::kBlock) : 0;

    auto c1 = wait(c0, smem.bars, n, steps);  // s_full
    auto c2 = fence_after(c1, n, steps);
    if constexpr (kProbe) probe_delay(p, kProbeReadS);
    std::uint32_t s_bits[Config::kBlock];
    __syncwarp();
    auto c3 = tmem_load(c2, s_bits, my_lanes, n, steps);
    auto c4 = wait_ld(c3, n, steps, s_bits);
    auto c5 = fence_before(c4, n, steps);
    if constexpr (kProbe) probe_delay(p, kProbeReleaseS);
    auto c6 = arrive_warp(c5, smem.bars, n, steps, lane);  // s_empty

    float s[Config::kBlock];
#pragma unroll
    for (int j = 0; j < Config::kBlock; ++j) s[j] = __uint_as_float(s_bits[j]);
    const float alpha = mine ? row.update(s, valid, p.scale_log2) : 1.0f;

    auto c7 = wait(c6, smem.bars, n, steps);  // pv_done of step n - 1
    auto c8 = fence_after(c7, n, steps);
    if constexpr (kProbe) {
      if (active(c8, n, steps)) probe_delay(p, kProbeReadO);
    }
    static_assert(writes<decltype(c8), Buf::p>, "P goes to its smem tile here");
    if (mine) store_p_row(smem.p[me.block], me.row, s);
    auto c9 = expect<OpKind::smem_store>(c8);

    // O correction after PV_{n-1} (none at n = 0: PV_0 overwrites O). A warp skips it only
    // when every alpha is exactly 1 (no row max moved), so skipping changes no bit.
    const bool correct = active(c9, n, steps) && __any_sync(0xffffffffu, alpha != 1.0f);
    std::uint32_t o[Config::kHeadDim];
    auto c10 = tmem_load_if(c9, correct, o, my_lanes, n, steps);
    auto c11 = wait_ld(c10, n, steps);  // o is pinned below, where it is used
    if (correct) {
      keep_after_wait(o);
#pragma unroll
      for (int d = 0; d < Config::kHeadDim; ++d) o[d] = __float_as_uint(__uint_as_float(o[d]) * alpha);
    }
    static_assert(writes<decltype(c11), Buf::o>, "the correction writes O");
    auto c12 = tmem_store_if(c11, correct, o, my_lanes, n, steps);
    auto c13 = wait_st(c12, n, steps);

    auto c14 = fence_async(c13, n, steps);
    auto c15 = fence_before(c14, n, steps);
    if constexpr (kProbe) probe_delay(p, kProbeReleaseP);
    finish(arrive_warp(c15, smem.bars, n, steps, lane));  // p_full
  }
}

}  // namespace vsa::sm100a::fwd
