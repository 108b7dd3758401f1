#pragma once
// Two-stream check (docs/spec.md bug class 5, "thread/stream-unsafe host caches in the
// launch path"): a backend's forward on two input sets, first one at a time, then
// both at once on two streams. A backend whose launch path shares state between
// calls (a staging buffer, a workspace, a descriptor cached without the stream)
// gives different outputs when the calls overlap. run_case uses one stream per case
// and cannot see this; the selftest runs it, and suites could add it as a mode.
#include <cstdint>
#include <string>

#include "model/case_spec.hpp"
#include "vsa/backend.hpp"

namespace vsa {

struct StreamSafetyResult {
  std::string backend;
  int rounds = 0;
  int mismatched_rounds = 0;              // rounds where O or lse of either call differ from its lone run
  std::int64_t max_mismatched_elems = 0;  // over rounds, O and lse of both calls together
  double worst_rel_dev = 0;               // max |x - lone| / max |lone| over O of both calls
};

// Call A uses the case's seed, call B seed + 1 (same block map). Compares bitwise, so
// the backend must be deterministic on fixed inputs. Needs a device backend and a
// device; throws CudaError on a CUDA failure, std::invalid_argument on a bad case.
[[nodiscard]] StreamSafetyResult check_stream_safety(const CaseSpec& spec, Backend& backend, const DeviceInfo& device,
                                                     int rounds);

}  // namespace vsa
