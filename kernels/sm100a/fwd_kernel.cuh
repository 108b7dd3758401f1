#pragma once
// The sm100a forward kernels (sm100a-blk64 and sm100a-blk128), as a table of contents:
//   tile constants (Blk64, Blk128) .... fwd_config.hpp
//   roles, TMEM map, barriers, scripts  fwd_protocol.hpp (checked by tests/unit/kernels/sm100a/
//                                       fwd_protocol_test.cpp, fwd128_protocol_test.cpp)
//   kernel <-> table binding .......... protocol_cursor.cuh
//   params, work item, smem ........... fwd_storage.cuh
//   producer (TMA) .................... fwd_producer.cuh
//   MMA issue (tcgen05.mma) ........... fwd_mma.cuh
//   softmax + O correction ............ fwd_softmax.cuh
//   epilogue (O, lse) ................. fwd_epilogue.cuh
//   host launch ....................... fwd_launch.cu (blk64), fwd128_launch.cu (blk128)
//
// One set of roles, templates over the tile config T: blk64 runs one CTA per pair of
// 64-row q blocks, blk128 one CTA per 128-row q block (no persistence). UNVALIDATED:
// compiled and checked on paper only; neither has run on a Blackwell GPU (NOTES.md).
#include "fwd_epilogue.cuh"
#include "fwd_mma.cuh"
#include "fwd_producer.cuh"
#include "kernel_prologue.cuh"

namespace vsa::sm100a::fwd {

// The kernel body: set-up, then each warp's role. kProbe: the delay-probe variant (sleeps
// at the ProbeSlot hand-offs, waits bounded by the hang watch); the normal variant
// compiles every probe and the watch out.
template <class T, bool kProbe>
__device__ __forceinline__ void forward_roles(unsigned char* smem_raw, const CUtensorMap& tm_q, const CUtensorMap& tm_k,
                                              const CUtensorMap& tm_v, const CUtensorMap& tm_o, const Params& p) {
  auto& smem = storage_at_1024<SharedStorage<T>>(smem_raw);
  const auto [warp, lane] = warp_place();
  const protocol::WarpRole role = warp_role(warp);
  const CUtensorMap* const maps[] = {&tm_q, &tm_k, &tm_v, &tm_o};
  const std::uint32_t tmem_base =
      kernel_prologue<ProtocolOf<T>::value, Bar::count>(smem.bars, &smem.tmem_base, role, lane, maps);
  const WorkItem<T> w = WorkItem<T>::make(p);

  switch (role) {
    case protocol::WarpRole::softmax:
      run_softmax<kProbe>(smem, w, tmem_base, p, &tm_o, warp, lane);
      break;
    case protocol::WarpRole::producer:
      if (lane == 0) run_producer<kProbe>(smem, w, &tm_q, &tm_k, &tm_v, p);
      __syncwarp();
      producer_teardown<kProbe, T>(smem.bars, w.steps);
      break;
    case protocol::WarpRole::mma:
      if (lane == 0) run_mma<kProbe>(smem, w, tmem_base, p);
      __syncwarp();
      protocol::mma_teardown<ProtocolOf<T>::value>(tmem_base);
      break;
  }
}

// The sm100a-blk64 kernel. Each entry point declares its own dynamic shared memory (the
// execution model gives each kernel namespace its own array, sized for that kernel).
template <bool kProbe>
__global__ void __launch_bounds__(Blk64::kThreads, 1)
    forward_kernel(const __grid_constant__ CUtensorMap tm_q, const __grid_constant__ CUtensorMap tm_k,
                   const __grid_constant__ CUtensorMap tm_v, const __grid_constant__ CUtensorMap tm_o, const Params p) {
  extern __shared__ unsigned char smem_raw[];
  forward_roles<Blk64, kProbe>(smem_raw, tm_q, tm_k, tm_v, tm_o, p);
}

}  // namespace vsa::sm100a::fwd

// The sm100a-blk128 kernel: the same roles over Blk128. Its own namespace keeps the symbol
// (vsa::sm100a::fwd128::forward_kernel<bool>) that KernelInfo, `lint --against` and earlier
// reports name.
namespace vsa::sm100a::fwd128 {

template <bool kProbe>
__global__ void __launch_bounds__(fwd::Blk128::kThreads, 1)
    forward_kernel(const __grid_constant__ CUtensorMap tm_q, const __grid_constant__ CUtensorMap tm_k,
                   const __grid_constant__ CUtensorMap tm_v, const __grid_constant__ CUtensorMap tm_o,
                   const fwd::Params p) {
  extern __shared__ unsigned char smem_raw[];
  fwd::forward_roles<fwd::Blk128, kProbe>(smem_raw, tm_q, tm_k, tm_v, tm_o, p);
}

}  // namespace vsa::sm100a::fwd128
