#pragma once
// What `run` adds for node qualification (docs/qualify.md), kept out of the suite
// runner's loop: backend aliases resolved per GPU, a health monitor per GPU while
// the run goes on, and the node checks (floors, health) written into each report.
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/case_spec.hpp"
#include "qualify/floors.hpp"
#include "qualify/health_monitor.hpp"
#include "qualify/throttle_gate.hpp"
#include "report/report.hpp"
#include "run/suite_runner.hpp"
#include "vsa/registry.hpp"

namespace vsa {

// The device a backend's supports() sees, from a discovery entry (worker hello); none for the CPU.
[[nodiscard]] DeviceInfo device_info_of(const nlohmann::json& facts);

// The run's cases for one GPU (or the CPU, facts null): aliases resolved, recorded in the report.
[[nodiscard]] std::vector<CaseSpec> cases_for_target(const std::vector<CaseSpec>& cases, const nlohmann::json& facts,
                                                     const Registry& registry, const RunOptions& options,
                                                     Report& report);

class NodeQualification {
 public:
  // Reads --floors (or the built-in table) when the checks are on; throws SuiteError for a bad file or mode.
  explicit NodeQualification(const RunOptions& options);
  [[nodiscard]] bool enabled() const { return m_enabled; }
  // A started monitor for a GPU target (null when off or for the CPU).
  [[nodiscard]] std::unique_ptr<HealthMonitor> start_monitor(const nlohmann::json& facts) const;
  // Stops the monitor and writes health, checks and the exit code into the report.
  // `workers_ended`: when the last worker of the run was gone (HealthMonitor::stop).
  void finish(Report& report, HealthMonitor* monitor, std::chrono::steady_clock::time_point workers_ended) const;

 private:
  bool m_enabled = false;
  FloorTable m_floors;
  ThrottlePolicy m_throttle;
  bool m_require_floors = false;
};

}  // namespace vsa
