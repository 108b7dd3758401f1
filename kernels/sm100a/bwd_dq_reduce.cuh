#pragma once
// dq_reduce role (warps 4..7): one thread per q row of dQ_i. Warp w reaches TMEM lane
// quarter w % 4; with the M = 64 layout F, lane l < 16 holds q row 16 (w % 4) + l of the
// step's dQ_i partial (128 fp32 columns), lanes 16..31 hold nothing the kernel uses.
//
// Per step: dQ_i row -> registers -> dq_empty (the MMA warp may write dQ_{i+1}); wait until
// this thread's previous bulk reduce has read its staging row; row -> staging (fp32, one
// contiguous 512-byte run); fence.proxy.async; cp.reduce.async.bulk .add.f32 of the row
// into the [B, H, S, D] accumulator. Each thread owns its staging row and its bulk group,
// so no warp waits for another. The accumulator is unscaled: the dQ postprocess
// (kernels/common) multiplies by the softmax scale and rounds to bf16.
#include "bwd_dsoftmax.cuh"
#include "bwd_storage.cuh"
#include "protocol_cursor.cuh"

namespace vsa::sm100a::bwd {

// Byte offset of q row `row` in the staging buffer (rows padded by 16 bytes: conflict-free
// 16-byte stores from eight consecutive rows).
__device__ __forceinline__ std::uint32_t staging_row_offset(int row) {
  return std::uint32_t(row) * Config::kDqStagingStride;
}

template <bool kProbe>
__device__ void run_dq_reduce(SharedStorage& smem, const WorkItem& w, std::uint32_t tmem_base, const Params& p,
                              int warp, int lane) {
  using namespace protocol;
  const int steps = w.steps;
  const int quarter = warp % 4;
  const int row = quarter * Config::kRowsPerQuarter + lane;  // q row within the q block
  const bool holds_row = lane < Config::kRowsPerQuarter;
  const std::uint32_t lanes = tmem_at(tmem_base, 32 * quarter, 0);
  const std::uint32_t staging = smem_addr(smem.dq_staging) + staging_row_offset(row);

  for (int n = 0; n < steps; ++n) {
    auto c0 = Begin<kProtocol, WarpRole::dq_reduce, Section::loop, kProbe>{};
    const int q_row = w.q_row(p, n);          // read before the wait: its latency hides behind the MMAs
    auto c1 = wait(c0, smem.bars, n, steps);  // dq_full
    auto c2 = fence_after(c1, n, steps);
    if constexpr (kProbe) probe_delay(p, kProbeReadDq);
    std::uint32_t r[Config::kHeadDim];
    __syncwarp();
    auto c3 = tmem_load(c2, r, lanes, n, steps);
    auto c4 = wait_ld(c3, n, steps, r);
    auto c5 = fence_before(c4, n, steps);
    if constexpr (kProbe) probe_delay(p, kProbeRelease);
    auto c6 = arrive_warp(c5, smem.bars, n, steps, lane);  // dq_empty

    // this thread's previous bulk reduce has read the staging row
    auto c7 = wait_store_read(c6, n, steps, true);
    static_assert(writes<decltype(c7), Buf::staging>, "dQ rows go to the staging buffer here");
    if (holds_row) {
#pragma unroll
      for (int c = 0; c < Config::kHeadDim / 4; ++c)
        st_shared_v4(staging + 16 * c, r[4 * c], r[4 * c + 1], r[4 * c + 2], r[4 * c + 3]);
    }
    auto c8 = expect<OpKind::smem_store>(c7);
    auto c9 = fence_async(c8, n, steps);
    static_assert(decltype(c9)::op().own_rows, "each thread reduces only its own staging row");
    if (holds_row) {
      if constexpr (kProbe) probe_delay(p, kProbeStore);
      bulk_reduce_add(c9, p.dq_accum + std::int64_t(q_row + row) * Config::kHeadDim,
                      reinterpret_cast<const float*>(smem.dq_staging + staging_row_offset(row)), Config::kDqRowBytes);
    }
    finish(store_commit(c9, n, steps, holds_row));
  }

  auto c0 = Begin<kProtocol, WarpRole::dq_reduce, Section::epilogue, kProbe>{};
  auto c1 = wait_store_all(c0, steps, steps);  // reads and writes of every bulk reduce of this thread complete
  __syncwarp();
  finish(cta_sync(c1));
}

}  // namespace vsa::sm100a::bwd
