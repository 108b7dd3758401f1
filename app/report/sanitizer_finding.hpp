#pragma once
// Whether a report run under `vsa-bench sanitize` holds compute-sanitizer findings, read from its
// "sanitizer" object. The run's own verdicts and exit code are the cases' (sanitize annotates the
// report after the run); this is what makes `sanitize` exit 1, so that readers of the report
// alone (fleet, the Markdown) judge it the same way.
#include <string>

#include <nlohmann/json.hpp>

namespace vsa {

// compute-sanitizer exits with this when it found errors (`--error-exitcode`).
inline constexpr int kSanitizerErrorExit = 86;

// "" when the run was clean or not under compute-sanitizer, else what was found, e.g.
// "compute-sanitizer racecheck: 4 hazards (4 errors, 0 warnings), exit status 86".
[[nodiscard]] std::string sanitizer_finding(const nlohmann::json& sanitizer);

}  // namespace vsa
