#pragma once
// How a timing was sampled, in words, for the Markdown report and the terminal: the
// number of passes, whether adaptive sampling converged or ran out of budget, and how
// many off-clock passes were left out of the median (engine/pass_sampling.hpp).
#include <string>

#include "model/case_result.hpp"

namespace vsa {

// The part inside a TFLOPS cell's parentheses: "±0.68%", "1 pass", "±0.9%, 12 passes,
// converged", "±3.1%, 40 passes, budget exhausted, 2 off-clock left out".
[[nodiscard]] std::string spread_text(const Timing& timing);

// "budget exhausted", "max passes", "converged", "" for fixed passes.
[[nodiscard]] std::string stop_text(const Timing& timing);

// For a case's progress line: the timings a reader should look at (not converged, or with
// off-clock passes left out), "sm90a fwd: ±3.1% after 40 passes, budget exhausted; sm90a-det
// bwd: 1 off-clock pass left out"; "" when there is none.
[[nodiscard]] std::string timing_note(const CaseResult& result);

}  // namespace vsa
