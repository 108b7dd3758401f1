// Which kernel variant a launch runs (kernels/sm90a/variant.hpp; the backward asks with no
// layout, as the forward's two-group layout does). A timeline alone must
// run the trace-only variant (the normal code plus stamps) where one exists: on the probe
// variant it described a kernel up to 19% slower than the timed one (notes/runs.md, run 56).
// Probes and the hang watch need the probe variant whatever else is asked.
#include <gtest/gtest.h>

#include "kernels/sm90a/variant.hpp"

namespace vsa::sm90a {
namespace {

TEST(Sm90aVariant, NothingAskedRunsTheNormalKernel) {
  EXPECT_EQ(variant_for({}), Variant::kNormal);
  EXPECT_EQ(variant_for({.three_groups = true}), Variant::kNormal);
  EXPECT_EQ(variant_for({.pair_tiles = true}), Variant::kNormal);
}

TEST(Sm90aVariant, ATimelineAloneRunsTheTraceOnlyVariant) {
  EXPECT_EQ(variant_for({.trace = true}), Variant::kTraceOnly);
}

TEST(Sm90aVariant, ProbesOrTheHangWatchNeedTheProbeVariant) {
  for (const bool trace : {false, true}) {
    EXPECT_EQ(variant_for({.trace = trace, .probes = true}), Variant::kProbe) << trace;
    EXPECT_EQ(variant_for({.trace = trace, .hang_watch = true}), Variant::kProbe) << trace;
  }
}

TEST(Sm90aForwardVariant, LayoutsWithoutATraceOnlyKernelRecordOnTheirProbeVariant) {
  // The launch refuses a trace-only answer for these layouts (it has no such kernel to run).
  for (const bool three : {false, true})
    for (const bool pair : {false, true}) {
      if (!three && !pair) continue;
      EXPECT_EQ(variant_for({.trace = true, .three_groups = three, .pair_tiles = pair}), Variant::kProbe);
      EXPECT_EQ(variant_for({.probes = true, .three_groups = three, .pair_tiles = pair}), Variant::kProbe);
      EXPECT_EQ(variant_for({.hang_watch = true, .three_groups = three, .pair_tiles = pair}), Variant::kProbe);
      EXPECT_EQ(variant_for({.three_groups = three, .pair_tiles = pair}), Variant::kNormal);
    }
}

// The backward's template flags per variant: the trace-only kernel is the normal code plus the
// stamps, the probe kernel the probes plus the stamps (bwd_launch.cu instantiates what this says).
TEST(Sm90aBackwardVariant, FlagsOfEachVariant) {
  constexpr BackwardFlags normal = backward_flags(Variant::kNormal);
  constexpr BackwardFlags trace = backward_flags(Variant::kTraceOnly);
  constexpr BackwardFlags probe = backward_flags(Variant::kProbe);
  EXPECT_FALSE(normal.probes);
  EXPECT_FALSE(normal.stamps);
  EXPECT_FALSE(trace.probes);
  EXPECT_TRUE(trace.stamps);
  EXPECT_TRUE(probe.probes);
  EXPECT_TRUE(probe.stamps);
}

}  // namespace
}  // namespace vsa::sm90a
