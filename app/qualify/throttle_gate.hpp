#pragma once
// health.throttle (docs/qualify.md, "Throttle"): whether the GPU's clocks were held down by
// a hardware or thermal limiter during the sustained passes, judged with the evidence an
// operator needs to act on it: which reasons, for how much of the sustained time (NVML's
// thermal violation counter, else the share of during-pass samples), the GPU and memory
// temperatures against NVML's thresholds, and whether a sustained speed floor failed.
//
// The failing reasons are DCGM's diagnostic failure mask (HW_SLOWDOWN, SW_THERMAL,
// HW_THERMAL, HW_POWER_BRAKE), and an operator removes reasons the way `dcgmi diag
// --clocksevent-mask` does: by name or by the sum of their NVML bits.
#include <string>
#include <vector>

#include "model/node_check.hpp"
#include "qualify/health.hpp"
#include "report/report.hpp"

namespace vsa {

struct ThrottlePolicy {
  // Reasons that fail the gate (names of telemetry/clock_sample.hpp).
  std::vector<std::string> fail_on{"hw_slowdown", "sw_thermal", "hw_thermal", "hw_power_brake"};
  std::vector<std::string> ignored;  // what --throttle-ignore removed, for the report
  // sw_thermal fails only when it held the clock for more than this share of the sustained
  // time, or when a sustained floor failed, or when how long it held cannot be told.
  double sw_thermal_max_fraction = 0.05;
};

// The default policy less the reasons in `ignore`: a comma list of names (hw_slowdown,
// sw_thermal, hw_thermal, hw_power_brake; DCGM's upper-case spellings too), or an integer
// bit mask (8, 32, 64, 128 summed, as DCGM's), or "" / "none". Throws std::invalid_argument
// naming the item that is neither. `max_fraction` must lie in [0, 1].
[[nodiscard]] ThrottlePolicy throttle_policy(const std::string& ignore, double max_fraction);

// The gate over the report's sustained timings. `floors` are the report's floor and
// clock_hold checks (a FAIL among the sustained ones means the slowdown cost speed).
[[nodiscard]] NodeCheck throttle_check(const Report& report, const HealthRecord& health,
                                       const std::vector<NodeCheck>& floors, const ThrottlePolicy& policy);

}  // namespace vsa
