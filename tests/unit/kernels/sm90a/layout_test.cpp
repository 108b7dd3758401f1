// The forward's layout rule (kernels/sm90a/fwd_layout.hpp): three consumer groups only for
// items of at least 64 blocks (max_kv) in launches of at least seven waves of the three-group
// grid. Pinned with the H200's measured cases (132 SMs; notes/runs.md runs 42-43), so a change of either
// threshold fails here even though a wrong choice would only cost speed on the device.
#include <gtest/gtest.h>

#include "kernels/sm90a/fwd_layout.hpp"

namespace vsa::sm90a::fwd {
namespace {

constexpr int kSms = 132;

// Random top-k at density d: max_kv = d x S / 64 blocks, B x H x S / 64 items.
Layout topk_on_h200(std::int64_t seq, double density, std::int64_t heads) {
  const std::int64_t blocks = seq / 64;
  return layout_by_rule(int(density * double(blocks)), heads * blocks, kSms);
}

TEST(Sm90aLayout, MeasuredCasesGetTheFasterLayout) {
  // B = 1, H = 8: three groups measured ahead with >= 3072 items, behind at 16384 and 4096,
  // which the wave count (2048 and 512 items) keeps on two groups.
  EXPECT_EQ(topk_on_h200(65536, 0.25, 8), Layout::kThreeGroups);   // k 256: 1.05-1.06
  EXPECT_EQ(topk_on_h200(65536, 0.125, 8), Layout::kThreeGroups);  // k 128: 1.04-1.05
  EXPECT_EQ(topk_on_h200(131072, 0.25, 8), Layout::kThreeGroups);  // k 512: 1.05
  EXPECT_EQ(topk_on_h200(49152, 0.25, 8), Layout::kThreeGroups);   // k 192: 1.04-1.05
  EXPECT_EQ(topk_on_h200(32768, 0.25, 8), Layout::kThreeGroups);   // k 128, 4096 items: 1.02-1.04
  EXPECT_EQ(topk_on_h200(24576, 0.25, 8), Layout::kThreeGroups);   // k 96, 3072 items: 1.05-1.16
  EXPECT_EQ(topk_on_h200(16384, 0.25, 8), Layout::kTwoGroups);     // k 64, 2048 items: 0.92
  EXPECT_EQ(topk_on_h200(16384, 0.125, 8), Layout::kTwoGroups);    // k 32, 2048 items: 0.90
  EXPECT_EQ(topk_on_h200(4096, 0.25, 8), Layout::kTwoGroups);      // k 16, 512 items: 0.72
  // Few heads at 65536, k 256: 1024 items 0.98, 2048 items 0.91-0.93.
  EXPECT_EQ(topk_on_h200(65536, 0.25, 1), Layout::kTwoGroups);
  EXPECT_EQ(topk_on_h200(65536, 0.25, 2), Layout::kTwoGroups);
  // Many heads: k 64 with 8192 items gains (1.03-1.06); k 8 and 16 do not (4096 items:
  // 0.99-1.0), k 8 with 2048 items loses (0.95), and k 32 is split (0.94-1.08 with 4096
  // items, 1.03-1.09 with 8192), so it stays on two groups.
  EXPECT_EQ(topk_on_h200(16384, 0.25, 32), Layout::kThreeGroups);
  EXPECT_EQ(topk_on_h200(16384, 0.125, 16), Layout::kTwoGroups);
  EXPECT_EQ(topk_on_h200(16384, 0.125, 32), Layout::kTwoGroups);  // 1.03-1.09, left: no k = 32 threshold placed
  EXPECT_EQ(topk_on_h200(4096, 0.25, 64), Layout::kTwoGroups);
  EXPECT_EQ(topk_on_h200(4096, 0.125, 64), Layout::kTwoGroups);
  EXPECT_EQ(topk_on_h200(4096, 0.125, 32), Layout::kTwoGroups);
  // B = 2 doubles the items: 16384 (4096 items, k 64) 1.03, 65536 1.04-1.07.
  EXPECT_EQ(topk_on_h200(16384, 0.25, 2 * 8), Layout::kThreeGroups);
  EXPECT_EQ(topk_on_h200(65536, 0.25, 2 * 8), Layout::kThreeGroups);
}

TEST(Sm90aLayout, Thresholds) {
  // Seven waves of 132 x 3 slots: 2772 items.
  EXPECT_EQ(layout_by_rule(256, 2771, kSms), Layout::kTwoGroups);
  EXPECT_EQ(layout_by_rule(256, 2772, kSms), Layout::kThreeGroups);
  EXPECT_EQ(layout_by_rule(63, 8192, kSms), Layout::kTwoGroups);
  EXPECT_EQ(layout_by_rule(64, 8192, kSms), Layout::kThreeGroups);
  // The waves scale with the SM count.
  EXPECT_EQ(layout_by_rule(256, 2772, 2 * kSms), Layout::kTwoGroups);
}

TEST(Sm90aLayout, EnvironmentForcesEitherLayoutOrNamesABadValue) {
  EXPECT_FALSE(parse_layout_env(nullptr).forced);
  EXPECT_FALSE(parse_layout_env("").forced);
  const LayoutOverride one = parse_layout_env("1");
  EXPECT_TRUE(one.forced);
  EXPECT_EQ(one.layout, Layout::kThreeGroups);
  const LayoutOverride zero = parse_layout_env("0");
  EXPECT_TRUE(zero.forced);
  EXPECT_EQ(zero.layout, Layout::kTwoGroups);
  const LayoutOverride bad = parse_layout_env("yes");
  EXPECT_FALSE(bad.forced);
  EXPECT_NE(bad.error.find("'yes'"), std::string::npos) << bad.error;
}

// Pinned with run 62's H100 cases (132 SMs, 528 four-CTA slots; notes/runs.md): four CTAs per
// SM only for items of at most 8 blocks in a launch of at most one wave of them.
TEST(Sm90aLayout, FourCtasForShortItemsInOneWave) {
  const auto four = [](std::int64_t seq, double density, std::int64_t heads) {
    const std::int64_t blocks = seq / 64;
    return four_ctas_by_rule(int(density * double(blocks)), heads * blocks, kSms);
  };
  EXPECT_TRUE(four(4096, 0.0625, 8));   // k 4, 512 items: 1.09-1.10
  EXPECT_TRUE(four(4096, 0.125, 8));    // k 8, 512 items: 1.02-1.06
  EXPECT_TRUE(four(2048, 0.25, 16));    // k 8, 512 items: 1.06
  EXPECT_FALSE(four(4096, 0.25, 8));    // k 16, 512 items: 0.97-0.98
  EXPECT_FALSE(four(8192, 0.0625, 8));  // k 8, 1024 items: 0.98-0.99
  EXPECT_FALSE(four(8192, 0.125, 8));   // k 16, 1024 items: 0.98
  EXPECT_FALSE(four(4096, 0.125, 32));  // k 8, 2048 items: 0.97
  EXPECT_FALSE(four(16384, 0.125, 8));  // k 32, 2048 items: 0.99
  // The edges: one wave is 4 x SMs items; 8 blocks, not 9.
  EXPECT_TRUE(four_ctas_by_rule(8, 528, kSms));
  EXPECT_FALSE(four_ctas_by_rule(8, 529, kSms));
  EXPECT_FALSE(four_ctas_by_rule(9, 64, kSms));
  EXPECT_TRUE(four_ctas_by_rule(8, 1056, 2 * kSms));
}

TEST(Sm90aLayout, FourCtasForcedEitherWayOrABadValueIsNamed) {
  EXPECT_FALSE(parse_four_ctas_env(nullptr).forced);
  EXPECT_FALSE(parse_four_ctas_env("").forced);
  const FourCtasChoice zero = parse_four_ctas_env("0");
  EXPECT_TRUE(zero.forced);
  EXPECT_FALSE(zero.on);
  const FourCtasChoice one = parse_four_ctas_env("1");
  EXPECT_TRUE(one.forced);
  EXPECT_TRUE(one.on);
  const FourCtasChoice bad = parse_four_ctas_env("4");
  EXPECT_FALSE(bad.forced);
  EXPECT_NE(bad.error.find("VSA_SM90A_FWD_FOUR_CTAS='4'"), std::string::npos) << bad.error;
}

// The whole decision (fwd_launch.cuh calls nothing else): the rule only where nothing else was
// asked; forcing it against a layout, an order or a timeline is an error naming both.
TEST(Sm90aLayout, FourCtasDecisionOverEveryInput) {
  FourCtasAsk short_items;  // a case the rule takes: k 8, one wave
  short_items.max_kv = 8;
  short_items.n_items = 512;
  short_items.sm_count = kSms;
  EXPECT_TRUE(decide_four_ctas(short_items).four);
  FourCtasAsk long_items = short_items;
  long_items.max_kv = 16;
  EXPECT_FALSE(decide_four_ctas(long_items).four);

  // Unforced: a timeline, another layout or an order keeps the rule out, with no error.
  for (auto set : {&FourCtasAsk::trace, &FourCtasAsk::other_layout_forced, &FourCtasAsk::order_forced}) {
    FourCtasAsk a = short_items;
    a.*set = true;
    const FourCtasDecision d = decide_four_ctas(a);
    EXPECT_FALSE(d.four);
    EXPECT_TRUE(d.error.empty()) << d.error;
  }
  // Forced off: never, whatever the rule says.
  FourCtasAsk off = short_items;
  off.env = parse_four_ctas_env("0");
  EXPECT_FALSE(decide_four_ctas(off).four);
  EXPECT_TRUE(decide_four_ctas(off).error.empty());
  // Forced on: runs where the rule would not, and refuses what it cannot honour.
  FourCtasAsk on = long_items;
  on.env = parse_four_ctas_env("1");
  EXPECT_TRUE(decide_four_ctas(on).four);
  const struct {
    bool FourCtasAsk::*set;
    const char* named;
  } refusals[] = {{&FourCtasAsk::other_layout_forced, "VSA_SM90A_FWD_THREE_GROUPS"},
                  {&FourCtasAsk::order_forced, "PAIR_TILES"},
                  {&FourCtasAsk::trace, "records no timeline"}};
  for (const auto& r : refusals) {
    FourCtasAsk a = on;
    a.*(r.set) = true;
    const FourCtasDecision d = decide_four_ctas(a);
    EXPECT_FALSE(d.four) << r.named;
    EXPECT_NE(d.error.find(r.named), std::string::npos) << d.error;
  }
  // A bad value is the error, forced or not.
  FourCtasAsk bad = short_items;
  bad.env = parse_four_ctas_env("yes");
  EXPECT_NE(decide_four_ctas(bad).error.find("'yes'"), std::string::npos);
}

}  // namespace
}  // namespace vsa::sm90a::fwd
