#pragma once
// Bytes a case will take before anything is allocated, so a suite that cannot fit the
// machine is refused up front (exit 2 with the figure) instead of failing by running
// out of memory: S = 8M once took the parent past 8 GB before bad_alloc. The estimate
// counts the big arrays only (tensors and index lists), so it is a lower bound; a case
// refused by it could never have run.
#include <cstdint>

#include "model/case_spec.hpp"

namespace vsa {

struct CaseFootprint {
  double host_bytes = 0;        // inputs, the reference's fp32 outputs, one backend's outputs, index lists
  double device_bytes = 0;      // inputs, one backend's outputs, index lists
  double validation_bytes = 0;  // one head's index lists, built when the suite is read
};

// `num_blocks` must be set (case_from_json sets it from S).
[[nodiscard]] CaseFootprint estimate_footprint(const CaseSpec& spec);

// Physical memory of this machine (sysconf), 0 when unknown.
[[nodiscard]] double physical_memory_bytes();

}  // namespace vsa
