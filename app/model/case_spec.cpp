#include "model/case_spec.hpp"

namespace vsa {

const char* to_string(Mode m) {
  switch (m) {
    case Mode::check:
      return "check";
    case Mode::stability:
      return "stability";
    case Mode::perf:
      return "perf";
  }
  return "?";
}

const char* to_string(OpSelect op) {
  switch (op) {
    case OpSelect::forward:
      return "fwd";
    case OpSelect::backward:
      return "bwd";
    case OpSelect::both:
      return "both";
  }
  return "?";
}

bool runs_forward(OpSelect op) { return op != OpSelect::backward; }
bool runs_backward(OpSelect op) { return op != OpSelect::forward; }

nlohmann::json to_json(const CaseSpec& c) {
  nlohmann::json pattern = {{"kind", c.pattern.kind},
                            {"density", c.pattern.density},
                            {"zero_rows", c.pattern.zero_rows},
                            {"sorted", c.pattern.sorted}};
  if (c.pattern.kind == "video") {
    pattern["latent"] = c.pattern.latent;
    pattern["window"] = c.pattern.window;
  }
  if (c.pattern.kind == "explicit") pattern["rows"] = c.pattern.rows;
  nlohmann::json vbs = {{"kind", c.vbs.kind}};
  if (c.vbs.kind == "explicit") vbs["values"] = c.vbs.values;
  nlohmann::json j = {
      {"name", c.name},
      {"mode", to_string(c.mode)},
      {"op", to_string(c.op)},
      {"B", c.shape.batch},
      {"H", c.shape.heads},
      {"S", c.shape.seq()},
      {"D", c.shape.head_dim},
      {"blk", c.shape.block},
      {"pattern", pattern},
      {"vbs", vbs},
      {"seed", c.seed},
      {"scale", c.scale},
      {"backends", c.backends},
      {"reference", c.reference},
      {"cpu_reference_limit", c.cpu_reference_limit},
      {"validate", c.validate},
      {"tolerance", {{"rel_max", c.tolerance.rel_max}, {"rel_l2", c.tolerance.rel_l2}}},
      {"timing",
       {{"warmup", c.timing.warmup},
        {"iterations", c.timing.iterations},
        {"passes", c.timing.passes},
        {"l2_flush", c.timing.l2_flush},
        {"min_pass_ms", c.timing.min_pass_ms},
        {"target_spread", c.timing.target_spread},
        {"time_budget_s", c.timing.time_budget_s},
        {"max_passes", c.timing.max_passes}}},
      {"stability", {{"runs", c.stability.runs}, {"bands", c.stability.bands}}},
      {"timeout_s", c.timeout_s},
      {"probes", c.probes},
  };
  if (!c.added_backends.empty()) j["added_backends"] = c.added_backends;  // absent unless run --add-backend
  if (c.hang_watch_ms > 0) j["hang_watch_ms"] = c.hang_watch_ms;          // absent when off: reports unchanged
  if (c.schedules != 1) j["schedules"] = c.schedules;                     // likewise: absent at the default
  if (c.schedule_seed != 1) j["schedule_seed"] = c.schedule_seed;
  return j;
}

}  // namespace vsa
