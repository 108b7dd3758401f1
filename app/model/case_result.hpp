#pragma once
// What running one case produced: per backend a verdict, metrics, timings and
// stability counts. Serialised as is into reports and over the worker pipe.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/metrics.hpp"
#include "model/verdict.hpp"

namespace vsa {

// Passes left out of a timing's median because their SM clock left the others' range
// (engine/pass_sampling.hpp).
struct OffClockPassRecord {
  int pass = 0;
  double sm_clock_mhz = 0;
  double others_min_mhz = 0, others_max_mhz = 0;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(OffClockPassRecord, pass, sm_clock_mhz, others_min_mhz, others_max_mhz)

// How the passes of a timing were chosen (engine/pass_sampling.hpp).
struct SamplingRecord {
  std::string stop = "fixed";  // "fixed" | "converged" | "budget_exhausted" | "max_passes"
  double target_spread = 0;    // 0: fixed passes
  double time_budget_s = 0;
  int min_passes = 0, max_passes = 0;
  double seconds = 0;  // wall time of this op's passes, all backends together
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(SamplingRecord, stop, target_spread, time_budget_s, min_passes, max_passes, seconds)

struct Timing {
  std::string op;        // "fwd" | "bwd"
  double median_ms = 0;  // median of the pass medians kept (off-clock passes left out)
  // Relative width of the >= 95% distribution-free interval of that median (report schema 2;
  // engine/pass_sampling.hpp); with up to 8 kept passes (max - min) / median, as in schema 1.
  double spread = 0;
  std::vector<double> pass_medians_ms;  // every pass, off-clock ones included, in pass order
  double tflops = 0;                    // docs/spec.md FLOPs / median
  int iterations = 0;
  int launches_per_iteration = 1;  // > 1 in sustained passes (TimingSpec::min_pass_ms)
  int passes = 0;                  // passes run (adaptive sampling: more than the suite's)
  bool l2_flush = false;
  // Schema 2; reports of schema 1 lack them (read as: fixed passes, none left out,
  // pass_range = spread).
  double pass_range = 0;  // (max - min) / median over the kept passes
  std::vector<OffClockPassRecord> off_clock_passes;
  SamplingRecord sampling;
  // NVML samples per pass: "before" and "after" it, and "during" it (a summary of samples
  // taken while it ran: every 50 ms in a sustained pass, every 2 ms in a burst pass of 2 ms
  // and more; telemetry/pass_monitor.hpp).
  nlohmann::json clocks;
};
// Every field is required when read back, except launches_per_iteration (1 in reports
// written before sustained passes existed) and the schema-2 fields: a truncated report is
// still an error.
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

// A backend that explores schedules (vsa/schedule_explorer.hpp): the seeds it ran under and
// the one that exposed a finding (a race, deadlock, TMEM rule error, wrong or schedule-
// dependent output). `vsa-bench repro` replays seeds replay_first() .. finding_seed.
struct ScheduleRecord {
  int count = 0;                 // schedules per op in the check (the case's `schedules`)
  std::uint64_t first_seed = 1;  // the case's `schedule_seed`
  std::optional<std::uint64_t> finding_seed;
  // An output that must not depend on the schedule differed: the seed whose outputs it was
  // compared with (the first); replaying needs both schedules.
  std::optional<std::uint64_t> baseline_seed;
  [[nodiscard]] std::uint64_t replay_first() const { return baseline_seed ? *baseline_seed : *finding_seed; }
};
// Keys always written, null when unset (util/json_optional.hpp).
void to_json(nlohmann::json& j, const ScheduleRecord& s);
void from_json(const nlohmann::json& j, ScheduleRecord& s);

struct BackendResult {
  std::string backend;
  Verdict verdict = kSkip;
  std::string reason;  // why SKIP / FAIL / FAULT / HANG
  std::vector<TensorMetrics> metrics;
  std::vector<Timing> timings;
  std::vector<StabilityOutput> stability;
  std::optional<ScheduleRecord> schedules;  // only for backends that explore schedules and ran
  // Only for a backend with its own lse form (Backend::lse_factor != 1): the factor its lse
  // outputs were converted by, after the calls and untimed.
  std::optional<double> lse_factor;
};
// `schedules` and `lse_factor` are written only when set and optional when read (older
// reports lack them).
void to_json(nlohmann::json& j, const BackendResult& b);
void from_json(const nlohmann::json& j, BackendResult& b);

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
  // With `reference: none` and a backward: the backend whose forward gave every backward its O
  // and lse (engine/case_runner.cpp). Written only when set, optional when read.
  std::optional<std::string> backward_inputs;
};
void to_json(nlohmann::json& j, const CaseResult& c);
void from_json(const nlohmann::json& j, CaseResult& c);

// Case verdict from its backends: the most severe; PASS beats SKIP.
void aggregate_verdict(CaseResult& result);

}  // namespace vsa
