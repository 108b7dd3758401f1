#pragma once
// How an sm90a forward driver starts: the registered "sm90a" backend, or exit 77 with the reason
// this machine cannot run it (no GPU, not compute capability 9.0, kernels not built).
#include <string>

#include "driver_checks.hpp"
#include "sm90a_fwd_timing.hpp"

namespace vsa::test::sm90a {

inline Backend& sm90a_backend_or_skip() {
  const std::string why = sm90a_driver_skip_reason();
#if defined(VSA_HAVE_SM90A)
  if (why.empty()) return sm90a_driver_backend();
#endif
  tools::cannot_run(why);
}

}  // namespace vsa::test::sm90a
