#include "model/case_result.hpp"

#include "util/json_optional.hpp"
#include "util/json_path_error.hpp"

namespace vsa {

void to_json(nlohmann::json& j, const ScheduleRecord& s) {
  j = {{"count", s.count},
       {"first_seed", s.first_seed},
       {"finding_seed", json_or_null(s.finding_seed)},
       {"baseline_seed", json_or_null(s.baseline_seed)}};
}

void from_json(const nlohmann::json& j, ScheduleRecord& s) {
  read_field(j, "count", s.count);
  read_field(j, "first_seed", s.first_seed);
  read_optional_field(j, "finding_seed", s.finding_seed);
  read_optional_field(j, "baseline_seed", s.baseline_seed);
}

void to_json(nlohmann::json& j, const BackendResult& b) {
  j = {{"backend", b.backend}, {"verdict", b.verdict}, {"reason", b.reason},
       {"metrics", b.metrics}, {"timings", b.timings}, {"stability", b.stability}};
  if (b.schedules) j["schedules"] = *b.schedules;
  if (b.lse_factor) j["lse_factor"] = *b.lse_factor;
}

void from_json(const nlohmann::json& j, BackendResult& b) {
  read_field(j, "backend", b.backend);
  read_field(j, "verdict", b.verdict);
  read_field(j, "reason", b.reason);
  read_each(j, "metrics", b.metrics);
  read_each(j, "timings", b.timings);
  read_each(j, "stability", b.stability);
  read_optional_field(j, "schedules", b.schedules);
  read_optional_field(j, "lse_factor", b.lse_factor);
}

void to_json(nlohmann::json& j, const CaseResult& c) {
  j = {{"name", c.name},       {"spec", c.spec},        {"verdict", c.verdict},     {"reference", c.reference},
       {"message", c.message}, {"pairs", c.pairs},      {"flops_fwd", c.flops_fwd}, {"flops_bwd", c.flops_bwd},
       {"seconds", c.seconds}, {"backends", c.backends}};
  if (c.backward_inputs) j["backward_inputs"] = *c.backward_inputs;
}

void from_json(const nlohmann::json& j, CaseResult& c) {
  read_field(j, "name", c.name);
  read_field(j, "spec", c.spec);
  if (!c.spec.is_object()) throw JsonPathError(".spec", std::string("must be object, but is ") + c.spec.type_name());
  read_field(j, "verdict", c.verdict);
  read_field(j, "reference", c.reference);
  read_field(j, "message", c.message);
  read_field(j, "pairs", c.pairs);
  read_field(j, "flops_fwd", c.flops_fwd);
  read_field(j, "flops_bwd", c.flops_bwd);
  read_field(j, "seconds", c.seconds);
  read_each(j, "backends", c.backends);
  read_optional_field(j, "backward_inputs", c.backward_inputs);
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
  read_field(j, "op", t.op);
  if (t.op != "fwd" && t.op != "bwd") throw JsonPathError(".op", "must be \"fwd\" or \"bwd\", got \"" + t.op + "\"");
  read_field(j, "median_ms", t.median_ms);
  read_field(j, "spread", t.spread);
  read_field(j, "pass_medians_ms", t.pass_medians_ms);
  read_field(j, "tflops", t.tflops);
  // A figure below 0 is no measurement (readers drop figures <= 0 as untimed, so a damaged one
  // would vanish from fleet and compare instead of being refused).
  if (!(t.median_ms >= 0)) throw JsonPathError(".median_ms", "must be >= 0");
  if (!(t.tflops >= 0)) throw JsonPathError(".tflops", "must be >= 0");
  // A negative spread would widen compare's noise allowance the wrong way (and pass a gate).
  if (!(t.spread >= 0)) throw JsonPathError(".spread", "must be >= 0");
  read_field(j, "iterations", t.iterations);
  read_field_or(j, "launches_per_iteration", t.launches_per_iteration, 1);
  read_field(j, "passes", t.passes);
  read_field(j, "l2_flush", t.l2_flush);
  read_field(j, "clocks", t.clocks);
  read_field_or(j, "pass_range", t.pass_range, t.spread);
  if (!(t.pass_range >= 0)) throw JsonPathError(".pass_range", "must be >= 0");
  if (j.contains("off_clock_passes")) read_each(j, "off_clock_passes", t.off_clock_passes);
  if (j.contains("sampling")) {
    read_field(j, "sampling", t.sampling);
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
  read_field(j, "tensor", s.tensor);
  read_field(j, "runs", s.runs);
  read_field(j, "mismatched_runs", s.mismatched_runs);
  read_field(j, "max_mismatched_elems", s.max_mismatched_elems);
  s.worst_rel_dev = at_path(".worst_rel_dev", [&] { return ratio_from_json(j, "worst_rel_dev"); });
  read_field(j, "band", s.band);
  read_field(j, "pass", s.pass);
}

void aggregate_verdict(CaseResult& r) {
  Verdict worst = r.message.empty() ? kSkip : kFail;
  for (const auto& b : r.backends)
    if (verdict_severity(b.verdict) > verdict_severity(worst)) worst = b.verdict;
  r.verdict = worst;
}

}  // namespace vsa
