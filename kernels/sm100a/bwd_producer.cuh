#pragma once
// Producer role (warp 8, lane 0): TMA loads of K_j, V_j once, then per step the Q_i, dO_i
// tiles and the lse_i, Delta_i rows of the step's q block into the stage the table's ring
// names.
#include "bwd_storage.cuh"
#include "protocol_cursor.cuh"

namespace vsa::sm100a::bwd {

// A 64 x 128 tile as two 64-column boxes ([half][row][64]), completing on the barrier of
// the tma_load op at `c`.
template <class C>
__device__ __forceinline__ void load_tile(C c, std::uint64_t* bars, int iteration, bf16_bits* dst,
                                          const CUtensorMap* map, int row) {
#pragma unroll
  for (int h = 0; h < Config::kHalves; ++h)
    protocol::tma_load_tile(c, bars, iteration, dst + h * (Config::kHalfBytes / 2), map, h * Config::kHalfCols, row);
}

template <bool kProbe>
__device__ void run_producer(SharedStorage& smem, const WorkItem& w, const CUtensorMap* tm_q, const CUtensorMap* tm_k,
                             const CUtensorMap* tm_v, const CUtensorMap* tm_do, const Params& p) {
  using namespace protocol;
  const int steps = w.steps;
  {
    auto c0 = Begin<kProtocol, WarpRole::producer, Section::prologue, kProbe>{};
    auto c1 = arrive_expect_tx(c0, smem.bars, 0, steps, 2 * Config::kTileBytes);
    if (active(c1, 0, steps)) {
      load_tile(c1, smem.bars, 0, smem.k, tm_k, w.kv_row());
      load_tile(c1, smem.bars, 0, smem.v, tm_v, w.kv_row());
    }
    finish(expect<OpKind::tma_load>(c1));
  }

  for (int n = 0; n < steps; ++n) {
    auto c0 = Begin<kProtocol, WarpRole::producer, Section::loop, kProbe>{};
    const int row = w.q_row(p, n);

    auto c1 = wait(c0, smem.bars, n, steps);  // qdo_empty: the stage's previous Q/dO read by the MMAs
    if constexpr (kProbe) probe_delay(p, kProbeHandOver);
    auto c2 = arrive_expect_tx(c1, smem.bars, n, steps, 2 * Config::kTileBytes);
    {
      const int stage = buffer_instance<decltype(c2), Buf::qdo>(n);
      load_tile(c2, smem.bars, n, smem.q[stage], tm_q, row);
      load_tile(c2, smem.bars, n, smem.d_out[stage], tm_do, row);
    }
    auto c3 = expect<OpKind::tma_load>(c2);

    auto c4 = wait(c3, smem.bars, n, steps);  // stat_empty
    if constexpr (kProbe) probe_delay(p, kProbeHandOver);
    auto c5 = arrive_expect_tx(c4, smem.bars, n, steps, 2 * Config::kRowStatBytes);
    {
      const int stage = buffer_instance<decltype(c5), Buf::stat>(n);
      bulk_load(c5, smem.bars, n, smem.lse[stage], p.lse + row, Config::kRowStatBytes);
      bulk_load(c5, smem.bars, n, smem.delta[stage], p.delta + row, Config::kRowStatBytes);
    }
    finish(expect<OpKind::tma_load>(c5));
  }
}

// Producer warp, all lanes, after run_producer: the tail (wait for the last tcgen05.commit
// on each Q/dO stage, which nothing else waits for) and the teardown barrier.
template <bool kProbe>
__device__ __forceinline__ void producer_teardown(std::uint64_t* bars, int steps) {
  using namespace protocol;
  const int it = steps;  // the epilogue's iteration: step_offset -d names step steps - d
  auto c0 = Begin<kProtocol, WarpRole::producer, Section::epilogue, kProbe>{};
  auto c1 = wait(c0, bars, it, steps);  // qdo_empty of step N-3
  auto c2 = wait(c1, bars, it, steps);  // qdo_empty of step N-2
  auto c3 = wait(c2, bars, it, steps);  // qdo_empty of step N-1
  finish(cta_sync(c3));
}

}  // namespace vsa::sm100a::bwd
