#pragma once
// How many timed passes a perf case gets and which of them its median is taken from
// (docs/design.md, "Timing noise"), apart from CUDA so the host tests drive it with a fake
// timer and fake clocks (tests/unit/engine/pass_sampling_test.cpp):
//
// - Adaptive sampling: after the suite's `passes`, rounds of one more pass per backend
//   (interleaved A B B A as before) are added until every backend's spread is at most
//   `target_spread`, or the next round would overrun `time_budget_s`, or `max_passes` is
//   reached. Each timing says which of these happened.
// - Off-clock passes: a pass whose SM clock lies outside the range of the other passes'
//   clocks (beyond a small tolerance) ran on a different machine state (a power cap that
//   had not yet acted, or a brake); it is kept in the report, named, and left out of the
//   median and the spread.
// - The spread is the relative width of the distribution-free interval of the median at
//   >= 95% coverage: [x_(k), x_(n-k+1)] of the n sorted pass medians, k the largest with
//   2 P(Bin(n, 1/2) <= k-1) <= 5%. Up to 8 passes that is k = 1, i.e. (max - min) / median,
//   the spread reports always had; with more passes it narrows as the median becomes known,
//   where max - min could only grow. A gate needs the second: how well the median is known.
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/case_spec.hpp"

namespace vsa {

// Pass order for interleaving: even passes forward, odd passes reversed (A B, B A, ...).
[[nodiscard]] std::vector<std::size_t> pass_order(std::size_t count, int pass);
[[nodiscard]] double median(std::vector<double> values);

// The k of the interval above for n values: 1 for n < 9. From 6 to 8 values [min, max] covers
// the median with >= 96.9%; below 6 no interval reaches 95% ([min, max] covers 1 - 2^(1-n):
// 75% at 3, 87.5% at 4, 93.8% at 5), which is why convergence needs kMinConvergedPasses.
[[nodiscard]] int median_interval_rank(std::size_t n);
// (x_(n-k+1) - x_(k)) / median; 0 for fewer than two values.
[[nodiscard]] double median_interval_spread(std::vector<double> values);
// (max - min) / median; 0 for fewer than two values.
[[nodiscard]] double relative_range(const std::vector<double>& values);

// The SM clock a pass ran at, from its Timing::clocks entry: the mean of the samples taken
// during it, else the sample after it (the one clock_summary shows).
[[nodiscard]] std::optional<double> pass_sm_clock_mhz(const nlohmann::json& pass_clocks);
// Whether every pass of `passes` that has a clock at all has one from samples taken during it.
[[nodiscard]] bool every_pass_sampled_during(const std::vector<nlohmann::json>& passes);
// The SM clock of each pass from one source for the whole timing: the samples during each
// pass where every pass has them, else the sample after each. A burst pass that outlasts its
// queueing by less than a sample period has none from during it, and the two sources differ
// by more than the off-clock tolerance under a cap (run 48: 1740 MHz inside a pass, 1905 after
// it), so mixing them would leave a pass out for the way it was sampled.
[[nodiscard]] std::vector<std::optional<double>> pass_clocks_mhz(const std::vector<nlohmann::json>& passes);

// Off-clock passes: the passes' SM clocks, sorted, fall into clock states wherever two
// neighbours differ by more than kOffClockTolerance x the median clock (2%: 40 MHz at 1980 MHz,
// above the 15 MHz clock step). When one state holds a strict majority of the passes with a
// clock, every pass outside it is left out, named with that state's range [min, max]; with no
// such majority (two states of equal weight) none is. Judged among >= 3 passes with a clock.
// By states rather than one pass at a time: two passes at the same boost clock (review of
// 2026-12-06: four at 1980 MHz among sixteen capped ones) each lie inside the other's range.
inline constexpr double kOffClockTolerance = 0.02;
struct OffClockPass {
  int pass = 0;
  double sm_clock_mhz = 0;
  double others_min_mhz = 0, others_max_mhz = 0;
};
[[nodiscard]] std::vector<OffClockPass> off_clock_passes(const std::vector<std::optional<double>>& clocks);

// What one backend's passes of one op give: the figures of model/case_result.hpp's Timing.
struct PassStatistics {
  double median_ms = 0;   // median of the passes kept
  double spread = 0;      // median_interval_spread of the passes kept
  double pass_range = 0;  // relative_range of the passes kept
  int kept = 0;
  std::vector<OffClockPass> off_clock;
};
[[nodiscard]] PassStatistics pass_statistics(const std::vector<double>& pass_medians_ms,
                                             const std::vector<nlohmann::json>& pass_clocks);

// Fewest kept passes that may be called converged: kMinConvergedPasses (model/case_spec.hpp).

struct SamplingPolicy {
  int min_passes = 3;        // TimingSpec::passes: always run
  int max_passes = 100;      // TimingSpec::max_passes
  double target_spread = 0;  // TimingSpec::target_spread; 0: fixed, min_passes only
  double time_budget_s = 0;  // TimingSpec::time_budget_s: wall time for all passes of this op
  [[nodiscard]] bool adaptive() const { return target_spread > 0; }
};

enum class SamplingStop { fixed, converged, budget_exhausted, max_passes };
[[nodiscard]] const char* to_string(SamplingStop stop);

// One timed pass of one backend: its median and its clock samples ({"pass", "before", ...}).
struct PassRecord {
  double median_ms = 0;
  nlohmann::json clocks;
};

struct SampledBackend {
  std::vector<double> pass_medians_ms;
  std::vector<nlohmann::json> pass_clocks;
  PassStatistics stats;
  SamplingStop stop = SamplingStop::fixed;  // converged: this backend's spread <= target at the end
};

struct SamplingOutcome {
  std::vector<SampledBackend> backends;
  int passes = 0;
  double seconds = 0;  // wall time of all passes, by now_s
};

// Runs passes over `backends` backends: run_pass(backend, pass) times one pass; now_s() is
// a monotonic clock in seconds. A new round starts only when the time spent so far plus
// the last round's duration fits time_budget_s, so the budget bounds the timing
// (docs/design.md: the worker timeout must cover min passes + budget).
[[nodiscard]] SamplingOutcome sample_passes(const SamplingPolicy& policy, std::size_t backends,
                                            const std::function<PassRecord(std::size_t backend, int pass)>& run_pass,
                                            const std::function<double()>& now_s);

}  // namespace vsa
