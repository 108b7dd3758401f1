#pragma once
// Producer role (warp 4, lane 0) of the blk128 forward: TMA loads of Q once, then per kv
// step the K and V tiles (128 rows each) into the stage the table's ring names.
#include "fwd128_storage.cuh"
#include "protocol_cursor.cuh"

namespace vsa::sm100a::fwd128 {

// A 128 x 128 tile as two 128-row x 64-column boxes ([half][row][64]), completing on the
// barrier of the tma_load op at `c`.
template <class C>
__device__ __forceinline__ void load_tile(C c, std::uint64_t* bars, int iteration, bf16_bits* dst,
                                          const CUtensorMap* map, int row) {
#pragma unroll
  for (int h = 0; h < Config::kHalves; ++h)
    protocol::tma_load_tile(c, bars, iteration, dst + h * (Config::kHalfBytes / 2), map, h * Config::kHalfCols, row);
}

template <bool kProbe>
__device__ void run_producer(SharedStorage& smem, const WorkItem& w, const CUtensorMap* tm_q, const CUtensorMap* tm_k,
                             const CUtensorMap* tm_v, const Params& p) {
  using namespace protocol;
  const int steps = w.steps;
  {
    auto c0 = Begin<kProtocol, WarpRole::producer, Section::prologue, kProbe>{};
    auto c1 = arrive_expect_tx(c0, smem.bars, 0, steps, Config::kTileBytes);
    if (active(c1, 0, steps)) load_tile(c1, smem.bars, 0, smem.q, tm_q, w.item * Config::kBlock);
    finish(expect<OpKind::tma_load>(c1));
  }

  for (int n = 0; n < steps; ++n) {
    auto c0 = Begin<kProtocol, WarpRole::producer, Section::loop, kProbe>{};
    const int row = w.head_row + w.kv_block(p, n) * Config::kBlock;

    auto c1 = wait(c0, smem.bars, n, steps);  // k_empty
    if constexpr (kProbe) probe_delay(p, kProbeRefillKv);
    auto c2 = arrive_expect_tx(c1, smem.bars, n, steps, Config::kTileBytes);
    load_tile(c2, smem.bars, n, smem.k[buffer_instance<decltype(c2), Buf::k>(n)], tm_k, row);
    auto c3 = expect<OpKind::tma_load>(c2);

    auto c4 = wait(c3, smem.bars, n, steps);  // v_empty
    auto c5 = arrive_expect_tx(c4, smem.bars, n, steps, Config::kTileBytes);
    load_tile(c5, smem.bars, n, smem.v[buffer_instance<decltype(c5), Buf::v>(n)], tm_v, row);
    finish(expect<OpKind::tma_load>(c5));
  }
}

// Producer warp, all lanes, after run_producer: the tail (wait for the last tcgen05.commit
// on each K and V stage, which nothing else waits for) and the teardown barrier.
template <bool kProbe>
__device__ __forceinline__ void producer_teardown(std::uint64_t* bars, int steps) {
  using namespace protocol;
  const int it = steps;  // the epilogue's iteration: step_offset -d names step steps - d
  auto c0 = Begin<kProtocol, WarpRole::producer, Section::epilogue, kProbe>{};
  auto c1 = wait(c0, bars, it, steps);  // k_empty of step N-2
  auto c2 = wait(c1, bars, it, steps);  // k_empty of step N-1
  auto c3 = wait(c2, bars, it, steps);  // v_empty of step N-2
  auto c4 = wait(c3, bars, it, steps);  // v_empty of step N-1
  finish(cta_sync(c4));
}

}  // namespace vsa::sm100a::fwd128
