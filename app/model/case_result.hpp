#pragma once
// What running one case produced: per backend a verdict, metrics, timings and
// stability counts. Serialised as is into reports and over the worker pipe.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/metrics.hpp"
#include "model/verdict.hpp"

namespace vsa {

struct Timing {
  std::string op;        // "fwd" | "bwd"
  double median_ms = 0;  // median of the pass medians
  double spread = 0;     // (max - min) / median over pass medians
  std::vector<double> pass_medians_ms;
  double tflops = 0;  // docs/spec.md FLOPs / median
  int iterations = 0;
  int launches_per_iteration = 1;  // > 1 in sustained passes (TimingSpec::min_pass_ms)
  int passes = 0;
  bool l2_flush = false;
  // NVML samples per pass: "before" and "after" it, and "during" it (a summary of samples
  // taken every 50 ms while it ran, telemetry/pass_monitor.hpp).
  nlohmann::json clocks;
};
// Every field is required when read back, except launches_per_iteration (1 in reports
// written before sustained passes existed): a truncated report is still an error.
void to_json(nlohmann::json& j, const Timing& t);
void from_json(const nlohmann::json& j, Timing& t);

struct StabilityOutput {
  std::string tensor;
  int runs = 0;
  int mismatched_runs = 0;  // runs not bitwise equal to the first
  std::int64_t max_mismatched_elems = 0;
  double worst_rel_dev = 0;  // max over runs of max|x - first| / max|first|
  double band = 0;           // allowed worst_rel_dev (0: must be bitwise equal)
  bool pass = false;
};
// worst_rel_dev is infinite where a run has a non-finite value the first did not: null in
// JSON, +infinity when read back (model/metrics.hpp).
void to_json(nlohmann::json& j, const StabilityOutput& s);
void from_json(const nlohmann::json& j, StabilityOutput& s);

struct BackendResult {
  std::string backend;
  Verdict verdict = kSkip;
  std::string reason;  // why SKIP / FAIL / FAULT / HANG
  std::vector<TensorMetrics> metrics;
  std::vector<Timing> timings;
  std::vector<StabilityOutput> stability;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(BackendResult, backend, verdict, reason, metrics, timings, stability)

struct CaseResult {
  std::string name;
  nlohmann::json spec;  // the expanded case (to_json(CaseSpec)): enough to repro
  Verdict verdict = kSkip;
  std::string reference;  // backend that produced the reference outputs
  std::string message;    // case-level problem (reference failed, bad input)
  std::int64_t pairs = 0;
  double flops_fwd = 0;
  double flops_bwd = 0;
  double seconds = 0;
  std::vector<BackendResult> backends;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(CaseResult, name, spec, verdict, reference, message, pairs, flops_fwd, flops_bwd,
                                   seconds, backends)

// Case verdict from its backends: the most severe; PASS beats SKIP.
void aggregate_verdict(CaseResult& result);

}  // namespace vsa
