#pragma once
// Kernel timeline ("trace") of the sm90a kernels, a developer tool: where a small
// problem's time goes (launch skew, the order kernel's dependency, the first loads, each
// item, the item boundaries, the tail). Plain C++ so host code can read the layout.
//
// Only a recording variant of a kernel records (ForwardArgs::trace or BackwardArgs::trace
// non-null selects it, variant.hpp): the trace-only variant (the normal code plus the stamps:
// the forward's tile_config.hpp TraceOnly, the backward's kStamps) where no probe or hang
// watch is asked for, else the probe variant. The timed kernels carry none of it. One record of kTraceWords
// words per consumer slot (blockIdx.x * consumers + slot), in both kernels each consumer
// runs its own items. Each stamp is two words: %globaltimer
// (ns, one clock for every SM) and clock64 (this SM's cycles), except the backward's item
// arrival, whose second word is the item id (kv or q item). Unwritten stamps stay zero.
#include <cstddef>
#include <cstdint>

namespace vsa::sm90a {

inline constexpr int kTraceItems = 20;  // items stamped per slot; later ones are not recorded
enum TraceStamp : int {
  kTraceConsumerStart = 0,  // consumer warp group after setmaxnreg
  kTraceDependency = 1,     // its producer passed griddepcontrol.wait (order kernel done)
  kTraceConsumerEnd = 2,    // consumer saw the end of work
  // item k: 3 + 3k arrival (forward: Q and mailbox; backward: mailbox and resident tiles),
  // 4 + 3k forward: first S done / backward: the item's GEMMs done, 5 + 3k epilogue done
  kTraceFirstItem = 3,
  kTraceStampsPerItem = 3,
  kTraceStamps = kTraceFirstItem + kTraceStampsPerItem * kTraceItems,
};
inline constexpr int kTraceWords = 2 * kTraceStamps;

// Consumer slots a CTA records, per kernel (static_asserts beside each kernel hold them to its
// layouts): the forward's three-group layout has three (tile_config.hpp), the backward two.
inline constexpr int kForwardTraceSlotsPerCta = 3;
inline constexpr int kBackwardTraceSlotsPerCta = 2;

// Words of a timeline buffer (zeroed by the caller) for a kernel whose grid has at most `sms`
// CTAs, as both persistent grids do: one record per consumer slot.
[[nodiscard]] constexpr std::size_t trace_buffer_words(int sms, int slots_per_cta) {
  return std::size_t(sms) * std::size_t(slots_per_cta) * std::size_t(kTraceWords);
}

[[nodiscard]] constexpr int trace_item_stamp(int item_index, int which) {
  return kTraceFirstItem + kTraceStampsPerItem * item_index + which;
}

#if defined(__CUDACC__)
// One stamp into `record` (a slot's kTraceWords words): the global time and `value`.
__device__ __forceinline__ void trace_stamp_value(std::uint64_t* record, int stamp, std::uint64_t value) {
  if (record == nullptr || stamp >= kTraceStamps) return;
  std::uint64_t ns;
  asm volatile("mov.u64 %0, %%globaltimer;\n" : "=l"(ns));
  record[2 * stamp] = ns;
  record[2 * stamp + 1] = value;
}
// The same with this SM's cycle counter as the value.
__device__ __forceinline__ void trace_stamp(std::uint64_t* record, int stamp) {
  trace_stamp_value(record, stamp, std::uint64_t(clock64()));
}
#endif

}  // namespace vsa::sm90a
