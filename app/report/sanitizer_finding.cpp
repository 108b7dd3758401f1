#include "report/sanitizer_finding.hpp"

#include <cstdint>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "util/json_lookup.hpp"

namespace vsa {

std::string sanitizer_finding(const nlohmann::json& sanitizer) {
  if (!sanitizer.is_object()) return "";
  const nlohmann::json result = json_value_or(sanitizer, "result", nlohmann::json::object());
  // As SanitizerLog::found_problems: a count that is missing (no summary line) counts as none.
  const auto count = [&](const char* key) {
    const auto it = result.find(key);
    return it != result.end() && it->is_number_integer() ? it->get<std::int64_t>() : std::int64_t(0);
  };
  const int status = json_value_or(sanitizer, "exit_status", -1);
  const std::int64_t errors = count("errors"), hazards = count("hazards"), hazard_errors = count("hazard_errors");
  if (errors <= 0 && hazards <= 0 && hazard_errors <= 0 && status != kSanitizerErrorExit) return "";
  std::vector<std::string> found;
  if (errors > 0) found.push_back(fmt::format("{} errors", errors));
  if (hazards > 0 || hazard_errors > 0)
    found.push_back(
        fmt::format("{} hazards ({} errors, {} warnings)", hazards, hazard_errors, count("hazard_warnings")));
  if (found.empty()) found.emplace_back("errors");
  return fmt::format("compute-sanitizer {}: {}, exit status {}", json_value_or(sanitizer, "tool", "?"),
                     fmt::join(found, ", "), status);
}

}  // namespace vsa
