#pragma once
// Delay probes of the sm100a kernels' probe variants (DESIGN.md, "Finding races"): a probe
// point sleeps its slot's nanoseconds in the warps of its slot's mask (bit w = warp w of
// the CTA; 0 = every warp). The read-side points (after a full-barrier wait, before the
// read it guards) with a mask that picks some warps reproduce the seed's experiment: some
// consumers late between the wait and their read while the others release and the
// producer refills.
#include <cstdint>

#include "sm100a_ptx.cuh"

namespace vsa::sm100a {

// Params: a kernel's parameters with probe_ns[] and probe_warps[] of its slots.
template <class Params>
__device__ __forceinline__ void probe_delay(const Params& p, int slot) {
  std::uint32_t warp = threadIdx.x / 32;
  // Test the mask here, at the probe point: hoisted out of the role loops, each slot's
  // "does this warp sleep" stayed live across them and the backward's probe variant
  // spilled (56 bytes of stack at the 168-register cap).
  asm volatile("" : "+r"(warp));
  const std::uint32_t mask = p.probe_warps[slot];
  if (mask == 0 || ((mask >> warp) & 1u) != 0) sleep_ns(p.probe_ns[slot]);
}

}  // namespace vsa::sm100a
