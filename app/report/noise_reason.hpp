#pragma once
// Why a perf figure's spread stayed above its target (issue 22: "≤ 2% spread on every perf
// case, or a stated reason per case"). Derived from what the report already holds (the pass
// medians, the off-clock passes, the clock samples per pass and how sampling ended), so it
// is stated for old reports too, and the Markdown report, `render` and the NVBench export
// say the same thing.
#include <optional>
#include <string>
#include <vector>

#include "model/case_result.hpp"

namespace vsa {

// The spread a timing is held to: its sampling target, or the default target
// (model/case_spec.hpp, 2%) for fixed passes, whose target_spread is 0.
[[nodiscard]] double spread_target(const Timing& timing);

// The pass medians the median and spread were taken from: all passes but the off-clock ones.
[[nodiscard]] std::vector<double> kept_pass_medians_ms(const Timing& timing);
// The SM clock of each kept pass (engine/pass_sampling.hpp, pass_clocks_mhz: one source for the timing), in the same
// order; nullopt where the pass has no clock sample.
[[nodiscard]] std::vector<std::optional<double>> kept_pass_clocks_mhz(const Timing& timing);

// "" when the spread is within spread_target with two or more kept passes. Otherwise a
// sentence: how sampling ended (budget, max passes, fixed passes) and what the clock samples
// say about the cause, e.g. "±5.2% > 2% target: the 30 s budget ran out after 27 passes; the
// SM clock moved between passes (at 1560-1695 MHz, sw_power_cap) and pass time × SM clock
// spreads ±0.9%: the clock accounts for the spread".
[[nodiscard]] std::string noise_reason(const Timing& timing);

}  // namespace vsa
