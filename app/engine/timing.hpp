#pragma once
// Timing with CUDA events (docs/design.md, "Running"): warm-up, iterations, passes,
// backends interleaved A B B A, median of pass medians with their spread, more passes
// until the spread meets the case's target (engine/pass_sampling.hpp), off-clock passes
// left out,
// optional L2 flush, NVML clock samples around and during each pass (a thread every 50 ms in a
// sustained pass, the waiting thread every 2 ms in a burst); sustained passes
// (timing.min_pass_ms) batch launches per iteration.
#include <functional>
#include <vector>

#include <cuda_runtime_api.h>
#include <nlohmann/json.hpp>

#include "engine/case_data.hpp"
#include "engine/pass_sampling.hpp"
#include "model/case_result.hpp"

namespace vsa {

void time_backends(const std::vector<BackendSession*>& sessions, const std::vector<BackendResult*>& results,
                   const CaseSpec& spec, double flops_fwd, cudaStream_t stream,
                   const std::function<nlohmann::json()>& sample_clocks);

// Sustained passes: launches per timed iteration so that `iterations` of them last at
// least `min_pass_ms`, given one launch's time from the calibration that follows the
// warm-up (timing.cpp); 1 when min_pass_ms is 0.
// Clamped to [1, kMaxLaunchesPerIteration].
inline constexpr int kMaxLaunchesPerIteration = 1 << 20;
[[nodiscard]] int launches_per_iteration(double min_pass_ms, int iterations, double per_launch_ms);

// The sampling policy of a case's timing (TimingSpec -> engine/pass_sampling.hpp).
[[nodiscard]] SamplingPolicy sampling_policy(const TimingSpec& timing);
// A backend's sampled passes as the report's Timing (without op, iterations, clocks source).
void fill_timing(Timing& t, const SampledBackend& sampled, const SamplingOutcome& outcome, const SamplingPolicy& policy,
                 double flops);

}  // namespace vsa
