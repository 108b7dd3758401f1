#pragma once
// Work order of the persistent forward kernel: longest first.
//
// A work item is one (b, h, query block) = index bh * nb + i, so its q2k_num entry is
// counts[item]. Items with more selected kv blocks go first and the persistent CTAs take
// the next item from a global counter as they free up (greedy longest-processing-time),
// so a few long rows at the end cannot leave most SMs idle. Items of equal length keep
// their natural order up to one chunk of kOrderThreads items: neighbouring query blocks
// of one head then run together and share that head's K/V in L2.
#include <cstdint>

#include "longest_first_sort.cuh"
#include "sm90a_common.cuh"

namespace vsa::sm90a::fwd {

inline constexpr int kOrderThreads = 1024;
using device::ItemCounts;
using device::OrderScratch;
using device::sort_longest_first;
// The forward's order kernel: one CTA sorts, and resets the scheduler counter for the
// kernel that follows. Lets that kernel (launched with programmatic stream serialization)
// start its prologue at once; it reads `order` only after griddepcontrol.wait. (A
// template only so that every translation unit that includes this header may define it.)
// `order_counts[k]` is the count of item `order[k]`, so the producer reads both at once.
// `counts` may start past item 0 (Params::natural_first) and carry head segments; the
// order then holds indices relative to its first item.
template <int kThreads = kOrderThreads>
__global__ void __launch_bounds__(kThreads)
    order_longest_first(ItemCounts counts, int n_items, int max_count, std::int32_t* order, std::int32_t* order_counts,
                        std::int32_t* next_work) {
  grid_launch_dependents();
  __shared__ OrderScratch scratch;
  if (threadIdx.x == 0) *next_work = 0;
  sort_longest_first<kThreads>(counts, n_items, max_count, order, scratch, order_counts);
}

// The kernel before the forward when nothing is sorted: resets the scheduler counter.
// The forward (programmatic dependent launch) waits for it only before its first counter
// access, after its fixed first items (fwd_producer.cuh).
__global__ void __launch_bounds__(32) reset_ticket_counter(std::int32_t* next_work) {
  grid_launch_dependents();
  if (threadIdx.x == 0) *next_work = 0;
}

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
