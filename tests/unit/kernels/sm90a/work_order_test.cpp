// The forward's work-order rule (kernels/sm90a/fwd_work_order.hpp): the choice the H200 A/Bs
// of runs 33b and 34 measured, pinned at its boundary and for each override.
#include <gtest/gtest.h>

#include <algorithm>

#include "kernels/sm90a/fwd_work_order.hpp"

namespace vsa::sm90a::fwd {
namespace {

constexpr int kSlots = 132 * 2;  // an H200's grid x two consumers

TEST(Sm90aWorkOrder, RuleTakesTheFirstWaveUpToFourWaves) {
  const WorkOrder at = choose_work_order(OrderKind::kRule, kRuleWaves * kSlots, kSlots);
  EXPECT_EQ(at.natural_first, kSlots);
  EXPECT_FALSE(at.head_segments);
  const WorkOrder above = choose_work_order(OrderKind::kRule, kRuleWaves * kSlots + 1, kSlots);
  EXPECT_EQ(above.natural_first, 0);
  EXPECT_TRUE(above.head_segments);
}

TEST(Sm90aWorkOrder, AFirstWaveNeverPassesTheItems) {
  // S = 4096 with 2 heads: fewer items than one wave, so nothing is left to sort.
  const WorkOrder w = choose_work_order(OrderKind::kRule, 128, kSlots);
  EXPECT_EQ(w.natural_first, 128);
  EXPECT_FALSE(w.head_segments);
}

TEST(Sm90aWorkOrder, OverridesIgnoreTheSize) {
  for (int n : {1, kSlots, 100 * kSlots}) {
    EXPECT_EQ(choose_work_order(OrderKind::kLongestFirst, n, kSlots).natural_first, 0);
    EXPECT_FALSE(choose_work_order(OrderKind::kLongestFirst, n, kSlots).head_segments);
    EXPECT_EQ(choose_work_order(OrderKind::kFirstWave, n, kSlots).natural_first, std::min(n, kSlots));
    EXPECT_FALSE(choose_work_order(OrderKind::kFirstWave, n, kSlots).head_segments);
    EXPECT_EQ(choose_work_order(OrderKind::kHeadSegments, n, kSlots).natural_first, 0);
    EXPECT_TRUE(choose_work_order(OrderKind::kHeadSegments, n, kSlots).head_segments);
  }
}

}  // namespace
}  // namespace vsa::sm90a::fwd
