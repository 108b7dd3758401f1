#include "model/case_result.hpp"

namespace vsa {

void to_json(nlohmann::json& j, const Timing& t) {
  j = {{"op", t.op},
       {"median_ms", t.median_ms},
       {"spread", t.spread},
       {"pass_medians_ms", t.pass_medians_ms},
       {"tflops", t.tflops},
       {"iterations", t.iterations},
       {"launches_per_iteration", t.launches_per_iteration},
       {"passes", t.passes},
       {"l2_flush", t.l2_flush},
       {"clocks", t.clocks},
       {"pass_range", t.pass_range},
       {"off_clock_passes", t.off_clock_passes},
       {"sampling", t.sampling}};
}

void from_json(const nlohmann::json& j, Timing& t) {
  j.at("op").get_to(t.op);
  j.at("median_ms").get_to(t.median_ms);
  j.at("spread").get_to(t.spread);
  j.at("pass_medians_ms").get_to(t.pass_medians_ms);
  j.at("tflops").get_to(t.tflops);
  j.at("iterations").get_to(t.iterations);
  t.launches_per_iteration = j.value("launches_per_iteration", 1);
  j.at("passes").get_to(t.passes);
  j.at("l2_flush").get_to(t.l2_flush);
  j.at("clocks").get_to(t.clocks);
  t.pass_range = j.value("pass_range", t.spread);
  if (j.contains("off_clock_passes")) j.at("off_clock_passes").get_to(t.off_clock_passes);
  if (j.contains("sampling")) {
    j.at("sampling").get_to(t.sampling);
  } else {
    t.sampling.min_passes = t.sampling.max_passes = t.passes;
  }
}

void aggregate_verdict(CaseResult& r) {
  Verdict worst = r.message.empty() ? kSkip : kFail;
  for (const auto& b : r.backends)
    if (verdict_severity(b.verdict) > verdict_severity(worst)) worst = b.verdict;
  r.verdict = worst;
}

}  // namespace vsa
