// health.throttle (docs/qualify.md, "Throttle"): hardware slowdowns always fail; sw_thermal
// fails when it held the clock beyond the stated share of the sustained time, cost a
// sustained floor, or cannot be measured; the evidence (share, temperatures against NVML's
// thresholds) is in the message and the JSON; --throttle-ignore removes reasons as
// `dcgmi diag --clocksevent-mask` does.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "qualify/check_codes.hpp"
#include "qualify/throttle_gate.hpp"
#include "synthetic_reports.hpp"

namespace vsa {
namespace {

using nlohmann::json;
using testing::sustained_report;

// One sustained pass of `seconds`, sw_thermal in `hot` of its 20 during samples, the thermal
// violation counter grown by `violation_s`, the GPU at `gpu_c` and the HBM at `memory_c`.
json pass(int index, double seconds, int hot, double violation_s, double gpu_c = 80, double memory_c = 85) {
  json reasons = json::array({"sw_power_cap"});
  json counts = {{"sw_power_cap", 20}};
  if (hot > 0) {
    reasons.push_back("sw_thermal");
    counts["sw_thermal"] = hot;
  }
  return {{"pass", index},
          {"seconds", seconds},
          {"before", {{"temperature_c", gpu_c - 5}, {"thermal_violation_ns", 1e12}}},
          {"after", {{"temperature_c", gpu_c - 1}, {"thermal_violation_ns", 1e12 + violation_s * 1e9}}},
          {"during",
           {{"samples", 20},
            {"reasons", reasons},
            {"reason_samples", counts},
            {"reason_sampled", 20},
            {"temperature_c", {{"min", gpu_c - 4}, {"mean", gpu_c - 2}, {"max", gpu_c}}},
            {"memory_temperature_c", {{"min", memory_c - 4}, {"mean", memory_c - 2}, {"max", memory_c}}}}}};
}

// NVML's thresholds as an H100/H200-class part might report them (values for the fixture only).
HealthRecord thresholds(unsigned gpu_max = 87, unsigned memory_max = 95, unsigned slowdown = 92,
                        unsigned shutdown = 97) {
  HealthRecord h;
  h.monitored = true;
  h.before.temperature_gpu_max_c = {gpu_max, ""};
  h.before.temperature_memory_max_c = {memory_max, ""};
  h.before.temperature_slowdown_c = {slowdown, ""};
  h.before.temperature_shutdown_c = {shutdown, ""};
  return h;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(ThrottleGate, SwThermalHoldingMostOfTheSustainedTimeFailsWithTheEvidence) {
  // The lent H200's shape: sw_thermal through the sustained case; here the counter says 90%.
  const Report r = sustained_report(json::array({pass(0, 10, 18, 9, 86, 95), pass(1, 10, 18, 9, 86, 95)}));
  const NodeCheck c = throttle_check(r, thresholds(), {}, ThrottlePolicy{});
  EXPECT_EQ(c.verdict, kFail) << c.reason;
  EXPECT_EQ(c.code, kCodeThrottled);
  EXPECT_TRUE(has(c.reason, "sw_thermal for 90% of the sustained time (NVML thermal violation time) > 5%")) << c.reason;
  EXPECT_TRUE(has(c.reason, "GPU up to 86 °C (max operating 87, slowdown 92, shutdown 97 °C)")) << c.reason;
  EXPECT_TRUE(has(c.reason, "memory up to 95 °C (max operating 95 °C)")) << c.reason;
  EXPECT_TRUE(has(c.reason, "the memory (HBM) reached its max operating temperature")) << c.reason;
  EXPECT_TRUE(has(c.reason, "first in qualify/fast/sustained-16k sm90a fwd")) << c.reason;
  EXPECT_DOUBLE_EQ(c.value["thermal_fraction"].get<double>(), 0.9);
  EXPECT_DOUBLE_EQ(c.value["thermal_violation_seconds"].get<double>(), 18);
  EXPECT_DOUBLE_EQ(c.value["sustained_seconds"].get<double>(), 20);
  EXPECT_EQ(c.value["memory_temperature_max_c"].get<double>(), 95);
  EXPECT_EQ(c.value["temperature_thresholds_c"]["memory_max"].get<unsigned>(), 95u);
  EXPECT_DOUBLE_EQ(c.threshold["sw_thermal_max_fraction"].get<double>(), 0.05);
}

TEST(ThrottleGate, BriefSwThermalWithFloorsHeldPassesAndSaysSo) {
  // Before the change any sw_thermal sample failed the node (DCGM's default, which its users
  // report as too sensitive: NVIDIA/DCGM issue 242). One sample in forty, 0.4 s of 20 s.
  const Report r = sustained_report(json::array({pass(0, 10, 1, 0.4), pass(1, 10, 0, 0)}));
  const NodeCheck c = throttle_check(r, thresholds(), {}, ThrottlePolicy{});
  EXPECT_EQ(c.verdict, kPass) << c.reason;
  EXPECT_TRUE(has(c.reason, "sw_thermal for 2% of the sustained time")) << c.reason;
  EXPECT_TRUE(has(c.reason, "within 5%")) << c.reason;
}

TEST(ThrottleGate, BriefSwThermalThatCostASustainedFloorFails) {
  const Report r = sustained_report(json::array({pass(0, 10, 1, 0.3)}));
  NodeCheck slow;
  slow.name = "floor qualify/fast/sustained-16k sm90a fwd";
  slow.kind = "floor";
  slow.verdict = kFail;
  slow.case_name = "qualify/fast/sustained-16k";
  NodeCheck other = slow;
  other.name = "floor qualify/fast/perf-16k sm90a fwd";  // not a sustained case: not the slowdown's cost
  other.case_name = "qualify/fast/perf-16k";
  EXPECT_EQ(throttle_check(r, thresholds(), {other}, ThrottlePolicy{}).verdict, kPass);
  // A burst case whose name holds the sustained case's name is still another case.
  NodeCheck burst = slow;
  burst.name = "floor qualify/fast/sustained-16k-burst sm90a fwd";
  burst.case_name = "qualify/fast/sustained-16k-burst";
  EXPECT_EQ(throttle_check(r, thresholds(), {burst}, ThrottlePolicy{}).verdict, kPass);
  const NodeCheck c = throttle_check(r, thresholds(), {slow}, ThrottlePolicy{});
  EXPECT_EQ(c.verdict, kFail) << c.reason;
  EXPECT_TRUE(has(c.reason, "while floor qualify/fast/sustained-16k sm90a fwd failed")) << c.reason;
}

TEST(ThrottleGate, WithoutTheCounterTheShareOfSamplesDecides) {
  json p = pass(0, 10, 4, 0);
  p["before"].erase("thermal_violation_ns");  // a driver without nvmlDeviceGetViolationStatus
  const NodeCheck c = throttle_check(sustained_report(json::array({p})), thresholds(), {}, ThrottlePolicy{});
  EXPECT_EQ(c.verdict, kFail) << c.reason;
  EXPECT_TRUE(has(c.reason, "20% of the sustained time (share of during-pass samples)")) << c.reason;
  EXPECT_EQ(c.value["thermal_fraction_source"], "share of during-pass samples");
}

TEST(ThrottleGate, SwThermalThatCannotBeMeasuredFailsClosed) {
  json p = {{"pass", 0}, {"during", {{"samples", 20}, {"reasons", {"sw_thermal"}}}}};  // an older report
  const NodeCheck c = throttle_check(sustained_report(json::array({p})), HealthRecord{}, {}, ThrottlePolicy{});
  EXPECT_EQ(c.verdict, kFail) << c.reason;
  EXPECT_TRUE(has(c.reason, "an unknown share")) << c.reason;
  EXPECT_TRUE(has(c.reason, "GPU temperature not sampled")) << c.reason;
}

TEST(ThrottleGate, HardwareSlowdownsFailAtAnyShare) {
  for (const std::string reason : {"hw_slowdown", "hw_thermal", "hw_power_brake"}) {
    json p = pass(0, 10, 0, 0);
    p["during"]["reasons"].push_back(reason);
    p["during"]["reason_samples"][reason] = 1;
    const NodeCheck c = throttle_check(sustained_report(json::array({p})), thresholds(), {}, ThrottlePolicy{});
    EXPECT_EQ(c.verdict, kFail) << reason;
    EXPECT_TRUE(has(c.reason, reason + " (first in")) << c.reason;
  }
}

TEST(ThrottleGate, IgnoredReasonsDoNotFailAndAreNamed) {
  const Report r = sustained_report(json::array({pass(0, 10, 18, 9)}));
  for (const std::string ignore : {"sw_thermal", "SW_THERMAL", "32", " hw_slowdown , sw_thermal ", "40"}) {
    const ThrottlePolicy p = throttle_policy(ignore, 0.05);
    const NodeCheck c = throttle_check(r, thresholds(), {}, p);
    EXPECT_EQ(c.verdict, kPass) << ignore << ": " << c.reason;
    EXPECT_TRUE(has(c.reason, "seen but ignored (--throttle-ignore): sw_thermal")) << c.reason;
  }
  EXPECT_EQ(throttle_policy("40", 0.05).ignored, (std::vector<std::string>{"hw_slowdown", "sw_thermal"}));
  // Values in a list, as the names are: what the error's "hw_slowdown (8)" invites.
  EXPECT_EQ(throttle_policy("8,32", 0.05).ignored, (std::vector<std::string>{"hw_slowdown", "sw_thermal"}));
  EXPECT_EQ(throttle_policy("8, sw_thermal", 0.05).ignored, (std::vector<std::string>{"hw_slowdown", "sw_thermal"}));
  // A raised share lets the same run pass; the default fails it.
  EXPECT_EQ(throttle_check(r, thresholds(), {}, throttle_policy("", 0.95)).verdict, kPass);
  EXPECT_EQ(throttle_check(r, thresholds(), {}, throttle_policy("none", 0.05)).verdict, kFail);
}

TEST(ThrottleGate, BadIgnoreListsAreRefusedNamingTheItem) {
  for (const std::string bad : {"sw_power_cap", "hw_slowdwn", "4", "1024", "sw_thermal,", "-8", "8,4"}) {
    try {
      (void)throttle_policy(bad, 0.05);
      ADD_FAILURE() << "accepted \"" << bad << "\"";
    } catch (const std::invalid_argument& e) {
      EXPECT_TRUE(has(e.what(), "hw_slowdown (8)")) << e.what();
    }
  }
  EXPECT_THROW((void)throttle_policy("", -0.1), std::invalid_argument);
  EXPECT_THROW((void)throttle_policy("", 1.5), std::invalid_argument);
}

TEST(ThrottleGate, NothingSustainedOrNothingSampledIsAStatedSkip) {
  EXPECT_EQ(throttle_check(Report{}, HealthRecord{}, {}, ThrottlePolicy{}).verdict, kSkip);
  const NodeCheck c =
      throttle_check(sustained_report(json::array({{{"pass", 0}}})), HealthRecord{}, {}, ThrottlePolicy{});
  EXPECT_EQ(c.verdict, kSkip);
  EXPECT_EQ(c.code, kCodeHealthUnknown);
}

}  // namespace
}  // namespace vsa
