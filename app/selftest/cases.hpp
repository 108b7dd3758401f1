#pragma once
// The planted faults that run as ordinary suite cases (through run_suites and its
// isolated workers), and how each one's result is judged.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/case_result.hpp"
#include "selftest/selftest.hpp"

namespace vsa {

// What must show in the planted backend's result for the fault to count as caught.
enum class Expectation {
  fault,            // verdict FAULT
  fault_signal,     // verdict FAULT, the reason names the signal that ended the worker
  hang,             // verdict HANG
  stability,        // at least one stability output with runs differing from the first
  nan_count,        // FAIL with NaNs counted in O
  unwritten_count,  // FAIL with poisoned (never written) elements counted in O
  wrong_values,     // FAIL on the outputs' values (no fault, no NaN needed)
  model_finding     // FAULT whose reason holds the model's report for that backend (model_finding_texts)
};

struct PlantedCase {
  std::string fault;     // row label
  std::string expected;  // row label of the check
  std::string backend;   // the planted backend
  Expectation expectation = Expectation::fault;
  nlohmann::json spec;     // the suite entry (its "name" is unique in the suite)
  nlohmann::json control;  // optional second entry: the same case without the trigger
};

inline constexpr const char* kSelftestSuiteName = "selftest";

[[nodiscard]] std::vector<PlantedCase> planted_cases(const SelftestOptions& options);
// {"name": "selftest", "description": ..., "cases": [every spec and control]}
[[nodiscard]] nlohmann::json planted_suite(const std::vector<PlantedCase>& cases);

// The case the two-stream check runs (stream_safety.hpp): long enough a forward that
// the second call's staging copy lands while the first call's kernel still reads.
[[nodiscard]] nlohmann::json stream_case();

// One row from the run's results. `result` / `control` are null when the case is
// missing from the report (the row then reads MISSED: the machinery lost it).
[[nodiscard]] SelftestRow judge_planted_case(const PlantedCase& planted, const CaseResult* result,
                                             const CaseResult* control);

}  // namespace vsa
