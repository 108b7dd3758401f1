#pragma once
// The sm100a-blk128 forward kernel (128-token blocks), as a table of contents:
//   tile constants .................... fwd128_config.hpp
//   protocol (the blk64 forward's scripts, a 128-key TMEM map)  fwd128_protocol.hpp
//   params, work item, smem ........... fwd128_storage.cuh (params and probes: fwd_storage.cuh)
//   producer (TMA) .................... fwd128_producer.cuh
//   MMA issue (tcgen05.mma, M = 128) .. fwd128_mma.cuh
//   softmax, O correction, epilogue ... fwd128_softmax.cuh
//   host launch ....................... fwd128_launch.cu
//
// One CTA per q block (no persistence). UNVALIDATED: compiled and checked on paper only; it
// has never run on a Blackwell GPU (NOTES.md).
#include "fwd128_mma.cuh"
#include "fwd128_producer.cuh"
#include "fwd128_softmax.cuh"
#include "kernel_prologue.cuh"

namespace vsa::sm100a::fwd128 {

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
    default:
      break;
  }
}

}  // namespace vsa::sm100a::fwd128
