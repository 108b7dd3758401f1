#pragma once
// What every sm100a kernel does before its warps take their roles (fwd_kernel.cuh,
// bwd_kernel.cuh): the shared storage placed on a 1024-byte boundary,
// the warp's role, the table's barriers initialised, the producer's tensor maps
// prefetched, TMEM allocated by the MMA warp, and one CTA barrier between tcgen05 fences
// so the TMEM base address and the barriers are visible to every warp. The allocation
// takes its width from the protocol table, as mma_teardown's free does.
//
// This is the one place outside the protocol cursor that issues sm100a_ptx.cuh's detail
// instructions (tests/cli/sm100a_detail_callers.sh lists it): it runs before the warps
// take their roles, so no role script describes it; every script starts after its
// CTA barrier.
#include <cstdint>
#include <utility>

#include "protocol_cursor.cuh"
#include "sm100a_ptx.cuh"

namespace vsa::sm100a {

// The dynamic shared memory as the kernel's storage, its base rounded up to 1024 bytes
// (SWIZZLE_128B atoms and UMMA descriptors assume it; the launch asks 1 KiB extra).
template <class Storage>
__device__ __forceinline__ Storage& storage_at_1024(unsigned char* smem_raw) {
  const std::uint32_t raw = smem_addr(smem_raw);
  return *reinterpret_cast<Storage*>(smem_raw + (((raw + 1023u) & ~1023u) - raw));
}

// This thread's warp (made warp-uniform for the compiler) and lane.
struct WarpPlace {
  int warp;
  int lane;
};
__device__ __forceinline__ WarpPlace warp_place() {
  return {__shfl_sync(0xffffffffu, int(threadIdx.x) / 32, 0), int(threadIdx.x) % 32};
}

// The steps above from barrier initialisation on; returns the TMEM base address.
// kBarriers: the table's barrier count (its Bar::count).
template <const protocol::Protocol& kP, int kBarriers, std::size_t kMaps>
__device__ __forceinline__ std::uint32_t kernel_prologue(std::uint64_t* bars, std::uint32_t* tmem_base,
                                                         protocol::WarpRole role, int lane,
                                                         const CUtensorMap* const (&maps)[kMaps]) {
  if (threadIdx.x == 0) {
    protocol::init_all_barriers<kP>(bars, std::make_integer_sequence<int, kBarriers>{});
    detail::mbar_init_fence();
  }
  if (role == protocol::WarpRole::producer && lane == 0) {
#pragma unroll
    for (std::size_t i = 0; i < kMaps; ++i) detail::prefetch_tensor_map(maps[i]);
  }
  if (role == VSA_PLANT(dealloc_other_warp, protocol::WarpRole::mma, protocol::WarpRole::producer)) {
    detail::tmem_alloc(tmem_base, VSA_PLANT(tmem_overalloc, std::uint32_t(kP.tmem_alloc_columns), 1024u));
    detail::tmem_relinquish_alloc_permit();
  }
  detail::tc_fence_before_sync();
  __syncthreads();
  detail::tc_fence_after_sync();
  return ld_shared(tmem_base);
}

}  // namespace vsa::sm100a
