#include "qualify/node_checks.hpp"

#include <algorithm>
#include <stdexcept>

#include "model/exit_codes.hpp"
#include "qualify/health_gates.hpp"

namespace vsa {

bool node_checks_wanted(const std::string& mode, const std::vector<std::string>& suites) {
  if (mode == "on") return true;
  if (mode == "off") return false;
  if (mode != "auto") throw std::invalid_argument("--node-checks: \"" + mode + "\" is not auto, on or off");
  return std::find(suites.begin(), suites.end(), "qualify") != suites.end();
}

std::vector<NodeCheck> node_checks(const Report& report, const FloorTable& floors, const HealthRecord& health,
                                   const ThrottlePolicy& throttle, bool require) {
  if (!report.device.is_object()) return {};
  std::vector<NodeCheck> checks = floor_checks(report, floors);
  std::vector<NodeCheck> health_gates = health_checks(health, report, checks, throttle);
  if (require) require_floors(report, checks);
  for (auto& c : health_gates) checks.push_back(std::move(c));
  return checks;
}

int exit_code_with_checks(int cases_exit_code, const std::vector<NodeCheck>& checks) {
  if (worst_check_verdict(checks) == kFail) return std::max(cases_exit_code, int(kExitCheckFailed));
  return cases_exit_code;
}

}  // namespace vsa
