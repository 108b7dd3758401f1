// The forward timeline's reader (kernels/sm90a/trace_summary.hpp) on hand-made records:
// two slots, one of them starting late and doing two items. Every number it prints on the
// H200 comes from these few subtractions, so each is pinned here.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kernels/sm90a/trace_summary.hpp"

namespace vsa::sm90a {
namespace {

constexpr std::uint64_t kT0 = 1'000'000;  // globaltimer of the first start (ns)

void put(std::vector<std::uint64_t>& words, int slot, int stamp, std::uint64_t ns_after_t0, std::uint64_t cycles) {
  words[std::size_t(slot) * kTraceWords + 2 * std::size_t(stamp)] = kT0 + ns_after_t0;
  words[std::size_t(slot) * kTraceWords + 2 * std::size_t(stamp) + 1] = cycles;
}

std::vector<std::uint64_t> two_slots() {
  std::vector<std::uint64_t> w(3 * kTraceWords, 0);  // slot 2 never ran: all zero
  // slot 0: starts at t0, dependency at 2 us, one item: arrives 3 us, S at 3.5, done 10 us
  put(w, 0, kTraceConsumerStart, 0, 0);
  put(w, 0, kTraceDependency, 2000, 0);
  put(w, 0, trace_item_stamp(0, 0), 3000, 10000);
  put(w, 0, trace_item_stamp(0, 1), 3500, 0);
  put(w, 0, trace_item_stamp(0, 2), 10000, 10000 + 7000 * 2);  // 2 cycles per ns
  put(w, 0, kTraceConsumerEnd, 10500, 0);
  // slot 1: starts 1 us late, dependency 4 us; items [5, 9] and [10, 20] us
  put(w, 1, kTraceConsumerStart, 1000, 0);
  put(w, 1, kTraceDependency, 4000, 0);
  put(w, 1, trace_item_stamp(0, 0), 5000, 0);
  put(w, 1, trace_item_stamp(0, 1), 6000, 0);
  put(w, 1, trace_item_stamp(0, 2), 9000, 0);
  put(w, 1, trace_item_stamp(1, 0), 10000, 0);
  put(w, 1, trace_item_stamp(1, 1), 10200, 0);
  put(w, 1, trace_item_stamp(1, 2), 20000, 15000 * 2);
  return w;
}

TEST(Sm90aTraceSummary, ReadsStartsDependenciesItemsAndBoundaries) {
  const TraceSummary s = summarize_trace(two_slots());
  EXPECT_EQ(s.slots, 2);
  EXPECT_EQ(s.items, 3);
  EXPECT_DOUBLE_EQ(s.start_skew_max_us, 1.0);
  EXPECT_DOUBLE_EQ(s.dependency_med_us, 3.0);  // 2 and 4
  EXPECT_DOUBLE_EQ(s.dependency_max_us, 4.0);
  EXPECT_DOUBLE_EQ(s.first_arrival_med_us, 1.0);  // 3 - 2 and 5 - 4
  EXPECT_DOUBLE_EQ(s.first_scores_med_us, 0.5);   // 0.5, 1.0, 0.2
  EXPECT_DOUBLE_EQ(s.item_med_us, 7.0);           // 7, 4, 10
  EXPECT_DOUBLE_EQ(s.boundary_med_us, 1.0);       // slot 1: 10 - 9
  EXPECT_DOUBLE_EQ(s.last_done_med_us, 15.0);     // 10 and 20
  EXPECT_DOUBLE_EQ(s.last_done_max_us, 20.0);
  EXPECT_DOUBLE_EQ(s.clock_ghz, 2.0);  // slot 0: 14000 cycles in 7000 ns; slot 1: 30000 in 15000
}

// At S = 4096 the preprocess kernel is done before the backward's consumers start: the
// dependency reads as a small negative time, not as 2^64 ns.
TEST(Sm90aTraceSummary, ADependencyBeforeTheFirstStartIsNegative) {
  std::vector<std::uint64_t> w(kTraceWords, 0);
  put(w, 0, kTraceConsumerStart, 500, 0);
  w[2 * kTraceDependency] = kT0;  // 0.5 us before the start
  put(w, 0, trace_item_stamp(0, 0), 2500, 7);
  const BwdTraceSummary s = summarize_backward_trace(w, 10);
  EXPECT_DOUBLE_EQ(s.dependency_med_us, -0.5);
  EXPECT_DOUBLE_EQ(s.first_arrival_med_us, 2.5);
  EXPECT_DOUBLE_EQ(summarize_trace(w).dependency_med_us, -0.5);
}

TEST(Sm90aTraceSummary, AnEmptyTraceSaysNothingRan) {
  const TraceSummary s = summarize_trace(std::vector<std::uint64_t>(2 * kTraceWords, 0));
  EXPECT_EQ(s.slots, 0);
  EXPECT_EQ(s.items, 0);
  EXPECT_DOUBLE_EQ(s.last_done_max_us, 0.0);
}

// Backward records carry the item id in the arrival stamp's second word. Two slots, ids
// below 10 are kv items: slot 0 runs kv item 3 then q item 12, slot 1 kv item 5 only.
TEST(Sm90aTraceSummary, BackwardSplitsKvAndQItems) {
  std::vector<std::uint64_t> w(2 * kTraceWords, 0);
  put(w, 0, kTraceConsumerStart, 0, 0);
  put(w, 0, kTraceDependency, 1000, 0);
  put(w, 0, trace_item_stamp(0, 0), 2000, 3);
  put(w, 0, trace_item_stamp(0, 1), 12000, 0);
  put(w, 0, trace_item_stamp(0, 2), 13000, 0);
  put(w, 0, trace_item_stamp(1, 0), 13500, 12);
  put(w, 0, trace_item_stamp(1, 1), 20000, 0);
  put(w, 0, trace_item_stamp(1, 2), 20500, 0);
  put(w, 1, kTraceConsumerStart, 500, 0);
  put(w, 1, kTraceDependency, 1500, 0);
  put(w, 1, trace_item_stamp(0, 0), 4500, 5);
  put(w, 1, trace_item_stamp(0, 1), 16500, 0);
  put(w, 1, trace_item_stamp(0, 2), 18500, 0);
  const BwdTraceSummary s = summarize_backward_trace(w, 10);
  EXPECT_EQ(s.slots, 2);
  EXPECT_EQ(s.kv_items, 2);
  EXPECT_EQ(s.q_items, 1);
  EXPECT_DOUBLE_EQ(s.dependency_med_us, 1.25);
  EXPECT_DOUBLE_EQ(s.first_arrival_med_us, 2.0);  // 1.0 and 3.0
  EXPECT_DOUBLE_EQ(s.kv_gemms_med_us, 11.0);      // 10 and 12
  EXPECT_DOUBLE_EQ(s.kv_epilogue_med_us, 1.5);    // 1 and 2
  EXPECT_DOUBLE_EQ(s.q_gemms_med_us, 6.5);
  EXPECT_DOUBLE_EQ(s.q_epilogue_med_us, 0.5);
  EXPECT_DOUBLE_EQ(s.boundary_med_us, 0.5);
  EXPECT_DOUBLE_EQ(s.kv_last_done_max_us, 18.5);
  EXPECT_DOUBLE_EQ(s.kv_last_done_med_us, 15.75);
  EXPECT_DOUBLE_EQ(s.q_first_arrival_min_us, 13.5);
  EXPECT_DOUBLE_EQ(s.last_done_max_us, 20.5);
}

}  // namespace
}  // namespace vsa::sm90a
