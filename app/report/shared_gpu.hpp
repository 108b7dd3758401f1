#pragma once
// Whether a timing shared its GPU with another process. While a worker times a case it holds a
// compute context itself, so a pass whose NVML samples list more than one process with a compute
// context on the GPU ran beside someone else's: the time-slicing between contexts lands inside
// the events. On the H200 a neighbour that only launched small kernels every 2 ms cost the
// S = 16384 backward 20% at an unchanged clock, with every pass alike, so the spread did not
// show it (kernels/sm90a/notes/runs.md, run 49). Derived from the report's samples, so
// `render` states it for any report whose samples carry compute_pids.
#include <set>
#include <string>

#include "model/case_result.hpp"

namespace vsa {

struct SharedGpu {
  int passes = 0;           // passes with another process on the GPU
  int sampled_passes = 0;   // passes whose samples listed the processes at all
  int most_others = 0;      // the most other processes seen at once
  std::set<unsigned> pids;  // every pid listed in those passes (the worker's own among them)
  std::string unknown_why;  // the first sample's compute_pids_why, where a pass had no process list
};

// Per pass: the most processes any of its samples (before, during, after) listed, less one for
// the worker. A pass with no process list counts as unknown, not as alone.
[[nodiscard]] SharedGpu shared_gpu(const Timing& timing);

// "2 of 4 passes ran beside another compute process (up to 1 other; pids seen: 4711, 4802)", or
// "" when no sampled pass had company.
[[nodiscard]] std::string shared_gpu_text(const Timing& timing);

}  // namespace vsa
