#pragma once
// Producer role (warp 8, lane 0): TMA loads of K_j, V_j once, then per step the Q_i, dO_i
// tiles and the lse_i, Delta_i rows of the step's q block into the stage the table's ring
// names.
#include "bwd_storage.cuh"
#include "protocol_cursor.cuh"

namespace vsa::sm100a::bwd {

// A 64 x 128 tile as two 64-column boxes ([half][row][64]), completing on `bar`.
__device__ __forceinline__ void load_tile(bf16_bits* dst, const CUtensorMap* map, int row, std::uint64_t* bar) {
#pragma unroll
  for (int h = 0; h < Config::kHalves; ++h)
    tma_load_2d(dst + h * (Config::kHalfBytes / 2), map, h * Config::kHalfCols, row, bar);
}

template <bool kProbe>
__device__ void run_producer(SharedStorage& smem, const WorkItem& w, const CUtensorMap* tm_q, const CUtensorMap* tm_k,
                             const CUtensorMap* tm_v, const CUtensorMap* tm_do, const Params& p) {
  using namespace protocol;
  const int steps = w.steps;
  {
    auto c0 = Begin<kProtocol, WarpRole::producer, Section::prologue>{};
    auto c1 = arrive_expect_tx(c0, smem.bars, 0, steps, 2 * Config::kTileBytes);
    if (active(c1, 0, steps)) {
      std::uint64_t* bar = tma_barrier(c1, smem.bars, 0);
      load_tile(smem.k, tm_k, w.kv_row(), bar);
      load_tile(smem.v, tm_v, w.kv_row(), bar);
    }
    finish(expect<OpKind::tma_load>(c1));
  }

  for (int n = 0; n < steps; ++n) {
    auto c0 = Begin<kProtocol, WarpRole::producer, Section::loop>{};
    const int row = w.q_row(p, n);

    auto c1 = wait(c0, smem.bars, n, steps);  // qdo_empty: the stage's previous Q/dO read by the MMAs
    if constexpr (kProbe) sleep_ns(p.probe_ns[kProbeHandOver]);
    auto c2 = arrive_expect_tx(c1, smem.bars, n, steps, 2 * Config::kTileBytes);
    {
      std::uint64_t* bar = tma_barrier(c2, smem.bars, n);
      const int stage = buffer_instance<decltype(c2), Buf::qdo>(n);
      load_tile(smem.q[stage], tm_q, row, bar);
      load_tile(smem.d_out[stage], tm_do, row, bar);
    }
    auto c3 = expect<OpKind::tma_load>(c2);

    auto c4 = wait(c3, smem.bars, n, steps);  // stat_empty
    if constexpr (kProbe) sleep_ns(p.probe_ns[kProbeHandOver]);
    auto c5 = arrive_expect_tx(c4, smem.bars, n, steps, 2 * Config::kRowStatBytes);
    {
      std::uint64_t* bar = tma_barrier(c5, smem.bars, n);
      const int stage = buffer_instance<decltype(c5), Buf::stat>(n);
      bulk_load_1d(smem.lse[stage], p.lse + row, Config::kRowStatBytes, bar);
      bulk_load_1d(smem.delta[stage], p.delta + row, Config::kRowStatBytes, bar);
    }
    finish(expect<OpKind::tma_load>(c5));
  }
}

// Producer warp, all lanes, after run_producer: the tail (wait for the last tcgen05.commit
// on each Q/dO stage, which nothing else waits for) and the teardown barrier.
__device__ __forceinline__ void producer_teardown(std::uint64_t* bars, int steps) {
  using namespace protocol;
  const int it = steps;  // the epilogue's iteration: step_offset -d names step steps - d
  auto c0 = Begin<kProtocol, WarpRole::producer, Section::epilogue>{};
  auto c1 = wait(c0, bars, it, steps);  // qdo_empty of step N-3
  auto c2 = wait(c1, bars, it, steps);  // qdo_empty of step N-2
  auto c3 = wait(c2, bars, it, steps);  // qdo_empty of step N-1
  static_assert(decltype(c3)::op().always, "the teardown barrier runs whatever the step count");
  __syncthreads();
  finish(expect<OpKind::cta_sync>(c3));
}

}  // namespace vsa::sm100a::bwd
