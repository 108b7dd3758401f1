#pragma once
// Producer role (warp 4, lane 0): TMA loads of Q once, then per kv step the K and V tiles
// of the blocks still active at that step into the stage the table's ring names.
#include "fwd_storage.cuh"
#include "protocol_cursor.cuh"

namespace vsa::sm100a::fwd {

// A kBlock x 128 tile as two kBlock-row x 64-column boxes ([half][row][64]), completing on
// the barrier of the tma_load op at `c`.
template <class T, class C>
__device__ __forceinline__ void load_tile(C c, std::uint64_t* bars, int iteration, bf16_bits* dst,
                                          const CUtensorMap* map, int row) {
#pragma unroll
  for (int h = 0; h < T::kHalves; ++h)
    protocol::tma_load_tile(c, bars, iteration, dst + h * (T::kHalfBytes / 2), map, h * T::kHalfCols, row);
}

template <bool kProbe, class T>
__device__ void run_producer(SharedStorage<T>& smem, const WorkItem<T>& w, const CUtensorMap* tm_q,
                             const CUtensorMap* tm_k, const CUtensorMap* tm_v, const Params& p) {
  using namespace protocol;
  const int steps = w.steps;

  // Prologue: Q of the blocks that have at least one step (a count-0 block's Q is never read).
  {
    auto c0 = Begin<ProtocolOf<T>::value, WarpRole::producer, Section::prologue, kProbe>{};
    std::uint32_t q_bytes = 0;
    for (int b = 0; b < T::kQBlocks; ++b)
      if (w.count_of(b) > 0) q_bytes += T::kTileBytes;
    auto c1 = arrive_expect_tx(c0, smem.bars, 0, steps, q_bytes);
    if (active(c1, 0, steps)) {
      for (int b = 0; b < T::kQBlocks; ++b)
        if (w.count_of(b) > 0) load_tile<T>(c1, smem.bars, 0, smem.q[b], tm_q, (w.item + b) * T::kBlock);
    }
    finish(expect<OpKind::tma_load>(c1));
  }

  for (int n = 0; n < steps; ++n) {
    auto c0 = Begin<ProtocolOf<T>::value, WarpRole::producer, Section::loop, kProbe>{};
    int row[T::kQBlocks];
    std::uint32_t bytes = 0;
    for (int b = 0; b < T::kQBlocks; ++b) {
      row[b] = w.active(b, n) ? w.head_row + w.kv_block(p, b, n) * T::kBlock : -1;
      if (w.active(b, n)) bytes += T::kTileBytes;
    }

    auto c1 = wait(c0, smem.bars, n, steps);  // k_empty: the stage's previous K read by the MMAs
    if constexpr (kProbe) probe_delay(p, kProbeRefillKv);
    auto c2 = arrive_expect_tx(c1, smem.bars, n, steps, VSA_PLANT(expect_tx_short, bytes, bytes - 16));
    {
      const int stage = buffer_instance<decltype(c2), Buf::k>(n);
      for (int b = 0; b < T::kQBlocks; ++b)
        if (w.active(b, n)) load_tile<T>(c2, smem.bars, n, smem.k[stage][b], tm_k, row[b]);
    }
    auto c3 = expect<OpKind::tma_load>(c2);

    auto c4 = wait(c3, smem.bars, n, steps);  // v_empty
    auto c5 = arrive_expect_tx(c4, smem.bars, n, steps, bytes);
    {
      const int stage = buffer_instance<decltype(c5), Buf::v>(n);
      for (int b = 0; b < T::kQBlocks; ++b)
        if (w.active(b, n)) load_tile<T>(c5, smem.bars, n, smem.v[stage][b], tm_v, row[b]);
    }
    finish(expect<OpKind::tma_load>(c5));
  }
}

// Producer warp, all lanes, after run_producer: the tail (wait for the last tcgen05.commit
// on each K and V stage, which nothing else waits for) and the teardown barrier.
template <bool kProbe, class T>
__device__ __forceinline__ void producer_teardown(std::uint64_t* bars, int steps) {
  using namespace protocol;
  const int it = steps;  // the epilogue's iteration: step_offset -d names step steps - d
  auto c0 = Begin<ProtocolOf<T>::value, WarpRole::producer, Section::epilogue, kProbe>{};
  auto c1 = wait(c0, bars, it, steps);  // k_empty of step N-2
  auto c2 = wait(c1, bars, it, steps);  // k_empty of step N-1
  auto c3 = wait(c2, bars, it, steps);  // v_empty of step N-2
  auto c4 = wait(c3, bars, it, steps);  // v_empty of step N-1
  finish(cta_sync(c4));
}

}  // namespace vsa::sm100a::fwd
