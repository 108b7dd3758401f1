// The forward's layout rule (kernels/sm90a/fwd_layout.hpp): three consumer groups only where
// two heads' K and V outrun the L2 and the items fill four waves of the three-group grid.
// Pinned with an H200's literal figures (132 SMs, 60 MiB L2, D = 128), so a change of the
// threshold fails here even though a wrong choice would only cost speed on the device.
#include <gtest/gtest.h>

#include "kernels/sm90a/fwd_layout.hpp"

namespace vsa::sm90a::fwd {
namespace {

constexpr int kSms = 132, kHeadDim = 128;
constexpr std::int64_t kL2 = 62914560;  // cudaDevAttrL2CacheSize on the H200 (results/baselines)

Layout on_h200(std::int64_t seq, std::int64_t heads) {
  return layout_by_rule(seq, kHeadDim, kL2, heads * (seq / 64), kSms);
}

TEST(Sm90aLayout, MeasuredSizesGetTheFasterLayout) {
  // Runs 41-42, B = 1, H = 8: three groups ahead at 65536, behind at 16384 and 4096.
  EXPECT_EQ(on_h200(65536, 8), Layout::kThreeGroups);
  EXPECT_EQ(on_h200(131072, 8), Layout::kThreeGroups);
  EXPECT_EQ(on_h200(16384, 8), Layout::kTwoGroups);
  EXPECT_EQ(on_h200(4096, 8), Layout::kTwoGroups);
}

TEST(Sm90aLayout, ThresholdIsTwoHeadsOfKvAgainstTheL2) {
  // 2 heads x (K + V) x S x 128 x 2 bytes = 62,914,560 at S = 61,440: not past the L2.
  EXPECT_EQ(on_h200(61440, 8), Layout::kTwoGroups);
  EXPECT_EQ(on_h200(61440 + 64, 8), Layout::kThreeGroups);
  // A smaller L2 moves it down; no L2 figure keeps the default.
  EXPECT_EQ(layout_by_rule(16384, kHeadDim, kL2 / 8, 2048, kSms), Layout::kThreeGroups);
  EXPECT_EQ(layout_by_rule(65536, kHeadDim, 0, 8192, kSms), Layout::kTwoGroups);
}

TEST(Sm90aLayout, FewItemsKeepTwoGroups) {
  // Four waves of 132 x 3 slots = 1584 items: H = 1 at 65536 (1024) stays, H = 2 (2048) moves.
  EXPECT_EQ(on_h200(65536, 1), Layout::kTwoGroups);
  EXPECT_EQ(on_h200(65536, 2), Layout::kThreeGroups);
  EXPECT_EQ(layout_by_rule(65536, kHeadDim, kL2, 1583, kSms), Layout::kTwoGroups);
  EXPECT_EQ(layout_by_rule(65536, kHeadDim, kL2, 1584, kSms), Layout::kThreeGroups);
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

}  // namespace
}  // namespace vsa::sm90a::fwd
