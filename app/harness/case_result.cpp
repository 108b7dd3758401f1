#include "harness/case_result.hpp"

namespace vsa {

int verdict_severity(const std::string& v) {
  if (v == kSkip) return 0;
  if (v == kPass) return 1;
  if (v == kFail) return 2;
  if (v == kFault) return 3;
  if (v == kHang) return 4;
  return 5;
}

void aggregate_verdict(CaseResult& r) {
  std::string worst = r.message.empty() ? kSkip : kFail;
  for (const auto& b : r.backends)
    if (verdict_severity(b.verdict) > verdict_severity(worst)) worst = b.verdict;
  r.verdict = worst;
}

}  // namespace vsa
