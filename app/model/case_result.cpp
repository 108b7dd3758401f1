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
       {"clocks", t.clocks}};
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
}

void to_json(nlohmann::json& j, const StabilityOutput& s) {
  j = {{"tensor", s.tensor},
       {"runs", s.runs},
       {"mismatched_runs", s.mismatched_runs},
       {"max_mismatched_elems", s.max_mismatched_elems},
       {"worst_rel_dev", s.worst_rel_dev},
       {"band", s.band},
       {"pass", s.pass}};
}

void from_json(const nlohmann::json& j, StabilityOutput& s) {
  j.at("tensor").get_to(s.tensor);
  j.at("runs").get_to(s.runs);
  j.at("mismatched_runs").get_to(s.mismatched_runs);
  j.at("max_mismatched_elems").get_to(s.max_mismatched_elems);
  s.worst_rel_dev = ratio_from_json(j, "worst_rel_dev");
  j.at("band").get_to(s.band);
  j.at("pass").get_to(s.pass);
}

void aggregate_verdict(CaseResult& r) {
  Verdict worst = r.message.empty() ? kSkip : kFail;
  for (const auto& b : r.backends)
    if (verdict_severity(b.verdict) > verdict_severity(worst)) worst = b.verdict;
  r.verdict = worst;
}

}  // namespace vsa
