#include "model/node_check.hpp"

namespace vsa {

void to_json(nlohmann::json& j, const NodeCheck& c) {
  j = {{"name", c.name},     {"kind", c.kind},   {"verdict", c.verdict},    {"code", c.code},
       {"reason", c.reason}, {"value", c.value}, {"threshold", c.threshold}};
}

void from_json(const nlohmann::json& j, NodeCheck& c) {
  c.name = j.value("name", "");
  c.kind = j.value("kind", "");
  c.verdict = j.value("verdict", kSkip);
  c.code = j.value("code", "");
  c.reason = j.value("reason", "");
  c.value = j.value("value", nlohmann::json());
  c.threshold = j.value("threshold", nlohmann::json());
}

Verdict worst_check_verdict(const std::vector<NodeCheck>& checks) {
  Verdict worst = kSkip;
  for (const auto& c : checks)
    if (verdict_severity(c.verdict) > verdict_severity(worst)) worst = c.verdict;
  return worst;
}

}  // namespace vsa
