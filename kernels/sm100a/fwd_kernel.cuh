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
#include "fwd_epilogue.cuh"
#include "fwd_mma.cuh"
#include "fwd_producer.cuh"
#include "kernel_prologue.cuh"

namespace vsa::sm100a::fwd {

// kProbe: the delay-probe variant (sleeps at the ProbeSlot hand-offs); the normal variant
// compiles every probe out.
template <bool kProbe>
__global__ void __launch_bounds__(Config::kThreads, 1)
    forward_kernel(const __grid_constant__ CUtensorMap tm_q, const __grid_constant__ CUtensorMap tm_k,
                   const __grid_constant__ CUtensorMap tm_v, const __grid_constant__ CUtensorMap tm_o, const Params p) {
  extern __shared__ unsigned char smem_raw[];
  auto& smem = storage_at_1024<SharedStorage>(smem_raw);
  const auto [warp, lane] = warp_place();
  const protocol::WarpRole role = warp_role(warp);
  const CUtensorMap* const maps[] = {&tm_q, &tm_k, &tm_v, &tm_o};
  const std::uint32_t tmem_base = kernel_prologue<kProtocol, Bar::count>(smem.bars, &smem.tmem_base, role, lane, maps);
  const WorkItem w = WorkItem::make(p);

  switch (role) {
    case protocol::WarpRole::softmax:
      run_softmax<kProbe>(smem, w, tmem_base, p, &tm_o, warp, lane);
      break;
    case protocol::WarpRole::producer:
      if (lane == 0) run_producer<kProbe>(smem, w, &tm_q, &tm_k, &tm_v, p);
      __syncwarp();
      producer_teardown<kProbe>(smem.bars, w.steps);
      break;
    case protocol::WarpRole::mma:
      if (lane == 0) run_mma<kProbe>(smem, w, tmem_base, p);
      __syncwarp();
      protocol::mma_teardown<kProtocol>(tmem_base);
      break;
  }
}

}  // namespace vsa::sm100a::fwd
