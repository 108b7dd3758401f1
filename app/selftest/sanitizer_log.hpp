#pragma once
// Reading compute-sanitizer's output: its summary counts and the first lines of
// each finding. Every line of the tool's own output starts with "=========";
// a finding is a block of such lines ending with a bare "=========".
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace vsa {

struct SanitizerLog {
  std::optional<std::int64_t> errors;   // "ERROR SUMMARY: N errors"
  std::optional<std::int64_t> hazards;  // "RACECHECK SUMMARY: N hazards displayed (E errors, W warnings)"
  std::optional<std::int64_t> hazard_errors, hazard_warnings;
  std::vector<std::string> summary;                // the summary lines as printed
  std::vector<std::string> notes;                  // e.g. "Target application returned an error"
  std::vector<std::vector<std::string>> findings;  // first lines of each finding, prefix removed
  std::size_t findings_seen = 0;                   // including those past the kept ones

  // Errors or hazards reported (a missing summary counts as none: compute-sanitizer prints none
  // when the target made no CUDA call, and its "Target application terminated before first
  // instrumented API call" line would read as a finding). A tool killed before its summary is
  // told apart by its exit status (SanitizeResult::exit_code).
  [[nodiscard]] bool found_problems() const {
    return errors.value_or(0) > 0 || hazards.value_or(0) > 0 || hazard_errors.value_or(0) > 0;
  }
};

[[nodiscard]] SanitizerLog parse_sanitizer_log(std::string_view text, std::size_t max_findings = 50,
                                               std::size_t lines_per_finding = 6);

// {"errors", "hazards", "hazard_errors", "hazard_warnings", "summary", "notes", "findings", "findings_seen"}
[[nodiscard]] nlohmann::json to_json(const SanitizerLog& log);

}  // namespace vsa
