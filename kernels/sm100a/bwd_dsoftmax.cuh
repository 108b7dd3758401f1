#pragma once
// dsoftmax role (warps 0..3): one thread per kv row. Warp w's 32x32b loads return TMEM
// lanes 32w..32w+31; with the M = 64 layout F, lane l < 16 holds kv row 16w + l of S^T and
// dP^T (all 64 q columns), lanes 16..31 hold nothing the kernel uses: those threads load
// (tcgen05.ld is warp-wide) but never store.
//
// Per step: S^T, dP^T rows -> registers -> s_empty; with lse_i, Delta_i of the stat stage
// (broadcast smem reads): P^T = exp2(scale_log2 S^T - lse) (0 for padded kv rows, i.e. row
// >= vbs of this kv block), dS^T = P^T (dP^T - Delta); both rows as bf16 into the P^T /
// dS^T tiles of this step's buffer; stat_empty, ds_full. (stat_empty comes late on purpose:
// a delay probe before it would otherwise hold 128 live registers and spill.) Epilogue: dV and dK rows (dK times
// the softmax scale) as bf16 straight to global memory, or exact zeros when no q block
// selected this kv block.
#include <math_constants.h>

#include "bwd_storage.cuh"
#include "protocol_cursor.cuh"

namespace vsa::sm100a::bwd {

// The calling thread's kv row and whether it holds one at all.
struct KvRowOwner {
  int row;              // kv row within the block (meaningful when `holds_row`)
  bool holds_row;       // lanes 0..15: layout F puts a row there
  bool valid;           // holds a row that is not padding (row < vbs of the kv block)
  std::uint32_t lanes;  // TMEM address of the warp's lane quarter, column 0
  __device__ __forceinline__ static KvRowOwner of(int warp, int lane, std::uint32_t tmem_base, int kv_valid) {
    const int row = warp * Config::kRowsPerQuarter + lane;
    const bool holds = lane < Config::kRowsPerQuarter;
    return {row, holds, holds && row < kv_valid, tmem_at(tmem_base, 32 * warp, 0)};
  }
};

// lse = -inf marks a q row with no selected valid key: map it to +inf so P = exp2(.. - inf) = 0.
__device__ __forceinline__ float usable_lse(float lse) { return lse == -CUDART_INF_F ? CUDART_INF_F : lse; }

// One 64-element bf16 row into its 128-byte-swizzled row of a square tile: 16-byte chunk c
// (elements 8c..8c+7) at chunk position c ^ (row % 8), the layout the MMA descriptors read.
__device__ __forceinline__ void store_square_row(bf16_bits* tile, int row, const std::uint32_t (&packed)[32]) {
  const std::uint32_t base = smem_addr(tile) + std::uint32_t(row) * 128;
#pragma unroll
  for (int c = 0; c < 8; ++c)
    st_shared_v4(base + ((c ^ (row % 8)) << 4), packed[4 * c], packed[4 * c + 1], packed[4 * c + 2], packed[4 * c + 3]);
}

// P^T and dS^T of one kv row from S^T, dP^T (in place: s becomes P^T, dp becomes dS^T),
// lse and Delta of the step's q block; packed to bf16 pairs.
__device__ __forceinline__ void dsoftmax_row(std::uint32_t (&s)[Config::kBlock], std::uint32_t (&dp)[Config::kBlock],
                                             const float* lse, const float* delta, bool valid, float scale_log2,
                                             std::uint32_t (&p_packed)[32], std::uint32_t (&ds_packed)[32]) {
#pragma unroll
  for (int c = 0; c < Config::kBlock / 4; ++c) {
    const float4 l = ld_shared(reinterpret_cast<const float4*>(lse) + c);
    const float4 d = ld_shared(reinterpret_cast<const float4*>(delta) + c);
    const float lv[4] = {l.x, l.y, l.z, l.w};
    const float dv[4] = {d.x, d.y, d.z, d.w};
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int j = 4 * c + e;
      const float p = valid ? fast_exp2(fmaf(__uint_as_float(s[j]), scale_log2, -usable_lse(lv[e]))) : 0.0f;
      const float ds = valid ? p * (__uint_as_float(dp[j]) - dv[e]) : 0.0f;
      s[j] = __float_as_uint(p);
      dp[j] = __float_as_uint(ds);
    }
  }
#pragma unroll
  for (int i = 0; i < 32; ++i) {
    p_packed[i] = pack_bf16x2(__uint_as_float(s[2 * i]), __uint_as_float(s[2 * i + 1]));
    ds_packed[i] = pack_bf16x2(__uint_as_float(dp[2 * i]), __uint_as_float(dp[2 * i + 1]));
  }
}

template <bool kProbe>
__device__ void dsoftmax_steps(SharedStorage& smem, const WorkItem& w, std::uint32_t tmem_base, const Params& p,
                               const KvRowOwner& me, int lane) {
  using namespace protocol;
  const int steps = w.steps;
  for (int n = 0; n < steps; ++n) {
    auto c0 = Begin<kProtocol, WarpRole::dsoftmax, Section::loop, kProbe>{};
    auto c1 = wait(c0, smem.bars, n, steps);  // s_full
    auto c2 = fence_after(c1, n, steps);
    if constexpr (kProbe) probe_delay(p, kProbeReadSt);
    std::uint32_t s[Config::kBlock], dp[Config::kBlock];
    __syncwarp();
    auto c3 = tmem_load(c2, s, me.lanes, n, steps);
    auto c4 = tmem_load(c3, dp, me.lanes, n, steps);
    auto c5 = wait_ld(c4, n, steps, s, dp);
    auto c6 = fence_before(c5, n, steps);
    if constexpr (kProbe) probe_delay(p, kProbeRelease);
    auto c7 = arrive_warp(c6, smem.bars, n, steps, lane);  // s_empty

    auto c8 = wait(c7, smem.bars, n, steps);  // stat_full
    if constexpr (kProbe) probe_delay(p, kProbeReadStat);
    std::uint32_t p_packed[32], ds_packed[32];
    {
      // The stat_next_stage plant (model only, plants.hpp): the next step's stage, which the
      // producer may be filling now.
      const int stage = VSA_PLANT(stat_next_stage, (buffer_instance<decltype(c8), Buf::stat>(n)),
                                  (buffer_instance<decltype(c8), Buf::stat>(n) + 1) % Config::kStages);
      dsoftmax_row(s, dp, smem.lse[stage], smem.delta[stage], me.valid, p.scale_log2, p_packed, ds_packed);
    }
    auto c9 = expect<OpKind::smem_load>(c8);

    auto c10 = wait(c9, smem.bars, n, steps);  // ds_empty of step n - 2
    static_assert(writes<decltype(c10), Buf::pds>, "P^T, dS^T go to their smem tiles here");
    if (me.holds_row) {
      const int buf = buffer_instance<decltype(c10), Buf::pds>(n);
      store_square_row(smem.p_t[buf], me.row, p_packed);
      store_square_row(smem.ds_t[buf], me.row, ds_packed);
    }
    auto c11 = expect<OpKind::smem_store>(c10);
    auto c12 = fence_async(c11, n, steps);
    if constexpr (kProbe) probe_delay(p, kProbeRelease);
    auto c13 = arrive_warp(c12, smem.bars, n, steps, lane);  // stat_empty
    if constexpr (kProbe) probe_delay(p, kProbeHandOver);
    finish(arrive_warp(c13, smem.bars, n, steps, lane));  // ds_full
  }
}

// scale * row -> 128 bf16 in global memory (16-byte stores); exact zeros when `zero`.
__device__ __forceinline__ void store_row_bf16(bf16_bits* dst, const std::uint32_t (&r)[Config::kHeadDim], float scale,
                                               bool zero) {
#pragma unroll
  for (int c = 0; c < Config::kHeadDim / 8; ++c) {
    uint4 v = make_uint4(0u, 0u, 0u, 0u);
    if (!zero) {
      v.x = pack_bf16x2(__uint_as_float(r[8 * c + 0]) * scale, __uint_as_float(r[8 * c + 1]) * scale);
      v.y = pack_bf16x2(__uint_as_float(r[8 * c + 2]) * scale, __uint_as_float(r[8 * c + 3]) * scale);
      v.z = pack_bf16x2(__uint_as_float(r[8 * c + 4]) * scale, __uint_as_float(r[8 * c + 5]) * scale);
      v.w = pack_bf16x2(__uint_as_float(r[8 * c + 6]) * scale, __uint_as_float(r[8 * c + 7]) * scale);
    }
    reinterpret_cast<uint4*>(dst)[c] = v;
  }
}

template <bool kProbe>
__device__ void dsoftmax_epilogue(SharedStorage& smem, const WorkItem& w, const Params& p, const KvRowOwner& me) {
  using namespace protocol;
  const int steps = w.steps;
  const int it = steps;  // the epilogue's iteration: step_offset -1 names the last step
  const std::int64_t row = std::int64_t(w.kv_row() + me.row) * Config::kHeadDim;
  auto c0 = Begin<kProtocol, WarpRole::dsoftmax, Section::epilogue, kProbe>{};
  auto c1 = wait(c0, smem.bars, it, steps);  // dkdv_done
  auto c2 = fence_after(c1, it, steps);
  const bool have = active(c2, it, steps);
  if constexpr (kProbe) {
    if (have) probe_delay(p, kProbeReadDkdv);
  }
  std::uint32_t r[Config::kHeadDim] = {};
  __syncwarp();  // tcgen05.ld is .sync.aligned: the warp reconverges after its barrier waits

  auto c3 = tmem_load(c2, r, me.lanes, it, steps);
  auto c4 = wait_ld(c3, it, steps, r);
  if constexpr (kProbe) {
    if (have) probe_delay(p, kProbeStore);
  }
  // No q block selected this kv block: exact-zero dV and dK rows, no barrier touched.
  if (me.holds_row) store_row_bf16(p.dv + row, r, 1.0f, !have);
  __syncwarp();  // tcgen05.ld is .sync.aligned: the warp reconverges after the lane-divergent store

  auto c5 = tmem_load(c4, r, me.lanes, it, steps);
  auto c6 = wait_ld(c5, it, steps, r);
  if (me.holds_row) store_row_bf16(p.dk + row, r, p.scale, !have);

  auto c7 = fence_before(c6, it, steps);
  // The tail: the last ds_empty commits (steps N-2, then N-1), which the loop never waits for.
  auto c8 = wait(c7, smem.bars, it, steps);
  auto c9 = wait(c8, smem.bars, it, steps);
  __syncwarp();
  finish(cta_sync(c9));
}

template <bool kProbe>
__device__ void run_dsoftmax(SharedStorage& smem, const WorkItem& w, std::uint32_t tmem_base, const Params& p, int warp,
                             int lane) {
  const KvRowOwner me = KvRowOwner::of(warp, lane, tmem_base, w.kv_valid);
  dsoftmax_steps<kProbe>(smem, w, tmem_base, p, me, lane);
  dsoftmax_epilogue<kProbe>(smem, w, p, me);
}

}  // namespace vsa::sm100a::bwd
