#pragma once
// `vsa-bench compare` (docs/design.md, "Comparing"): reports side by side. One report
// is the baseline column (the first, or --baseline); the others are compared to it:
// configuration (driver, firmware, toolkit, kernel images) with differences marked,
// verdicts with their worst error, TFLOPS with ratios, and within each report the
// speed of each backend against the case's reference. With the gate on, a case
// whose TFLOPS dropped beyond the threshold and beyond measurement noise is a
// regression (exit 3); a case whose noise hides a drop of the threshold is "too noisy to
// gate" (exit 4, like missing data: the gate could not see, so it did not pass).
#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "report/report_fields.hpp"
#include "report/report_files.hpp"

namespace vsa {

struct CompareOptions {
  std::size_t baseline = 0;  // index of the reference report
  bool gate = false;         // report regressions and exit 3 on them
  double threshold = 0.05;   // allowed drop, as a fraction of the baseline TFLOPS
};

struct ConfigRow {
  std::string key, title;
  bool identity = false;            // host, UUID...: expected to differ, never a "difference"
  std::vector<std::string> values;  // one per report, "" when unknown
  bool differs = false;
};

struct VerdictCell {
  std::string verdict;
  std::string reason;
  std::optional<WorstError> worst;
};
struct VerdictRow {
  std::string case_name, backend;                 // backend "" for a case that ran no backend
  std::vector<std::optional<VerdictCell>> cells;  // nullopt: not in that report
  bool differs = false;
};

struct PerfCell {
  double tflops = 0;
  double spread = 0;   // relative: (max - min) / median of the pass medians
  std::string clocks;  // "at 1395-1620 MHz, sw_power_cap" (telemetry/clock_summary.hpp), or empty
  int passes = 0;      // kept passes; 1: the spread is unmeasured, not zero
  std::string method;  // timing_method() (report_fields.hpp)
  std::string shared;  // passes run beside another compute process (report/shared_gpu.hpp), or empty
};
struct PerfRow {
  std::string case_name, op, backend;
  std::vector<std::optional<PerfCell>> cells;
  std::vector<std::optional<double>> ratios;  // tflops / baseline tflops
  std::vector<std::string> notes;             // why a ratio is missing ("spec differs"), or what qualifies
                                              // one ("lse form differs: ...")
  std::vector<bool> regressed;
  std::vector<bool> too_noisy;  // gate on, not regressed, and the noise hides a threshold-sized drop
};

// Within one report: backend TFLOPS / `versus` TFLOPS on the same case and op.
// `versus` is the case's reference when it was timed, else cuda-ref, else the
// last timed backend of the case.
struct SpeedupRow {
  std::string case_name, op, backend, versus;
  std::vector<std::optional<double>> speedups;
};

struct Regression {
  std::size_t report = 0;
  std::string case_name, op, backend;
  PerfCell base, now;
  [[nodiscard]] double change() const { return now.tflops / base.tflops - 1; }
};

// A timing the gate could not see through: base and new spreads together exceed the
// threshold, so a drop of the threshold would read as noise (see too_noisy_to_gate).
inline constexpr const char* kCodeTooNoisy = "VSA_E_TOO_NOISY";
struct TooNoisy {
  std::size_t report = 0;
  std::string case_name, op, backend;
  PerfCell base, now;
  std::string why;  // "spreads 13% + 1.0% exceed the 5% threshold", "1 pass: spread unmeasured"
  double threshold = 0;
  [[nodiscard]] double noise() const;  // noise_at_threshold_drop(base, now, threshold)
};

// What the gate could not judge: a baseline timing with no counterpart in a report.
struct MissingTiming {
  std::size_t report = 0;
  std::string case_name, op, backend;
  std::string why;  // "case not in the report", "no timing (verdict SKIP: ...)", "spec differs"
};

struct Comparison {
  std::vector<std::string> paths;
  std::vector<ReportIdentity> who;
  std::vector<std::string> finished_at;  // "incomplete ..." for an interrupted run
  CompareOptions options;
  std::vector<ConfigRow> config;
  std::vector<VerdictRow> verdicts;
  std::vector<PerfRow> perf;
  std::vector<SpeedupRow> speedups;
  std::vector<Regression> regressions;  // only with the gate on
  // Only with the gate on. Missing data fails the gate: a report that lost a case or its
  // timings must not read "No regression". A baseline with no timing at all is one entry
  // with an empty case name.
  std::vector<MissingTiming> missing;
  std::vector<TooNoisy> too_noisy;  // only with the gate on

  // Titles of the configuration rows (not identity) whose values differ.
  [[nodiscard]] std::vector<std::string> config_differences() const;
  // With the gate on: kExitRegression when a figure dropped beyond threshold and noise (a proven
  // drop stands whatever else is missing: the table lists the rest); else kExitIncomplete when
  // data is missing or a timing is too noisy to gate; kExitOk otherwise.
  [[nodiscard]] int exit_code() const;
};

// The gate's rule: `now` regressed against `base` when it is below
// base * (1 - threshold) AND the gap exceeds both measurements' recorded spreads
// added up (base.tflops * base.spread + now.tflops * now.spread), so a difference
// inside the noise of either run never fails a gate.
[[nodiscard]] bool is_regression(const PerfCell& base, const PerfCell& now, double threshold);

// The noise allowance of is_regression for a report exactly at the drop the threshold names
// (TFLOPS = base * (1 - threshold)), over the base TFLOPS: base.spread + (1 - t) * now.spread.
[[nodiscard]] double noise_at_threshold_drop(const PerfCell& base, const PerfCell& now, double threshold);

// Why the gate cannot judge `now` against `base` at `threshold`, "" when it can: a
// measurement of one pass has no spread; otherwise noise_at_threshold_drop is at least the
// threshold, so a drop of exactly the threshold, or somewhat more, would pass as noise.
// Judged at the threshold and not at now's TFLOPS: a faster report is not too noisy for it.
[[nodiscard]] std::string too_noisy_to_gate(const PerfCell& base, const PerfCell& now, double threshold);

// The gate's call on one timing: a regression, too noisy to gate (with why), or neither.
struct GateCall {
  bool regressed = false;
  std::string too_noisy;  // set only when not regressed
};
// In this order: a side timed beside another compute process (report/shared_gpu.hpp) is too
// noisy whatever it shows, a regression included, since a neighbour's slowdown is not ours;
// then is_regression (a drop beyond the noise is a regression however noisy the sides);
// then too_noisy_to_gate.
[[nodiscard]] GateCall gate_call(const PerfCell& base, const PerfCell& now, double threshold);

// Throws std::invalid_argument for fewer than two reports or a baseline out of range.
[[nodiscard]] Comparison compare_reports(const std::vector<ReportFile>& reports, const CompareOptions& options);

[[nodiscard]] std::string render_markdown(const Comparison& comparison);
[[nodiscard]] nlohmann::json to_json(const Comparison& comparison);

}  // namespace vsa
