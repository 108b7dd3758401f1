#pragma once
// What a measurement driver (tools/) does when a number cannot be trusted: a failed
// launch or a wrong result prints a "FAILED: ..." line (scripts/device/trace.sh shows
// those) and the driver exits 1; expect() lets it finish its table first. A machine that
// cannot run the driver (no GPU, wrong architecture, kernels not built) is said on
// stderr and exits 77, the skip code CTest and tests/cli use.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <string>

#include "vsa/backend.hpp"

namespace vsa::tools {

inline constexpr int kExitCannotRun = 77;

inline bool& any_failure() {
  static bool failed = false;
  return failed;
}

[[noreturn]] inline void fail(const std::string& why) {
  std::printf("FAILED: %s\n", why.c_str());
  std::fflush(stdout);
  std::exit(1);
}

inline void require(const Status& status, const std::string& what) {
  if (!status.ok()) fail(what + ": " + status.error);
}

inline void require(bool ok, const std::string& what) {
  if (!ok) fail(what);
}

// Records a failure and goes on; the driver's exit code is 1 at the end (exit_code()).
inline void expect(bool ok, const std::string& what) {
  if (ok) return;
  std::printf("FAILED: %s\n", what.c_str());
  any_failure() = true;
}

[[nodiscard]] inline int exit_code() { return any_failure() ? 1 : 0; }

[[noreturn]] inline void cannot_run(const std::string& why) {
  std::fprintf(stderr, "skipped: %s\n", why.c_str());
  std::exit(kExitCannotRun);
}

// A driver's main: runs it, and turns an exception into a FAILED line and exit 1.
inline int run_driver(const std::function<void()>& run) {
  try {
    run();
  } catch (const std::exception& e) {
    fail(e.what());
  }
  return exit_code();
}

}  // namespace vsa::tools
