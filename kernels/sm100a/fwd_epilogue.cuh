#pragma once
// Softmax-role epilogue: normalise O, stage it as bf16 over the Q tiles (free once the
// last MMA, which pv_done covers, has completed), TMA-store every q block's kBlock x 128
// tile, write lse (M format). A block with count 0, or a row whose selected keys were all
// padding, gets O = +0 and lse = -inf. Runs whatever the step count: with 0 steps nothing
// waits and only zeros are stored.
#include <math_constants.h>

#include "fwd_softmax.cuh"
#include "swizzled_tile.cuh"

namespace vsa::sm100a::fwd {

// Named barrier of the four softmax warps (0 is __syncthreads).
inline constexpr int kSoftmaxBarrierId = 1;

template <bool kProbe, class T>
__device__ void softmax_epilogue(SharedStorage<T>& smem, const WorkItem<T>& w, std::uint32_t lanes, const Params& p,
                                 const CUtensorMap* tm_o, const RowOwner<T>& me, const OnlineRow<T>& row, int warp,
                                 int lane) {
  using namespace protocol;
  const int steps = w.steps;
  const int it = steps;  // the epilogue's iteration: step_offset -1 names the last kv step
  auto c0 = Begin<ProtocolOf<T>::value, WarpRole::softmax, Section::epilogue, kProbe>{};
  auto c1 = wait(c0, smem.bars, it, steps);  // pv_done of the last step
  auto c2 = fence_after(c1, it, steps);

  std::uint32_t o[T::kHeadDim] = {};
  const bool have_o = active(c2, it, steps);
  if constexpr (kProbe) {
    if (have_o) probe_delay(p, kProbeReadO);
  }
  __syncwarp();
  auto c3 = tmem_load(c2, o, lanes, it, steps);
  auto c4 = wait_ld(c3, it, steps, o);
  auto c5 = fence_before(c4, it, steps);

  // lse in M format: log2(sum_j 2^(scale_log2 s_j)) = scale_log2 m + log2(l).
  const bool attended = have_o && w.count_of(me.block) > 0 && row.l > 0.0f;
  const float inv_sum = attended ? 1.0f / row.l : 0.0f;
  const float lse = attended ? row.m * p.scale_log2 + log2f(row.l) : -CUDART_INF_F;
  p.lse[std::int64_t(w.item + me.block) * T::kBlock + me.row] = lse;

  static_assert(writes<decltype(c5), Buf::q>, "O is staged over the Q tiles");
  stage_o_row<T::kHalfBytes, T::kHeadDim>(smem.q[me.block], me.row, o, inv_sum, attended);
  auto c6 = expect<OpKind::smem_store>(c5);
  auto c7 = fence_async(c6, it, steps);
  auto c8 = role_sync(c7, it, steps, kSoftmaxBarrierId);

  static_assert(decltype(c8)::op().lead_only, "one thread stores the tiles");
  const bool lead = warp == 0 && lane == 0;
  if (lead) {
    if constexpr (kProbe) probe_delay(p, kProbeEpilogue);
    for (int b = 0; b < T::kQBlocks; ++b)
      for (int h = 0; h < T::kHalves; ++h)
        tma_store_tile(c8, tm_o, h * T::kHalfCols, (w.item + b) * T::kBlock, smem.q[b] + h * (T::kHalfBytes / 2));
  }
  auto c9 = store_commit(c8, it, steps, lead);
  auto c10 = wait_store_read(c9, it, steps, VSA_PLANT(store_wait_other_lane, lead, warp == 0 && lane == 1));
  __syncwarp();
  finish(cta_sync(c10));
}

template <bool kProbe, class T>
__device__ void run_softmax(SharedStorage<T>& smem, const WorkItem<T>& w, std::uint32_t tmem_base, const Params& p,
                            const CUtensorMap* tm_o, int warp, int lane) {
  const RowOwner<T> me = RowOwner<T>::of(warp, lane);
  const std::uint32_t lanes = tmem_at(tmem_base, int(me.lane_quarter), 0);
  OnlineRow<T> row = OnlineRow<T>::start();
  softmax_steps<kProbe>(smem, w, lanes, p, me, row, lane);
  softmax_epilogue<kProbe>(smem, w, lanes, p, tm_o, me, row, warp, lane);
}

}  // namespace vsa::sm100a::fwd
