#include "model/node_check.hpp"

#include "util/json_path_error.hpp"

namespace vsa {

void to_json(nlohmann::json& j, const NodeCheck& c) {
  j = {{"name", c.name},     {"kind", c.kind},   {"verdict", c.verdict},    {"code", c.code},
       {"reason", c.reason}, {"value", c.value}, {"threshold", c.threshold}};
  add_timing_fields(j, c);
}

void add_timing_fields(nlohmann::json& j, const NodeCheck& c) {
  if (!c.case_name.empty()) j["case"] = c.case_name;
  if (!c.backend.empty()) j["backend"] = c.backend;
  if (!c.op.empty()) j["op"] = c.op;
}

void from_json(const nlohmann::json& j, NodeCheck& c) {
  read_field_or(j, "name", c.name, std::string());
  read_field_or(j, "kind", c.kind, std::string());
  read_field_or(j, "verdict", c.verdict, kSkip);
  read_field_or(j, "code", c.code, std::string());
  read_field_or(j, "reason", c.reason, std::string());
  c.value = j.value("value", nlohmann::json());
  c.threshold = j.value("threshold", nlohmann::json());
  read_field_or(j, "case", c.case_name, std::string());
  read_field_or(j, "backend", c.backend, std::string());
  read_field_or(j, "op", c.op, std::string());
}

Verdict worst_check_verdict(const std::vector<NodeCheck>& checks) {
  Verdict worst = kSkip;
  for (const auto& c : checks)
    if (verdict_severity(c.verdict) > verdict_severity(worst)) worst = c.verdict;
  return worst;
}

}  // namespace vsa
