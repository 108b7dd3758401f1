#include "report/clock_summary.hpp"

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "report/clock_sample.hpp"

namespace vsa {

std::string clock_summary(const nlohmann::json& clocks) {
  if (!clocks.is_array()) return "";
  unsigned lo = ~0u, hi = 0;
  std::set<std::string> slowdowns;
  for (const auto& pass : clocks) {
    if (!pass.is_object()) continue;
    const auto after = pass.find("after");
    if (after == pass.end() || !after->is_object()) continue;
    const auto mhz = after->find("sm_clock_mhz");
    if (mhz != after->end() && mhz->is_number_unsigned()) {
      lo = std::min(lo, mhz->get<unsigned>());
      hi = std::max(hi, mhz->get<unsigned>());
    }
    const auto mask = after->find("event_reasons");
    if (mask == after->end() || !mask->is_number_unsigned()) continue;
    const auto bits = mask->get<std::uint64_t>();
    for (int b = 0; b < 64; ++b) {  // only the reasons that hold the clock down, by name
      const std::uint64_t bit = std::uint64_t(1) << b;
      if ((bits & bit) != 0 && is_slowdown(bit))
        for (const auto& name : decode_clock_event_reasons(bit)) slowdowns.insert(name);
    }
  }
  if (hi == 0) return "";
  // Appended piece by piece: GCC 12 warns (-Wrestrict, a known false positive) on
  // "literal" + std::to_string(...) here.
  std::string out = "at ";
  out += std::to_string(lo);
  if (hi != lo) {
    out += '-';
    out += std::to_string(hi);
  }
  out += " MHz";
  for (const auto& name : slowdowns) out += ", " + name;
  return out;
}

}  // namespace vsa
