#pragma once
// A capability some backends add to vsa::Backend: their outcome depends on a schedule seed
// that picks how their threads interleave and when their asynchronous operations complete
// (the sm100a execution model, kernels/sm100a/model/). One seed is one reproducible
// schedule. A case runs each op of such a backend once per seed of its `schedules`
// (engine/case_runner.cpp) and reports the seed of a finding, which `vsa-bench repro`
// replays. A separate interface, not a Backend virtual: the kernels' headers (and so every
// CUDA object) stay untouched by a host-only feature.
#include <cstdint>

namespace vsa {

class ScheduleExplorer {
 public:
  virtual ~ScheduleExplorer() = default;
  // The schedule of every later forward() / backward() call, until set again.
  virtual void set_schedule_seed(std::uint64_t seed) = 0;
};

}  // namespace vsa
