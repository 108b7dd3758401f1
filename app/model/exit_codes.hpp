#pragma once
// Process exit codes (DESIGN.md, "Exit codes").
namespace vsa {

enum ExitCode : int {
  kExitOk = 0,            // all passed (stated skips do not fail a run)
  kExitCheckFailed = 1,   // a correctness / stability / lint check failed
  kExitUsage = 2,         // bad usage or input (suite, flags, files)
  kExitRegression = 3,    // performance regression beyond the threshold (compare/fleet)
  kExitIncomplete = 4,    // a case faulted or hung, or --require-gpu found none
};

}  // namespace vsa
