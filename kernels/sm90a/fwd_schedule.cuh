#pragma once
// The persistent forward's tickets: how a producer takes its next work item in the
// longest-first order (the sort itself, and the counter's reset: fwd_order_kernels.cuh).
//
// A work item is one (b, h, query block) = index bh * nb + i, so its q2k_num entry is
// counts[item]. Items with more selected kv blocks go first and the persistent CTAs take
// the next item from a global counter as they free up (greedy longest-processing-time),
// so a few long rows at the end cannot leave most SMs idle. Items of equal length keep
// their natural order up to one chunk of the sort's items: neighbouring query blocks of one
// head then run together and share that head's K/V in L2.
#include <cstdint>

#include "sm90a_common.cuh"

namespace vsa::sm90a::fwd {

// The kernels before the forward (the sort, the counter reset) are in fwd_order_kernels.cuh.

// Scheduler tickets: ticket t is the t-th item of the longest-first order. Each producer's
// first ticket is fixed by its CTA and slot, so the first item of a launch costs no round
// trip to the counter; later tickets come from the counter, numbered after the fixed ones
// (a producer claims one only when it can start loading it: greedy longest-first).
template <int kConsumers>
__device__ __forceinline__ int first_ticket(int slot) {
  return int(blockIdx.x) * kConsumers + slot;
}
template <int kConsumers>
__device__ __forceinline__ int next_ticket(std::int32_t* next_work, int lane) {
  int pos = 0;
  if (lane == 0) pos = atomicAdd(next_work, 1);
  return __shfl_sync(0xffffffffu, pos, 0) + int(gridDim.x) * kConsumers;
}

}  // namespace vsa::sm90a::fwd
