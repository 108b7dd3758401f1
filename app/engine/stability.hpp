#pragma once
// Stability (race) runs: N back-to-back runs on fixed inputs, each output
// compared bitwise with the first run (docs/design.md, "Running").
#include "engine/case_data.hpp"
#include "model/case_result.hpp"

namespace vsa {

// Fills br.stability and downgrades br.verdict to FAIL on a mismatch outside its band.
void run_stability(BackendSession& session, BackendResult& br, const CaseSpec& spec);

// Compares one run with the first: counts differing elements, max |x - first| / max |first|.
struct RunDiff {
  std::int64_t mismatched = 0;
  double rel_dev = 0;
};
[[nodiscard]] RunDiff diff_bf16(const std::vector<bf16_bits>& first, const std::vector<bf16_bits>& run);
[[nodiscard]] RunDiff diff_f32(const std::vector<float>& first, const std::vector<float>& run);

}  // namespace vsa
