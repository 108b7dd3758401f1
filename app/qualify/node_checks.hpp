#pragma once
// Which node checks a run makes and all of them for one report (docs/qualify.md):
// the speed floor and clock hold of its GPU model, and the health gates.
#include <string>
#include <vector>

#include "model/node_check.hpp"
#include "qualify/floors.hpp"
#include "qualify/health.hpp"
#include "qualify/throttle_gate.hpp"
#include "report/report.hpp"

namespace vsa {

// `run --node-checks auto|on|off`: auto makes them when the run includes the qualify suite.
[[nodiscard]] bool node_checks_wanted(const std::string& mode, const std::vector<std::string>& suites);

// Floors, then health (for a GPU report; a CPU-only report has none). With `require` (run
// --require-floors) a floor or clock-hold check that judged nothing FAILs; health.throttle is
// judged on the floors as they were (a missing floor is not a failed sustained floor).
[[nodiscard]] std::vector<NodeCheck> node_checks(const Report& report, const FloorTable& floors,
                                                 const HealthRecord& health, const ThrottlePolicy& throttle = {},
                                                 bool require = false);

// The report's exit code with its checks: a FAIL makes a passing run exit 1.
[[nodiscard]] int exit_code_with_checks(int cases_exit_code, const std::vector<NodeCheck>& checks);

}  // namespace vsa
