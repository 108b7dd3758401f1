#pragma once
// Host backends that fail on purpose, so the isolation machinery is proven on
// any machine: one aborts its process (-> FAULT), one never returns (-> HANG).
// GPU planted faults live in kernels/selftest.
#include "vsa/registry.hpp"

namespace vsa {

void register_host_selftest_backends(Registry& registry);

}  // namespace vsa
