// NVML samples during a sustained pass (telemetry/pass_monitor.hpp): the summary of what
// was sampled, and the sampling thread itself with a fake sampler.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

#include <nlohmann/json.hpp>

#include "telemetry/pass_monitor.hpp"

namespace vsa {
namespace {

TEST(PassMonitor, SummaryHasMinMeanMaxOfEachField) {
  const std::vector<nlohmann::json> samples = {
      {{"sm_clock_mhz", 1980}, {"power_w", 400.0}, {"temperature_c", 40}, {"event_reasons", 0}},
      {{"sm_clock_mhz", 1410}, {"power_w", 700.0}, {"temperature_c", 50}, {"event_reasons", 0x4}},
      {{"sm_clock_mhz", 1500}, {"power_w", nullptr}, {"temperature_c", 60}, {"event_reasons", 0x1}}};
  const nlohmann::json s = summarize_pass_samples(samples);
  EXPECT_EQ(s["samples"], 3);
  EXPECT_EQ(s["sm_clock_mhz"]["min"], 1410.0);
  EXPECT_EQ(s["sm_clock_mhz"]["max"], 1980.0);
  EXPECT_DOUBLE_EQ(s["sm_clock_mhz"]["mean"].get<double>(), (1980.0 + 1410 + 1500) / 3);
  EXPECT_DOUBLE_EQ(s["power_w"]["mean"].get<double>(), 550.0) << "a null reading is not a zero";
  EXPECT_EQ(s["temperature_c"]["max"], 60.0);
  EXPECT_EQ(s["event_reasons"], 0x5u);
  EXPECT_EQ(s["reasons"], nlohmann::json({"gpu_idle", "sw_power_cap"}));
}

TEST(PassMonitor, SummaryCountsTheSamplesOfEachReasonAndTheMemoryTemperature) {
  // health.throttle weighs sw_thermal by how much of the pass it held (docs/qualify.md, "Throttle").
  const std::vector<nlohmann::json> samples = {
      {{"event_reasons", 0x24}, {"memory_temperature_c", 90}},  // sw_power_cap | sw_thermal
      {{"event_reasons", 0x4}, {"memory_temperature_c", 94}},
      {{"event_reasons", nullptr}, {"memory_temperature_c", nullptr}},
      {{"event_reasons", 0x4}}};
  const nlohmann::json s = summarize_pass_samples(samples);
  EXPECT_EQ(s["reason_samples"], (nlohmann::json{{"sw_power_cap", 3}, {"sw_thermal", 1}}));
  EXPECT_EQ(s["reason_sampled"], 3) << "a sample without a mask says nothing about the reasons";
  EXPECT_EQ(s["memory_temperature_c"]["max"], 94.0);
}

TEST(PassMonitor, SummaryCountsTheProcessesOnTheGpu) {
  const std::vector<nlohmann::json> samples = {{{"compute_pids", {7}}},
                                               {{"compute_pids", {7, 8, 9}}},
                                               {{"compute_pids", nullptr}},  // NVML could not say
                                               {{"sm_clock_mhz", 1980}}};
  const nlohmann::json s = summarize_pass_samples(samples);
  EXPECT_EQ(s["compute_processes"], (nlohmann::json{{"min", 1.0}, {"mean", 2.0}, {"max", 3.0}}));
}

TEST(PassMonitor, SummaryWithoutNvmlOnlyCounts) {
  const nlohmann::json s = summarize_pass_samples({{{"sm_clock_mhz", nullptr}, {"event_reasons", nullptr}}});
  EXPECT_EQ(s, (nlohmann::json{{"samples", 1}}));
}

TEST(PassMonitor, SamplesAtStartAndThenPeriodicallyUntilStopped) {
  std::atomic<int> calls{0};
  PassMonitor monitor(
      [&] {
        const int n = ++calls;
        return nlohmann::json{{"sm_clock_mhz", 1000 + n}};
      },
      std::chrono::milliseconds(5));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (calls.load() < 4 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const nlohmann::json s = monitor.stop();
  const int after_stop = calls.load();
  EXPECT_GE(s["samples"].get<int>(), 4);
  EXPECT_EQ(s["sm_clock_mhz"]["min"], 1001.0) << "the first sample is taken at once";
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(calls.load(), after_stop) << "no sample after stop()";
  EXPECT_EQ(monitor.stop()["samples"], s["samples"]) << "stop() twice returns the same summary";
}

// The first second of a pass still shows the previous load in NVML's power average: a
// settle time leaves it out, and a pass shorter than it has no samples at all.
TEST(PassMonitor, NoSampleBeforeTheSettleTime) {
  std::atomic<int> calls{0};
  PassMonitor monitor(
      [&] {
        ++calls;
        return nlohmann::json::object();
      },
      std::chrono::milliseconds(1), std::chrono::hours(1));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(monitor.stop()["samples"], 0);
  EXPECT_EQ(calls.load(), 0);
}

TEST(PassMonitor, AThrowingSamplerGivesNullSamples) {
  std::atomic<int> calls{0};
  PassMonitor monitor(
      [&]() -> nlohmann::json {
        ++calls;
        throw std::runtime_error("NVML gone");
      },
      std::chrono::milliseconds(1));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (calls.load() < 2 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const nlohmann::json s = monitor.stop();
  EXPECT_GE(s["samples"].get<int>(), 2);
  EXPECT_FALSE(s.contains("sm_clock_mhz"));
}

TEST(PassMonitor, StopsPromptlyWithALongPeriod) {
  const auto start = std::chrono::steady_clock::now();
  {
    PassMonitor monitor([] { return nlohmann::json::object(); }, std::chrono::hours(1));
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }  // the destructor stops it
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

// A burst pass (engine/timing.cpp): sampled on the waiting thread until the pass is done.
TEST(SampleUntil, SamplesOncePerPollUntilDone) {
  int polls = 0, calls = 0;
  const nlohmann::json s = sample_until([&] { return ++polls > 3; },
                                        [&] {
                                          return nlohmann::json{{"sm_clock_mhz", 1800 + 10 * ++calls}};
                                        },
                                        std::chrono::microseconds(10));
  EXPECT_EQ(calls, 3) << "one sample per poll that found the pass still running";
  EXPECT_EQ(s["samples"], 3);
  EXPECT_EQ(s["sm_clock_mhz"]["min"], 1810.0);
  EXPECT_EQ(s["sm_clock_mhz"]["max"], 1830.0);
}

TEST(SampleUntil, APassDoneBeforeTheFirstPollHasNoSummary) {
  int calls = 0;
  const nlohmann::json s = sample_until([] { return true; },
                                        [&] {
                                          return nlohmann::json{{"sm_clock_mhz", ++calls}};
                                        },
                                        std::chrono::microseconds(10));
  EXPECT_TRUE(s.is_null()) << "no summary of zero samples: the after sample stands for the pass";
  EXPECT_EQ(calls, 0);
}

TEST(SampleUntil, AHungPassStopsSamplingButKeepsWaiting) {
  int polls = 0, calls = 0;
  const nlohmann::json s = sample_until([&] { return ++polls > int(kMaxBurstSamples) + 500; },
                                        [&] {
                                          return nlohmann::json{{"sm_clock_mhz", ++calls}};
                                        },
                                        std::chrono::microseconds(1));
  EXPECT_EQ(s["samples"], kMaxBurstSamples);
  EXPECT_EQ(calls, int(kMaxBurstSamples));
  EXPECT_EQ(polls, int(kMaxBurstSamples) + 501) << "it still waited for the pass to end";
}

TEST(PassMonitor, SummaryNamesEveryPidSeen) {
  const nlohmann::json s = summarize_pass_samples({{{"compute_pids", {7u}}}, {{"compute_pids", {7u, 9u}}}});
  EXPECT_EQ(s["compute_pids"], nlohmann::json({7, 9}));
  EXPECT_FALSE(summarize_pass_samples({{{"sm_clock_mhz", 1980}}}).contains("compute_pids"));
}

TEST(SampleUntil, AThrowingSamplerIsAGapNotTheEnd) {
  int polls = 0;
  const nlohmann::json s =
      sample_until([&] { return ++polls > 2; }, []() -> nlohmann::json { throw std::runtime_error("NVML gone"); },
                   std::chrono::microseconds(10));
  EXPECT_EQ(s["samples"], 2);
  EXPECT_FALSE(s.contains("sm_clock_mhz"));
}

}  // namespace
}  // namespace vsa
