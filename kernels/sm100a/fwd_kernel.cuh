#pragma once
// The sm100a-blk64 forward kernel, as a table of contents:
//   tile constants .................... fwd_config.hpp
//   roles, TMEM map, barriers, scripts  fwd_protocol.hpp (checked by tests/unit/sm100a_protocol_test.cpp)
//   kernel <-> table binding .......... protocol_cursor.cuh
//   params, work item, smem ........... fwd_storage.cuh
//   producer (TMA) .................... fwd_producer.cuh
//   MMA issue (tcgen05.mma) ........... fwd_mma.cuh
//   softmax + O correction ............ fwd_softmax.cuh
//   epilogue (O, lse) ................. fwd_epilogue.cuh
//   host launch ....................... fwd_launch.cu
//
// One CTA per pair of q blocks (no persistence). UNVALIDATED: compiled and checked on
// paper only; it has never run on a Blackwell GPU (NOTES.md).
#include <utility>

#include "fwd_epilogue.cuh"
#include "fwd_mma.cuh"
#include "fwd_producer.cuh"

namespace vsa::sm100a::fwd {

// kProbe: the delay-probe variant (sleeps at the ProbeSlot hand-offs); the normal variant
// compiles every probe out.
template <bool kProbe>
__global__ void __launch_bounds__(Config::kThreads, 1)
    forward_kernel(const __grid_constant__ CUtensorMap tm_q, const __grid_constant__ CUtensorMap tm_k,
                   const __grid_constant__ CUtensorMap tm_v, const __grid_constant__ CUtensorMap tm_o,
                   const Params p) {
  extern __shared__ unsigned char smem_raw[];
  const std::uint32_t raw = smem_addr(smem_raw);
  auto& smem = *reinterpret_cast<SharedStorage*>(smem_raw + (((raw + 1023u) & ~1023u) - raw));

  const int warp = __shfl_sync(0xffffffffu, int(threadIdx.x) / 32, 0);
  const int lane = int(threadIdx.x) % 32;
  const protocol::WarpRole role = warp_role(warp);

  if (threadIdx.x == 0) {
    protocol::init_all_barriers<kProtocol>(smem.bars, std::make_integer_sequence<int, Bar::count>{});
    mbar_init_fence();
  }
  if (role == protocol::WarpRole::producer && lane == 0) {
    prefetch_tensor_map(&tm_q);
    prefetch_tensor_map(&tm_k);
    prefetch_tensor_map(&tm_v);
    prefetch_tensor_map(&tm_o);
  }
  if (role == protocol::WarpRole::mma) {
    tmem_alloc(&smem.tmem_base, kTmemAllocColumns);
    tmem_relinquish_alloc_permit();
  }
  // The TMEM base address (written by tcgen05.alloc) and the barriers, visible to all.
  tc_fence_before_sync();
  __syncthreads();
  tc_fence_after_sync();
  const std::uint32_t tmem_base = smem.tmem_base;
  const WorkItem w = WorkItem::make(p);

  switch (role) {
    case protocol::WarpRole::softmax:
      run_softmax<kProbe>(smem, w, tmem_base, p, &tm_o, warp, lane);
      break;
    case protocol::WarpRole::producer:
      if (lane == 0) run_producer<kProbe>(smem, w, &tm_q, &tm_k, &tm_v, p);
      __syncwarp();
      producer_teardown(smem.bars, w.steps);
      break;
    case protocol::WarpRole::mma:
      if (lane == 0) run_mma<kProbe>(smem, w, tmem_base, p);
      __syncwarp();
      protocol::mma_teardown<kProtocol>(tmem_base);
      break;
  }
}

}  // namespace vsa::sm100a::fwd
