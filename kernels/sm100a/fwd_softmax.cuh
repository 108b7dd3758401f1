#pragma once
// Softmax role (warps 0..3): one thread per row. Warp w's tcgen05.ld of a 32x32b shape
// returns TMEM lanes 32w..32w+31. blk64: lane l < 16 holds row 16w + l of q block A and
// lane l >= 16 row 16w + l - 16 of block B, each with the full 64-key S row. blk128: lane l
// holds row 32w + l with its full 128-key S row. Row max and sum need no shuffles.
//
// Per step: S_n -> registers -> s_empty; mask keys at p >= vbs of the *key* block; online
// softmax (running max m in raw-score units, running sum l), P packed to bf16 as it is
// summed; wait PV_{n-1}; P_n into smem; correct O in TMEM by
// alpha = 2^(scale_log2 (m_old - m_new)) when any row of the warp needs it; p_full.
#include <math_constants.h>

#include "fwd_storage.cuh"
#include "protocol_cursor.cuh"
#include "swizzled_tile.cuh"

namespace vsa::sm100a::fwd {

// The calling thread's row: q block (blk64: 0 = A, 1 = B) and row within the block.
template <class T>
struct RowOwner {
  static constexpr int kRowsPerWarp = 32 / T::kQBlocks;  // of each block
  int block;
  int row;
  std::uint32_t lane_quarter;  // TMEM lane offset of this warp: 32 * warp
  __device__ __forceinline__ static RowOwner of(int warp, int lane) {
    return {lane / kRowsPerWarp, warp * kRowsPerWarp + lane % kRowsPerWarp, std::uint32_t(warp * 32)};
  }
};

template <class T>
struct OnlineRow {
  float m;  // running max of raw scores (-inf: no valid key yet)
  float l;  // running sum of 2^(scale_log2 s - scale_log2 m)

  __device__ __forceinline__ static OnlineRow start() { return {-CUDART_INF_F, 0.0f}; }

  // Folds a row of raw scores (bits in s) in and packs the unnormalised probabilities as
  // bf16 pairs into p (s is dead afterwards, which keeps the register peak at one row);
  // returns alpha, the factor for O accumulated so far. Keys at or past `valid` count as
  // -inf: they leave the max alone and give 0. A row with no valid key so far keeps
  // m = -inf and takes 0 as its exponent base, so every term is 2^-inf = 0 rather than NaN.
  __device__ __forceinline__ float update(const std::uint32_t (&s)[T::kBlock], int valid, float scale_log2,
                                          std::uint32_t (&p)[T::kBlock / 2]) {
    float mx = m;
#pragma unroll
    for (int j = 0; j < T::kBlock; ++j)
      if (j < valid) mx = fmaxf(mx, __uint_as_float(s[j]));
    const float base = mx == -CUDART_INF_F ? 0.0f : mx * scale_log2;
    const float alpha = fast_exp2(m * scale_log2 - base);
    float sum = 0.0f;
#pragma unroll
    for (int i = 0; i < T::kBlock / 2; ++i) {
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

// One P row (kBlock keys, bf16 pairs) into its q block's P tile: keys 64h.. go to half h,
// 16-byte chunk c of a half at chunk position c ^ (row % 8), the layout TMA's 128-byte
// swizzle gives and the MMA descriptor expects.
template <class T>
__device__ __forceinline__ void store_p_row(bf16_bits* tile, int row, const std::uint32_t (&p)[T::kBlock / 2]) {
  const std::uint32_t base = smem_addr(tile);
#pragma unroll
  for (int c = 0; c < T::kBlock / 8; ++c)
    st_shared_v4(base + swizzled_chunk<T::kHalfBytes>(row, c), p[4 * c], p[4 * c + 1], p[4 * c + 2], p[4 * c + 3]);
}

template <bool kProbe, class T>
__device__ void softmax_steps(SharedStorage<T>& smem, const WorkItem<T>& w, std::uint32_t lanes, const Params& p,
                              const RowOwner<T>& me, OnlineRow<T>& row, int lane) {
  using namespace protocol;
  const int steps = w.steps;
  for (int n = 0; n < steps; ++n) {
    auto c0 = Begin<ProtocolOf<T>::value, WarpRole::softmax, Section::loop, kProbe>{};
    const bool mine = w.active(me.block, n);
    // vbs of the *key* block of this row's entry n (docs/spec.md bug class 9), read before the
    // wait so its latency hides behind the MMA.
    const int valid = mine ? min(max(p.vbs[w.kv_block(p, me.block, n)], 0), T::kBlock) : 0;

    auto c1 = wait(c0, smem.bars, n, steps);  // s_full
    auto c2 = fence_after(c1, n, steps);
    if constexpr (kProbe) probe_delay(p, kProbeReadS);
    std::uint32_t s[T::kBlock];
    __syncwarp();
    auto c3 = tmem_load(c2, s, lanes, n, steps);
    auto c4 = wait_ld(c3, n, steps, s);
    auto c5 = fence_before(c4, n, steps);
    if constexpr (kProbe) probe_delay(p, kProbeReleaseS);
    auto c6 = arrive_warp(c5, smem.bars, n, steps, lane);  // s_empty

    std::uint32_t probs[T::kBlock / 2];
    const float alpha = mine ? row.update(s, valid, p.scale_log2, probs) : 1.0f;

    auto c7 = wait(c6, smem.bars, n, steps);  // pv_done of step n - 1
    auto c8 = fence_after(c7, n, steps);
    if constexpr (kProbe) {
      if (active(c8, n, steps)) probe_delay(p, kProbeReadO);
    }
    static_assert(writes<decltype(c8), Buf::p>, "P goes to its smem tile here");
    if (mine) store_p_row<T>(smem.p[me.block], me.row, probs);
    auto c9 = expect<OpKind::smem_store>(c8);

    // O correction after PV_{n-1} (none at n = 0: PV_0 overwrites O). A warp skips it only
    // when every alpha is exactly 1 (no row max moved), so skipping changes no bit.
    const bool correct = active(c9, n, steps) && __any_sync(0xffffffffu, alpha != 1.0f);
    // The table's ld O, wait::ld, st O in one block per path: the 128 O registers then
    // never live across a branch merge (which made ptxas spill them in blk128). Without a
    // correction the warp still waits (the wait_ld op is not optional) and skips the
    // optional accesses.
    const auto c12 = [&] {
      if (correct) {
        std::uint32_t o[T::kHeadDim];
        auto loaded = tmem_load(c9, o, lanes, n, steps);
        auto waited = wait_ld(loaded, n, steps, o);
#pragma unroll
        for (int d = 0; d < T::kHeadDim; ++d) o[d] = __float_as_uint(__uint_as_float(o[d]) * alpha);
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

}  // namespace vsa::sm100a::fwd
