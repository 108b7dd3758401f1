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
    auto c0 = Begin<kProtocol, WarpRole::dq_reduce, Section::loop>{};
    const int q_row = w.q_row(p, n);  // read before the wait: its latency hides behind the MMAs
    auto c1 = wait(c0, smem.bars, n, steps);  // dq_full
    tc_fence_after_sync();
    auto c2 = expect<OpKind::fence_after>(c1);
    std::uint32_t r[Config::kHeadDim];
    __syncwarp();
    load_row_128(r, lanes + std::uint32_t(tmem_column<decltype(c2), Buf::dq>(n)));
    auto c3 = expect<OpKind::tmem_load>(c2);
#if !defined(VSA_PLANT_MISSING_WAIT_LD)  // lint regression: the seed's bug (tests/fixtures/CMakeLists.txt)
    if (VSA_PLANT(skip_wait_ld, true, false)) tmem_wait_ld();  // model selftest plant (model/README.md)
#endif
    keep_after_wait(r);
    auto c4 = expect<OpKind::wait_ld>(c3);
    tc_fence_before_sync();
    auto c5 = expect<OpKind::fence_before>(c4);
    if constexpr (kProbe) sleep_ns(p.probe_ns[kProbeRelease]);
    auto c6 = arrive_warp(c5, smem.bars, n, steps, lane);  // dq_empty

    tma_store_wait_read();  // this thread's previous bulk reduce has read the staging row
    auto c7 = expect<OpKind::wait_store>(c6);
    static_assert(writes<decltype(c7), Buf::staging>, "dQ rows go to the staging buffer here");
    if (holds_row) {
#pragma unroll
      for (int c = 0; c < Config::kHeadDim / 4; ++c)
        st_shared_v4(staging + 16 * c, r[4 * c], r[4 * c + 1], r[4 * c + 2], r[4 * c + 3]);
    }
    auto c8 = expect<OpKind::smem_store>(c7);
    fence_proxy_async_smem();
    auto c9 = expect<OpKind::fence_async>(c8);
    static_assert(decltype(c9)::op().own_rows, "each thread reduces only its own staging row");
    if (holds_row) {
      if constexpr (kProbe) sleep_ns(p.probe_ns[kProbeStore]);
      bulk_reduce_add_f32(p.dq_accum + std::int64_t(q_row + row) * Config::kHeadDim,
                          reinterpret_cast<const float*>(smem.dq_staging + staging_row_offset(row)),
                          Config::kDqRowBytes);
      tma_store_commit();
    }
    finish(expect<OpKind::tma_store>(c9));
  }

  auto c0 = Begin<kProtocol, WarpRole::dq_reduce, Section::epilogue>{};
  bulk_wait_all();  // reads and writes of every bulk reduce of this thread complete
  auto c1 = expect<OpKind::wait_store>(c0);
  __syncwarp();
  __syncthreads();
  finish(expect<OpKind::cta_sync>(c1));
}

}  // namespace vsa::sm100a::bwd
