#pragma once
// Softmax-role epilogue: normalise O, stage it as bf16 over the Q tiles (free once the
// last MMA, which pv_done covers, has completed), TMA-store both 64 x 128 tiles, write lse.
// A block with count 0, or whose selected keys were all padding, gets O = +0 and lse = -inf.
// Runs whatever the step count: with 0 steps nothing waits and only zeros are stored.
#include <math_constants.h>

#include "fwd_softmax.cuh"
#include "swizzled_tile.cuh"

namespace vsa::sm100a::fwd {

// Named barrier of the four softmax warps (0 is __syncthreads).
inline constexpr int kSoftmaxBarrierId = 1;

template <bool kProbe>
__device__ void softmax_epilogue(SharedStorage& smem, const WorkItem& w, std::uint32_t tmem_base, const Params& p,
                                 const CUtensorMap* tm_o, const RowOwner& me, const OnlineRow& row, int warp,
                                 int lane) {
  using namespace protocol;
  const int steps = w.steps;
  const int it = steps;  // the epilogue's iteration: step_offset -1 names the last kv step
  auto c0 = Begin<kProtocol, WarpRole::softmax, Section::epilogue>{};
  auto c1 = wait(c0, smem.bars, it, steps);  // pv_done of the last step
  if (active(c1, it, steps)) tc_fence_after_sync();
  auto c2 = expect<OpKind::fence_after>(c1);

  std::uint32_t o[Config::kHeadDim];
  const bool have_o = active(c2, it, steps);
  if (have_o) load_o_row(o, tmem_at(tmem_base, int(me.lane_quarter), tmem_column<decltype(c2), Buf::o>(it)));
  auto c3 = expect<OpKind::tmem_load>(c2);
  if (active(c3, it, steps)) {
    tmem_wait_ld();
    keep_after_wait(o);
  }
  auto c4 = expect<OpKind::wait_ld>(c3);
  if (active(c4, it, steps)) tc_fence_before_sync();
  auto c5 = expect<OpKind::fence_before>(c4);

  // lse in M format: log2(sum_j 2^(scale_log2 s_j)) = scale_log2 m + log2(l).
  const bool attended = have_o && w.count_of(me.block) > 0 && row.l > 0.0f;
  const float inv_sum = attended ? 1.0f / row.l : 0.0f;
  const float lse = attended ? row.m * p.scale_log2 + log2f(row.l) : -CUDART_INF_F;
  p.lse[std::int64_t(w.item_a + me.block) * Config::kBlock + me.row] = lse;

  static_assert(writes<decltype(c5), Buf::q>, "O is staged over the Q tiles");
  stage_o_row<Config::kHalfBytes, Config::kHeadDim>(smem.q[me.block], me.row, o, inv_sum, attended);
  auto c6 = expect<OpKind::smem_store>(c5);
  fence_proxy_async_smem();
  auto c7 = expect<OpKind::fence_async>(c6);
  named_barrier_sync(kSoftmaxBarrierId, Config::kSoftmaxWarps * 32);
  auto c8 = expect<OpKind::role_sync>(c7);

  static_assert(decltype(c8)::op().lead_only, "one thread stores the tiles");
  const bool lead = warp == 0 && lane == 0;
  if (lead) {
    if constexpr (kProbe) sleep_ns(p.probe_ns[kProbeEpilogue]);
    for (int b = 0; b < Config::kQBlocks; ++b)
      for (int h = 0; h < Config::kHalves; ++h)
        tma_store_2d(tm_o, h * Config::kHalfCols, (w.item_a + b) * Config::kBlock,
                     smem.q[b] + h * (Config::kHalfBytes / 2));
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
  const RowOwner me = RowOwner::of(warp, lane);
  OnlineRow row = OnlineRow::start();
  softmax_steps<kProbe>(smem, w, tmem_base, p, me, row, lane);
  softmax_epilogue<kProbe>(smem, w, tmem_base, p, tm_o, me, row, warp, lane);
}

}  // namespace vsa::sm100a::fwd
