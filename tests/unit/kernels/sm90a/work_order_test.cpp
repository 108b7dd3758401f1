// The forward's work-order rule (kernels/sm90a/fwd_work_order.hpp): the choice the H200 A/Bs
// of runs 33b and 34 measured, pinned with an H200's literal figures (132 SMs, two consumer
// slots per CTA, B = 1, H = 8), so a change of the threshold or of the slot count fails here
// even though a wrong order would only cost speed on the device.
#include <gtest/gtest.h>

#include "kernels/sm90a/fwd_work_order.hpp"

namespace vsa::sm90a::fwd {
namespace {

constexpr int kSms = 132, kConsumers = 2;

WorkOrder rule_on_h200(int n_items) {
  const int grid = forward_grid(kSms, n_items, kConsumers);
  return work_order_for(OrderKind::kRule, n_items, grid, kConsumers);
}

TEST(Sm90aWorkOrder, GridIsOneCtaPerSmOrFewer) {
  EXPECT_EQ(forward_grid(kSms, 512, kConsumers), 132);
  EXPECT_EQ(forward_grid(kSms, 128, kConsumers), 64);
  EXPECT_EQ(forward_grid(kSms, 1, kConsumers), 1);
}

TEST(Sm90aWorkOrder, RuleOnAnH200) {
  // S = 4096, H = 8: 512 items, a first wave of 264 in natural order, 248 sorted.
  EXPECT_EQ(rule_on_h200(512).natural_first, 264);
  EXPECT_FALSE(rule_on_h200(512).head_segments);
  // The boundary: four waves of 264 slots.
  EXPECT_EQ(rule_on_h200(1056).natural_first, 264);
  EXPECT_FALSE(rule_on_h200(1056).head_segments);
  EXPECT_EQ(rule_on_h200(1057).natural_first, 0);
  EXPECT_TRUE(rule_on_h200(1057).head_segments);
  // S = 16384 and 65536, H = 8: head segments, nothing in natural order.
  for (int n : {2048, 8192}) {
    EXPECT_EQ(rule_on_h200(n).natural_first, 0) << n;
    EXPECT_TRUE(rule_on_h200(n).head_segments) << n;
  }
  // Fewer items than one wave: all of them in natural order, nothing left to sort.
  EXPECT_EQ(rule_on_h200(128).natural_first, 128);
}

TEST(Sm90aWorkOrder, OverridesIgnoreTheSize) {
  const int slots = kSms * kConsumers;
  for (int n : {1, slots, 100 * slots}) {
    EXPECT_EQ(choose_work_order(OrderKind::kLongestFirst, n, slots).natural_first, 0);
    EXPECT_FALSE(choose_work_order(OrderKind::kLongestFirst, n, slots).head_segments);
    EXPECT_EQ(choose_work_order(OrderKind::kFirstWave, n, slots).natural_first, n < slots ? n : slots);
    EXPECT_FALSE(choose_work_order(OrderKind::kFirstWave, n, slots).head_segments);
    EXPECT_EQ(choose_work_order(OrderKind::kHeadSegments, n, slots).natural_first, 0);
    EXPECT_TRUE(choose_work_order(OrderKind::kHeadSegments, n, slots).head_segments);
  }
}

TEST(Sm90aWorkOrder, EnvironmentPicksOneOverride) {
  EXPECT_EQ(parse_order_env({}).kind, OrderKind::kRule);
  EXPECT_TRUE(parse_order_env({}).error.empty());
  OrderEnv e;
  e.longest_first = "1";
  EXPECT_EQ(parse_order_env(e).kind, OrderKind::kLongestFirst);
  e = {};
  e.first_wave = "1";
  EXPECT_EQ(parse_order_env(e).kind, OrderKind::kFirstWave);
  e = {};
  e.head_segments = "1";
  EXPECT_EQ(parse_order_env(e).kind, OrderKind::kHeadSegments);
  e = {};
  e.pair_tiles = "1";
  EXPECT_EQ(parse_order_env(e).kind, OrderKind::kPairTiles);
  e = {};
  e.head_segments = "0";  // set but off: the default
  EXPECT_EQ(parse_order_env(e).kind, OrderKind::kRule);
  EXPECT_TRUE(parse_order_env(e).error.empty());
}

TEST(Sm90aWorkOrder, RemovedOrConflictingSwitchesAreErrorsNamingThem) {
  OrderEnv e;
  e.natural_order = "1";
  EXPECT_NE(parse_order_env(e).error.find("VSA_SM90A_FWD_NATURAL_ORDER"), std::string::npos);
  e = {};
  e.order_rule = "1";
  EXPECT_NE(parse_order_env(e).error.find("VSA_SM90A_FWD_ORDER_RULE"), std::string::npos);
  e = {};
  e.first_wave = "1";
  e.head_segments = "1";
  EXPECT_NE(parse_order_env(e).error.find("at most one"), std::string::npos);
  // Pair tiles sort nothing, so an order switch beside them would be silently ignored.
  e = {};
  e.pair_tiles = "1";
  e.longest_first = "1";
  EXPECT_NE(parse_order_env(e).error.find("VSA_SM90A_FWD_PAIR_TILES"), std::string::npos);
}

}  // namespace
}  // namespace vsa::sm90a::fwd
