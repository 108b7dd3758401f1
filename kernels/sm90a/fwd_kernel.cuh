#pragma once
// The sm_90a forward kernel, as a table of contents:
//   storage, barriers, mailbox ........ fwd_storage.cuh
//   work order (longest first) ........ fwd_schedule.cuh, fwd_order_kernels.cuh (kernels before)
//   producer warps (TMA) .............. fwd_producer.cuh
//   pair tiles (kPair): union order ... fwd_pair_order.hpp, fwd_pair_ring.cuh, fwd_pair_producer.cuh
//   consumer warp groups (wgmma) ...... fwd_mainloop.cuh, fwd_softmax.cuh
//   epilogue (O, lse) ................. fwd_epilogue.cuh
//   host launch ....................... fwd_launch.cuh / fwd_launch.cu
//   the four-CTA layout (short items) . fwd_cta4_kernel.cuh (a kernel of its own)
//
// Persistent: one CTA per SM, each with two independent (producer warp, consumer warp
// group) pairs that take work items from the global scheduler until none is left.
// Pair tiles (kPair, an A/B variant): the CTA takes two query blocks of a head at a time, one
// per consumer group, and its two producer warps stream the K and V tiles of the union of
// their kv lists through one ring.
#include "fwd_mainloop.cuh"
#include "fwd_pair_producer.cuh"
#include "fwd_producer.cuh"
#include "fwd_storage.cuh"

namespace vsa::sm90a::fwd {

enum class WarpRole { producer, idle, consumer };

// warps 0..1   producer p feeds consumer slot p           (warp group 0, 24 registers)
// warps 2..3   idle: leave after giving their registers up
// warps 4..7   consumer slot 0                             (warp group 1, 240 registers)
// warps 8..11  consumer slot 1                             (warp group 2, 240 registers)
template <class Cfg>
__device__ __forceinline__ constexpr WarpRole warp_role(int warp) {
  if (warp < Cfg::kConsumers) return WarpRole::producer;
  if (warp < 4) return WarpRole::idle;
  return WarpRole::consumer;
}

template <class Cfg, bool kPair>
__device__ __forceinline__ void init_barriers(SharedStorage<Cfg>& smem) {
  // Pair tiles: both groups (or the producer for a group that does not own the stage) release.
  constexpr std::uint32_t kEmpty = kPair ? PairRing<Cfg>::kEmptyArrivals : kConsumerWarps;
  for (int c = 0; c < Cfg::kConsumers; ++c) {
    SlotBarriers<Cfg>& b = smem.bars[c];
    mbar_init(&b.q_full, 1);
    mbar_init(&b.q_empty, kConsumerWarps);
    if constexpr (Cfg::kSplitQ) {
      mbar_init(&smem.q1[c].full, 1);
      mbar_init(&smem.q1[c].empty, kConsumerWarps);
    }
    for (int s = 0; s < Cfg::kStages; ++s) {
      mbar_init(&b.k_full[s], 2);  // the TMA's expect-tx arrival, then the kv_valid write's
      mbar_init(&b.v_full[s], 1);
      mbar_init(&b.k_empty[s], kEmpty);
      mbar_init(&b.v_empty[s], kEmpty);
    }
  }
  mbar_init_fence();
}

// kProbe: the delay-probe variant (sleeps at the ProbeSlot hand-offs); the normal variant
// compiles the probes out entirely.
template <class Cfg, bool kProbe, bool kPair>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    forward_kernel(const __grid_constant__ CUtensorMap tm_q, const __grid_constant__ CUtensorMap tm_k,
                   const __grid_constant__ CUtensorMap tm_v, const Params p) {
  extern __shared__ unsigned char smem_raw[];
  const std::uint32_t raw = smem_addr(smem_raw);
  auto& smem = *reinterpret_cast<SharedStorage<Cfg>*>(smem_raw + (((raw + 1023u) & ~1023u) - raw));

  const int warp = __shfl_sync(0xffffffffu, int(threadIdx.x) / 32, 0);
  if (threadIdx.x == 0) {
    init_barriers<Cfg, kPair>(smem);
    prefetch_tensor_map(&tm_q);
    prefetch_tensor_map(&tm_k);
    prefetch_tensor_map(&tm_v);
  }
  __syncthreads();

  // setmaxnreg is warp-group wide: one instruction per warp group, before the roles split.
  if (warp / 4 == 0) {
    setmaxnreg_dec<Cfg::kProducerRegs>();
    if constexpr (kPair) {
      if (warp == 0) run_pair_producer<Cfg, kProbe, true>(smem, &tm_q, &tm_k, p);
      if (warp == 1) run_pair_producer<Cfg, kProbe, false>(smem, &tm_q, &tm_v, p);
    } else if (warp_role<Cfg>(warp) == WarpRole::producer) {
      run_producer<Cfg, kProbe>(smem, warp, &tm_q, &tm_k, &tm_v, p);
    }
  } else {
    setmaxnreg_inc<Cfg::kConsumerRegs>();
    run_consumer<Cfg, kProbe, kPair>(smem, warp / 4 - 1, p);
  }
}

}  // namespace vsa::sm90a::fwd
