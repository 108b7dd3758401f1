#pragma once
// Rendering a lint result for people (text) and for tools (JSON).
#include <string>

#include <nlohmann/json.hpp>

#include "lint/lint.hpp"

namespace vsa::lint {

// Summary line, then one block per finding:
//   arrive-before-wait  sm_90a  0x01d0  vsa::...::kernel(float*)
//       SYNCS.ARRIVE... releases a barrier while ...
[[nodiscard]] std::string format_text(const LintResult& result);

// {"file", "cuobjdump", "clean" (no finding at all), "errors", "warnings" (counts by severity),
//  "rules": [{id, meaning}], "kernels": [...], "findings": [...]}
[[nodiscard]] nlohmann::json to_json(const LintResult& result);
// `lint --against FILE --json`: the kernels whose SASS counts differ (A = FILE, B = linted).
[[nodiscard]] nlohmann::json changes_to_json(const std::string& against_file,
                                             const std::vector<sass::CountChange>& changes);

}  // namespace vsa::lint
