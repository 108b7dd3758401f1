#pragma once
// Process exit codes (docs/design.md, "Exit codes").
namespace vsa {

enum ExitCode : int {
  kExitOk = 0,           // all passed (stated skips do not fail a run)
  kExitCheckFailed = 1,  // a correctness / stability / lint check failed
  kExitUsage = 2,        // bad usage or input (suite, flags, files)
  kExitRegression = 3,   // performance regression beyond the threshold (compare/fleet)
  kExitIncomplete = 4,   // a case faulted or hung, or --require-gpu found none
};

// `vsa-bench __worker` after a sticky CUDA error: the context is unusable, so the worker
// ends after answering and the parent starts a fresh one (run/worker.hpp). Seen only by
// the parent, in "exited with status 3".
inline constexpr int kWorkerExitContextLost = 3;

}  // namespace vsa
