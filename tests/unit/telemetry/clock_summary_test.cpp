// The clock phrase next to a timing's TFLOPS (telemetry/clock_summary.hpp) and its place in
// the Markdown report: a number measured under a power cap must say so.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "telemetry/pass_monitor.hpp"
#include "telemetry/clock_sample.hpp"
#include "telemetry/clock_summary.hpp"
#include "compare/compare.hpp"
#include "report/report.hpp"
#include "synthetic_reports.hpp"

namespace vsa {
namespace {

constexpr std::uint64_t kGpuIdle = 0x1;     // NVML: not a slowdown
constexpr std::uint64_t kSwPowerCap = 0x4;  // NVML: a slowdown

nlohmann::json pass_with(unsigned mhz, std::uint64_t reasons) {
  ClockSample after;
  after.sm_clock_mhz = mhz;
  after.event_reasons = reasons;
  return {{"pass", 0}, {"before", nullptr}, {"after", after}};
}

TEST(ClockSummary, EmptyWithoutSamples) {
  EXPECT_EQ(clock_summary(nlohmann::json()), "");
  EXPECT_EQ(clock_summary(nlohmann::json::array()), "");
  EXPECT_EQ(clock_summary(nlohmann::json::array({{{"pass", 0}, {"after", ClockSample{}}}})), "");  // NVML unknown
}

TEST(ClockSummary, FullClockWithoutSlowdown) {
  EXPECT_EQ(clock_summary(nlohmann::json::array({pass_with(1980, 0), pass_with(1980, kGpuIdle)})), "at 1980 MHz");
}

TEST(ClockSummary, RangeAndPowerCap) {
  const auto clocks = nlohmann::json::array(
      {pass_with(1620, kSwPowerCap), pass_with(1395, kSwPowerCap | kGpuIdle), pass_with(1545, 0)});
  EXPECT_EQ(clock_summary(clocks), "at 1395-1620 MHz, sw_power_cap");
}

// A sustained pass: the range and mean power of the samples taken while it ran, not the
// sample after it (taken when the card has already gone back to full clock).
TEST(ClockSummary, SustainedPassesUseTheSamplesDuringThem) {
  std::vector<nlohmann::json> first, second;
  for (unsigned mhz : {1980u, 1605u, 1410u}) {
    ClockSample s;
    s.sm_clock_mhz = mhz;
    s.power_w = mhz == 1980 ? 420.0 : 699.0;
    s.event_reasons = mhz == 1980 ? 0 : kSwPowerCap;
    first.push_back(s);
  }
  ClockSample steady;
  steady.sm_clock_mhz = 1500;
  steady.power_w = 700.0;
  steady.event_reasons = kSwPowerCap;
  second = {steady, steady};
  nlohmann::json a = pass_with(1980, 0), b = pass_with(1980, 0);
  a["during"] = summarize_pass_samples(first);   // mean power 606 W
  b["during"] = summarize_pass_samples(second);  // 700 W
  EXPECT_EQ(clock_summary(nlohmann::json::array({a, b})), "at 1410-1980 MHz, 653 W, sw_power_cap");
  // A pass whose "during" has no clock (no NVML) falls back to its "after" sample.
  nlohmann::json c = pass_with(1700, 0);
  c["during"] = summarize_pass_samples({});
  EXPECT_EQ(clock_summary(nlohmann::json::array({c})), "at 1700 MHz");
}

// A burst pass keeps no one-second mean power (it is shorter than that second): the summary
// takes the instant readings instead, and a sustained pass's mean where it has one.
TEST(ClockSummary, BurstPassesShowTheirInstantPower) {
  std::vector<nlohmann::json> burst;
  for (double watts : {610.0, 650.0}) {
    ClockSample s;
    s.sm_clock_mhz = 1980;
    s.power_instant_w = watts;
    s.event_reasons = 0;
    burst.push_back(burst_sample(s));  // what timing.cpp keeps of a burst pass's samples
  }
  nlohmann::json a = pass_with(1980, 0);
  a["during"] = summarize_pass_samples(burst);
  EXPECT_EQ(a["during"]["power_instant_w"]["mean"], 630.0);
  EXPECT_FALSE(a["during"].contains("power_w"));
  EXPECT_TRUE(burst_sample(nullptr).is_null());  // no NVML: the sample stays null
  EXPECT_EQ(clock_summary(nlohmann::json::array({a})), "at 1980 MHz, 630 W");
  ClockSample both;
  both.sm_clock_mhz = 1500;
  both.power_w = 700.0;
  both.power_instant_w = 640.0;
  nlohmann::json b = pass_with(1500, 0);
  b["during"] = summarize_pass_samples({both});
  EXPECT_EQ(clock_summary(nlohmann::json::array({b})), "at 1500 MHz, 700 W");
}

TEST(ClockSummary, ShownNextToTflopsInTheReport) {
  Report r;
  testing::add_timing(r, "perf/S=65536", "sm90a", "fwd", 515.5);
  r.cases[0].backends[0].timings[0].clocks = nlohmann::json::array({pass_with(1395, kSwPowerCap), pass_with(1620, 0)});
  EXPECT_NE(render_markdown(r).find("515.5 (±1%) at 1395-1620 MHz, sw_power_cap"), std::string::npos)
      << render_markdown(r);
}

// A single pass (qualify's sustained sample) has no spread: no "±0%" in the report.
TEST(ClockSummary, OnePassShowsNoSpread) {
  Report r;
  testing::add_timing(r, "qualify/sustained", "sm90a", "fwd", 512.7, 0.0);
  r.cases[0].backends[0].timings[0].passes = 1;
  const std::string md = render_markdown(r);
  EXPECT_NE(md.find("512.7 (1 pass)"), std::string::npos) << md;
  EXPECT_EQ(md.find("±0%"), std::string::npos) << md;
  auto a = testing::synthetic_report({.host = "a"});
  auto b = testing::synthetic_report({.host = "b"});
  for (auto* f : {&a, &b}) {
    testing::add_timing(f->report, "qualify/sustained", "sm90a", "fwd", 512.7, 0.0);
    f->report.cases[0].backends[0].timings[0].passes = 1;
  }
  const std::string compared = render_markdown(compare_reports({a, b}, {}));
  EXPECT_NE(compared.find("512.7 (1 pass)"), std::string::npos) << compared;
  EXPECT_EQ(compared.find("±0%"), std::string::npos) << compared;
}

// A damaged "during" statistic (not numbers) is ignored, not a crash of render or compare.
TEST(ClockSummary, MalformedDuringFallsBackToTheSampleAfter) {
  nlohmann::json pass = pass_with(1700, 0);
  pass["during"] = {{"samples", 3}, {"sm_clock_mhz", {{"min", nullptr}, {"mean", 1500}, {"max", 1600}}}};
  EXPECT_EQ(clock_summary(nlohmann::json::array({pass})), "at 1700 MHz");
}

// compare: the Markdown cell and the JSON both carry it, per report.
TEST(ClockSummary, ShownInCompareForEachRun) {
  auto capped = testing::synthetic_report({.host = "a"});
  auto full = testing::synthetic_report({.host = "b"});
  testing::add_timing(capped.report, "perf/S=65536", "sm90a", "fwd", 544.0);
  testing::add_timing(full.report, "perf/S=65536", "sm90a", "fwd", 599.0);
  capped.report.cases[0].backends[0].timings[0].clocks = nlohmann::json::array({pass_with(1605, kSwPowerCap)});
  full.report.cases[0].backends[0].timings[0].clocks = nlohmann::json::array({pass_with(1980, 0)});
  const Comparison c = compare_reports({capped, full}, {});
  const std::string md = render_markdown(c);
  EXPECT_NE(md.find("at 1605 MHz, sw_power_cap"), std::string::npos) << md;
  EXPECT_NE(md.find("at 1980 MHz"), std::string::npos) << md;
  const nlohmann::json j = to_json(c);
  ASSERT_EQ(j.at("performance").size(), 1u) << j.dump(2);
  EXPECT_EQ(j.at("performance").at(0).at("clocks"),
            nlohmann::json::array({"at 1605 MHz, sw_power_cap", "at 1980 MHz"}));
}

}  // namespace
}  // namespace vsa
