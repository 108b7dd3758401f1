// Metrics and stability diffs: each criterion must be able to fail.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "model/case_result.hpp"
#include "model/metrics.hpp"
#include "engine/stability.hpp"
#include "engine/timing.hpp"
#include "vsa/device_ops.hpp"

namespace vsa {
namespace {

std::vector<bf16_bits> bf(std::initializer_list<float> v) {
  std::vector<bf16_bits> out;
  for (float f : v) out.push_back(float_to_bf16(f));
  return out;
}

TEST(Metrics, IdenticalPasses) {
  const auto a = bf({1, -2, 3, 0.5f});
  const auto m = compare_bf16("o", a.data(), a.data(), 4, Tolerance{});
  EXPECT_TRUE(m.pass);
  EXPECT_EQ(m.rel_max, 0);
}

TEST(Metrics, RelMaxIsScaledByTheLargestReference) {
  const auto ref = bf({4, 0, 0, 0}), got = bf({4, 0.5f, 0, 0});
  const auto m = compare_bf16("o", got.data(), ref.data(), 4, Tolerance{});
  EXPECT_DOUBLE_EQ(m.rel_max, 0.125);
  EXPECT_FALSE(m.pass);
  EXPECT_NE(m.why.find("rel_max"), std::string::npos);
}

TEST(Metrics, PoisonCountsAsUnwrittenNotAsNan) {
  auto got = bf({1, 2, 3});
  got[1] = kPoisonBf16;
  const auto ref = bf({1, 2, 3});
  const auto m = compare_bf16("o", got.data(), ref.data(), 3, Tolerance{});
  EXPECT_EQ(m.unwritten, 1);
  EXPECT_EQ(m.nan_count, 0);
  EXPECT_FALSE(m.pass);
}

TEST(Metrics, Fp32PoisonIsTheSentinelsBitsNotAnyNan) {
  float poison;
  std::memcpy(&poison, &kPoisonF32, sizeof poison);
  EXPECT_TRUE(is_poison_f32(poison));
  EXPECT_FALSE(is_poison_f32(std::numeric_limits<float>::quiet_NaN()));
  EXPECT_FALSE(is_poison_f32(0.0f));
  const float ref[] = {1.0f, 2.0f}, got[] = {poison, std::numeric_limits<float>::quiet_NaN()};
  const auto m = compare_f32("lse", got, ref, 2, Tolerance{});
  EXPECT_EQ(m.unwritten, 1);
  EXPECT_EQ(m.nan_count, 1);
}

TEST(Metrics, NanFails) {
  auto got = bf({1, std::numeric_limits<float>::quiet_NaN()});
  const auto ref = bf({1, 2});
  EXPECT_EQ(compare_bf16("o", got.data(), ref.data(), 2, Tolerance{}).nan_count, 1);
}

TEST(Metrics, MatchingMinusInfinityLseIsFineMismatchIsNot) {
  const float inf = std::numeric_limits<float>::infinity();
  const float ref[] = {-inf, 1.0f}, ok[] = {-inf, 1.0f}, bad[] = {0.0f, 1.0f};
  EXPECT_TRUE(compare_f32("lse", ok, ref, 2, Tolerance{}).pass);
  const auto m = compare_f32("lse", bad, ref, 2, Tolerance{});
  EXPECT_EQ(m.inf_mismatch, 1);
  EXPECT_FALSE(m.pass);
}

TEST(Metrics, AllZeroReferenceMustBeMatchedExactly) {
  const auto ref = bf({0, 0}), got = bf({0, 1e-3f});
  EXPECT_FALSE(compare_bf16("dk", got.data(), ref.data(), 2, Tolerance{}).pass);
}

TEST(Stability, DiffCountsMismatchesAndRelativeDeviation) {
  const auto a = bf({2, 4, 8}), b = bf({2, 4.03125f, 8});
  const RunDiff d = diff_bf16(a, b);
  EXPECT_EQ(d.mismatched, 1);
  EXPECT_NEAR(d.rel_dev, 0.03125 / 8, 1e-12);
  EXPECT_EQ(diff_bf16(a, a).mismatched, 0);
}

TEST(Timing, InterleavesABBA) {
  EXPECT_EQ(pass_order(3, 0), (std::vector<std::size_t>{0, 1, 2}));
  EXPECT_EQ(pass_order(3, 1), (std::vector<std::size_t>{2, 1, 0}));
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median({4, 1, 2, 3}), 2.5);
}

// Sustained passes: 20 iterations of a 0.5 ms launch last 10 ms; 2000 ms needs batches of 200.
TEST(Timing, SustainedPassesBatchEnoughLaunchesPerIteration) {
  EXPECT_EQ(launches_per_iteration(0, 20, 0.5), 1) << "off";
  EXPECT_EQ(launches_per_iteration(2000, 20, 0.5), 200);
  EXPECT_EQ(launches_per_iteration(2001, 20, 0.5), 201) << "rounded up: at least min_pass_ms";
  EXPECT_EQ(launches_per_iteration(5, 20, 30.0), 1) << "one launch per iteration already lasts long enough";
  EXPECT_EQ(launches_per_iteration(60000, 1, 1e-9), kMaxLaunchesPerIteration) << "clamped";
  EXPECT_EQ(launches_per_iteration(1000, 20, 0.0), kMaxLaunchesPerIteration) << "a launch that took no time";
}

TEST(Metrics, InfiniteRatiosRoundTripThroughJson) {
  // Against an all-zero reference the ratios are infinite: null in JSON (no infinity
  // there), +infinity when read back; before, the read threw and aborted the run.
  const auto zero = bf({0, 0});
  const auto got = bf({1, 0});
  const TensorMetrics m = compare_bf16("o", got.data(), zero.data(), 2, Tolerance{});
  ASSERT_TRUE(std::isinf(m.rel_max));
  const nlohmann::json j = nlohmann::json::parse(nlohmann::json(m).dump());
  EXPECT_TRUE(j.at("rel_max").is_null());
  const auto back = j.get<TensorMetrics>();
  EXPECT_TRUE(std::isinf(back.rel_max) && back.rel_max > 0);
  EXPECT_TRUE(std::isinf(back.rel_l2));
  EXPECT_EQ(back.max_abs_err, m.max_abs_err);
  EXPECT_FALSE(back.pass);
  EXPECT_EQ(back.why, m.why);
  StabilityOutput s;
  s.tensor = "o";
  s.runs = 3;
  s.mismatched_runs = 1;
  s.worst_rel_dev = INFINITY;
  const auto s_back = nlohmann::json::parse(nlohmann::json(s).dump()).get<StabilityOutput>();
  EXPECT_TRUE(std::isinf(s_back.worst_rel_dev));
  EXPECT_EQ(s_back.mismatched_runs, 1);
}

}  // namespace
}  // namespace vsa
