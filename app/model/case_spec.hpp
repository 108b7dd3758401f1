#pragma once
// One benchmark/validation case after suite expansion: everything needed to
// rebuild its inputs and run it anywhere (docs/design.md, "Suites").
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/sparsity.hpp"
#include "vsa/shape.hpp"

namespace vsa {

enum class Mode { check, stability, perf };
enum class OpSelect { forward, backward, both };

struct Tolerance {
  double rel_max = 1e-2;  // max|got-ref| / max|ref| per output tensor
  double rel_l2 = 1e-2;   // ||got-ref|| / ||ref||
};

// A sustained pass longer than a minute says nothing a minute does not.
inline constexpr double kMaxMinPassMs = 60000;

// Defaults of adaptive sampling: 2% is what the regression gate needs at its 5% threshold
// (both runs' spreads add up below it); 30 s per op lets a 1.6 s pass reach the 9 passes
// from which the median's interval drops the extremes; 100 passes bound the report.
inline constexpr double kDefaultTargetSpread = 0.02;
inline constexpr double kDefaultTimeBudgetS = 30;
inline constexpr int kDefaultMaxPasses = 100;
inline constexpr double kMaxTimeBudgetS = 3600;
inline constexpr int kMaxPassesLimit = 10000;
// Fewest kept passes adaptive sampling calls converged (engine/pass_sampling.hpp): the first
// count at which the spread is the >= 95% interval it is described as (review of 2026-12-06:
// at 3 kept passes [min, max] covers the median only 75% of the time). A suite whose
// max_passes is below it could never converge, and is refused.
inline constexpr int kMinConvergedPasses = 6;

struct TimingSpec {
  int warmup = 3;
  int iterations = 20;
  int passes = 3;
  bool l2_flush = false;  // cold: flush L2 before every timed iteration
  // Sustained: every pass lasts at least this long (0: off). Each timed iteration becomes
  // a batch of back-to-back launches between one pair of events, sized by a calibration
  // run after the warm-up, so the card runs long enough for its power cap to act
  // (kernels/sm90a/NOTES.md run 29). Perf mode only.
  double min_pass_ms = 0;
  // Adaptive sampling (engine/pass_sampling.hpp), perf mode: after `passes`, more passes
  // until every backend's spread is at most target_spread (0: off, exactly `passes`), or
  // the next round would overrun time_budget_s (all passes of one op, all backends), or
  // max_passes. The worker timeout must cover the budget (suite.cpp checks it).
  double target_spread = kDefaultTargetSpread;
  double time_budget_s = kDefaultTimeBudgetS;
  int max_passes = kDefaultMaxPasses;
};

// Sustained timing's own costs, for the worker timeout (suite.cpp) and timing.cpp:
// calibration doubles its batch until one lasts min(kSoakMs, min_pass_ms), which also
// brings the card to its steady clock (at most twice that per backend and op); and a pass
// sized at full clock lasts up to kCapOverrun times longer once a power cap holds the
// clock down (1.45x seen on an H200: 1980 against 1365 MHz).
inline constexpr double kSoakMs = 1000;
inline constexpr double kCapOverrun = 1.5;
// Seconds of sustained timing a case may take at most: what its timeout must cover.
[[nodiscard]] inline double sustained_timing_budget_s(const TimingSpec& t, int ops, int backends) {
  if (!(t.min_pass_ms > 0)) return 0;
  const double soak_ms = t.min_pass_ms < kSoakMs ? t.min_pass_ms : kSoakMs;
  return double(ops) * backends * (t.passes * t.min_pass_ms * kCapOverrun + 2 * soak_ms) / 1000;
}
// Seconds adaptive sampling may add to a case at most (its budget per op; 0 when off).
[[nodiscard]] inline double adaptive_timing_budget_s(const TimingSpec& t, int ops) {
  return t.target_spread > 0 ? double(ops) * t.time_budget_s : 0;
}

struct StabilitySpec {
  int runs = 100;
  // Outputs allowed to vary by design (e.g. "dq" with atomics): max rel deviation allowed.
  std::map<std::string, double> bands;
};

// The longest hang watch: the kernels' 32-bit clock of 1024 ns units (hang_watch.cuh) spans 73 min.
inline constexpr std::int64_t kMaxHangWatchMs = 3600000;

// Schedules per op of a backend that explores them (vsa/schedule_explorer.hpp): 100 per case
// over the model suite take about half an hour; a million would be weeks.
inline constexpr int kMaxSchedules = 100000;

struct CaseSpec {
  std::string name;
  Mode mode = Mode::check;
  OpSelect op = OpSelect::both;
  Shape shape;  // max_kv / max_q are derived from the pattern
  PatternSpec pattern;
  VbsSpec vbs;
  std::uint64_t seed = 1;
  float scale = 1.0f;                 // input scale (x1, x4, x16)
  std::vector<std::string> backends;  // backends under test
  // Those of `backends` that `run --add-backend` appended (not the suite's own): a shape one of
  // them refuses SKIPs it in that case instead of refusing the run, and the suite's probes are
  // checked against the suite's own backends. Serialised (when not empty) so repro keeps it.
  std::vector<std::string> added_backends;
  std::string reference = "auto";    // auto: cpu-ref when small, cuda-ref above
  double cpu_reference_limit = 2e9;  // auto: largest B*H*pairs*BLK*BLK*D done on the CPU
  bool validate = true;              // false lets bad indices through (fault reproduction)
  Tolerance tolerance;
  TimingSpec timing;
  StabilitySpec stability;
  double timeout_s = 300;                       // a worker silent this long is a HANG
  std::map<std::string, std::uint32_t> probes;  // delay probes, name -> nanoseconds
  // > 0: kernels with mbarrier waits run their watched variant, and a wait longer than
  // this ends the case FAULT with the barrier's name (vsa/hang_watch.hpp); 0: off.
  std::uint32_t hang_watch_ms = 0;  // at most kMaxHangWatchMs
  // Backends that explore schedules (the sm100a execution model) run each op under
  // `schedules` schedules, seeds schedule_seed, +1, ...; stability runs continue after them.
  int schedules = 1;                // in [1, kMaxSchedules]
  std::uint64_t schedule_seed = 1;  // 0: round robin, async ops completed at once
  std::string origin;               // where it came from, for errors: "FILE: $.cases[3]" (not serialised)
};

[[nodiscard]] const char* to_string(Mode m);
[[nodiscard]] const char* to_string(OpSelect op);
[[nodiscard]] bool runs_forward(OpSelect op);
[[nodiscard]] bool runs_backward(OpSelect op);

// Full JSON form (reports, worker protocol, repro bundles): round-trips exactly.
[[nodiscard]] nlohmann::json to_json(const CaseSpec& c);

}  // namespace vsa
