#pragma once
// Runs one case inside a worker process: builds the block map and inputs,
// computes the reference, runs every backend (check, stability or perf) and
// returns the results. A sticky CUDA error ends the case early with the failing
// backend marked FAULT and `context_lost` set; the parent restarts the worker.
#include <functional>

#include <nlohmann/json.hpp>

#include "model/case_result.hpp"
#include "model/case_spec.hpp"
#include "vsa/registry.hpp"

namespace vsa {

struct WorkerContext {
  DeviceInfo device;  // ordinal -1: no GPU
  const Registry* registry = nullptr;
  // Progress events to the parent ({"event": "start", "backend": ..., "phase": ...}).
  std::function<void(const nlohmann::json&)> emit;
  // NVML clock/throttle sample of this device (empty JSON where NVML is missing).
  std::function<nlohmann::json()> sample_clocks;
};

struct CaseOutcome {
  CaseResult result;
  bool context_lost = false;  // a sticky CUDA error: this process cannot run more GPU work
};

[[nodiscard]] CaseOutcome run_case(const CaseSpec& spec, const WorkerContext& ctx);

// The reference backend for a case ("auto" resolved), and the multiply-add count it is judged on.
[[nodiscard]] std::string choose_reference(const CaseSpec& spec, std::int64_t pairs);
// docs/spec.md's FLOP convention: F_fwd = 4 D BLK^2 pairs, F_bwd = 2.5 F_fwd.
[[nodiscard]] double forward_flops(const Shape& shape, std::int64_t pairs);
inline constexpr double kBackwardFlopsPerForward = 2.5;
[[nodiscard]] inline double backward_flops(double forward) { return kBackwardFlopsPerForward * forward; }

}  // namespace vsa
