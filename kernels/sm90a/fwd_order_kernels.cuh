#pragma once
// The kernels launched before the forward (fwd_launch.cuh): the longest-first sort of the
// items, or only the reset of the scheduler counter. Apart from fwd_schedule.cuh, whose device
// functions the producer includes (and through it fwd_kernel.cuh), because a non-template
// __global__ defined in a header is defined again by every translation unit that includes it,
// and a second one then fails to link. Only the host launch includes this header (one translation unit,
// fwd_launch.cu).
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
// start its prologue at once; it reads `order` only after griddepcontrol.wait.
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

}  // namespace vsa::sm90a::fwd
