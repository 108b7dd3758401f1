#include "run/node_qualification.hpp"

#include "qualify/backend_alias.hpp"
#include "qualify/node_checks.hpp"
#include "suite/suite.hpp"
#include "telemetry/nvml.hpp"
#include "util/json_input.hpp"

namespace vsa {

DeviceInfo device_info_of(const nlohmann::json& facts) {
  DeviceInfo d;
  if (!facts.is_object()) return d;
  d.ordinal = facts.value("ordinal", -1);
  d.name = facts.value("name", "");
  d.cc_major = facts.value("cc_major", 0);
  d.cc_minor = facts.value("cc_minor", 0);
  d.sm_count = facts.value("sm_count", 0);
  d.smem_per_block_optin = facts.value("smem_per_block_optin", std::size_t{0});
  d.global_mem = std::size_t(facts.value("global_mem", 0.0));
  return d;
}

std::vector<CaseSpec> cases_for_target(const std::vector<CaseSpec>& cases, const nlohmann::json& facts,
                                       const Registry& registry, const RunOptions& options, Report& report) {
  std::vector<CaseSpec> mine = cases;
  const auto expansions = expand_backend_aliases(mine, device_info_of(facts), registry, options.backends);
  report.backend_aliases = backend_aliases_json(expansions);
  return mine;
}

NodeQualification::NodeQualification(const RunOptions& o) {
  try {
    m_enabled = node_checks_wanted(o.node_checks, o.suites);
  } catch (const std::invalid_argument& e) {
    throw SuiteError(e.what());
  }
  m_require_floors = o.require_floors;
  if (m_require_floors && !m_enabled)
    throw SuiteError("--require-floors needs the node checks: run the qualify suite, or add --node-checks on");
  try {  // checked even with the checks off: a mistyped option is refused, not ignored
    m_throttle = throttle_policy(o.throttle_ignore, 0.05);
  } catch (const std::invalid_argument& e) {
    throw SuiteError(std::string("--throttle-ignore: ") + e.what());
  }
  try {
    m_throttle = throttle_policy(o.throttle_ignore, o.sw_thermal_max_fraction);
  } catch (const std::invalid_argument& e) {
    throw SuiteError(std::string("--sw-thermal-max: ") + e.what());
  }
  if (o.floors_path.empty()) {
    if (m_enabled) m_floors = builtin_floors();
    return;
  }
  // Read even with the checks off, like the options above: a mistyped path is refused, not ignored.
  nlohmann::json table;
  try {
    table = parse_json_input(read_input_file(o.floors_path));
  } catch (const std::exception& e) {
    throw SuiteError("--floors " + o.floors_path + ": " + e.what());
  }
  try {
    m_floors = floor_table_from_json(table, o.floors_path);
  } catch (const std::exception& e) {
    throw SuiteError(std::string("--floors: ") + e.what());
  }
}

std::unique_ptr<HealthMonitor> NodeQualification::start_monitor(const nlohmann::json& facts) const {
  if (!m_enabled || !facts.is_object()) return nullptr;
  const Nvml& nvml = shared_nvml();
  std::optional<NvmlDevice> device;
  std::string why;
  if (!nvml.available())
    why = nvml.error();
  else if (auto d = nvml.device_by_pci_bus_id(facts.value("pci_bus_id", "")))
    device = d;
  else
    why = "NVML has no device at PCI " + facts.value("pci_bus_id", std::string("?"));
  auto monitor = std::make_unique<HealthMonitor>(nvml, device, why);
  monitor->start();
  return monitor;
}

void NodeQualification::finish(Report& report, HealthMonitor* monitor,
                               std::chrono::steady_clock::time_point workers_ended) const {
  if (!m_enabled) return;
  if (!report.device.is_object()) {
    // Without a GPU there is no speed to judge: fail closed when floors are required.
    if (!m_require_floors) return;
    report.checks = {required_floor_failure("floor (any)", "this run had no GPU, so nothing judged the node's speed")};
    report.exit_code = exit_code_with_checks(report.exit_code, report.checks);
    return;
  }
  HealthRecord record;
  if (monitor)
    record = monitor->stop(workers_ended);
  else
    record.why_not = "not monitored";
  report.health = to_json(record);
  report.checks = node_checks(report, m_floors, record, m_throttle, m_require_floors);
  report.exit_code = exit_code_with_checks(report.exit_code, report.checks);
}

}  // namespace vsa
