#include "telemetry/clock_summary.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "telemetry/clock_sample.hpp"

namespace vsa {

namespace {

void add_slowdowns(const nlohmann::json& sample, std::set<std::string>& slowdowns) {
  const auto mask = event_reasons_of(sample);
  if (!mask) return;
  const std::uint64_t bits = *mask;
  for (int b = 0; b < 64; ++b) {  // only the reasons that hold the clock down, by name
    const std::uint64_t bit = std::uint64_t(1) << b;
    if ((bits & bit) != 0 && is_slowdown(bit))
      for (const auto& name : decode_clock_event_reasons(bit)) slowdowns.insert(name);
  }
}

// A statistic of a "during" summary (telemetry/pass_monitor.hpp): {"min", "mean", "max"},
// all numbers; anything else (a hand-edited or damaged report) counts as absent.
const nlohmann::json* statistic(const nlohmann::json& during, const char* field) {
  const auto s = during.find(field);
  if (s == during.end() || !s->is_object()) return nullptr;
  for (const char* k : {"min", "mean", "max"}) {
    const auto v = s->find(k);
    if (v == s->end() || !v->is_number()) return nullptr;
  }
  return &*s;
}

}  // namespace

std::string clock_summary(const nlohmann::json& clocks) {
  if (!clocks.is_array()) return "";
  double lo = 1e300, hi = 0, watts = 0;
  int watt_passes = 0;
  std::set<std::string> slowdowns;
  for (const auto& pass : clocks) {
    if (!pass.is_object()) continue;
    // A sustained pass's samples during it; else the one after it.
    const auto during = pass.find("during");
    const nlohmann::json* range = during != pass.end() ? statistic(*during, "sm_clock_mhz") : nullptr;
    if (range != nullptr) {
      lo = std::min(lo, (*range)["min"].get<double>());
      hi = std::max(hi, (*range)["max"].get<double>());
      // NVML's one-second mean where the pass kept it (sustained), else the instant readings
      // (a burst pass is shorter than that mean).
      const nlohmann::json* w = statistic(*during, "power_w");
      if (w == nullptr) w = statistic(*during, "power_instant_w");
      if (w != nullptr) {
        watts += (*w)["mean"].get<double>();
        ++watt_passes;
      }
      add_slowdowns(*during, slowdowns);
      continue;
    }
    const auto after = pass.find("after");
    if (after == pass.end() || !after->is_object()) continue;
    const auto mhz = after->find("sm_clock_mhz");
    if (mhz != after->end() && mhz->is_number_unsigned()) {
      lo = std::min(lo, mhz->get<double>());
      hi = std::max(hi, mhz->get<double>());
    }
    add_slowdowns(*after, slowdowns);
  }
  if (hi == 0) return "";
  // Appended piece by piece: GCC 12 warns (-Wrestrict, a known false positive) on
  // "literal" + std::to_string(...) here.
  std::string out = "at ";
  out += std::to_string(std::lround(lo));
  if (std::lround(hi) != std::lround(lo)) {
    out += '-';
    out += std::to_string(std::lround(hi));
  }
  out += " MHz";
  if (watt_passes > 0) {
    out += ", ";
    out += std::to_string(std::lround(watts / watt_passes));
    out += " W";
  }
  for (const auto& name : slowdowns) out += ", " + name;
  return out;
}

}  // namespace vsa
