#include "telemetry/clock_sample.hpp"

#include <array>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "util/json_optional.hpp"
#include "telemetry/nvml_api.hpp"

namespace vsa {
namespace {

struct ReasonName {
  std::uint64_t bit;
  const char* name;
  bool slowdown;  // lowers clocks below the requested ones (vs. a setting or idleness)
};

using namespace nvml_api;
constexpr std::array<ReasonName, 11> kReasons{{
    {nvmlClocksEventReasonGpuIdle, "gpu_idle", false},
    {nvmlClocksEventReasonApplicationsClocksSetting, "applications_clocks", false},
    {nvmlClocksEventReasonSwPowerCap, "sw_power_cap", true},
    {nvmlClocksEventReasonHwSlowdown, "hw_slowdown", true},
    {nvmlClocksEventReasonSyncBoost, "sync_boost", true},
    {nvmlClocksEventReasonSwThermalSlowdown, "sw_thermal", true},
    {nvmlClocksEventReasonHwThermalSlowdown, "hw_thermal", true},
    {nvmlClocksEventReasonHwPowerBrakeSlowdown, "hw_power_brake", true},
    {nvmlClocksEventReasonDisplayClockSetting, "display_clocks", false},
    {nvmlClocksThrottleReasonBoardLimit, "board_limit", true},
    {nvmlClocksThrottleReasonReliability, "reliability", true},
}};

}  // namespace

std::vector<std::string> decode_clock_event_reasons(std::uint64_t mask) {
  std::vector<std::string> names;
  for (int bit = 0; bit < 64; ++bit) {
    const std::uint64_t value = std::uint64_t{1} << bit;
    if ((mask & value) == 0) continue;
    bool known = false;
    for (const auto& reason : kReasons) {
      if (reason.bit == value) {
        names.emplace_back(reason.name);
        known = true;
      }
    }
    if (!known) {
      char text[32];
      std::snprintf(text, sizeof text, "unknown_0x%llx", static_cast<unsigned long long>(value));
      names.emplace_back(text);
    }
  }
  return names;
}

std::optional<std::uint64_t> event_reasons_of(const nlohmann::json& sample) {
  if (!sample.is_object()) return std::nullopt;
  const auto mask = sample.find("event_reasons");
  if (mask == sample.end()) return std::nullopt;
  if (mask->is_number_unsigned()) return mask->get<std::uint64_t>();
  if (mask->is_number_integer() && mask->get<std::int64_t>() >= 0) return std::uint64_t(mask->get<std::int64_t>());
  return std::nullopt;
}

bool is_slowdown(std::uint64_t mask) {
  for (const auto& reason : kReasons)
    if (reason.slowdown && (mask & reason.bit) != 0) return true;
  return false;
}

std::vector<std::string> ClockSample::reason_names() const {
  return event_reasons ? decode_clock_event_reasons(*event_reasons) : std::vector<std::string>{};
}

bool ClockSample::slowed_down() const { return event_reasons && is_slowdown(*event_reasons); }

void to_json(nlohmann::json& j, const ClockSample& sample) {
  j = nlohmann::json::object();
  j["sm_clock_mhz"] = json_or_null(sample.sm_clock_mhz);
  j["mem_clock_mhz"] = json_or_null(sample.mem_clock_mhz);
  j["temperature_c"] = json_or_null(sample.temperature_c);
  j["power_w"] = json_or_null(sample.power_w);
  j["power_instant_w"] = json_or_null(sample.power_instant_w);
  j["event_reasons"] = json_or_null(sample.event_reasons);
  j["reasons"] = sample.event_reasons ? nlohmann::json(sample.reason_names()) : nlohmann::json();
  j["slowed_down"] = sample.event_reasons ? nlohmann::json(sample.slowed_down()) : nlohmann::json();
  j["memory_temperature_c"] = json_or_null(sample.memory_temperature_c);
  j["thermal_violation_ns"] = json_or_null(sample.thermal_violation_ns);
  j["compute_pids"] = sample.compute_pids ? nlohmann::json(*sample.compute_pids) : nlohmann::json();
  if (!sample.compute_pids && !sample.compute_pids_why.empty()) j["compute_pids_why"] = sample.compute_pids_why;
}

}  // namespace vsa
