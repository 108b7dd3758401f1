#pragma once
// The sm100a-blk64 backward kernel, as a table of contents:
//   tile constants .................... bwd_config.hpp
//   roles, TMEM map, barriers, scripts  bwd_protocol.hpp (checked by tests/unit/sm100a_bwd_protocol_test.cpp)
//   kernel <-> table binding .......... protocol_cursor.cuh
//   params, work item, smem ........... bwd_storage.cuh
//   producer (TMA) .................... bwd_producer.cuh
//   MMA issue (tcgen05.mma) ........... bwd_mma.cuh
//   P^T, dS^T and the dK/dV epilogue .. bwd_dsoftmax.cuh
//   dQ partials -> fp32 accumulator ... bwd_dq_reduce.cuh
//   host launch (Delta, order, kernel, dQ postprocess)  bwd_launch.cu
//
// One CTA per (b, h, kv block), not persistent; from Config::kOrderFromItems items on the
// grid walks them longest k2q row first. UNVALIDATED: compiled and checked on paper only;
// it has never run on a Blackwell GPU (NOTES.md).
#include "bwd_dq_reduce.cuh"
#include "bwd_dsoftmax.cuh"
#include "bwd_mma.cuh"
#include "bwd_producer.cuh"
#include "kernel_prologue.cuh"

namespace vsa::sm100a::bwd {

// kProbe: the delay-probe variant (sleeps at the ProbeSlot hand-offs); the normal variant
// compiles every probe out.
template <bool kProbe>
__global__ void __launch_bounds__(Config::kThreads, 1)
    backward_kernel(const __grid_constant__ CUtensorMap tm_q, const __grid_constant__ CUtensorMap tm_k,
                    const __grid_constant__ CUtensorMap tm_v, const __grid_constant__ CUtensorMap tm_do,
                    const Params p) {
  extern __shared__ unsigned char smem_raw[];
  auto& smem = storage_at_1024<SharedStorage>(smem_raw);
  const auto [warp, lane] = warp_place();
  const protocol::WarpRole role = warp_role(warp);
  const CUtensorMap* const maps[] = {&tm_q, &tm_k, &tm_v, &tm_do};
  const std::uint32_t tmem_base = kernel_prologue<kProtocol, Bar::count>(smem.bars, &smem.tmem_base, role, lane, maps);
  const WorkItem w = WorkItem::make(p);

  switch (role) {
    case protocol::WarpRole::dsoftmax:
      run_dsoftmax<kProbe>(smem, w, tmem_base, p, warp, lane);
      break;
    case protocol::WarpRole::dq_reduce:
      run_dq_reduce<kProbe>(smem, w, tmem_base, p, warp, lane);
      break;
    case protocol::WarpRole::producer:
      if (lane == 0) run_producer<kProbe>(smem, w, &tm_q, &tm_k, &tm_v, &tm_do, p);
      __syncwarp();
      producer_teardown<kProbe>(smem.bars, w.steps);
      break;
    case protocol::WarpRole::mma:
      if (lane == 0) (void)run_mma<kProbe>(smem, w, tmem_base, p);
      __syncwarp();
      // The teardown starts where run_mma's cursor stopped (after dkdv_done).
      protocol::mma_teardown(decltype(run_mma<kProbe>(smem, w, tmem_base, p)){}, tmem_base);
      break;
    default:
      break;
  }
}

}  // namespace vsa::sm100a::bwd
