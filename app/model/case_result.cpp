#include "model/case_result.hpp"

#include "util/json_optional.hpp"

namespace vsa {

void to_json(nlohmann::json& j, const ScheduleRecord& s) {
  j = {{"count", s.count},
       {"first_seed", s.first_seed},
       {"finding_seed", json_or_null(s.finding_seed)},
       {"baseline_seed", json_or_null(s.baseline_seed)}};
}

void from_json(const nlohmann::json& j, ScheduleRecord& s) {
  j.at("count").get_to(s.count);
  j.at("first_seed").get_to(s.first_seed);
  read_optional(j, "finding_seed", s.finding_seed);
  read_optional(j, "baseline_seed", s.baseline_seed);
}

void to_json(nlohmann::json& j, const BackendResult& b) {
  j = {{"backend", b.backend}, {"verdict", b.verdict}, {"reason", b.reason},
       {"metrics", b.metrics}, {"timings", b.timings}, {"stability", b.stability}};
  if (b.schedules) j["schedules"] = *b.schedules;
  if (b.lse_factor) j["lse_factor"] = *b.lse_factor;
}

void from_json(const nlohmann::json& j, BackendResult& b) {
  j.at("backend").get_to(b.backend);
  j.at("verdict").get_to(b.verdict);
  j.at("reason").get_to(b.reason);
  j.at("metrics").get_to(b.metrics);
  j.at("timings").get_to(b.timings);
  j.at("stability").get_to(b.stability);
  read_optional(j, "schedules", b.schedules);
  read_optional(j, "lse_factor", b.lse_factor);
}

void to_json(nlohmann::json& j, const CaseResult& c) {
  j = {{"name", c.name},       {"spec", c.spec},        {"verdict", c.verdict},     {"reference", c.reference},
       {"message", c.message}, {"pairs", c.pairs},      {"flops_fwd", c.flops_fwd}, {"flops_bwd", c.flops_bwd},
       {"seconds", c.seconds}, {"backends", c.backends}};
  if (c.backward_inputs) j["backward_inputs"] = *c.backward_inputs;
}

void from_json(const nlohmann::json& j, CaseResult& c) {
  j.at("name").get_to(c.name);
  j.at("spec").get_to(c.spec);
  j.at("verdict").get_to(c.verdict);
  j.at("reference").get_to(c.reference);
  j.at("message").get_to(c.message);
  j.at("pairs").get_to(c.pairs);
  j.at("flops_fwd").get_to(c.flops_fwd);
  j.at("flops_bwd").get_to(c.flops_bwd);
  j.at("seconds").get_to(c.seconds);
  j.at("backends").get_to(c.backends);
  read_optional(j, "backward_inputs", c.backward_inputs);
}

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
